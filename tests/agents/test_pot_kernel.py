"""The Warp pot planner (`agents.pot_kernel`) against the lists recorded from the XLA planner it replaced.

`tests/data/pot_plans.npz` holds the 8 best pots of 5,475 recorded game positions (all
four variants, breaks and balls in hand) as the XLA planner gave them. The kernel runs
the same float64 arithmetic in another compiler, so the lists must be the same shots in
the same order; the aims may differ by rounding only. Near a straight shot the cut is
the arccos of a dot product within an ulp or two of 1, which turns that rounding into
about 1e-8 rad: hence 1e-5 degree on the angles and 1e-9 on the rest.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from piramida.agents.candidates import candidates
from piramida.rules import placement
from piramida.rules import state as st
from tests.helpers import game_shots, pot_plans

pytestmark = pytest.mark.xdist_group("pot-kernel")

ANGLE_TOLERANCE_DEG = 1e-5
TOLERANCE = 1e-9


@pytest.fixture(scope="module")
def recorded() -> tuple[object, dict[str, np.ndarray]]:
    states, _, _ = game_shots.load()
    return states, pot_plans.load()


def test_the_planner_gives_the_recorded_lists(recorded: tuple[object, dict[str, np.ndarray]]) -> None:
    states, expected = recorded
    plans = candidates(states, k=pot_plans.K)
    valid = expected["valid"]
    assert valid.sum() > 15_000  # most positions have pots to plan
    np.testing.assert_array_equal(np.asarray(plans.valid), valid)
    for name in ("own", "target", "pocket"):
        np.testing.assert_array_equal(np.where(valid, np.asarray(getattr(plans, name)), 0), expected[name])
    for name, tolerance in (
        ("phi", ANGLE_TOLERANCE_DEG),
        ("cut", ANGLE_TOLERANCE_DEG),
        ("distance", TOLERANCE),
        ("speed", TOLERANCE),
        ("score", TOLERANCE),
        ("place", TOLERANCE),
    ):
        got = np.asarray(getattr(plans, name))
        mask = valid.reshape(valid.shape + (1,) * (got.ndim - 2))
        np.testing.assert_allclose(
            np.where(mask, got, 0), expected[name], rtol=0, atol=tolerance, err_msg=name
        )


def test_a_table_is_planned_the_same_alone_in_a_batch_and_under_vmap(
    recorded: tuple[object, dict[str, np.ndarray]],
) -> None:
    states, _ = recorded
    batch = jax.tree_util.tree_map(lambda x: x[:64], states)
    flat = candidates(batch, k=4)
    alone = candidates(jax.tree_util.tree_map(lambda x: x[37:38], batch), k=4)
    nested = jax.vmap(lambda s: candidates(s, k=4))(
        jax.tree_util.tree_map(lambda x: x.reshape(8, 8, *x.shape[1:]), batch)
    )
    for name in ("valid", "own", "target", "pocket", "phi", "speed", "place", "score"):
        whole = np.asarray(getattr(flat, name))
        np.testing.assert_array_equal(np.asarray(getattr(alone, name))[0], whole[37], err_msg=name)
        np.testing.assert_array_equal(
            np.asarray(getattr(nested, name)).reshape(whole.shape), whole, err_msg=name
        )


def test_a_ball_in_hand_is_placed_legally_on_its_line() -> None:
    states, _, _ = game_shots.load()
    in_hand = np.flatnonzero(np.asarray(states.phase) == st.IN_HAND)
    assert in_hand.size > 50
    some = jax.tree_util.tree_map(lambda x: x[in_hand], states)
    plans = candidates(some, k=2)
    valid = np.asarray(plans.valid[:, 0])
    assert valid.mean() > 0.5
    regions = jax.vmap(st.hand_region)(some)
    legal = jax.vmap(
        lambda xy, r, p, o: placement.placement_ok(
            xy, r, p, o, st.DEFAULT_DIMS.width, st.DEFAULT_DIMS.length, st.DEFAULT_DIMS.R
        )
    )(plans.place[:, 0], regions, some.positions, some.on_table)
    assert np.asarray(legal)[valid].all()
    assert jnp.isfinite(plans.phi[:, 0]).all()
