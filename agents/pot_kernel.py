"""The ghost-ball pot planner as one Warp kernel: a thread a table, as cheap as a shot.

`agents.candidates` plans pots in three steps per table: every (own ball, object ball,
pocket) of the 16 x 16 x 6 is aimed plainly and judged loosely (`THROW_SLACK`); the best
`preselect` are aimed with the throw correction and judged exactly; the best `k` are
kept. In XLA that is 1,536 shots times 16 balls of path tests a table whatever the
position (about 0.5 ms a table on this project's CPU, more than a shot of the kernel).
Here each thread walks its table's shots with early exits: the rules' pairs, the object
ball's path (tested once per object ball and pocket), the pocket's mouth, the cut; and
the own ball's path only for a shot whose score would enter the preselection. The
arithmetic is `candidates`' own, term for term, in float64; `tests/agents/
test_pot_kernel.py` holds the two to the same lists on recorded positions.
"""

from __future__ import annotations

import math

import warp as wp

from piramida.physics.engine.collide import collide
from piramida.physics.engine.motion import Params

F = wp.float64
BALLS = 16
POCKETS = 6
# The layout of `constants` (float64) and `options` (int32); `candidates` packs them.
CONSTANTS = (
    "R", "width", "length", "reach", "arrival", "tip", "min_speed", "max_speed",
    "ball_R", "m", "cue_mass", "u_s", "u_r", "g", "e_b", "u_b",
    "slack", "max_cut_deg", "min_travel",
    "house_below", "temporary_above", "contact_tolerance", "hand_distance_cost",
)  # fmt: skip
# Regions of a ball in hand (`rules.ids`), as the kernel receives them.
HOUSE = wp.constant(0)
TEMPORARY_HOUSE = wp.constant(1)
OPTIONS = ("frictionless", "alciatore")
DEGREES = wp.constant(F(180.0 / math.pi))
RADIANS = wp.constant(F(math.pi / 180.0))
TINY = wp.constant(F(1e-12))
NO_SCORE = wp.constant(F(-math.inf))


@wp.struct
class Plan:
    """The constants a table's planning reads (`CONSTANTS`), and the collision law's (`Params`)."""

    R: F
    width: F
    length: F
    reach: F
    arrival: F
    tip: F
    min_speed: F
    max_speed: F
    m: F
    cue_mass: F
    slack: F
    max_cut_deg: F
    min_travel: F
    house_below: F  # a centre in the house lies below this y (the house line less A-25's tolerance)
    temporary_above: F  # and in the temporary house above this one (G21.2)
    contact_tolerance: F
    hand_distance_cost: F
    physics: Params


@wp.func
def unpack(constants: wp.array(dtype=F), options: wp.array(dtype=wp.int32)) -> Plan:
    """The `Plan` from the packed inputs (order: CONSTANTS, OPTIONS)."""
    q = Plan()
    q.R = constants[0]
    q.width = constants[1]
    q.length = constants[2]
    q.reach = constants[3]
    q.arrival = constants[4]
    q.tip = constants[5]
    q.min_speed = constants[6]
    q.max_speed = constants[7]
    p = Params()
    p.R = constants[8]
    p.m = constants[9]
    q.m = constants[9]
    q.cue_mass = constants[10]
    p.u_s = constants[11]
    p.u_r = constants[12]
    p.g = constants[13]
    p.e_b = constants[14]
    p.u_b = constants[15]
    q.slack = constants[16]
    q.max_cut_deg = constants[17]
    q.min_travel = constants[18]
    q.house_below = constants[19]
    q.temporary_above = constants[20]
    q.contact_tolerance = constants[21]
    q.hand_distance_cost = constants[22]
    p.frictionless = options[0] == 1
    p.alciatore = options[1] == 1
    q.physics = p
    return q


@wp.func
def signum(x: F) -> F:
    """-1, 0 or 1 (`jnp.sign`; Warp's `sign` gives 1 at 0)."""
    if x > F(0.0):
        return F(1.0)
    if x < F(0.0):
        return F(-1.0)
    return F(0.0)


@wp.func
def unit(u: wp.vec2d) -> wp.vec2d:
    """U over its length (at least 1e-12), as `candidates.unit`."""
    return u / wp.max(wp.length(u), TINY)


@wp.func
def cut_of(heading: wp.vec2d, n: wp.vec2d) -> F:
    """The angle (radians) between the own ball's path and the line of centres."""
    return wp.acos(wp.clamp(wp.dot(heading, n), F(-1.0), F(1.0)))


@wp.func
def near_segment(p: wp.vec2d, a: wp.vec2d, b: wp.vec2d, reach: F) -> wp.bool:
    """Point p within `reach` of the segment a-b (`candidates.near_segment`'s arithmetic)."""
    ux = p[0] - a[0]
    uy = p[1] - a[1]
    abx = b[0] - a[0]
    aby = b[1] - a[1]
    along = ux * abx + uy * aby
    length2 = abx * abx + aby * aby
    r2 = reach * reach
    if along <= F(0.0):
        return ux * ux + uy * uy < r2
    if along >= length2:
        bx = p[0] - b[0]
        by = p[1] - b[1]
        return bx * bx + by * by < r2
    return (ux * ux + uy * uy) * length2 - along * along < r2 * length2


@wp.func
def cue_speed(travel: F, to_pocket: F, cut: F, q: Plan) -> F:
    """The power rule (`candidates.cue_speed`)."""
    a_r = q.physics.u_r * q.physics.g
    obj = F(1.4) * wp.sqrt(q.arrival * q.arrival + F(2.0) * a_r * to_pocket)
    at_contact = obj / (F(0.5) * (F(1.0) + q.physics.e_b) * wp.max(wp.cos(cut), F(0.1)))
    ball = F(1.4) * wp.sqrt(at_contact * at_contact + F(2.0) * a_r * travel)
    cue = F(0.5) * ball * (F(1.0) + q.m / q.cue_mass + F(2.5) * q.tip * q.tip)
    return wp.clamp(cue, q.min_speed, q.max_speed)


@wp.func
def arrival(speed: F, distance: F, q: Plan) -> wp.vec2d:
    """The own ball's (speed, R w) after `distance` (`candidates.arrival`, with b = the tip)."""
    a_s = q.physics.u_s * q.physics.g
    a_r = q.physics.u_r * q.physics.g
    b = q.tip
    v0 = F(2.0) * speed / (F(1.0) + q.m / q.cue_mass + F(2.5) * b * b)
    rw0 = F(2.5) * b * v0
    slip = v0 - rw0
    sign = signum(slip)
    t_roll = wp.abs(slip) / (F(3.5) * a_s)
    d_roll = v0 * t_roll - F(0.5) * sign * a_s * (t_roll * t_roll)
    if distance < d_roll:
        disc = wp.max(v0 * v0 - F(2.0) * sign * a_s * distance, F(0.0))
        t = F(0.0)
        if sign != F(0.0):
            t = (v0 - wp.sqrt(disc)) / (sign * a_s)
        return wp.vec2d(v0 - sign * a_s * t, rw0 + F(2.5) * sign * a_s * t)
    v_roll = v0 - sign * a_s * t_roll
    v_rolled = wp.sqrt(wp.max(v_roll * v_roll - F(2.0) * a_r * (distance - d_roll), F(0.0)))
    return wp.vec2d(v_rolled, v_rolled)


@wp.func
def throw(v: F, rw: F, cut: F, p: Params) -> F:
    """How far (radians) the collision law turns the object ball off the line of centres."""
    zero = F(0.0)
    heading = wp.vec2d(wp.cos(cut), wp.sin(cut))
    spin = rw / p.R * wp.vec3d(-wp.sin(cut), wp.cos(cut), zero)
    origin = wp.vec2d(zero, zero)
    still = wp.vec3d(zero, zero, zero)
    after = collide(origin, v * heading, spin, wp.vec2d(F(2.0) * p.R, zero), origin, still, p)
    out = after[2]
    return wp.atan2(out[1], wp.max(out[0], TINY))


@wp.func
def rotate(u: wp.vec2d, angle: F) -> wp.vec2d:
    c = wp.cos(angle)
    s = wp.sin(angle)
    return wp.vec2d(c * u[0] - s * u[1], s * u[0] + c * u[1])


@wp.func
def corrected_line(own: wp.vec2d, obj: wp.vec2d, to_target: wp.vec2d, to_pocket: F, q: Plan) -> wp.vec2d:
    """The line of centres that sends the object ball to its target despite throw (`candidates.aim`)."""
    n = to_target
    for _ in range(3):  # THROW_ITERATIONS
        ghost = obj - F(2.0) * q.R * n
        heading = unit(ghost - own)
        travel = wp.length(ghost - own)
        cut = cut_of(heading, n)
        state = arrival(cue_speed(travel, to_pocket, cut, q), travel, q)
        side = signum(n[0] * heading[1] - n[1] * heading[0])
        n = rotate(to_target, -side * throw(state[0], state[1], cut, q.physics))
    return n


@wp.func
def pocket_room(
    to_target: wp.vec2d, pocket: int, noses: wp.array3d(dtype=F), nose_radius: wp.array(dtype=F), reach: F
) -> F:
    """Half the mouth's tolerance for a ball entering along `to_target` (`candidates.pocket_room`)."""
    across = wp.vec2d(-to_target[1], to_target[0])
    dx = noses[pocket, 0, 0] - noses[pocket, 1, 0]
    dy = noses[pocket, 0, 1] - noses[pocket, 1, 1]
    spread = wp.abs(dx * across[0] + dy * across[1])
    return F(0.5) * spread - nose_radius[pocket] - reach


@wp.func
def score_of(room: F, cut_deg: F, to_pocket: F, travel: F, q: Plan) -> F:
    """The ranking: log of the aim error the shot forgives (room in the mouth over both balls' levers)."""
    cos_cut = wp.cos(wp.min(cut_deg, q.max_cut_deg) * RADIANS)
    return (
        wp.log(wp.max(room, F(1e-6)))
        + wp.log(wp.max(cos_cut, F(1e-6)))
        - wp.log(wp.max(to_pocket, F(0.05)))
        - wp.log(wp.max(travel, F(0.05)))
    )


@wp.func
def on_bed(ghost: wp.vec2d, slack: F, q: Plan) -> wp.bool:
    """The ghost ball fits on the bed (a ball frozen to a cushion rests a little under R from it)."""
    lo = q.reach - slack
    return (
        ghost[0] >= lo
        and ghost[0] <= q.width - q.reach + slack
        and ghost[1] >= lo
        and ghost[1] <= q.length - q.reach + slack
    )


@wp.func
def path_clear(
    pos: wp.array3d(dtype=F), on: wp.array2d(dtype=wp.int32), tid: int, a: wp.vec2d, b: wp.vec2d,
    reach: F, own: int, target: int,
) -> wp.bool:  # fmt: skip
    """No ball on the table but `own` and `target` within `reach` of the segment a-b."""
    for j in range(pos.shape[1]):
        ball = wp.vec2d(pos[tid, j, 0], pos[tid, j, 1])
        if on[tid, j] != 0 and j != own and j != target and near_segment(ball, a, b, reach):
            return False
    return True


@wp.func
def object_blockers(
    pos: wp.array3d(dtype=F), on: wp.array2d(dtype=wp.int32), tid: int, a: wp.vec2d, b: wp.vec2d,
    reach: F, target: int,
) -> wp.vec2i:  # fmt: skip
    """The balls but `target` within `reach` of a-b: (1, -1) none, (2, ball) one, (0, -1) more."""
    found = wp.int32(-1)
    for j in range(pos.shape[1]):
        ball = wp.vec2d(pos[tid, j, 0], pos[tid, j, 1])
        if on[tid, j] != 0 and j != target and near_segment(ball, a, b, reach):
            if found >= 0:
                return wp.vec2i(0, -1)
            found = j
    if found >= 0:
        return wp.vec2i(2, found)
    return wp.vec2i(1, -1)


@wp.func
def placement_ok(
    xy: wp.vec2d, region: int, pos: wp.array3d(dtype=F), on: wp.array2d(dtype=wp.int32), tid: int, q: Plan
) -> wp.bool:
    """The own ball may stand at `xy` (`rules.placement.placement_ok`: region, cloth, a gap to every ball)."""
    if region == HOUSE and not (xy[1] < q.house_below):
        return False
    if region == TEMPORARY_HOUSE and not (xy[1] > q.temporary_above):
        return False
    if not (xy[0] >= q.R and xy[0] <= q.width - q.R and xy[1] >= q.R and xy[1] <= q.length - q.R):
        return False
    for j in range(pos.shape[1]):
        if on[tid, j] != 0:
            gap = wp.length(xy - wp.vec2d(pos[tid, j, 0], pos[tid, j, 1])) - F(2.0) * q.R
            if not (gap > q.contact_tolerance):
                return False
    return True


@wp.func
def hand_place(
    pos: wp.array3d(dtype=F), on: wp.array2d(dtype=wp.int32), tid: int, target: int, aim_at: wp.vec2d,
    region: int, box: wp.array2d(dtype=F), steps: wp.array(dtype=F), q: Plan,
) -> wp.vec3d:  # fmt: skip
    """Where to place the own ball from hand to pot `target` at `aim_at`: (x, y, 1), or (0, 0, 0) if nowhere.

    The search of a player placing a ball in hand: points on the pocket -> object line behind the
    ghost (`steps` m from it), clamped into the region's box (x_lo, x_hi, y_lo, y_hi); the
    legal one with a clear path to the ghost and the smallest cut (plus a little for
    distance) wins.
    """
    obj = wp.vec2d(pos[tid, target, 0], pos[tid, target, 1])
    back = unit(obj - aim_at)
    ghost = obj + F(2.0) * q.R * back
    x_lo = box[tid, 0]
    x_hi = box[tid, 1]
    y_lo = box[tid, 2]
    y_hi = box[tid, 3]
    margin = F(1e-6) * (y_hi - y_lo)
    best = wp.vec3d(F(0.0), F(0.0), F(0.0))
    best_cost = -NO_SCORE
    for i in range(steps.shape[0]):
        raw = ghost + steps[i] * back
        point = wp.vec2d(wp.clamp(raw[0], x_lo, x_hi), wp.clamp(raw[1], y_lo + margin, y_hi - margin))
        legal = placement_ok(point, region, pos, on, tid, q)
        if legal and path_clear(pos, on, tid, point, ghost, F(2.0) * q.R, target, target):
            heading = unit(ghost - point)
            cost = cut_of(heading, -back) * DEGREES + q.hand_distance_cost * wp.length(ghost - point)
            if cost < best_cost:
                best_cost = cost
                best = wp.vec3d(point[0], point[1], F(1.0))
    return best


@wp.func
def better(score: F, item: int, than_score: F, than_item: int) -> wp.bool:
    """(score, item) ranks before (than_score, than_item): a larger score, or as large and a lower item."""
    return score > than_score or (score == than_score and item < than_item)


@wp.func
def keep_best(
    scores: wp.array2d(dtype=F), items: wp.array2d(dtype=wp.int32), tid: int, count: int, size: int,
    score: F, item: int,
) -> int:  # fmt: skip
    """Insert (score, item) into a table's list of the `size` best, best first: the new count.

    Ties rank by item as `lax.top_k` ranks them by index, whatever order the items come in.
    """
    at = count
    kept = count
    if count == size:
        if not better(score, item, scores[tid, size - 1], items[tid, size - 1]):
            return count
        at = size - 1
    else:
        kept = count + 1
    while at > 0:
        if not better(score, item, scores[tid, at - 1], items[tid, at - 1]):
            break
        scores[tid, at] = scores[tid, at - 1]
        items[tid, at] = items[tid, at - 1]
        at -= 1
    scores[tid, at] = score
    items[tid, at] = item
    return kept


@wp.func
def threshold(scores: wp.array2d(dtype=F), tid: int, count: int) -> F:
    """The score a shot must beat to enter a full list (none while it fills)."""
    size = scores.shape[1]
    if count == size:
        return scores[tid, size - 1]
    return NO_SCORE


@wp.func
def empty_after(scores: wp.array2d(dtype=F), items: wp.array2d(dtype=wp.int32), tid: int, count: int):
    """The list's slots past its `count` shots: no item (-1) and no score."""
    for i in range(count, scores.shape[1]):
        items[tid, i] = -1
        scores[tid, i] = NO_SCORE


@wp.func
def own_start(
    pos: wp.array3d(dtype=F), on: wp.array2d(dtype=wp.int32), tid: int, own: int, target: int,
    aim_at: wp.vec2d, from_hand: wp.array2d(dtype=wp.int32), region: wp.array(dtype=wp.int32),
    box: wp.array2d(dtype=F), fallback: wp.array2d(dtype=F), steps: wp.array(dtype=F), q: Plan,
) -> wp.vec3d:  # fmt: skip
    """Where the own ball starts: (x, y, 1), or (x, y, 0) when a ball in hand has no legal place.

    Its spot on the table; from hand, `hand_place`, or where no point of its line is
    legal and clear, the default policy's place (`fallback`, NaN where there is none).
    """
    if from_hand[tid, own] == 0:
        return wp.vec3d(pos[tid, own, 0], pos[tid, own, 1], F(1.0))
    found = hand_place(pos, on, tid, target, aim_at, region[tid], box, steps, q)
    if found[2] != F(0.0):
        return found
    x = fallback[tid, 0]
    y = fallback[tid, 1]
    if wp.isfinite(x) and wp.isfinite(y):
        return wp.vec3d(x, y, F(1.0))
    return wp.vec3d(x, y, F(0.0))


@wp.kernel
def plan_pots(
    pos: wp.array3d(dtype=F),
    on: wp.array2d(dtype=wp.int32),
    pairs: wp.array3d(dtype=wp.int32),
    from_hand: wp.array2d(dtype=wp.int32),
    region: wp.array(dtype=wp.int32),
    box: wp.array2d(dtype=F),
    fallback: wp.array2d(dtype=F),
    skip: wp.array(dtype=wp.int32),
    constants: wp.array(dtype=F),
    options: wp.array(dtype=wp.int32),
    mouths: wp.array2d(dtype=F),
    noses: wp.array3d(dtype=F),
    nose_radius: wp.array(dtype=F),
    steps: wp.array(dtype=F),
    rough_score: wp.array2d(dtype=F),
    rough_item: wp.array2d(dtype=wp.int32),
    exact_phi: wp.array2d(dtype=F),
    exact_cut: wp.array2d(dtype=F),
    exact_travel: wp.array2d(dtype=F),
    exact_speed: wp.array2d(dtype=F),
    exact_x: wp.array2d(dtype=F),
    exact_y: wp.array2d(dtype=F),
    best: wp.array2d(dtype=wp.int32),
    best_score: wp.array2d(dtype=F),
):
    """Table `tid`'s `k` best pots (`best`: positions in the preselection, `rough_item`).

    The preselection (`rough_*`, its size the preselection's) holds the best plainly
    aimed shots as flat indices own * 96 + target * 6 + pocket; `exact_*` each one's
    throw-corrected aim and its start; `best` (its size k) the k best of those by exact score.
    """
    tid = wp.tid()
    q = unpack(constants, options)
    n = pos.shape[1]
    size = rough_score.shape[1]
    k = best.shape[1]
    R2 = F(2.0) * q.R
    slack_deg = q.slack / R2 * DEGREES
    count = wp.int32(0)
    if skip[tid] == 0:
        for target in range(n):
            obj = wp.vec2d(pos[tid, target, 0], pos[tid, target, 1])
            for pocket in range(POCKETS):
                # What the object ball's side of the shot decides, the same for every own ball.
                aim_at = wp.vec2d(mouths[pocket, 0], mouths[pocket, 1])
                to_target = unit(aim_at - obj)
                room = pocket_room(to_target, pocket, noses, nose_radius, q.reach)
                ghost = obj - R2 * to_target
                if not (room > F(0.0) and on_bed(ghost, q.slack, q)):
                    continue
                to_pocket = wp.length(aim_at - obj)
                room_term = wp.log(wp.max(room, F(1e-6)))
                lever_term = wp.log(wp.max(to_pocket, F(0.05)))
                object_path = wp.int32(-1)  # not tested yet; then `object_blockers`' verdict
                blocker = wp.int32(-1)
                for own in range(n):
                    if pairs[tid, own, target] == 0:
                        continue
                    item = (own * n + target) * POCKETS + pocket
                    start = own_start(
                        pos, on, tid, own, target, aim_at, from_hand, region, box, fallback, steps, q
                    )
                    at = wp.vec2d(start[0], start[1])
                    travel = wp.length(ghost - at)
                    # The score is at most its terms without the cut's (log cos <= 0): skip a
                    # shot that could not enter the full list before its arccos and logs.
                    bound = room_term - lever_term - wp.log(wp.max(travel, F(0.05))) + F(1e-9)
                    if start[2] == F(0.0) or bound < threshold(rough_score, tid, count):
                        continue
                    cut_deg = cut_of(unit(ghost - at), to_target) * DEGREES
                    if not (cut_deg < q.max_cut_deg + slack_deg and travel > q.min_travel - q.slack):
                        continue
                    cos_cut = wp.cos(wp.min(cut_deg, q.max_cut_deg) * RADIANS)
                    score = (
                        room_term
                        + wp.log(wp.max(cos_cut, F(1e-6)))
                        - lever_term
                        - wp.log(wp.max(travel, F(0.05)))
                    )
                    if count == size and not better(
                        score, item, rough_score[tid, size - 1], rough_item[tid, size - 1]
                    ):
                        continue
                    if object_path == -1:
                        verdict = object_blockers(pos, on, tid, obj, aim_at, R2, target)
                        object_path = verdict[0]
                        blocker = verdict[1]
                    # Clear but for the own ball itself, which moves out of the way first.
                    clear = object_path == 1 or (object_path == 2 and blocker == own)
                    if clear and path_clear(pos, on, tid, at, ghost, R2 - q.slack, own, target):
                        count = keep_best(rough_score, rough_item, tid, count, size, score, item)
    for i in range(count, size):  # slots past the last shot: an empty, harmless placeholder
        rough_score[tid, i] = NO_SCORE
        rough_item[tid, i] = 0
        exact_phi[tid, i] = F(0.0)
        exact_cut[tid, i] = F(0.0)
        exact_travel[tid, i] = F(0.0)
        exact_speed[tid, i] = F(0.0)
        exact_x[tid, i] = F(0.0)
        exact_y[tid, i] = F(0.0)
    # The preselection, aimed with the throw correction and judged exactly.
    kept = wp.int32(0)
    for i in range(count):
        item = rough_item[tid, i]
        own = item // (n * POCKETS)
        target = (item // POCKETS) % n
        pocket = item % POCKETS
        aim_at = wp.vec2d(mouths[pocket, 0], mouths[pocket, 1])
        obj = wp.vec2d(pos[tid, target, 0], pos[tid, target, 1])
        start = own_start(pos, on, tid, own, target, aim_at, from_hand, region, box, fallback, steps, q)
        allowed = pairs[tid, own, target] != 0 and start[2] != F(0.0)
        to_target = unit(aim_at - obj)
        to_pocket = wp.length(aim_at - obj)
        at = wp.vec2d(start[0], start[1])
        line = corrected_line(at, obj, to_target, to_pocket, q)
        ghost = obj - R2 * line
        heading = unit(ghost - at)
        travel = wp.length(ghost - at)
        cut = cut_of(heading, line)
        phi = wp.atan2(heading[1], heading[0]) * DEGREES
        if phi < F(0.0):
            phi = phi + F(360.0)
        cut_deg = cut * DEGREES
        room = pocket_room(to_target, pocket, noses, nose_radius, q.reach)
        score = NO_SCORE
        if (
            allowed
            and room > F(0.0)
            and on_bed(ghost, F(0.0), q)
            and cut_deg < q.max_cut_deg
            and travel > q.min_travel
            and path_clear(pos, on, tid, at, ghost, R2, own, target)
            and path_clear(pos, on, tid, obj, aim_at, R2, own, target)
        ):
            score = score_of(room, cut_deg, to_pocket, travel, q)
        exact_phi[tid, i] = phi
        exact_cut[tid, i] = cut_deg
        exact_travel[tid, i] = travel
        exact_speed[tid, i] = cue_speed(travel, to_pocket, cut, q)
        exact_x[tid, i] = at[0]
        exact_y[tid, i] = at[1]
        kept = keep_best(best_score, best, tid, kept, k, score, i)
    empty_after(best_score, best, tid, kept)


@wp.func
def styled(q: Plan, arrival: F, tip: F) -> Plan:
    """`q` with another power rule's arrival speed and cue tip height (a menu's pot style)."""
    s = q
    s.arrival = arrival
    s.tip = tip
    return s


@wp.kernel
def aim_styles(
    own: wp.array3d(dtype=F),
    obj: wp.array3d(dtype=F),
    aim_at: wp.array3d(dtype=F),
    valid: wp.array2d(dtype=wp.int32),
    styles: wp.array2d(dtype=F),
    constants: wp.array(dtype=F),
    options: wp.array(dtype=wp.int32),
    phi: wp.array2d(dtype=F),
    speed: wp.array2d(dtype=F),
):
    """Table `tid`'s `k` pots, each aimed in every style: `candidates.aim`'s arithmetic in float64.

    `own`, `obj` and `aim_at` (k, 2) are each pot's own ball start, object ball and pocket
    aim point, `valid` (k,) whether it is a pot at all (an empty slot is never played: its
    aim is left 0); `styles` (S, 2) each style's arrival speed and tip height. The outputs
    (S * k) are style-major, as the menu lists its pots: the cue's aim (degrees in [0,
    360)) and its speed by the style's power rule.
    """
    tid = wp.tid()
    q = unpack(constants, options)
    k = own.shape[1]
    for style in range(styles.shape[0]):
        s = styled(q, styles[style, 0], styles[style, 1])
        for i in range(k):
            phi[tid, style * k + i] = F(0.0)
            speed[tid, style * k + i] = F(0.0)
            if valid[tid, i] == 0:
                continue
            at = wp.vec2d(own[tid, i, 0], own[tid, i, 1])
            ball = wp.vec2d(obj[tid, i, 0], obj[tid, i, 1])
            point = wp.vec2d(aim_at[tid, i, 0], aim_at[tid, i, 1])
            to_target = unit(point - ball)
            to_pocket = wp.length(point - ball)
            line = corrected_line(at, ball, to_target, to_pocket, s)
            ghost = ball - F(2.0) * s.R * line
            heading = unit(ghost - at)
            travel = wp.length(ghost - at)
            angle = wp.atan2(heading[1], heading[0]) * DEGREES
            if angle < F(0.0):
                angle = angle + F(360.0)
            phi[tid, style * k + i] = angle
            speed[tid, style * k + i] = cue_speed(travel, to_pocket, cut_of(heading, line), s)
