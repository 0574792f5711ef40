// The page's controller: the game from the server, the aiming controls (cue, power, spin),
// the animations and sounds, the bot's turns, decisions, the shot clock, the record and its replay.
import { View, drawTable, drawRegion, drawBalls, drawCue, drawImpact, drawPaths, circle, line, framePositions, IMPACT_S } from "./table.js";
import { firstContact, regionBox, clampTo, naturalPoint, overlaps } from "./aim.js";
import { Sounds } from "./sound.js";

const $ = (id) => document.getElementById(id);
const canvas = $("table"), ctx = canvas.getContext("2d");
const spinCanvas = $("spin"), spinCtx = spinCanvas.getContext("2d");
const OPTION_LABELS = {
  "shoot": "Shoot myself (G6(1))", "hand-back": "Offender shoots again (G6(2))",
  "accept-shoot": "Accept, I shoot (G12.2(1))", "accept-hand-back": "Accept, offender shoots (G12.2(2))",
  "rerack-break": "Re-rack, I break (G12.2(3))", "rerack-opponent-breaks": "Re-rack, offender breaks (G12.2(4))",
  "existing-position": "Play from the position (DYN-7(1))", "from-hand": "Coloured ball in hand, anywhere (DYN-7(2))",
};
// Playback speed of the balls (`?speed=4` fast-forwards, up to 16; 1 is real time).
const SPEED = Math.min(16, Math.max(0.25, Number(new URLSearchParams(location.search).get("speed")) || 1));
const SPIN_MAX = 0.5; // tip offset limit of the widget, in R (the kernel refuses beyond 0.6 R)
const POWER_MIN = 0.5, POWER_MAX = 9; // m/s, the slider's range
const PULL_MAX = 0.3; // m the cue is drawn back for full power
const STROKE_S = 0.18; // s the cue takes to reach the ball before the balls move
const AIM_DEBOUNCE_MS = 40; // the aiming line is asked for this long after the aim stops changing
const CONTACTS = { normal: 2, training: 5 }; // the aiming line's contacts (engine.AIM_CONTACTS)

let view = null, game = null, anim = null, replay = null, levels = null, rulebook = null;
let botState = null; // while the bot thinks: whether its move compiles first (GET /api/games/{id}/bot)
let lastHint = null; // the bot's choice in the human's place (practice)
let clockOffset = 0; // local time - server time, s
let thinkingSince = null; // when the bot was asked (performance.now())
let aimLine = null, aimTimer = null, aimAsked = 0;
// ms the page waited (the aiming line, the bot's move) and the aiming line's ms on the server: tests, README.
const timings = { aim: [], aimServer: [], bot: [] };
const sounds = new Sounds();
// `layout`: practice, the balls as the player places them ([id, x, y]), until sent; else null.
const ui = { mode: "aim", phi: 90, a: 0, b: 0, own: null, place: null, call: {}, take: null, drag: null, pull: null, layout: null };

// The server refuses a body that is not of a JSON type (server.py): every body names its type.
async function api(method, path, body, type = "application/json") {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.body = typeof body === "string" ? body : JSON.stringify(body);
    init.headers["Content-Type"] = type;
  }
  const response = await fetch(path, init);
  const data = await response.json();
  if (!response.ok) throw Object.assign(new Error(data.error || `HTTP ${response.status}`), { status: response.status });
  return data;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Busy: "loading", "animating", "thinking" (the bot), "thinking-referee" (a move on its way), or "idle".
// Nothing that moves the game can be clicked unless the page is idle.
function setBusy(what) {
  document.body.dataset.busy = what;
  $("thinking").hidden = what !== "thinking";
  thinkingSince = what === "thinking" ? performance.now() : null;
  updateThinking();
  if (game) updateControls();
}
const idle = () => document.body.dataset.busy === "idle";
function showError(message) { $("error").textContent = message || ""; }

// --- the game's facts ---------------------------------------------------------------------

const st = () => game.state;
const ballsNow = () => st().balls.map((b) => [b.id, b.x, b.y]);
const humanSeat = () => game.settings.human;
const myShot = () => game.to_move === "human" && ["break", "normal", "in-hand"].includes(st().phase);
const placing = () => ["break", "in-hand"].includes(st().phase);
const classic = () => st().variant === "classic";

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

function levelOf(settings) {
  const found = levels && levels.levels.find((l) => Object.entries(l.settings).every(([k, v]) => settings[k] === v));
  return found ? found.name : null;
}

function names() {
  const s = game.settings, level = levelOf(s);
  const bot = `Bot (${level || s.bot + (s.bot === "search" ? ", " + s.level : "")})`;
  return humanSeat() === 0 ? ["You", bot] : [bot, "You"];
}

function shotBody() {
  const body = { seq: game.seq, ball: ownBall(), speed: +$("power").value, phi: ui.phi, a: ui.a, b: ui.b };
  if (placing()) body.place = { x: ui.place[0], y: ui.place[1] };
  return body;
}

// --- drawing ------------------------------------------------------------------------------

// The canvas as large as its box allows, upright in a box taller than wide (a phone held upright).
function fitTable() {
  const box = $("table-box").getBoundingClientRect();
  view.fit(box.width, box.height);
  if (game) render();
}

function render() {
  if (!view) return;
  drawTable(ctx, view);
  const numbered = (replay ? replay.variant : game.settings.variant) === "classic";
  if (anim) {
    drawBalls(ctx, view, anim.positions, numbered);
    if (anim.cue) drawCue(ctx, view, ...anim.cue);
    if (anim.impact) drawImpact(ctx, view, ...anim.impact);
    return;
  }
  if (replay) { drawBalls(ctx, view, replay.positions, numbered); return; }
  if (ui.layout) { drawBalls(ctx, view, ui.layout, numbered); return; }
  const highlight = new Set();
  if (game.pending && game.to_move === "human" && ui.take !== null) highlight.add(ui.take);
  if (classic() && ui.call.ball !== undefined) highlight.add(ui.call.ball);
  if (myShot() && placing()) drawRegion(ctx, view, regionBox(view.table, game.region));
  const balls = myShot() ? ballsForAim() : ballsNow();
  drawBalls(ctx, view, balls, numbered, highlight);
  if (ui.call.pocket) {
    const p = view.table.pockets.find((q) => q.name === ui.call.pocket);
    ctx.strokeStyle = "#ff5252"; ctx.lineWidth = 3;
    circle(ctx, view, p.x, p.y, p.r * 1.4, false);
  }
  if (myShot() && idle()) drawAim(balls);
}

// The kernel's paths when they have come; until then the straight line to the first contact.
function drawAim(balls) {
  const own = ownBall();
  if (own === null || own === undefined) return;
  const me = balls.find((b) => b[0] === own);
  if (!me) return;
  if (aimLine) drawPaths(ctx, view, aimLine);
  else {
    const c = firstContact(view.table, balls, own, ui.phi);
    if (c) {
      ctx.setLineDash([6, 4]); ctx.strokeStyle = "rgba(255,255,255,0.6)"; ctx.lineWidth = 1.5;
      line(ctx, view, c.from[0], c.from[1], c.ghost[0], c.ghost[1]);
      ctx.setLineDash([]);
      circle(ctx, view, c.ghost[0], c.ghost[1], view.table.R, false);
    }
  }
  ctx.strokeStyle = "#f2c12e"; ctx.lineWidth = 2;
  circle(ctx, view, me[1], me[2], view.table.R * 1.35, false);
  drawCue(ctx, view, me[1], me[2], ui.phi, ui.pull ?? pullOf(+$("power").value));
}

// Power as players say it, by the cue ball's speed (m/s): the word's upper bound, and the word.
const POWER_WORDS = [[1.5, "soft"], [3, "medium"], [4.5, "firm"], [6.5, "hard"], [Infinity, "very hard"]];
const powerWord = (speed) => POWER_WORDS.find(([top]) => speed < top)[1];
const pullOf = (power) => 0.02 + PULL_MAX * (power - POWER_MIN) / (POWER_MAX - POWER_MIN);
const powerOf = (pull) => Math.min(POWER_MAX, Math.max(POWER_MIN, POWER_MIN + (pull - 0.02) / PULL_MAX * (POWER_MAX - POWER_MIN)));

function drawSpin() {
  const w = spinCanvas.width, c = w / 2, r = w / 2 - 16;
  spinCtx.clearRect(0, 0, w, w);
  spinCtx.fillStyle = "#f4f1e6";
  spinCtx.beginPath(); spinCtx.arc(c, c, r, 0, 2 * Math.PI); spinCtx.fill();
  spinCtx.strokeStyle = "#999";
  spinCtx.beginPath(); spinCtx.arc(c, c, r * SPIN_MAX, 0, 2 * Math.PI); spinCtx.stroke();
  spinCtx.fillStyle = "#ccc"; spinCtx.font = "11px sans-serif"; spinCtx.textAlign = "center"; spinCtx.textBaseline = "middle";
  spinCtx.fillText("follow", c, 7); spinCtx.fillText("draw", c, w - 7);
  spinCtx.save(); spinCtx.translate(7, c); spinCtx.rotate(-Math.PI / 2); spinCtx.fillText("left", 0, 0); spinCtx.restore();
  spinCtx.save(); spinCtx.translate(w - 7, c); spinCtx.rotate(Math.PI / 2); spinCtx.fillText("right", 0, 0); spinCtx.restore();
  spinCtx.fillStyle = "#1565c0";
  spinCtx.beginPath(); spinCtx.arc(c + ui.a * r, c - ui.b * r, 6, 0, 2 * Math.PI); spinCtx.fill();
  const side = ui.a === 0 ? "" : `${ui.a > 0 ? "right" : "left"} ${Math.abs(ui.a).toFixed(2)}`;
  const vert = ui.b === 0 ? "" : `${ui.b > 0 ? "follow" : "draw"} ${Math.abs(ui.b).toFixed(2)}`;
  $("spin-out").textContent = [vert, side].filter(Boolean).join(", ") || "centre";
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
  else status = "Your shot: drag on the table to aim, pull the cue back and let go to shoot.";
  if (myShot() && classic() && !ui.call.pocket) status += " Call a ball and a pocket before you shoot (CLS-5.2).";
  $("status").textContent = `${s.variant} pyramid. ${status}`;
  const free = s.variant === "free" && s.phase === "normal";
  $("mode-pick").hidden = !free;
  $("mode-call").hidden = !classic();
  $("modes").hidden = !free && !classic(); // aiming is the only mode: no choice to show
  updateDecision();
  updateControls();
  $("over").hidden = game.to_move !== "over";
  if (game.to_move === "over") $("over-text").textContent = `${who[s.winner]} won ${s.scores[s.winner]}:${s.scores[1 - s.winner]}.`;
  $("download").href = `/api/games/${game.id}/record`;
  $("replay-link").href = `/?replay=${game.id}`;
  $("share-file").href = `/api/games/${game.id}/record`;
  $("practice").hidden = !game.settings.practice || !!replay;
  const log = $("log");
  log.innerHTML = "";
  game.log.forEach((m, k) => { // numbered by the page: a list marker cuts long numbers short
    const li = document.createElement("li"), n = document.createElement("span");
    n.className = "n";
    n.textContent = `${game.log_from + k + 1}.`;
    li.append(n, m.headline || m.words.join(" "));
    li.title = m.words.join(" ");
    log.appendChild(li);
  });
  log.scrollTop = 1e6;
  const cv = $("call-out");
  cv.hidden = !classic();
  cv.textContent = `Call: ball ${ui.call.ball ?? "–"}, pocket ${ui.call.pocket ?? "–"} (CLS-5.2)`;
  if (game.bot_error) showError(`The bot failed: ${game.bot_error}`);
  updateAimOut();
  updateClock();
}

function updateControls() {
  const own = ownBall();
  $("shoot").disabled = !idle() || !!replay || !myShot() || own === null || own === undefined;
  $("shoot").textContent = myShot() && classic() && !ui.call.pocket ? "Shoot without a call" : "Shoot";
  $("shot-controls").disabled = !myShot();
  for (const b of $("decision-buttons").querySelectorAll("button")) b.disabled = !idle();
  $("undo").disabled = !idle() || !!replay || !game.log.length;
  $("hint").disabled = !idle() || !!replay || !myShot() || !!ui.layout;
  $("place-balls").disabled = !idle() || !!replay || !myShot() || st().phase !== "normal";
  $("place-balls").textContent = ui.layout ? "Play from here" : "Place balls";
  $("place-balls").setAttribute("aria-pressed", String(!!ui.layout));
  $("shoot").disabled ||= !!ui.layout;
}

function updateAimOut() {
  $("aim-out").textContent = `Aim ${ui.phi.toFixed(1)}°: ← → turn 0.1°, with Shift 1°`;
}

// The bot's first move on this server compiles its programs (up to minutes at the deepest
// level): while it does, the page says so rather than "thinking".
function updateThinking() {
  if (thinkingSince === null) return;
  const seconds = (performance.now() - thinkingSince) / 1000;
  const preparing = botState && botState.state !== "ready";
  $("thinking-what").textContent = preparing
    ? "The bot is preparing its first move (compiling, once per server)" : "The bot is thinking";
  $("thinking-time").textContent = `${seconds.toFixed(1)} s`;
}

async function watchBot(token) {
  while (token === epoch && document.body.dataset.busy === "thinking" && botState.state !== "ready") {
    await sleep(500);
    try { botState = await api("GET", `/api/games/${game.id}/bot`); } catch { return; }
    updateThinking();
  }
}

function updateDecision() {
  const box = $("decision"), p = game.pending;
  box.hidden = !(p && game.to_move === "human");
  if (box.hidden) return;
  const take = !p.takes_ball ? "" : classic()
    ? ` Tap a ball to take (eligible: ${p.eligible_balls.join(", ")}); chosen: ${ui.take}.`
    : " Tap the ball to take: the chosen one is ringed in red."; // the balls carry no numbers
  $("decision-text").textContent = `Your decision (${p.kind}).${take}`;
  const buttons = $("decision-buttons");
  buttons.innerHTML = "";
  const options = p.options.length ? p.options : [null];
  for (const option of options) {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = option ? OPTION_LABELS[option] || option : classic() ? `Take ball ${ui.take}` : "Take the ringed ball";
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

// --- the verdict --------------------------------------------------------------------------

// A rule id as the referee cites it: G6(1), G12.2-N, FREE-7, DYN-7(2), A-13.
const RULE_ID = /\b((?:G|FREE-|COMB-|DYN-|CLS-|A-)\d+(?:\.\d+)*(?:\(\d+(?:\.\d+)?\))?(?:-N\d*)?)/g;

// The plain sentence of a rule, or of the rule it is part of: G20(1.1) -> G20(1) -> G20.
const RULE_PART = /(\([^)]*\)|-N\d*|\.\d+)$/;
function ruleSentence(id) {
  for (let at = id; ; at = at.replace(RULE_PART, "")) {
    if (rulebook.rules[at]) return `${at}: ${rulebook.rules[at]}`;
    if (!RULE_PART.test(at)) return null;
  }
}

// A sentence with each rule it cites as a button that opens the rule in plain words below it.
function citing(sentence) {
  const p = document.createElement("p");
  let last = 0;
  for (const m of sentence.matchAll(RULE_ID)) {
    const plain = ruleSentence(m[1]);
    if (!plain) continue;
    p.append(sentence.slice(last, m.index));
    const cite = document.createElement("button");
    cite.type = "button"; cite.className = "cite"; cite.textContent = m[1]; cite.title = plain;
    cite.onclick = () => {
      const open = p.querySelector(`.cite-text[data-rule="${CSS.escape(m[1])}"]`);
      if (open) { open.remove(); return; }
      const text = document.createElement("span");
      text.className = "cite-text"; text.dataset.rule = m[1]; text.textContent = plain;
      p.appendChild(text);
    };
    p.append(cite);
    last = m.index + m[0].length;
  }
  p.append(sentence.slice(last));
  return p;
}

function showVerdict(move) {
  $("headline").textContent = move.headline || move.words[0] || "";
  const rules = $("rules-text");
  rules.innerHTML = "";
  for (const w of move.words) rules.appendChild(citing(w));
  $("rules").hidden = !move.words.length;
}

// The Rules panel: each game in plain words, the one on the table first.
function showRulebook() {
  const box = $("rules-variants"), now = game ? game.settings.variant : null;
  box.innerHTML = "";
  const variants = [...rulebook.variants].sort((a, b) => (b.name === now) - (a.name === now));
  for (const v of variants) {
    const section = document.createElement("section"), h = document.createElement("h3"), dl = document.createElement("dl");
    section.dataset.variant = v.name;
    h.textContent = v.title;
    for (const point of v.points) {
      const dt = document.createElement("dt"), dd = document.createElement("dd");
      dt.textContent = point.name; dd.textContent = point.text;
      dl.append(dt, dd);
    }
    section.append(h, dl);
    box.appendChild(section);
  }
}

function clearVerdict() { $("headline").textContent = ""; $("rules").hidden = true; }

// --- the aiming line ----------------------------------------------------------------------

// The aim changed: the old line goes, a new one is asked for once the aim rests AIM_DEBOUNCE_MS.
function aimChanged() {
  aimLine = null;
  aimAsked += 1;
  clearTimeout(aimTimer);
  updateAimOut();
  render();
  if (myShot() && idle() && ownBall() !== null && ownBall() !== undefined) aimTimer = setTimeout(askAim, AIM_DEBOUNCE_MS);
}

async function askAim() {
  if (placing() && overlaps(view.table, ballsNow(), ownBall(), ...ui.place)) return;
  const asked = aimAsked, t0 = performance.now();
  const body = { ...shotBody(), contacts: $("training").checked ? CONTACTS.training : CONTACTS.normal };
  try {
    const result = await api("POST", `/api/games/${game.id}/aim`, body);
    if (asked !== aimAsked) return; // the aim moved on meanwhile
    timings.aim.push(performance.now() - t0);
    timings.aimServer.push(result.ms);
    aimLine = result.paths;
    render();
  } catch { /* an aim the referee would refuse (a ball in hand on another): the straight line stays */ }
}

// --- moves --------------------------------------------------------------------------------

function setGame(next) {
  const newTurn = !game || next.seq !== game.seq || next.id !== game.id;
  game = next;
  clockOffset = Date.now() / 1000 - next.server_time;
  if (newTurn) resetTurn();
  $("variant").value = game.settings.variant;
  const level = levelOf(game.settings);
  if (level) { $("opponent").value = level; showOpponentLine(); }
  $("shot-clock").checked = game.settings.shot_clock;
  $("practice-mode").checked = game.settings.practice;
  if (!replay) history.replaceState(null, "", `?game=${game.id}`);
  if (rulebook) showRulebook();
  updatePanel();
  if (newTurn) aimChanged(); else render();
}

function resetTurn() {
  lastHint = null; $("hint-out").textContent = "";
  ui.own = null; ui.layout = null; ui.call = {}; ui.drag = null; ui.pull = null;
  ui.take = game.pending && game.pending.default ? game.pending.default.ball ?? null : null;
  ui.place = placing() ? naturalPoint(view.table, game.region) : null;
  if (st().phase === "break") { ui.phi = 90; setPower(8); } else setPower(Math.min(+$("power").value, 4));
  ui.mode = "aim";
  document.querySelector('input[name=mode][value=aim]').checked = true;
}

function setPower(v) {
  $("power").value = v;
  const speed = +$("power").value;
  $("power-word").textContent = powerWord(speed);
  $("power-ms").textContent = `${speed.toFixed(1)} m/s`;
}

// Every switch to another game (new, rematch) starts a new epoch: a move, an animation or a
// bot's answer still on its way for the old game finds the epoch changed and is dropped.
let epoch = 0;

// The cue's stroke (STROKE_S), then the balls from the server's samples, with their sounds.
function animate(animation) {
  const token = epoch;
  return new Promise((resolve) => {
    if (!animation.duration) { resolve(); return; }
    setBusy("animating");
    const strike = animation.strike, start = animation.frames[0], i = strike ? animation.balls.indexOf(strike.ball) : -1;
    const stroke = i >= 0 ? STROKE_S : 0, pending = [...(animation.sounds || [])];
    let t0 = null, struck = stroke === 0;
    const step = (now) => {
      if (token !== epoch) { resolve(); return; }
      t0 ??= now;
      const t = ((now - t0) / 1000) * SPEED - stroke;
      if (t < 0) { // the cue moves in from its pull to the ball
        const gap = pullOf(strike.speed) * (-t / stroke);
        anim = { positions: framePositions(animation, 0, view.table), cue: [start[2 * i], start[2 * i + 1], strike.phi, gap] };
      } else {
        if (!struck) { struck = true; sounds.play("cue", Math.min(1, strike.speed / 6)); }
        while (pending.length && pending[0][0] <= t) sounds.play(pending.shift()[1]);
        const impact = i >= 0 && t < IMPACT_S ? [start[2 * i], start[2 * i + 1], strike.phi, t] : null;
        anim = { positions: framePositions(animation, Math.min(t, animation.duration), view.table), cue: null, impact };
      }
      render();
      if (t < animation.duration) requestAnimationFrame(step);
      else { anim = null; resolve(); }
    };
    requestAnimationFrame(step);
  });
}

// A move from the server: the balls roll, then (when they stop) the verdict and the next turn.
async function playMove(result) {
  const token = epoch;
  if (result.move.animation.duration) clearVerdict();
  await animate(result.move.animation);
  if (token !== epoch) return;
  showVerdict(result.move);
  setGame(result.game);
  setBusy("idle");
  aimChanged();
  await botTurns();
}

async function botTurns() {
  if (game.to_move !== "bot" || replay) { setBusy("idle"); return; }
  const token = epoch, t0 = performance.now();
  botState = game.bot;
  setBusy("thinking");
  watchBot(token);
  try {
    const result = await api("POST", `/api/games/${game.id}/bot`, { seq: game.seq });
    if (token !== epoch) return;
    timings.bot.push(performance.now() - t0);
    showError("");
    await playMove(result);
  } catch (err) {
    if (token !== epoch) return;
    if (err.status === 409) { // another tab moved this game first: take the game as it is now
      setGame(await api("GET", `/api/games/${game.id}`));
      setBusy("idle");
      await botTurns();
      return;
    }
    showError(`${err.message}`);
    setBusy("idle");
    const retry = document.createElement("button");
    retry.textContent = "Ask the bot again";
    retry.onclick = () => { retry.remove(); botTurns(); };
    $("error").appendChild(retry);
  }
}

// Another game in this tab (a new one, a rematch): the old one's moves still on their way are dropped.
function switchGame(next) {
  epoch += 1;
  anim = null;
  clearVerdict();
  showError("");
  setGame(next);
  setBusy("idle");
  aimChanged();
  follow();
  botTurns();
}

async function shoot() {
  if (!idle() || $("shoot").disabled) return; // a second click while the first shot is on its way
  const body = shotBody();
  if (classic() && ui.call.ball !== undefined && ui.call.pocket) body.call = ui.call;
  await send(`/api/games/${game.id}/shot`, body);
}

async function decide(option) {
  if (!idle()) return;
  const body = { seq: game.seq };
  if (option) body.option = option;
  if (game.pending.takes_ball) body.ball = ui.take;
  await send(`/api/games/${game.id}/decision`, body);
}

async function send(path, body) {
  const token = epoch;
  showError("");
  setBusy("thinking-referee");
  try {
    const result = await api("POST", path, body);
    if (token === epoch) await playMove(result);
  } catch (err) {
    if (token !== epoch) return;
    showError(err.message);
    setBusy("idle");
    try { setGame(await api("GET", `/api/games/${game.id}`)); } catch { /* the error above says enough */ }
    render();
  }
}

// Another tab (or window) playing this game: the server says when it moved, this tab follows.
let events = null;
function follow() {
  if (events) events.close();
  const id = game.id;
  events = new EventSource(`/api/games/${id}/events?seq=${game.seq}`);
  events.onmessage = (message) => {
    const next = JSON.parse(message.data);
    if (next.id !== game.id || next.seq <= game.seq || !idle()) return; // this tab's own move comes itself
    const last = next.log[next.log.length - 1];
    if (last) showVerdict(last);
    setGame(next);
    botTurns(); // if the other tab has gone, this one keeps the bot playing (a race is a quiet 409)
  };
}

// --- the pointer (mouse, pen, touch) ------------------------------------------------------

function ballAt(p, balls) {
  return balls.find(([, x, y]) => Math.hypot(x - p[0], y - p[1]) <= view.table.R * 1.2);
}

// Whether a table point lies on the drawn cue (behind the own ball, along the aim).
function onCue(p) {
  const me = ballsForAim().find((b) => b[0] === ownBall());
  if (!me) return false;
  const dx = Math.cos(ui.phi * Math.PI / 180), dy = Math.sin(ui.phi * Math.PI / 180);
  const rx = p[0] - me[1], ry = p[1] - me[2], back = -(rx * dx + ry * dy), side = Math.abs(rx * dy - ry * dx);
  return back > view.table.R * 1.5 && back < 1.6 && side < 0.05;
}

function pullAt(p) {
  const me = ballsForAim().find((b) => b[0] === ownBall());
  const dx = Math.cos(ui.phi * Math.PI / 180), dy = Math.sin(ui.phi * Math.PI / 180);
  return -((p[0] - me[1]) * dx + (p[1] - me[2]) * dy);
}

canvas.addEventListener("pointerdown", (event) => {
  sounds.unlock();
  if (!game || !idle() || replay || game.to_move !== "human") return;
  const p = view.fromEvent(event), balls = ballsNow();
  if (ui.layout) { // practice: drag any ball on the table
    const hit = ballAt(p, ui.layout);
    if (hit) { ui.drag = "ball"; ui.moving = hit[0]; canvas.setPointerCapture(event.pointerId); }
    return;
  }
  if (game.pending) {
    const hit = ballAt(p, balls);
    if (hit && game.pending.eligible_balls.includes(hit[0])) ui.take = hit[0];
    updatePanel(); render(); return;
  }
  if (ui.mode === "pick" || ownBall() === null) { // Free: the first click picks the ball to strike (G4.3)
    const hit = ballAt(p, balls);
    if (hit) { ui.own = hit[0]; ui.mode = "aim"; document.querySelector('input[name=mode][value=aim]').checked = true; }
    updatePanel(); aimChanged(); return;
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
  } else if (onCue(p)) { // pull the cue back: the further, the harder; let go to shoot
    ui.drag = "cue";
    ui.pullFrom = pullOf(+$("power").value);
    ui.grip = pullAt(p) - ui.pullFrom;
    ui.pulled = false;
  } else {
    ui.drag = "aim";
    aimAt(p);
  }
  canvas.setPointerCapture(event.pointerId);
});

canvas.addEventListener("pointermove", (event) => {
  if (!ui.drag) return;
  const p = view.fromEvent(event);
  if (ui.drag === "place") { ui.place = clampTo(regionBox(view.table, game.region), p[0], p[1]); aimChanged(); }
  else if (ui.drag === "ball") {
    const ball = ui.layout.find((b) => b[0] === ui.moving);
    [ball[1], ball[2]] = clampTo(regionBox(view.table, "anywhere"), p[0], p[1]);
    render();
  }
  else if (ui.drag === "cue") {
    const pull = Math.min(PULL_MAX + 0.02, Math.max(0.02, pullAt(p) - ui.grip));
    ui.pulled ||= Math.abs(pull - ui.pullFrom) > 0.01; // from where the pull started: a slow pull counts
    ui.pull = pull;
    setPower(powerOf(pull).toFixed(1));
    render();
  } else aimAt(p);
});

canvas.addEventListener("pointerup", () => {
  if (ui.drag === "place" && overlaps(view.table, ballsNow(), ownBall(), ...ui.place)) showError("The ball in hand touches another ball: move it.");
  const released = ui.drag === "cue" && ui.pulled;
  ui.drag = null; ui.pull = null;
  if (released) shoot(); else render();
});

function aimAt(p) {
  const own = ballsForAim().find((b) => b[0] === ownBall());
  if (!own) return;
  const phi = Math.atan2(p[1] - own[2], p[0] - own[1]) * 180 / Math.PI;
  if (Math.hypot(p[1] - own[2], p[0] - own[1]) > 1e-3) ui.phi = (phi + 360) % 360;
  aimChanged();
}

document.addEventListener("keydown", (event) => {
  sounds.unlock();
  if (!game || !myShot() || event.target.tagName === "INPUT") return;
  const step = event.shiftKey ? 1 : 0.1;
  if (event.key === "ArrowLeft") ui.phi = (ui.phi + step) % 360;
  else if (event.key === "ArrowRight") ui.phi = (ui.phi - step + 360) % 360;
  else return;
  event.preventDefault();
  aimChanged();
});

function spinFrom(event) {
  const box = spinCanvas.getBoundingClientRect(), r = (box.width / 2) * (1 - 32 / spinCanvas.width);
  let a = (event.clientX - box.left - box.width / 2) / r, b = -(event.clientY - box.top - box.height / 2) / r;
  const n = Math.hypot(a, b);
  if (n > SPIN_MAX) { a *= SPIN_MAX / n; b *= SPIN_MAX / n; }
  ui.a = Math.round(a * 100) / 100; ui.b = Math.round(b * 100) / 100;
  drawSpin();
  aimChanged();
}
spinCanvas.addEventListener("pointerdown", (e) => { spinFrom(e); spinCanvas.setPointerCapture(e.pointerId); spinCanvas.dataset.drag = "1"; });
spinCanvas.addEventListener("pointermove", (e) => { if (spinCanvas.dataset.drag) spinFrom(e); });
spinCanvas.addEventListener("pointerup", () => { delete spinCanvas.dataset.drag; });
spinCanvas.addEventListener("dblclick", () => { ui.a = 0; ui.b = 0; drawSpin(); aimChanged(); });

document.querySelectorAll("input[name=mode]").forEach((r) => r.addEventListener("change", () => { ui.mode = r.value; }));
$("power").addEventListener("input", () => { setPower($("power").value); aimChanged(); });
$("training").addEventListener("change", aimChanged);
$("shoot").addEventListener("click", () => { sounds.unlock(); shoot(); });
$("mute").addEventListener("click", () => { sounds.setMuted(!sounds.muted); showMute(); });
function showMute() { $("mute").textContent = sounds.muted ? "Sound off" : "Sound on"; $("mute").setAttribute("aria-pressed", String(sounds.muted)); }

// New games and rematches are answered even while a move animates: the page switches at once.
async function newGame(path, body) {
  try { switchGame(await api("POST", path, body)); } catch (err) { showError(err.message); }
}
$("rematch").addEventListener("click", () => newGame(`/api/games/${game.id}/rematch`));
$("undo").addEventListener("click", () => { if (idle()) send(`/api/games/${game.id}/undo`, { seq: game.seq }); });
$("hint").addEventListener("click", askHint);
// Practice: the first press lets the balls be dragged anywhere; the second plays from there.
$("place-balls").addEventListener("click", () => {
  if (!idle()) return;
  if (!ui.layout) { ui.layout = ballsNow().map((b) => [...b]); aimLine = null; updateControls(); render(); return; }
  const balls = ui.layout.map(([id, x, y]) => ({ id, x, y }));
  send(`/api/games/${game.id}/layout`, { seq: game.seq, balls });
});

// Practice: the bot's choice in the human's place, taken as the aim (the aiming line draws it).
async function askHint() {
  if (!idle() || !myShot()) return;
  const token = epoch, seq = game.seq;
  $("hint-out").textContent = "The bot is looking…";
  try {
    const hint = await api("POST", `/api/games/${game.id}/hint`, { seq });
    if (token !== epoch || seq !== game.seq) return;
    const s = hint.strike;
    lastHint = hint;
    if (!placing()) ui.own = s.ball;
    if (hint.place) ui.place = [hint.place.x, hint.place.y];
    if (hint.call) ui.call = { ...hint.call };
    Object.assign(ui, { phi: s.phi, a: s.a, b: s.b, mode: "aim" });
    setPower(Math.min(POWER_MAX, Math.max(POWER_MIN, s.speed)).toFixed(1));
    $("hint-out").textContent = `Hint: the bot would play this, ${powerWord(s.speed)}${hint.call ? `, calling ball ${hint.call.ball}` : ""}.`;
    drawSpin();
    updatePanel();
    aimChanged();
  } catch (err) { $("hint-out").textContent = ""; showError(err.message); }
}
$("extension").addEventListener("click", async () => {
  try { setGame(await api("POST", `/api/games/${game.id}/extension`)); } catch (err) { showError(err.message); }
});
function pickedSettings() {
  const level = levels.levels.find((l) => l.name === $("opponent").value);
  const chosen = level ? level.settings : levels.settings; // "the server's own": the command line's bot
  return {
    variant: $("variant").value, shot_clock: $("shot-clock").checked, practice: $("practice-mode").checked,
    bot: chosen.bot, level: chosen.level, noise: chosen.noise,
  };
}
$("start").addEventListener("click", () => newGame("/api/games", { settings: pickedSettings() }));

// A level picked: the server compiles its bot now, while the player sets up, and the page says
// how that goes; a bot that has moved on this server is ready at once.
let warming = 0;
async function warmPicked() {
  const mine = ++warming;
  for (;;) {
    let status;
    try { status = await api("POST", "/api/warm", { settings: pickedSettings() }); } catch (err) { showError(err.message); return; }
    if (mine !== warming) return; // another level was picked meanwhile
    $("opponent-ready").textContent = status.state === "ready" ? "" :
      `Getting this bot ready: compiling its moves, once per server… ${Math.round(status.seconds || 0)} s`;
    if (status.state === "ready") return;
    await sleep(1000);
  }
}

function showOpponents() {
  const select = $("opponent");
  for (const level of levels.levels) {
    const option = document.createElement("option");
    option.value = level.name;
    option.textContent = level.rating == null ? level.name : `${level.name} · ${level.rating}`;
    select.appendChild(option);
  }
  if (!levels.default) { // the command line named a bot that is no level: it is offered as it is
    const option = document.createElement("option");
    option.value = "server"; option.textContent = `${levels.settings.bot} (the server's)`;
    select.appendChild(option);
  }
  select.value = levels.default || "server";
  select.addEventListener("change", () => { showOpponentLine(); warmPicked(); });
  showOpponentLine();
}

function showOpponentLine() {
  const level = levels.levels.find((l) => l.name === $("opponent").value);
  const rated = level && level.rating != null
    ? ` Rated ${level.rating} (Elo between the bots, the novice level 1000).` : "";
  $("opponent-line").textContent = level ? level.line + rated : "The bot the server was started with.";
}

// --- replay -------------------------------------------------------------------------------

$("load").addEventListener("change", async () => {
  const file = $("load").files[0];
  if (!file) return;
  showError("");
  setBusy("thinking-referee");
  try {
    await startReplay(await api("POST", "/api/replay", await file.text(), "application/jsonl"));
  } catch (err) { showError(err.message); }
  setBusy("idle");
});

async function startReplay(data) {
  replay = { ...data, index: -1, positions: [] };
  $("replay").hidden = false;
  $("practice").hidden = true;
  const r = data.report;
  $("replay-report").textContent = `${r.entries} move${r.entries === 1 ? "" : "s"}; verdicts ${r.reproduced ? "reproduced" : "NOT reproduced"} by the referee.`;
  await replayStep(0);
}

async function replayStep(index) {
  if (!replay || !replay.steps.length) return;
  replay.index = Math.max(0, Math.min(index, replay.steps.length - 1));
  const step = replay.steps[replay.index];
  $("replay-at").textContent = `move ${replay.index + 1} of ${replay.steps.length}`;
  const shown = replay;
  await animate(step.animation);
  if (replay !== shown) return; // the replay was left meanwhile
  showVerdict(step);
  replay.positions = framePositions(step.animation, step.animation.duration, view.table);
  setBusy("idle");
  render();
}
$("replay-prev").addEventListener("click", () => replayStep(replay.index - 1));
$("replay-next").addEventListener("click", () => replayStep(replay.index + 1));
$("replay-exit").addEventListener("click", () => {
  epoch += 1; anim = null; replay = null; // a replayed shot still rolling stops here
  $("replay").hidden = true; setBusy("idle");
  history.replaceState(null, "", `?game=${game.id}`);
  updatePanel(); render(); botTurns();
});

// --- start --------------------------------------------------------------------------------

// "Preparing the table... (k of n)" until the server's programs are compiled (play/warmup.py);
// then the rest warms up while the human plays, and the bot's thinking line says when its
// first move still compiles (`watchBot`).
async function waitReady() {
  for (;;) {
    const warm = await api("GET", "/api/ready");
    const done = warm.steps.filter((s) => s.needed && s.seconds !== null).length;
    $("preparing-bar").max = Math.max(warm.needed, 1);
    $("preparing-bar").value = done;
    $("preparing-step").textContent = `${done} of ${warm.needed}: ${warm.now || "…"} (${warm.elapsed_s.toFixed(0)} s)`;
    if (warm.ready) break;
    await sleep(250);
  }
  $("preparing").hidden = true;
}

async function main() {
  showMute();
  const [table] = await Promise.all([
    api("GET", "/api/table"), waitReady(),
    api("GET", "/api/levels").then((l) => { levels = l; }), api("GET", "/api/rules").then((r) => { rulebook = r; }),
  ]);
  view = new View(canvas, table);
  fitTable();
  new ResizeObserver(fitTable).observe($("table-box"));
  showOpponents();
  drawSpin();
  const params = new URLSearchParams(location.search), shared = params.get("replay"), id = shared || params.get("game");
  try {
    setGame(id ? await api("GET", `/api/games/${id}`) : await api("POST", "/api/games", {}));
    if (shared) { // a replay link: the frame as it was played
      history.replaceState(null, "", `?replay=${shared}`);
      await startReplay(await api("GET", `/api/games/${shared}/replay`));
    }
  } catch (err) {
    showError(`${err.message}: a new game instead`);
    setGame(await api("POST", "/api/games", {}));
  }
  setInterval(() => { if (game) updateClock(); updateThinking(); }, 100);
  document.body.dataset.ready = String(performance.now());
  setBusy("idle");
  follow();
  aimChanged();
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
  aimLine: () => aimLine,
  hint: () => lastHint,
  view: () => ({ upright: view.upright, pxPerMetre: view.cssScale }),
  cue: () => (anim ? anim.cue : null),
  heard: () => sounds.heard,
  timings,
  ui,
};
main();
