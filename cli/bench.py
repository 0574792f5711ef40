"""`piramida bench`: kernel throughput, compile times, and the ratio to pooltool.

Speed is measured side by side in one process (machines here are shared and noisy):
shots and events per second per batch size on random 16-ball layouts and on breaks,
then, with `--vs-pooltool`, the same random shots through pooltool-billiards.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
from rich.console import Console
from rich.progress import Progress
from rich.table import Table as RichTable

import piramida.physics as ph
from piramida.physics.layouts import break_positions
from piramida.physics.motion import STATIONARY
from piramida.physics.strike import cue_impulse
from piramida.physics.table import PRESETS, SPEC_FIELDS


def add_parser(commands: Any) -> None:
    """Register the subcommand."""
    parser = commands.add_parser(
        "bench",
        help="measure kernel throughput and compile time (and the ratio to pooltool)",
        description="Shots/s and events/s per batch size on random 16-ball layouts and on "
        "breaks; first-compile and cached-start times; optionally pooltool's throughput on "
        "the same shots in the same process.",
    )
    parser.add_argument("--sizes", default="1,64,1024,8192", help="batch sizes (default: %(default)s)")
    parser.add_argument("--workloads", default="random16,break", help="random16 and/or break")
    parser.add_argument(
        "--min-shots", type=int, default=2048, help="shots timed per size (default: %(default)s)"
    )
    parser.add_argument("--vs-pooltool", action="store_true", help="also run the shots through pooltool")
    parser.add_argument(
        "--pooltool-shots", type=int, default=40, help="shots for pooltool (default: %(default)s)"
    )
    parser.add_argument("--compile", action="store_true", help="also time a cold compile and a cached start")
    parser.add_argument("--json", help="write the figures to this JSON file")
    parser.set_defaults(run=run)


def random_shots(
    seed: int, batch: int, width: float, length: float, R: float
) -> tuple[ph.BallState, ph.Strike]:
    """`batch` random 16-ball layouts with a random strike of ball 0 (1-5 m/s, any aim)."""
    key_layout, key_strike = jax.random.split(jax.random.PRNGKey(seed))
    positions = jax.vmap(lambda k: ph.random_layout(k, width, length, 16, R))(
        jax.random.split(key_layout, batch)
    )
    u = jax.random.uniform(key_strike, (batch, 4))
    balls = ph.BallState(
        r=positions,
        v=jnp.zeros((batch, 16, 2)),
        w=jnp.zeros((batch, 16, 3)),
        s=jnp.full((batch, 16), STATIONARY, jnp.int32),
    )
    strikes = ph.Strike(
        ball=jnp.zeros(batch, jnp.int32),
        speed=1.0 + 4.0 * u[:, 0],
        phi=360.0 * u[:, 1],
        theta=jnp.zeros(batch),
        a=0.4 * (u[:, 2] - 0.5),
        b=0.4 * (u[:, 3] - 0.5),
    )
    return balls, strikes


def break_shots(
    seed: int, batch: int, width: float, length: float, R: float
) -> tuple[ph.BallState, ph.Strike]:
    """`batch` breaks: the full rack, ball 0 in the house, 6-9 m/s within a degree of the apex."""
    positions = jnp.asarray(break_positions(width, length, R))
    balls = jax.tree_util.tree_map(lambda x: jnp.repeat(x[None], batch, axis=0), ph.at_rest(positions))
    u = jax.random.uniform(jax.random.PRNGKey(seed), (batch, 2))
    strikes = ph.Strike(
        ball=jnp.zeros(batch, jnp.int32),
        speed=6.0 + 3.0 * u[:, 0],
        phi=89.0 + 2.0 * u[:, 1],
        theta=jnp.zeros(batch),
        a=jnp.zeros(batch),
        b=jnp.zeros(batch),
    )
    return balls, strikes


WORKLOADS = {"random16": random_shots, "break": break_shots}
CAPACITY = {"random16": 256, "break": 1024}


def time_kernel(workload: str, size: int, min_shots: int) -> dict[str, Any]:
    """Throughput of one workload at one batch size (after a warm-up call)."""
    table, params = ph.preset(), ph.PYRAMID_PARAMS
    make = WORKLOADS[workload]
    balls, strikes = make(0, size, float(table.width), float(table.length), float(params.R))
    started = time.perf_counter()
    jax.block_until_ready(ph.simulate(table, balls, strikes, params, capacity=CAPACITY[workload]))
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
        result = ph.simulate(table, b, s, params, capacity=CAPACITY[workload], validate=False)
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


def pooltool_specs(count: int) -> list[dict[str, Any]]:
    """The first `count` random16 shots as explicit-velocity specs for the pooltool bridge."""
    table, params = ph.preset(), ph.PYRAMID_PARAMS
    balls, strikes = random_shots(1, count, float(table.width), float(table.length), float(params.R))
    spec_table = {"kind": "pockets", **{f: getattr(PRESETS["pyramid-12ft"], f) for f in SPEC_FIELDS}}
    param_dict = {
        f: float(getattr(params, f))
        for f in ("R", "m", "u_s", "u_r", "u_sp", "e_b", "u_b", "e_c", "f_c", "g")
    }
    specs = []
    for k in range(count):
        one = jax.tree_util.tree_map(lambda x, k=k: x[k], strikes)
        v, w = cue_impulse(one, params)
        entries: list[dict[str, Any]] = [
            {"id": i, "x": float(balls.r[k, i, 0]), "y": float(balls.r[k, i, 1])} for i in range(16)
        ]
        entries[0].update(v=[float(x) for x in v], w=[float(x) for x in w])
        specs.append(
            {
                "table": spec_table,
                "params": param_dict,
                "models": {"ball_ball": "frictional_inelastic", "cushion": "stronge_compliant"},
                "balls": entries,
            }
        )
    return specs


def time_pooltool(count: int) -> dict[str, Any]:
    """Pooltool's single-process time per random16 shot (after one warm-up shot)."""
    from piramida.cli.pooltool_bridge import run_pooltool

    specs = pooltool_specs(count + 1)
    run_pooltool(specs[0])  # numba compiles on first use
    started = time.perf_counter()
    events = sum(len(run_pooltool(spec)["events"]) for spec in specs[1:])
    elapsed = time.perf_counter() - started
    return {
        "shots": count,
        "seconds": elapsed,
        "shots_per_s": count / elapsed,
        "ms_per_shot": 1e3 * elapsed / count,
        "events_per_shot": events / count,
    }


STARTUP_SCRIPT = (
    "import time; t = time.perf_counter(); import jax, piramida.cli.bench as b, piramida.physics as ph; "
    "tab = ph.preset(); balls, s = b.random_shots(0, 1, 1.775, 3.55, 0.034); "
    "jax.block_until_ready(ph.simulate(tab, balls, s)); print(time.perf_counter() - t)"
)


def time_compile() -> dict[str, float]:
    """A cold start (empty compilation cache) and a cached start, each in a fresh process."""
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "PIRAMIDA_CACHE_DIR": cache}
        runs = [
            float(
                subprocess.run(
                    [sys.executable, "-c", STARTUP_SCRIPT],
                    env=env,
                    check=True,
                    capture_output=True,
                    text=True,
                ).stdout.split()[-1]
            )
            for _ in range(2)
        ]
    return {"cold_start_s": runs[0], "cached_start_s": runs[1]}


def run(args: argparse.Namespace) -> int:
    """Measure and print; optionally write JSON."""
    console = Console()
    sizes = [int(s) for s in args.sizes.split(",")]
    workloads = [w for w in args.workloads.split(",") if w]
    unknown = [w for w in workloads if w not in WORKLOADS]
    if unknown:
        console.print(
            f"piramida bench: error: --workloads: unknown {unknown[0]!r}; choose from {list(WORKLOADS)}"
        )
        return 2
    figures: dict[str, Any] = {
        "device": str(jax.devices()[0].platform),
        "devices": jax.device_count(),
        "kernel": [],
    }
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task("benchmarking", total=len(sizes) * len(workloads))
        for workload in workloads:
            for size in sizes:
                progress.update(task, description=f"{workload} at batch {size}")
                figures["kernel"].append(time_kernel(workload, size, args.min_shots))
                progress.advance(task)
    table = RichTable(title=f"piramida kernel on {figures['device']} ({figures['devices']} device(s))")
    for column in ("workload", "batch", "shots/s", "events/s", "events/shot", "ms/call", "overflow"):
        table.add_column(column, justify="right")
    for row in figures["kernel"]:
        table.add_row(
            row["workload"],
            str(row["batch"]),
            f"{row['shots_per_s']:.0f}",
            f"{row['events_per_s']:.0f}",
            f"{row['events_per_shot']:.1f}",
            f"{row['latency_ms']:.1f}",
            str(row["overflow"]),
        )
    console.print(table)
    if args.vs_pooltool:
        with console.status(f"running {args.pooltool_shots} shots through pooltool"):
            figures["pooltool"] = time_pooltool(args.pooltool_shots)
        pt = figures["pooltool"]
        console.print(
            f"pooltool: {pt['ms_per_shot']:.1f} ms per random 16-ball shot "
            f"({pt['events_per_shot']:.1f} ball-ball, cushion, jaw and pocket events)"
        )
        figures["ratio_vs_pooltool"] = {
            str(row["batch"]): row["shots_per_s"] / pt["shots_per_s"]
            for row in figures["kernel"]
            if row["workload"] == "random16"
        }
        ratios = ", ".join(f"{r:.1f}x at batch {b}" for b, r in figures["ratio_vs_pooltool"].items())
        console.print(f"piramida / pooltool shots per second: [bold]{ratios}[/bold]")
    if args.compile:
        with console.status("timing a cold compile and a cached start in fresh processes"):
            figures["compile"] = time_compile()
        console.print(
            f"cold start {figures['compile']['cold_start_s']:.1f} s, "
            f"cached start {figures['compile']['cached_start_s']:.1f} s"
        )
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1) + "\n")
    return 0
