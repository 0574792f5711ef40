"""How large the event log must be, and what its size costs: overflows and time by capacity.

A shot whose log overflows is refused by the referee (`invalid: overflow`), so the game's
capacity (`rules.game.CAPACITY`) must hold nearly every shot a player can make, while the
kernel's time per step should not grow with it. Three workloads, side by side in one run:

- `random16`: random 16-ball layouts, random strikes (`piramida bench`'s shots);
- `break`: hard breaks of a full rack (`piramida bench`'s breaks);
- `safety`: greedy's safety, a 3 m/s centre-ball full hit on the nearest rack ball from a
  random spot, into an unbroken rack. A rolling ball pushing a row of rack balls meets
  them again and again (each push leaves the pushed ball sliding, the pusher catches it
  up): the longest logs a game sees.

For each capacity, with and without the motion transitions logged (the game logs them
only for a recorded shot): tables that overflowed, events per table (percentiles), and
the median warm time of the batch.

Usage::

    python benchmarks/log_capacity.py                    # 256, 1024, 2048 slots; 128 tables
    python benchmarks/log_capacity.py --capacities 256,1024,2048 --batch 128 --json out.json
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

import piramida.physics as ph
from piramida.physics import runtime
from piramida.physics.files import write_atomic
from piramida.physics.layouts import break_positions
from piramida.physics.provenance import stamped
from piramida.physics.workloads import break_shots, random_shots

runtime.use_float64()  # a piramida program: the games compute in float64 throughout

TABLE, PARAMS = ph.preset(), ph.PYRAMID_PARAMS
W, L, R = float(TABLE.width), float(TABLE.length), float(PARAMS.R)


def safety_shots(seed: int, size: int) -> tuple[ph.BallState, ph.Strike]:
    """3 m/s full hits on the nearest ball of an unbroken rack, from random spots."""
    rng = np.random.default_rng(seed)
    rack = break_positions(W, L, R)
    cues = np.stack([rng.uniform(0.1, W - 0.1, size), rng.uniform(0.2, 0.65 * L, size)], 1)
    layouts = np.repeat(rack[None], size, 0)
    layouts[:, 0] = cues
    nearest = np.argmin(np.linalg.norm(rack[None, 1:] - cues[:, None], axis=-1), 1) + 1
    aim = rack[nearest] - cues
    balls = jax.tree_util.tree_map(lambda *x: jnp.stack(x), *[ph.at_rest(layout) for layout in layouts])
    zeros = jnp.zeros(size)
    strikes = ph.Strike(
        ball=jnp.zeros(size, jnp.int32),
        speed=jnp.full(size, 3.0),
        phi=jnp.asarray(np.degrees(np.arctan2(aim[:, 1], aim[:, 0]))),
        theta=zeros,
        a=zeros,
        b=zeros,
    )
    return balls, strikes


WORKLOADS = {
    "random16": lambda seed, size: random_shots(seed, size, W, L, R),
    "break": lambda seed, size: break_shots(seed, size, W, L, R),
    "safety": safety_shots,
}


def measure(workload: str, capacity: int, transitions: bool, batch: int, repeats: int) -> dict[str, Any]:
    """Overflows, events per table and the warm time of one (workload, capacity, transitions)."""
    balls, strikes = WORKLOADS[workload](0, batch)

    def run() -> ph.ShotResult:
        return jax.block_until_ready(
            ph.simulate(TABLE, balls, strikes, PARAMS, capacity=capacity, transitions=transitions)
        )

    started = time.perf_counter()
    result = run()
    first = time.perf_counter() - started
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    counts = np.asarray(result.log.count)
    return {
        "workload": workload,
        "capacity": capacity,
        "transitions": transitions,
        "batch": batch,
        "overflow": int(np.sum(np.asarray(result.log.overflow))),
        "events_p50_p90_p99_max": [float(x) for x in np.percentile(counts, [50, 90, 99, 100])],
        "first_call_s": first,
        "seconds": statistics.median(times),
    }


def markdown(rows: list[dict[str, Any]]) -> str:
    """The results as a markdown table."""
    lines = [
        "| workload | capacity | transitions | overflowed | events p50 / p90 / p99 / max | time (s) |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        events = " / ".join(f"{x:.0f}" for x in r["events_p50_p90_p99_max"])
        lines.append(
            f"| {r['workload']} | {r['capacity']} | {'logged' if r['transitions'] else 'left out'} | "
            f"{r['overflow']} of {r['batch']} | {events} | {r['seconds']:.3f} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    """Measure every (capacity, transitions) on every workload; print and save."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--capacities", default="256,1024,2048", help="comma-separated log capacities")
    parser.add_argument("--transitions", choices=("both", "logged", "left-out"), default="both")
    parser.add_argument("--workloads", default=",".join(WORKLOADS), help="comma-separated workloads")
    parser.add_argument("--batch", type=int, default=128, help="tables per call")
    parser.add_argument("--repeats", type=int, default=3, help="timed calls after the warm-up")
    parser.add_argument("--json", help="write the results here")
    args = parser.parse_args(argv)
    workloads = args.workloads.split(",")
    unknown = sorted(set(workloads) - set(WORKLOADS))
    if unknown:
        parser.error(f"--workloads: unknown {unknown}; choose from {sorted(WORKLOADS)}")
    capacities = [int(c) for c in args.capacities.split(",")]
    modes = {"both": (True, False), "logged": (True,), "left-out": (False,)}[args.transitions]
    rows = []
    for capacity in capacities:
        for transitions in modes:
            for workload in workloads:
                rows.append(measure(workload, capacity, transitions, args.batch, args.repeats))
                print(markdown(rows[-1:]).splitlines()[-1], flush=True)
    rows.sort(key=lambda r: (r["workload"], r["capacity"], not r["transitions"]))
    print(markdown(rows))
    if args.json:
        report = {
            "command": " ".join(
                ["python benchmarks/log_capacity.py", *(sys.argv[1:] if argv is None else argv)]
            ),
            "machine": f"{platform.machine()}, {jax.devices()[0].platform}, JAX {jax.__version__}",
            "rows": rows,
        }
        write_atomic(args.json, json.dumps(stamped(report), indent=2) + "\n")


if __name__ == "__main__":
    main()
