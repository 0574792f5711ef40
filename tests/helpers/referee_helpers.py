"""Helpers for the referee's game tests: states by hand, one shot judged from a hand-written log.

    state = table_state(FREE, balls={0: (0.9, 1.0), 3: (0.5, 3.0)}, shelves=([1, 2], []))
    ruling, after = judge(state, [("ball-ball", 0, 3), ("pocket", 3, "BL")])

`judge` runs `adjudicate_one` on the log (the strike event is added) and checks, on every
call, the invariants every verdict keeps: the 16 balls are each on the table, on one
shelf, or in hand (only the coloured ball); no two balls on the table overlap; in Free,
Combined and Dynamic a score is the shelf's ball count.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import jax.numpy as jnp
import numpy as np

from helpers.rules_logs import log_of, snapshot_of
from piramida.rules import ids
from piramida.rules import state as st
from piramida.rules.decisions import Decision, decide_one
from piramida.rules.referee import ShotRecord, adjudicate_one
from piramida.rules.verdict import Ruling

FREE, COMBINED, DYNAMIC, CLASSIC = ids.FREE, ids.COMBINED, ids.DYNAMIC, ids.CLASSIC
VARIANTS = (FREE, COMBINED, DYNAMIC, CLASSIC)
DIMS = st.DEFAULT_DIMS
W, L, R = DIMS.width, DIMS.length, DIMS.R
HOUSE_XY = (W / 2, L / 8)  # a legal place in the house zone


def grid_xy(ball: int) -> tuple[float, float]:
    """A default spot for a ball: a 4 x 4 grid in the middle of the table, clear of the house,
    the centre line, the back spot and the spotting line."""
    col, row = ball % 4, ball // 4
    return (0.3 + 0.35 * col + (0.05 if col >= 2 else 0.0), 1.0 + 0.22 * row + (0.9 if row >= 2 else 0.0))


def table_state(
    variant: int,
    balls: Iterable[int] | dict[int, tuple[float, float]] | None = None,
    shelves: tuple[Sequence[int], Sequence[int]] = ((), ()),
    scores: Sequence[int] | None = None,
    turn: int = 0,
    phase: int = st.NORMAL,
    region: int = ids.HOUSE,
    object_only: bool = False,
    call: tuple[int, int] | None = None,
    playoff: bool = False,
    seed: int = 0,
) -> st.GameState:
    """A one-table state: `balls` on the table (ids at `grid_xy`, or ids -> centres).

    By default every ball not on a shelf is on the table, except the coloured ball in the
    break and in-hand phases.
    """
    if balls is None:
        shelved = set(shelves[0]) | set(shelves[1])
        in_hand = phase in (st.BREAK, st.IN_HAND)
        balls = [b for b in range(16) if b not in shelved and not (in_hand and b == ids.COLOURED)]
    where = balls if isinstance(balls, dict) else {b: grid_xy(b) for b in balls}
    positions = np.tile(np.asarray(ids.OFF_TABLE_XY), (16, 1))
    on_table = np.zeros(16, bool)
    for b, xy in where.items():
        positions[b] = xy
        on_table[b] = True
    shelf = np.full(16, -1, np.int32)
    for player, shelf_balls in enumerate(shelves):
        shelf[list(shelf_balls)] = player
    if scores is None:
        if variant == CLASSIC:
            scores = [sum(11 if b == 1 else b for b in shelf_balls) for shelf_balls in shelves]
        else:
            scores = [len(shelf_balls) for shelf_balls in shelves]
    return st.GameState(
        variant=jnp.int32(variant),
        positions=jnp.asarray(positions),
        on_table=jnp.asarray(on_table),
        shelf=jnp.asarray(shelf),
        score=jnp.asarray(scores, jnp.int32),
        turn=jnp.int32(turn),
        breaker=jnp.int32(0),
        phase=jnp.int32(phase),
        region=jnp.int32(region),
        decision=jnp.int32(st.NO_DECISION),
        options=jnp.int32(0),
        late_penalty=jnp.bool_(False),
        own_ball=jnp.int32(ids.NO_BALL if variant == FREE else ids.COLOURED),
        object_only=jnp.bool_(object_only),
        call_ball=jnp.int32(-1 if call is None else call[0]),
        call_pocket=jnp.int32(-1 if call is None else call[1]),
        playoff=jnp.bool_(playoff),
        last_pocketed=jnp.int32(-1),
        winner=jnp.int32(-1),
        shots=jnp.int32(0),
        key=jnp.asarray([0, seed], jnp.uint32),
    )


def check_invariants(state: st.GameState) -> None:
    """Ball count conserved, nothing overlapping, scores as the shelves say (A-13)."""
    on = np.asarray(state.on_table)
    shelf = np.asarray(state.shelf)
    assert not np.any(on & (shelf >= 0)), "a ball is both on the table and on a shelf"
    hand = ~on & (shelf < 0)
    assert not np.any(hand[1:]), f"white balls {np.flatnonzero(hand[1:]) + 1} are lost"
    xy = np.asarray(state.positions)
    assert np.all(xy[~on] == ids.OFF_TABLE_XY), "a ball off the table has a position"
    on_xy = xy[on]
    gaps = np.linalg.norm(on_xy[:, None] - on_xy[None], axis=-1) + np.eye(len(on_xy)) * 10
    assert np.all(gaps >= 2 * R - 1e-6), "balls overlap"
    if int(state.variant) != CLASSIC:
        assert list(np.asarray(state.score)) == [int(np.sum(shelf == p)) for p in (0, 1)]
    if int(state.variant) != FREE:
        assert shelf[0] < 0, "the coloured ball never goes on a shelf outside Free"


def judge(
    state: st.GameState,
    events: list[tuple[Any, ...]],
    ball: int = 0,
    place: tuple[float, float] | None = None,
    declared: int = 0,
    late: int = 0,
    start: Any = None,
    final: dict[int, tuple[float, float]] | None = None,
    overflow: bool = False,
    placement_warned: bool = True,
) -> tuple[Ruling, st.GameState]:
    """Adjudicate one hand-written shot (the strike event is added first).

    Balls not pocketed or jumped end where they started, unless `final` moves them.
    In the break and in-hand phases the own ball is placed at `place` (default `HOUSE_XY`,
    or the centre spot when the region is ANYWHERE).
    """
    placing = int(state.phase) in (st.BREAK, st.IN_HAND)
    if placing and place is None:
        place = (W / 2, L / 2 + 0.3) if int(state.region) == ids.ANYWHERE else HOUSE_XY
    xy = np.asarray(state.positions).copy()
    if placing:
        xy[ball] = place
    for b, p in (final or {}).items():
        xy[b] = p
    record = ShotRecord(
        log=log_of([("strike", ball), *events], overflow=overflow),
        start=snapshot_of() if start is None else start,
        final=jnp.asarray(xy),
    )
    shot = st.shot(ball, place, declared, late, placement_warned)
    ruling, after = adjudicate_one(state, shot, record, DIMS)
    check_invariants(after)
    return ruling, after


def choose(state: st.GameState, option: int = 0, ball: int = -1) -> st.GameState:
    """Make the pending decision; asserts it was valid and checks the invariants."""
    invalid, after = decide_one(state, Decision(jnp.int32(option), jnp.int32(ball)), DIMS)
    assert int(invalid) == 0, f"decision refused: {int(invalid)}"
    check_invariants(after)
    return after


def first_free_ball(state: st.GameState, exclude: Iterable[int] = (0,)) -> int:
    """The lowest ball on the table not in `exclude`."""
    on = np.asarray(state.on_table)
    return next(b for b in range(16) if on[b] and b not in set(exclude))


def pocket(name: str) -> int:
    """A pocket id by short name (FL FR ML MR BL BR)."""
    return ("FL", "FR", "ML", "MR", "BL", "BR").index(name)


# Shots that are legal under G20 without a pot: the object ball rebounds off one cushion,
# then touches another (G20(2.1)); and one that is not (a single cushion, no crossing).
LEGAL_NO_POT = [("ball-ball", 0, 5), ("cushion", 5, "LB"), ("cushion", 5, "back")]
FAILS_G20 = [("ball-ball", 0, 5), ("cushion", 5, "LB")]
