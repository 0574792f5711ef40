"""Racking: where the white balls stand before a break (G8, G8.2-N, G12.2-N, G27-N, CLS-3).

The rack is a triangle of up to 15 slots. Slot `s` is in row `r` (0 is the apex on the
back spot, 4 the base next to the back cushion) at place `k` (0 is the leftmost as the
breaker sees it from the house end, i.e. the smallest x; the left cushions are at x = 0).
Slots are numbered in reading order: row by row from the apex, each row left to right.

Neighbours stand `2R + layouts.RACK_GAP` apart instead of touching (G8.1 says they touch;
the kernel wants every contact as a separate event, see `physics.layouts.RACK_GAP`).

Every function here is a pure function of arrays with static shapes: it jits and vmaps
over tables (width, length, R, `present`, `numbered` and the key may all be traced).
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from piramida.physics import markings
from piramida.physics.layouts import RACK_GAP
from piramida.rules.ids import N_BALLS, OFF_TABLE_XY

ROWS = 5
SLOTS = ROWS * (ROWS + 1) // 2  # 15
SLOT_ROW = np.repeat(np.arange(ROWS), np.arange(1, ROWS + 1))  # (15,) row of each slot
SLOT_PLACE = np.concatenate([np.arange(r + 1) for r in range(ROWS)])  # (15,) place in its row

# CLS-3, row by row from the apex, each row left to right as the breaker sees it from the
# house end (x increasing): "first row 4; second row 5, 6; third row 7, 15, 8; fourth row
# 9, 14, 13, 10; fifth row 2, 1, 12, 11, 3". Entry s is the number of the ball on slot s.
CLASSIC_ORDER = (4, 5, 6, 7, 15, 8, 9, 14, 13, 10, 2, 1, 12, 11, 3)


def _fill(n: int) -> np.ndarray:
    """Which of the 15 slots an incomplete rack of `n` balls uses (G8.2-N, A-26), (15,) bool.

    1. Rows 1..k are filled completely from the apex (k as large as `n` allows).
    2. The remaining m balls go to row k+1 (k+1 slots), middle-out and symmetric about
       the long axis: the middle slot and then pairs if the row is odd, pairs only if even.
    3. If m and k+1 differ in parity no symmetric filling exists; then the apex ball is
       moved into that row as well (G8.2-N: "balls are moved from the apex of the pyramid
       to the last row"), so m+1 balls go there and the back spot stays empty.
    """
    occupied = np.zeros(SLOTS, bool)
    k = 0
    while (k + 1) * (k + 2) // 2 <= n:
        k += 1
    full = k * (k + 1) // 2
    occupied[:full] = True
    m = n - full
    if m:
        length = k + 1
        if m % 2 != length % 2:
            occupied[0] = False
            m += 1
        start = full + (length - m) // 2
        occupied[start : start + m] = True
    assert occupied.sum() == n
    return occupied


# FILL[n]: the slots used by a rack of n balls (n = 0..15), precomputed once.
FILL = np.stack([_fill(n) for n in range(SLOTS + 1)])  # (16, 15)


def slot_centres(width: Any, length: Any, R: Any, apex_row: Any = 0) -> Any:
    """The centres of the 15 rack slots, (15, 2), in reading order.

    The apex points to the front cushion (G8.1): the rows extend towards the back cushion.
    Slot row `apex_row` stands on the back spot (0: the apex itself, as G8.1 asks).
    """
    pitch = 2 * jnp.asarray(R) + RACK_GAP
    spot = markings.back_spot(width, length)
    dx = jnp.asarray(SLOT_PLACE - SLOT_ROW / 2)
    dy = (jnp.asarray(SLOT_ROW) - apex_row) * jnp.sqrt(3.0) / 2
    return spot + pitch * jnp.stack([dx, dy], axis=-1)


def rack(
    present: Any,
    numbered: Any,
    width: Any,
    length: Any,
    R: Any,
    key: Any = None,
    shift_incomplete: Any = False,
) -> Any:
    """Rack the white balls marked in `present` (G8.1, G8.2-N, CLS-3), (16, 2) positions.

    Args:
        present: (16,) bool, which white balls 1..15 are racked; slot 0 is ignored (the
            coloured ball is never racked, G8.2: it is the breaker's ball in hand).
        numbered: bool (may be traced). True: the balls keep the order of CLS-3 (Classic).
            False: any order will do (G8.1; the white balls are alike): ball ids in
            increasing order, or a random order drawn from `key` when one is given.
        width, length: playing area (m). R: ball radius (m).
        key: optional PRNG key for the unnumbered order; ignored when `numbered`.
        shift_incomplete: A-26's switch `incomplete_rack_shift` (default False). When the
            apex slot stays empty (see `FILL`), False keeps the rack where a full rack
            stands; True moves it one row forward, so that its front row stands on the
            line through the back spot.

    Returns:
        (16, 2) centres: racked balls on their slots, every other slot (the coloured ball,
        absent white balls) at `OFF_TABLE_XY`.

    Which slots: a rack of n balls uses `FILL[n]` (G8.2-N, settled as in A-26). Which
    ball on which slot: the racked balls, taken in the order above (CLS-3's reading order
    when numbered), go to the used slots in reading order. So a full rack is exactly
    CLS-3, and an incomplete numbered rack keeps CLS-3's relative order with the gaps
    closed up.

    """
    ids = jnp.arange(N_BALLS)
    present = jnp.asarray(present, bool) & (ids >= 1)
    n = jnp.sum(present)
    occupied = jnp.asarray(FILL)[n]  # (15,)

    # Rank of each ball id in the order it is racked (lower first); slot 0 never racked.
    classic_rank = np.full(N_BALLS, N_BALLS)
    classic_rank[list(CLASSIC_ORDER)] = np.arange(SLOTS)
    if key is None:
        plain_rank = ids
    else:
        plain_rank = jnp.concatenate([jnp.array([N_BALLS]), jax.random.permutation(key, SLOTS)])
    rank = jnp.where(jnp.asarray(numbered), jnp.asarray(classic_rank), plain_rank)

    # How many racked balls come before each ball: its index among the used slots.
    before = jnp.sum(present[None, :] & (rank[None, :] < rank[:, None]), axis=1)
    # The used slot of each index: the slot where the running count of used slots reaches it.
    count = jnp.cumsum(occupied)
    slot_of_index = jnp.argmax(
        occupied[None, :] & (count[None, :] == jnp.arange(1, SLOTS + 1)[:, None]), axis=1
    )
    slot = slot_of_index[jnp.clip(before, 0, SLOTS - 1)]

    apex_row = jnp.where(jnp.asarray(shift_incomplete) & (n > 0) & ~occupied[0], 1, 0)
    centres = slot_centres(width, length, R, apex_row)[slot]
    return jnp.where(present[:, None], centres, jnp.asarray(OFF_TABLE_XY))


def break_layout(numbered: Any, width: Any, length: Any, R: Any, key: Any = None) -> tuple[Any, Any]:
    """The table before a break: 15 white balls racked, the coloured ball in hand (G8).

    The coloured ball is parked at `OFF_TABLE_XY` and not on the table: the breaker places
    it in the house (G8.2, G11.1, G11.3); `placement.default_placement(HOUSE, ...)` gives
    the default spot.

    Returns:
        positions (16, 2) and on_table (16,) bool.

    """
    present = jnp.arange(N_BALLS) >= 1
    return rack(present, numbered, width, length, R, key), present
