"""Ball in hand (G10, G11.3, G21.2 with A-24, A-25, DYN-5.2): legality and the default place."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import piramida.physics as ph
from piramida.physics import markings
from piramida.rules import placement, racking
from piramida.rules.ids import ANYWHERE, CONTACT_TOLERANCE, HOUSE, OFF_TABLE_XY, TEMPORARY_HOUSE

TABLE = ph.preset("pyramid-12ft")
W, L = float(TABLE.width), float(TABLE.length)
R = float(ph.PYRAMID_PARAMS.R)
HOUSE_Y = float(markings.house_line_y(L))
BACK_Y = float(markings.back_spot(W, L)[1])
UM = 1e-6
EMPTY = (np.full((16, 2), OFF_TABLE_XY), np.zeros(16, bool))

_ok = jax.jit(placement.placement_ok)
_default = jax.jit(placement.default_placement)


def _table(*balls: tuple[float, float]) -> tuple[np.ndarray, np.ndarray]:
    """Balls 1, 2, ... at the given centres; ball 0 (the own ball) in hand."""
    xy, on = np.full((16, 2), OFF_TABLE_XY), np.zeros(16, bool)
    for k, ball in enumerate(balls, start=1):
        xy[k], on[k] = ball, True
    return xy, on


def ok(x: float, y: float, region: int, table: tuple[np.ndarray, np.ndarray] = EMPTY, **kw: float) -> bool:
    return bool(_ok(jnp.array([x, y]), region, *table, W, L, R, **kw))


def test_g10_centre_on_house_line_is_not_in_house() -> None:
    assert not ok(W / 2, HOUSE_Y, HOUSE)
    assert not ok(W / 2, HOUSE_Y, HOUSE, line_tolerance=0.0)
    assert not ok(W / 2, HOUSE_Y + UM, HOUSE, line_tolerance=0.0)
    assert ok(W / 2, HOUSE_Y - UM, HOUSE, line_tolerance=0.0)


def test_a_25_house_line_tolerance() -> None:
    # By default a centre within the 0.1 mm epsilon of the house line is on the line.
    edge = HOUSE_Y - CONTACT_TOLERANCE
    assert not ok(W / 2, edge + UM, HOUSE)
    assert ok(W / 2, edge - UM, HOUSE)
    assert not ok(W / 2, HOUSE_Y - CONTACT_TOLERANCE / 2, HOUSE)


def test_g11_3_outside_the_house_is_refused() -> None:
    assert not ok(W / 2, L / 2, HOUSE)
    assert ok(W / 2, L / 8, HOUSE)


@pytest.mark.parametrize("region", [HOUSE, TEMPORARY_HOUSE, ANYWHERE])
def test_g11_whole_ball_on_the_cloth(region: int) -> None:
    y = L / 8 if region == HOUSE else 7 * L / 8
    assert ok(R, y, region) and ok(W - R, y, region)
    assert not ok(R - UM, y, region) and not ok(W - R + UM, y, region)
    y_edge = R if region != TEMPORARY_HOUSE else L - R
    step = UM if region != TEMPORARY_HOUSE else -UM
    assert ok(W / 2, y_edge, region) and not ok(W / 2, y_edge - step, region)


def test_g11_placement_must_not_touch_a_ball() -> None:
    ball = (W / 2, L / 8)
    table = _table(ball)
    x_clear = ball[0] + 2 * R + CONTACT_TOLERANCE + UM
    x_touching = ball[0] + 2 * R + CONTACT_TOLERANCE - UM
    assert ok(x_clear, ball[1], HOUSE, table)
    assert not ok(x_touching, ball[1], HOUSE, table)
    assert not ok(*ball, HOUSE, table)
    # A ball off the table (in a pocket, on the shelf) is no obstacle.
    table[1][1] = False
    assert ok(*ball, HOUSE, table)


def test_a_24_temporary_house_is_behind_the_back_spot_line() -> None:
    edge = BACK_Y + CONTACT_TOLERANCE
    assert ok(W / 2, edge + UM, TEMPORARY_HOUSE)
    assert not ok(W / 2, edge - UM, TEMPORARY_HOUSE)
    assert not ok(W / 2, BACK_Y, TEMPORARY_HOUSE)
    assert not ok(W / 2, L / 8, TEMPORARY_HOUSE)


def test_dyn_5_2_anywhere_is_the_whole_bed() -> None:
    for y in (R, L / 8, HOUSE_Y, L / 2, BACK_Y, L - R):
        assert ok(W / 2, y, ANYWHERE)
    assert not ok(W / 2, L - R + UM, ANYWHERE)


def test_g21_2_all_object_balls_in_house_gives_temporary_house() -> None:
    inside, outside = (W / 2, L / 8), (W / 2, L / 2)
    xy, on = _table(inside, (W / 3, L / 8))
    assert int(placement.house_region(xy, on, 0, L)) == TEMPORARY_HOUSE
    xy, on = _table(inside, outside)
    assert int(placement.house_region(xy, on, 0, L)) == HOUSE
    # A ball on the house line is not in the house (G10.2): the house rule stays.
    xy, on = _table(inside, (W / 2, HOUSE_Y))
    assert int(placement.house_region(xy, on, 0, L)) == HOUSE
    # The own ball is not an object ball, whatever its slot says.
    xy, on = _table(inside)
    on[0], xy[0] = True, outside
    assert int(placement.house_region(xy, on, 0, L)) == TEMPORARY_HOUSE


def test_g11_1_default_placement_keeps_a_legal_preferred_point() -> None:
    xy, on = racking.break_layout(False, W, L, R)
    natural = np.asarray(_default(HOUSE, xy, on, W, L, R))
    np.testing.assert_allclose(natural, [W / 2, L / 4 - L / 16])
    preferred = jnp.array([0.3, 0.5])
    np.testing.assert_array_equal(_default(HOUSE, xy, on, W, L, R, preferred), preferred)


def test_g11_1_default_placement_moves_off_a_blocked_point() -> None:
    preferred = np.array([W / 2, 0.5])
    table = _table(tuple(preferred))
    xy = np.asarray(_default(HOUSE, *table, W, L, R, jnp.asarray(preferred)))
    assert ok(*xy, HOUSE, table)
    assert np.linalg.norm(xy - preferred) < 2 * R + 0.05  # a nearby grid point
    # A preferred point outside the region is clamped into it.
    out = np.asarray(_default(HOUSE, *EMPTY, W, L, R, jnp.array([0.4, L / 2])))
    assert ok(*out, HOUSE) and out[0] == pytest.approx(0.4) and out[1] == pytest.approx(HOUSE_Y, abs=1e-3)


def test_default_placement_reports_nan_when_nothing_is_legal() -> None:
    # A table too narrow for any ball: no candidate can be on the cloth.
    xy = placement.default_placement(HOUSE, *EMPTY, 1.5 * R, L, R)
    assert bool(jnp.all(jnp.isnan(xy)))


def test_default_placement_jit_vmap_batch() -> None:
    count = 64
    keys = jax.random.split(jax.random.PRNGKey(3), count)
    layouts = jax.vmap(lambda k: ph.random_layout(k, W, L, 16, R))(keys)
    on = jnp.broadcast_to(jnp.arange(16) >= 1, (count, 16))
    regions = jnp.arange(count) % 3
    # Every table also gets a ball on the region's natural point, so the default must move.
    naturals = jax.vmap(placement.natural_point, in_axes=(0, None, None))(regions, W, L)
    layouts = layouts.at[:, 1].set(naturals)
    place = jax.jit(jax.vmap(placement.default_placement, in_axes=(0, 0, 0, None, None, None)))
    xy = place(regions, layouts, on, W, L, R)
    legal = jax.vmap(placement.placement_ok, in_axes=(0, 0, 0, 0, None, None, None))(
        xy, regions, layouts, on, W, L, R
    )
    assert bool(jnp.all(legal))
    assert bool(jnp.all(markings.in_house(xy[regions == HOUSE], L)))


@pytest.mark.parametrize("searching", [0, 3, 40], ids=["none-searched", "few-searched", "all-searched"])
def test_a_batchs_places_are_each_tables_default_placement(searching: int) -> None:
    """`placements` skips the grid search where the preferred point is legal: the same places.

    64 tables (ball in hand anywhere), half of them placing; `searching` tables have a ball
    on their preferred point, so no table is searched (0), a gathered few (3 <= 64 / 16) or
    the whole batch (40). A legal preferred point is the place, bit for bit.
    """
    rng = np.random.default_rng(searching)
    batch = 64
    regions = np.full(batch, ANYWHERE)
    preferred = np.stack([rng.uniform(0.1, W - 0.1, batch), rng.uniform(0.1, L - 0.1, batch)], axis=-1)
    positions = np.stack([rng.uniform(R, W - R, (batch, 16)), rng.uniform(R, L - R, (batch, 16))], axis=-1)
    near = np.linalg.norm(positions - preferred[:, None], axis=-1) < 4 * R
    on = (rng.random((batch, 16)) < 0.6) & ~near  # no ball on a preferred point but those put there
    on[:, 0] = False  # the ball in hand
    placing = np.arange(batch) % 2 == 0
    blocked = np.flatnonzero(placing)[:searching] if searching <= 32 else np.arange(searching)
    placing[blocked] = True
    positions[blocked, 1] = preferred[blocked] + [0.5 * R, 0.0]  # a ball on the preferred point
    on[blocked, 1] = True
    got = np.asarray(
        jax.jit(placement.placements)(
            jnp.asarray(placing), jnp.asarray(regions), jnp.asarray(positions), jnp.asarray(on),
            jnp.asarray(preferred), W, L, R,
        )
    )  # fmt: skip
    search = jax.jit(
        jax.vmap(
            lambda r, p, o, q: placement.default_placement(r, p, o, W, L, R, q, grid=placement.COARSE_GRID)
        )
    )
    expected = np.array(search(regions, positions, on, preferred))
    expected[~placing] = OFF_TABLE_XY
    # XLA compiles the search of a gathered few and of the whole batch apart: a grid point
    # may differ in its last bit (a fused multiply-add), a picometre.
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)
    legal = np.asarray(
        jax.vmap(lambda q, r, p, o: placement.placement_ok(q, r, p, o, W, L, R))(
            preferred, regions, positions, on
        )
    )
    assert (placing & ~legal).sum() == searching and legal[placing].any()  # the branch meant
    assert (got[placing & legal] == preferred[placing & legal]).all()
