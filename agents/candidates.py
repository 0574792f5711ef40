"""Ghost-ball candidate shots: every (own ball, object ball, pocket) a player could pot, ranked.

A pot is planned the way a player plans it: the object ball must travel from its spot
to a point in the pocket's mouth, so the own ball must meet it at the "ghost ball", 2R
behind it on that line. Each candidate is checked for clear paths (own ball to ghost,
object ball to pocket), a cut angle a player can make, and a pocket the object ball can
enter from its direction, then ranked by how much aim error it forgives.

Plain ghost-ball aim misses cut shots: ball-ball friction throws the object ball off the
line of centres (about 1 degree on a rolling 30-degree cut, 3 degrees on a stunned one,
when a pyramid corner forgives about 0.2 degrees over a metre). The aim here is corrected
for throw with the kernel's own collision law (`physics.resolve.ball_ball.collide`)
applied to the own ball's state on arrival, which follows in closed form from the cloth
friction (Leckie & Greenspan's sliding-then-rolling motion); `benchmarks/greedy_cut_angles.py`
measures the pot rate by cut angle with and without the correction.

Everything is JAX over fixed shapes (16 own balls x 16 object balls x 6 pockets per
table), batched over tables and jittable; `candidates` keeps the best `k`.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp

from piramida.agents import pot_kernel
from piramida.physics import markings
from piramida.physics.kernel import contact_distance
from piramida.physics.params import PYRAMID_PARAMS, Models, PhysicsParams
from piramida.physics.resolve import ball_ball
from piramida.physics.table import Table
from piramida.physics.warp_call import TableKernel
from piramida.rules import ids, placement
from piramida.rules import state as st
from piramida.rules.setup import Setup, default_setup

N = ids.N_BALLS
POCKETS = 6
K = 64  # candidate slots kept by default
MAX_CUT_DEG = 80.0  # beyond this a cut is a graze: the contact point is too thin to judge
MIN_TRAVEL = 5e-3  # m: an own ball closer than this to its ghost would be a push, not a shot
THROW_ITERATIONS = 3  # fixed-point steps of the throw correction (the aim then moves < 1e-5 degree)
# How far (m) the throw correction can move a ghost ball: 2R sin(10 degrees), more than
# any throw of the kernel's collision law; the plain aim's rough judgement allows this much.
THROW_SLACK = 0.012
# Hand placement (G11.1, G21.2, DYN-5.2): points tried on the pocket -> object line
# extended behind the ghost, each clamped into the hand region (m from the ghost).
HAND_STEPS = (0.12, 0.2, 0.3, 0.45, 0.6, 0.8, 1.0, 1.3, 1.6, 2.0, 2.5, 3.2)
HAND_DISTANCE_COST = 2.0  # degrees of cut worth one metre of extra travel from hand
# Break (G11, G12.1): own-ball placements across the house (m from the long axis),
# each struck full at the pyramid's apex.
BREAK_OFFSETS = (0.0, -0.3, 0.3)
# `pot_kernel.plan_pots`'s outputs, in order: the preselection's, then the best k.
PLAN_OUTPUTS = (
    "rough_score", "rough_item", "exact_phi", "exact_cut", "exact_travel", "exact_speed",
    "exact_x", "exact_y", "best", "best_score",
)  # fmt: skip


@dataclass(frozen=True)
class PowerRule:
    """How hard to strike a candidate, from its distances and cut (static: hashable).

    The object ball should reach the pocket target rolling at `arrival` m/s; the speed
    it needs after the collision, and the own ball's before it, follow from the rolling
    resistance and the collision's restitution; the cue speed is then clipped to
    [`min_speed`, `max_speed`].

    Attributes:
      arrival: the object ball's speed at the pocket target (m/s).
      min_speed, max_speed: bounds of the cue speed (m/s).
      tip: the cue tip's vertical offset b (fraction of R) on every pot; 0 is a centre
        ball, which rolls by the time it meets an object ball a metre away.
      break_speed: cue speed of the break (m/s).
      safety_speed: cue speed of a safety (a full hit on the nearest object ball, m/s).

    """

    arrival: float = 0.6
    min_speed: float = 1.0
    max_speed: float = 7.0
    tip: float = 0.0
    break_speed: float = 8.0
    safety_speed: float = 3.0


@jax.tree_util.register_dataclass
@dataclass(frozen=True)
class Candidates:
    """The best `k` candidate shots per table, best first (fields (B, K); `place` (B, K, 2)).

    Attributes:
      valid: the slot holds a candidate (slots past the last one are False).
      own: the ball struck with the cue (G4.1).
      target: the object ball to pot (the Classic call's ball, CLS-5.2).
      pocket: the pocket (the Classic call's pocket).
      phi: cue aim in degrees, corrected for throw.
      cut: cut angle in degrees, between the own ball's path and the line of centres.
      distance: own ball to ghost plus object ball to pocket target (m).
      place: the own ball's position: its spot on the table, or where it is placed from
        hand (BREAK, IN_HAND).
      speed: cue speed from the power rule (m/s).
      b: the cue tip's vertical offset (fraction of R).
      score: the ranking, higher is better (log of the aim error the shot forgives).

    """

    valid: Any
    own: Any
    target: Any
    pocket: Any
    phi: Any
    cut: Any
    distance: Any
    place: Any
    speed: Any
    b: Any
    score: Any


# --- The physics a shot is planned with ------------------------------------------------


def arrival(speed: Any, b: Any, distance: Any, params: PhysicsParams = PYRAMID_PARAMS) -> tuple[Any, Any]:
    """The own ball's speed and forward roll R w when it has travelled `distance` (m).

    A cue of `speed` m/s striking the ball's vertical axis at height b R sends it off at
    v0 = 2 V / (1 + m/M + 5 b^2 / 2) with R w0 = 5 b v0 / 2 (`physics.strike`); it slides,
    the cloth's friction u_s g closing the slip v - R w at 7/2 u_s g, then rolls,
    slowed by u_r g (Leckie & Greenspan). A ball that stops short arrives at speed 0.
    Elementwise over arrays.
    """
    a_s = params.u_s * params.g
    a_r = params.u_r * params.g
    v0 = 2.0 * speed / (1.0 + params.m / params.cue_mass + 2.5 * b * b)
    rw0 = 2.5 * b * v0
    slip = v0 - rw0
    sign = jnp.sign(slip)
    t_roll = jnp.abs(slip) / (3.5 * a_s)
    d_roll = v0 * t_roll - 0.5 * sign * a_s * t_roll**2
    sliding = distance < d_roll
    # Still sliding: distance = v0 t - sign a_s t^2 / 2, the earlier root.
    disc = jnp.maximum(v0 * v0 - 2.0 * sign * a_s * distance, 0.0)
    t = jnp.where(sign == 0, 0.0, (v0 - jnp.sqrt(disc)) / jnp.where(sign == 0, 1.0, sign * a_s))
    v_slide = v0 - sign * a_s * t
    rw_slide = rw0 + 2.5 * sign * a_s * t
    # Rolling from d_roll on at v_roll, decelerating at a_r.
    v_roll = v0 - sign * a_s * t_roll
    v_rolled = jnp.sqrt(jnp.maximum(v_roll * v_roll - 2.0 * a_r * (distance - d_roll), 0.0))
    return jnp.where(sliding, v_slide, v_rolled), jnp.where(sliding, rw_slide, v_rolled)


def throw(
    speed: Any,
    roll: Any,
    cut: Any,
    params: PhysicsParams = PYRAMID_PARAMS,
    models: Models = Models(),  # noqa: B008 (frozen, hashable)
) -> Any:
    """Throw (radians, >= 0): how far the object ball leaves the line of centres.

    The own ball arrives at `speed` m/s with forward roll `roll` (R w, m/s) at a cut of
    `cut` radians; the kernel's collision law decides the object ball's direction, which
    is turned from the line of centres towards the own ball's side. Elementwise.
    """

    def one(v: Any, rw: Any, c: Any) -> Any:
        heading = jnp.stack([jnp.cos(c), jnp.sin(c)])
        spin = rw / params.R * jnp.stack([-jnp.sin(c), jnp.cos(c), 0.0])
        zero2, zero3 = jnp.zeros(2), jnp.zeros(3)
        contact = jnp.stack([2.0 * params.R, 0.0])
        _, _, out, _ = ball_ball.collide(zero2, v * heading, spin, contact, zero2, zero3, params, models)
        return jnp.arctan2(out[1], jnp.maximum(out[0], 1e-12))

    return jnp.vectorize(one)(speed, roll, cut)


def cue_speed(travel: Any, to_pocket: Any, cut: Any, rule: PowerRule, params: PhysicsParams) -> Any:
    """The power rule: the cue speed (m/s) that lets the object ball arrive at `rule.arrival`.

    Backwards from the pocket: a rolling ball keeps 5/7 of the speed it slid off with and
    loses v^2 at 2 u_r g per metre; the collision gives the object ball (1 + e_b)/2 cos(cut)
    of the own ball's speed. Elementwise; distances in m, cut in radians.
    """
    a_r = params.u_r * params.g
    obj = 1.4 * jnp.sqrt(rule.arrival**2 + 2.0 * a_r * to_pocket)
    at_contact = obj / (0.5 * (1.0 + params.e_b) * jnp.maximum(jnp.cos(cut), 0.1))
    ball = 1.4 * jnp.sqrt(at_contact**2 + 2.0 * a_r * travel)
    cue = 0.5 * ball * (1.0 + params.m / params.cue_mass + 2.5 * rule.tip**2)
    return jnp.clip(cue, rule.min_speed, rule.max_speed)


def _rotate(u: Any, angle: Any) -> Any:
    c, s = jnp.cos(angle), jnp.sin(angle)
    return jnp.stack([c * u[..., 0] - s * u[..., 1], s * u[..., 0] + c * u[..., 1]], axis=-1)


def unit(u: Any) -> tuple[Any, Any]:
    length = jnp.linalg.norm(u, axis=-1)
    return u / jnp.maximum(length, 1e-12)[..., None], length


def _cross(u: Any, v: Any) -> Any:
    return u[..., 0] * v[..., 1] - u[..., 1] * v[..., 0]


@jax.tree_util.register_dataclass
@dataclass(frozen=True)
class Aim:
    """A planned pot (elementwise arrays): the aim and what it was computed from.

    Attributes:
      phi: cue aim (degrees, in [0, 360)).
      cut: cut angle (degrees).
      travel: own ball to ghost (m).
      speed: cue speed from the power rule (m/s).
      ghost: (..., 2) where the own ball meets the object ball.

    """

    phi: Any
    cut: Any
    travel: Any
    speed: Any
    ghost: Any


def aim(
    own: Any,
    obj: Any,
    target: Any,
    R: Any,
    rule: PowerRule = PowerRule(),
    params: PhysicsParams = PYRAMID_PARAMS,
    models: Models = Models(),  # noqa: B008 (frozen, hashable)
    correct: bool = True,
) -> Aim:
    """Aim the own ball at `own` to send the object ball at `obj` to the point `target`.

    Ghost-ball aim, corrected for throw (`correct`): the line of centres n is turned from
    the object-to-target direction by minus the throw the collision would give, the
    throw recomputed from the corrected geometry `THROW_ITERATIONS` times (the speed, and
    so the friction, depend on the cut). Positions (..., 2), broadcast together.
    """
    to_target, to_pocket = unit(jnp.asarray(target) - obj)
    n = to_target
    for _ in range(THROW_ITERATIONS if correct else 0):
        ghost = obj - 2.0 * R * n
        heading, travel = unit(ghost - own)
        cut = jnp.arccos(jnp.clip(jnp.sum(heading * n, axis=-1), -1.0, 1.0))
        speed = cue_speed(travel, to_pocket, cut, rule, params)
        v, rw = arrival(speed, rule.tip, travel, params)
        side = jnp.sign(_cross(n, heading))
        n = _rotate(to_target, -side * throw(v, rw, cut, params, models))
    ghost = obj - 2.0 * R * n
    heading, travel = unit(ghost - own)
    cut = jnp.arccos(jnp.clip(jnp.sum(heading * n, axis=-1), -1.0, 1.0))
    phi = jnp.mod(jnp.degrees(jnp.arctan2(heading[..., 1], heading[..., 0])), 360.0)
    speed = cue_speed(travel, to_pocket, cut, rule, params)
    return Aim(phi=phi, cut=jnp.degrees(cut), travel=travel, speed=speed, ghost=ghost)


# --- Pockets ------------------------------------------------------------------------------


def pocket_mouths(table: Table) -> tuple[Any, Any, Any]:
    """Each pocket's two jaw-nose centres (6, 2, 2) and nose radii (6,), and its aim point (6, 2).

    The aim point is the midpoint of the two noses: whatever the object ball's direction,
    a centre line through it passes the two noses with equal room on either side.
    """
    pockets = jnp.arange(POCKETS)
    mine = table.arc_pocket[None, :] == pockets[:, None]  # (6, A)
    # The two noses of each pocket, in table order.
    first = jnp.argmax(mine, axis=1)
    second = mine.shape[1] - 1 - jnp.argmax(mine[:, ::-1], axis=1)
    noses = jnp.stack([table.arc_centre[first], table.arc_centre[second]], axis=1)
    return noses, table.arc_radius[first], jnp.mean(noses, axis=1)


def pocket_room(heading: Any, noses: Any, nose_radius: Any, reach: Any) -> Any:
    """Half the tolerance (m) of a ball entering each pocket along `heading` (..., 6, 2 unit vectors).

    The pocket takes the ball if its centre line passes both noses with room: the noses'
    spread across the line, less a nose radius and a ball's reach each side; negative
    where the ball does not fit from that direction.
    """
    across = jnp.stack([-heading[..., 1], heading[..., 0]], axis=-1)
    spread = jnp.abs(jnp.sum((noses[:, 0] - noses[:, 1]) * across, axis=-1))
    return 0.5 * spread - nose_radius - reach


def near_segment(p: Any, a: Any, b: Any, reach: Any) -> Any:
    """Whether points p (..., 2) lie within `reach` of segments a-b (..., 2), broadcast.

    In squared distances and by coordinates, with no root or division: the tables of every
    ball against every path are the dearest arrays of the menu and of the position value,
    and XLA's CPU code is slow on a trailing axis of 2.
    """
    ax, ay, bx, by = a[..., 0], a[..., 1], b[..., 0], b[..., 1]
    ux, uy = p[..., 0] - ax, p[..., 1] - ay
    abx, aby = bx - ax, by - ay
    along = ux * abx + uy * aby
    length2 = abx * abx + aby * aby
    to_a = ux * ux + uy * uy
    to_b = (p[..., 0] - bx) ** 2 + (p[..., 1] - by) ** 2
    r2 = reach * reach
    # Before a, past b, or beside the segment: |u|^2 - along^2 / length2 < r2, times length2.
    return jnp.where(
        along <= 0.0,
        to_a < r2,
        jnp.where(along >= length2, to_b < r2, to_a * length2 - along * along < r2 * length2),
    )


# --- Candidates ---------------------------------------------------------------------------


def fixed_own(state: st.GameState) -> Any:
    """The ball placed from hand (BREAK, IN_HAND), and the own ball outside Free: the coloured ball (G4.2)."""
    return jnp.where(state.own_ball >= 0, state.own_ball, ids.COLOURED)


def own_balls(state: st.GameState) -> Any:
    """(16,) the balls the player may strike with the cue on this shot (one table).

    G4.3, FREE-5.1: in Free after the break any ball on the table; otherwise the fixed own
    ball (G4.2), on the table, or in hand in the BREAK and IN_HAND phases (G11.2, G21).
    """
    balls = jnp.arange(N)
    placing = (state.phase == st.BREAK) | (state.phase == st.IN_HAND)
    fixed = fixed_own(state)
    any_own = (state.variant == ids.FREE) & (state.phase == st.NORMAL)
    return jnp.where(placing, balls == fixed, state.on_table & (any_own | (balls == fixed)))


def object_balls(state: st.GameState, dims: st.Dims = st.DEFAULT_DIMS) -> Any:
    """(16,) the balls the own ball may hit first: on the table, and from the house outside it.

    G21.2, A-24(a): on a shot from the house (or the temporary house) the first ball hit
    must lie outside it. The own ball itself is excluded by the caller (any ball may be
    the own ball in Free).
    """
    region = st.hand_region(state, dims)
    from_house = (state.phase == st.IN_HAND) & (region != ids.ANYWHERE)
    in_zone = placement.in_region(state.positions, region, dims.width, dims.length)
    return state.on_table & ~(from_house & in_zone)


def shot_pairs(state: st.GameState, dims: st.Dims = st.DEFAULT_DIMS) -> Any:
    """(16, 16) the (own ball, object ball) pairs the rules allow for the next shot (G4, G21.2)."""
    balls = jnp.arange(N)
    return own_balls(state)[:, None] & object_balls(state, dims)[None, :] & (balls[:, None] != balls[None, :])


def preselection(k: int) -> int:
    """How many plainly aimed shots get the throw correction when `k` are kept."""
    return min(N * N * POCKETS, max(4 * k, 32))


def _break_places(states: st.GameState, dims: st.Dims) -> Any:
    """(B, 3, 2) the coloured ball's places for the break: across the house (`BREAK_OFFSETS`).

    Each is the default policy's place nearest its point (G11.1), searched only on the
    tables in the BREAK phase (`placement.placements`).
    """
    W, L, R = dims.width, dims.length, dims.R
    breaking = states.phase == st.BREAK
    house = jnp.full(breaking.shape, ids.HOUSE, jnp.int32)
    natural = placement.natural_point(ids.HOUSE, W, L)
    places = [
        placement.placements(
            breaking,
            house,
            states.positions,
            states.on_table,
            jnp.broadcast_to(natural + jnp.asarray([offset, 0.0]), states.positions[:, 0].shape),
            W,
            L,
            R,
        )
        for offset in BREAK_OFFSETS
    ]
    return jnp.stack(places, axis=1)


def _break_candidates(state: st.GameState, place: Any, k: int, rule: PowerRule, mouth_aim: Any) -> Candidates:
    """Break shots (G11, G12.1): the coloured ball placed at `place` (3, 2) in the house, full at the apex.

    The apex is the racked ball nearest the house. The (target, pocket) slot holds the
    Classic call the break needs (CLS-5.2, A-33): the racked ball nearest a back corner
    pocket, and that pocket.
    """
    pos, on = state.positions, state.on_table
    apex = jnp.argmin(jnp.where(on, pos[:, 1], jnp.inf))
    heading, travel = unit(pos[apex] - place)
    phi = jnp.mod(jnp.degrees(jnp.arctan2(heading[:, 1], heading[:, 0])), 360.0)
    back = jnp.asarray([4, 5])  # BACK_LEFT, BACK_RIGHT
    gaps = jnp.linalg.norm(pos[:, None, :] - mouth_aim[back][None], axis=-1)
    gaps = jnp.where(on[:, None], gaps, jnp.inf)
    call = jnp.argmin(gaps.ravel())
    m = len(BREAK_OFFSETS)

    def pad(x: Any, fill: Any) -> Any:
        """The m break shots, then empty slots up to k."""
        x = jnp.asarray(x)
        return jnp.concatenate([x, jnp.full((max(k - m, 0), *x.shape[1:]), fill, x.dtype)])[:k]

    return Candidates(
        valid=pad(jnp.all(jnp.isfinite(place), axis=-1) & jnp.any(on), False),
        own=pad(jnp.full(m, ids.COLOURED, jnp.int32), 0),
        target=pad(jnp.full(m, call // 2, jnp.int32), 0),
        pocket=pad(jnp.full(m, back[call % 2], jnp.int32), 0),
        phi=pad(phi, 0.0),
        cut=pad(jnp.zeros(m), 0.0),
        distance=pad(travel, 0.0),
        place=pad(place, 0.0),
        speed=pad(jnp.full(m, rule.break_speed), 0.0),
        b=pad(jnp.zeros(m), 0.0),
        score=pad(-jnp.arange(m, dtype=jnp.float64), -jnp.inf),
    )


@functools.partial(jax.jit, static_argnames=("k", "preselect", "rule"))
def ranked_candidates(
    states: st.GameState,
    setup: Setup,
    k: int,
    preselect: int,
    rule: PowerRule,
) -> Candidates:
    """`candidates`, with `preselect` plainly aimed shots per table corrected for throw (`preselection`).

    The pots are planned by `pot_kernel` (a thread a table); break shots only when some
    table needs them.
    """
    mouth_aim = pocket_mouths(setup.table)[2]
    batch = states.phase.shape[0]
    plan_breaks = jax.vmap(lambda s, p: _break_candidates(s, p, k, rule, mouth_aim))
    breaks = jax.lax.cond(
        jnp.any(states.phase == st.BREAK),
        lambda: plan_breaks(states, _break_places(states, setup.dims)),
        lambda: _no_candidates(batch, k),
    )
    pots = planned_pots(states, k, preselect, setup, rule)
    on_break = (states.phase == st.BREAK).reshape(-1, 1)
    return jax.tree_util.tree_map(
        lambda x, y: jnp.where(on_break.reshape(on_break.shape + (1,) * (x.ndim - 2)), x, y), breaks, pots
    )


POT_KERNEL = TableKernel(pot_kernel.plan_pots, pot_kernel, table_arguments=8, outputs=PLAN_OUTPUTS)


def planning_constants(
    setup: Setup,
    rule: PowerRule,
) -> tuple[Any, Any]:
    """The pot kernels' shared inputs: the packed figures (`pot_kernel.CONSTANTS`) and options."""
    dims, params = setup.dims, setup.params
    figures = {
        "R": dims.R, "width": dims.width, "length": dims.length,
        "reach": contact_distance(setup.table, params, setup.models),
        "arrival": rule.arrival, "tip": rule.tip, "min_speed": rule.min_speed, "max_speed": rule.max_speed,
        "ball_R": params.R, "m": params.m, "cue_mass": params.cue_mass, "u_s": params.u_s,
        "u_r": params.u_r, "g": params.g, "e_b": params.e_b, "u_b": params.u_b,
        "slack": THROW_SLACK, "max_cut_deg": MAX_CUT_DEG, "min_travel": MIN_TRAVEL,
        "house_below": markings.house_line_y(dims.length) - ids.CONTACT_TOLERANCE,
        "temporary_above": markings.back_spot(dims.width, dims.length)[1] + ids.CONTACT_TOLERANCE,
        "contact_tolerance": ids.CONTACT_TOLERANCE, "hand_distance_cost": HAND_DISTANCE_COST,
    }  # fmt: skip
    constants = jnp.stack([jnp.asarray(figures[name], jnp.float64) for name in pot_kernel.CONSTANTS])
    flags = {
        "frictionless": setup.models.ball_ball == "frictionless_elastic",
        "alciatore": setup.models.alciatore_friction,
    }
    return constants, jnp.asarray([int(flags[name]) for name in pot_kernel.OPTIONS], jnp.int32)


def planned_pots(
    states: st.GameState,
    k: int,
    preselect: int,
    setup: Setup,
    rule: PowerRule,
) -> Candidates:
    """The `k` best pots of each table outside the BREAK phase, planned by `pot_kernel` (fields (B, k))."""
    pos, on = states.positions, states.on_table
    batch = pos.shape[0]
    balls = jnp.arange(N)
    placing = (states.phase == st.BREAK) | (states.phase == st.IN_HAND)
    from_hand = placing[:, None] & (balls[None] == jax.vmap(fixed_own)(states)[:, None])
    noses, nose_radius, mouth_aim = pocket_mouths(setup.table)
    constants, options = planning_constants(setup, rule)
    region = jax.vmap(lambda s: st.hand_region(s, setup.dims))(states)
    box = jnp.stack(
        jnp.broadcast_arrays(
            *placement.region_bounds(region, setup.dims.width, setup.dims.length, setup.dims.R)
        ),
        axis=-1,
    )
    fallback = placement.placements(
        jnp.any(from_hand, axis=1),
        region,
        pos,
        on,
        jax.vmap(lambda r: placement.natural_point(r, setup.dims.width, setup.dims.length))(region),
        setup.dims.width,
        setup.dims.length,
        setup.dims.R,
    )
    as_int = lambda x: jnp.asarray(x, jnp.int32)  # noqa: E731
    out = dict(
        zip(
            PLAN_OUTPUTS,
            POT_KERNEL(
                jnp.asarray(pos, jnp.float64),
                as_int(on),
                as_int(jax.vmap(lambda s: shot_pairs(s, setup.dims))(states)),
                as_int(from_hand),
                as_int(region),
                jnp.asarray(box, jnp.float64),
                jnp.asarray(fallback, jnp.float64),
                as_int(states.phase == st.BREAK),
                constants,
                options,
                jnp.asarray(mouth_aim, jnp.float64),
                jnp.asarray(noses, jnp.float64),
                jnp.asarray(nose_radius, jnp.float64),
                jnp.asarray(HAND_STEPS, jnp.float64),
                shapes={name: (k if name.startswith("best") else preselect,) for name in PLAN_OUTPUTS},
            ),
            strict=True,
        )
    )
    slot = jnp.maximum(out["best"], 0)
    pick = lambda x: jnp.take_along_axis(x, slot, axis=1)  # noqa: E731
    item = pick(out["rough_item"])
    own, target, pocket = item // (N * POCKETS), item // POCKETS % N, item % POCKETS
    rows = jnp.arange(batch)[:, None]
    place = jnp.stack([pick(out["exact_x"]), pick(out["exact_y"])], axis=-1)
    return Candidates(
        valid=(out["best"] >= 0) & jnp.isfinite(out["best_score"]),
        own=own,
        target=target,
        pocket=pocket,
        phi=pick(out["exact_phi"]),
        cut=pick(out["exact_cut"]),
        distance=pick(out["exact_travel"]) + jnp.linalg.norm(mouth_aim[pocket] - pos[rows, target], axis=-1),
        place=place,
        speed=pick(out["exact_speed"]),
        b=jnp.full((batch, k), rule.tip),
        score=out["best_score"],
    )


def _no_candidates(batch: int, k: int) -> Candidates:
    """(batch, k) empty slots."""
    zeros = jnp.zeros((batch, k))
    index = jnp.zeros((batch, k), jnp.int32)
    return Candidates(
        valid=jnp.zeros((batch, k), bool),
        own=index,
        target=index,
        pocket=index,
        phi=zeros,
        cut=zeros,
        distance=zeros,
        place=jnp.zeros((batch, k, 2)),
        speed=zeros,
        b=zeros,
        score=jnp.full((batch, k), -jnp.inf),
    )


def candidates(
    states: st.GameState,
    setup: Setup | None = None,
    k: int = K,
    rule: PowerRule = PowerRule(),
) -> Candidates:
    """The best `k` ghost-ball pots on each of B tables, slot 0 the best (one `jit`).

    Enumerates every own ball the rules allow (G4.2, G4.3, FREE-5.1: any ball on the table
    in Free after the break, else the coloured ball), every object ball on the table (from
    the house only those outside it, G21.2 / A-24(a)) and every pocket. A candidate needs
    clear paths, a cut under `MAX_CUT_DEG`, a pocket mouth its object ball fits through
    from its direction, and, from hand, a legal placement (chosen so the shot is straight
    or nearly so). In the BREAK phase the slots hold break shots instead
    (`_break_candidates`). In Classic a candidate's (target, pocket) is its call
    (CLS-5.2). A pot never pockets the own ball by design, so candidates also suit
    Dynamic's object-ball-only shots (DYN-5.2, DYN-7(2)).

    Args:
      states: (B,) games.
      setup: the table (its figures, its pocket jaws) and the physics the throw
        correction and power rule assume (`rules.setup.Setup`; default: `default_setup()`).
      k: slots kept per table (at most 16 x 16 x 6).
      rule: the power rule (static).

    Returns:
      `Candidates` with fields (B, k).

    """
    setup = default_setup() if setup is None else setup
    return ranked_candidates(states, setup, k, preselection(k), rule)
