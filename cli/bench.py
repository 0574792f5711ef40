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
from typing import Any

import jax
from rich.console import Console
from rich.progress import Progress
from rich.table import Table as RichTable

import piramida.physics as ph
from piramida.physics.files import write_atomic
from piramida.physics.provenance import stamped
from piramida.physics.strike import cue_impulse
from piramida.physics.table import PRESETS, SPEC_FIELDS
from piramida.physics.workloads import WORKLOADS, random_shots, time_kernel

HELP = "measure kernel throughput and compile time (and the ratio to pooltool)"
DESCRIPTION = (
    "Shots/s and events/s per batch size on random 16-ball layouts and on "
    "breaks; first-compile and cached-start times; optionally pooltool's throughput on "
    "the same shots in the same process."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's options (`cli.main` registers the command with `HELP` and `DESCRIPTION`)."""
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
    from piramida.physics.pooltool_bridge import run_pooltool

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
    "import time; t = time.perf_counter(); import jax, piramida.physics as ph; ph.runtime.use_float64(); "
    "from piramida.physics.workloads import random_shots; tab, R = ph.preset(), ph.PYRAMID_PARAMS.R; "
    "balls, s = random_shots(0, 1, float(tab.width), float(tab.length), R); "
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
        write_atomic(args.json, json.dumps(stamped(figures), indent=1) + "\n")
    return 0
