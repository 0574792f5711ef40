"""The vector env plays its tables in chunks (`core.chunks`), so that every env size runs the same programs.

A chunk is one `core.Core` whose batch is a `core.bucket`: envs of different sizes share
their compiled programs instead of compiling their own (a new batch size used to compile
the referee, the bots and the observation anew: 13.5 s on this CPU from empty caches).
"""

from __future__ import annotations

from typing import Any

import jax
import numpy as np
import pytest

from piramida.envs import core
from piramida.envs.vector_env import PyramidVectorEnv


def test_chunks_and_buckets_on_the_cpu() -> None:
    assert jax.default_backend() == "cpu"
    assert core.chunks(1) == [1]
    assert core.chunks(core.CPU_CHUNK) == [core.CPU_CHUNK]
    assert core.chunks(4 * core.CPU_CHUNK - 24) == [core.CPU_CHUNK] * 3 + [core.CPU_CHUNK - 24]
    assert [core.bucket(n) for n in (1, 8, 9, 100, core.CPU_CHUNK)] == [8, 8, 16, 128, core.CPU_CHUNK]
    assert core.bucket(core.CPU_CHUNK + 1) == core.padded(core.CPU_CHUNK + 1)


def programs() -> dict[str, int]:
    """How many programs each of the env's jitted stages has compiled in this process."""
    stages: dict[str, Any] = {
        "move": core._play_masked,
        "decode": core.decode_moves,
        "observe": core.observe_states,
        "new frames": core.new_frames,
    }
    return {name: stage._cache_size() for name, stage in stages.items()}


@pytest.fixture
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunks of 8 tables, the smallest bucket: the test's envs share the single env's programs."""
    monkeypatch.setattr(core, "CPU_CHUNK", 8)


def step_once(env: PyramidVectorEnv, seed: int) -> tuple[Any, ...]:
    env.action_space.seed(seed)
    obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
    return obs, reward, terminated, truncated, info["score"]


def test_an_env_of_another_size_compiles_no_new_program(small_chunks: None) -> None:
    first = PyramidVectorEnv(num_envs=8, variant="free")
    first.reset(seed=0)
    step_once(first, 0)
    compiled = programs()
    second = PyramidVectorEnv(num_envs=20, variant="free")  # chunks of 8, 8 and 4 tables
    assert [c.size for c in second.cores] == [8, 8, 8] and second.compiled_tables == 24
    obs, info = second.reset(seed=1)
    assert obs.shape[0] == 20 and info["score"].shape == (20, 2)
    obs, reward, terminated, truncated, _ = step_once(second, 1)
    assert obs.shape[0] == reward.shape[0] == terminated.shape[0] == truncated.shape[0] == 20
    assert programs() == compiled


def test_a_chunked_envs_games_go_back_where_they_were(small_chunks: None) -> None:
    env = PyramidVectorEnv(num_envs=12, variant="combined")
    env.reset(seed=2)
    saved, generator = env.games(), env.np_random.bit_generator.state
    first = step_once(env, 3)
    env.set_games(*saved)
    env.np_random.bit_generator.state = generator
    again = step_once(env, 3)
    for a, b in zip(first, again, strict=True):
        np.testing.assert_array_equal(a, b)
