"""When a ball's next contact is due: with another ball, or with the table.

The table arrives as flat arrays (`physics.kernel.table_arrays`): `lines` (S, 7) holds
each straight piece's start point, unit direction, unit normal and length; `line_ids`
(S, 2) its cushion id and pocket id (-1 where none); `arcs` (A, 3) each jaw nose's centre
and radius with `arc_pocket` (A,); `holes` (P, 3) each pocket's capture circle.
"""

from __future__ import annotations

import warp as wp

from piramida.physics.engine.roots import first_entry, first_entry_quadratic, infinity, vec5d

F = wp.float64
# Kinds of table contact a ball's rail entry names.
LINE = wp.constant(0)
ARC = wp.constant(1)
HOLE = wp.constant(2)
CENTRE = wp.constant(3)
# Gap (m) within which a ball counts as touching a cushion or another ball for the log
# and the start snapshot: the rules' epsilon_contact (docs/rules/specification.md III.6).
CONTACT_EPS_M = 1e-4
CONTACT_EPS = wp.constant(wp.float64(CONTACT_EPS_M))
JAW_TOUCH_OFFSET = wp.constant(6)  # touch ids 6..11 are the jaws of pockets 0..5


@wp.func
def circle_coeffs(d: wp.vec2d, v: wp.vec2d, half_a: wp.vec2d, radius: wp.float64) -> vec5d:
    """Coefficients of |d + v t + half_a t^2|^2 - radius^2, constant term first."""
    return vec5d(
        wp.dot(d, d) - radius * radius,
        F(2.0) * wp.dot(d, v),
        wp.dot(v, v) + F(2.0) * wp.dot(d, half_a),
        F(2.0) * wp.dot(v, half_a),
        wp.dot(half_a, half_a),
    )


# Slack (m) on the reach test below, far above the rounding of the distances it compares.
REACH_SLACK = wp.constant(wp.float64(1e-9))


@wp.func
def may_reach(d: wp.vec2d, v: wp.vec2d, half_a: wp.vec2d, h: wp.float64, radius: wp.float64) -> wp.bool:
    """Whether |d + v t + half_a t^2| can fall to `radius` for some t in [0, h].

    |v t + half_a t^2| <= |v| h + |half_a| h^2 there, so a circle further away than that
    cannot be met: its root search (the costly quartic) would find nothing, and is skipped.
    """
    if not wp.isfinite(h):
        return True
    travel = wp.length(v) * h + wp.length(half_a) * h * h
    return wp.length(d) - travel <= radius + REACH_SLACK


@wp.func
def pair_time(
    rk: wp.vec2d,
    vk: wp.vec2d,
    ak: wp.vec2d,
    hk: wp.float64,
    rm: wp.vec2d,
    vm: wp.vec2d,
    am: wp.vec2d,
    hm: wp.float64,
    two_r: wp.float64,
) -> wp.float64:
    """Time from now until balls k and m touch (inf if not before either's transition).

    Any overlap that is closing counts as a contact now: a contact's kiss may have moved
    one of the balls a few micrometres into the other.
    """
    d = rk - rm
    dv = vk - vm
    half_a = F(0.5) * (ak - am)
    h = wp.min(hk, hm)
    if not may_reach(d, dv, half_a, h, two_r):
        return infinity()
    return first_entry(circle_coeffs(d, dv, half_a, two_r), h, infinity(), False)


@wp.func
def line_point(lines: wp.array2d(dtype=wp.float64), k: wp.int32) -> wp.vec2d:
    """Start point of straight piece k."""
    return wp.vec2d(lines[k, 0], lines[k, 1])


@wp.func
def line_along(lines: wp.array2d(dtype=wp.float64), k: wp.int32) -> wp.vec2d:
    """Unit direction of straight piece k."""
    return wp.vec2d(lines[k, 2], lines[k, 3])


@wp.func
def line_normal(lines: wp.array2d(dtype=wp.float64), k: wp.int32) -> wp.vec2d:
    """Unit normal of straight piece k (its direction turned left)."""
    return wp.vec2d(lines[k, 4], lines[k, 5])


@wp.func
def circle_centre(circles: wp.array2d(dtype=wp.float64), k: wp.int32) -> wp.vec2d:
    """Centre of circle k (a jaw nose or a capture circle)."""
    return wp.vec2d(circles[k, 0], circles[k, 1])


@wp.func
def line_side_time(
    r: wp.vec2d,
    v: wp.vec2d,
    half_a: wp.vec2d,
    h: wp.float64,
    c: wp.float64,
    a: wp.vec2d,
    along: wp.vec2d,
    normal: wp.vec2d,
    length: wp.float64,
) -> wp.float64:
    """When the centre comes within c of a piece's line from the side `normal` points to.

    An overlap of up to half the contact distance that closes, or turns to close, counts
    as a contact; the far side of a line is at least 2c away, and must not. The contact
    must fall within the piece's span.
    """
    tau = first_entry_quadratic(
        wp.dot(normal, r - a) - c, wp.dot(normal, v), wp.dot(normal, half_a), h, c / F(2.0)
    )
    if not wp.isfinite(tau):
        return infinity()
    at = r + v * tau + half_a * (tau * tau)
    s = wp.dot(along, at - a)
    if s >= F(0.0) and s <= length:
        return tau
    return infinity()


@wp.func
def rail_entry(
    r: wp.vec2d,
    v: wp.vec2d,
    half_a: wp.vec2d,
    h: wp.float64,
    side: wp.int32,
    c: wp.float64,
    mid: wp.float64,
    lines: wp.array2d(dtype=wp.float64),
    arcs: wp.array2d(dtype=wp.float64),
    holes: wp.array2d(dtype=wp.float64),
) -> tuple[wp.float64, wp.int32, wp.int32]:
    """A moving ball's next table contact or centre-line crossing: (time from now, kind, index).

    The earliest of: a straight piece (either side), a jaw nose, a capture circle (a
    closing overlap with either, from a kiss or rounding, is a contact at once), and the
    centre line, crossed away from the half the ball is in (`side`: -1 front, +1 back).
    """
    best = infinity()
    kind = LINE
    index = int(0)
    travel = wp.length(v) * h + wp.length(half_a) * h * h
    for k in range(lines.shape[0]):
        a = line_point(lines, k)
        u = line_along(lines, k)
        n = line_normal(lines, k)
        t = infinity()
        # A line further than the ball can travel is met on neither side (see `may_reach`).
        if not wp.isfinite(h) or wp.abs(wp.dot(n, r - a)) - travel <= c + REACH_SLACK:
            t = wp.min(
                line_side_time(r, v, half_a, h, c, a, u, n, lines[k, 6]),
                line_side_time(r, v, half_a, h, c, a, u, -n, lines[k, 6]),
            )
        if t < best:
            best = t
            kind = LINE
            index = k
    for k in range(arcs.shape[0]):
        d = r - circle_centre(arcs, k)
        t = infinity()
        if may_reach(d, v, half_a, h, arcs[k, 2] + c):
            t = first_entry(circle_coeffs(d, v, half_a, arcs[k, 2] + c), h, infinity(), True)
        if t < best:
            best = t
            kind = ARC
            index = k
    for k in range(holes.shape[0]):
        d = r - circle_centre(holes, k)
        t = infinity()
        if may_reach(d, v, half_a, h, holes[k, 2]):
            t = first_entry(circle_coeffs(d, v, half_a, holes[k, 2]), h, infinity(), True)
        if t < best:
            best = t
            kind = HOLE
            index = k
    if side != 0:
        sf = F(side)
        t = first_entry_quadratic(sf * (r[1] - mid), sf * v[1], sf * half_a[1], h, F(0.0))
        if t < best:
            best = t
            kind = CENTRE
            index = 0
    return best, kind, index


@wp.func
def touching_cushion(
    r: wp.vec2d,
    c: wp.float64,
    lines: wp.array2d(dtype=wp.float64),
    line_ids: wp.array2d(dtype=wp.int32),
    arcs: wp.array2d(dtype=wp.float64),
    arc_pocket: wp.array(dtype=wp.int32),
) -> wp.int32:
    """Which cushion piece a centre at r touches (within CONTACT_EPS): its id or -1.

    Cushion ids 0-5; the jaws (faces and noses) of pocket k are 6 + k.
    """
    for k in range(lines.shape[0]):
        rel = r - line_point(lines, k)
        s = wp.dot(rel, line_along(lines, k))
        gap = wp.abs(wp.dot(rel, line_normal(lines, k))) - c
        if s >= F(0.0) and s <= lines[k, 6] and gap <= CONTACT_EPS:
            if line_ids[k, 0] >= 0:
                return line_ids[k, 0]
            return JAW_TOUCH_OFFSET + line_ids[k, 1]
    for k in range(arcs.shape[0]):
        if wp.length(r - circle_centre(arcs, k)) - arcs[k, 2] - c <= CONTACT_EPS:
            return JAW_TOUCH_OFFSET + arc_pocket[k]
    return -1
