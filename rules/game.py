"""One move on every table of a batch: a shot (kernel, then referee) or a decision, one `jit`.

Environments, bots and matches all advance games through `play`, so a move means the same
everywhere: in the BREAK, NORMAL and IN_HAND phases the move is a shot (the own ball placed
from hand where the phase asks, the Classic call, the strike with execution noise, the
kernel's event log, the referee's verdict); in the DECISION phase it is the decision
(`decisions.decide`); a finished game (OVER) is left as it is. Tables in different phases
share one batch: every table runs the kernel, with a still cue ball where no shot is played.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp

from piramida.physics import noise
from piramida.physics.kernel import ShotResult, simulate
from piramida.physics.motion import STATIONARY, BallState
from piramida.physics.strike import Strike
from piramida.rules import ids
from piramida.rules import state as st
from piramida.rules import verdict as vd
from piramida.rules.decisions import Decision, decide
from piramida.rules.referee import adjudicate_table
from piramida.rules.setup import Setup, default_setup

CAPACITY = 1024  # event-log slots per shot (no motion transitions): see docs/physics.md


@jax.tree_util.register_dataclass
@dataclass(frozen=True)
class Move:
    """What the player to move does on one table (fields are scalars, or (B,) in a batch).

    Attributes:
      ball: the own ball, struck with the cue (G4.1).
      speed, phi, theta, a, b: the strike (`physics.Strike`: cue speed m/s, aim and
        elevation in degrees, tip offsets as fractions of R).
      place: (2,) where the own ball is placed from hand (BREAK, IN_HAND); else ignored.
      call_ball, call_pocket: the Classic call (CLS-5.2), -1 where none is made.
      option, take: the decision (`decisions.Decision`) in the DECISION phase.

    """

    ball: Any
    speed: Any
    phi: Any
    theta: Any
    a: Any
    b: Any
    place: Any
    call_ball: Any
    call_pocket: Any
    option: Any
    take: Any

    def replace(self, **changes: Any) -> Move:
        """A copy with some fields changed."""
        return dataclasses.replace(self, **changes)


def move(
    ball: Any = ids.COLOURED,
    speed: Any = 0.0,
    phi: Any = 90.0,
    theta: Any = 0.0,
    a: Any = 0.0,
    b: Any = 0.0,
    place: Any = ids.OFF_TABLE_XY,
    call_ball: Any = ids.NO_BALL,
    call_pocket: Any = -1,
    option: Any = 0,
    take: Any = ids.NO_BALL,
) -> Move:
    """A `Move` with array fields of the right dtypes, every field broadcast to one batch shape."""
    scalars = {
        "ball": (ball, jnp.int32),
        "speed": (speed, jnp.float64),
        "phi": (phi, jnp.float64),
        "theta": (theta, jnp.float64),
        "a": (a, jnp.float64),
        "b": (b, jnp.float64),
        "call_ball": (call_ball, jnp.int32),
        "call_pocket": (call_pocket, jnp.int32),
        "option": (option, jnp.int32),
        "take": (take, jnp.int32),
    }
    xy = jnp.asarray(place, jnp.float64)
    shape = jnp.broadcast_shapes(xy.shape[:-1], *(jnp.shape(v) for v, _ in scalars.values()))
    fields = {name: jnp.broadcast_to(jnp.asarray(v, dtype), shape) for name, (v, dtype) in scalars.items()}
    return Move(place=jnp.broadcast_to(xy, (*shape, 2)), **fields)


@jax.tree_util.register_dataclass
@dataclass(frozen=True)
class Outcome:
    """What one move did on each table (leading axis B).

    Attributes:
      shot: a shot was played (the phase asked for one and the game was not over).
      verdict: the referee's verdict of the shot (all-zero fields where no shot was played;
        `verdict.invalid` names a shot the referee refused, which leaves the state as it was).
      decision_invalid: `decide`'s invalid bits where a decision was made, else 0.
      strike: the strike as executed (after the execution noise).
      start: the balls at shot start (own ball placed from hand).
      result: the kernel's result (a still table where no shot was played).

    """

    shot: Any
    verdict: vd.Verdict
    decision_invalid: Any
    strike: Strike
    start: BallState
    result: ShotResult


def where_tables(mask: Any, yes: Any, no: Any) -> Any:
    """Per table (the leading axis): the rows of pytree `yes` where `mask`, else those of `no`."""
    return jax.tree_util.tree_map(
        lambda a, b: jnp.where(mask.reshape(mask.shape + (1,) * (a.ndim - 1)), a, b), yes, no
    )


def strike_of(m: Move) -> Strike:
    """The kernel's strike of a move."""
    return Strike(ball=m.ball, speed=m.speed, phi=m.phi, theta=m.theta, a=m.a, b=m.b)


def prepare(
    state: st.GameState,
    m: Move,
    key: Any,
    magnitude: Any,
    R: float,
    active: Any = True,
    declared: Any = 0,
    frozen_warned: Any = True,
) -> tuple[Any, st.GameState, st.Shot, BallState, Strike]:
    """One table's shot inputs: (shooting?, state with the call, Shot, start balls, strike).

    An inactive table (`active` false) strikes nothing, so the kernel finishes it at once.
    `declared` and `frozen_warned` go into the `Shot` as the referee reads them.
    """
    shooting = (state.phase == st.BREAK) | (state.phase == st.NORMAL) | (state.phase == st.IN_HAND)
    classic = state.variant == ids.CLASSIC
    called = st.with_call(
        state, jnp.where(classic, m.call_ball, ids.NO_BALL), jnp.where(classic, m.call_pocket, -1)
    )
    shot = st.shot(m.ball, m.place, declared, frozen_warned=frozen_warned)
    balls = st.start_balls(called, shot)
    own = jnp.clip(m.ball, 0, ids.N_BALLS - 1)
    can_strike = active & shooting & (m.ball >= 0) & (m.ball < ids.N_BALLS) & (balls.s[own] == STATIONARY)
    executed = noise.perturb(dataclasses.replace(strike_of(m), ball=own), key, magnitude, R)
    # Where no shot is played the cue ball stays still: the kernel finishes at once.
    strike = Strike(
        ball=own,
        speed=jnp.where(can_strike, executed.speed, 0.0),
        phi=executed.phi,
        theta=executed.theta,
        a=executed.a,
        b=executed.b,
    )
    return shooting, called, shot, balls, strike


@functools.partial(jax.jit, static_argnames=("capacity", "record", "keep_log"))
def play(
    states: st.GameState,
    moves: Move,
    keys: Any,
    magnitude: Any = 0.0,
    setup: Setup | None = None,
    capacity: int = CAPACITY,
    record: bool = False,
    active: Any = None,
    keep_log: bool = False,
    declared: Any = 0,
    frozen_warned: Any = True,
) -> tuple[st.GameState, Outcome]:
    """Play one move on each of B tables: (next states, outcome), in one `jit`.

    Args:
      states: (B,) games.
      moves: (B,) the moves of the players to move.
      keys: (B, 2) PRNG keys of the execution noise, one per table.
      magnitude: execution-noise magnitude (`physics.noise`), scalar or (B,).
      setup: the table and the physics (`rules.setup.Setup`; default: `default_setup()`).
      capacity, record: as `physics.simulate`.
      active: (B,) bool, the tables whose move counts (None: all). The others cost the
        kernel nothing (no strike) and their outcome is to be thrown away by the caller.
      keep_log: return each shot's event log in `Outcome.result` (a match record, a
        replay): the referee rules on the facts the kernel noted, so a move keeps none
        by default (the log of a recorded shot is always kept).
      declared, frozen_warned: what a human referee adds to a shot (`state.Shot`): the
        fouls declared (`verdict.DECLARED`, the shot clock's G26) and whether the shooter
        was warned of the balls against a cushion (G20-N2); scalars or (B,).

    """
    setup = default_setup() if setup is None else setup
    dims = setup.dims
    batch = states.phase.shape[0]
    magnitudes = jnp.broadcast_to(jnp.asarray(magnitude, jnp.float64), (batch,))
    playing = jnp.ones(batch, bool) if active is None else jnp.asarray(active, bool)
    declared = jnp.broadcast_to(jnp.asarray(declared, jnp.int32), (batch,))
    warned = jnp.broadcast_to(jnp.asarray(frozen_warned, bool), (batch,))
    shooting, called, shots, balls, strikes = jax.vmap(
        lambda s, m, k, g, a, d, w: prepare(s, m, k, g, dims.R, a, d, w)
    )(states, moves, keys, magnitudes, playing, declared, warned)
    # The referee reads no motion transition: they are logged only for a recorded shot.
    result = simulate(
        setup.table,
        balls,
        strikes,
        setup.params,
        setup.models,
        capacity,
        record,
        validate=False,
        transitions=record,
        keep_log=keep_log or record,
    )
    verdicts, after_shot = jax.vmap(lambda s, x, r: adjudicate_table(s, x, r, dims))(called, shots, result)
    decision_invalid, after_decision = jax.vmap(lambda s, m: decide(s, Decision(m.option, m.take), dims))(
        states, moves
    )
    deciding = states.phase == st.DECISION
    nxt = where_tables(deciding, after_decision, where_tables(shooting, after_shot, states))
    verdicts = where_tables(shooting, verdicts, jax.tree_util.tree_map(jnp.zeros_like, verdicts))
    outcome = Outcome(
        shot=shooting,
        verdict=verdicts,
        decision_invalid=jnp.where(deciding, decision_invalid, 0).astype(jnp.int32),
        strike=strikes,
        start=balls,
        result=result,
    )
    return nxt, outcome
