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

from piramida.agents.candidates import (
    MAX_CUT_DEG,
    Candidates,
    N,
    PowerRule,
    aim,
    candidates,
    fixed_own,
    near_segment,
    pocket_mouths,
    pocket_room,
    shot_pairs,
    unit,
)
from piramida.agents.ranking import top_k
from piramida.physics.kernel import contact_distance
from piramida.physics.params import PYRAMID_PARAMS, Models, PhysicsParams
from piramida.physics.table import Table, preset
from piramida.rules import ids, placement
from piramida.rules import state as st
from piramida.rules.decisions import default_decision
from piramida.rules.game import Move, move

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


def _top(score: Any, k: int) -> tuple[Any, Any]:
    """The `k` best of a flattened score: (valid (k,), flat indices (k,))."""
    best, index = top_k(score.ravel(), k)
    return jnp.isfinite(best), index


def _rails(table: Table, params: PhysicsParams, models: Models) -> tuple[Any, Any]:
    """The four cushion lines a ball centre bounces on: axis (0 for x, 1 for y) and coordinate."""
    reach = contact_distance(table, params, models)
    axis = jnp.asarray([0, 0, 1, 1])
    coord = jnp.stack([reach, table.width - reach, reach, table.length - reach])
    return axis, coord


def _mirror(p: Any, axis: Any, coord: Any) -> Any:
    """Points p (..., 2) mirrored in the line {x_axis = coord} (broadcast)."""
    flip = jnp.stack([axis == 0, axis == 1], axis=-1)
    return jnp.where(flip, 2.0 * coord[..., None] - p, p)


def _bounce_ok(a: Any, b_mirrored: Any, axis: Any, coord: Any, mouth_aim: Any) -> Any:
    """Where a -> mirrored b meets its cushion line: (between a and b and clear of the pockets, the point)."""
    k = jnp.stack([axis == 0, axis == 1], axis=-1)
    along_a = jnp.sum(jnp.where(k, a, 0.0), axis=-1)
    along_b = jnp.sum(jnp.where(k, b_mirrored, 0.0), axis=-1)
    t = (coord - along_a) / jnp.where(along_b == along_a, 1e-12, along_b - along_a)
    hit = a + t[..., None] * (b_mirrored - a)
    far = jnp.min(jnp.linalg.norm(hit[..., None, :] - mouth_aim, axis=-1), axis=-1) > RAIL_CLEARANCE
    return (t > 0.0) & (t < 1.0) & far, hit


def _blocked(pos: Any, on: Any, a: Any, b: Any, mover: Any, R: float) -> Any:
    """Another ball's centre within 2R of the segment a-b (ball `mover` aside); a, b (..., 2)."""
    others = on & (jnp.arange(N) != mover[..., None])
    return jnp.any(others & near_segment(pos, a[..., None, :], b[..., None, :], 2.0 * R), axis=-1)


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
    """What every family of one table needs (arrays of one table)."""

    state: st.GameState
    own_xy: Any  # (16, 2): each own ball's start (placed from hand, or its spot)
    pair_ok: Any  # (16, 16): (own, object) pairs the rules allow (G4, G21.2)
    own_clear: Any  # (16, 16): no third ball within 2R of the own ball's path to the object ball
    noses: Any
    nose_radius: Any
    mouth_aim: Any  # (6, 2)
    rail_axis: Any  # (4,)
    rail_coord: Any  # (4,)
    reach: Any  # a ball centre's distance from a cushion line at contact (m)
    R: float


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


def _geometry(
    state: st.GameState, place: Any, dims: st.Dims, table: Table, params: PhysicsParams, models: Models
) -> Geometry:
    own_xy = own_starts(state, place)
    noses, nose_radius, mouth_aim = pocket_mouths(table)
    rail_axis, rail_coord = _rails(table, params, models)
    return Geometry(
        state=state,
        own_xy=own_xy,
        pair_ok=shot_pairs(state, dims),
        own_clear=~own_paths_blocked(state, own_xy, dims.R),
        noses=noses,
        nose_radius=nose_radius,
        mouth_aim=mouth_aim,
        rail_axis=rail_axis,
        rail_coord=rail_coord,
        reach=contact_distance(table, params, models),
        R=dims.R,
    )


def _pots(g: Geometry, best: Candidates, rule: PowerRule, params: PhysicsParams, models: Models) -> Family:
    """The kept `candidates` pots, each re-aimed in every `POT_STYLES` style (styles x pots)."""
    obj = g.state.positions[best.target]
    styles = ((rule.arrival, rule.tip), *POT_STYLES[1:])  # the first: the power rule's own pot
    target = g.mouth_aim[best.pocket]
    planned = [
        aim(
            best.place,
            obj,
            target,
            g.R,
            PowerRule(arrival=arrival, tip=tip, min_speed=rule.min_speed, max_speed=rule.max_speed),
            params,
            models,
        )
        for arrival, tip in styles
    ]
    return Family(
        moves=move(
            ball=_tile(best.own, len(styles)),
            speed=jnp.concatenate([p.speed for p in planned]),
            phi=jnp.concatenate([p.phi for p in planned]),
            b=jnp.repeat(jnp.asarray([tip for _, tip in styles]), best.own.shape[0]),
            place=_tile(best.place, len(styles)),
            **_calls(g.state, _tile(best.target, len(styles)), _tile(best.pocket, len(styles))),
        ),
        valid=_tile(best.valid, len(styles)),
        target=_tile(best.target, len(styles)),
        pocket=_tile(best.pocket, len(styles)),
    )


def _aimed(
    g: Geometry, heading: Any, index: Any, own: Any, obj: Any, pocket: Any, ok: Any, speed: Any, b: Any = 0.0
) -> Family:
    """The kept candidates of a family: the own ball sent along `heading` (flattened at `index`)."""
    return Family(
        moves=move(
            ball=own,
            speed=speed,
            phi=_phi(heading.reshape(-1, 2)[index]),
            b=b,
            place=g.own_xy[own],
            **_calls(g.state, obj, pocket),
        ),
        valid=ok,
        target=obj,
        pocket=pocket,
    )


def _in_offs(g: Geometry, k: int) -> Family:
    """Own ball off object ball into a pocket (FREE-5.4, COMB-5.1, DYN-5.1), the `k` shortest.

    A stunned own ball leaves a collision square to the line of centres n, so it heads
    for pocket P from the ghost G = X - 2R n when n . (P - X) = -2R: n is the direction
    to the pocket turned by arccos(-2R / |P - X|), either way.
    """
    pos = g.state.positions
    d, D = unit(g.mouth_aim[None] - pos[:, None])  # (T, P, 2)
    alpha = jnp.arccos(jnp.clip(-2.0 * g.R / D, -1.0, 1.0))
    turns = jnp.stack([alpha, -alpha], axis=-1)  # (T, P, S)
    c, s = jnp.cos(turns), jnp.sin(turns)
    n = jnp.stack([c * d[..., None, 0] - s * d[..., None, 1], s * d[..., None, 0] + c * d[..., None, 1]], -1)
    ghost = pos[:, None, None] - 2.0 * g.R * n  # (T, P, S, 2)
    heading, travel = unit(ghost[None] - g.own_xy[:, None, None, None])  # (O, T, P, S)
    cos_cut = jnp.sum(heading * n[None], axis=-1)
    tangent = heading - cos_cut[..., None] * n[None]
    leave, after = unit(g.mouth_aim[None, :, None] - ghost)  # (T, P, S)
    towards = jnp.sum(tangent * leave[None], axis=-1) > 0.0
    room = pocket_room(jnp.moveaxis(leave, 1, -2), g.noses, g.nose_radius, g.reach)  # (T, S, P)
    room = jnp.moveaxis(room, -1, 1)
    cut = jnp.degrees(jnp.arccos(jnp.clip(cos_cut, -1.0, 1.0)))
    allowed = (g.state.variant != ids.CLASSIC) & ~g.state.object_only & (g.state.phase != st.BREAK)
    valid = (
        allowed
        & (g.pair_ok & g.own_clear)[..., None, None]
        & towards
        & (room[None] > 0.0)
        & (cut > 15.0)
        & (cut < MAX_CUT_DEG - 10.0)
        & (travel > 2.0 * g.R)
    )
    score = jnp.where(valid, -(travel + after[None]) - jnp.abs(cut - 45.0) / 45.0, -jnp.inf)
    ok, index = _top(score, k)
    own, obj, pocket, _ = jnp.unravel_index(index, score.shape)
    return _aimed(g, heading, index, own, obj, pocket, ok, IN_OFF_SPEED, IN_OFF_TIP)


def _doubles(g: Geometry, k: int) -> Family:
    """Object ball off one cushion into a pocket (the pocket mirrored in the cushion line), the `k` best."""
    pos, on = g.state.positions, g.state.on_table
    balls = jnp.arange(N)
    # (rail, pocket, 2): each pocket's aim point mirrored in each cushion line.
    mirrored = _mirror(g.mouth_aim[None], g.rail_axis[:, None], g.rail_coord[:, None])
    to_image, path = unit(mirrored[None] - pos[:, None, None])  # (T, Rl, P)
    bounce_ok, hit = _bounce_ok(
        pos[:, None, None],
        mirrored[None],
        g.rail_axis[None, :, None],
        g.rail_coord[None, :, None],
        g.mouth_aim,
    )
    into, _ = unit(g.mouth_aim[None, None] - hit)  # (T, Rl, P, 2): the last leg's direction
    room = pocket_room(into, g.noses, g.nose_radius, g.reach)
    blocked = _blocked(pos, on, pos[:, None, None], hit, balls[:, None, None], g.R) | _blocked(
        pos, on, hit, g.mouth_aim[None, None], balls[:, None, None], g.R
    )
    ghost = pos[:, None, None] - 2.0 * g.R * to_image
    heading, travel = unit(ghost[None] - g.own_xy[:, None, None, None])  # (O, T, Rl, P)
    cut = jnp.degrees(jnp.arccos(jnp.clip(jnp.sum(heading * to_image[None], axis=-1), -1.0, 1.0)))
    valid = (
        (g.state.phase != st.BREAK)
        & (g.pair_ok & g.own_clear)[..., None, None]
        & (bounce_ok & ~blocked & (room > 0.0))[None]
        & (cut < MAX_CUT_DEG - 20.0)
        & (travel > 2.0 * g.R)
    )
    score = jnp.where(valid, -(travel + path[None]) - cut / 30.0, -jnp.inf)
    ok, index = _top(score, k)
    own, obj, _, pocket = jnp.unravel_index(index, score.shape)
    speed = jnp.clip(2.0 + 1.5 * (travel + path[None]).ravel()[index], 2.0, 6.0)
    return _aimed(g, heading, index, own, obj, pocket, ok, speed)


def _kicks(g: Geometry, k: int) -> Family:
    """Own ball off one cushion onto a direct pot's ghost ball (the ghost mirrored), the `k` best."""
    pos, on = g.state.positions, g.state.on_table
    balls = jnp.arange(N)
    to_target, to_pocket = unit(g.mouth_aim[None] - pos[:, None])  # (T, P)
    room = pocket_room(to_target, g.noses, g.nose_radius, g.reach)
    obj_blocked = _blocked(pos, on, pos[:, None], g.mouth_aim[None], balls[:, None], g.R)
    ghost = pos[:, None] - 2.0 * g.R * to_target  # (T, P, 2)
    image = _mirror(ghost[:, :, None], g.rail_axis, g.rail_coord)  # (T, P, Rl, 2)
    start = g.own_xy[:, None, None, None]
    bounce_ok, hit = _bounce_ok(start, image[None], g.rail_axis, g.rail_coord, g.mouth_aim)  # (O, T, P, Rl)
    heading, first_leg = unit(image[None] - start)
    arrive, _ = unit(ghost[None, :, :, None] - hit)
    cut = jnp.degrees(jnp.arccos(jnp.clip(jnp.sum(arrive * to_target[None, :, :, None], axis=-1), -1.0, 1.0)))
    valid = (
        (g.state.phase != st.BREAK)
        & g.pair_ok[..., None, None]
        & bounce_ok
        & (room > 0.0)[None, ..., None]
        & ~obj_blocked[None, ..., None]
        & (cut < MAX_CUT_DEG - 30.0)
    )
    score = jnp.where(valid, -first_leg - to_pocket[None, ..., None] - cut / 30.0, -jnp.inf)
    ok, index = _top(score, k)
    own, obj, pocket, _ = jnp.unravel_index(index, score.shape)
    speed = jnp.clip(2.5 + 1.5 * (first_leg.ravel()[index] + to_pocket[obj, pocket]), 2.5, 6.5)
    return _aimed(g, heading, index, own, obj, pocket, ok, speed)


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


def _safeties(g: Geometry, pairs: int, dims: st.Dims) -> Family:
    """Full and half-ball hits on the `pairs` cheapest (own, object) pairs, at two speeds.

    The pairs and their costs are `safety_costs`'s (greedy's safety too). In Classic the
    hit ball is called into its nearest pocket (CLS-5.2).
    """
    pos = g.state.positions
    own_xy, cost = g.own_xy, safety_costs(g.state, g.own_xy, dims)
    ok, index = _top(-cost, pairs)
    own, obj = jnp.unravel_index(index, cost.shape)
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
    place: Any,
    menu: Menu,
    rule: PowerRule,
    dims: st.Dims,
    table: Table,
    params: PhysicsParams,
    models: Models,
) -> Family:
    """One table's menu (`menu.size` moves): `best` is its `candidates` (k = `menu.pots`, at least 3).

    `place` (2,) is where a ball in hand stands for the shots other than pots (`hand_places`).

    In the BREAK phase the moves are break variants; elsewhere pots, in-offs, doubles,
    kicks and safeties, in that order. Every move carries the default decision in its
    decision fields (the search decides separately).
    """
    g = _geometry(state, place, dims, table, params, models)
    families = [
        _pots(g, best, rule, params, models),
        _in_offs(g, menu.in_offs),
        _doubles(g, menu.doubles),
        _kicks(g, menu.kicks),
        _safeties(g, menu.safety_pairs, dims),
    ]
    shots = jax.tree_util.tree_map(lambda *xs: jnp.concatenate(xs), *families)
    breaks = _breaks(state, best, menu.size)
    chosen = jax.tree_util.tree_map(
        lambda x, y: jnp.where((state.phase == st.BREAK).reshape((1,) * x.ndim), x, y), breaks, shots
    )
    decision = default_decision(state, dims)
    return Family(
        moves=chosen.moves.replace(
            option=jnp.broadcast_to(decision.option, (menu.size,)),
            take=jnp.broadcast_to(decision.ball, (menu.size,)),
        ),
        valid=chosen.valid,
        target=chosen.target,
        pocket=chosen.pocket,
    )


@functools.partial(jax.jit, static_argnames=("menu", "rule", "dims", "models"))
def shot_menu(
    states: st.GameState,
    menu: Menu = Menu(),
    rule: PowerRule = PowerRule(),  # noqa: B008 (frozen, hashable)
    dims: st.Dims = st.DEFAULT_DIMS,
    table: Table | None = None,
    params: PhysicsParams = PYRAMID_PARAMS,
    models: Models = Models(),  # noqa: B008 (frozen, hashable)
) -> Family:
    """The menu of a batch of tables (fields (B, `menu.size`)): the one list of candidate shots.

    The search bot simulates it, greedy plays its first pot (or its plain safety), the
    environments' `assisted` actions pick a slot of it and the trained policy scores it.
    """
    table = preset() if table is None else table
    best = candidates(states, dims, menu.pots, rule, table, params, models)
    places = hand_places(states, dims)
    return jax.vmap(lambda s, c, p: table_menu(s, c, p, menu, rule, dims, table, params, models))(
        states, best, places
    )
