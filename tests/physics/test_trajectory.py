"""`trajectory` replays a recorded shot exactly: at every event it is where the log says."""

from __future__ import annotations

import jax
import numpy as np
import pytest

import piramida.physics as ph
from piramida.physics.trajectory import trajectory

# Its module-scoped fixtures are costly: one worker runs the whole module (`--dist loadgroup`).
pytestmark = pytest.mark.xdist_group("test_trajectory")


@pytest.fixture(scope="module")
def recorded() -> tuple[ph.ShotResult, np.ndarray]:
    start = np.array([[0.8875, 0.4], [0.9, 2.0], [0.3, 3.0]])
    balls = jax.tree_util.tree_map(lambda x: x[None], ph.at_rest(start))
    strike = ph.Strike(
        ball=np.array([0]),
        speed=np.array([3.5]),
        phi=np.array([90.5]),
        theta=np.array([0.0]),
        a=np.array([0.2]),
        b=np.array([0.3]),
    )
    result = ph.simulate(ph.preset(), balls, strike, record=True)
    return jax.tree_util.tree_map(lambda x: np.asarray(x)[0], result), start


def test_trajectory_starts_at_the_layout_and_ends_at_the_final_state(recorded: tuple) -> None:
    result, start = recorded
    ends = np.asarray(trajectory(result, np.array([0.0, float(result.duration) + 5.0])))
    np.testing.assert_array_equal(ends[0, :3], start)
    np.testing.assert_allclose(ends[1], np.asarray(result.final.r), atol=1e-12)


def test_trajectory_passes_through_every_logged_state(recorded: tuple) -> None:
    result, _ = recorded
    count = int(result.log.count)
    assert count > 5
    times = np.asarray(result.log.t[:count])
    # Just before each event the balls are where the event found them: to rounding, or
    # within the few micrometres a contact moves its balls apart (`engine.kiss`).
    before = np.asarray(trajectory(result, np.nextafter(times, -np.inf)))
    np.testing.assert_allclose(before, np.asarray(result.history.r[:count]), atol=5e-6)


def test_trajectory_refuses_an_unrecorded_result() -> None:
    result = ph.ShotResult(None, None, None, None, None, None, None, None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="record=True"):
        trajectory(result, np.zeros(1))
