"""The trained bot: a network that scores the shot menu, taught by the search bot.

It plays the same menu as the search bot (`agents.menu`), but instead of simulating each
slot it scores them all with one small network (`agents.scorer`) from what a player would
weigh (`agents.slots`) and plays the best legal slot, as it stands: no simulation, so a
move costs a menu and a forward pass. Decisions (G6, G12.2, DYN-7, the penalty and
exchange balls) are the search's: the closed-form value of each allowed choice, which
needs no simulation either.

The policy shipped with piramida (`agents/data/trained.npz` and its `.json`, arrays and
JSON, no pickle) is the default; the JSON says how it was made (command, seed, data set,
hours, machine). `training.distill` makes new ones.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
from jax import Array

from piramida.agents.greedy import safety_move
from piramida.agents.menu import Menu, moves_at, shot_menu
from piramida.agents.scorer import load, score
from piramida.agents.search import DEFAULT_LEVEL, LEVELS, best_decisions
from piramida.agents.slots import observe_slots
from piramida.physics import noise
from piramida.physics.params import PYRAMID_PARAMS, Models
from piramida.physics.table import preset
from piramida.rules import ids
from piramida.rules import state as st
from piramida.rules.decisions import default_decision
from piramida.rules.game import Move, move, where_tables

SHIPPED = Path(__file__).with_name("data") / "trained.npz"
VALUE_CONFIG = LEVELS[DEFAULT_LEVEL]  # the search's value of a decision (its position weight)


def _shots(params: Any, states: st.GameState, magnitude: Any, width: int, menu: Menu) -> Move:
    """(B,) shots: the best-scored legal menu slot (the plain safety where the menu is empty)."""
    dims, table = st.DEFAULT_DIMS, preset()
    family = shot_menu(states, menu, dims=dims, table=table)
    view = observe_slots(states, family, magnitude, menu, dims, table)
    logits, _, _ = score(params, width, view)
    shot = moves_at(family.moves, jnp.argmax(logits, axis=-1))
    fallback = jax.vmap(lambda s: safety_move(s, dims))(states)
    return where_tables(jnp.any(family.valid, axis=1), shot, fallback)


@functools.partial(jax.jit, static_argnames=("width", "menu"))
def trained_moves(params: Any, states: st.GameState, magnitude: Any, width: int, menu: Menu) -> Move:
    """(B,) moves: shots by the network, decisions by the search's value.

    Each half runs only when some table needs it (a `cond` on the batch), so a move at
    batch 1 pays for one of them.
    """
    dims, table = st.DEFAULT_DIMS, preset()
    shooting = jnp.any(states.phase <= st.IN_HAND)  # BREAK, NORMAL or IN_HAND
    idle = move(ball=jnp.full(states.phase.shape, ids.COLOURED, jnp.int32))
    shot = jax.lax.cond(shooting, lambda: _shots(params, states, magnitude, width, menu), lambda: idle)
    decision = jax.lax.cond(
        jnp.any(states.phase == st.DECISION),
        lambda: best_decisions(states, magnitude, VALUE_CONFIG, dims, table, PYRAMID_PARAMS, Models()),
        lambda: jax.vmap(lambda s: default_decision(s, dims))(states),
    )
    return shot.replace(option=decision.option, take=decision.ball)


class TrainedAgent:
    """The trained bot (module docstring): a saved policy, by default the shipped one.

    Args:
      path: the policy's `.npz` (its metadata is the `.json` beside it).
      noise_level: the execution noise of the games it plays (a feature of its input).

    """

    name = "trained"

    def __init__(self, path: str | Path | None = None, noise_level: str | float = "pro") -> None:
        """Load the policy (`scorer.PolicyFileError` names a file that is not one)."""
        self.path = SHIPPED if path is None else Path(path)
        self.params, self.meta = load(self.path)
        self.width = int(self.meta["width"])
        self.menu = Menu(*self.meta["menu"])  # the menu it learned on (`scorer.load` checked it)
        self.magnitude = noise.level(noise_level)

    def act(self, states: st.GameState, keys: Array) -> Move:
        """The policy's moves: states (B,); deterministic (the keys are unused)."""
        del keys
        return trained_moves(self.params, states, self.magnitude, self.width, self.menu)
