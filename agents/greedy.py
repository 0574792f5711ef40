"""The greedy agent: the best ghost-ball pot on the table, or a safe full hit when there is none.

It looks one shot ahead and no further: no position play, no defence. It plays from the
shot menu (`agents.menu`): its first slot, the best ghost-ball pot (throw-corrected aim,
power-rule speed); with no pot on, its plain safety, a full hit on the nearest object
ball it can reach at a moderate speed, so that it at least makes
contact (G5.3) and the ball has a chance to reach a cushion (G20). Decisions follow the
referee's documented default policy (`decisions.default_decision`).
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp
from jax import Array

from piramida.agents.candidates import N, PowerRule, fixed_own, pocket_mouths
from piramida.agents.menu import Family, Menu, hand_places, own_starts, safety_costs, shot_menu
from piramida.rules import ids
from piramida.rules import state as st
from piramida.rules.decisions import default_decision
from piramida.rules.game import Move, move, where_tables
from piramida.rules.setup import Setup, default_setup


def safety_move(
    state: st.GameState,
    place: Any,
    setup: Setup | None = None,
    rule: PowerRule = PowerRule(),  # noqa: B008 (frozen, hashable)
) -> Move:
    """One table's safety: a full hit on the nearest object ball, and the default decision.

    The pair (own ball, object ball) the rules allow (G4, G21.2) with the shortest clear
    path wins (a blocked path only when every path is blocked); from hand the own ball
    stands at `place` (2,), the default place (`menu.hand_places`). Cue speed
    `rule.safety_speed`, centre ball. In Classic it calls the ball it hits into that
    ball's nearest pocket (CLS-5.2). The decision fields hold `default_decision`.
    """
    setup = default_setup() if setup is None else setup
    pos = state.positions
    fixed = fixed_own(state)
    own_xy = own_starts(state, place)
    cost = safety_costs(state, own_xy, setup.dims)
    pick = jnp.argmin(cost)
    found = jnp.any(jnp.isfinite(cost))
    own, target = jnp.where(found, pick // N, fixed), pick % N
    heading = pos[target] - own_xy[own]
    _, _, mouth_aim = pocket_mouths(setup.table)
    calls = (state.variant == ids.CLASSIC) & found
    decision = default_decision(state, setup.dims)
    return move(
        ball=own,
        speed=rule.safety_speed,
        phi=jnp.where(found, jnp.degrees(jnp.arctan2(heading[1], heading[0])), 90.0),
        place=place,
        call_ball=jnp.where(calls, target, ids.NO_BALL),
        call_pocket=jnp.where(calls, jnp.argmin(jnp.linalg.norm(mouth_aim - pos[target], axis=-1)), -1),
        option=decision.option,
        take=decision.ball,
    )


# Greedy's menu: the fewest slots the menu allows (3 pots for the break placements), one
# safety pair. Its first pot and its plain safety are slots of every larger menu too.
GREEDY_MENU = Menu(pots=3, in_offs=0, doubles=0, kicks=0, safety_pairs=1)
PLAIN_SAFETY = GREEDY_MENU.safety_slot(speed=0, thickness=0, pair=0)  # a full hit on the cheapest pair


def _menu_move(menu: Family, rule: PowerRule) -> Move:
    """One table's move: its menu's first slot (a pot or the break) if it holds one, else its plain safety."""
    pick = lambda slot: jax.tree_util.tree_map(lambda x: x[slot], menu.moves)  # noqa: E731
    safety = pick(PLAIN_SAFETY).replace(speed=jnp.asarray(rule.safety_speed, menu.moves.speed.dtype))
    return jax.tree_util.tree_map(lambda x, y: jnp.where(menu.valid[0], x, y), pick(0), safety)


@functools.partial(jax.jit, static_argnames=("rule",))
def greedy_moves(
    states: st.GameState,
    setup: Setup,
    rule: PowerRule,
) -> Move:
    """`GreedyAgent.act` as a function on (B,) states.

    A table whose menu holds neither a pot nor a safety (no pair the rules allow is left)
    plays `safety_move`, planned only when some table needs it (a `cond` on the batch).
    """
    menu = shot_menu(states, GREEDY_MENU, rule, setup)
    return greedy_from_menu(states, menu, setup, rule)


def greedy_from_menu(states: st.GameState, menu: Family, setup: Setup, rule: PowerRule) -> Move:
    """`greedy_moves` on (B,) states whose `GREEDY_MENU` is `menu` (for bots that start from greedy)."""
    chosen = jax.vmap(lambda m: _menu_move(m, rule))(menu)
    empty = ~menu.valid[:, 0] & ~menu.valid[:, PLAIN_SAFETY]
    plan = jax.vmap(lambda s, p: safety_move(s, p, setup, rule))
    fallback = jax.lax.cond(
        jnp.any(empty), lambda: plan(states, hand_places(states, setup.dims)), lambda: chosen
    )
    return where_tables(empty, fallback, chosen)


class GreedyAgent:
    """Pots the menu's best pot (its slot 0) with its throw-corrected aim and power.

    With no candidate it plays a safety: a full hit on the nearest object ball it can
    reach (a clear path preferred) at `rule.safety_speed`. Decisions: the default policy
    (`decisions.default_decision`). In Classic the pot's (ball, pocket) is the call
    (CLS-5.2); a safety calls the ball it hits into its nearest pocket.
    """

    name = "greedy"

    def __init__(
        self,
        rule: PowerRule = PowerRule(),  # noqa: B008 (frozen, hashable)
        setup: Setup | None = None,
    ) -> None:
        """A greedy agent with a power rule, for a table (default the `pyramid-12ft` preset)."""
        self.rule = rule
        self.setup = default_setup() if setup is None else setup

    def act(self, states: st.GameState, keys: Array) -> Move:
        """The greedy moves: states (B,); the keys are unused (the agent is deterministic)."""
        del keys
        return greedy_moves(states, self.setup, self.rule)
