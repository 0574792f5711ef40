"""The first time a polynomial of degree <= 4 enters the region where it is <= 0.

Every event of the kernel is such a time: a distance (squared, for circles) minus the
contact distance reaches zero while decreasing. Roots are found by bisection on the
monotone piece that holds the first sign change; the pieces are bounded by the critical
points, the roots of the derivative's cubic in closed form (closed-form Ferrari misses
roots in float32, and eigenvalue solvers run on the host).
"""

from __future__ import annotations

import warp as wp

F = wp.float64
vec5d = wp.types.vector(length=5, dtype=wp.float64)

# Bisection narrows the bracket to 2^-20 of the horizon, then Newton steps (kept inside
# the bracket) reach float64 resolution for a simple root.
BISECTION_STEPS = wp.constant(20)
NEWTON_STEPS = wp.constant(4)
# Longest horizon searched (s): no shot lasts this long.
MAX_HORIZON = wp.constant(wp.float64(1e4))
# A relative coefficient this small is treated as zero (the polynomial drops a degree).
DEGENERATE = wp.constant(wp.float64(1e-13))
TINY = wp.constant(wp.float64(1e-300))


@wp.func
def not_a_number() -> wp.float64:
    """NaN: a missing root."""
    return F(wp.nan)


@wp.func
def infinity() -> wp.float64:
    """inf: no event ahead."""
    return F(wp.inf)


@wp.func
def polyval(g: vec5d, s: wp.float64) -> wp.float64:
    """g[0] + g[1] s + ... + g[4] s^4 (Horner)."""
    return g[0] + s * (g[1] + s * (g[2] + s * (g[3] + s * g[4])))


@wp.func
def quadratic_roots(a: wp.float64, b: wp.float64, c: wp.float64) -> wp.vec2d:
    """Real roots of a s^2 + b s + c (NaN where none), stable for tiny a."""
    nan = not_a_number()
    scale = wp.max(wp.max(wp.abs(b), wp.abs(c)), TINY)
    if wp.abs(a) <= DEGENERATE * scale:
        lin = nan
        if wp.abs(b) > F(0.0):
            lin = -c / b
        return wp.vec2d(lin, nan)
    disc = b * b - F(4.0) * a * c
    if disc < F(0.0):
        return wp.vec2d(nan, nan)
    sq = wp.sqrt(disc)
    q = F(-0.5) * (b - sq)
    if b >= F(0.0):
        q = F(-0.5) * (b + sq)
    safe_q = q
    if q == F(0.0):
        safe_q = TINY
    return wp.vec2d(q / a, c / safe_q)


@wp.func
def cubic_roots(a: wp.float64, b: wp.float64, c: wp.float64, d: wp.float64) -> wp.vec3d:
    """Real roots of a s^3 + b s^2 + c s + d (NaN where fewer), trigonometric form."""
    nan = not_a_number()
    scale = wp.max(wp.max(wp.abs(b), wp.abs(c)), wp.max(wp.abs(d), TINY))
    if wp.abs(a) <= DEGENERATE * scale:
        two = quadratic_roots(b, c, d)
        return wp.vec3d(two[0], two[1], nan)
    B = b / a
    C = c / a
    D = d / a
    p = C - B * B / F(3.0)
    q = F(2.0) * B * B * B / F(27.0) - B * C / F(3.0) + D
    shift = -B / F(3.0)
    half_q = q / F(2.0)
    third_p = p / F(3.0)
    disc = half_q * half_q + third_p * third_p * third_p
    if disc <= F(0.0):
        # Three real roots: m cos(phi - 2 pi k / 3); the other two cosines follow from
        # cos(phi) and sin(phi) (one transcendental instead of three).
        m = F(2.0) * wp.sqrt(wp.max(-p / F(3.0), F(0.0)))
        arg = F(0.0)
        if m > F(0.0):
            arg = wp.clamp(F(3.0) * q / (p * m), F(-1.0), F(1.0))
        cos_phi = wp.cos(wp.acos(arg) / F(3.0))
        sin_phi = wp.sqrt(wp.max(F(1.0) - cos_phi * cos_phi, F(0.0)))
        half_sqrt3 = F(0.5) * wp.sqrt(F(3.0))
        return wp.vec3d(
            m * cos_phi + shift,
            m * (F(-0.5) * cos_phi + half_sqrt3 * sin_phi) + shift,
            m * (F(-0.5) * cos_phi - half_sqrt3 * sin_phi) + shift,
        )
    sq = wp.sqrt(disc)
    one = wp.cbrt(-half_q + sq) + wp.cbrt(-half_q - sq) + shift
    return wp.vec3d(one, nan, nan)


@wp.func
def inside_unit(x: wp.float64) -> wp.float64:
    """X if it lies in (0, 1), else 1 (a critical point that bounds no piece)."""
    if wp.isfinite(x) and x > F(0.0) and x < F(1.0):
        return x
    return F(1.0)


@wp.func
def first_entry(coeffs: vec5d, horizon: wp.float64, touch: wp.float64, graze: wp.bool) -> wp.float64:
    """First t in [0, horizon] where f(t) = sum coeffs[k] t^k falls to <= 0; inf if none.

    `touch`: a start with -touch < f(0) <= 0 and f decreasing is an entry at t = 0 (balls
    that touch, or overlap by a kiss's micrometres). `graze`: also count such a start with
    f rising but turning to fall before it gets above 0 as an entry where f turns (the
    table's contacts).
    """
    if not (wp.isfinite(horizon) and horizon > F(0.0)):
        return infinity()
    H = wp.min(horizon, MAX_HORIZON)
    H2 = H * H
    g = vec5d(coeffs[0], coeffs[1] * H, coeffs[2] * H2, coeffs[3] * H2 * H, coeffs[4] * H2 * H2)
    crit = cubic_roots(F(4.0) * g[4], F(3.0) * g[3], F(2.0) * g[2], g[1])
    c0 = inside_unit(crit[0])
    c1 = inside_unit(crit[1])
    c2 = inside_unit(crit[2])
    lo3 = wp.min(c0, c1)
    hi3 = wp.max(c0, c1)
    knots = vec5d(F(0.0), wp.min(lo3, c2), wp.clamp(c2, lo3, hi3), wp.max(hi3, c2), F(1.0))
    values = vec5d(
        polyval(g, knots[0]),
        polyval(g, knots[1]),
        polyval(g, knots[2]),
        polyval(g, knots[3]),
        polyval(g, knots[4]),
    )
    at_start = values[0] <= F(0.0) and values[0] > -touch and g[1] < F(0.0)
    piece = int(-1)
    for k in range(4):
        if piece < 0 and values[k] > F(0.0) and values[k + 1] <= F(0.0):
            piece = k
    t = infinity()
    if piece >= 0:
        lo = knots[piece]
        hi = knots[piece + 1]
        for _ in range(BISECTION_STEPS):
            mid = F(0.5) * (lo + hi)
            if polyval(g, mid) <= F(0.0):
                hi = mid
            else:
                lo = mid
        dg = vec5d(g[1], F(2.0) * g[2], F(3.0) * g[3], F(4.0) * g[4], F(0.0))
        s = hi
        for _ in range(NEWTON_STEPS):
            slope = polyval(dg, s)
            if slope == F(0.0):
                slope = F(-1.0)
            s = wp.clamp(s - polyval(g, s) / slope, lo, hi)
        t = s * H
    if graze:
        # The first monotone piece on which f falls, and whether f stays <= 0 until then.
        turn = int(-1)
        for k in range(4):
            if turn < 0 and values[k + 1] < values[k]:
                turn = k
        if turn >= 0 and values[0] <= F(0.0) and values[0] > -touch:
            out = False
            for k in range(4):
                if k <= turn and values[k] > F(0.0):
                    out = True
            if not out:
                t = knots[turn] * H
    if at_start:
        t = F(0.0)
    return t


@wp.func
def first_entry_quadratic(
    c0: wp.float64, c1: wp.float64, c2: wp.float64, horizon: wp.float64, touch: wp.float64
) -> wp.float64:
    """`first_entry` for a polynomial of degree <= 2, in closed form.

    From f(0) > 0 the entry is the smallest root in [0, horizon]. From f(0) <= 0 f can
    only come back in if it is concave: it leaves at the smaller root and falls back
    through zero at the larger one, the entry. A concave f that starts inside within
    `touch` and never gets out enters where it turns to fall.
    """
    roots = quadratic_roots(c2, c1, c0)
    r1 = roots[0]
    r2 = roots[1]
    first = infinity()
    if wp.isfinite(r1) and r1 >= F(0.0) and r1 <= horizon:
        first = r1
    if wp.isfinite(r2) and r2 >= F(0.0) and r2 <= horizon:
        first = wp.min(first, r2)
    back = wp.max(r1, r2)
    returns = (
        c2 < F(0.0)
        and wp.isfinite(r1)
        and wp.isfinite(r2)
        and wp.min(r1, r2) < back
        and back > F(0.0)
        and back <= horizon
    )
    inside = c0 <= F(0.0) and c0 > -touch
    if inside and c1 < F(0.0):
        return F(0.0)
    concave = F(-1.0)
    if c2 < F(0.0):
        concave = c2
    turn = -c1 / (F(2.0) * concave)
    if inside and c2 < F(0.0) and c1 * c1 - F(4.0) * c2 * c0 <= F(0.0) and turn <= horizon:
        return turn
    if c0 > F(0.0):
        return first
    if returns:
        return back
    return infinity()
