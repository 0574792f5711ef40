"""Shot-for-shot agreement of two builds of `piramida.physics.simulate`, and their speed.

Made to check a rewrite of the kernel (the XLA event loop ported to another backend)
against the original: `record` runs whatever `piramida` is importable on fixed,
seeded workloads and saves the inputs and outputs in one npz; `compare` reads two such
files and measures, per cushion/contact model combination and workload:

- the share of shots whose ordered sequences of (kind, a, b) over the ball-ball,
  cushion, jaw, pocket and centre-line events are identical (motion transitions are
  left out: they are logged but decide nothing the referee reads);
- on those shots, the largest final-position difference and the share within 1e-6 m;
- the share of identical start snapshots (frozen-ball and cushion-contact facts);
- for breaks, which are chaotic, statistics instead of single shots: mean balls
  pocketed, events logged and duration per break, each with its standard error, and
  whether the two means agree within one standard error of their difference;
- the ratio of shots per second, B over A, timed on a second call at one batch size.

Workloads (every input is saved, so a file is replayed exactly): `random` is
`piramida bench`'s random16 (16 balls, ball 0 struck at 1-5 m/s in any direction);
`break` is the full rack struck from anywhere in the house at 3-9 m/s with aim jitter
and side and vertical spin; `jaw` sends one ball at a pocket's mouth a little off line,
so it is potted, rattles off the jaw noses or hits the jaw faces; `frozen` has two or
three balls touching each other or a cushion (gaps 0 to 5e-5 m) struck through or into.
The `full` set (random and break) is for measurement; the `small` set (a few hundred
shots of every workload) is the committed fixture `tests/data/xla_reference.npz` that
`tests/physics/test_kernel_reference.py` replays.

Usage (run from outside the repository to choose the build with PYTHONPATH)::

    python benchmarks/kernel_agreement.py record --set full --out a.npz   # ~2 min on 2 CPU cores
    python benchmarks/kernel_agreement.py record --set small --out tests/data/xla_reference.npz
    python benchmarks/kernel_agreement.py compare a.npz b.npz [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jax
import numpy as np
from rich.console import Console
from rich.table import Table as RichTable

import piramida.physics as ph
from piramida.physics import runtime
from piramida.physics.contract import STRIKE_FIELDS
from piramida.physics.files import write_atomic
from piramida.physics.layouts import break_positions
from piramida.physics.provenance import stamped
from piramida.physics.workloads import random_shots

runtime.use_float64()  # a piramida program: the games compute in float64 throughout

Recording = Mapping[str, np.ndarray]

CUSHIONS = ("stronge_compliant", "han_2005")
CONTACTS = ("nose", "equator")
COMBOS = tuple(f"{cushion}+{contact}" for cushion in CUSHIONS for contact in CONTACTS)
SHARED = "shared"  # in place of a combo in the keys of inputs that no combo changes
WORKLOADS = ("random", "break", "jaw", "frozen")
# Log slots per table: random16 as `piramida bench` runs it. A break with transitions
# logs ~150 events (99 % under 350), but a soft one with draw can push ball 0 through the
# rack in ~800 chattering contacts, each with a transition: 2000 events, over bench's 1024.
CAPACITY = {"random": 256, "break": 2048, "jaw": 256, "frozen": 256}
SEEDS = {"random": 1, "break": 2, "jaw": 3, "frozen": 4}
SETS = {
    "full": {"random": 10_000, "break": 1_000, "jaw": 0, "frozen": 0},
    "small": {"random": 400, "break": 64, "jaw": 96, "frozen": 96},
}
# Kinds whose (kind, a, b) sequences are compared.
SEQUENCE_KINDS = tuple(
    ph.KIND_NAMES.index(n) for n in ("ball-ball", "cushion", "jaw", "pocket", "centre-line")
)
POSITION_TOL = 1e-6  # m
LISTED = 10  # shots listed per group whose sequences differ (for debugging)
# Gaps (m) of frozen balls: exact touching, rounding-level and up to the rules' 1e-4 m
# contact epsilon (kept clear of it, where the start snapshot would hinge on rounding).
FROZEN_GAPS = (0.0, 1e-9, 1e-7, 1e-6, 1e-5, 5e-5)
INPUT_FIELDS = ("in_r", "in_v", "in_w", "in_s", *(f"in_{f}" for f in STRIKE_FIELDS))
START_FIELDS = ("cushion", "touching", "on_centre_line")
LOG_FIELDS = ("t", "kind", "a", "b")


def key(combo: str, workload: str, field: str) -> str:
    """The npz key of one array of one (combo, workload) group."""
    return f"{combo}/{workload}/{field}"


def models(combo: str) -> ph.Models:
    """The `Models` a combo name stands for (ball-ball model left at its default)."""
    cushion, contact = combo.split("+")
    return ph.Models(cushion=cushion, contact=contact)  # type: ignore[arg-type]


def reach(table: ph.Table, params: ph.PhysicsParams, contact: str) -> float:
    """Centre-to-nose-line distance of a ball touching a cushion (the `Models.contact` formula)."""
    R = float(params.R)
    if contact == "equator":
        return R
    return R * math.sqrt(1.0 - (float(table.cushion_height) / R - 1.0) ** 2)


# --------------------------------------------------------------------------- workloads


@jax.tree_util.register_dataclass
@dataclass(frozen=True)
class Shots:
    """Inputs of a workload as numpy arrays with a leading shot axis."""

    balls: ph.BallState
    strikes: ph.Strike

    def __len__(self) -> int:
        """Number of shots."""
        return int(self.balls.s.shape[0])


def _numpy(tree: Any) -> Any:
    return jax.tree_util.tree_map(np.asarray, tree)


def _strikes_of_ball_0(rng: np.random.Generator, phis: list[float], top_speed: float) -> ph.Strike:
    """Ball 0 struck along `phis` at 0.3 to `top_speed` m/s, tip offsets within 0.4 R of centre."""
    count = len(phis)
    a, b = _spin(rng, count, 0.4)
    return ph.Strike(
        ball=np.zeros(count, np.int32),
        speed=rng.uniform(0.3, top_speed, count),
        phi=np.asarray(phis),
        theta=np.zeros(count),
        a=a,
        b=b,
    )


def _stack(states: list[ph.BallState]) -> ph.BallState:
    return jax.tree_util.tree_map(lambda *x: np.stack([np.asarray(a) for a in x]), *states)


def random_workload(count: int, table: ph.Table, params: ph.PhysicsParams) -> Shots:
    """`piramida bench`'s random16 shots."""
    balls, strikes = random_shots(
        SEEDS["random"], count, float(table.width), float(table.length), float(params.R)
    )
    return Shots(_numpy(balls), _numpy(strikes))


def _spin(rng: np.random.Generator, count: int, most: float) -> tuple[np.ndarray, np.ndarray]:
    """Tip offsets (a, b) uniform on a disc of radius `most` (fractions of R)."""
    radius, angle = most * np.sqrt(rng.uniform(0, 1, count)), rng.uniform(0, 2 * np.pi, count)
    return radius * np.cos(angle), radius * np.sin(angle)


def break_workload(count: int, table: ph.Table, params: ph.PhysicsParams) -> Shots:
    """Breaks: ball 0 up to 0.35 m either side of the long axis in the house, aimed at the apex.

    3-9 m/s, within a degree of the apex, the tip anywhere within 0.5 R of the centre.
    """
    rng = np.random.default_rng(SEEDS["break"])
    width, length, R = float(table.width), float(table.length), float(params.R)
    cue_x = rng.uniform(width / 2 - 0.35, width / 2 + 0.35, count)
    states = [ph.at_rest(break_positions(width, length, R, cue_x=x)) for x in cue_x]
    apex = np.array([width / 2, 3 * length / 4])
    cue_y = break_positions(width, length, R)[0, 1]
    aim = np.degrees(np.arctan2(apex[1] - cue_y, apex[0] - cue_x)) + rng.uniform(-1.0, 1.0, count)
    a, b = _spin(rng, count, 0.5)
    strikes = ph.Strike(
        ball=np.zeros(count, np.int32),
        speed=rng.uniform(3.0, 9.0, count),
        phi=aim,
        theta=np.zeros(count),
        a=a,
        b=b,
    )
    return Shots(_stack(states), strikes)


def _on_cloth(p: np.ndarray, table: ph.Table, margin: float) -> bool:
    return bool(
        margin <= p[0] <= float(table.width) - margin and margin <= p[1] <= float(table.length) - margin
    )


def jaw_workload(count: int, table: ph.Table, params: ph.PhysicsParams) -> Shots:
    """One ball sent at a pocket's mouth, aimed anywhere across it and up to R/2 beyond its noses.

    From 0.15-0.8 m away, up to 25 degrees off the mouth's axis, at 0.3-4 m/s: about 15 %
    are potted clean, half touch a jaw nose or face (a fifth twice or more), the others
    the rail next to the mouth.
    """
    rng = np.random.default_rng(SEEDS["jaw"])
    R = float(params.R)
    noses, nose_pocket = np.asarray(table.arc_centre), np.asarray(table.arc_pocket)
    nose_radius = np.asarray(table.arc_radius)
    centre = np.array([float(table.width) / 2, float(table.length) / 2])
    states: list[ph.BallState] = []
    phis: list[float] = []
    while len(states) < count:
        pocket = rng.integers(0, 6)
        pair = noses[nose_pocket == pocket]
        across = pair[1] - pair[0]
        half_gap = (np.linalg.norm(across) - 2 * nose_radius[nose_pocket == pocket][0]) / 2
        across /= np.linalg.norm(across)
        inward = np.array([-across[1], across[0]])
        inward *= np.sign(np.dot(centre - pair.mean(axis=0), inward))
        target = pair.mean(axis=0) + rng.uniform(-1, 1) * (half_gap + R / 2) * across
        angle = np.radians(rng.uniform(-25.0, 25.0))
        rotation = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
        start = target + rng.uniform(0.15, 0.8) * rotation @ inward
        if not _on_cloth(start, table, R + 1e-3):
            continue
        states.append(ph.at_rest(start[None]))
        phis.append(np.degrees(np.arctan2(*(target - start)[::-1])))
    return Shots(_stack(states), _strikes_of_ball_0(rng, phis, top_speed=4.0))


def _unit(angle: float) -> np.ndarray:
    return np.array([np.cos(angle), np.sin(angle)])


def _frozen_layout(
    rng: np.random.Generator, variant: int, table: ph.Table, R: float, contact_reach: float
) -> tuple[np.ndarray, float] | None:
    """Centres and aim (degrees) of one frozen-ball shot, ball 0 struck, or None to redraw.

    Variants: 0 a pair in the open, ball 0 sent at it; 1 a chain of three, ball 0 its
    end (a push through frozen balls); 2 a ball frozen to a cushion, ball 0 sent at it;
    3 balls 0 and 1 frozen to a cushion and to each other, ball 0 struck off the cushion.
    """
    width, length = float(table.width), float(table.length)

    def touching(ball: np.ndarray) -> np.ndarray:
        return ball + (2 * R + rng.choice(FROZEN_GAPS)) * _unit(rng.uniform(0, 2 * np.pi))

    if variant < 2:
        cluster = [rng.uniform([0.3, 0.3], [width - 0.3, length - 0.3])]
        cluster.append(touching(cluster[0]))
        if variant == 1:
            cluster.append(touching(cluster[1]))
        away = rng.uniform(0, 2 * np.pi)
    else:
        # A straight cushion (front, back, left, right), clear of the pockets.
        side = rng.integers(0, 4)
        spot = rng.uniform(0.25, (width if side < 2 else length) - 0.25)
        if side >= 2 and abs(spot - length / 2) < 0.25:
            return None
        inward = np.array([[0.0, 1.0], [0.0, -1.0], [1.0, 0.0], [-1.0, 0.0]])[side]
        wall = np.array([[spot, 0.0], [spot, length], [0.0, spot], [width, spot]])[side]
        cluster = [wall + (contact_reach + rng.choice(FROZEN_GAPS)) * inward]
        if variant == 3:
            along = np.array([inward[1], -inward[0]]) * rng.choice([-1.0, 1.0])
            cluster.append(cluster[0] + (2 * R + rng.choice(FROZEN_GAPS)) * along)
        away = np.arctan2(inward[1], inward[0]) + np.radians(rng.uniform(-80.0, 80.0))
    if variant in (1, 3):
        centres, aim = np.asarray(cluster), np.degrees(away)
    else:
        cue = cluster[0] + rng.uniform(0.2, 0.8) * _unit(away)
        if not _on_cloth(cue, table, R + 1e-3):
            return None
        centres = np.vstack([cue[None], cluster])
        aim = np.degrees(np.arctan2(*(cluster[0] - cue)[::-1])) + rng.uniform(-8.0, 8.0)
    # No two balls overlapping (the drawn gaps are >= 0, up to rounding).
    gaps = np.linalg.norm(centres[:, None] - centres[None], axis=-1) + np.eye(len(centres))
    if np.any(gaps < 2 * R - 1e-12) or not all(_on_cloth(c, table, contact_reach) for c in centres):
        return None
    return centres, float(aim)


def frozen_workload(count: int, table: ph.Table, params: ph.PhysicsParams, contact_reach: float) -> Shots:
    """Two or three balls frozen to each other or to a cushion, struck (see `_frozen_layout`).

    Depends on the contact model through `contact_reach`: a ball frozen to a cushion
    under `nose` would overlap it under `equator`.
    """
    rng = np.random.default_rng(SEEDS["frozen"])
    R = float(params.R)
    states: list[ph.BallState] = []
    phis: list[float] = []
    while len(states) < count:
        drawn = _frozen_layout(rng, len(states) % 4, table, R, contact_reach)
        if drawn is None:
            continue
        states.append(ph.at_rest(drawn[0]))
        phis.append(drawn[1])
    return Shots(_stack(states), _strikes_of_ball_0(rng, phis, top_speed=5.0))


def workload(name: str, count: int, combo: str, table: ph.Table, params: ph.PhysicsParams) -> Shots:
    """The `count` shots of a workload for a combo (only `frozen` depends on the combo)."""
    if name == "frozen":
        return frozen_workload(count, table, params, reach(table, params, combo.split("+")[1]))
    makers: dict[str, Callable[[int, ph.Table, ph.PhysicsParams], Shots]] = {
        "random": random_workload,
        "break": break_workload,
        "jaw": jaw_workload,
    }
    return makers[name](count, table, params)


# --------------------------------------------------------------------------- running


def _take(tree: Any, index: np.ndarray) -> Any:
    return jax.tree_util.tree_map(lambda x: np.asarray(x)[index], tree)


def _outputs(result: ph.ShotResult, count: int) -> dict[str, np.ndarray]:
    """The saved outputs of a call's first `count` shots (small integers as int8)."""
    got = _numpy(result)
    log = got.log
    return {
        name: value[:count]
        for name, value in {
            "r": got.final.r,
            "v": got.final.v,
            "w": got.final.w,
            "s": got.final.s.astype(np.int8),
            "pocket": got.pocket.astype(np.int8),
            "t": log.t,
            "kind": log.kind.astype(np.int8),
            "a": log.a.astype(np.int8),
            "b": log.b.astype(np.int8),
            "count": log.count.astype(np.int32),
            "overflow": log.overflow.astype(bool),
            "duration": got.duration,
            "cushion": got.start.cushion.astype(np.int8),
            "touching": got.start.touching.astype(bool),
            "on_centre_line": got.start.on_centre_line.astype(bool),
        }.items()
    }


def run_shots(shots: Shots, combo: str, capacity: int, batch: int) -> dict[str, np.ndarray]:
    """`simulate` on every shot, `batch` at a time (the last call padded: one shape, one compile)."""
    table, params = ph.preset(), ph.PYRAMID_PARAMS
    parts = []
    for start in range(0, len(shots), batch):
        index = np.arange(start, start + batch)
        index = np.where(index < len(shots), index, start)
        part = _take(shots, index)
        result = ph.simulate(
            table, part.balls, part.strikes, params, models(combo), capacity=capacity, transitions=True
        )
        parts.append(_outputs(result, min(batch, len(shots) - start)))
    return {name: np.concatenate([p[name] for p in parts]) for name in parts[0]}


def shots_per_second(shots: Shots, combo: str, capacity: int, batch: int) -> float:
    """Throughput at `batch` (the shots repeated to fill it), the best of three calls after a warm-up.

    The host's input check (the same numpy code in both builds) is left out of the time.
    """
    part = jax.block_until_ready(_take(shots, np.arange(batch) % len(shots)))
    table, params = ph.preset(), ph.PYRAMID_PARAMS

    def call(validate: bool) -> float:
        started = time.perf_counter()
        jax.block_until_ready(
            ph.simulate(
                table,
                part.balls,
                part.strikes,
                params,
                models(combo),
                capacity=capacity,
                transitions=True,
                validate=validate,
            )
        )
        return time.perf_counter() - started

    call(validate=True)
    return batch / min(call(validate=False) for _ in range(3))


def _trim_log(outputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The log arrays cut to the longest log of the group (the rest is empty slots)."""
    used = max(int(outputs["count"].max(initial=0)), 1)
    return {n: v[:, :used] if n in LOG_FIELDS else v for n, v in outputs.items()}


def inputs_of(data: Recording, combo: str, workload_name: str) -> Shots:
    """The recorded inputs of one group (its own, or those its workload shares across combos)."""
    field = {}
    for f in INPUT_FIELDS:
        own = key(combo, workload_name, f)
        field[f] = data[own] if own in data else data[key(SHARED, workload_name, f)]
    balls = ph.BallState(r=field["in_r"], v=field["in_v"], w=field["in_w"], s=field["in_s"])
    return Shots(balls, ph.Strike(**{f: field[f"in_{f}"] for f in STRIKE_FIELDS}))


def _input_arrays(shots: Shots) -> dict[str, np.ndarray]:
    balls = shots.balls
    arrays = {"in_r": balls.r, "in_v": balls.v, "in_w": balls.w, "in_s": balls.s}
    arrays.update({f"in_{f}": getattr(shots.strikes, f) for f in STRIKE_FIELDS})
    return {n: np.asarray(v) for n, v in arrays.items()}


def _input_data(groups: dict[str, dict[str, Shots]]) -> dict[str, np.ndarray]:
    """Every group's inputs, keyed as in the npz: stored once under `SHARED` when no combo changes them."""
    out: dict[str, np.ndarray] = {}
    for n in next(iter(groups.values())):
        arrays = {c: _input_arrays(by_workload[n]) for c, by_workload in groups.items()}
        first = next(iter(arrays.values()))
        for f, v in first.items():
            if all(np.array_equal(v, other[f]) for other in arrays.values()):
                out[key(SHARED, n, f)] = v
            else:
                out.update({key(c, n, f): other[f] for c, other in arrays.items()})
    return out


def simulate_groups(
    groups: dict[str, dict[str, Shots]],
    capacity: dict[str, int],
    joint: bool,
    batch: int,
    progress: Callable[[str], None],
) -> dict[str, np.ndarray]:
    """Outputs of every (combo, workload) group, keyed as in the npz.

    `joint`: all workloads of a combo in one call at the largest capacity (the small set:
    one compile per combo when the test replays it); otherwise each workload alone at its
    own capacity, in calls of `batch` shots.
    """
    out: dict[str, np.ndarray] = {}
    for combo, by_workload in groups.items():
        names = list(by_workload)
        if joint:
            progress(f"{combo}: {', '.join(names)}")
            every = jax.tree_util.tree_map(lambda *x: np.concatenate(x), *(by_workload[n] for n in names))
            ran = run_shots(every, combo, max(capacity[n] for n in names), len(every))
            bounds = np.cumsum([0] + [len(by_workload[n]) for n in names])
            results = {
                n: {f: v[bounds[i] : bounds[i + 1]] for f, v in ran.items()} for i, n in enumerate(names)
            }
        else:
            results = {}
            for n in names:
                progress(f"{combo}: {n}")
                results[n] = run_shots(by_workload[n], combo, capacity[n], batch)
        for n, outputs in results.items():
            out.update({key(combo, n, f): v for f, v in _trim_log(outputs).items()})
    return out


def meta(data: Recording) -> dict[str, Any]:
    """The recording's settings, timings and provenance."""
    return dict(json.loads(str(data["meta"])))


def replay(data: Recording, progress: Callable[[str], None] = lambda _: None) -> dict[str, np.ndarray]:
    """A recording's inputs run again by the importable kernel, with the same calls (no timing)."""
    info = meta(data)
    groups = {c: {w: inputs_of(data, c, w) for w in info["workloads"]} for c in info["combos"]}
    out = {k: np.asarray(v) for k, v in data.items() if k.rsplit("/", 1)[-1] in INPUT_FIELDS}
    out.update(simulate_groups(groups, info["capacity"], info["joint"], info["batch"], progress))
    out["meta"] = np.asarray(json.dumps({**info, "shots_per_s": {}}))
    return out


def record(args: argparse.Namespace) -> int:
    """Run the workloads for every combo, time them, and save one npz."""
    console = Console(stderr=True)
    started = time.perf_counter()
    table, params = ph.preset(), ph.PYRAMID_PARAMS
    counts = dict(SETS[args.set])
    for name in WORKLOADS:
        if getattr(args, name) is not None:
            counts[name] = getattr(args, name)
    names = [n for n in WORKLOADS if counts[n] > 0]
    groups = {c: {n: workload(n, counts[n], c, table, params) for n in names} for c in COMBOS}
    joint = args.set == "small"
    capacity = {n: CAPACITY[n] for n in names}

    def progress(text: str) -> None:
        console.log(f"simulating {text}")

    data = _input_data(groups)
    data.update(simulate_groups(groups, capacity, joint, args.batch, progress))
    speed: dict[str, dict[str, float]] = {}
    if args.time_batch:
        for c in COMBOS:
            for n in ("random", "break"):
                if n in names:
                    console.log(f"timing {c}: {n} at batch {args.time_batch}")
                    speed.setdefault(c, {})[n] = shots_per_second(
                        groups[c][n], c, CAPACITY[n], args.time_batch
                    )
    info = {
        "set": args.set,
        "combos": list(COMBOS),
        "workloads": names,
        "counts": {n: counts[n] for n in names},
        "joint": joint,
        "batch": args.batch,
        "capacity": capacity,
        "time_batch": args.time_batch,
        "shots_per_s": speed,
        "record_s": time.perf_counter() - started,
        "kernel": str(Path(ph.__file__).resolve().parent),
        "backend": jax.default_backend(),
        "jax": jax.__version__,
    }
    data["meta"] = np.asarray(json.dumps(info))
    np.savez_compressed(args.out, allow_pickle=False, **data)
    overflow = sum(int(v.sum()) for k, v in data.items() if k.endswith("/overflow"))
    console.log(
        f"wrote {args.out} ({Path(args.out).stat().st_size / 1e6:.2f} MB) in {info['record_s']:.0f} s; "
        f"{overflow} shot(s) overflowed their log"
    )
    for c, by_workload in speed.items():
        console.log(f"{c}: " + ", ".join(f"{n} {v:.0f} shots/s" for n, v in by_workload.items()))
    return 0


# --------------------------------------------------------------------------- comparing


def load(path: str | Path) -> dict[str, np.ndarray]:
    """A recording as a dict of arrays."""
    with np.load(path, allow_pickle=False) as f:
        return {k: f[k] for k in f.files}


def sequences(data: Recording, combo: str, workload_name: str) -> list[bytes]:
    """Each shot's ordered (kind, a, b) of its `SEQUENCE_KINDS` events, as comparable bytes."""
    kind, a, b, count = (data[key(combo, workload_name, f)] for f in ("kind", "a", "b", "count"))
    used = np.arange(kind.shape[1])[None] < count[:, None]
    keep = used & np.isin(kind, SEQUENCE_KINDS)
    triples = np.stack([kind, a, b], axis=-1).astype(np.int8)
    return [triples[k][keep[k]].tobytes() for k in range(len(kind))]


def shot_agreement(a: Recording, b: Recording, combo: str, workload_name: str) -> dict[str, np.ndarray]:
    """Per shot: identical sequences, largest final-position difference (m), identical start."""
    if not all(
        np.array_equal(x, y)
        for x, y in zip(
            jax.tree_util.tree_leaves(inputs_of(a, combo, workload_name)),
            jax.tree_util.tree_leaves(inputs_of(b, combo, workload_name)),
            strict=True,
        )
    ):
        raise ValueError(f"{combo} {workload_name}: the two recordings ran different inputs")
    same = np.array(
        [
            x == y
            for x, y in zip(
                sequences(a, combo, workload_name), sequences(b, combo, workload_name), strict=True
            )
        ]
    )
    dr = np.linalg.norm(a[key(combo, workload_name, "r")] - b[key(combo, workload_name, "r")], axis=-1)
    start = np.ones(len(same), bool)
    for f in START_FIELDS:
        x, y = a[key(combo, workload_name, f)], b[key(combo, workload_name, f)]
        start &= (x == y).reshape(len(same), -1).all(axis=1)
    return {"same_sequence": same, "max_dr": dr.max(axis=1), "same_start": start}


def mean_se(x: np.ndarray) -> tuple[float, float]:
    """Mean and its standard error."""
    x = np.asarray(x, np.float64)
    se = float(x.std(ddof=1) / math.sqrt(len(x))) if len(x) > 1 else math.inf
    return float(x.mean()), se


def break_statistics(data: Recording, combo: str) -> dict[str, np.ndarray]:
    """Per break: balls pocketed, events logged (transitions included), duration (s)."""
    return {
        "pocketed": (data[key(combo, "break", "pocket")] >= 0).sum(axis=1),
        "events": data[key(combo, "break", "count")],
        "duration": data[key(combo, "break", "duration")],
    }


def divergence(a: Recording, b: Recording, combo: str, workload_name: str, shot: int) -> str:
    """Where one shot's sequences part: the index and (t, kind, a, b) of the first differing event."""

    def events(data: Recording) -> list[tuple[float, str, int, int]]:
        f = {n: data[key(combo, workload_name, n)][shot] for n in (*LOG_FIELDS, "count")}
        return [
            (float(f["t"][i]), ph.KIND_NAMES[f["kind"][i]], int(f["a"][i]), int(f["b"][i]))
            for i in range(int(f["count"]))
            if f["kind"][i] in SEQUENCE_KINDS
        ]

    def show(e: list[tuple[float, str, int, int]], i: int) -> str:
        return f"t={e[i][0]:.9f} {e[i][1]} {e[i][2]} {e[i][3]}" if i < len(e) else "end"

    ea, eb = events(a), events(b)
    i = next(
        (i for i, (x, y) in enumerate(zip(ea, eb, strict=False)) if x[1:] != y[1:]), min(len(ea), len(eb))
    )
    where = f"{combo} {workload_name} shot {shot}: event {i} of {len(ea)}/{len(eb)}"
    return f"{where}: A {show(ea, i)} | B {show(eb, i)}"


def _summary(per_shot: dict[str, np.ndarray]) -> dict[str, Any]:
    same, dr = per_shot["same_sequence"], per_shot["max_dr"]
    matched = dr[same]
    return {
        "shots": len(same),
        "same_sequence": float(same.mean()),
        "max_dr": float(matched.max(initial=0.0)),
        "within_tol": float((matched <= POSITION_TOL).mean()) if len(matched) else math.nan,
        "same_start": float(per_shot["same_start"].mean()),
    }


def agreement(a: Recording, b: Recording) -> dict[str, Any]:
    """Everything `compare` prints, per combo and workload (plus `all`, the workloads pooled).

    Group entries: shots, same_sequence (share), max_dr (m, over identical sequences),
    within_tol (share of those within `POSITION_TOL`), same_start (share); for each
    workload also overflow_a/b and the first `LISTED` shots whose sequences differ
    (`different`) or that agree but end farther apart than `POSITION_TOL` (`far`); for
    `break`, also `statistics`: {name: {a, a_se, b, b_se, agree}}. Per combo,
    `speed`: {workload: {a, b, ratio}} where both files were timed.
    """
    info_a, info_b = meta(a), meta(b)
    names = [n for n in info_a["workloads"] if n in info_b["workloads"]]
    out: dict[str, Any] = {}
    for combo in (c for c in info_a["combos"] if c in info_b["combos"]):
        groups: dict[str, Any] = {}
        pooled: dict[str, list[np.ndarray]] = {}
        for n in names:
            per_shot = shot_agreement(a, b, combo, n)
            for f, v in per_shot.items():
                pooled.setdefault(f, []).append(v)
            same, far = per_shot["same_sequence"], per_shot["max_dr"] > POSITION_TOL
            groups[n] = _summary(per_shot) | {
                "overflow_a": int(a[key(combo, n, "overflow")].sum()),
                "overflow_b": int(b[key(combo, n, "overflow")].sum()),
                "different": np.flatnonzero(~same)[:LISTED].tolist(),
                "far": np.flatnonzero(same & far)[:LISTED].tolist(),
            }
        groups["all"] = _summary({f: np.concatenate(v) for f, v in pooled.items()})
        if "break" in names:
            stats = {}
            for (stat, x), y in zip(
                break_statistics(a, combo).items(), break_statistics(b, combo).values(), strict=True
            ):
                (ma, sa), (mb, sb) = mean_se(x), mean_se(y)
                stats[stat] = {
                    "a": ma,
                    "a_se": sa,
                    "b": mb,
                    "b_se": sb,
                    "agree": bool(abs(ma - mb) <= math.hypot(sa, sb)),
                }
            groups["break"]["statistics"] = stats
        speed_a, speed_b = info_a["shots_per_s"].get(combo, {}), info_b["shots_per_s"].get(combo, {})
        groups["speed"] = {
            n: {"a": speed_a[n], "b": speed_b[n], "ratio": speed_b[n] / speed_a[n]}
            for n in speed_a
            if n in speed_b
        }
        out[combo] = groups
    return out


def _pct(x: float) -> str:
    return "-" if math.isnan(x) else f"{100 * x:.2f}"


def compare(args: argparse.Namespace) -> int:
    """Print the agreement of two recordings (optionally save it as JSON)."""
    a, b = load(args.a), load(args.b)
    result = agreement(a, b)
    console = Console()
    shots = RichTable(title=f"A = {args.a}, B = {args.b}: shot for shot")
    for column in (
        "combo",
        "workload",
        "shots",
        "same seq %",
        "max |dr| (m)",
        "<=1e-6 m %",
        "same start %",
        "overflow A/B",
    ):
        shots.add_column(column, justify="right")
    breaks = RichTable(title="breaks: mean ± standard error (agree: |A - B| <= se of the difference)")
    for column in ("combo", "statistic", "A", "B", "agree"):
        breaks.add_column(column, justify="right")
    speed = RichTable(title="shots/s")
    for column in ("combo", "workload", "A", "B", "B/A"):
        speed.add_column(column, justify="right")
    for combo, groups in result.items():
        for n, g in groups.items():
            if n == "speed":
                for w, s in g.items():
                    speed.add_row(combo, w, f"{s['a']:.0f}", f"{s['b']:.0f}", f"{s['ratio']:.2f}")
                continue
            overflow = f"{g['overflow_a']}/{g['overflow_b']}" if "overflow_a" in g else ""
            shots.add_row(
                combo,
                n,
                str(g["shots"]),
                _pct(g["same_sequence"]),
                f"{g['max_dr']:.1e}",
                _pct(g["within_tol"]),
                _pct(g["same_start"]),
                overflow,
            )
            for stat, s in g.get("statistics", {}).items():
                breaks.add_row(
                    combo,
                    stat,
                    f"{s['a']:.4g} ± {s['a_se']:.2g}",
                    f"{s['b']:.4g} ± {s['b_se']:.2g}",
                    "yes" if s["agree"] else "[red]no[/red]",
                )
    console.print(shots)
    for combo, groups in result.items():
        for n, g in groups.items():
            if g.get("different"):
                console.print(f"{combo} {n}: sequences differ on shots {g['different']}, the first at")
                console.print("  " + divergence(a, b, combo, n, g["different"][0]), highlight=False)
            if g.get("far"):
                console.print(
                    f"{combo} {n}: same sequences, final positions > 1e-6 m apart: shots {g['far']}"
                )
    if breaks.row_count:
        console.print(breaks)
    if speed.row_count:
        console.print(speed)
    if args.json:
        write_atomic(args.json, json.dumps(stamped(result), indent=1) + "\n")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Parse the subcommand and run it."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(required=True)
    rec = commands.add_parser("record", help="run the workloads with the importable kernel and save them")
    rec.add_argument("--out", required=True, help="the npz to write")
    rec.add_argument(
        "--set", choices=sorted(SETS), default="full", help="workload sizes (default: %(default)s)"
    )
    for name in WORKLOADS:
        flag = "--breaks" if name == "break" else f"--{name}"
        rec.add_argument(flag, dest=name, type=int, help=f"{name} shots (default: the set's)")
    rec.add_argument(
        "--batch", type=int, default=1024, help="shots per call, full set (default: %(default)s)"
    )
    rec.add_argument(
        "--time-batch",
        type=int,
        default=1024,
        help="batch size of the shots/s timing, 0 to skip (default: %(default)s)",
    )
    rec.set_defaults(run=record)
    cmp = commands.add_parser("compare", help="compare two recordings")
    cmp.add_argument("a", help="recording A (the reference)")
    cmp.add_argument("b", help="recording B")
    cmp.add_argument("--json", help="also write the figures to this JSON file")
    cmp.set_defaults(run=compare)
    args = parser.parse_args(argv)
    return int(args.run(args))


if __name__ == "__main__":
    sys.exit(main())
