"""The greedy agent: the best ghost-ball pot on the table, or a safe full hit when there is none.

It looks one shot ahead and no further: no position play, no defence. The pot is slot 0
of `candidates` (throw-corrected aim, power-rule speed); with no pot on, it hits the
nearest object ball it can reach full at a moderate speed, so that it at least makes
contact (G5.3) and the ball has a chance to reach a cushion (G20). Decisions follow the
referee's documented default policy (`decisions.default_decision`).
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp
from jax import Array

from piramida.agents.candidates import (
    Candidates,
    N,
    PowerRule,
    candidates,
    fixed_own,
    pocket_mouths,
    segment_distance,
    shot_pairs,
)
from piramida.physics.params import PYRAMID_PARAMS, Models, PhysicsParams
from piramida.physics.table import Table, preset
from piramida.rules import ids, placement
from piramida.rules import state as st
from piramida.rules.decisions import default_decision
from piramida.rules.game import Move, move

BLOCKED_COST = 100.0  # m: a blocked path loses to any clear one


def safety_costs(state: st.GameState, dims: st.Dims = st.DEFAULT_DIMS) -> tuple[Any, Any, Any]:
    """One table's (own ball, object ball) pairs for a safety, by cost: (place, own_xy, cost).

    `place` (2,) is where a ball in hand goes (`placement.default_placement`), `own_xy`
    (16, 2) where each own ball stands (placed from hand, or its spot), and `cost`
    (16, 16) the distance from own ball to object ball, plus `BLOCKED_COST` where another
    ball lies within 2R of the path; infinite for pairs the rules do not allow (G4, G21.2).
    """
    W, L, R = dims.width, dims.length, dims.R
    pos, on = state.positions, state.on_table
    balls = jnp.arange(N)
    placing = (state.phase == st.BREAK) | (state.phase == st.IN_HAND)
    region = st.hand_region(state, dims)
    place = placement.default_placement(region, pos, on, W, L, R, grid=placement.COARSE_GRID)
    own_xy = jnp.where((placing & (balls == fixed_own(state)))[:, None], place, pos)
    # Another ball within 2R of the own ball's path blocks it (the pair's own balls excluded).
    gaps = segment_distance(pos, own_xy[:, None, None, :], pos[None, :, None, :])  # (O, T, 16)
    others = on & (balls != balls[:, None, None]) & (balls != balls[None, :, None])
    blocked = jnp.any(others & (gaps < 2.0 * R), axis=-1)
    cost = jnp.linalg.norm(pos[None] - own_xy[:, None], axis=-1) + jnp.where(blocked, BLOCKED_COST, 0.0)
    return place, own_xy, jnp.where(shot_pairs(state, dims), cost, jnp.inf)


def safety_move(
    state: st.GameState,
    dims: st.Dims = st.DEFAULT_DIMS,
    rule: PowerRule = PowerRule(),  # noqa: B008 (frozen, hashable)
    table: Table | None = None,
) -> Move:
    """One table's safety: a full hit on the nearest object ball, and the default decision.

    The pair (own ball, object ball) the rules allow (G4, G21.2) with the shortest clear
    path wins (a blocked path only when every path is blocked); from hand the own ball
    stands at the default place (`placement.default_placement`). Cue speed
    `rule.safety_speed`, centre ball. In Classic it calls the ball it hits into that
    ball's nearest pocket (CLS-5.2). The decision fields hold `default_decision`.
    """
    pos = state.positions
    fixed = fixed_own(state)
    place, own_xy, cost = safety_costs(state, dims)
    pick = jnp.argmin(cost)
    found = jnp.any(jnp.isfinite(cost))
    own, target = jnp.where(found, pick // N, fixed), pick % N
    heading = pos[target] - own_xy[own]
    _, _, mouth_aim = pocket_mouths(preset() if table is None else table)
    calls = (state.variant == ids.CLASSIC) & found
    decision = default_decision(state, dims)
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


def _greedy_move(state: st.GameState, best: Candidates, dims: st.Dims, rule: PowerRule, table: Table) -> Move:
    """One table's move: the best pot (`best` slot 0) if there is one, else the safety."""
    safety = safety_move(state, dims, rule, table)
    classic = state.variant == ids.CLASSIC
    pot = safety.replace(
        ball=best.own[0],
        speed=best.speed[0],
        phi=best.phi[0],
        b=best.b[0],
        place=best.place[0],
        # CLS-5.2: the candidate's (ball, pocket) is the call.
        call_ball=jnp.where(classic, best.target[0], ids.NO_BALL),
        call_pocket=jnp.where(classic, best.pocket[0], -1),
    )
    return jax.tree_util.tree_map(lambda x, y: jnp.where(best.valid[0], x, y), pot, safety)


@functools.partial(jax.jit, static_argnames=("dims", "rule", "models"))
def greedy_moves(
    states: st.GameState,
    dims: st.Dims,
    rule: PowerRule,
    table: Table,
    params: PhysicsParams,
    models: Models,
) -> Move:
    """`GreedyAgent.act` as a function on (B,) states."""
    best = candidates(states, dims, 1, rule, table, params, models)
    return jax.vmap(lambda s, c: _greedy_move(s, c, dims, rule, table))(states, best)


class GreedyAgent:
    """Pots the best candidate (`candidates` slot 0) with its throw-corrected aim and power.

    With no candidate it plays a safety: a full hit on the nearest object ball it can
    reach (a clear path preferred) at `rule.safety_speed`. Decisions: the default policy
    (`decisions.default_decision`). In Classic the pot's (ball, pocket) is the call
    (CLS-5.2); a safety calls the ball it hits into its nearest pocket.
    """

    name = "greedy"

    def __init__(
        self,
        rule: PowerRule = PowerRule(),  # noqa: B008 (frozen, hashable)
        dims: st.Dims = st.DEFAULT_DIMS,
        table: Table | None = None,
        params: PhysicsParams = PYRAMID_PARAMS,
        models: Models = Models(),  # noqa: B008 (frozen, hashable)
    ) -> None:
        """A greedy agent with a power rule, for a table (default the `pyramid-12ft` preset)."""
        self.rule = rule
        self.dims = dims
        self.table = preset() if table is None else table
        self.params = params
        self.models = models

    def act(self, states: st.GameState, keys: Array) -> Move:
        """The greedy moves: states (B,); the keys are unused (the agent is deterministic)."""
        del keys
        return greedy_moves(states, self.dims, self.rule, self.table, self.params, self.models)
