"""What a policy sees of a table: the shot menu slot by slot, the balls and the game's context.

A flat vector of ball coordinates hides what makes one shot better than another; the
menu (`agents.menu`) already knows it. So each menu slot is described by the features a
player would weigh (the family and style of the shot, the own ball, the object ball and
the pocket, the cut, the distances, the closed-form pot chance the search bot's value
uses, the power, spin and aim, and where a player's rules of thumb say the shot leaves
the own ball and what it can pot next from there), every ball by where it is and what the rules let it be,
and the game by its phase, variant, scores and noise. A network then scores slots with
one encoder shared by all of them (`agents.scorer`), so it can play anything the search
bot can, and the same features serve the trained bot and the environments' `menu`
observation.

Everything is JAX on fixed shapes, one table at a time (`table_view`), batched by
`observe_slots`; coordinates are fractions of the table, distances of its length.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp

from piramida.agents.candidates import arrival, object_balls, own_balls, pocket_mouths
from piramida.agents.menu import KINDS, POT_STYLES, Family, Menu
from piramida.agents.position import PotGeometry, aim_sigma, chance_of, pot_chance_table, pot_geometry
from piramida.rules import ids
from piramida.rules import state as st
from piramida.rules.setup import Setup, default_setup
from piramida.rules.variants import CLASSIC_VALUES

POCKETS = 6
PHASES = 5  # break, normal, in-hand, decision, over
VARIANTS = 4
CONTACT_SLACK = 0.4  # (2.1 R)^2 - (2 R)^2 in R^2: a line this close to the ball still meets it
MAX_SPEED = 9.0  # m/s: speeds are given as fractions of this
NOISE_SCALE = 0.45  # the `amateur` magnitude: noise is given as a fraction of it
SLOT_FEATURES = (
    ("legal", 1),
    ("kind", len(KINDS)),
    ("style", len(POT_STYLES)),
    ("own ball xy", 2),
    ("object ball xy", 2),
    ("pocket", POCKETS),
    ("cut cos, cut / 90 deg", 2),
    ("own ball to ghost, object ball to pocket", 2),
    ("direct pot chance", 1),
    ("speed, side spin, vertical spin", 3),
    ("aim cos, sin", 2),
    ("object ball's worth / 15", 1),
    ("first contact: the aimed ball is met", 1),
    ("contact cut cos", 1),
    ("object ball's run / its distance to the pocket, / 4", 1),
    ("own ball's leave xy", 2),
    ("best next pot chance from the leave", 1),
    ("best pot chance left on the table by others", 1),
)
BALL_FEATURES = (
    ("on the table", 1),
    ("xy", 2),
    ("may be the own ball", 1),
    ("may be the object ball", 1),
    ("worth / 15", 1),
    ("the coloured ball", 1),
)
CONTEXT_FEATURES = (
    ("phase", PHASES),
    ("variant", VARIANTS),
    ("scores of mover and opponent / target", 2),
    ("balls on the table / 16", 1),
    ("noise / amateur", 1),
)
SLOT_SIZE = sum(n for _, n in SLOT_FEATURES)
BALL_SIZE = sum(n for _, n in BALL_FEATURES)
CONTEXT_SIZE = sum(n for _, n in CONTEXT_FEATURES)


@jax.tree_util.register_dataclass
@dataclass(frozen=True)
class SlotView:
    """Views of tables, from the side of the player to move.

    `slots` (..., M, SLOT_SIZE), `balls` (..., 16, BALL_SIZE), `context` (..., CONTEXT_SIZE)
    and the `legal` slots (..., M).
    """

    slots: Any
    balls: Any
    context: Any
    legal: Any


def _unit(v: Any) -> tuple[Any, Any]:
    norm = jnp.linalg.norm(v, axis=-1)
    return v / jnp.maximum(norm, 1e-12)[..., None], norm


def _fold(x: Any, low: Any, high: Any) -> Any:
    """Coordinates folded into [low, high] as by cushions that reflect (any number of bounces)."""
    span = high - low
    y = jnp.mod(x - low, 2.0 * span)
    return low + jnp.where(y > span, 2.0 * span - y, y)


def _leave(
    state: st.GameState,
    moves: Any,
    target: Any,
    own_xy: Any,
    obj_travel: Any,
    chances: Any,
    geometry: PotGeometry,
    magnitude: Any,
    setup: Setup,
) -> Any:
    """(M, 7) where each slot's shot leaves the table, by a player's rules of thumb (no simulation).

    The own ball runs straight along its aim to the aimed ball (the first contact, if the
    line meets it), arriving with the speed and roll of `candidates.arrival`. An equal-mass
    collision sends the object ball off along the line of centres at (1 + e) / 2 cos(cut)
    of that speed, and leaves the own ball the tangential part; its roll then bends it
    (a sliding ball ends rolling at (5 v + 2 R w) / 7: follow forward, draw back) and it
    rolls to a stop, folded into the table at the cushions. From that leave: the best
    direct pot for the next shot (any object ball but the one potted now), and the best pot
    the shot leaves untouched (pairs without its own ball and object ball).
    """
    R, a_r = setup.dims.R, setup.params.u_r * setup.params.g
    pos = state.positions
    heading = jnp.stack([jnp.cos(jnp.radians(moves.phi)), jnp.sin(jnp.radians(moves.phi))], axis=-1)
    rel = pos[target] - own_xy
    along = jnp.sum(heading * rel, axis=-1)
    miss = jnp.sum(rel * rel, axis=-1) - along * along - 4.0 * R * R
    met = (along > 0.0) & (miss < CONTACT_SLACK * R * R)  # throw-corrected aims pass a hair wide
    travel = jnp.maximum(along - jnp.sqrt(jnp.maximum(-miss, 0.0)), 0.0)
    speed, roll = arrival(moves.speed, moves.b, travel, setup.params)
    contact = own_xy + travel[:, None] * heading
    normal, _ = _unit(pos[target] - contact)
    cut_cos = jnp.clip(jnp.sum(heading * normal, axis=-1), 0.0, 1.0)
    run = ((1.0 + setup.params.e_b) / 2.0 * speed * cut_cos) ** 2 / (2.0 * a_r)
    tangent = speed[:, None] * (heading - cut_cos[:, None] * normal)
    rolling = jnp.where(
        met[:, None], (5.0 * tangent + 2.0 * roll[:, None] * heading) / 7.0, roll[:, None] * heading
    )
    direction, pace = _unit(rolling)
    start = jnp.where(met[:, None], contact, own_xy)
    end = start + direction * jnp.minimum(pace**2 / (2.0 * a_r), 4.0 * setup.dims.length)[:, None]
    leave = jnp.stack(
        [_fold(end[:, 0], R, setup.dims.width - R), _fold(end[:, 1], R, setup.dims.length - R)], axis=-1
    )
    aim, distance = _unit(geometry.ghost[None] - leave[:, None, None])  # (M, T, P)
    next_cut = jnp.sum(aim * geometry.to_target[None], axis=-1)
    nxt = chance_of(geometry, next_cut, distance, aim_sigma(magnitude, setup), R)
    balls = jnp.arange(ids.N_BALLS)
    others = (balls != target[:, None]) & (balls != moves.ball[:, None]) & object_balls(state, setup.dims)
    best_next = jnp.max(jnp.where(others[:, :, None] & (state.phase != st.BREAK), nxt, 0.0), axis=(1, 2))
    untouched = (balls[None, :, None] != moves.ball[:, None, None]) & (
        balls[None, None, :] != target[:, None, None]
    )
    untouched &= (balls[None, :, None] != target[:, None, None]) & (
        balls[None, None, :] != moves.ball[:, None, None]
    )
    best_other = jnp.max(jnp.where(untouched[..., None], chances[None], 0.0), axis=(1, 2, 3))
    return jnp.concatenate(
        [
            met[:, None].astype(pos.dtype),
            cut_cos[:, None],
            jnp.clip(run / jnp.maximum(obj_travel, 0.05), 0.0, 4.0)[:, None] / 4.0,
            leave / jnp.asarray([setup.dims.width, setup.dims.length]),
            best_next[:, None],
            best_other[:, None],
        ],
        axis=-1,
    )


def table_view(
    state: st.GameState,
    family: Family,
    magnitude: Any,
    menu: Menu,
    setup: Setup,
) -> SlotView:
    """One table's view, from the side of the player to move; `family` is its menu (fields (M,))."""
    scale = jnp.asarray([setup.dims.width, setup.dims.length])
    pos, on = state.positions, state.on_table
    moves = family.moves
    breaking = state.phase == st.BREAK
    kind = jnp.where(breaking, KINDS.index("break"), jnp.asarray(menu.kinds()))
    style = jnp.where(breaking, -1, jnp.asarray(menu.styles()))
    target = jnp.clip(family.target, 0, ids.N_BALLS - 1)
    pocket = jnp.clip(family.pocket, 0, POCKETS - 1)
    placing = breaking | (state.phase == st.IN_HAND)
    own_xy = jnp.where(placing, moves.place, pos[moves.ball])
    obj_xy = pos[target]
    _, _, mouth_aim = pocket_mouths(setup.table)
    to_pocket, obj_travel = _unit(mouth_aim[pocket] - obj_xy)
    ghost = obj_xy - 2.0 * setup.dims.R * to_pocket
    heading, own_travel = _unit(ghost - own_xy)
    cut_cos = jnp.clip(jnp.sum(heading * to_pocket, axis=-1), -1.0, 1.0)
    geometry = pot_geometry(state, setup)
    chances = pot_chance_table(state, magnitude, setup, geometry)
    chance = chances[moves.ball, target, pocket]
    after = _leave(state, moves, target, own_xy, obj_travel, chances, geometry, magnitude, setup)
    classic = state.variant == ids.CLASSIC
    worth = jnp.where(classic, CLASSIC_VALUES, 1).astype(pos.dtype) / 15.0
    phi = jnp.radians(moves.phi)
    slots = jnp.concatenate(
        [
            family.valid[:, None].astype(pos.dtype),
            jax.nn.one_hot(kind, len(KINDS), dtype=pos.dtype),
            jax.nn.one_hot(style, len(POT_STYLES), dtype=pos.dtype),
            own_xy / scale,
            obj_xy / scale,
            jax.nn.one_hot(pocket, POCKETS, dtype=pos.dtype),
            jnp.stack([cut_cos, jnp.degrees(jnp.arccos(cut_cos)) / 90.0], axis=-1),
            jnp.stack([own_travel, obj_travel], axis=-1) / setup.dims.length,
            chance[:, None],
            jnp.stack([moves.speed / MAX_SPEED, moves.a, moves.b], axis=-1),
            jnp.stack([jnp.cos(phi), jnp.sin(phi)], axis=-1),
            worth[target][:, None],
            after,
        ],
        axis=-1,
    )
    slots = jnp.where(family.valid[:, None], slots, 0.0)
    balls = jnp.concatenate(
        [
            on[:, None].astype(pos.dtype),
            jnp.where(on[:, None], pos / scale, 0.0),
            own_balls(state)[:, None].astype(pos.dtype),
            object_balls(state, setup.dims)[:, None].astype(pos.dtype),
            jnp.where(on, worth, 0.0)[:, None],
            (jnp.arange(ids.N_BALLS) == ids.COLOURED)[:, None].astype(pos.dtype),
        ],
        axis=-1,
    )
    goal = jnp.where(classic, st.CLASSIC_TARGET, st.FREE_TARGET)
    me = state.turn
    context = jnp.concatenate(
        [
            jax.nn.one_hot(state.phase, PHASES, dtype=pos.dtype),
            jax.nn.one_hot(state.variant, VARIANTS, dtype=pos.dtype),
            jnp.stack([state.score[me], state.score[1 - me]]).astype(pos.dtype) / goal,
            jnp.sum(on, keepdims=True).astype(pos.dtype) / ids.N_BALLS,
            jnp.reshape(jnp.asarray(magnitude, pos.dtype) / NOISE_SCALE, (1,)),
        ]
    )
    return SlotView(slots=slots, balls=balls, context=context, legal=family.valid)


@functools.partial(jax.jit, static_argnames=("menu",))
def observe_slots(
    states: st.GameState,
    family: Family,
    magnitude: Any,
    menu: Menu = Menu(),  # noqa: B008 (frozen, hashable)
    setup: Setup | None = None,
) -> SlotView:
    """The views of (B,) states whose menus (`shot_menu(states, menu)`) are `family` (float32: the network's).

    `magnitude` is the execution noise, one for all or (B,).
    """
    setup = default_setup() if setup is None else setup
    magnitudes = jnp.broadcast_to(jnp.asarray(magnitude, jnp.float64), states.phase.shape)
    views = jax.vmap(lambda s, f, m: table_view(s, f, m, menu, setup))(states, family, magnitudes)
    return jax.tree_util.tree_map(lambda x: x.astype(jnp.float32) if x.dtype == jnp.float64 else x, views)
