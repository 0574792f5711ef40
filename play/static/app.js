// The page's controller: the game from the server, the aiming controls, the animations,
// the bot's turns, decisions, the shot clock, the record and its replay.
import { View, drawTable, drawRegion, drawBalls, circle, line, framePositions } from "./table.js";
import { firstContact, regionBox, clampTo, naturalPoint, overlaps } from "./aim.js";

const $ = (id) => document.getElementById(id);
const canvas = $("table"), ctx = canvas.getContext("2d");
const spinCanvas = $("spin"), spinCtx = spinCanvas.getContext("2d");
const OPTION_LABELS = {
  "shoot": "Shoot myself (G6(1))", "hand-back": "Offender shoots again (G6(2))",
  "accept-shoot": "Accept, I shoot (G12.2(1))", "accept-hand-back": "Accept, offender shoots (G12.2(2))",
  "rerack-break": "Re-rack, I break (G12.2(3))", "rerack-opponent-breaks": "Re-rack, offender breaks (G12.2(4))",
  "existing-position": "Play from the position (DYN-7(1))", "from-hand": "Own ball in hand, anywhere (DYN-7(2))",
};
const SPIN_MAX = 0.5; // tip offset limit of the widget, in R (the kernel refuses beyond 0.6 R)

let view = null, game = null, anim = null, replay = null;
let clockOffset = 0; // local time - server time, s
const ui = { mode: "aim", phi: 90, a: 0, b: 0, own: null, place: null, call: {}, take: null, drag: null };

// The server refuses a body that is not of a JSON type (server.py): every body names its type.
async function api(method, path, body, type = "application/json") {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.body = typeof body === "string" ? body : JSON.stringify(body);
    init.headers["Content-Type"] = type;
  }
  const response = await fetch(path, init);
  const data = await response.json();
  if (!response.ok) throw new Error(data.error || `HTTP ${response.status}`);
  return data;
}

function setBusy(what) { document.body.dataset.busy = what; $("thinking").hidden = what !== "thinking"; }
function showError(message) { $("error").textContent = message || ""; }

// --- the game's facts ---------------------------------------------------------------------

const st = () => game.state;
const ballsNow = () => st().balls.map((b) => [b.id, b.x, b.y]);
const humanSeat = () => game.settings.human;
const myShot = () => game.to_move === "human" && ["break", "normal", "in-hand"].includes(st().phase);
const placing = () => ["break", "in-hand"].includes(st().phase);

function ownBall() {
  if (placing()) return st().hand[0] ?? 0;
  if (game.own_ball !== null) return game.own_ball;
  return ui.own;
}

function ballsForAim() {
  const balls = ballsNow();
  if (placing() && ui.place) balls.push([ownBall(), ui.place[0], ui.place[1]]);
  return balls;
}

function names() {
  const s = game.settings, bot = `Bot (${s.bot}${s.bot === "search" ? ", " + s.level : ""})`;
  return humanSeat() === 0 ? ["You", bot] : [bot, "You"];
}

// --- drawing ------------------------------------------------------------------------------

function render() {
  if (!view) return;
  drawTable(ctx, view);
  const numbered = (replay ? replay.variant : game.settings.variant) === "classic";
  if (anim) { drawBalls(ctx, view, anim.positions, numbered); return; }
  if (replay) { drawBalls(ctx, view, replay.positions, numbered); return; }
  const highlight = new Set();
  if (game.pending && game.to_move === "human" && ui.take !== null) highlight.add(ui.take);
  if (st().variant === "classic" && ui.call.ball !== undefined) highlight.add(ui.call.ball);
  if (myShot() && placing()) drawRegion(ctx, view, regionBox(view.table, game.region));
  const balls = myShot() ? ballsForAim() : ballsNow();
  drawBalls(ctx, view, balls, numbered, highlight);
  if (ui.call.pocket) {
    const p = view.table.pockets.find((q) => q.name === ui.call.pocket);
    ctx.strokeStyle = "#ff5252"; ctx.lineWidth = 3;
    circle(ctx, view, p.x, p.y, p.r * 1.4, false);
  }
  if (myShot()) drawAim(balls);
}

function drawAim(balls) {
  const own = ownBall();
  if (own === null || own === undefined) return;
  const c = firstContact(view.table, balls, own, ui.phi);
  if (!c) return;
  ctx.setLineDash([6, 4]); ctx.strokeStyle = "rgba(255,255,255,0.8)"; ctx.lineWidth = 1.5;
  line(ctx, view, c.from[0], c.from[1], c.ghost[0], c.ghost[1]);
  ctx.setLineDash([]);
  ctx.strokeStyle = "rgba(255,255,255,0.9)";
  circle(ctx, view, c.ghost[0], c.ghost[1], view.table.R, false);
  if (c.objectLine) {
    ctx.strokeStyle = "#ffd54f";
    line(ctx, view, ...c.objectLine);
  }
  const own_ = balls.find((b) => b[0] === own);
  ctx.strokeStyle = "#f2c12e"; ctx.lineWidth = 2;
  circle(ctx, view, own_[1], own_[2], view.table.R * 1.35, false);
}

function drawSpin() {
  const w = spinCanvas.width, c = w / 2, r = w / 2 - 4;
  spinCtx.clearRect(0, 0, w, w);
  spinCtx.fillStyle = "#f4f1e6";
  spinCtx.beginPath(); spinCtx.arc(c, c, r, 0, 2 * Math.PI); spinCtx.fill();
  spinCtx.strokeStyle = "#999";
  spinCtx.beginPath(); spinCtx.arc(c, c, r * SPIN_MAX, 0, 2 * Math.PI); spinCtx.stroke();
  spinCtx.fillStyle = "#1565c0";
  spinCtx.beginPath(); spinCtx.arc(c + ui.a * r, c - ui.b * r, 6, 0, 2 * Math.PI); spinCtx.fill();
  const side = ui.a === 0 ? "" : `${ui.a > 0 ? "right" : "left"} ${Math.abs(ui.a).toFixed(2)} R`;
  const vert = ui.b === 0 ? "" : `${ui.b > 0 ? "top" : "draw"} ${Math.abs(ui.b).toFixed(2)} R`;
  $("spin-out").textContent = [side, vert].filter(Boolean).join(", ") || "centre";
}

// --- the panel ----------------------------------------------------------------------------

function updatePanel() {
  const s = st(), who = names();
  for (const p of [0, 1]) {
    const el = $(`player-${p}`);
    el.querySelector(".name").textContent = who[p];
    el.querySelector(".score").textContent = s.scores[p];
    el.querySelector(".shelf").innerHTML = s.shelves[p]
      .map((b) => `<span class="${b === 0 ? "coloured" : ""}">${s.variant === "classic" ? b : ""}</span>`).join("");
    el.classList.toggle("to-move", game.to_move !== "over" && s.turn === p);
  }
  document.body.dataset.toMove = game.to_move;
  document.body.dataset.phase = s.phase;
  document.body.dataset.seq = game.seq;
  let status;
  if (game.to_move === "over") status = `Frame over: ${who[s.winner]} won.`;
  else if (game.to_move === "bot") status = "The bot's move.";
  else if (game.pending) status = "Your decision.";
  else if (placing()) status = `Your shot: drag the coloured ball within the ${game.region} region, aim, shoot.`;
  else if (ownBall() === null) status = "Your shot: pick the ball to strike (any ball, G4.3).";
  else status = "Your shot: drag on the table to aim.";
  $("status").textContent = `${s.variant} pyramid. ${status}`;
  const free = s.variant === "free" && s.phase === "normal";
  $("mode-pick").hidden = !free;
  $("mode-call").hidden = s.variant !== "classic";
  $("shoot").disabled = !myShot() || ownBall() === null || ownBall() === undefined || !!anim;
  $("shot-controls").disabled = !myShot();
  updateDecision();
  $("over").hidden = game.to_move !== "over";
  if (game.to_move === "over") $("over-text").textContent = `${who[s.winner]} won ${s.scores[s.winner]}:${s.scores[1 - s.winner]}.`;
  $("download").href = `/api/games/${game.id}/record`;
  $("log").innerHTML = game.log.map((m) => `<li>${m.words.join(" ")}</li>`).join("");
  $("log").scrollTop = 1e6;
  const cv = $("call-out");
  cv.hidden = s.variant !== "classic";
  cv.textContent = `Call: ball ${ui.call.ball ?? "–"}, pocket ${ui.call.pocket ?? "–"} (CLS-5.2)`;
  if (game.bot_error) showError(`The bot failed: ${game.bot_error}`);
  updateClock();
}

function updateDecision() {
  const box = $("decision"), p = game.pending;
  box.hidden = !(p && game.to_move === "human");
  if (box.hidden) return;
  const take = p.takes_ball ? ` Click a ball to take (eligible: ${p.eligible_balls.join(", ")}); chosen: ${ui.take}.` : "";
  $("decision-text").textContent = `Your decision (${p.kind}).${take}`;
  const buttons = $("decision-buttons");
  buttons.innerHTML = "";
  const options = p.options.length ? p.options : [null];
  for (const option of options) {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = option ? OPTION_LABELS[option] || option : `Take ball ${ui.take}`;
    b.dataset.option = option || "take";
    b.onclick = () => decide(option);
    buttons.appendChild(b);
  }
}

function updateClock() {
  const c = game.clock;
  $("clock").hidden = !c.on;
  if (!c.on) return;
  const el = $("clock-time");
  if (c.deadline === null || anim) { el.textContent = "shot clock: –"; $("extension").hidden = true; return; }
  const left = c.deadline - (Date.now() / 1000 - clockOffset);
  el.textContent = left > 0 ? `shot clock: ${left.toFixed(0)} s` : "time is up: the shot is a foul (G26)";
  $("clock").classList.toggle("warning", left <= c.warning_s);
  $("extension").hidden = c.extended || c.extensions_left <= 0;
}

// --- moves --------------------------------------------------------------------------------

function setGame(next) {
  const newTurn = !game || next.seq !== game.seq || next.id !== game.id;
  game = next;
  clockOffset = Date.now() / 1000 - next.server_time;
  if (newTurn) resetTurn();
  for (const key of ["variant", "bot", "level"]) $(key).value = game.settings[key];
  $("shot-clock").checked = game.settings.shot_clock;
  history.replaceState(null, "", `?game=${game.id}`);
  updatePanel();
  render();
}

function resetTurn() {
  const s = st();
  ui.own = null; ui.call = {}; ui.drag = null;
  ui.take = game.pending && game.pending.default ? game.pending.default.ball ?? null : null;
  ui.place = placing() ? naturalPoint(view.table, game.region) : null;
  if (s.phase === "break") { ui.phi = 90; setPower(8); } else setPower(Math.min(+$("power").value, 4));
  ui.mode = "aim";
  document.querySelector('input[name=mode][value=aim]').checked = true;
}

function setPower(v) { $("power").value = v; $("power-out").textContent = `${(+$("power").value).toFixed(1)} m/s`; }

function animate(animation) {
  return new Promise((resolve) => {
    if (!animation.duration) { resolve(); return; }
    setBusy("animating");
    const t0 = performance.now();
    const step = (now) => {
      const t = Math.max(0, now - t0) / 1000; // a frame's time stamp may precede t0
      anim = { positions: framePositions(animation, Math.min(t, animation.duration)) };
      render();
      if (t < animation.duration) requestAnimationFrame(step);
      else { anim = null; resolve(); }
    };
    requestAnimationFrame(step);
  });
}

async function playMove(result) {
  $("verdict").innerHTML = result.move.words.map((w) => `<p>${w}</p>`).join("");
  await animate(result.move.animation);
  setGame(result.game);
  setBusy("idle");
  await botTurns();
}

async function botTurns() {
  while (game.to_move === "bot" && !replay) {
    setBusy("thinking");
    try {
      const result = await api("POST", `/api/games/${game.id}/bot`, { seq: game.seq });
      showError("");
      await playMove(result);
      return;
    } catch (err) {
      showError(`${err.message}`);
      setBusy("idle");
      const retry = document.createElement("button");
      retry.textContent = "Ask the bot again";
      retry.onclick = () => { retry.remove(); botTurns(); };
      $("error").appendChild(retry);
      return;
    }
  }
  setBusy("idle");
}

async function shoot() {
  const body = { seq: game.seq, ball: ownBall(), speed: +$("power").value, phi: ui.phi, a: ui.a, b: ui.b };
  if (placing()) body.place = { x: ui.place[0], y: ui.place[1] };
  if (st().variant === "classic" && ui.call.ball !== undefined && ui.call.pocket) body.call = ui.call;
  await send(`/api/games/${game.id}/shot`, body);
}

async function decide(option) {
  const body = { seq: game.seq };
  if (option) body.option = option;
  if (game.pending.takes_ball) body.ball = ui.take;
  await send(`/api/games/${game.id}/decision`, body);
}

async function send(path, body) {
  showError("");
  setBusy("thinking-referee");
  try {
    await playMove(await api("POST", path, body));
  } catch (err) {
    showError(err.message);
    setBusy("idle");
    try { setGame(await api("GET", `/api/games/${game.id}`)); } catch { /* the error above says enough */ }
    render();
  }
}

// --- the mouse ----------------------------------------------------------------------------

function ballAt(p, balls) {
  return balls.find(([, x, y]) => Math.hypot(x - p[0], y - p[1]) <= view.table.R * 1.2);
}

canvas.addEventListener("pointerdown", (event) => {
  if (!game || anim || replay || game.to_move !== "human") return;
  const p = view.fromEvent(event), balls = ballsNow();
  if (game.pending) {
    const hit = ballAt(p, balls);
    if (hit && game.pending.eligible_balls.includes(hit[0])) ui.take = hit[0];
    updatePanel(); render(); return;
  }
  if (ui.mode === "pick" || ownBall() === null) { // Free: the first click picks the ball to strike (G4.3)
    const hit = ballAt(p, balls);
    if (hit) { ui.own = hit[0]; ui.mode = "aim"; document.querySelector('input[name=mode][value=aim]').checked = true; }
    updatePanel(); render(); return;
  }
  if (ui.mode === "call") {
    const hit = ballAt(p, balls);
    const pocket = view.table.pockets.find((q) => Math.hypot(q.x - p[0], q.y - p[1]) < 0.1);
    if (hit && hit[0] !== 0) ui.call.ball = hit[0];
    else if (pocket) ui.call.pocket = pocket.name;
    updatePanel(); render(); return;
  }
  if (placing() && ui.place && Math.hypot(p[0] - ui.place[0], p[1] - ui.place[1]) <= view.table.R * 1.5) {
    ui.drag = "place";
  } else {
    ui.drag = "aim";
    aimAt(p);
  }
  canvas.setPointerCapture(event.pointerId);
});

canvas.addEventListener("pointermove", (event) => {
  if (!ui.drag) return;
  const p = view.fromEvent(event);
  if (ui.drag === "place") ui.place = clampTo(regionBox(view.table, game.region), p[0], p[1]);
  else aimAt(p);
  render();
});

canvas.addEventListener("pointerup", () => {
  if (ui.drag === "place" && overlaps(view.table, ballsNow(), ownBall(), ...ui.place)) showError("The ball in hand touches another ball: move it.");
  ui.drag = null;
});

function aimAt(p) {
  const own = ballsForAim().find((b) => b[0] === ownBall());
  if (!own) return;
  const phi = Math.atan2(p[1] - own[2], p[0] - own[1]) * 180 / Math.PI;
  if (Math.hypot(p[1] - own[2], p[0] - own[1]) > 1e-3) ui.phi = (phi + 360) % 360;
  render();
}

document.addEventListener("keydown", (event) => {
  if (!game || !myShot() || event.target.tagName === "INPUT") return;
  const step = event.shiftKey ? 1 : 0.1;
  if (event.key === "ArrowLeft") ui.phi = (ui.phi + step) % 360;
  else if (event.key === "ArrowRight") ui.phi = (ui.phi - step + 360) % 360;
  else return;
  event.preventDefault();
  render();
});

function spinFrom(event) {
  const box = spinCanvas.getBoundingClientRect(), r = box.width / 2 - 4;
  let a = (event.clientX - box.left - box.width / 2) / r, b = -(event.clientY - box.top - box.height / 2) / r;
  const n = Math.hypot(a, b);
  if (n > SPIN_MAX) { a *= SPIN_MAX / n; b *= SPIN_MAX / n; }
  ui.a = Math.round(a * 100) / 100; ui.b = Math.round(b * 100) / 100;
  drawSpin();
}
spinCanvas.addEventListener("pointerdown", (e) => { spinFrom(e); spinCanvas.setPointerCapture(e.pointerId); spinCanvas.dataset.drag = "1"; });
spinCanvas.addEventListener("pointermove", (e) => { if (spinCanvas.dataset.drag) spinFrom(e); });
spinCanvas.addEventListener("pointerup", () => { delete spinCanvas.dataset.drag; });
spinCanvas.addEventListener("dblclick", () => { ui.a = 0; ui.b = 0; drawSpin(); });

document.querySelectorAll("input[name=mode]").forEach((r) => r.addEventListener("change", () => { ui.mode = r.value; }));
$("power").addEventListener("input", () => setPower($("power").value));
$("shoot").addEventListener("click", shoot);
$("rematch").addEventListener("click", async () => setGame(await api("POST", `/api/games/${game.id}/rematch`)));
$("extension").addEventListener("click", async () => {
  try { setGame(await api("POST", `/api/games/${game.id}/extension`)); } catch (err) { showError(err.message); }
});
$("start").addEventListener("click", async () => {
  const settings = { variant: $("variant").value, bot: $("bot").value, level: $("level").value, shot_clock: $("shot-clock").checked };
  setGame(await api("POST", "/api/games", { settings }));
  $("verdict").textContent = "";
});

// --- replay -------------------------------------------------------------------------------

$("load").addEventListener("change", async () => {
  const file = $("load").files[0];
  if (!file) return;
  showError("");
  setBusy("thinking-referee");
  try {
    const data = await api("POST", "/api/replay", await file.text(), "application/jsonl");
    replay = { ...data, index: -1, positions: [] };
    $("replay").hidden = false;
    const r = data.report;
    $("replay-report").textContent = `${r.entries} moves; verdicts ${r.reproduced ? "reproduced" : "NOT reproduced"} by the referee.`;
    await replayStep(0);
  } catch (err) { showError(err.message); }
  setBusy("idle");
});

async function replayStep(index) {
  if (!replay || !replay.steps.length) return;
  replay.index = Math.max(0, Math.min(index, replay.steps.length - 1));
  const step = replay.steps[replay.index];
  $("replay-at").textContent = `move ${replay.index + 1} of ${replay.steps.length}`;
  $("verdict").innerHTML = step.words.map((w) => `<p>${w}</p>`).join("");
  await animate(step.animation);
  replay.positions = framePositions(step.animation, step.animation.duration);
  setBusy("idle");
  render();
}
$("replay-prev").addEventListener("click", () => replayStep(replay.index - 1));
$("replay-next").addEventListener("click", () => replayStep(replay.index + 1));
$("replay-exit").addEventListener("click", () => { replay = null; $("replay").hidden = true; render(); botTurns(); });

// --- start --------------------------------------------------------------------------------

async function main() {
  const table = await api("GET", "/api/table");
  view = new View(canvas, table);
  drawSpin();
  const id = new URLSearchParams(location.search).get("game");
  try {
    setGame(id ? await api("GET", `/api/games/${id}`) : await api("POST", "/api/games", {}));
  } catch (err) {
    showError(`${err.message}: a new game instead`);
    setGame(await api("POST", "/api/games", {}));
  }
  setInterval(() => { if (game) updateClock(); }, 250);
  setBusy("idle");
  await botTurns();
}

window.piramida = {
  // Page coordinates of a table point (for tests and scripts driving the page).
  toPage: (x, y) => {
    const box = canvas.getBoundingClientRect(), [sx, sy] = view.toScreen(x, y);
    return [box.left + sx * box.width / canvas.width, box.top + sy * box.height / canvas.height];
  },
  game: () => game,
  positions: () => (anim ? anim.positions : null),
  ui,
};
main();
