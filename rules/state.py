"""The game state of one pyramid frame per table, batched like the kernel (a pytree).

One `GameState` holds everything the referee needs between shots: where the balls are,
whose shelf holds which ball, the scores, whose move it is and what kind of move it is
(the phase). Functions here are written for one table; a leading batch axis comes from
`jax.vmap` (`new_games` does that for a whole batch).

Ball locations (conserved: every one of the 16 balls is in exactly one of them):
- on the table: `on_table[b]`, at `positions[b]`;
- on a shelf: `shelf[b]` is the player (0 or 1), G22.2;
- in hand: the own ball waiting to be placed (break, G11; from-hand shots, G21,
  DYN-5.2, DYN-7(2), CLS-5.5, CLS-5.7): neither on the table nor on a shelf.
A ball that is not on the table stands at `ids.OFF_TABLE_XY`.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from piramida.physics.motion import ABSENT, STATIONARY, BallState
from piramida.physics.params import PYRAMID_PARAMS
from piramida.physics.table import DEFAULT_TABLE, PRESETS
from piramida.rules import ids, placement

# Phases: what the player to move does next.
BREAK, NORMAL, IN_HAND, DECISION, OVER = range(5)
PHASE_NAMES: tuple[str, ...] = ("break", "normal", "in-hand", "decision", "over")

# Decisions that are not shots (G6, G12.2, DYN-7, ...), and their options (bit k of
# `options` allows option k).
NO_DECISION, G6, G12_2, DYN7, PENALTY_BALL, EXCHANGE = range(6)
DECISION_NAMES: tuple[str, ...] = ("none", "G6", "G12.2", "DYN-7", "penalty-ball", "exchange")
OPTION_NAMES: tuple[tuple[str, ...], ...] = (
    (),
    ("shoot", "hand-back"),  # G6(1), G6(2)
    ("accept-shoot", "accept-hand-back", "rerack-break", "rerack-opponent-breaks"),  # G12.2(1)-(4)
    ("existing-position", "from-hand"),  # DYN-7(1), DYN-7(2)
    (),  # COMB-7 own-ball foul: the penalty ball only, then a shot from the house
    (),  # COMB-5.2 / DYN-5.2: the ball taken in exchange for the own ball
)
# Which decisions take a ball from the table (the penalty ball, FREE-7, COMB-7, DYN-7; or
# the ball removed in exchange, COMB-5.2, DYN-5.2). Classic has no penalty ball.
TAKES_BALL = (False, True, True, True, True, True)

FREE_TARGET = 8  # FREE-1, COMB-1, DYN-1: the first to eight balls
CLASSIC_TARGET = 71  # CLS-1
CLASSIC_TIE = 70  # CLS-5.7


@dataclass(frozen=True)
class Dims:
    """Table figures the referee needs (static: hashable, so usable as a `jit` static arg).

    The defaults are the physics' default table and ball (`physics.table.DEFAULT_TABLE`,
    `PYRAMID_PARAMS.R`), read from there so that a figure is written once.

    Attributes:
      width, length: the playing area inside the cushion noses (m).
      R: ball radius (m).

    """

    width: float = float(PRESETS[DEFAULT_TABLE].width)
    length: float = float(PRESETS[DEFAULT_TABLE].length)
    R: float = float(PYRAMID_PARAMS.R)

    @staticmethod
    def of(table: Any, R: Any = PYRAMID_PARAMS.R) -> Dims:
        """The figures of a kernel `Table` or a `TableSpec` (and a radius, e.g. `PhysicsParams.R`)."""
        return Dims(float(table.width), float(table.length), float(R))


DEFAULT_DIMS = Dims()  # the pyramid-12ft preset and PYRAMID_PARAMS.R


@jax.tree_util.register_dataclass
@dataclass(frozen=True)
class GameState:
    """One frame of pyramid on each table (leading axes are batch axes).

    Attributes:
      variant: () `ids.FREE` ... `ids.CLASSIC`.
      positions: (16, 2) ball centres; `ids.OFF_TABLE_XY` for a ball not on the table.
      on_table: (16,) which balls are on the bed.
      shelf: (16,) the player whose shelf holds the ball (G22.2), or -1.
      score: (2,) points: shelf balls in FREE/COMB/DYN (A-13); Classic points (CLS-5.1).
      turn: () the player to move: to shoot, or to decide in the DECISION phase.
      breaker: () who broke this frame (G13: the other player breaks the next one).
      phase: () `BREAK`, `NORMAL`, `IN_HAND`, `DECISION` or `OVER`.
      region: () where the own ball goes from hand (`ids.HOUSE` or `ids.ANYWHERE`); a
        HOUSE becomes the temporary house when every object ball is in the house
        (G21.2, see `hand_region`).
      decision: () the pending decision (`G6` ...), `NO_DECISION` otherwise.
      options: () bit k allows option k of the pending decision (`OPTION_NAMES`).
      late_penalty: () a foul declared after the shot ended waits behind the pending
        exchange: the own ball was pocketed legally before it (G22.3), so the shooter takes
        his exchange ball first, then the opponent his penalty ball and his choice.
      own_ball: () the own ball where it is fixed (the coloured ball in COMB/DYN/CLS,
        G4.2), `ids.NO_BALL` in FREE (any ball after the break, G4.3).
      object_only: () DYN-5.2 / DYN-7(2): on this shot only object balls may be pocketed.
      call_ball, call_pocket: () the Classic call for the next shot (CLS-5.2), or -1.
      playoff: () the Classic 70:70 shoot-out is on (CLS-5.7).
      last_pocketed: () the ball pocketed last in the frame (CLS-5.7), or -1.
      winner: () the winner once the phase is OVER, else -1.
      shots: () shots adjudicated so far in this frame.
      key: (2,) uint32 PRNG key: respotting order (G25.2) and the CLS-5.7 lot.

    """

    variant: Any
    positions: Any
    on_table: Any
    shelf: Any
    score: Any
    turn: Any
    breaker: Any
    phase: Any
    region: Any
    decision: Any
    options: Any
    late_penalty: Any
    own_ball: Any
    object_only: Any
    call_ball: Any
    call_pocket: Any
    playoff: Any
    last_pocketed: Any
    winner: Any
    shots: Any
    key: Any

    def replace(self, **changes: Any) -> GameState:
        """A copy with some fields changed."""
        return dataclasses.replace(self, **changes)


@jax.tree_util.register_dataclass
@dataclass(frozen=True)
class Shot:
    """What the shooter (and the humans around the table) add to the kernel's strike.

    Attributes:
      ball: () the ball struck with the cue, the own ball (G4.1).
      place: (2,) where the own ball was placed from hand (BREAK and IN_HAND phases).
      declared: () bit mask of fouls a human referee saw during the shot (`verdict.DECLARED`):
        G14.2, G15, G16, G17 / G11.5, G18, G19, G26, G28. A simulation never produces them.
      declared_late: () the same, committed after the shot ended (G22.3: a penalty, but
        the balls pocketed before the end stand; ignored after the frame-deciding shot,
        G22.3-N).
      placement_warned: () whether the opponent or the referee warned the player about a
        ball placed outside the house (or the temporary house) before the stroke (G11.3).
        Unwarned, such a placement stands; warned, the ball must be placed again (the shot
        is refused). A simulation always "warns": the envs and bots place only legal
        positions, and an illegal one is refused. A human match says so per shot (the
        referee's JSON, default false).
      frozen_warned: () whether the opponent warned the player before the stroke that each
        ball found against a cushion will touch it (G20-N2): only then does a single
        collision with such a ball count as its rebound. A simulation always warns (A-18);
        a human match says so per shot (the referee's JSON, default false), or names the
        balls it warned about (`declared_frozen`).

    """

    ball: Any
    place: Any = (-10.0, -10.0)
    declared: Any = 0
    declared_late: Any = 0
    placement_warned: Any = True
    frozen_warned: Any = True


def shot(
    ball: Any,
    place: Any = None,
    declared: Any = 0,
    declared_late: Any = 0,
    placement_warned: Any = True,
    frozen_warned: Any = True,
) -> Shot:
    """A `Shot` with array fields (one table)."""
    xy = ids.OFF_TABLE_XY if place is None else place
    return Shot(
        ball=jnp.asarray(ball, jnp.int32),
        place=jnp.asarray(xy, jnp.float64),
        declared=jnp.asarray(declared, jnp.int32),
        declared_late=jnp.asarray(declared_late, jnp.int32),
        placement_warned=jnp.asarray(placement_warned, bool),
        frozen_warned=jnp.asarray(frozen_warned, bool),
    )


def _rack(present: Any, numbered: bool, dims: Dims, key: Any) -> Any:
    from piramida.rules.racking import rack  # a sibling module written alongside this one

    return rack(present, numbered, dims.width, dims.length, dims.R, key)


def new_game(variant: Any, key: Any, first_breaker: Any = 0, dims: Dims = DEFAULT_DIMS) -> GameState:
    """A frame ready for the break: 15 balls racked (G8.1, CLS-3), the coloured ball in hand.

    Args:
      variant: `ids.FREE` ... `ids.CLASSIC` (a Python int, or a traced int under vmap).
      key: PRNG key of the frame (respotting order, the CLS-5.7 lot).
      first_breaker: the player who breaks (G7 decides it; G13 alternates it).
      dims: table figures.

    """
    present = jnp.arange(ids.N_BALLS) != ids.COLOURED
    key, key_rack = jax.random.split(key)
    if isinstance(variant, int):
        positions = _rack(present, variant == ids.CLASSIC, dims, key_rack)
    else:  # traced: build both racks (CLS-3 numbered, G8.1 plain) and pick per table
        positions = jnp.where(
            jnp.asarray(variant) == ids.CLASSIC,
            _rack(present, True, dims, key_rack),
            _rack(present, False, dims, key_rack),
        )
    positions = jnp.where(present[:, None], positions, jnp.asarray(ids.OFF_TABLE_XY))
    variant = jnp.asarray(variant, jnp.int32)
    breaker = jnp.asarray(first_breaker, jnp.int32)
    return GameState(
        variant=variant,
        positions=jnp.asarray(positions, jnp.float64),
        on_table=present,
        shelf=jnp.full(ids.N_BALLS, -1, jnp.int32),
        score=jnp.zeros(2, jnp.int32),
        turn=breaker,
        breaker=breaker,
        phase=jnp.int32(BREAK),
        region=jnp.int32(ids.HOUSE),  # G8.2, G11: the break is played from the house
        decision=jnp.int32(NO_DECISION),
        options=jnp.int32(0),
        late_penalty=jnp.bool_(False),
        own_ball=jnp.where(variant == ids.FREE, ids.NO_BALL, ids.COLOURED).astype(jnp.int32),
        object_only=jnp.bool_(False),
        call_ball=jnp.int32(ids.NO_BALL),
        call_pocket=jnp.int32(-1),
        playoff=jnp.bool_(False),
        last_pocketed=jnp.int32(ids.NO_BALL),
        winner=jnp.int32(-1),
        shots=jnp.int32(0),
        key=jnp.asarray(key, jnp.uint32),
    )


@functools.partial(jax.jit, static_argnames=("dims",))
def new_games(variants: Any, keys: Any, first_breakers: Any, dims: Dims = DEFAULT_DIMS) -> GameState:
    """`new_game` for a batch: variants (B,), keys (B, 2), first breakers (B,)."""
    return jax.vmap(lambda v, k, b: new_game(v, k, b, dims))(variants, keys, first_breakers)


def next_frame(state: GameState, key: Any, dims: Dims = DEFAULT_DIMS) -> GameState:
    """A new frame of the same variant, broken by the other player (G13)."""
    return new_game(state.variant, key, 1 - state.breaker, dims)


def with_call(state: GameState, ball: Any, pocket: Any) -> GameState:
    """The state with the Classic call (CLS-5.2) for the next shot: ball and pocket ids."""
    return state.replace(call_ball=jnp.asarray(ball, jnp.int32), call_pocket=jnp.asarray(pocket, jnp.int32))


def hand_region(state: GameState, dims: Dims = DEFAULT_DIMS) -> Any:
    """Where the own ball in hand may be placed now (`ids.HOUSE`, `TEMPORARY_HOUSE`, `ANYWHERE`).

    G21.2 (A-24(b), (c)): a from-hand shot from the house is played from the temporary
    house at the back end when *every* object ball on the table is in the house zone.
    The break (G11) is always played from the house.
    """
    from piramida.rules.placement import house_region

    house = house_region(state.positions, state.on_table, ids.COLOURED, dims.length)
    use_house = (state.phase == IN_HAND) & (state.region == ids.HOUSE)
    return jnp.where(use_house, house, state.region).astype(jnp.int32)


def in_hand(state: GameState) -> Any:
    """(16,) balls in hand: neither on the table nor on a shelf."""
    return ~state.on_table & (state.shelf < 0)


def start_balls(state: GameState, shot: Shot) -> BallState:
    """The kernel's ball state for the shot: the table, plus the own ball placed from hand.

    In the BREAK and IN_HAND phases the own ball (`shot.ball`) stands at `shot.place`.
    Works on one table or, under `vmap`, on a batch.
    """
    placing = (state.phase == BREAK) | (state.phase == IN_HAND)
    own = jnp.arange(ids.N_BALLS) == shot.ball
    put = placing & own
    r = jnp.where(put[:, None], jnp.asarray(shot.place, jnp.float64), state.positions)
    present = state.on_table | put
    s = jnp.where(present, STATIONARY, ABSENT).astype(jnp.int32)
    n = ids.N_BALLS
    return BallState(r=r, v=jnp.zeros((n, 2)), w=jnp.zeros((n, 3)), s=s)


def placements(states: GameState, preferred: Any, dims: Dims = DEFAULT_DIMS) -> Any:
    """(B, 2) where each table of a batch places its ball in hand, near `preferred` (B, 2).

    `placement.placements` on the tables in the BREAK and IN_HAND phases (the coarse grid of
    the bots and the envs), `ids.OFF_TABLE_XY` where no ball is placed.
    """
    placing = (states.phase == BREAK) | (states.phase == IN_HAND)
    regions = jax.vmap(lambda s: hand_region(s, dims))(states)
    return placement.placements(
        placing, regions, states.positions, states.on_table, preferred, dims.width, dims.length, dims.R
    )


def to_host(state: GameState, index: int | None = None) -> GameState:
    """The state as numpy arrays (optionally one table of a batch)."""
    host = jax.tree_util.tree_map(np.asarray, state)
    if index is not None:
        host = jax.tree_util.tree_map(lambda x: x[index], host)
    return host


def stack(states: list[GameState]) -> GameState:
    """One batched state from single-table states."""
    return jax.tree_util.tree_map(lambda *xs: jnp.stack([jnp.asarray(x) for x in xs]), *states)
