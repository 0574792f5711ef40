"""The first time a polynomial of degree <= 4 enters the region where it is <= 0.

Every event of the kernel is such a time: a distance (squared, for circles) minus the
contact distance reaches zero while decreasing. Roots are found by bisection on the
monotone piece that holds the first sign change; the pieces are bounded by the critical
points, the roots of the derivative's cubic in closed form (DESIGN.md: closed-form
Ferrari misses roots in float32, and eigenvalue solvers run on the host).
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

# Bisection narrows the bracket to 2^-20 of the horizon, then Newton steps (kept inside
# the bracket) reach float64 resolution for a simple root.
BISECTION_STEPS = 20
NEWTON_STEPS = 4
# Longest horizon searched (s): no shot lasts this long.
MAX_HORIZON = 1e4
# A relative coefficient this small is treated as zero (the polynomial drops a degree).
_DEGENERATE = 1e-13


def _polyval(c: Any, s: Any) -> Any:
    return c[0] + s * (c[1] + s * (c[2] + s * (c[3] + s * c[4])))


def _quadratic_roots(a: Any, b: Any, c: Any) -> tuple[Any, Any]:
    """Real roots of a s^2 + b s + c (nan where none), stable for tiny a."""
    scale = jnp.maximum(jnp.maximum(jnp.abs(b), jnp.abs(c)), 1e-300)
    linear = jnp.abs(a) <= _DEGENERATE * scale
    disc = b * b - 4 * a * c
    sq = jnp.sqrt(jnp.maximum(disc, 0.0))
    q = -0.5 * (b + jnp.where(b >= 0, sq, -sq))
    safe_a = jnp.where(linear, 1.0, a)
    safe_q = jnp.where(q == 0, 1e-300, q)
    r1 = jnp.where(disc >= 0, q / safe_a, jnp.nan)
    r2 = jnp.where(disc >= 0, c / safe_q, jnp.nan)
    lin = jnp.where(jnp.abs(b) > 0, -c / jnp.where(jnp.abs(b) > 0, b, 1.0), jnp.nan)
    return jnp.where(linear, lin, r1), jnp.where(linear, jnp.nan, r2)


def _cubic_roots(a: Any, b: Any, c: Any, d: Any) -> Any:
    """Real roots of a s^3 + b s^2 + c s + d as (3,), nan where fewer (trigonometric form)."""
    scale = jnp.maximum(jnp.maximum(jnp.abs(b), jnp.abs(c)), jnp.maximum(jnp.abs(d), 1e-300))
    degenerate = jnp.abs(a) <= _DEGENERATE * scale
    safe_a = jnp.where(degenerate, 1.0, a)
    B, C, D = b / safe_a, c / safe_a, d / safe_a
    p = C - B * B / 3
    q = 2 * B**3 / 27 - B * C / 3 + D
    shift = -B / 3
    disc = (q / 2) ** 2 + (p / 3) ** 3
    # Three real roots (disc <= 0): m cos(phi - 2 pi k / 3), phi in [0, pi/3]; the other
    # two cosines follow from cos(phi) and sin(phi) (one transcendental instead of three).
    m = 2 * jnp.sqrt(jnp.maximum(-p / 3, 0.0))
    safe_m = jnp.where(m > 0, m, 1.0)
    arg = jnp.clip(3 * q / (p * safe_m) * jnp.where(m > 0, 1.0, 0.0), -1.0, 1.0)
    cos_phi = jnp.cos(jnp.arccos(arg) / 3)
    sin_phi = jnp.sqrt(jnp.maximum(1.0 - cos_phi**2, 0.0))
    half_sqrt3 = 0.5 * jnp.sqrt(3.0)
    three = m * jnp.stack(
        [cos_phi, -0.5 * cos_phi + half_sqrt3 * sin_phi, -0.5 * cos_phi - half_sqrt3 * sin_phi]
    )
    three = three + shift
    # One real root (disc > 0): Cardano.
    sq = jnp.sqrt(jnp.maximum(disc, 0.0))
    one = jnp.cbrt(-q / 2 + sq) + jnp.cbrt(-q / 2 - sq) + shift
    cubic = jnp.where(disc <= 0, three, jnp.stack([one, jnp.nan, jnp.nan]))
    q1, q2 = _quadratic_roots(b, c, d)
    return jnp.where(degenerate, jnp.stack([q1, q2, jnp.nan]), cubic)


def _sort3(x: Any) -> Any:
    """Three values in ascending order (a min/max network: XLA's sort is slow here)."""
    lo, hi = jnp.minimum(x[0], x[1]), jnp.maximum(x[0], x[1])
    return jnp.stack([jnp.minimum(lo, x[2]), jnp.clip(x[2], lo, hi), jnp.maximum(hi, x[2])])


def first_entry(coeffs: Any, horizon: Any, touch: Any, graze: bool = False) -> Any:
    """First t in [0, horizon] where f(t) = sum coeffs[k] t^k falls to <= 0; inf if none.

    Args:
      coeffs: (5,) polynomial coefficients, constant term first.
      horizon: how far ahead the polynomial is valid (s); inf or <= 0 means no search.
      touch: a start with -touch < f(0) <= 0 and f decreasing counts as an entry at t = 0
        (balls that touch, or overlap because a contact moved a ball a few micrometres;
        inf for any overlap).
      graze: also count such a start with f rising but turning to fall before it gets
        above 0 (moving along the contact while the path curves into it) as an entry,
        where f turns (the table's contacts; static).

    Returns:
      The entry time, at which f <= 0 (to float64 resolution), or inf.

    """
    valid = jnp.isfinite(horizon) & (horizon > 0)
    H = jnp.where(valid, jnp.minimum(horizon, MAX_HORIZON), 1.0)
    H2 = H * H
    g = coeffs * jnp.stack([jnp.ones_like(H), H, H2, H2 * H, H2 * H2])  # f(H s), s in [0, 1]
    crit = _cubic_roots(4 * g[4], 3 * g[3], 2 * g[2], g[1])
    crit = _sort3(jnp.where(jnp.isfinite(crit) & (crit > 0) & (crit < 1), crit, 1.0))
    knots = jnp.concatenate([jnp.zeros(1), crit, jnp.ones(1)])
    values = jax.vmap(lambda s: _polyval(g, s))(knots)
    enters = (values[:-1] > 0) & (values[1:] <= 0)
    at_start = (values[0] <= 0) & (values[0] > -touch) & (g[1] < 0)
    piece = jnp.argmax(enters)
    found = jnp.any(enters)

    def halve(_: int, bracket: tuple[Any, Any]) -> tuple[Any, Any]:
        lo, hi = bracket
        mid = 0.5 * (lo + hi)
        inside = _polyval(g, mid) <= 0
        return jnp.where(inside, lo, mid), jnp.where(inside, mid, hi)

    lo, hi = jax.lax.fori_loop(0, BISECTION_STEPS, halve, (knots[piece], knots[piece + 1]))
    dg = jnp.array([g[1], 2 * g[2], 3 * g[3], 4 * g[4], 0.0])

    def newton(_: int, s: Any) -> Any:
        slope = _polyval(dg, s)
        step = _polyval(g, s) / jnp.where(slope != 0, slope, -1.0)
        return jnp.clip(s - step, lo, hi)

    s = jax.lax.fori_loop(0, NEWTON_STEPS, newton, hi)
    t = jnp.where(found, s * H, jnp.inf)
    if graze:
        # The first monotone piece on which f falls, and whether f stays <= 0 until then.
        falls = values[1:] < values[:-1]
        turn = jnp.argmax(falls)
        out = jnp.any((values[:-1] > 0) & (jnp.arange(falls.shape[0]) <= turn))
        grazes = (values[0] <= 0) & (values[0] > -touch) & jnp.any(falls) & ~out
        t = jnp.where(grazes, knots[turn] * H, t)
    t = jnp.where(at_start, 0.0, t)
    return jnp.where(valid, t, jnp.inf)


def first_entry_quadratic(coeffs: Any, horizon: Any, touch: Any) -> Any:
    """`first_entry` for a polynomial of degree <= 2, in closed form.

    From f(0) > 0 the first root is necessarily where f falls through zero, so the entry
    is the smallest root in (0, horizon]. From f(0) <= 0 (a start inside, not counted as
    an entry at once) f can only come back in if it is concave: it leaves at the smaller
    root and falls back through zero at the larger one, the entry. (A ball that starts
    inside a cushion line's reach beyond the end of the piece, in a pocket's mouth, and
    curves into the piece's span from outside must meet the piece there.) A concave f
    that starts inside within `touch` and never gets out enters where it turns to fall.
    """
    c0, c1, c2 = coeffs[0], coeffs[1], coeffs[2]
    r1, r2 = _quadratic_roots(c2, c1, c0)
    roots = jnp.stack([r1, r2])
    ahead = jnp.isfinite(roots) & (roots >= 0) & (roots <= horizon)
    first = jnp.min(jnp.where(ahead, roots, jnp.inf))
    # Both roots are real and distinct, and the larger one (nan-free: both finite) ahead.
    back = jnp.maximum(r1, r2)
    returns = (c2 < 0) & jnp.all(jnp.isfinite(roots)) & (jnp.minimum(r1, r2) < back)
    returns = returns & (back > 0) & (back <= horizon)
    inside = (c0 <= 0) & (c0 > -touch)
    at_start = inside & (c1 < 0)
    # Inside and never out (the peak f(-c1 / 2 c2) <= 0, no distinct real roots): an
    # overlap by rounding, moving along the contact while the path curves into it.
    turn = -c1 / (2 * jnp.where(c2 < 0, c2, -1.0))
    grazes = inside & (c2 < 0) & (c1 * c1 - 4 * c2 * c0 <= 0) & (turn <= horizon)
    later = jnp.where(c0 > 0, first, jnp.where(returns, back, jnp.inf))
    return jnp.where(at_start, 0.0, jnp.where(grazes, turn, later))
