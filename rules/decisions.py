"""Decisions that are not shots, and the default policy that makes them.

After a foul the non-offender decides (G6; G12.2 after a failed break; DYN-7 in
Dynamic) and, outside Classic, takes a penalty ball from the table (FREE-7, COMB-7,
DYN-7; A-05: Classic has none). After legally pocketing the own ball in Combined or
Dynamic the shooter takes a ball in exchange (COMB-5.2, DYN-5.2, A-09); when a foul was
declared after that shot ended (G22.3), the opponent's penalty decision follows it. A
state whose phase is `DECISION` waits for one `Decision`: an option
(`state.OPTION_NAMES`) and, where the decision takes one, a ball.

Default policy (`default_decision`), used when no agent decides:
- the ball taken (penalty or exchange): the eligible ball farthest from every pocket
  (the hardest to pot; the easy ones stay for the taker's own shots), ties to the lower id;
- G6: (1), shoot himself;
- G12.2: (1), accept the position and shoot himself;
- DYN-7: (1), continue from the existing position, or (2) when the own ball is off the
  table and (1) is not allowed (A-11).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from piramida.rules import ids
from piramida.rules import state as st

BALLS = np.arange(ids.N_BALLS)  # numpy: canonicalised to the caller's int width where it is used
SHOT_CLOCK_S = 45.0  # G26: the time for a shot, when the referee imposes the clock
SHOT_CLOCK_WARNING_S = 10.0  # G26: the warning when this much is left
BAD_PHASE, BAD_OPTION, BAD_BALL = 1, 2, 4  # `decide`'s invalid bits
DECISION_INVALID_NAMES: tuple[str, ...] = ("no-decision-pending", "option", "ball")


@jax.tree_util.register_dataclass
@dataclass(frozen=True)
class Decision:
    """A decision for one table (fields are scalars, or (B,) in a batch).

    Attributes:
      option: index into `state.OPTION_NAMES[kind]` (ignored by decisions with no options).
      ball: the ball taken from the table (penalty or exchange), or -1 where none is taken.

    """

    option: Any = 0
    ball: Any = -1


def slow_play(elapsed_s: float, extensions_left: int, extension_requested: bool) -> tuple[bool, int]:
    """G26 with its 45 s clock, for a human match: (is it a foul, extensions left).

    The clock runs from the end of the previous shot (G14.1). A player who asks for it
    gets one more 45 s, once per match; twice when the score is level and one frame is
    left (A-35: 2 extensions in all in that frame). Call with the seconds the player has
    taken so far when he strikes or asks; a foul here enters the referee as the declared
    foul "slow-play" (`verdict.FOULS`, G29.1(11)); its penalty is the variant's (A-35).
    """
    allowed = SHOT_CLOCK_S
    if extension_requested and extensions_left > 0:
        allowed, extensions_left = 2 * SHOT_CLOCK_S, extensions_left - 1
    return elapsed_s > allowed, extensions_left


def extensions_for_match(level_and_last_frame: bool) -> int:
    """G26, A-35: one extension per player per match, two in a level deciding frame."""
    return 2 if level_and_last_frame else 1


def takes_ball(state: st.GameState) -> Any:
    """Whether the pending decision takes a ball: never in Classic (A-05)."""
    table = jnp.asarray(st.TAKES_BALL)
    return table[state.decision] & (state.variant != ids.CLASSIC)


def eligible_balls(state: st.GameState) -> Any:
    """(16,) balls the pending decision may take from the table.

    Any ball on the table (FREE-7, COMB-5.2, COMB-7, DYN-5.2, DYN-7), except the
    coloured ball where it is the fixed own ball (COMB/DYN) and after a failed break
    (it must break again, G11.2).
    """
    coloured = BALLS == ids.COLOURED
    keep_coloured = (state.variant != ids.FREE) | (state.decision == st.G12_2)
    return state.on_table & ~(coloured & keep_coloured) & takes_ball(state)


def _pocket_points(dims: st.Dims) -> Any:
    w, length = dims.width, dims.length
    return jnp.asarray([[0, 0], [w, 0], [0, length / 2], [w, length / 2], [0, length], [w, length]])


def default_decision(state: st.GameState, dims: st.Dims = st.DEFAULT_DIMS) -> Decision:
    """The documented default policy (module docstring) for one table."""
    eligible = eligible_balls(state)
    gaps = jnp.linalg.norm(state.positions[:, None] - _pocket_points(dims)[None], axis=-1)
    nearest = jnp.min(gaps, axis=1)
    ball = jnp.argmax(jnp.where(eligible, nearest, -1.0))
    ball = jnp.where(jnp.any(eligible), ball, -1)
    first_allowed = jnp.argmax((state.options >> jnp.arange(4)) & 1)
    return Decision(option=jnp.int32(first_allowed), ball=jnp.int32(ball))


def decide(
    state: st.GameState, decision: Decision, dims: st.Dims = st.DEFAULT_DIMS
) -> tuple[Any, st.GameState]:
    """Apply the pending decision (one table). Returns (invalid bits, next state).

    An invalid decision (none pending, an option not allowed, a ball that may not be
    taken) leaves the state unchanged.
    """
    kind = state.decision
    decider = state.turn
    other = 1 - decider  # the offender after a foul; the opponent after an exchange
    option = jnp.asarray(decision.option, jnp.int32)
    ball = jnp.asarray(decision.ball, jnp.int32)
    eligible = eligible_balls(state)
    needs_ball = jnp.any(eligible)
    ball_ok = jnp.where(
        needs_ball, (ball >= 0) & (ball < ids.N_BALLS) & eligible[jnp.clip(ball, 0)], ball < 0
    )
    has_options = state.options != 0
    option_ok = ~has_options | (
        (option >= 0) & (option < 4) & ((state.options >> jnp.clip(option, 0, 3)) & 1 == 1)
    )
    invalid = (
        jnp.where(state.phase != st.DECISION, BAD_PHASE, 0)
        | jnp.where(option_ok, 0, BAD_OPTION)
        | jnp.where(ball_ok, 0, BAD_BALL)
    ).astype(jnp.int32)

    # The ball taken goes onto the decider's shelf and scores one point.
    taken = (ball == BALLS) & needs_ball
    shelf = jnp.where(taken, decider, state.shelf)
    on_table = state.on_table & ~taken
    positions = jnp.where(taken[:, None], jnp.asarray(ids.OFF_TABLE_XY), state.positions)
    score = state.score + jnp.where((jnp.arange(2) == decider) & needs_ball, 1, 0).astype(jnp.int32)
    won = needs_ball & (jnp.sum(shelf == decider) >= st.FREE_TARGET)  # FREE-1, COMB-1, DYN-1

    own = jnp.where(state.own_ball >= 0, state.own_ball, ids.COLOURED)
    own_on = on_table[own]
    key, key_rack = jax.random.split(state.key)
    rerack = (kind == st.G12_2) & (option >= 2)  # G12.2(3), (4), with G12.2-N / G8.2-N
    present = on_table & (BALLS != ids.COLOURED)
    racked = jnp.where(
        state.variant == ids.CLASSIC,
        _rack(present, True, dims, key_rack),  # CLS-3, A-21: no ball removed, full re-rack
        _rack(present, False, dims, key_rack),
    )
    racked = jnp.where(present[:, None], racked, jnp.asarray(ids.OFF_TABLE_XY))
    coloured = BALLS == ids.COLOURED
    positions = jnp.where(
        rerack, jnp.where(coloured[:, None], jnp.asarray(ids.OFF_TABLE_XY), racked), positions
    )
    on_table = jnp.where(rerack, present, on_table)

    # G22.3: a foul declared after the shot that pocketed the own ball legally; once the
    # shooter has his exchange ball, the opponent takes the penalty ball and chooses: G6
    # (COMB-7), or DYN-7 without option (1), the own ball being in hand.
    penalty_next = (kind == st.EXCHANGE) & state.late_penalty & ~won
    dynamic = state.variant == ids.DYNAMIC
    next_kind = jnp.where(penalty_next, jnp.where(dynamic, st.DYN7, st.G6), st.NO_DECISION)
    next_options = jnp.where(penalty_next, jnp.where(dynamic, 0b10, 0b11), 0)

    # Who plays next, and how.
    own_in_hand = ~on_table[own] & (shelf[own] < 0)
    to_offender = ((kind == st.G6) & (option == 1)) | ((kind == st.G12_2) & ((option == 1) | (option == 3)))
    turn = jnp.where(to_offender | penalty_next, other, decider)
    from_hand = (
        (kind == st.PENALTY_BALL)
        | (kind == st.EXCHANGE)
        | ((kind == st.DYN7) & (option == 1))
        | ((kind == st.G12_2) & (option < 2) & ~own_on)
        | ((kind == st.G6) & own_in_hand)
    )
    # DYN-7(2): the own ball is picked up and placed anywhere.
    pick_up = (kind == st.DYN7) & (option == 1) & coloured
    on_table = on_table & ~pick_up
    positions = jnp.where(pick_up[:, None], jnp.asarray(ids.OFF_TABLE_XY), positions)
    phase = jnp.select(
        [won, penalty_next, rerack, from_hand], [st.OVER, st.DECISION, st.BREAK, st.IN_HAND], st.NORMAL
    )
    region = jnp.where(rerack, ids.HOUSE, state.region)
    # DYN-5.2, DYN-7(2): on the from-hand shot only object balls may be pocketed.
    object_only = (state.variant == ids.DYNAMIC) & (
        ((kind == st.DYN7) & (option == 1)) | (kind == st.EXCHANGE)
    )
    decided = state.replace(
        positions=positions,
        on_table=on_table,
        shelf=shelf,
        score=score,
        turn=jnp.where(won, decider, turn).astype(jnp.int32),
        phase=jnp.int32(phase),
        region=region.astype(jnp.int32),
        decision=next_kind.astype(jnp.int32),
        options=next_options.astype(jnp.int32),
        late_penalty=jnp.bool_(False),
        object_only=object_only & ~won & ~penalty_next,
        winner=jnp.where(won, decider, -1).astype(jnp.int32),
        key=jnp.where(rerack, key, state.key),
    )
    ok = invalid == 0
    return invalid, jax.tree_util.tree_map(lambda new, old: jnp.where(ok, new, old), decided, state)


def _rack(present: Any, numbered: bool, dims: st.Dims, key: Any) -> Any:
    from piramida.rules.racking import rack

    return rack(present, numbered, dims.width, dims.length, dims.R, key)


decide_one = jax.jit(decide, static_argnames=("dims",))  # one table, compiled once


@functools.partial(jax.jit, static_argnames=("dims",))
def decide_batch(
    state: st.GameState, decision: Decision, dims: st.Dims = st.DEFAULT_DIMS
) -> tuple[Any, st.GameState]:
    """`decide` on a batch (leading axis B)."""
    return jax.vmap(lambda s, d: decide(s, d, dims))(state, decision)


@functools.partial(jax.jit, static_argnames=("dims",))
def auto_decide(state: st.GameState, dims: st.Dims = st.DEFAULT_DIMS) -> st.GameState:
    """Make every pending decision of a batch with `default_decision`; others unchanged."""

    def one(s: st.GameState) -> st.GameState:
        _, nxt = decide(s, default_decision(s, dims), dims)
        return jax.tree_util.tree_map(lambda new, old: jnp.where(s.phase == st.DECISION, new, old), nxt, s)

    return jax.vmap(one)(state)
