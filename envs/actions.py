"""How an action becomes a move: the `raw` and `assisted` action modes.

`raw` is one flat `Box(-1, 1, (RAW_SIZE,))`, so stable-baselines3's PPO and SAC work
without wrappers. Every component is always read, and only the ones the phase needs
matter (a discrete choice is decoded from a number by cutting [-1, 1] into equal parts):

| index | meaning |
|---|---|
| 0 | own ball: the k-th strikable ball in id order (Free after the break: any on the table, G4.3) |
| 1 | aim: phi = 180 x u degrees counter-clockwise from +x |
| 2 | power: cue speed from `MIN_SPEED` to `MAX_SPEED` m/s |
| 3, 4 | tip offsets a (side) and b (vertical) as fractions of R, scaled into the disc of radius `MAX_TIP` |
| 5, 6 | ball in hand: a point of the hand region's box, moved to the nearest legal point (G11, G21.2) |
| 7, 8 | Classic call: the k-th object ball on the table and the pocket (0-5) (CLS-5.2) |
| 9, 10 | a pending decision: the k-th allowed option and the k-th ball that may be taken |

`assisted` is a `MultiDiscrete([K, AIM_STEPS, POWER_STEPS, SPIN_STEPS, SPIN_STEPS])`:
a slot of the shot menu (`agents.menu`, the list the search bot and greedy choose from:
pots in four power and spin styles, in-offs, doubles, kicks, safeties, or the break
variants, each with its own ball, aim, power, spin, placement and Classic call), then
corrections of the aim (+-`AIM_RANGE` degrees), the power (x `POWER_RANGE`) and the side
and vertical spin (added to the slot's own, within the `MAX_TIP` disc).
Corrections are quantised because stable-baselines3 and sb3-contrib's MaskablePPO take
only discrete spaces for masked choices. In a decision the slot k means option k // 16
and ball k % 16 (a ball is ignored where the decision takes none). `assisted_masks` gives
the legal slots (MaskablePPO's `action_masks()`).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import jax
import jax.numpy as jnp
import numpy as np

from piramida.agents.greedy import safety_move
from piramida.agents.menu import Family, Menu, hand_places, moves_at
from piramida.rules import ids, placement
from piramida.rules import state as st
from piramida.rules.decisions import eligible_balls
from piramida.rules.game import Move, move

RAW_SIZE = 11
MIN_SPEED, MAX_SPEED = 0.5, 9.0  # m/s: a touch to a hard break
MAX_TIP = 0.5  # fraction of R: beyond about half a radius a real cue miscues

MENU = Menu()  # the assisted actions' menu: the search bot's at its default level
K = MENU.size  # menu slots; 4 options x 16 balls in a decision
AIM_STEPS, AIM_RANGE = 21, 1.0  # degrees: -1.0, -0.9, ..., +1.0
POWER_STEPS, POWER_RANGE = 11, (0.6, 1.6)  # times the candidate's speed
SPIN_STEPS, SPIN_RANGE = 5, 0.4  # fractions of R: -0.4, -0.2, 0, 0.2, 0.4
ASSISTED_NVEC = (K, AIM_STEPS, POWER_STEPS, SPIN_STEPS, SPIN_STEPS)


def action_space(mode: str) -> gym.Space[Any]:
    """The `raw` Box or the `assisted` MultiDiscrete."""
    if mode == "raw":
        return gym.spaces.Box(-1.0, 1.0, (RAW_SIZE,), np.float32)
    if mode == "assisted":
        return gym.spaces.MultiDiscrete(np.asarray(ASSISTED_NVEC, np.int64))
    raise ValueError(f"action_mode: expected 'raw' or 'assisted', got {mode!r}")


def _unit(u: Any) -> Any:
    """[-1, 1] -> [0, 1]."""
    return (jnp.clip(u, -1.0, 1.0) + 1.0) / 2.0


def _kth(mask: Any, u: Any) -> Any:
    """The k-th True index of `mask`, k from cutting [-1, 1] into sum(mask) parts; -1 if none."""
    count = jnp.sum(mask)
    k = jnp.minimum(jnp.floor(_unit(u) * count), count - 1)
    rank = jnp.cumsum(mask) - 1
    hit = mask & (rank == k)
    return jnp.where(count > 0, jnp.argmax(hit), -1).astype(jnp.int32)


def strikable(state: st.GameState) -> Any:
    """(16,) balls the player may strike now: the fixed own ball, or any ball on the table (G4.3)."""
    balls = jnp.arange(ids.N_BALLS)
    placing = (state.phase == st.BREAK) | (state.phase == st.IN_HAND)
    fixed = jnp.where(state.own_ball >= 0, state.own_ball, ids.COLOURED)
    free_choice = (state.own_ball < 0) & ~placing
    return jnp.where(free_choice, state.on_table, balls == fixed)


def _preferred_place(state: st.GameState, u: Any, dims: st.Dims) -> Any:
    """The point of the hand region's box that `u` (2,) names; `decode_raw` makes it legal."""
    region = st.hand_region(state, dims)
    x_lo, x_hi, y_lo, y_hi = placement.region_bounds(region, dims.width, dims.length, dims.R)
    return jnp.stack([x_lo + _unit(u[0]) * (x_hi - x_lo), y_lo + _unit(u[1]) * (y_hi - y_lo)])


def _tip(a: Any, b: Any) -> tuple[Any, Any]:
    norm = jnp.sqrt(a * a + b * b)
    shrink = jnp.where(norm > MAX_TIP, MAX_TIP / jnp.maximum(norm, 1e-12), 1.0)
    return a * shrink, b * shrink


def decode_raw(states: st.GameState, actions: Any, dims: st.Dims) -> Move:
    """A batch's `raw` actions (B, RAW_SIZE) as moves: the ball in hand placed legally near its point."""
    moves = jax.vmap(lambda s, u: _decode_raw_table(s, u, dims))(states, actions)
    return moves.replace(place=st.placements(states, moves.place, dims))


def _decode_raw_table(state: st.GameState, u: Any, dims: st.Dims) -> Move:
    """One table's `raw` action (RAW_SIZE,) as a `Move`, its place the point `u` names."""
    u = jnp.asarray(u, jnp.float64)
    a, b = _tip(MAX_TIP * u[3], MAX_TIP * u[4])
    objects = state.on_table & (jnp.arange(ids.N_BALLS) != ids.COLOURED)
    options = ((state.options >> jnp.arange(4)) & 1) == 1
    return move(
        ball=_kth(strikable(state), u[0]),
        speed=MIN_SPEED + _unit(u[2]) * (MAX_SPEED - MIN_SPEED),
        phi=180.0 * jnp.clip(u[1], -1.0, 1.0),
        a=a,
        b=b,
        place=_preferred_place(state, u[5:7], dims),
        call_ball=_kth(objects, u[7]),
        call_pocket=jnp.minimum(jnp.floor(_unit(u[8]) * 6), 5).astype(jnp.int32),
        option=jnp.maximum(_kth(options, u[9]), 0),
        take=_kth(eligible_balls(state), u[10]),
    )


def _decision_slots(state: st.GameState) -> Any:
    """(K,) legal decision slots: option k // 16 allowed and ball k % 16 eligible (or none needed)."""
    option = jnp.arange(K) // ids.N_BALLS
    ball = jnp.arange(K) % ids.N_BALLS
    no_options = state.options == 0
    option_ok = jnp.where(no_options, option == 0, ((state.options >> option) & 1) == 1)
    eligible = eligible_balls(state)
    ball_ok = jnp.where(jnp.any(eligible), eligible[ball], ball == 0)
    return option_ok & ball_ok


def assisted_mask_table(state: st.GameState, found: Family) -> Any:
    """One table's action mask, (sum(ASSISTED_NVEC),) bool: legal slots, then every correction."""
    shot_slots = jnp.where(jnp.any(found.valid), found.valid, jnp.arange(K) == 0)
    slots = jnp.where(state.phase == st.DECISION, _decision_slots(state), shot_slots)
    slots = jnp.where(state.phase == st.OVER, jnp.arange(K) == 0, slots)
    return jnp.concatenate([slots, jnp.ones(sum(ASSISTED_NVEC[1:]), bool)])


def assisted_fallbacks(states: st.GameState, actions: Any, found: Family, dims: st.Dims) -> Move:
    """(B,) the safety shot each table plays for an invalid slot (`decode_assisted_table`).

    Planned only when some table chose an invalid slot (a `cond` on the batch); the moves
    elsewhere are placeholders that no table plays.
    """
    slot = jnp.clip(jnp.asarray(actions[:, 0], jnp.int32), 0, K - 1)
    chosen = jnp.take_along_axis(found.valid, slot[:, None], axis=1)[:, 0]
    needed = ~chosen & (states.phase != st.DECISION)
    plan = jax.vmap(lambda s, p: safety_move(s, p))
    return jax.lax.cond(
        jnp.any(needed), lambda: plan(states, hand_places(states, dims)), lambda: moves_at(found.moves, slot)
    )


def decode_assisted_table(state: st.GameState, action: Any, found: Family, fallback: Move) -> Move:
    """One table's `assisted` action (5,) as a `Move`; an invalid slot plays `fallback`.

    `fallback` is the safety shot (`agents.greedy.safety_move`, `assisted_fallbacks`).
    """
    slot, aim, power, side, vertical = (jnp.asarray(action[i], jnp.int32) for i in range(5))
    slot = jnp.clip(slot, 0, K - 1)
    pick = jax.tree_util.tree_map(lambda x: x[slot], found.moves)
    spin = lambda i: (i / (SPIN_STEPS - 1) * 2.0 - 1.0) * SPIN_RANGE  # noqa: E731
    a, b = _tip(pick.a + spin(side), pick.b + spin(vertical))
    low, high = POWER_RANGE
    shot = pick.replace(
        speed=jnp.clip(pick.speed * (low + power / (POWER_STEPS - 1) * (high - low)), MIN_SPEED, MAX_SPEED),
        phi=pick.phi + (aim / (AIM_STEPS - 1) * 2.0 - 1.0) * AIM_RANGE,
        a=a,
        b=b,
    )
    shot = jax.tree_util.tree_map(lambda x, y: jnp.where(found.valid[slot], x, y), shot, fallback)
    decision = move(
        option=slot // ids.N_BALLS, take=jnp.where(jnp.any(eligible_balls(state)), slot % ids.N_BALLS, -1)
    )
    return jax.tree_util.tree_map(lambda x, y: jnp.where(state.phase == st.DECISION, x, y), decision, shot)
