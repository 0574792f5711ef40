"""Seeded shot workloads for timing the kernel, and the timing itself.

`piramida bench` times these, and the benchmarks (`benchmarks/gpu_kernel.py`,
`log_capacity.py`, `kernel_agreement.py`) replay the same shots, so every speed and
agreement figure of docs/physics.md is measured on one definition of "a random shot" and
"a break".
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp

from piramida.physics.kernel import simulate
from piramida.physics.layouts import at_rest, break_positions, random_layout
from piramida.physics.motion import STATIONARY, BallState
from piramida.physics.params import PYRAMID_PARAMS
from piramida.physics.strike import Strike
from piramida.physics.table import preset

Workload = Callable[[int, int, float, float, float], tuple[BallState, Strike]]


def random_shots(seed: int, batch: int, width: float, length: float, R: float) -> tuple[BallState, Strike]:
    """`batch` random 16-ball layouts with a random strike of ball 0 (1-5 m/s, any aim)."""
    key_layout, key_strike = jax.random.split(jax.random.PRNGKey(seed))
    keys = jax.random.split(key_layout, batch)
    positions = jax.vmap(lambda k: random_layout(k, width, length, 16, R))(keys)
    u = jax.random.uniform(key_strike, (batch, 4))
    balls = BallState(
        r=positions,
        v=jnp.zeros((batch, 16, 2)),
        w=jnp.zeros((batch, 16, 3)),
        s=jnp.full((batch, 16), STATIONARY, jnp.int32),
    )
    strikes = Strike(
        ball=jnp.zeros(batch, jnp.int32),
        speed=1.0 + 4.0 * u[:, 0],
        phi=360.0 * u[:, 1],
        theta=jnp.zeros(batch),
        a=0.4 * (u[:, 2] - 0.5),
        b=0.4 * (u[:, 3] - 0.5),
    )
    return balls, strikes


def break_shots(seed: int, batch: int, width: float, length: float, R: float) -> tuple[BallState, Strike]:
    """`batch` breaks: the full rack, ball 0 in the house, 6-9 m/s within a degree of the apex."""
    positions = jnp.asarray(break_positions(width, length, R))
    balls = jax.tree_util.tree_map(lambda x: jnp.repeat(x[None], batch, axis=0), at_rest(positions))
    u = jax.random.uniform(jax.random.PRNGKey(seed), (batch, 2))
    strikes = Strike(
        ball=jnp.zeros(batch, jnp.int32),
        speed=6.0 + 3.0 * u[:, 0],
        phi=89.0 + 2.0 * u[:, 1],
        theta=jnp.zeros(batch),
        a=jnp.zeros(batch),
        b=jnp.zeros(batch),
    )
    return balls, strikes


WORKLOADS: dict[str, Workload] = {"random16": random_shots, "break": break_shots}
CAPACITY = {"random16": 256, "break": 1024}


def time_kernel(workload: str, size: int, min_shots: int) -> dict[str, Any]:
    """Throughput of one workload at one batch size on the default table (after a warm-up call)."""
    table, params = preset(), PYRAMID_PARAMS
    make = WORKLOADS[workload]
    balls, strikes = make(0, size, float(table.width), float(table.length), float(params.R))
    started = time.perf_counter()
    jax.block_until_ready(simulate(table, balls, strikes, params, capacity=CAPACITY[workload]))
    warmup = time.perf_counter() - started
    # Enough calls for `min_shots`, at most 50 (batch 1 would take long).
    calls = min(max(1, -(-min_shots // size)), 50)
    # Made (and finished: JAX computes them asynchronously) before the clock starts.
    batches = jax.block_until_ready(
        [make(k + 1, size, float(table.width), float(table.length), float(params.R)) for k in range(calls)]
    )
    events = 0
    overflow = 0
    started = time.perf_counter()
    for b, s in batches:
        # The warm-up call checked these layouts' kind of input; the host check of every
        # batch (about 25 ms per 1024 tables) is left out of the kernel's time.
        result = simulate(table, b, s, params, capacity=CAPACITY[workload], validate=False)
        events += int(jnp.sum(result.log.count))
        overflow += int(jnp.sum(result.log.overflow))
    elapsed = time.perf_counter() - started
    shots = calls * size
    return {
        "workload": workload,
        "batch": size,
        "shots": shots,
        "seconds": elapsed,
        "shots_per_s": shots / elapsed,
        "events_per_s": events / elapsed,
        "events_per_shot": events / shots,
        "latency_ms": 1e3 * elapsed / calls,
        "first_call_s": warmup,
        "overflow": overflow,
    }
