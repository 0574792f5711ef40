"""Exact ball positions at any time of a recorded shot.

Between two events every ball follows `motion.advance` from the state recorded right
after the earlier event, so sampling needs no integration and no tolerance.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from piramida.physics.kernel import ShotResult
from piramida.physics.motion import BallState, advance
from piramida.physics.params import PYRAMID_PARAMS, PhysicsParams


def trajectory(result: ShotResult, times: Any, params: PhysicsParams = PYRAMID_PARAMS) -> Any:
    """Positions of every ball at `times` (T,) for ONE table's result, (T, N, 2).

    The result must come from `simulate(..., record=True)`; `params` must be the ones it
    ran with. Times past the end give the final layout; pocketed balls stay where they
    entered the capture circle.
    """
    if result.history is None:
        raise ValueError("trajectory needs a result simulated with record=True")
    return _sample(result.history, result.log.t, result.log.count, jnp.asarray(times), params)


@jax.jit
def _sample(history: BallState, event_t: Any, count: Any, times: Any, params: PhysicsParams) -> Any:
    used_t = jnp.where(jnp.arange(event_t.shape[0]) < count, event_t, jnp.inf)

    def at(t: Any) -> Any:
        k = jnp.clip(jnp.searchsorted(used_t, t, side="right") - 1, 0, jnp.maximum(count - 1, 0))
        state = jax.tree_util.tree_map(lambda x: x[k], history)
        return advance(state, t - used_t[k], params).r

    return jax.vmap(at)(times)
