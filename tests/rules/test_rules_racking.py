"""Racking (G8.1, G8.2-N with A-26, CLS-3): slots, order, incomplete racks, batching."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import piramida.physics as ph
from piramida.physics import markings
from piramida.physics.layouts import RACK_GAP
from piramida.rules import racking
from piramida.rules.ids import COLOURED, OFF_TABLE_XY

TABLE = ph.preset("pyramid-12ft")
W, L = float(TABLE.width), float(TABLE.length)
R = float(ph.PYRAMID_PARAMS.R)
PITCH = 2 * R + RACK_GAP
ROW_STEP = PITCH * np.sqrt(3) / 2
BACK_SPOT = np.asarray(markings.back_spot(W, L))
ALL_WHITE = np.arange(16) >= 1

_rack = jax.jit(racking.rack, static_argnames=("shift_incomplete",))


def _present(ids: list[int]) -> np.ndarray:
    mask = np.zeros(16, bool)
    mask[ids] = True
    return mask


def _rows_and_places(xy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row (0 = the back spot's row) and signed place (in half pitches from the long axis)."""
    rows = np.rint((xy[:, 1] - BACK_SPOT[1]) / ROW_STEP).astype(int)
    places = np.rint((xy[:, 0] - W / 2) / (PITCH / 2)).astype(int)
    return rows, places


def test_g8_1_full_rack_apex_on_back_spot() -> None:
    xy = np.asarray(_rack(ALL_WHITE, False, W, L, R))
    white = xy[1:]
    apex = white[np.argmin(white[:, 1])]
    np.testing.assert_allclose(apex, BACK_SPOT, atol=1e-12)
    # The apex points to the front cushion: every other ball is behind the back spot.
    assert np.sum(white[:, 1] > BACK_SPOT[1] + R) == 14
    # The back side (5 balls) is parallel to the back cushion, and on the cloth.
    base = white[np.isclose(white[:, 1], white[:, 1].max())]
    assert len(base) == 5 and white[:, 1].max() <= L - R
    # Neighbours stand exactly 2R + RACK_GAP apart; no two balls closer (G8.1, RACK_GAP).
    d = np.linalg.norm(white[:, None] - white[None], axis=-1)[np.triu_indices(15, 1)]
    assert d.min() == pytest.approx(PITCH, abs=1e-12)
    assert np.sum(np.isclose(d, PITCH, atol=1e-12)) == 30  # the 30 neighbour pairs of a 5-row triangle
    # The rack's geometry is the physics layout's triangle.
    np.testing.assert_allclose(
        np.sort(white, axis=0), np.sort(ph.triangle(BACK_SPOT, 5, R), axis=0), atol=1e-12
    )


def test_g8_2_coloured_ball_is_not_racked() -> None:
    xy, on_table = racking.break_layout(False, W, L, R)
    np.testing.assert_array_equal(np.asarray(xy)[COLOURED], OFF_TABLE_XY)
    assert not bool(on_table[COLOURED]) and bool(jnp.all(on_table[1:]))
    # Marking the coloured ball present changes nothing.
    np.testing.assert_allclose(_rack(np.ones(16, bool), False, W, L, R), xy, atol=1e-12)


def test_cls_3_numbered_order() -> None:
    xy = np.asarray(_rack(ALL_WHITE, True, W, L, R))
    rows, places = _rows_and_places(xy[1:])
    by_row: dict[int, list[int]] = {}
    for ball in np.argsort(places, kind="stable") + 1:  # left to right: x increasing
        by_row.setdefault(int(rows[ball - 1]), []).append(int(ball))
    # Rows from the apex (on the back spot), each left to right seen from the house end.
    assert by_row == {0: [4], 1: [5, 6], 2: [7, 15, 8], 3: [9, 14, 13, 10], 4: [2, 1, 12, 11, 3]}


def test_g8_1_unnumbered_order_is_fixed_or_drawn_from_the_key() -> None:
    plain = np.asarray(_rack(ALL_WHITE, False, W, L, R))
    np.testing.assert_allclose(plain[1:], racking.slot_centres(W, L, R), atol=1e-12)  # ids in reading order
    drawn = [np.asarray(racking.rack(ALL_WHITE, False, W, L, R, jax.random.PRNGKey(k))) for k in range(3)]
    for xy in drawn:  # the same 15 slots, in another order
        np.testing.assert_allclose(np.sort(xy[1:], axis=0), np.sort(plain[1:], axis=0), atol=1e-12)
    assert not np.allclose(drawn[0], drawn[1])
    # Classic ignores the key: CLS-3's order is fixed.
    classic = np.asarray(_rack(ALL_WHITE, True, W, L, R))
    np.testing.assert_allclose(
        racking.rack(ALL_WHITE, True, W, L, R, jax.random.PRNGKey(5)), classic, atol=1e-12
    )


@pytest.mark.parametrize("n", range(16))
def test_g8_note_incomplete_pyramid_is_symmetric(n: int) -> None:
    ids = list(range(15, 15 - n, -1))  # any n balls
    xy = np.asarray(_rack(_present(ids), False, W, L, R))
    racked = xy[ids]
    rows, places = _rows_and_places(racked)
    # Symmetric about the long axis (G8.2-N): the places mirror onto themselves.
    assert sorted(places.tolist()) == sorted((-places).tolist())
    np.testing.assert_allclose(racked.sum(axis=0)[0], n * W / 2, atol=1e-9)
    # Filled from the apex: every row before the last is full, apart from the apex (A-26 step 3).
    counts = np.bincount(rows, minlength=5) if n else np.zeros(5, int)
    last = rows.max() if n else -1
    for row in range(1, max(last, 0)):
        assert counts[row] == row + 1
    assert counts[0] in (0, 1)
    # Off-table: everything not racked.
    others = np.setdiff1d(np.arange(16), ids)
    np.testing.assert_array_equal(xy[others], np.broadcast_to(OFF_TABLE_XY, (len(others), 2)))
    # No two racked balls closer than the rack's pitch; all on the cloth.
    if n > 1:
        d = np.linalg.norm(racked[:, None] - racked[None], axis=-1)[np.triu_indices(n, 1)]
        assert d.min() >= PITCH - 1e-12
    assert np.all((racked >= R) & (racked <= [W - R, L - R]))


def test_a_26_apex_moves_to_last_row_only_when_parity_differs() -> None:
    # 13 balls: rows 1-4 full (10) + 3 in the base (the middle and a pair): apex stays.
    rows13, places13 = _rows_and_places(np.asarray(_rack(_present(list(range(1, 14))), False, W, L, R))[1:14])
    assert np.sum(rows13 == 0) == 1 and sorted(places13[rows13 == 4].tolist()) == [-2, 0, 2]
    # 14 balls: 4 left for the 5-slot base cannot be symmetric, so the apex ball joins the
    # base (5 balls) and the back spot stays empty; the rack does not move (default).
    rows14, _ = _rows_and_places(np.asarray(_rack(_present(list(range(1, 15))), False, W, L, R))[1:15])
    assert np.sum(rows14 == 0) == 0 and np.sum(rows14 == 4) == 5
    # 2 balls: the pair of row 2, not the apex and one ball beside the axis.
    rows2, places2 = _rows_and_places(np.asarray(_rack(_present([7, 9]), False, W, L, R))[[7, 9]])
    assert rows2.tolist() == [1, 1] and sorted(places2.tolist()) == [-1, 1]


def test_a_26_shift_moves_rack_forward_only_when_apex_is_empty() -> None:
    fourteen = _present(list(range(1, 15)))
    still = np.asarray(_rack(fourteen, False, W, L, R, shift_incomplete=False))
    moved = np.asarray(_rack(fourteen, False, W, L, R, shift_incomplete=True))
    np.testing.assert_allclose(moved[1:15] - still[1:15], [[0.0, -ROW_STEP]] * 14, atol=1e-12)
    assert np.isclose(moved[1:15, 1].min(), BACK_SPOT[1])  # the front row on the back spot's line
    # With the apex in place the switch changes nothing.
    thirteen = _present(list(range(1, 14)))
    np.testing.assert_array_equal(
        _rack(thirteen, False, W, L, R, shift_incomplete=True), _rack(thirteen, False, W, L, R)
    )


def test_g12_2_note_rerack_without_removed_ball_keeps_classic_order() -> None:
    # Ball 12 (base, middle) removed: 14 balls, CLS-3's order with the gap closed up.
    present = ALL_WHITE.copy()
    present[12] = False
    xy = np.asarray(_rack(present, True, W, L, R))
    np.testing.assert_array_equal(xy[12], OFF_TABLE_XY)
    slots = np.asarray(racking.slot_centres(W, L, R))
    used = np.flatnonzero(racking.FILL[14])
    order = [b for b in racking.CLASSIC_ORDER if b != 12]
    np.testing.assert_allclose(xy[order], slots[used], atol=1e-12)


def test_rack_jit_vmap_batch() -> None:
    masks = np.stack([_present(list(range(1, 1 + n))) for n in range(16)])
    numbered = np.arange(16) % 2 == 0
    widths = np.full(16, W)
    batched = jax.jit(jax.vmap(racking.rack, in_axes=(0, 0, 0, None, None)))(masks, numbered, widths, L, R)
    for k in range(16):
        np.testing.assert_allclose(batched[k], racking.rack(masks[k], bool(numbered[k]), W, L, R), atol=1e-12)
    assert batched.shape == (16, 16, 2) and batched.dtype == jnp.float64
