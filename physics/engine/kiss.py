"""Placing the balls of a contact a hair apart before it is resolved ("make kiss").

At the event time the contact distance is reached to float64 precision, so a ball may
sit a rounding error inside another ball or a cushion. As pooltool-billiards 0.6 does,
each contact first moves its balls back along their velocities (straight line, smallest
time offset) until they stand `CONTACT_GAP` apart; where that would move them more than
`MAX_SHIFT`, or a ball is not translating, they are pushed apart along the contact
normal instead. The contact normal and the cushion models' tilt then come from these
positions, which is what makes the two engines agree shot for shot.
"""

from __future__ import annotations

import warp as wp

F = wp.float64
# pooltool's `MIN_DIST`: the gap left between the surfaces of a resolved contact (m).
CONTACT_GAP_M = 1e-6
CONTACT_GAP = wp.constant(wp.float64(CONTACT_GAP_M))
# Larger corrections fall back to a push along the normal (pooltool's factor).
MAX_SHIFT_M = 5 * CONTACT_GAP_M
MAX_SHIFT = wp.constant(wp.float64(MAX_SHIFT_M))


@wp.func
def nearest_root(alpha: wp.float64, beta: wp.float64, gamma: wp.float64) -> tuple[wp.float64, wp.bool]:
    """The root of alpha t^2 + beta t + gamma with the smallest |t|, and whether it exists."""
    disc = beta * beta - F(4.0) * alpha * gamma
    sq = wp.sqrt(wp.max(disc, F(0.0)))
    q = F(-0.5) * (beta - sq)
    if beta >= F(0.0):
        q = F(-0.5) * (beta + sq)
    safe_alpha = alpha
    if not (alpha > F(0.0)):
        safe_alpha = F(1.0)
    safe_q = q
    if q == F(0.0):
        safe_q = F(1.0)
    t1 = q / safe_alpha
    t2 = gamma / safe_q
    t = t2
    if wp.abs(t1) < wp.abs(t2):
        t = t1
    # A double root with a negative discriminant by rounding is kept, as pooltool keeps
    # nearly real complex roots.
    if not (disc >= F(0.0)):
        t = -beta / (F(2.0) * safe_alpha)
    return t, alpha > F(0.0) and q != F(0.0)


@wp.func
def unit_or_zero(x: wp.vec2d) -> wp.vec2d:
    """X / |x|, with |x| floored at 1e-300."""
    return x / wp.max(wp.length(x), F(1e-300))


@wp.func
def ball_ball(
    r1: wp.vec2d, v1: wp.vec2d, r2: wp.vec2d, v2: wp.vec2d, moving: wp.bool, R: wp.float64
) -> tuple[wp.vec2d, wp.vec2d]:
    """Positions of two touching balls moved to 2R + CONTACT_GAP apart."""
    target = F(2.0) * R + CONTACT_GAP
    B = v2 - v1
    C = r2 - r1
    t, ok = nearest_root(wp.dot(B, B), F(2.0) * wp.dot(B, C), wp.dot(C, C) - target * target)
    traced1 = r1 + t * v1
    traced2 = r2 + t * v2
    shift = wp.length((traced1 + traced2 - r1 - r2) / F(2.0))
    if moving and ok and shift <= MAX_SHIFT:
        return traced1, traced2
    normal = unit_or_zero(C)
    push = (target - wp.length(C)) / F(2.0)
    return r1 - push * normal, r2 + push * normal


@wp.func
def line(
    r: wp.vec2d, v: wp.vec2d, normal_in: wp.vec2d, point: wp.vec2d, reach: wp.float64, moving: wp.bool
) -> wp.vec2d:
    """Ball position moved to reach + CONTACT_GAP from a cushion line (normal_in: into the cushion)."""
    target = reach + CONTACT_GAP
    d0 = wp.dot(r - point, normal_in)
    vn = wp.dot(v, normal_in)
    if moving and vn != F(0.0):
        t1 = (target - d0) / vn
        t2 = (-target - d0) / vn
        t = t2
        if wp.abs(t1) < wp.abs(t2):
            t = t1
        if wp.length(t * v) <= MAX_SHIFT:
            return r + t * v
    return r - (target + d0) * normal_in  # the foot of the perpendicular, then target back


@wp.func
def circle(r: wp.vec2d, v: wp.vec2d, centre: wp.vec2d, reach: wp.float64, moving: wp.bool) -> wp.vec2d:
    """Ball position moved to reach + CONTACT_GAP from a jaw nose's centre."""
    target = reach + CONTACT_GAP
    diff = r - centre
    t, ok = nearest_root(wp.dot(v, v), F(2.0) * wp.dot(diff, v), wp.dot(diff, diff) - target * target)
    if moving and ok and wp.length(t * v) <= MAX_SHIFT:
        return r + t * v
    return centre + target * unit_or_zero(diff)
