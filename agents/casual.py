"""The casual bot: greedy's shot menu chosen from the way a casual player chooses, not the best.

A person who has played a few frames sees a pot but not always the easiest one, and now
and then just hits a ball to see what happens. The bottom levels of the play page need
such an opponent: greedy always takes the menu's easiest pot, and in Free pyramid, where
any ball may be the own ball, easy pots abound, so even a poor cue pots most of them.

The casual bot plays from greedy's menu (`greedy.GREEDY_MENU`): on each shot it picks
one of the menu's first `top` pots uniformly at random (the candidates ranked easiest
first), and with probability `wild` (default none) it plays a random legal shot instead
(`random_agent.random_moves`: any own ball, any aim, any speed). With no pot on it plays
greedy's plain safety. Breaks and decisions are greedy's. Each table draws from its own
key, so a table's move does not depend on the batch, and the same keys give the same moves.
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp
from jax import Array

from piramida.agents.candidates import PowerRule
from piramida.agents.greedy import GREEDY_MENU, GreedyAgent, greedy_from_menu
from piramida.agents.menu import moves_at, shot_menu
from piramida.agents.random_agent import random_moves, uniform_choice
from piramida.rules import state as st
from piramida.rules.game import Move, where_tables
from piramida.rules.setup import Setup

TOP = GREEDY_MENU.pots  # the plain pots of greedy's menu (slots 0 .. TOP - 1), easiest first
WILD = 0.0  # the share of shots played at random: none for the page's `novice` level (docs/levels.md)


@functools.partial(jax.jit, static_argnames=("rule", "top"))
def casual_moves(
    states: st.GameState,
    keys: Array,
    wild: Any,
    setup: Setup,
    rule: PowerRule,
    top: int = TOP,
) -> Move:
    """`CasualAgent.act` as a function on (B,) states and (B, 2) keys (module docstring)."""
    menu = shot_menu(states, GREEDY_MENU, rule, setup)
    greedy = greedy_from_menu(states, menu, setup, rule)
    split = jax.vmap(lambda k: jax.random.split(k, 3))(keys)
    slot = jax.vmap(uniform_choice)(split[:, 0], menu.valid[:, :top])
    picked = moves_at(menu.moves, jnp.maximum(slot, 0))
    shooting = (states.phase == st.NORMAL) | (states.phase == st.IN_HAND)
    chosen = where_tables(shooting & (slot >= 0), picked, greedy)
    wild_shot = shooting & (jax.vmap(jax.random.uniform)(split[:, 1]) < wild)
    return where_tables(wild_shot, random_moves(states, split[:, 2], setup.dims), chosen)


class CasualAgent(GreedyAgent):
    """One of greedy's first `top` pots at random, or with probability `wild` a random legal shot.

    `top=1, wild=0` plays as greedy does. See the module docstring for why. The other
    settings (power rule, table, physics) are greedy's.
    """

    name = "casual"

    def __init__(self, top: int = TOP, wild: float = WILD, **greedy: Any) -> None:
        """A casual bot choosing among `top` (1..`TOP`) pots, a random shot with probability `wild`."""
        if not 1 <= top <= TOP:
            raise ValueError(f"casual: top must be 1..{TOP} (greedy's menu holds {TOP} pots), got {top}")
        if not 0.0 <= wild <= 1.0:
            raise ValueError(f"casual: wild must be a probability in [0, 1], got {wild}")
        super().__init__(**greedy)
        self.top = top
        self.wild = wild

    def act(self, states: st.GameState, keys: Array) -> Move:
        """The casual moves: states (B,), keys (B, 2)."""
        return casual_moves(
            states,
            keys,
            jnp.asarray(self.wild),
            self.setup,
            self.rule,
            self.top,
        )
