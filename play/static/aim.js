// Aiming geometry on the page: the straight path of the struck ball to its first contact
// (a ball: the ghost ball and the object ball's line; else the cushion), and the hand region.
// A prediction only: spin, throw and the jaws are the kernel's business.

export function firstContact(table, balls, own, phi) {
  const R = table.R, me = balls.find((b) => b[0] === own);
  if (!me) return null;
  const dx = Math.cos(phi * Math.PI / 180), dy = Math.sin(phi * Math.PI / 180);
  let best = { t: cushionDistance(table, me[1], me[2], dx, dy), ball: null };
  for (const [id, x, y] of balls) {
    if (id === own) continue;
    // |p + t d - c| = 2R, smallest t > 0
    const px = me[1] - x, py = me[2] - y, b = px * dx + py * dy, c = px * px + py * py - 4 * R * R;
    const disc = b * b - c;
    if (disc < 0) continue;
    const t = -b - Math.sqrt(disc);
    if (t > 1e-9 && t < best.t) best = { t, ball: [id, x, y] };
  }
  const gx = me[1] + best.t * dx, gy = me[2] + best.t * dy;
  const out = { from: [me[1], me[2]], ghost: [gx, gy], ball: best.ball };
  if (best.ball) {
    const [, x, y] = best.ball, nx = x - gx, ny = y - gy, n = Math.hypot(nx, ny);
    out.objectLine = [x, y, x + 0.5 * nx / n, y + 0.5 * ny / n];
  }
  return out;
}

function cushionDistance(table, x, y, dx, dy) {
  const R = table.R, lo = [R, R], hi = [table.width - R, table.length - R];
  let t = Infinity;
  [[x, dx, 0], [y, dy, 1]].forEach(([p, d, k]) => {
    if (d > 1e-12) t = Math.min(t, (hi[k] - p) / d);
    if (d < -1e-12) t = Math.min(t, (lo[k] - p) / d);
  });
  return Math.max(t, 0);
}

// The box a ball in hand may be placed in (G10, G11, G21.2, DYN-5.2); lines are open bounds.
export function regionBox(table, region) {
  const R = table.R, eps = 1e-4, W = table.width, L = table.length;
  const box = { x0: R, x1: W - R, y0: R, y1: L - R };
  if (region === "house") box.y1 = table.house_line - eps - 1e-6;
  if (region === "temporary-house") box.y0 = 0.75 * L + eps + 1e-6;
  return box;
}

export function clampTo(box, x, y) {
  return [Math.min(Math.max(x, box.x0), box.x1), Math.min(Math.max(y, box.y0), box.y1)];
}

// The default place of the ball in hand (as `rules.placement.natural_point`).
export function naturalPoint(table, region) {
  const W = table.width, L = table.length;
  if (region === "house") return [W / 2, L / 4 - L / 16];
  if (region === "temporary-house") return [W / 2, 0.75 * L + L / 16];
  return [W / 2, L / 2];
}

export function overlaps(table, balls, own, x, y) {
  return balls.some(([id, bx, by]) => id !== own && Math.hypot(bx - x, by - y) <= 2 * table.R + 1e-4);
}
