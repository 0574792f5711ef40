"""The shot menu's other families as one Warp kernel: in-offs, doubles, kicks and safety pairs.

`agents.menu` plans every family by geometry on fixed shapes: the in-offs over 16 own
balls x 16 object balls x 6 pockets x 2 sides, the doubles and kicks over 4 cushions on
top, the safeties over 16 x 16 pairs, each with paths tested against all 16 balls. In
XLA that is most of a menu's time (about 0.8 ms a table on this project's CPU). Here a
thread walks its table's shots of each family in the menu's order, keeps the best `k` of
each (`pot_kernel.keep_best`, ties to the lower index as `lax.top_k`), and tests a path
only for a shot whose score would enter its list. The arithmetic is `agents.menu`'s,
term for term, in float64; `tests/agents/test_menu_kernel.py` holds the menus to those
recorded from the XLA families on game positions.
"""

from __future__ import annotations

import warp as wp

from piramida.agents.pot_kernel import (
    DEGREES,
    NO_SCORE,
    F,
    empty_after,
    keep_best,
    path_clear,
    pocket_room,
    threshold,
    unit,
)

BALLS = 16
POCKETS = 6
RAILS = 4
SIDES = 2
# The layout of `constants` (float64); `menu` packs them.
CONSTANTS = ("R", "reach", "max_cut_deg", "rail_clearance", "blocked_cost")


@wp.struct
class Geometry:
    """A table's shared figures: the ball radius, a centre's reach to a cushion line, the limits."""

    R: F
    reach: F
    max_cut_deg: F
    rail_clearance: F
    blocked_cost: F


@wp.func
def unpack(constants: wp.array(dtype=F)) -> Geometry:
    g = Geometry()
    g.R = constants[0]
    g.reach = constants[1]
    g.max_cut_deg = constants[2]
    g.rail_clearance = constants[3]
    g.blocked_cost = constants[4]
    return g


@wp.func
def phi_of(heading: wp.vec2d) -> F:
    """The cue's aim (degrees in [0, 360)) along `heading`."""
    phi = wp.atan2(heading[1], heading[0]) * DEGREES
    if phi < F(0.0):
        phi = phi + F(360.0)
    return phi


@wp.func
def ball_at(pos: wp.array3d(dtype=F), tid: int, ball: int) -> wp.vec2d:
    return wp.vec2d(pos[tid, ball, 0], pos[tid, ball, 1])


@wp.func
def mirrored(p: wp.vec2d, axis: int, coord: F) -> wp.vec2d:
    """P mirrored in the cushion line {x_axis = coord}."""
    if axis == 0:
        return wp.vec2d(F(2.0) * coord - p[0], p[1])
    return wp.vec2d(p[0], F(2.0) * coord - p[1])


@wp.func
def bounce(
    a: wp.vec2d, image: wp.vec2d, axis: int, coord: F, mouths: wp.array2d(dtype=F), g: Geometry
) -> wp.vec3d:
    """Where a -> image meets its cushion line: (x, y, 1) between them, clear of pockets; else (x, y, 0)."""
    along_a = a[axis]
    along_b = image[axis]
    span = along_b - along_a
    if along_b == along_a:
        span = F(1e-12)
    t = (coord - along_a) / span
    hit = a + t * (image - a)
    near = -NO_SCORE
    for p in range(POCKETS):
        near = wp.min(near, wp.length(hit - wp.vec2d(mouths[p, 0], mouths[p, 1])))
    ok = F(0.0)
    if t > F(0.0) and t < F(1.0) and near > g.rail_clearance:
        ok = F(1.0)
    return wp.vec3d(hit[0], hit[1], ok)


@wp.struct
class Line:
    """The object ball's side of a shot, the same whichever own ball plays it.

    In-offs: `ghost`, the line of centres `n`, the own ball's way on to the pocket
    `leave` and its length `length`. Doubles: `ghost`, the direction to the pocket's
    image `n`, the object ball's path to it `length`, the bounce `hit`. Kicks: `ghost`,
    the direction to the target `n`, the object ball's way to the pocket `length`, the
    ghost's image `image`. `ok`: the object ball's side allows the shot.
    """

    ghost: wp.vec2d
    n: wp.vec2d
    leave: wp.vec2d
    length: F
    hit: wp.vec2d
    image: wp.vec2d
    ok: wp.bool


@wp.func
def in_off_line(
    obj: wp.vec2d, pocket: int, side: int, mouths: wp.array2d(dtype=F), noses: wp.array3d(dtype=F),
    nose_radius: wp.array(dtype=F), g: Geometry,
) -> Line:  # fmt: skip
    """An in-off's object side: the own ball potted off `obj` into `pocket`.

    A stunned own ball leaves the collision square to the line of centres n, so it heads
    for the pocket when n is the direction to the pocket turned by arccos(-2R / distance),
    either way (`side`).
    """
    aim_at = wp.vec2d(mouths[pocket, 0], mouths[pocket, 1])
    d = unit(aim_at - obj)
    alpha = wp.acos(wp.clamp(F(-2.0) * g.R / wp.length(aim_at - obj), F(-1.0), F(1.0)))
    turn = alpha
    if side == 1:
        turn = -alpha
    c = wp.cos(turn)
    s = wp.sin(turn)
    line = Line()
    line.n = wp.vec2d(c * d[0] - s * d[1], s * d[0] + c * d[1])
    line.ghost = obj - F(2.0) * g.R * line.n
    line.leave = unit(aim_at - line.ghost)
    line.length = wp.length(aim_at - line.ghost)
    line.ok = pocket_room(line.leave, pocket, noses, nose_radius, g.reach) > F(0.0)
    return line


@wp.func
def score_in_off(start: wp.vec2d, line: Line, g: Geometry, bar: F) -> F:
    """The in-off's score from `start` (short paths, cuts near 45 degrees), or -inf (fails, or below bar)."""
    heading = unit(line.ghost - start)
    travel = wp.length(line.ghost - start)
    bound = -(travel + line.length)  # the score without its cut's term, which is <= 0
    if not (travel > F(2.0) * g.R) or bound < bar:
        return NO_SCORE
    cos_cut = heading[0] * line.n[0] + heading[1] * line.n[1]
    tangent = heading - cos_cut * line.n
    cut = wp.acos(wp.clamp(cos_cut, F(-1.0), F(1.0))) * DEGREES
    towards = tangent[0] * line.leave[0] + tangent[1] * line.leave[1] > F(0.0)
    if not (towards and cut > F(15.0) and cut < g.max_cut_deg - F(10.0)):
        return NO_SCORE
    return bound - wp.abs(cut - F(45.0)) / F(45.0)


@wp.func
def double_path(
    obj: wp.vec2d, rail: int, pocket: int, mouths: wp.array2d(dtype=F), rail_axis: wp.array(dtype=wp.int32),
    rail_coord: wp.array(dtype=F), g: Geometry,
) -> Line:  # fmt: skip
    """A double's object side before its checks: `obj` towards the image of `pocket` in cushion `rail`."""
    aim_at = wp.vec2d(mouths[pocket, 0], mouths[pocket, 1])
    line = Line()
    line.image = mirrored(aim_at, rail_axis[rail], rail_coord[rail])
    line.n = unit(line.image - obj)
    line.length = wp.length(line.image - obj)
    line.ghost = obj - F(2.0) * g.R * line.n
    return line


@wp.func
def double_checked(
    path: Line, obj: wp.vec2d, rail: int, pocket: int, mouths: wp.array2d(dtype=F),
    noses: wp.array3d(dtype=F), nose_radius: wp.array(dtype=F), rail_axis: wp.array(dtype=wp.int32),
    rail_coord: wp.array(dtype=F), g: Geometry,
) -> Line:  # fmt: skip
    """`path` with its bounce `hit` and `ok`: the bounce clear of the pockets and the mouth open from it."""
    aim_at = wp.vec2d(mouths[pocket, 0], mouths[pocket, 1])
    line = path
    hit3 = bounce(obj, path.image, rail_axis[rail], rail_coord[rail], mouths, g)
    line.hit = wp.vec2d(hit3[0], hit3[1])
    room = pocket_room(unit(aim_at - line.hit), pocket, noses, nose_radius, g.reach)
    line.ok = hit3[2] != F(0.0) and room > F(0.0)
    return line


@wp.func
def score_double(start: wp.vec2d, line: Line, g: Geometry, bar: F) -> F:
    """The double's score from `start` (short paths, full hits); -inf if it fails or cannot beat `bar`."""
    travel = wp.length(line.ghost - start)
    bound = -(travel + line.length)
    if not (travel > F(2.0) * g.R) or bound < bar:
        return NO_SCORE
    heading = unit(line.ghost - start)
    cut = wp.acos(wp.clamp(heading[0] * line.n[0] + heading[1] * line.n[1], F(-1.0), F(1.0))) * DEGREES
    if not (cut < g.max_cut_deg - F(20.0)):
        return NO_SCORE
    return bound - cut / F(30.0)


@wp.func
def kick_pot(obj: wp.vec2d, pocket: int, mouths: wp.array2d(dtype=F), g: Geometry) -> Line:
    """A kick's object side before its cushion: the direct pot's ghost ball (the same for every cushion).

    `ok` is left to `kick_checked`, so that a pot too long to enter the list costs no more.
    """
    aim_at = wp.vec2d(mouths[pocket, 0], mouths[pocket, 1])
    line = Line()
    line.n = unit(aim_at - obj)
    line.length = wp.length(aim_at - obj)
    line.ghost = obj - F(2.0) * g.R * line.n
    return line


@wp.func
def kick_checked(
    pot: Line, pocket: int, noses: wp.array3d(dtype=F), nose_radius: wp.array(dtype=F), g: Geometry
) -> Line:
    """`pot` with `ok`: the object ball fits the mouth from its direction."""
    line = pot
    line.ok = pocket_room(pot.n, pocket, noses, nose_radius, g.reach) > F(0.0)
    return line


@wp.func
def can_enter(length: F, scores: wp.array2d(dtype=F), tid: int, count: int) -> wp.bool:
    """Whether a shot whose object ball travels `length` may still enter a list of `count` kept.

    A double's or a kick's score is at most minus its object ball's path (`score_double`,
    `score_kick`), and the bar only rises, so a line that fails here fails for every own
    ball: the lists are the same as testing each one.
    """
    return not (-length < threshold(scores, tid, count))


@wp.func
def off_rail(
    pot: Line, rail: int, rail_axis: wp.array(dtype=wp.int32), rail_coord: wp.array(dtype=F)
) -> Line:
    """The kick `pot` off cushion `rail`: its ghost ball mirrored in the cushion line."""
    line = pot
    line.image = mirrored(pot.ghost, rail_axis[rail], rail_coord[rail])
    return line


@wp.func
def kick_line(
    obj: wp.vec2d, pocket: int, rail: int, mouths: wp.array2d(dtype=F), rail_axis: wp.array(dtype=wp.int32),
    rail_coord: wp.array(dtype=F), g: Geometry,
) -> Line:  # fmt: skip
    """A kick's object side (its checks left out): a direct pot's ghost ball, mirrored in cushion `rail`."""
    return off_rail(kick_pot(obj, pocket, mouths, g), rail, rail_axis, rail_coord)


@wp.func
def score_kick(
    start: wp.vec2d, line: Line, rail: int, mouths: wp.array2d(dtype=F), rail_axis: wp.array(dtype=wp.int32),
    rail_coord: wp.array(dtype=F), g: Geometry, bar: F,
) -> F:  # fmt: skip
    """The kick's score from `start` (short paths, full hits); -inf if it fails or cannot beat `bar`."""
    first_leg = wp.length(line.image - start)
    bound = -first_leg - line.length
    if bound < bar:
        return NO_SCORE
    hit3 = bounce(start, line.image, rail_axis[rail], rail_coord[rail], mouths, g)
    if hit3[2] == F(0.0):
        return NO_SCORE
    arrive = unit(line.ghost - wp.vec2d(hit3[0], hit3[1]))
    cut = wp.acos(wp.clamp(arrive[0] * line.n[0] + arrive[1] * line.n[1], F(-1.0), F(1.0))) * DEGREES
    if not (cut < g.max_cut_deg - F(30.0)):
        return NO_SCORE
    return bound - cut / F(30.0)


@wp.func
def own_start(own_xy: wp.array3d(dtype=F), tid: int, own: int) -> wp.vec2d:
    return wp.vec2d(own_xy[tid, own, 0], own_xy[tid, own, 1])


@wp.func
def plays(mask: int, own: int) -> wp.bool:
    """Own ball `own` is in the bit mask."""
    return ((mask >> own) & 1) != 0


@wp.kernel
def plan_menu(
    pos: wp.array3d(dtype=F),
    on: wp.array2d(dtype=wp.int32),
    pairs: wp.array3d(dtype=wp.int32),
    own_xy: wp.array3d(dtype=F),
    in_offs_allowed: wp.array(dtype=wp.int32),
    skip: wp.array(dtype=wp.int32),
    constants: wp.array(dtype=F),
    planning: wp.array(dtype=wp.int32),
    mouths: wp.array2d(dtype=F),
    noses: wp.array3d(dtype=F),
    nose_radius: wp.array(dtype=F),
    rail_axis: wp.array(dtype=wp.int32),
    rail_coord: wp.array(dtype=F),
    in_off_score: wp.array2d(dtype=F),
    in_off_item: wp.array2d(dtype=wp.int32),
    double_score: wp.array2d(dtype=F),
    double_item: wp.array2d(dtype=wp.int32),
    kick_score: wp.array2d(dtype=F),
    kick_item: wp.array2d(dtype=wp.int32),
    safety_score: wp.array2d(dtype=F),
    safety_item: wp.array2d(dtype=wp.int32),
    in_off_phi: wp.array2d(dtype=F),
    double_phi: wp.array2d(dtype=F),
    double_speed: wp.array2d(dtype=F),
    kick_phi: wp.array2d(dtype=F),
    kick_speed: wp.array2d(dtype=F),
):
    """Table `tid`'s best in-offs, doubles, kicks and safety pairs (each list's length its k).

    Items are flat indices in the menu's order: in-offs ((own * 16 + object) * 6 + pocket)
    * 2 + side, doubles ((own * 16 + object) * 4 + cushion) * 6 + pocket, kicks ((own * 16
    + object) * 6 + pocket) * 4 + cushion, safety pairs own * 16 + object; -1 past the
    last shot. A safety pair's score is minus its cost (`menu.safety_costs`). `planning`
    (in-offs, doubles, kicks) says which of those a menu holds at all (the others' lists
    have one unused slot). Each object ball's side of a shot is planned once for all own
    balls; an own ball's arccos only where its shot could still enter its list, and a
    double's or a kick's bounce and mouth only where its object ball's path could
    (`can_enter`).
    """
    tid = wp.tid()
    g = unpack(constants)
    n = pos.shape[1]
    R2 = F(2.0) * g.R
    in_offs = wp.int32(0)
    doubles = wp.int32(0)
    kicks = wp.int32(0)
    safeties = wp.int32(0)
    if skip[tid] == 0:
        for target in range(n):
            obj = ball_at(pos, tid, target)
            owners = wp.int32(0)  # the own balls the rules pair with this object ball
            clear = wp.int32(0)  # those with a clear path to it
            for own in range(n):
                if pairs[tid, own, target] != 0:
                    start = own_start(own_xy, tid, own)
                    owners = owners | (1 << own)
                    cost = wp.length(obj - start)
                    if path_clear(pos, on, tid, start, obj, R2, own, target):
                        clear = clear | (1 << own)
                    else:
                        cost = cost + g.blocked_cost
                    size = safety_score.shape[1]
                    safeties = keep_best(
                        safety_score, safety_item, tid, safeties, size, -cost, own * n + target
                    )
            if in_offs_allowed[tid] != 0 and planning[0] != 0 and clear != 0:
                for pocket in range(POCKETS):
                    for side in range(SIDES):
                        line = in_off_line(obj, pocket, side, mouths, noses, nose_radius, g)
                        for own in range(n):
                            if line.ok and plays(clear, own):
                                bar = threshold(in_off_score, tid, in_offs)
                                score = score_in_off(own_start(own_xy, tid, own), line, g, bar)
                                item = (((own * n + target) * POCKETS) + pocket) * SIDES + side
                                if score > NO_SCORE:
                                    size = in_off_score.shape[1]
                                    in_offs = keep_best(
                                        in_off_score, in_off_item, tid, in_offs, size, score, item
                                    )
            if planning[1] != 0 and clear != 0:
                for rail in range(RAILS):
                    for pocket in range(POCKETS):
                        line = double_path(obj, rail, pocket, mouths, rail_axis, rail_coord, g)
                        if not can_enter(line.length, double_score, tid, doubles):
                            continue
                        line = double_checked(
                            line, obj, rail, pocket, mouths, noses, nose_radius, rail_axis, rail_coord, g
                        )
                        aim_at = wp.vec2d(mouths[pocket, 0], mouths[pocket, 1])
                        object_path = wp.int32(-1)  # not tested yet; then 1 clear, 0 blocked
                        for own in range(n):
                            if line.ok and plays(clear, own):
                                bar = threshold(double_score, tid, doubles)
                                score = score_double(own_start(own_xy, tid, own), line, g, bar)
                                if score > NO_SCORE and object_path == -1:
                                    object_path = wp.int32(0)
                                    if path_clear(
                                        pos, on, tid, obj, line.hit, R2, target, target
                                    ) and path_clear(pos, on, tid, line.hit, aim_at, R2, target, target):
                                        object_path = wp.int32(1)
                                if score > NO_SCORE and object_path == 1:
                                    item = ((own * n + target) * RAILS + rail) * POCKETS + pocket
                                    size = double_score.shape[1]
                                    doubles = keep_best(
                                        double_score, double_item, tid, doubles, size, score, item
                                    )
            if planning[2] != 0 and owners != 0:
                for pocket in range(POCKETS):
                    aim_at = wp.vec2d(mouths[pocket, 0], mouths[pocket, 1])
                    object_path = wp.int32(-1)
                    pot = kick_pot(obj, pocket, mouths, g)
                    if not can_enter(pot.length, kick_score, tid, kicks):
                        continue
                    pot = kick_checked(pot, pocket, noses, nose_radius, g)
                    if not pot.ok:
                        continue
                    for rail in range(RAILS):
                        line = off_rail(pot, rail, rail_axis, rail_coord)
                        for own in range(n):
                            if plays(owners, own):
                                bar = threshold(kick_score, tid, kicks)
                                start = own_start(own_xy, tid, own)
                                score = score_kick(start, line, rail, mouths, rail_axis, rail_coord, g, bar)
                                if score > NO_SCORE and object_path == -1:
                                    object_path = wp.int32(0)
                                    if path_clear(pos, on, tid, obj, aim_at, R2, target, target):
                                        object_path = wp.int32(1)
                                if score > NO_SCORE and object_path == 1:
                                    item = ((own * n + target) * POCKETS + pocket) * RAILS + rail
                                    size = kick_score.shape[1]
                                    kicks = keep_best(kick_score, kick_item, tid, kicks, size, score, item)
    # The aims and speeds of the kept shots, and empty slots after them.
    for i in range(in_off_score.shape[1]):
        in_off_phi[tid, i] = F(0.0)
        if i < in_offs:
            item = in_off_item[tid, i]
            start = own_start(own_xy, tid, item // (n * POCKETS * SIDES))
            target = item // (POCKETS * SIDES) % n
            line = in_off_line(
                ball_at(pos, tid, target),
                item // SIDES % POCKETS,
                item % SIDES,
                mouths,
                noses,
                nose_radius,
                g,
            )
            in_off_phi[tid, i] = phi_of(unit(line.ghost - start))
    for i in range(double_score.shape[1]):
        double_phi[tid, i] = F(0.0)
        double_speed[tid, i] = F(0.0)
        if i < doubles:
            item = double_item[tid, i]
            start = own_start(own_xy, tid, item // (n * RAILS * POCKETS))
            target = item // (RAILS * POCKETS) % n
            rail = item // POCKETS % RAILS
            obj = ball_at(pos, tid, target)
            line = double_path(obj, rail, item % POCKETS, mouths, rail_axis, rail_coord, g)
            double_phi[tid, i] = phi_of(unit(line.ghost - start))
            travel = wp.length(line.ghost - start)
            double_speed[tid, i] = wp.clamp(F(2.0) + F(1.5) * (travel + line.length), F(2.0), F(6.0))
    for i in range(kick_score.shape[1]):
        kick_phi[tid, i] = F(0.0)
        kick_speed[tid, i] = F(0.0)
        if i < kicks:
            item = kick_item[tid, i]
            start = own_start(own_xy, tid, item // (n * POCKETS * RAILS))
            target = item // (POCKETS * RAILS) % n
            obj = ball_at(pos, tid, target)
            line = kick_line(obj, item // RAILS % POCKETS, item % RAILS, mouths, rail_axis, rail_coord, g)
            kick_phi[tid, i] = phi_of(unit(line.image - start))
            first_leg = wp.length(line.image - start)
            kick_speed[tid, i] = wp.clamp(F(2.5) + F(1.5) * (first_leg + line.length), F(2.5), F(6.5))
    empty_after(in_off_score, in_off_item, tid, in_offs)
    empty_after(double_score, double_item, tid, doubles)
    empty_after(kick_score, kick_item, tid, kicks)
    empty_after(safety_score, safety_item, tid, safeties)
