"""A user's program: plays piramida's public entry points and prints digests of what they returned.

Run as `python float64_user.py` it is a user's process, whose JAX stays in float32 (the
default); with `global` it first switches float64 on for the whole process, as piramida's
own commands do. `tests/test_float64_scope.py` runs both and compares the digests: the
entry points' float64 scope must give the same bits as a float64 process.
"""

from __future__ import annotations

import hashlib
import json
import sys
from typing import Any

import gymnasium as gym
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

import piramida.envs
import piramida.physics as ph

TABLES = 8  # the envs' compiled batch: the suite's programs, from the persistent cache


def digest(*values: Any) -> str:
    """A short hash of every array's dtype and bytes."""
    h = hashlib.sha256()
    for leaf in jax.tree_util.tree_leaves(values):
        array = np.asarray(leaf)
        h.update(str(array.dtype).encode())
        h.update(array.tobytes())
    return h.hexdigest()[:16]


def main() -> None:
    """Print one JSON line: a digest per entry point, and what the user's JAX looks like after."""
    if sys.argv[1:] == ["global"]:
        ph.runtime.use_float64()
    out: dict[str, Any] = {}

    env = gym.make("piramida/FreePyramid-v1", opponent="greedy")
    obs, _ = env.reset(seed=3)
    rewards = []
    for k in range(3):
        action = np.random.default_rng(k).uniform(-1, 1, env.action_space.shape).astype(np.float32)
        obs, reward, *_ = env.step(action)
        rewards.append(reward)
    out["gym"] = digest(obs, np.asarray(rewards, np.float64))

    vector = gym.make_vec("piramida/FreePyramid-v1", num_envs=TABLES, vectorization_mode="vector_entry_point")
    obs, _ = vector.reset(seed=1)
    obs, reward, *_ = vector.step(np.full((TABLES, 11), 0.3, np.float32))
    out["vector"] = digest(obs, reward)

    jax_env, params = piramida.envs.make_jax("free", num_envs=TABLES, opponent="random")

    @jax.jit
    def play(key: Any) -> Any:
        _, state = jax_env.reset(key, params)

        def one(state: Any, k: Any) -> Any:
            action = jax.random.uniform(k, (TABLES, 11), minval=-1, maxval=1)
            obs, state, reward, _, _, info = jax_env.step(k, state, action, params)
            return state, (obs, reward, info.score)

        return lax.scan(one, state, jax.random.split(key, 2))[1]

    try:
        play(jax.random.PRNGKey(0))
        out["traced_without_float64"] = "ran"
    except ph.runtime.Float64NeededError:
        out["traced_without_float64"] = "Float64NeededError"
    with ph.runtime.float64():
        played = play(jax.random.PRNGKey(0))
    out["jax"] = digest(played)
    out["jax_dtypes"] = [str(x.dtype) for x in jax.tree_util.tree_leaves(played)]

    table, R = ph.preset(), float(ph.PYRAMID_PARAMS.R)
    centres = ph.random_layout(jax.random.PRNGKey(1), float(table.width), float(table.length), 16, R)
    balls = jax.tree_util.tree_map(lambda x: x[None], ph.at_rest(np.asarray(centres)))
    shot = ph.simulate(table, balls, ph.Strike(ball=0, speed=5.0, phi=80.0, theta=0.0, a=0.0, b=0.0))
    out["simulate"] = digest(shot.final, shot.log, shot.duration)

    out["x64_after"] = bool(jax.enable_x64.value)
    out["default_float"] = str(jnp.ones(2).dtype)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
