"""GPU figures of the Warp shot kernel: throughput per batch size, one shot's latency, block size,
and `jax-ppo` learner moves per second (docs/gpu_kernel.jsonl, shown on the measured performance page).

Run on a GPU machine, one section per process (a hang in one leaves the others):
    python benchmarks/gpu_kernel.py kernel OUT.jsonl [BLOCK_DIM]
    python benchmarks/gpu_kernel.py ppo OUT.jsonl
Each measurement is appended to OUT.jsonl as one JSON line as soon as it is made, so a
section killed by its time limit still leaves what it measured. `SMALL=1` runs the same
code paths at toy sizes (a CPU dry run).
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

import jax

jax.config.update("jax_enable_x64", True)  # a piramida program: the games compute in float64 throughout
SMALL = os.environ.get("SMALL") == "1"


def emit(out: str, **row: Any) -> None:
    """Append one measurement to the JSON Lines file and print it."""
    row["time"] = time.time()
    with open(out, "a") as f:
        f.write(json.dumps(row) + "\n")
    print(json.dumps(row), flush=True)


def kernel(out: str, block: str) -> None:
    """Shots/s and events/s per workload and batch size, first-call time, one shot's latency."""
    from piramida.physics.workloads import time_kernel

    emit(out, section="kernel", devices=[str(d) for d in jax.devices()], jax=jax.__version__, block_dim=block)
    plan = [
        ("random16", 1),
        ("random16", 65536),
        ("break", 65536),
        ("random16", 262144),
        ("random16", 1048576),
    ]
    if SMALL:
        plan = [("random16", 1), ("random16", 64), ("break", 16)]
    for workload, size in plan:
        # Three timed calls of a large batch, twenty of a small one (`piramida bench`'s timing).
        emit(
            out, section="kernel", block_dim=block, **time_kernel(workload, size, min_shots=max(3 * size, 20))
        )


def ppo(out: str) -> None:
    """Learner moves per second of `jax-ppo` against greedy, and the time of its first round."""
    from piramida.training import ppo
    from piramida.training.config import TrainConfig

    emit(out, section="ppo", devices=[str(d) for d in jax.devices()])
    for tables in (8,) if SMALL else (4096, 16384):
        n_steps = 16
        hyper = {"n_steps": n_steps, "batch_size": tables * n_steps // 8, "n_epochs": 4}
        config = TrainConfig(algo="jax-ppo", variant="free", action_mode="assisted", tables=tables,
                             opponent="greedy", seed=0, hyperparameters=hyper, noise=0.15)  # fmt: skip
        rounds = 3
        warm, dt = ppo.time_rounds(config, rounds)
        moves = rounds * n_steps * tables
        emit(out, section="ppo", tables=tables, opponent="greedy", first_round_s=warm, rounds=rounds,
             learner_moves_per_s=moves / dt, seconds_per_round=dt / rounds)  # fmt: skip


if __name__ == "__main__":
    section, path = sys.argv[1], sys.argv[2]
    if section == "kernel":
        kernel(path, os.environ.get("PIRAMIDA_BLOCK_DIM", "256"))
    else:
        ppo(path)
