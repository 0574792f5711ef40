// The table from above, drawn at true proportions from the server's geometry (metres).
// Lying (wide screens): the house end (y = 0) on the left, x = 0 (the left cushion, seen from
// the house) on top. Upright (a phone held upright): the house end at the bottom, x = 0 on the left.

const CLOTH = "#1d6b3a", RAIL = "#5b3a1a", NOSE = "#c9a96e", BALL = "#f4f1e6", COLOURED = "#f2c12e";
const MARGIN = 0.13; // m of rail drawn around the bed
export const CUE_LENGTH = 1.45; // m of the cue drawn (most of a pyramid cue's 1.6 m)
export const DROP_S = 0.25; // s a pocketed ball takes to sink from sight
export const IMPACT_S = 0.2; // s the flash of the cue's impact lasts

export class View {
  // The canvas is sized by `fit` to the room it has: upright (the house end at the bottom) when
  // the room is taller than wide, as on a phone held upright; else the house end on the left.
  constructor(canvas, table) {
    this.canvas = canvas;
    this.table = table;
    this.upright = false;
    this.scale = 1;
    this.cssScale = 1; // CSS pixels per metre
  }
  fit(width, height) {
    const t = this.table, long = t.length + 2 * MARGIN, short = t.width + 2 * MARGIN;
    this.upright = height > width;
    const [across, along] = this.upright ? [width, height] : [height, width];
    this.cssScale = Math.max(1e-3, Math.min(along / long, across / short));
    const ratio = window.devicePixelRatio || 1, [w, h] = this.upright ? [short, long] : [long, short];
    this.canvas.style.width = `${Math.floor(w * this.cssScale)}px`;
    this.canvas.style.height = `${Math.floor(h * this.cssScale)}px`;
    this.canvas.width = Math.round(w * this.cssScale * ratio);
    this.canvas.height = Math.round(h * this.cssScale * ratio);
    this.scale = this.cssScale * ratio;
  }
  toScreen(x, y) {
    const s = this.scale;
    return this.upright ? [(x + MARGIN) * s, (this.table.length + MARGIN - y) * s] : [(y + MARGIN) * s, (x + MARGIN) * s];
  }
  toTable(sx, sy) {
    const s = this.scale;
    return this.upright ? [sx / s - MARGIN, this.table.length + MARGIN - sy / s] : [sy / s - MARGIN, sx / s - MARGIN];
  }
  // Mouse event -> table coordinates, whatever the canvas's CSS size.
  fromEvent(event) {
    const box = this.canvas.getBoundingClientRect();
    const sx = (event.clientX - box.left) * this.canvas.width / box.width;
    const sy = (event.clientY - box.top) * this.canvas.height / box.height;
    return this.toTable(sx, sy);
  }
}

// The screen rectangle between two table points, whichever way the table is drawn.
function screenBox(view, ax, ay, bx, by) {
  const [sx0, sy0] = view.toScreen(ax, ay), [sx1, sy1] = view.toScreen(bx, by);
  return [Math.min(sx0, sx1), Math.min(sy0, sy1), Math.abs(sx1 - sx0), Math.abs(sy1 - sy0)];
}

export function drawTable(ctx, view) {
  const t = view.table;
  ctx.fillStyle = RAIL;
  ctx.fillRect(0, 0, view.canvas.width, view.canvas.height);
  ctx.fillStyle = CLOTH;
  ctx.fillRect(...screenBox(view, 0, 0, t.width, t.length));
  ctx.fillStyle = "#000";
  for (const p of t.pockets) circle(ctx, view, p.x, p.y, p.r, true);
  ctx.strokeStyle = NOSE;
  ctx.lineWidth = 2;
  for (const [ax, ay, bx, by] of t.segments) line(ctx, view, ax, ay, bx, by);
  for (const a of t.arcs) circle(ctx, view, a.x, a.y, a.r, false);
  // G2: the house line, the centre line and the three spots.
  ctx.strokeStyle = "rgba(255,255,255,0.45)";
  ctx.lineWidth = 1;
  line(ctx, view, 0, t.house_line, t.width, t.house_line);
  line(ctx, view, 0, t.centre_line, t.width, t.centre_line);
  ctx.fillStyle = "rgba(255,255,255,0.7)";
  for (const [x, y] of t.spots) circle(ctx, view, x, y, 0.006, true);
}

// Shade the region a ball in hand may be placed in.
export function drawRegion(ctx, view, box) {
  ctx.fillStyle = "rgba(255,255,255,0.08)";
  ctx.fillRect(...screenBox(view, box.x0, box.y0, box.x1, box.y1));
}

// Balls as [id, x, y, scale?, roll?]: `scale` < 1 while one drops into a pocket, `roll` the
// distance it has rolled (a spot on the ball turns with it, so spin and roll are seen).
export function drawBalls(ctx, view, balls, numbered, highlight) {
  const R = view.table.R;
  for (const [id, x, y, scale = 1, roll = null] of balls) {
    const r = R * scale;
    ctx.fillStyle = id === 0 ? COLOURED : BALL;
    circle(ctx, view, x, y, r, true);
    ctx.strokeStyle = highlight && highlight.has(id) ? "#ff5252" : "#222";
    ctx.lineWidth = highlight && highlight.has(id) ? 3 : 1;
    circle(ctx, view, x, y, r, false);
    if (roll) {
      const turn = roll.distance / R, k = Math.sin(turn) * 0.6 * r;
      if (Math.cos(turn) > 0) { // the spot shows on the upper half of the ball only
        ctx.fillStyle = id === 0 ? "#8a6d00" : "#b23b3b";
        circle(ctx, view, x + k * roll.dx, y + k * roll.dy, r * 0.22, true);
      }
    }
    if (numbered && id > 0 && scale > 0.6) {
      const [sx, sy] = view.toScreen(x, y);
      ctx.fillStyle = "#222";
      ctx.font = `${Math.round(r * view.scale)}px sans-serif`;
      ctx.textAlign = "center";
      ctx.textBaseline = "middle";
      ctx.fillText(String(id), sx, sy);
    }
  }
}

// The cue stick along the aim, its tip `gap` m behind the ball's surface (the pull shows the power).
export function drawCue(ctx, view, x, y, phi, gap) {
  const R = view.table.R, dx = Math.cos(phi * Math.PI / 180), dy = Math.sin(phi * Math.PI / 180);
  const tip = R + gap, butt = tip + CUE_LENGTH;
  const [ax, ay] = view.toScreen(x - dx * tip, y - dy * tip), [bx, by] = view.toScreen(x - dx * butt, y - dy * butt);
  const gradient = ctx.createLinearGradient(ax, ay, bx, by);
  gradient.addColorStop(0, "#f5f0e0"); gradient.addColorStop(0.02, "#3b7bd4"); gradient.addColorStop(0.03, "#e8c98f");
  gradient.addColorStop(0.7, "#b07a3c"); gradient.addColorStop(1, "#2b1a0c");
  ctx.strokeStyle = gradient; ctx.lineCap = "round";
  ctx.lineWidth = Math.max(3, 0.012 * view.scale);
  ctx.beginPath(); ctx.moveTo(ax, ay); ctx.lineTo(bx, by); ctx.stroke();
  ctx.lineCap = "butt";
}

// The cue's tip meeting the ball (`age` s ago): a flash on the ball's back, fading as it spreads.
export function drawImpact(ctx, view, x, y, phi, age) {
  const R = view.table.R, dx = Math.cos(phi * Math.PI / 180), dy = Math.sin(phi * Math.PI / 180), k = age / IMPACT_S;
  ctx.strokeStyle = `rgba(255,255,255,${(1 - k).toFixed(2)})`;
  ctx.lineWidth = 2;
  circle(ctx, view, x - dx * R, y - dy * R, R * (0.3 + 0.9 * k), false);
}

// The kernel's paths of the aimed shot: the struck ball's, then the balls it hits.
export function drawPaths(ctx, view, paths) {
  paths.forEach((path, i) => {
    ctx.strokeStyle = i === 0 ? "rgba(255,255,255,0.85)" : "rgba(255,213,79,0.9)";
    ctx.lineWidth = 2;
    ctx.setLineDash(i === 0 ? [] : [5, 4]);
    ctx.beginPath();
    path.points.forEach(([x, y], k) => { const [sx, sy] = view.toScreen(x, y); if (k) ctx.lineTo(sx, sy); else ctx.moveTo(sx, sy); });
    ctx.stroke();
    const last = path.points[path.points.length - 1];
    if (last) { ctx.setLineDash([]); circle(ctx, view, last[0], last[1], view.table.R, false); }
  });
  ctx.setLineDash([]);
}

export function circle(ctx, view, x, y, r, fill) {
  const [sx, sy] = view.toScreen(x, y);
  ctx.beginPath();
  ctx.arc(sx, sy, r * view.scale, 0, 2 * Math.PI);
  if (fill) ctx.fill(); else ctx.stroke();
}

export function line(ctx, view, ax, ay, bx, by) {
  const [sa, ta] = view.toScreen(ax, ay), [sb, tb] = view.toScreen(bx, by);
  ctx.beginPath();
  ctx.moveTo(sa, ta);
  ctx.lineTo(sb, tb);
  ctx.stroke();
}

// Ball positions at time `t` of an animation: linear between the server's exact samples; a
// pocketed ball sinks towards its pocket's centre for DROP_S, and each ball carries how far it rolled.
export function framePositions(anim, t, table) {
  const frames = anim.frames, last = frames.length - 1;
  const f = Math.min(Math.max(t / anim.dt, 0), last), k = Math.floor(f), u = f - k;
  const a = frames[k], b = frames[Math.min(k + 1, last)];
  const rolled = anim.rolled || (anim.rolled = rolledDistances(anim));
  const out = [];
  anim.balls.forEach((id, i) => {
    let x = a[2 * i] + u * (b[2 * i] - a[2 * i]), y = a[2 * i + 1] + u * (b[2 * i + 1] - a[2 * i + 1]), scale = 1;
    const gone = anim.pocketed[id];
    if (gone && t >= gone[0]) {
      const sunk = (t - gone[0]) / DROP_S, pocket = table && table.pockets.find((p) => p.name === gone[1]);
      if (sunk >= 1 || !pocket) return;
      x += sunk * (pocket.x - x); y += sunk * (pocket.y - y); scale = 1 - 0.6 * sunk;
    }
    const d = rolled[i], distance = d.at[k] + u * (d.at[Math.min(k + 1, last)] - d.at[k]);
    const dx = b[2 * i] - a[2 * i], dy = b[2 * i + 1] - a[2 * i + 1], n = Math.hypot(dx, dy);
    out.push([id, x, y, scale, n > 1e-6 ? { distance, dx: dx / n, dy: dy / n } : { distance, ...d.heading }]);
  });
  return out;
}

// For each ball: the distance rolled up to each frame, and its last heading.
function rolledDistances(anim) {
  return anim.balls.map((_, i) => {
    const at = [0], heading = { dx: 1, dy: 0 };
    for (let k = 1; k < anim.frames.length; k++) {
      const dx = anim.frames[k][2 * i] - anim.frames[k - 1][2 * i], dy = anim.frames[k][2 * i + 1] - anim.frames[k - 1][2 * i + 1];
      at.push(at[k - 1] + Math.hypot(dx, dy));
    }
    return { at, heading };
  });
}
