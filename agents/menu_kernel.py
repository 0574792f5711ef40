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
    keep_best,
    path_clear,
    pocket_room,
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


@wp.func
def threshold(scores: wp.array2d(dtype=F), tid: int, count: int) -> F:
    """The score a shot must beat to enter a full list (none while it fills)."""
    size = scores.shape[1]
    if count == size:
        return scores[tid, size - 1]
    return NO_SCORE


@wp.func
def in_off(
    pos: wp.array3d(dtype=F), tid: int, start: wp.vec2d, target: int, pocket: int, side: int,
    mouths: wp.array2d(dtype=F), noses: wp.array3d(dtype=F), nose_radius: wp.array(dtype=F), g: Geometry,
) -> wp.vec2d:  # fmt: skip
    """(score, phi) of the own ball at `start` potted off `target` into `pocket` (`menu` family "in-off").

    The score is -inf where the shot fails; the own ball's path is the caller's to test.
    """
    obj = ball_at(pos, tid, target)
    aim_at = wp.vec2d(mouths[pocket, 0], mouths[pocket, 1])
    d = unit(aim_at - obj)
    alpha = wp.acos(wp.clamp(F(-2.0) * g.R / wp.length(aim_at - obj), F(-1.0), F(1.0)))
    turn = alpha
    if side == 1:
        turn = -alpha
    c = wp.cos(turn)
    s = wp.sin(turn)
    n = wp.vec2d(c * d[0] - s * d[1], s * d[0] + c * d[1])
    ghost = obj - F(2.0) * g.R * n
    heading = unit(ghost - start)
    travel = wp.length(ghost - start)
    cos_cut = heading[0] * n[0] + heading[1] * n[1]
    tangent = heading - cos_cut * n
    leave = unit(aim_at - ghost)
    after = wp.length(aim_at - ghost)
    cut = wp.acos(wp.clamp(cos_cut, F(-1.0), F(1.0))) * DEGREES
    phi = phi_of(heading)
    if not (
        tangent[0] * leave[0] + tangent[1] * leave[1] > F(0.0)
        and pocket_room(leave, pocket, noses, nose_radius, g.reach) > F(0.0)
        and cut > F(15.0)
        and cut < g.max_cut_deg - F(10.0)
        and travel > F(2.0) * g.R
    ):
        return wp.vec2d(NO_SCORE, phi)
    return wp.vec2d(-(travel + after) - wp.abs(cut - F(45.0)) / F(45.0), phi)


@wp.func
def double(
    pos: wp.array3d(dtype=F), on: wp.array2d(dtype=wp.int32), tid: int, start: wp.vec2d, target: int,
    rail: int, pocket: int, mouths: wp.array2d(dtype=F), noses: wp.array3d(dtype=F),
    nose_radius: wp.array(dtype=F), rail_axis: wp.array(dtype=wp.int32), rail_coord: wp.array(dtype=F),
    g: Geometry, bar: F,
) -> wp.vec3d:  # fmt: skip
    """(score, phi, cue speed) of `target` off cushion `rail` into `pocket` (family "double").

    The score is -inf where the shot fails, or does not beat `bar` before the object
    ball's paths are tested; the own ball's path is the caller's to test.
    """
    obj = ball_at(pos, tid, target)
    aim_at = wp.vec2d(mouths[pocket, 0], mouths[pocket, 1])
    image = mirrored(aim_at, rail_axis[rail], rail_coord[rail])
    to_image = unit(image - obj)
    path = wp.length(image - obj)
    hit3 = bounce(obj, image, rail_axis[rail], rail_coord[rail], mouths, g)
    hit = wp.vec2d(hit3[0], hit3[1])
    ghost = obj - F(2.0) * g.R * to_image
    heading = unit(ghost - start)
    travel = wp.length(ghost - start)
    cut = wp.acos(wp.clamp(heading[0] * to_image[0] + heading[1] * to_image[1], F(-1.0), F(1.0))) * DEGREES
    phi = phi_of(heading)
    speed = wp.clamp(F(2.0) + F(1.5) * (travel + path), F(2.0), F(6.0))
    if not (
        hit3[2] != F(0.0)
        and pocket_room(unit(aim_at - hit), pocket, noses, nose_radius, g.reach) > F(0.0)
        and cut < g.max_cut_deg - F(20.0)
        and travel > F(2.0) * g.R
    ):
        return wp.vec3d(NO_SCORE, phi, speed)
    score = -(travel + path) - cut / F(30.0)
    R2 = F(2.0) * g.R
    if not (
        score > bar
        and path_clear(pos, on, tid, obj, hit, R2, target, target)
        and path_clear(pos, on, tid, hit, aim_at, R2, target, target)
    ):
        return wp.vec3d(NO_SCORE, phi, speed)
    return wp.vec3d(score, phi, speed)


@wp.func
def kick(
    pos: wp.array3d(dtype=F), on: wp.array2d(dtype=wp.int32), tid: int, start: wp.vec2d, target: int,
    pocket: int, rail: int, mouths: wp.array2d(dtype=F), noses: wp.array3d(dtype=F),
    nose_radius: wp.array(dtype=F), rail_axis: wp.array(dtype=wp.int32), rail_coord: wp.array(dtype=F),
    g: Geometry, bar: F,
) -> wp.vec3d:  # fmt: skip
    """(score, phi, cue speed) of the own ball off cushion `rail` onto a pot's ghost ball ("kick").

    The score is -inf where the shot fails, or does not beat `bar` before the object
    ball's path is tested.
    """
    obj = ball_at(pos, tid, target)
    aim_at = wp.vec2d(mouths[pocket, 0], mouths[pocket, 1])
    to_target = unit(aim_at - obj)
    to_pocket = wp.length(aim_at - obj)
    ghost = obj - F(2.0) * g.R * to_target
    image = mirrored(ghost, rail_axis[rail], rail_coord[rail])
    hit3 = bounce(start, image, rail_axis[rail], rail_coord[rail], mouths, g)
    heading = unit(image - start)
    first_leg = wp.length(image - start)
    arrive = unit(ghost - wp.vec2d(hit3[0], hit3[1]))
    cut = wp.acos(wp.clamp(arrive[0] * to_target[0] + arrive[1] * to_target[1], F(-1.0), F(1.0))) * DEGREES
    phi = phi_of(heading)
    speed = wp.clamp(F(2.5) + F(1.5) * (first_leg + to_pocket), F(2.5), F(6.5))
    if not (
        hit3[2] != F(0.0)
        and pocket_room(to_target, pocket, noses, nose_radius, g.reach) > F(0.0)
        and cut < g.max_cut_deg - F(30.0)
    ):
        return wp.vec3d(NO_SCORE, phi, speed)
    score = -first_leg - to_pocket - cut / F(30.0)
    if not (score > bar and path_clear(pos, on, tid, obj, aim_at, F(2.0) * g.R, target, target)):
        return wp.vec3d(NO_SCORE, phi, speed)
    return wp.vec3d(score, phi, speed)


@wp.func
def own_start(own_xy: wp.array3d(dtype=F), tid: int, own: int) -> wp.vec2d:
    return wp.vec2d(own_xy[tid, own, 0], own_xy[tid, own, 1])


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
    have one unused slot).
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
        for own in range(n):
            start = own_start(own_xy, tid, own)
            for target in range(n):
                if pairs[tid, own, target] == 0:
                    continue
                pair = own * n + target
                obj = ball_at(pos, tid, target)
                clear = path_clear(pos, on, tid, start, obj, R2, own, target)
                cost = wp.length(obj - start)
                if not clear:
                    cost = cost + g.blocked_cost
                size = safety_score.shape[1]
                safeties = keep_best(safety_score, safety_item, tid, safeties, size, -cost, pair)
                for pocket in range(POCKETS):
                    for side in range(SIDES):
                        if clear and in_offs_allowed[tid] != 0 and planning[0] != 0:
                            shot2 = in_off(
                                pos, tid, start, target, pocket, side, mouths, noses, nose_radius, g
                            )
                            if shot2[0] > NO_SCORE:
                                item = (pair * POCKETS + pocket) * SIDES + side
                                size = in_off_score.shape[1]
                                in_offs = keep_best(
                                    in_off_score, in_off_item, tid, in_offs, size, shot2[0], item
                                )
                for rail in range(RAILS):
                    for pocket in range(POCKETS):
                        if clear and planning[1] != 0:
                            bar = threshold(double_score, tid, doubles)
                            shot = double(
                                pos, on, tid, start, target, rail, pocket, mouths, noses, nose_radius,
                                rail_axis, rail_coord, g, bar,
                            )  # fmt: skip
                            if shot[0] > NO_SCORE:
                                item = (pair * RAILS + rail) * POCKETS + pocket
                                size = double_score.shape[1]
                                doubles = keep_best(
                                    double_score, double_item, tid, doubles, size, shot[0], item
                                )
                for pocket in range(POCKETS):
                    for rail in range(RAILS):
                        if planning[2] != 0:
                            bar = threshold(kick_score, tid, kicks)
                            shot = kick(
                                pos, on, tid, start, target, pocket, rail, mouths, noses, nose_radius,
                                rail_axis, rail_coord, g, bar,
                            )  # fmt: skip
                            if shot[0] > NO_SCORE:
                                item = (pair * POCKETS + pocket) * RAILS + rail
                                size = kick_score.shape[1]
                                kicks = keep_best(kick_score, kick_item, tid, kicks, size, shot[0], item)
    # The aims and speeds of the kept shots, and empty slots after them.
    for i in range(in_off_score.shape[1]):
        in_off_phi[tid, i] = F(0.0)
        if i < in_offs:
            item = in_off_item[tid, i]
            at = own_start(own_xy, tid, item // (n * POCKETS * SIDES))
            target = item // (POCKETS * SIDES) % n
            pocket = item // SIDES % POCKETS
            in_off_phi[tid, i] = in_off(
                pos, tid, at, target, pocket, item % SIDES, mouths, noses, nose_radius, g
            )[1]
        else:
            in_off_item[tid, i] = -1
            in_off_score[tid, i] = NO_SCORE
    for i in range(double_score.shape[1]):
        double_phi[tid, i] = F(0.0)
        double_speed[tid, i] = F(0.0)
        if i < doubles:
            item = double_item[tid, i]
            at = own_start(own_xy, tid, item // (n * RAILS * POCKETS))
            target = item // (RAILS * POCKETS) % n
            shot = double(
                pos, on, tid, at, target, item // POCKETS % RAILS, item % POCKETS, mouths, noses, nose_radius,
                rail_axis, rail_coord, g, NO_SCORE,
            )  # fmt: skip
            double_phi[tid, i] = shot[1]
            double_speed[tid, i] = shot[2]
        else:
            double_item[tid, i] = -1
            double_score[tid, i] = NO_SCORE
    for i in range(kick_score.shape[1]):
        kick_phi[tid, i] = F(0.0)
        kick_speed[tid, i] = F(0.0)
        if i < kicks:
            item = kick_item[tid, i]
            at = own_start(own_xy, tid, item // (n * POCKETS * RAILS))
            target = item // (POCKETS * RAILS) % n
            shot = kick(
                pos, on, tid, at, target, item // RAILS % POCKETS, item % RAILS, mouths, noses, nose_radius,
                rail_axis, rail_coord, g, NO_SCORE,
            )  # fmt: skip
            kick_phi[tid, i] = shot[1]
            kick_speed[tid, i] = shot[2]
        else:
            kick_item[tid, i] = -1
            kick_score[tid, i] = NO_SCORE
    for i in range(safeties, safety_score.shape[1]):
        safety_item[tid, i] = -1
        safety_score[tid, i] = NO_SCORE
