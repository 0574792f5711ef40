"""Shared helpers for the physics tests: random tables and strikes, built the same way everywhere.

The physics tests put many scenarios into one fixed-size batch (one trace of the kernel's
JAX wrapper each); these helpers make the random part of such a batch.
"""

from __future__ import annotations

import os

# pooltool, the physics cross-checks' reference, compiles its numba kernels into a fresh
# install on first use: 56 s on an idle 2-core CPU (and about 100 s in a loaded test run),
# against 7 s more for running its few hundred cross-check shots interpreted. The same
# code either way; before numba is first imported (its setting is read then).
os.environ.setdefault("NUMBA_DISABLE_JIT", "1")

import gc
from collections.abc import Iterator
from functools import partial
from typing import Any

import jax
import numpy as np
import pytest

import piramida.physics as ph

ph.runtime.use_float64()  # the tests are piramida's own process (tests/test_float64_scope.py checks a user's)

R = float(ph.PYRAMID_PARAMS.R)


@partial(jax.jit, static_argnames=("count", "balls"))
def _layouts(key: Any, width: Any, length: Any, count: int, balls: int) -> Any:
    keys = jax.random.split(key, count)
    return jax.vmap(lambda k: ph.random_layout(k, width, length, balls, R))(keys)


def _freeze(balls: np.ndarray, rng: np.random.Generator, width: float, length: float) -> None:
    """Move some balls against the ball before them (frozen pairs, chains), in place.

    Touching exactly (gap 0) is the hard case for the kernel; a 1 um gap is the rack's.
    """
    for i in range(1, len(balls)):
        if rng.uniform() < 0.5:
            continue
        gap = rng.choice([0.0, 1e-6])
        angle = rng.uniform(0, 2 * np.pi)
        spot = balls[i - 1] + (2 * R + gap) * np.array([np.cos(angle), np.sin(angle)])
        others = np.delete(balls, [i - 1, i], axis=0)
        on_cloth = R < spot[0] < width - R and R < spot[1] < length - R
        if on_cloth and np.all(np.linalg.norm(others - spot, axis=1) >= 2 * R + 1e-6):
            balls[i] = spot


def random_tables(seed: int, count: int, table: ph.Table) -> tuple[ph.BallState, ph.Strike]:
    """`count` random tables (2 to 16 balls each, drawn by `ph.random_layout`) and strikes.

    On about a third of the tables some balls are moved to touch their predecessor.

    Ball 0 is struck on every table: speed 0.5 to 8 m/s, any aim, a tip offset up to 0.5 R,
    and on a quarter of the tables an elevated cue (up to 30 degrees, for masse spin).
    Returns numpy arrays with a leading (count,) axis.
    """
    rng = np.random.default_rng(seed)
    width, length = float(table.width), float(table.length)
    centres = np.asarray(_layouts(jax.random.PRNGKey(seed), width, length, count, 16))
    states = []
    for k in range(count):
        balls = centres[k, : rng.integers(2, 17)].copy()
        if rng.uniform() < 0.3:
            _freeze(balls, rng, width, length)
        states.append(ph.at_rest(balls))
    balls = jax.tree_util.tree_map(lambda *x: np.stack([np.asarray(a) for a in x]), *states)
    tip = 0.5 * np.sqrt(rng.uniform(0, 1, count))
    tip_angle = rng.uniform(0, 2 * np.pi, count)
    strikes = ph.Strike(
        ball=np.zeros(count, np.int32),
        speed=rng.uniform(0.5, 8.0, count),
        phi=rng.uniform(0.0, 360.0, count),
        theta=np.where(rng.uniform(0, 1, count) < 0.25, rng.uniform(0.0, 30.0, count), 0.0),
        a=tip * np.cos(tip_angle),
        b=tip * np.sin(tip_angle),
    )
    return balls, strikes


@pytest.fixture(scope="session")
def random_shots() -> Any:
    """The `random_tables` helper, as a fixture."""
    return random_tables


@pytest.fixture(autouse=True, scope="module")
def _release_compiled_programs() -> Iterator[None]:
    """Free each test module's compiled programs when the module ends.

    XLA's CPU backend maps about 1,800 memory regions for each loaded kernel program (a
    code, a read-only and a data region per compiled kernel). A test worker that kept every
    module's programs went past Linux's default `vm.max_map_count` (65,530), and XLA then
    crashed (a segmentation fault in the compiler, or an abort serializing a program for
    the cache). Later modules reload what they need from the persistent cache.
    """
    yield
    jax.clear_caches()
    gc.collect()


@pytest.fixture(autouse=True, scope="session")
def _sb3_default_logs_in_pytest_tmp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Keep the folders SB3 makes for a `learn` with no logger of its own in pytest's temporary tree.

    SB3 makes an (empty) `SB3-<date>` folder in the system's temporary directory for each
    such `learn` unless `SB3_LOGDIR` names one; the adapter tests left four a run.
    """
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SB3_LOGDIR", str(tmp_path_factory.mktemp("sb3-logs")))
        yield
