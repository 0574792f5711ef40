"""Spotting (G25.2 with A-22/A-23, CLS-5.7): the spotting line, obstructions, a full line."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import piramida.physics as ph
from piramida.physics import markings
from piramida.rules import racking, respot
from piramida.rules.ids import OFF_TABLE_XY

TABLE = ph.preset("pyramid-12ft")
W, L = float(TABLE.width), float(TABLE.length)
R = float(ph.PYRAMID_PARAMS.R)
GAP = respot.SPOT_GAP
STEP = 2 * R + GAP  # centre to centre of two spotted neighbours
BACK_Y = float(markings.back_spot(W, L)[1])
UM = 1e-6
KEY = jax.random.PRNGKey(0)

_respot = jax.jit(respot.respot)
_random_layout = jax.jit(ph.random_layout, static_argnames=("n",))


def _table(*balls: tuple[float, float]) -> tuple[np.ndarray, np.ndarray]:
    """Balls 1, 2, ... at the given centres, everything else off the table."""
    xy, on = np.full((16, 2), OFF_TABLE_XY), np.zeros(16, bool)
    for k, ball in enumerate(balls, start=1):
        xy[k], on[k] = ball, True
    return xy, on


def _spot(xy: np.ndarray, on: np.ndarray, ids: list[int], key: jax.Array = KEY) -> np.ndarray:
    to_spot = np.zeros(16, bool)
    to_spot[ids] = True
    return np.asarray(_respot(xy, on, to_spot, key, W, L, R))


def _min_gap(xy: np.ndarray, on: np.ndarray) -> float:
    p = xy[on]
    d = np.linalg.norm(p[:, None] - p[None], axis=-1) - 2 * R
    return float(d[np.triu_indices(len(p), 1)].min()) if len(p) > 1 else np.inf


def _spotted_gap(xy: np.ndarray, on: np.ndarray, spotted: np.ndarray) -> float:
    """The least gap between a spotted ball and any other ball on the table."""
    d = np.linalg.norm(xy[:, None] - xy[None], axis=-1) - 2 * R
    pairs = spotted[:, None] & on[None, :] & ~np.eye(16, dtype=bool)
    return float(d[pairs].min()) if pairs.any() else np.inf


def test_g25_2_single_ball_on_back_spot() -> None:
    xy, on = _table((0.4, 1.0))
    out = _spot(xy, on, [9])
    np.testing.assert_allclose(out[9], [W / 2, BACK_Y], atol=1e-12)
    np.testing.assert_array_equal(np.delete(out, 9, axis=0), np.delete(xy, 9, axis=0))


def test_cls_5_7_last_pocketed_ball_on_back_spot() -> None:
    xy, on = _table((0.4, 1.0))
    out = np.asarray(respot.respot_ball(xy, on, 5, W, L, R))
    np.testing.assert_allclose(out[5], [W / 2, BACK_Y], atol=1e-12)


def test_g25_2_back_spot_occupied_goes_behind() -> None:
    xy, on = _table((W / 2, BACK_Y))
    out = _spot(xy, on, [7])
    np.testing.assert_allclose(out[7], [W / 2, BACK_Y + STEP], atol=1e-12)


def test_a_22_several_balls_from_back_spot_towards_back_cushion() -> None:
    xy, on = _table()
    ids = [3, 8, 11, 14]
    orders = set()
    for k in range(6):
        out = _spot(xy, on, ids, jax.random.PRNGKey(k))
        ys = out[ids, 1]
        np.testing.assert_allclose(np.sort(ys), BACK_Y + STEP * np.arange(4), atol=1e-12)
        np.testing.assert_allclose(out[ids, 0], W / 2)
        orders.add(tuple(np.argsort(ys)))
    assert len(orders) > 1  # G25.2 "in random order": the key decides


def test_a_23_obstruction_that_just_clears_the_line_does_not_obstruct() -> None:
    clear = _table((W / 2 + STEP + UM, BACK_Y))
    np.testing.assert_allclose(_spot(*clear, [4])[4], [W / 2, BACK_Y], atol=1e-12)


def test_a_23_obstruction_beside_the_line_that_just_blocks_it() -> None:
    d = STEP - UM
    blocking = _table((W / 2 + d, BACK_Y))
    out = _spot(*blocking, [4])
    h = np.sqrt(STEP**2 - d**2)  # the chord: the blocked half-interval along the line
    np.testing.assert_allclose(out[4], [W / 2, BACK_Y + h], atol=1e-12)
    assert np.linalg.norm(out[4] - out[1]) - 2 * R >= GAP - 1e-9


def test_a_23_spotted_as_close_as_possible_to_obstructing_balls_on_the_line() -> None:
    # A ball on the line a little behind the back spot: the first spotted ball fits in
    # front of it only if the hole is at least one step; here it is not, so balls go behind.
    tight = _table((W / 2, BACK_Y + 2 * STEP - UM))
    out = _spot(*tight, [5, 6])
    np.testing.assert_allclose(np.sort(out[[5, 6], 1]), [BACK_Y, BACK_Y + 3 * STEP - UM], atol=1e-12)
    # One micrometre more room: the second ball fits between.
    roomy = _table((W / 2, BACK_Y + 2 * STEP + UM))
    out = _spot(*roomy, [5, 6])
    np.testing.assert_allclose(np.sort(out[[5, 6], 1]), [BACK_Y, BACK_Y + STEP], atol=1e-12)


def test_a_23_line_full_continues_towards_centre_spot() -> None:
    # A ball frozen to the back cushion on the axis leaves room for n balls behind the spot.
    back = L - R
    room = int(np.floor((back - BACK_Y - STEP) / STEP)) + 1  # centres BACK_Y + k STEP <= back - STEP
    xy, on = _table((W / 2, back))
    ids = list(range(2, 2 + room + 2))
    out = _spot(xy, on, ids)
    ys = np.sort(out[ids, 1])
    np.testing.assert_allclose(ys[2:], BACK_Y + STEP * np.arange(room), atol=1e-9)
    np.testing.assert_allclose(ys[:2], BACK_Y - STEP * np.array([2, 1]), atol=1e-9)  # towards the centre spot
    on_all = on.copy()
    on_all[ids] = True
    assert _min_gap(out, on_all) >= GAP - 1e-9


@pytest.mark.parametrize("extra", [UM, -UM])
def test_g25_2_back_cushion_limits_the_spotting_line(extra: float) -> None:
    # A table just long enough (or a micrometre too short) for 5 balls behind the back
    # spot, the last one with its centre R from the back cushion's nose.
    length = 4 * (4 * STEP + R + extra)
    back_y = 3 * length / 4
    ids = [1, 2, 3, 4, 5]
    to_spot = np.isin(np.arange(16), ids)
    out = np.asarray(_respot(*_table(), to_spot, KEY, W, length, R))
    ys = np.sort(out[ids, 1])
    assert ys[-1] <= length - R
    if extra > 0:
        np.testing.assert_allclose(ys, back_y + STEP * np.arange(5), atol=1e-12)
    else:  # the fifth does not fit: it goes to the centre-spot side
        np.testing.assert_allclose(ys, back_y + STEP * np.arange(-1, 4), atol=1e-12)


def test_g25_2_spots_behind_a_full_rack() -> None:
    # The rack blocks the line from the back spot to its base: spotted balls go behind it.
    xy, on = racking.break_layout(False, W, L, R)
    on = np.asarray(on).copy()
    on[[1, 2]] = False
    out = _spot(np.asarray(xy), on, [1, 2])
    on[[1, 2]] = True
    assert _min_gap(out, on) >= -1e-12
    assert out[1, 1] > BACK_Y and out[2, 1] > BACK_Y


def _layout(seed: int, n_line: int, n_free: int, comb: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Non-overlapping balls in random slots: up to `n_line` near the spotting line, then up
    to `n_free` from `physics.layouts.random_layout` that overlap none of them.

    Line balls are within 3R of the axis behind the back spot, or with `comb` strung along
    the axis 1.9 ball-steps apart, so the holes between them are too short for a ball and
    the line fills up quickly (G25.2's last sentence).
    """
    rng = np.random.default_rng(seed)
    xy, on = np.full((16, 2), OFF_TABLE_XY), np.zeros(16, bool)
    slots = iter(rng.permutation(16))

    def put(p: np.ndarray) -> None:
        if np.all(np.linalg.norm(xy[on] - p, axis=1) > 2 * R) and R <= p[1] <= L - R:
            slot = next(slots)
            xy[slot], on[slot] = p, True

    for k in range(n_line):
        if comb:
            x = W / 2 + rng.uniform(-R, R) / 2
            y = BACK_Y + (0.5 + 1.9 * k) * STEP + rng.uniform(-R, R) / 5
        else:
            x = W / 2 if rng.uniform() < 0.3 else W / 2 + rng.uniform(-3 * R, 3 * R)
            y = rng.uniform(BACK_Y - 4 * R, L - R)
        put(np.array([x, y]))
    for p in np.asarray(_random_layout(jax.random.PRNGKey(seed), W, L, n=16, R=R))[:n_free]:
        put(p)
    return xy, on


@settings(derandomize=True, max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    n_line=st.integers(0, 12),
    n_free=st.integers(0, 8),
    comb=st.booleans(),
    spot_bits=st.integers(0, 2**16 - 1),
)
def test_g25_2_property_no_overlap_on_cloth_on_axis(
    seed: int, n_line: int, n_free: int, comb: bool, spot_bits: int
) -> None:
    xy, on = _layout(seed, n_line, n_free, comb)
    # Every ball off the table is spotted, and some balls on it are lifted and spotted too.
    to_spot = ~on | (on & ((spot_bits >> np.arange(16)) & 1 == 1))
    out = np.asarray(_respot(xy, on, to_spot, jax.random.PRNGKey(seed), W, L, R))
    after = on | to_spot
    assert _min_gap(out, after) >= -1e-9
    p = out[after]
    assert np.all((p[:, 0] >= R) & (p[:, 0] <= W - R) & (p[:, 1] >= R) & (p[:, 1] <= L - R + 1e-12))
    np.testing.assert_array_equal(out[~to_spot], xy[~to_spot])
    np.testing.assert_allclose(out[to_spot, 0], W / 2, atol=1e-12)
    assert _spotted_gap(out, after, to_spot) >= GAP - 1e-9


def test_respot_jit_vmap_batch() -> None:
    count = 32
    layouts, ons, spots = [], [], []
    for k in range(count):
        xy, on = _layout(k, 8, 4)
        layouts.append(xy)
        ons.append(on)
        spots.append(~on & (np.arange(16) % 2 == k % 2))
    keys = jax.random.split(jax.random.PRNGKey(1), count)
    batched = jax.jit(jax.vmap(respot.respot, in_axes=(0, 0, 0, 0, None, None, None)))
    out = np.asarray(batched(np.stack(layouts), np.stack(ons), np.stack(spots), keys, W, L, R))
    for k in range(count):
        np.testing.assert_allclose(
            out[k], _respot(layouts[k], ons[k], spots[k], keys[k], W, L, R), atol=1e-12
        )
        assert _spotted_gap(out[k], ons[k] | spots[k], spots[k]) >= GAP - 1e-9
    assert jnp.asarray(out).dtype == jnp.float64
