// The table from above, drawn at true proportions from the server's geometry (metres).
// The house end (y = 0) is on the left; x = 0 (the left cushion, seen from the house) on top.

const CLOTH = "#1d6b3a", RAIL = "#5b3a1a", NOSE = "#c9a96e", BALL = "#f4f1e6", COLOURED = "#f2c12e";
const MARGIN = 0.13; // m of rail drawn around the bed

export class View {
  constructor(canvas, table) {
    this.canvas = canvas;
    this.table = table;
    this.scale = Math.min(canvas.width / (table.length + 2 * MARGIN), canvas.height / (table.width + 2 * MARGIN));
    canvas.height = Math.round((table.width + 2 * MARGIN) * this.scale);
  }
  toScreen(x, y) { return [(y + MARGIN) * this.scale, (x + MARGIN) * this.scale]; }
  toTable(sx, sy) { return [sy / this.scale - MARGIN, sx / this.scale - MARGIN]; }
  // Mouse event -> table coordinates, whatever the canvas's CSS size.
  fromEvent(event) {
    const box = this.canvas.getBoundingClientRect();
    const sx = (event.clientX - box.left) * this.canvas.width / box.width;
    const sy = (event.clientY - box.top) * this.canvas.height / box.height;
    return this.toTable(sx, sy);
  }
}

export function drawTable(ctx, view) {
  const t = view.table, s = view.scale;
  ctx.fillStyle = RAIL;
  ctx.fillRect(0, 0, view.canvas.width, view.canvas.height);
  ctx.fillStyle = CLOTH;
  const [x0, y0] = view.toScreen(0, 0);
  ctx.fillRect(x0, y0, t.length * s, t.width * s);
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
  const [sx0, sy0] = view.toScreen(box.x0, box.y0), [sx1, sy1] = view.toScreen(box.x1, box.y1);
  ctx.fillStyle = "rgba(255,255,255,0.08)";
  ctx.fillRect(sx0, sy0, sx1 - sx0, sy1 - sy0);
}

export function drawBalls(ctx, view, balls, numbered, highlight) {
  const R = view.table.R;
  for (const [id, x, y] of balls) {
    ctx.fillStyle = id === 0 ? COLOURED : BALL;
    circle(ctx, view, x, y, R, true);
    ctx.strokeStyle = highlight && highlight.has(id) ? "#ff5252" : "#222";
    ctx.lineWidth = highlight && highlight.has(id) ? 3 : 1;
    circle(ctx, view, x, y, R, false);
    if (numbered && id > 0) {
      const [sx, sy] = view.toScreen(x, y);
      ctx.fillStyle = "#222";
      ctx.font = `${Math.round(R * view.scale)}px sans-serif`;
      ctx.textAlign = "center";
      ctx.textBaseline = "middle";
      ctx.fillText(String(id), sx, sy);
    }
  }
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

// Ball positions at time `t` of an animation: linear between the server's exact samples.
export function framePositions(anim, t) {
  const frames = anim.frames, last = frames.length - 1;
  const f = Math.min(Math.max(t / anim.dt, 0), last), k = Math.floor(f), u = f - k;
  const a = frames[k], b = frames[Math.min(k + 1, last)];
  const out = [];
  anim.balls.forEach((id, i) => {
    const gone = anim.pocketed[id];
    if (gone && t >= gone[0]) return;
    out.push([id, a[2 * i] + u * (b[2 * i] - a[2 * i]), a[2 * i + 1] + u * (b[2 * i + 1] - a[2 * i + 1])]);
  });
  return out;
}
