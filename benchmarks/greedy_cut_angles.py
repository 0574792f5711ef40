"""Pot rate by cut angle, with and without the throw correction (no execution noise).

For each pocket kind (corner: front-left; middle: middle-left) and cut angle (0, 10,
..., 70 degrees) a set of two-ball layouts is built: the object ball at 0.4, 0.8 or
1.2 m from the pocket's aim point (`agents.candidates.pocket_mouths`), on the pocket's
axis or 15 degrees either side of it; the own ball 0.5 or 1.0 m from the ghost ball,
cutting to the left or the right. Layouts with a ball off the bed are dropped. Each is
shot twice, with `agents.candidates.aim`'s throw-corrected aim and with the plain
ghost-ball aim, at the power rule's speed, in one batched `physics.simulate` call; a pot
is the object ball in the intended pocket.

Usage::

    python benchmarks/greedy_cut_angles.py            # the table
    python benchmarks/greedy_cut_angles.py --json out.json
"""

from __future__ import annotations

import argparse
import itertools
import json
import time
from typing import Any

import jax.numpy as jnp
import numpy as np

import piramida.physics as ph
from piramida.agents.candidates import PowerRule, aim, pocket_mouths
from piramida.physics import runtime
from piramida.physics.files import write_atomic
from piramida.physics.motion import ABSENT, STATIONARY
from piramida.physics.provenance import stamped

runtime.use_float64()  # a piramida program: the games compute in float64 throughout

TABLE = ph.preset()
PARAMS = ph.PYRAMID_PARAMS
R = float(PARAMS.R)
W, L = float(TABLE.width), float(TABLE.length)
CUTS = tuple(range(0, 80, 10))
KINDS = {"corner": (0, np.array([1.0, 1.0]) / np.sqrt(2)), "middle": (2, np.array([1.0, 0.0]))}
TO_POCKET = (0.4, 0.8, 1.2)
TRAVEL = (0.5, 1.0)
APPROACH = (-15.0, 0.0, 15.0)
SIDES = (-1.0, 1.0)


def rotate(u: np.ndarray, degrees: float) -> np.ndarray:
    a = np.radians(degrees)
    return np.array([np.cos(a) * u[0] - np.sin(a) * u[1], np.sin(a) * u[0] + np.cos(a) * u[1]])


def on_bed(xy: np.ndarray) -> bool:
    return bool(R < xy[0] < W - R and R < xy[1] < L - R)


def layouts() -> list[dict[str, Any]]:
    """Every (kind, cut, layout) as a dict of the two centres and the aim point."""
    _, _, mouths = pocket_mouths(TABLE)
    mouths = np.asarray(mouths)
    out = []
    for kind, (pocket, axis) in KINDS.items():
        mouth = mouths[pocket]
        for cut, d_op, d_cg, approach, side in itertools.product(CUTS, TO_POCKET, TRAVEL, APPROACH, SIDES):
            out_dir = rotate(axis, approach)  # from the pocket into the table
            obj = mouth + d_op * out_dir
            ghost = obj + 2 * R * out_dir
            own = ghost + d_cg * rotate(out_dir, side * cut)
            if on_bed(obj) and on_bed(own) and np.linalg.norm(own - obj) > 2 * R + 1e-3:
                out.append(
                    {"kind": kind, "pocket": pocket, "cut": cut, "own": own, "obj": obj, "mouth": mouth}
                )
    return out


def run(rule: PowerRule) -> dict[str, Any]:
    """Shoot every layout both ways; pot rates per (kind, cut, corrected)."""
    cases = layouts()
    own = jnp.asarray(np.array([c["own"] for c in cases]))
    obj = jnp.asarray(np.array([c["obj"] for c in cases]))
    mouth = jnp.asarray(np.array([c["mouth"] for c in cases]))
    aims = [aim(own, obj, mouth, R, rule, PARAMS, correct=correct) for correct in (True, False)]
    n = len(cases)
    r = np.full((2 * n, 16, 2), -10.0)
    r[:, 0] = np.concatenate([own, own])
    r[:, 1] = np.concatenate([obj, obj])
    s = np.full((2 * n, 16), ABSENT, np.int32)
    s[:, :2] = STATIONARY
    balls = ph.BallState(
        r=jnp.asarray(r), v=jnp.zeros((2 * n, 16, 2)), w=jnp.zeros((2 * n, 16, 3)), s=jnp.asarray(s)
    )
    strikes = ph.Strike(
        ball=jnp.zeros(2 * n, jnp.int32),
        speed=jnp.concatenate([a.speed for a in aims]),
        phi=jnp.concatenate([a.phi for a in aims]),
        theta=jnp.zeros(2 * n),
        a=jnp.zeros(2 * n),
        b=jnp.full(2 * n, rule.tip),
    )
    start = time.perf_counter()
    result = ph.simulate(TABLE, balls, strikes, PARAMS, validate=False)
    seconds = time.perf_counter() - start
    pocket = np.asarray(result.pocket)
    wanted = np.array([c["pocket"] for c in cases] * 2)
    potted = pocket[:, 1] == wanted
    scratched = pocket[:, 0] >= 0
    rows = []
    for kind in KINDS:
        for cut in CUTS:
            pick = np.array([c["kind"] == kind and c["cut"] == cut for c in cases])
            row: dict[str, Any] = {"kind": kind, "cut": cut, "layouts": int(pick.sum())}
            for half, name in ((slice(0, n), "corrected"), (slice(n, 2 * n), "plain")):
                row[name] = float(potted[half][pick].mean()) if pick.any() else float("nan")
                row[f"{name}_own_pocketed"] = (
                    float(scratched[half][pick].mean()) if pick.any() else float("nan")
                )
            rows.append(row)
    return {"rule": rule.__dict__, "shots": 2 * n, "seconds_incl_compile": seconds, "rows": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="write the results to this file")
    args = parser.parse_args()
    report = run(PowerRule())
    print(f"{report['shots']} shots, no noise; pot rate (object ball in the intended pocket)")
    print(f"{'pocket':8} {'cut':>4} {'layouts':>8} {'corrected':>10} {'plain':>7} {'own potted':>11}")
    for row in report["rows"]:
        print(
            f"{row['kind']:8} {row['cut']:4d} {row['layouts']:8d} {row['corrected']:10.2f} "
            f"{row['plain']:7.2f} {row['corrected_own_pocketed']:11.2f}"
        )
    if args.json:
        write_atomic(args.json, json.dumps(stamped(report), indent=2) + "\n")


if __name__ == "__main__":
    main()
