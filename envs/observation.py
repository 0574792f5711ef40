"""What an agent sees: the game state from the side of the player to move, normalised, fixed size.

Every feature lies in [0, 1] (positions divided by the table's width and length), and the
layout never changes with the variant or the number of balls left, so one network can
play every variant. "Me" is always the player to move (the shooter, or the decider when a
decision is pending), so a policy trained from one seat plays from the other.

The `Dict` observation has the keys of `FIELDS`; the flat one is their concatenation in
that order (`FLAT_SIZE` numbers). The `menu` observation is what the trained bot sees
(`agents.slots`): the assisted actions' menu slot by slot (each slot's features), the
balls and the game, and the slots the menu holds, so a policy can score the very slots
its `assisted` action picks from (`MENU_FIELDS`).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import jax
import jax.numpy as jnp
import numpy as np

from piramida.agents.menu import shot_menu
from piramida.agents.slots import BALL_FEATURES as SLOT_BALL_FEATURES
from piramida.agents.slots import (
    BALL_SIZE,
    CONTEXT_FEATURES,
    CONTEXT_SIZE,
    SLOT_FEATURES,
    SLOT_SIZE,
    observe_slots,
)
from piramida.envs.actions import MENU
from piramida.rules import ids
from piramida.rules import state as st

N = ids.N_BALLS
BALL_FEATURES = ("x", "y", "on-table", "my-shelf", "opponent-shelf", "in-hand")

# (name, shape, meaning): docs/environments.md's observation table is written from this.
FIELDS: tuple[tuple[str, tuple[int, ...], str], ...] = (
    (
        "balls",
        (N, len(BALL_FEATURES)),
        "per ball id (0 coloured, 1-15 white/numbered): " + ", ".join(BALL_FEATURES),
    ),
    ("own_ball", (N + 1,), "one-hot: the fixed own ball, or the last slot when any ball may be (Free, G4.3)"),
    ("scores", (2,), "my and the opponent's score, divided by the winning total (8 balls; 71 in Classic)"),
    ("phase", (len(st.PHASE_NAMES),), "one-hot: " + ", ".join(st.PHASE_NAMES)),
    ("decision", (len(st.DECISION_NAMES),), "one-hot pending decision: " + ", ".join(st.DECISION_NAMES)),
    ("options", (4,), "the pending decision's allowed options (bit k of `options`)"),
    ("region", (len(ids.REGION_NAMES),), "one-hot hand region: " + ", ".join(ids.REGION_NAMES)),
    ("variant", (len(ids.VARIANT_NAMES),), "one-hot: " + ", ".join(ids.VARIANT_NAMES)),
    (
        "flags",
        (4,),
        "object-only shot (DYN-5.2), Classic 70:70 play-off (CLS-5.7), I broke, shots / shot limit",
    ),
)
FLAT_SIZE = sum(int(np.prod(shape)) for _, shape, _ in FIELDS)


def _names(features: tuple[tuple[str, int], ...]) -> str:
    return "; ".join(name if size == 1 else f"{name} ({size})" for name, size in features)


# The `menu` observation (`agents.slots`): unbounded Boxes, since cuts, distances and
# Classic scores leave [0, 1] (cut / 90 degrees reaches 2, a negative score goes below 0).
MENU_FIELDS: tuple[tuple[str, tuple[int, ...], str], ...] = (
    ("slots", (MENU.size, SLOT_SIZE), "per slot of the assisted actions' menu: " + _names(SLOT_FEATURES)),
    ("balls", (N, BALL_SIZE), "per ball id: " + _names(SLOT_BALL_FEATURES)),
    ("context", (CONTEXT_SIZE,), _names(CONTEXT_FEATURES)),
    ("legal", (MENU.size,), "1 where the menu holds a shot in that slot (0 in a decision)"),
)
KINDS = ("flat", "dict", "menu")


def observation_space(kind: str) -> gym.Space[Any]:
    """The `flat` Box, the `dict` of Boxes (all float32 in [0, 1]) or the `menu` Dict (float32)."""
    if kind == "flat":
        return gym.spaces.Box(0.0, 1.0, (FLAT_SIZE,), np.float32)
    if kind == "dict":
        return gym.spaces.Dict(
            {name: gym.spaces.Box(0.0, 1.0, shape, np.float32) for name, shape, _ in FIELDS}
        )
    if kind == "menu":
        spaces: dict[str, gym.Space[Any]] = {
            name: gym.spaces.Box(-np.inf, np.inf, shape, np.float32) for name, shape, _ in MENU_FIELDS
        }
        spaces["legal"] = gym.spaces.Box(0.0, 1.0, (MENU.size,), np.float32)
        return gym.spaces.Dict(spaces)
    raise ValueError(f"observation: expected one of {', '.join(KINDS)}, got {kind!r:.40}")


def _one_hot(index: Any, size: int) -> Any:
    return (jnp.arange(size) == index).astype(jnp.float32)


def observe_table(state: st.GameState, dims: st.Dims, shot_limit: int) -> dict[str, Any]:
    """One table's observation as a dict of float32 arrays (vmap for a batch)."""
    me = state.turn
    xy = jnp.where(state.on_table[:, None], state.positions / jnp.asarray([dims.width, dims.length]), 0.0)
    balls = jnp.concatenate(
        [
            jnp.clip(xy, 0.0, 1.0),
            state.on_table[:, None],
            (state.shelf == me)[:, None],
            (state.shelf == 1 - me)[:, None],
            st.in_hand(state)[:, None],
        ],
        axis=1,
    ).astype(jnp.float32)
    target = jnp.where(state.variant == ids.CLASSIC, st.CLASSIC_TARGET, st.FREE_TARGET)
    scores = jnp.stack([state.score[me], state.score[1 - me]]) / target
    flags = jnp.stack(
        [
            state.object_only.astype(jnp.float32),
            state.playoff.astype(jnp.float32),
            (state.breaker == me).astype(jnp.float32),
            jnp.minimum(state.shots / shot_limit, 1.0),
        ]
    )
    return {
        "balls": balls,
        "own_ball": _one_hot(jnp.where(state.own_ball >= 0, state.own_ball, N), N + 1),
        # Classic scores can go negative (CLS-5.8's minus points); clip into the box.
        "scores": jnp.clip(scores, 0.0, 1.0).astype(jnp.float32),
        "phase": _one_hot(state.phase, len(st.PHASE_NAMES)),
        "decision": _one_hot(state.decision, len(st.DECISION_NAMES)),
        "options": ((state.options >> jnp.arange(4)) & 1).astype(jnp.float32),
        "region": _one_hot(st.hand_region(state, dims), len(ids.REGION_NAMES)),
        "variant": _one_hot(state.variant, len(ids.VARIANT_NAMES)),
        "flags": flags.astype(jnp.float32),
    }


def observe_menu(states: st.GameState, noise: Any) -> dict[str, Any]:
    """A batch's `menu` observations: the slot features of the assisted actions' menu (`agents.slots`)."""
    view = observe_slots(states, shot_menu(states, MENU), noise, MENU)
    return {
        "slots": view.slots,
        "balls": view.balls,
        "context": view.context,
        "legal": view.legal.astype(jnp.float32),
    }


def observe(states: st.GameState, dims: st.Dims, shot_limit: Any, noise: Any, kind: str) -> Any:
    """A batch's observations (leading axis B): a (B, FLAT_SIZE) array or a dict of arrays.

    `noise` (the execution noise) is a feature of the `menu` observation only.
    """
    if kind == "menu":
        return observe_menu(states, noise)
    parts = jax.vmap(lambda s: observe_table(s, dims, shot_limit))(states)
    if kind == "dict":
        return parts
    batch = states.phase.shape[0]
    return jnp.concatenate([parts[name].reshape(batch, -1) for name, _, _ in FIELDS], axis=1)
