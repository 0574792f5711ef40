"""The shot menu: the fixed-size list of candidate moves every bot and policy chooses from.

A search is only as good as what it searches, so the menu covers what a player would
think of, each family planned by geometry and left to the simulation to judge:

- pots: the best ghost-ball pots (`candidates`: every own ball the rules allow, hand
  placement, throw-corrected aim, the Classic call), each in `POT_STYLES`: power and
  spin variations that send the own ball to different places after the pot;
- in-offs: the own ball potted off an object ball (FREE-5.4, COMB-5.1, DYN-5.1; never in
  Classic, CLS-5.5), aimed so that a stunned own ball leaves the collision towards the
  pocket (its path is then square to the line of centres);
- doubles: the object ball off one cushion into a pocket (the pocket mirrored in the
  cushion line);
- kicks: the own ball off one cushion onto a pot's ghost ball (the ghost mirrored);
- safeties: full and half-ball hits on the nearest object balls at two speeds, for
  when nothing pots (or when potting is worse);
- the break (G11, G12.1): in the BREAK phase every slot holds a break variant instead.

Slots that do not apply hold `valid = False`. Everything is JAX on fixed shapes; one
table at a time (`table_menu`), batched by `shot_menu`. The menu is the project's one list
of candidate shots: the search bot simulates it, greedy plays its first pot or its plain
safety, the environments' `assisted` actions pick a slot of it, and the trained policy
scores its slots.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from piramida.agents import menu_kernel, pot_kernel
from piramida.agents.candidates import (
    MAX_CUT_DEG,
    Candidates,
    N,
    PowerRule,
    candidates,
    fixed_own,
    near_segment,
    planning_constants,
    pocket_mouths,
    shot_pairs,
    unit,
)
from piramida.physics.kernel import contact_distance
from piramida.physics.warp_call import TableKernel
from piramida.rules import ids, placement
from piramida.rules import state as st
from piramida.rules.decisions import default_decision
from piramida.rules.game import Move, move
from piramida.rules.setup import Setup, default_setup

# (arrival speed of the object ball at the pocket m/s, vertical tip offset b): the plain
# pot of the power rule (a menu built with another rule plays that rule's plain pot first),
# a soft draw, a firm follow and a firm stun-draw.
POT_STYLES: tuple[tuple[float, float], ...] = ((0.6, 0.0), (0.3, -0.35), (1.2, 0.35), (1.5, -0.5))
IN_OFF_SPEED = 3.0  # m/s: cue speed of an in-off (the own ball keeps sin(cut) of its speed)
IN_OFF_TIP = -0.25  # a little draw: the own ball meets the object ball stunned
RAIL_CLEARANCE = 0.12  # m: a cushion bounce must land this far from any pocket's aim point
SAFETY_SPEEDS = (1.5, 3.0)  # m/s
SAFETY_THICKNESS = (0.0, 0.5, -0.5)  # contact offset across the line of centres, in units of 2R
# Break variants, most usual first (a small menu keeps the first ones): a full hit on the
# apex at break speed, then thicker and thinner hits across the rack (from the house the
# apex ball spans about 2 degrees, the rack about 10), harder and softer.
BREAK_SPEEDS = (8.0, 6.0, 4.0)  # m/s
BREAK_AIMS = (0.0, 1.5, -1.5, 3.0, -3.0)  # degrees off the apex
BREAK_PLACES = 3  # the break placements of `candidates` (its slots 0-2)
BREAK_VARIANTS = len(BREAK_SPEEDS) * len(BREAK_AIMS) * BREAK_PLACES
BLOCKED_COST = 100.0  # m: a safety's blocked path loses to any clear one
KINDS = ("pot", "in-off", "double", "kick", "safety", "break")  # the families, in menu order


@dataclass(frozen=True)
class Menu:
    """How many slots each family gets (static). `size` is the menu's length."""

    pots: int = 8  # pots kept from `candidates`; each in every style of POT_STYLES
    in_offs: int = 4
    doubles: int = 6
    kicks: int = 4
    safety_pairs: int = 3  # (own, object) pairs; each in SAFETY_THICKNESS x SAFETY_SPEEDS

    @property
    def size(self) -> int:
        """The number of candidate moves per table."""
        return self.safety_start + self.safety_pairs * len(SAFETY_THICKNESS) * len(SAFETY_SPEEDS)

    @property
    def safety_start(self) -> int:
        """The first safety slot (pots, in-offs, doubles and kicks come before)."""
        return self.pots * len(POT_STYLES) + self.in_offs + self.doubles + self.kicks

    def safety_slot(self, speed: int, thickness: int, pair: int) -> int:
        """The slot of the `pair`-th cheapest pair's safety (indices of SAFETY_SPEEDS, SAFETY_THICKNESS)."""
        return self.safety_start + (speed * len(SAFETY_THICKNESS) + thickness) * self.safety_pairs + pair

    def kinds(self) -> Any:
        """(size,) each slot's family outside the BREAK phase: an index of `KINDS` (`break` aside)."""
        safeties = self.size - self.safety_start
        counts = (self.pots * len(POT_STYLES), self.in_offs, self.doubles, self.kicks, safeties)
        return np.repeat(np.arange(len(counts)), counts)

    def styles(self) -> Any:
        """(size,) each pot slot's index of `POT_STYLES` (-1 for the other families)."""
        pots = np.repeat(np.arange(len(POT_STYLES)), self.pots)
        return np.concatenate([pots, np.full(self.size - pots.size, -1)])


def _phi(heading: Any) -> Any:
    return jnp.mod(jnp.degrees(jnp.arctan2(heading[..., 1], heading[..., 0])), 360.0)


def _rails(setup: Setup) -> tuple[Any, Any]:
    """The four cushion lines a ball centre bounces on: axis (0 for x, 1 for y) and coordinate."""
    reach = contact_distance(setup.table, setup.params, setup.models)
    axis = jnp.asarray([0, 0, 1, 1])
    coord = jnp.stack([reach, setup.table.width - reach, reach, setup.table.length - reach])
    return axis, coord


@jax.tree_util.register_dataclass
@dataclass(frozen=True)
class Family:
    """Some candidate moves of one table (fields (n,)): the moves and which of them apply."""

    moves: Move
    valid: Any
    target: Any  # the object ball the shot plays at (a safety's ball, the break's apex)
    pocket: Any  # the pocket it aims at (a safety's: the object ball's nearest)


def moves_at(moves: Move, slot: Any) -> Move:
    """A batch's moves (fields (B, M)) at slot `slot` (B,) of each table: fields (B,)."""
    return jax.tree_util.tree_map(
        lambda x: jnp.take_along_axis(x, slot.reshape((-1,) + (1,) * (x.ndim - 1)), axis=1)[:, 0], moves
    )


def _calls(state: st.GameState, ball: Any, pocket: Any) -> dict[str, Any]:
    """The Classic call (CLS-5.2) of a shot at `ball` into `pocket`; no call elsewhere."""
    classic = state.variant == ids.CLASSIC
    return {"call_ball": jnp.where(classic, ball, ids.NO_BALL), "call_pocket": jnp.where(classic, pocket, -1)}


def _tile(x: Any, times: int) -> Any:
    return jnp.tile(x, (times,) + (1,) * (jnp.ndim(x) - 1))


@dataclass(frozen=True)
class Geometry:
    """What the families of one table share (arrays of one table)."""

    state: st.GameState
    own_xy: Any  # (16, 2): each own ball's start (placed from hand, or its spot)
    mouth_aim: Any  # (6, 2)
    R: float


@jax.tree_util.register_dataclass
@dataclass(frozen=True)
class Planned:
    """One table's best in-offs, doubles, kicks and safety pairs, as `menu_kernel` ranks them.

    Each family's `*_item` (k,) holds flat indices in the family's order (-1 past the last
    shot), `*_score` (k,) their scores (-inf past the last), and the aims and speeds the
    kernel computed for them.
    """

    in_off_item: Any
    in_off_score: Any
    in_off_phi: Any
    double_item: Any
    double_score: Any
    double_phi: Any
    double_speed: Any
    kick_item: Any
    kick_score: Any
    kick_phi: Any
    kick_speed: Any
    safety_item: Any
    safety_score: Any


# `menu_kernel.plan_menu`'s outputs, in order.
PLANNED_OUTPUTS = (
    "in_off_score", "in_off_item", "double_score", "double_item", "kick_score", "kick_item",
    "safety_score", "safety_item", "in_off_phi", "double_phi", "double_speed", "kick_phi", "kick_speed",
)  # fmt: skip
MENU_KERNEL = TableKernel(menu_kernel.plan_menu, menu_kernel, table_arguments=6, outputs=PLANNED_OUTPUTS)


def planned_families(
    states: st.GameState,
    own_xy: Any,
    menu: Menu,
    setup: Setup,
) -> Planned:
    """The kernel's lists of a batch (fields (B, k)): in-offs, doubles, kicks and safety pairs.

    `own_xy` (B, 16, 2) is where each own ball starts (`own_starts`). In-offs are planned
    only where the rules allow them (FREE-5.4, COMB-5.1, DYN-5.1; never in Classic,
    CLS-5.5, nor on a Dynamic object-ball-only shot); nothing in the BREAK phase.
    """
    noses, nose_radius, mouth_aim = pocket_mouths(setup.table)
    rail_axis, rail_coord = _rails(setup)
    figures = {
        "R": setup.dims.R,
        "reach": contact_distance(setup.table, setup.params, setup.models),
        "max_cut_deg": MAX_CUT_DEG,
        "rail_clearance": RAIL_CLEARANCE,
        "blocked_cost": BLOCKED_COST,
    }
    constants = jnp.stack([jnp.asarray(figures[name], jnp.float64) for name in menu_kernel.CONSTANTS])
    in_offs_allowed = (states.variant != ids.CLASSIC) & ~states.object_only & (states.phase != st.BREAK)
    sizes = {"in_off": menu.in_offs, "double": menu.doubles, "kick": menu.kicks, "safety": menu.safety_pairs}
    # An empty list is given one slot (the FFI takes no empty arrays) and cut after.
    shapes = {name: (max(sizes[name.rsplit("_", 1)[0]], 1),) for name in PLANNED_OUTPUTS}
    out = MENU_KERNEL(
        jnp.asarray(states.positions, jnp.float64),
        jnp.asarray(states.on_table, jnp.int32),
        jnp.asarray(jax.vmap(lambda s: shot_pairs(s, setup.dims))(states), jnp.int32),
        jnp.asarray(own_xy, jnp.float64),
        jnp.asarray(in_offs_allowed, jnp.int32),
        jnp.asarray(states.phase == st.BREAK, jnp.int32),
        constants,
        jnp.asarray([menu.in_offs > 0, menu.doubles > 0, menu.kicks > 0], jnp.int32),
        jnp.asarray(mouth_aim, jnp.float64),
        jnp.asarray(noses, jnp.float64),
        jnp.asarray(nose_radius, jnp.float64),
        jnp.asarray(rail_axis, jnp.int32),
        jnp.asarray(rail_coord, jnp.float64),
        shapes=shapes,
    )
    lists = {
        name: x[:, : sizes[name.rsplit("_", 1)[0]]] for name, x in zip(PLANNED_OUTPUTS, out, strict=True)
    }
    return Planned(**lists)


def hand_places(states: st.GameState, dims: st.Dims = st.DEFAULT_DIMS) -> Any:
    """(B, 2) where each table's ball in hand stands for the menu's shots other than pots.

    The default policy's place (`placement.default_placement`, coarse grid, G11.1, G21.2,
    DYN-5.2), searched only on the tables that place a ball (`state.placements`);
    `ids.OFF_TABLE_XY` on the others, where no shot reads it.
    """
    regions = jax.vmap(lambda s: st.hand_region(s, dims))(states)
    preferred = jax.vmap(lambda r: placement.natural_point(r, dims.width, dims.length))(regions)
    return st.placements(states, preferred, dims)


def own_starts(state: st.GameState, place: Any) -> Any:
    """(16, 2) where each own ball starts: `place` (2,) for the ball in hand, the others' spots."""
    placing = (state.phase == st.BREAK) | (state.phase == st.IN_HAND)
    in_hand = placing & (jnp.arange(N) == fixed_own(state))
    return jnp.where(in_hand[:, None], place, state.positions)


def _geometry(state: st.GameState, place: Any, setup: Setup) -> Geometry:
    mouth_aim = pocket_mouths(setup.table)[2]
    return Geometry(state=state, own_xy=own_starts(state, place), mouth_aim=mouth_aim, R=setup.dims.R)


def pot_styles(rule: PowerRule) -> tuple[tuple[float, float], ...]:
    """The menu's pot styles (arrival speed, tip) under `rule`: the first is the rule's own pot."""
    return ((rule.arrival, rule.tip), *POT_STYLES[1:])


STYLE_KERNEL = TableKernel(pot_kernel.aim_styles, pot_kernel, table_arguments=4, outputs=("phi", "speed"))


def styled_pots(
    states: st.GameState,
    best: Candidates,
    rule: PowerRule,
    setup: Setup,
) -> tuple[Any, Any]:
    """Each kept pot aimed in every `pot_styles` style, with the throw correction: (phi, speed) (B, S x k).

    The first style is the power rule's own, whose aims `candidates` already holds; the
    others come from `pot_kernel.aim_styles` (a thread a table: `candidates.aim`'s
    arithmetic for each style's power rule). Style-major, as `_pots` lists them.
    """
    rows = jnp.arange(best.target.shape[0])[:, None]
    constants, options = planning_constants(setup, rule)
    others = (len(pot_styles(rule)) - 1) * best.target.shape[1]
    phi, speed = STYLE_KERNEL(
        jnp.asarray(best.place, jnp.float64),
        jnp.asarray(states.positions[rows, best.target], jnp.float64),
        jnp.asarray(pocket_mouths(setup.table)[2][best.pocket], jnp.float64),
        jnp.asarray(best.valid, jnp.int32),
        jnp.asarray(pot_styles(rule)[1:], jnp.float64),
        constants,
        options,
        shapes={"phi": (others,), "speed": (others,)},
    )
    return jnp.concatenate([best.phi, phi], axis=1), jnp.concatenate([best.speed, speed], axis=1)


def _pots(g: Geometry, best: Candidates, styled: tuple[Any, Any], rule: PowerRule) -> Family:
    """The kept `candidates` pots, each aimed in every `pot_styles` style (styles x pots, `styled_pots`)."""
    styles = pot_styles(rule)
    phi, speed = styled
    return Family(
        moves=move(
            ball=_tile(best.own, len(styles)),
            speed=speed,
            phi=phi,
            b=jnp.repeat(jnp.asarray([tip for _, tip in styles]), best.own.shape[0]),
            place=_tile(best.place, len(styles)),
            **_calls(g.state, _tile(best.target, len(styles)), _tile(best.pocket, len(styles))),
        ),
        valid=_tile(best.valid, len(styles)),
        target=_tile(best.target, len(styles)),
        pocket=_tile(best.pocket, len(styles)),
    )


def _aimed(
    g: Geometry, own: Any, obj: Any, pocket: Any, ok: Any, phi: Any, speed: Any, b: Any = 0.0
) -> Family:
    """A family's kept shots: the own ball struck at `phi` (each field (k,))."""
    return Family(
        moves=move(
            ball=own,
            speed=speed,
            phi=phi,
            b=b,
            place=g.own_xy[own],
            **_calls(g.state, obj, pocket),
        ),
        valid=ok,
        target=obj,
        pocket=pocket,
    )


def _in_offs(g: Geometry, planned: Planned) -> Family:
    """Own ball off object ball into a pocket (FREE-5.4, COMB-5.1, DYN-5.1), the kernel's best.

    A stunned own ball leaves a collision square to the line of centres, so it heads for
    the pocket when the line of centres is the direction to the pocket turned by
    arccos(-2R / distance), either way (`menu_kernel.in_off`); the shortest paths win.
    """
    item = jnp.maximum(planned.in_off_item, 0)
    own, obj, pocket = item // (N * 12), item // 12 % N, item // 2 % 6
    ok = jnp.isfinite(planned.in_off_score)
    return _aimed(g, own, obj, pocket, ok, planned.in_off_phi, IN_OFF_SPEED, IN_OFF_TIP)


def _doubles(g: Geometry, planned: Planned) -> Family:
    """Object ball off one cushion into a pocket (the pocket mirrored in the cushion), the kernel's best."""
    item = jnp.maximum(planned.double_item, 0)
    own, obj, pocket = item // (N * 24), item // 24 % N, item % 6
    ok = jnp.isfinite(planned.double_score)
    return _aimed(g, own, obj, pocket, ok, planned.double_phi, planned.double_speed)


def _kicks(g: Geometry, planned: Planned) -> Family:
    """Own ball off one cushion onto a direct pot's ghost ball (the ghost mirrored), the kernel's best."""
    item = jnp.maximum(planned.kick_item, 0)
    own, obj, pocket = item // (N * 24), item // 24 % N, item // 4 % 6
    ok = jnp.isfinite(planned.kick_score)
    return _aimed(g, own, obj, pocket, ok, planned.kick_phi, planned.kick_speed)


def own_paths_blocked(state: st.GameState, own_xy: Any, R: float) -> Any:
    """(16, 16) another ball on the table within 2R of the path from own ball to object ball."""
    pos, on = state.positions, state.on_table
    balls = jnp.arange(N)
    near = near_segment(pos, own_xy[:, None, None, :], pos[None, :, None, :], 2.0 * R)  # (O, T, 16)
    others = on & (balls != balls[:, None, None]) & (balls != balls[None, :, None])
    return jnp.any(others & near, axis=-1)


def safety_costs(state: st.GameState, own_xy: Any, dims: st.Dims = st.DEFAULT_DIMS) -> Any:
    """One table's (own ball, object ball) pairs for a safety, by cost: (16, 16).

    The own balls stand at `own_xy` (16, 2) (`own_starts`); the cost is the distance from
    own ball to object ball, plus `BLOCKED_COST` where another ball lies within 2R of the
    path; infinite for pairs the rules do not allow (G4, G21.2).
    """
    blocked = own_paths_blocked(state, own_xy, dims.R)
    cost = jnp.linalg.norm(state.positions[None] - own_xy[:, None], axis=-1) + jnp.where(
        blocked, BLOCKED_COST, 0.0
    )
    return jnp.where(shot_pairs(state, dims), cost, jnp.inf)


def _safeties(g: Geometry, planned: Planned, pairs: int) -> Family:
    """Full and half-ball hits on the `pairs` cheapest (own, object) pairs, at two speeds.

    The pairs and their costs are `safety_costs`'s (greedy's safety too), ranked by the
    kernel. In Classic the hit ball is called into its nearest pocket (CLS-5.2).
    """
    pos, own_xy = g.state.positions, g.own_xy
    ok = jnp.isfinite(planned.safety_score)
    own, obj = jnp.divmod(jnp.maximum(planned.safety_item, 0), N)
    heading, distance = unit(pos[obj] - own_xy[own])
    base = _phi(heading)  # (pairs,)
    thickness = jnp.asarray(SAFETY_THICKNESS)
    offset = jnp.degrees(
        jnp.arcsin(jnp.clip(thickness[:, None] * 2.0 * g.R / jnp.maximum(distance, 2.0 * g.R), -1, 1))
    )
    phi = (base[None] + offset)[None]  # (1, thickness, pairs)
    speeds = jnp.asarray(SAFETY_SPEEDS)[:, None, None]
    shape = (len(SAFETY_SPEEDS), len(SAFETY_THICKNESS), pairs)
    spread = lambda x: jnp.broadcast_to(x, shape).ravel()  # noqa: E731
    nearest = jnp.argmin(jnp.linalg.norm(g.mouth_aim[None] - pos[obj][:, None], axis=-1), axis=-1)
    return Family(
        moves=move(
            ball=spread(own),
            speed=spread(speeds),
            phi=spread(phi),
            place=jnp.broadcast_to(own_xy[own], (*shape, 2)).reshape(-1, 2),
            **_calls(g.state, spread(obj), spread(nearest)),
        ),
        valid=spread(ok) & (g.state.phase != st.BREAK),
        target=spread(obj),
        pocket=spread(nearest),
    )


def _breaks(state: st.GameState, best: Candidates, size: int) -> Family:
    """The break (G11, G12.1): `candidates`' placements x `BREAK_SPEEDS` x `BREAK_AIMS`.

    Cut or padded to `size` moves.
    """
    m = BREAK_PLACES
    shape = (len(BREAK_SPEEDS), len(BREAK_AIMS), m)
    spread = lambda x: jnp.broadcast_to(x, shape).ravel()  # noqa: E731
    count = BREAK_VARIANTS
    pad = lambda x: jnp.concatenate([x, jnp.repeat(x[:1], max(size - count, 0), axis=0)])[:size]  # noqa: E731
    return Family(
        moves=move(
            ball=pad(spread(best.own[:m])),
            speed=pad(spread(jnp.asarray(BREAK_SPEEDS)[:, None, None])),
            phi=pad(spread(best.phi[:m] + jnp.asarray(BREAK_AIMS)[:, None])),
            place=pad(jnp.broadcast_to(best.place[:m], (*shape, 2)).reshape(-1, 2)),
            **_calls(state, pad(spread(best.target[:m])), pad(spread(best.pocket[:m]))),
        ),
        valid=(jnp.arange(size) < count) & pad(spread(best.valid[:m])) & (state.phase == st.BREAK),
        target=pad(spread(best.target[:m])),
        pocket=pad(spread(best.pocket[:m])),
    )


def table_menu(
    state: st.GameState,
    best: Candidates,
    styled: tuple[Any, Any],
    place: Any,
    planned: Planned,
    menu: Menu,
    rule: PowerRule,
    setup: Setup,
) -> Family:
    """One table's menu (`menu.size` moves): `best` is its `candidates` (k = `menu.pots`, at least 3).

    `styled` holds their aims and speeds in every style (`styled_pots`); `place` (2,) is
    where a ball in hand stands for the shots other than pots (`hand_places`); `planned`
    the table's lists of the other families (`planned_families`).

    In the BREAK phase the moves are break variants; elsewhere pots, in-offs, doubles,
    kicks and safeties, in that order. Every move carries the default decision in its
    decision fields (the search decides separately).
    """
    g = _geometry(state, place, setup)
    families = [
        _pots(g, best, styled, rule),
        _in_offs(g, planned),
        _doubles(g, planned),
        _kicks(g, planned),
        _safeties(g, planned, menu.safety_pairs),
    ]
    shots = jax.tree_util.tree_map(lambda *xs: jnp.concatenate(xs), *families)
    breaks = _breaks(state, best, menu.size)
    chosen = jax.tree_util.tree_map(
        lambda x, y: jnp.where((state.phase == st.BREAK).reshape((1,) * x.ndim), x, y), breaks, shots
    )
    decision = default_decision(state, setup.dims)
    return Family(
        moves=chosen.moves.replace(
            option=jnp.broadcast_to(decision.option, (menu.size,)),
            take=jnp.broadcast_to(decision.ball, (menu.size,)),
        ),
        valid=chosen.valid,
        target=chosen.target,
        pocket=chosen.pocket,
    )


@functools.partial(jax.jit, static_argnames=("menu", "rule"))
def shot_menu(
    states: st.GameState,
    menu: Menu = Menu(),
    rule: PowerRule = PowerRule(),  # noqa: B008 (frozen, hashable)
    setup: Setup | None = None,
) -> Family:
    """The menu of a batch of tables (fields (B, `menu.size`)): the one list of candidate shots.

    The search bot simulates it, greedy plays its first pot (or its plain safety), the
    environments' `assisted` actions pick a slot of it and the trained policy scores it.
    """
    setup = default_setup() if setup is None else setup
    best = candidates(states, setup, menu.pots, rule)
    styled = styled_pots(states, best, rule, setup)
    places = hand_places(states, setup.dims)
    planned = planned_families(states, jax.vmap(own_starts)(states, places), menu, setup)
    return jax.vmap(lambda s, c, a, p, f: table_menu(s, c, a, p, f, menu, rule, setup))(
        states, best, styled, places, planned
    )
