"""Calibrate `physics.noise.LEVELS`: the pot rate of one straight shot under each noise magnitude.

The shot: a straight pot into the front-left corner pocket of the pyramid-12ft table
along the pocket's axis (the diagonal), the object ball 1 m from the pocket's aim point
(`agents.candidates.pocket_mouths`), the own ball 1 m behind it; a centre-ball strike at
the greedy power rule's speed. Each magnitude is shot `--repeats` times with its own
noise keys (`physics.noise.perturb`), all magnitudes in one batched `physics.simulate`
call. `pro` is the magnitude with a pot rate of about 95 %, `amateur` about 50 %; the
script prints them, interpolated on the measured curve. The cues below them (`improver`,
`novice`) are set by their pot rate in frames (docs/levels.md), where the shots are easier
than this one; the script prints this shot's rate at every named level.

Usage::

    python benchmarks/noise_levels.py                 # 512 repeats per magnitude
    python benchmarks/noise_levels.py --repeats 1024 --json out.json
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

import piramida.physics as ph
from piramida.agents.candidates import PowerRule, aim, pocket_mouths
from piramida.physics import noise, runtime
from piramida.physics.files import write_atomic
from piramida.physics.motion import ABSENT, STATIONARY
from piramida.physics.provenance import stamped

runtime.use_float64()  # a piramida program: the games compute in float64 throughout

TABLE = ph.preset()
PARAMS = ph.PYRAMID_PARAMS
R = float(PARAMS.R)
MAGNITUDES = (0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 1.0, 1.25, 1.5, 2.0, 3.0)
POCKET = 0  # front-left
TARGETS = {"pro": 0.95, "amateur": 0.5}


def crossing(magnitudes: np.ndarray, rates: np.ndarray, level: float) -> float:
    """The magnitude where the pot rate falls through `level`, linear between measurements."""
    for m0, m1, r0, r1 in zip(magnitudes[:-1], magnitudes[1:], rates[:-1], rates[1:], strict=True):
        if r0 >= level > r1:
            return float(m0 + (r0 - level) / (r0 - r1) * (m1 - m0))
    return float("nan")


def run(repeats: int, seed: int) -> dict[str, Any]:
    _, _, mouths = pocket_mouths(TABLE)
    axis = np.array([1.0, 1.0]) / np.sqrt(2)  # from the pocket into the table
    obj = np.asarray(mouths)[POCKET] + 1.0 * axis
    own = obj + (2 * R + 1.0) * axis
    planned = aim(jnp.asarray(own), jnp.asarray(obj), mouths[POCKET], R, PowerRule(), PARAMS)
    count = len(MAGNITUDES) * repeats
    magnitude = np.repeat(np.asarray(MAGNITUDES), repeats)
    intended = ph.Strike(
        ball=jnp.zeros(count, jnp.int32),
        speed=jnp.full(count, planned.speed),
        phi=jnp.full(count, planned.phi),
        theta=jnp.zeros(count),
        a=jnp.zeros(count),
        b=jnp.zeros(count),
    )
    keys = jax.random.split(jax.random.PRNGKey(seed), count)
    strikes = noise.perturb(intended, keys, jnp.asarray(magnitude), R)
    r = np.full((count, 16, 2), -10.0)
    r[:, 0], r[:, 1] = own, obj
    s = np.full((count, 16), ABSENT, np.int32)
    s[:, :2] = STATIONARY
    balls = ph.BallState(
        r=jnp.asarray(r), v=jnp.zeros((count, 16, 2)), w=jnp.zeros((count, 16, 3)), s=jnp.asarray(s)
    )
    start = time.perf_counter()
    result = ph.simulate(TABLE, balls, strikes, PARAMS, validate=False)
    seconds = time.perf_counter() - start
    potted = (np.asarray(result.pocket)[:, 1] == POCKET).reshape(len(MAGNITUDES), repeats)
    rates = potted.mean(axis=1)
    rows = [
        {"magnitude": m, "pot_rate": float(p), "stderr": float(np.sqrt(p * (1 - p) / repeats))}
        for m, p in zip(MAGNITUDES, rates, strict=True)
    ]
    levels = {name: crossing(np.asarray(MAGNITUDES), rates, rate) for name, rate in TARGETS.items()}
    return {
        "shot": {
            "own": own.tolist(),
            "object": obj.tolist(),
            "speed": float(planned.speed),
            "phi": float(planned.phi),
        },
        "repeats": repeats,
        "seconds_incl_compile": seconds,
        "rows": rows,
        "levels": levels,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=512)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", help="write the results to this file")
    args = parser.parse_args()
    report = run(args.repeats, args.seed)
    print(f"straight corner pot, 1 m + 1 m, {args.repeats} noisy repeats per magnitude")
    print(f"{'magnitude':>9} {'pot rate':>9} {'+-':>6}")
    for row in report["rows"]:
        print(f"{row['magnitude']:9.2f} {row['pot_rate']:9.3f} {row['stderr']:6.3f}")
    for name, value in report["levels"].items():
        print(f"{name}: {TARGETS[name]:.0%} at magnitude {value:.3f}")
    for name, magnitude in noise.LEVELS.items():
        rate = next((r["pot_rate"] for r in report["rows"] if r["magnitude"] == magnitude), None)
        shown = "not on the curve" if rate is None else f"pot rate {rate:.3f}"
        print(f"level {name} ({magnitude:g}): {shown}")
    if args.json:
        write_atomic(args.json, json.dumps(stamped(report), indent=2) + "\n")


if __name__ == "__main__":
    main()
