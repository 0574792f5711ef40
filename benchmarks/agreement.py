"""Shot-for-shot agreement of piramida's kernel with pooltool-billiards 0.6.0.

Both engines get the same table, constants and models, and every moving ball an
explicit initial velocity and spin (no cue model involved). For each shot the ordered
sequences of ball-ball, cushion, jaw and pocket events are compared; on shots whose
sequences are identical, the final positions too. Breaks are chaotic, so for them only
statistics over many breaks are compared (cushion contacts, balls ending across the
centre line, spread of the final positions, pocketed balls).

Usage::

    python benchmarks/agreement.py                       # default sweep, a few minutes
    python benchmarks/agreement.py --shots 200 --breaks 200 --out piramida-out/agreement
    python benchmarks/agreement.py --models han_2005 --tables rect-7ft --breaks 0

Writes ``agreement.json`` (every shot's comparison and the summary) and ``agreement.md``
(the tables) into ``--out``. The same generators and comparison are used by
``tests/physics/test_agreement_pooltool.py``.

Two diagnostic switches change pooltool (never on by default) to show where the remaining
differences come from: ``--ref-spacer 1e-10`` shrinks the 1e-6 m gap pooltool's
``make_kiss`` leaves after every collision, ``--ref-no-cradle-guard`` turns off its
``resolve_continually_touching`` momentum transfer.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing as mp
import os
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

COMPARED_KINDS = ("ball-ball", "cushion", "jaw", "pocket")
PARAM_KEYS = ("R", "m", "u_s", "u_r", "u_sp", "e_b", "u_b", "e_c", "f_c", "g")
MODELS = ("han_2005", "stronge_compliant")
BATCH = 64  # every piramida run uses this batch size: one compile per table shape and model
CAPACITY = 1024  # event-log slots per table (one compile per capacity too)
POSITION_TOL = 5e-3  # m, the issue's final-position tolerance
REF_MAX_EVENTS = 20_000  # guard against a reference shot that never ends


# --------------------------------------------------------------------------- set-up


def pooltool_params() -> dict[str, float]:
    """pooltool's default ball parameters, as the spec's ``params``."""
    from piramida.physics import POOLTOOL_PARAMS

    return {k: float(getattr(POOLTOOL_PARAMS, k)) for k in PARAM_KEYS}


def _pocket_spec_fields(spec: Any) -> dict[str, Any]:
    from piramida.physics.table import SPEC_FIELDS

    return {"kind": "pockets", **{k: float(getattr(spec, k)) for k in SPEC_FIELDS}}


def table_specs() -> dict[str, dict[str, Any]]:
    """The compared tables, by name.

    - ``rect-7ft``: pooltool's pocketless rectangle, 0.9906 x 1.9812 m, with the pocket
      table's nose height (piramida's rectangle default differs from pooltool's, so the
      height is always given explicitly).
    - ``pockets-7ft``: pooltool's ``PocketTableSpecs()`` defaults, field for field.
    - ``pockets-pyramid``: piramida's 12 ft pyramid geometry (``PYRAMID_SPEC``), built by
      both engines from the same ``PocketTableSpecs`` fields, with pooltool's balls.
    """
    from piramida.physics.table import POOLTOOL_POCKET_SPEC, PYRAMID_SPEC

    return {
        "rect-7ft": {
            "kind": "rectangle",
            "width": 0.9906,
            "length": 1.9812,
            "cushion_height": float(POOLTOOL_POCKET_SPEC.cushion_height),
        },
        "pockets-7ft": _pocket_spec_fields(POOLTOOL_POCKET_SPEC),
        "pockets-pyramid": _pocket_spec_fields(PYRAMID_SPEC),
    }


def models_spec(cushion: str) -> dict[str, str]:
    return {"ball_ball": "frictional_inelastic", "cushion": cushion, "contact": "equator"}


def base_spec(table: dict[str, Any], cushion: str) -> dict[str, Any]:
    return {"table": table, "params": pooltool_params(), "models": models_spec(cushion)}


def _rolling_spin(v: Sequence[float], R: float) -> list[float]:
    return [-v[1] / R, v[0] / R, 0.0]


# --------------------------------------------------------------------------- shot generators


def _random_positions(
    rng: np.random.Generator, n: int, width: float, length: float, R: float, gap: float
) -> np.ndarray:
    """n non-overlapping centres on the cloth, at least ``gap`` apart and from the rails."""
    lo = np.array([R + gap, R + gap])
    hi = np.array([width - R - gap, length - R - gap])
    while True:
        placed: list[np.ndarray] = []
        for _ in range(200 * n):
            p = rng.uniform(lo, hi)
            if all(np.hypot(*(p - q)) > 2 * R + gap for q in placed):
                placed.append(p)
                if len(placed) == n:
                    return np.asarray(placed)


def random_motion(rng: np.random.Generator, R: float) -> tuple[list[float], list[float]]:
    """A random initial velocity (0.3-4 m/s, any direction) and spin.

    The spin is follow/draw k times the rolling spin (k in [-1.5, 2]; exactly rolling
    for a quarter of the balls, stun for a tenth) plus side spin up to 0.8 v/R.
    """
    speed = rng.uniform(0.3, 4.0)
    angle = rng.uniform(0.0, 2 * math.pi)
    v = [speed * math.cos(angle), speed * math.sin(angle)]
    roll = _rolling_spin(v, R)
    u = rng.uniform()
    k = 1.0 if u < 0.25 else 0.0 if u < 0.35 else rng.uniform(-1.5, 2.0)
    side = 0.0 if u < 0.25 else rng.uniform(-0.8, 0.8) * speed / R
    return v, [k * roll[0], k * roll[1], side]


def random_shots(
    rng: np.random.Generator, table: dict[str, Any], cushion: str, count: int, gap: float = 2e-3
) -> list[dict[str, Any]]:
    """``count`` random layouts of 2-16 balls; 1-3 of them moving with random spin."""
    R = pooltool_params()["R"]
    width, length = float(table["width"]), float(table["length"])
    shots = []
    for _ in range(count):
        n = int(rng.integers(2, 17))
        positions = _random_positions(rng, n, width, length, R, gap)
        ids = rng.permutation(16)[:n]
        balls: list[dict[str, Any]] = [
            {"id": int(i), "x": float(p[0]), "y": float(p[1])} for i, p in zip(ids, positions, strict=True)
        ]
        for k in rng.permutation(n)[: int(rng.integers(1, min(3, n) + 1))]:
            v, w = random_motion(rng, R)
            balls[k]["v"], balls[k]["w"] = v, w
        shots.append({**base_spec(table, cushion), "balls": balls})
    return shots


def _pocket_geometry(table: dict[str, Any]) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """(name, capture-circle centre, inward unit direction along the pocket's axis)."""
    W, L = float(table["width"]), float(table["length"])
    cd = float(table["corner_pocket_depth"]) / math.sqrt(2)
    sd = float(table["side_pocket_depth"])
    s = 1 / math.sqrt(2)
    return [
        ("front-left", np.array([-cd, -cd]), np.array([s, s])),
        ("front-right", np.array([W + cd, -cd]), np.array([-s, s])),
        ("middle-left", np.array([-sd, L / 2]), np.array([1.0, 0.0])),
        ("middle-right", np.array([W + sd, L / 2]), np.array([-1.0, 0.0])),
        ("back-left", np.array([-cd, L + cd]), np.array([s, -s])),
        ("back-right", np.array([W + cd, L + cd]), np.array([-s, -s])),
    ]


def _nose_geometry(table: dict[str, Any]) -> list[tuple[str, np.ndarray, float]]:
    """(pocket name, nose centre, nose radius) for the 12 jaw noses (pooltool's layout)."""
    W, L = float(table["width"]), float(table["length"])
    ca = math.radians(float(table["corner_pocket_angle"]) + 45.0)
    sa = math.radians(float(table["side_pocket_angle"]))
    rc, rs = float(table["corner_jaw_radius"]), float(table["side_jaw_radius"])
    sw = float(table["side_pocket_width"])
    q = float(table["corner_pocket_width"]) * math.cos(math.pi / 4)
    dc = rc / math.tan((math.pi / 2 + ca) / 2)
    ds = rs / math.tan((math.pi / 2 + sa) / 2)
    t = q + dc
    return [
        ("front-left", np.array([t, -rc]), rc),
        ("front-left", np.array([-rc, t]), rc),
        ("middle-left", np.array([-rs, L / 2 - sw / 2 - ds]), rs),
        ("middle-left", np.array([-rs, L / 2 + sw / 2 + ds]), rs),
        ("back-left", np.array([-rc, L - t]), rc),
        ("back-left", np.array([t, L + rc]), rc),
        ("back-right", np.array([W - t, L + rc]), rc),
        ("back-right", np.array([W + rc, L - t]), rc),
        ("middle-right", np.array([W + rs, L / 2 + sw / 2 + ds]), rs),
        ("middle-right", np.array([W + rs, L / 2 - sw / 2 - ds]), rs),
        ("front-right", np.array([W + rc, t]), rc),
        ("front-right", np.array([W - t, -rc]), rc),
    ]


def _rotate(u: np.ndarray, degrees: float) -> np.ndarray:
    a = math.radians(degrees)
    return np.array([u[0] * math.cos(a) - u[1] * math.sin(a), u[0] * math.sin(a) + u[1] * math.cos(a)])


def _on_cloth(p: np.ndarray, table: dict[str, Any], R: float, margin: float = 2e-3) -> bool:
    W, L = float(table["width"]), float(table["length"])
    return bool(R + margin <= p[0] <= W - R - margin and R + margin <= p[1] <= L - R - margin)


def _probe(
    table: dict[str, Any], cushion: str, start: np.ndarray, target: np.ndarray, speed: float
) -> dict[str, Any]:
    R = pooltool_params()["R"]
    u = (target - start) / np.linalg.norm(target - start)
    v = [float(speed * u[0]), float(speed * u[1])]
    ball = {"id": 0, "x": float(start[0]), "y": float(start[1]), "v": v, "w": _rolling_spin(v, R)}
    return {**base_spec(table, cushion), "balls": [ball]}


def pocket_probes(table: dict[str, Any], cushion: str, quick: bool = False) -> list[dict[str, Any]]:
    """Straight pocket probes: one ball rolling at a pocket or at a jaw.

    - At each pocket's capture-circle centre along the pocket's axis, and at angles off
      it, from several distances and speeds.
    - At each jaw nose's centre, from 0.4 m, along the pocket axis offset direction.
    ``quick``: one straight and one angled probe per pocket plus two nose probes.
    """
    if table["kind"] != "pockets":
        return []
    R = pooltool_params()["R"]
    probes = []
    distances = (0.35,) if quick else (0.2, 0.6)
    speeds = (1.5,) if quick else (1.0, 3.0)
    for k, (_, centre, axis) in enumerate(_pocket_geometry(table)):
        corner = abs(axis[0]) < 0.9
        if quick:
            angles: tuple[float, ...] = (0.0, (12.0 if corner else 20.0) * (-1) ** k)
        else:
            angles = (0.0, 10.0, -10.0) if corner else (0.0, 25.0, -25.0)
        behind = float(np.linalg.norm(centre - _mouth(axis, table)))
        for d in distances:
            for a in angles:
                start = centre + (behind + d) * _rotate(axis, a)
                if not _on_cloth(start, table, R):
                    continue
                for speed in speeds:
                    probes.append(_probe(table, cushion, start, centre, speed))
    noses = _nose_geometry(table)
    if quick:
        noses = noses[::6]
    for k, (_, centre, radius) in enumerate(noses):
        # From inside the table, along the inward normal of the rail the nose ends,
        # tilted 25 degrees either way, aimed at the nose's centre.
        inward = _nose_inward(centre, table)
        for a in (25.0 * (-1) ** k,) if quick else (25.0, -25.0):
            start = centre + (0.4 + radius + R) * _rotate(inward, a)
            if _on_cloth(start, table, R):
                probes.append(_probe(table, cushion, start, centre, 1.5 if quick else 2.0))
    return probes


def _mouth(axis: np.ndarray, table: dict[str, Any]) -> np.ndarray:
    """Where the pocket's axis meets the rail lines: the corner, or the middle of the rail."""
    W, L = float(table["width"]), float(table["length"])
    x = 0.0 if axis[0] > 0 else W
    if abs(axis[1]) < 1e-9:  # middle pocket
        return np.array([x, L / 2])
    return np.array([x, 0.0 if axis[1] > 0 else L])


def _nose_inward(centre: np.ndarray, table: dict[str, Any]) -> np.ndarray:
    """Inward normal of the rail a nose sits on (the nose is just behind that rail)."""
    W, L = float(table["width"]), float(table["length"])
    x, y = centre
    if x < 0:
        return np.array([1.0, 0.0])
    if x > W:
        return np.array([-1.0, 0.0])
    if y < 0:
        return np.array([0.0, 1.0])
    return np.array([0.0, -1.0]) if y > L else np.array([0.0, 1.0])


def break_shots(
    rng: np.random.Generator, table: dict[str, Any], cushion: str, count: int, rack_gap: float = 1e-5
) -> list[dict[str, Any]]:
    """Full 15-ball racks on the back spot, cue ball (id 0) at 6-9 m/s within 1 degree.

    The rack's apex points at the cue ball, neighbours ``2R + rack_gap`` apart; the cue
    ball sits on the long axis a quarter of the table from the front, sliding without spin.
    """
    R = pooltool_params()["R"]
    W, L = float(table["width"]), float(table["length"])
    pitch = 2 * R + rack_gap
    rack = []
    for row in range(5):
        for k in range(row + 1):
            rack.append((W / 2 + (k - row / 2) * pitch, 3 * L / 4 + row * pitch * math.sqrt(3) / 2))
    shots = []
    for _ in range(count):
        speed = rng.uniform(6.0, 9.0)
        angle = math.radians(90.0 + rng.uniform(-1.0, 1.0))
        balls = [
            {
                "id": 0,
                "x": W / 2,
                "y": L / 4,
                "v": [speed * math.cos(angle), speed * math.sin(angle)],
                "w": [0.0, 0.0, 0.0],
            }
        ]
        balls += [{"id": i + 1, "x": x, "y": y} for i, (x, y) in enumerate(rack)]
        shots.append({**base_spec(table, cushion), "balls": balls})
    return shots


# --------------------------------------------------------------------------- engines


def run_piramida(
    specs: Sequence[dict[str, Any]],
    batch: int = BATCH,
    capacity: int = CAPACITY,
    progress: Callable[[int], None] | None = None,
) -> list[dict[str, Any]]:
    """piramida results in order; specs are run in padded batches of exactly ``batch``.

    Consecutive specs with the same table, params and models share a batch; each batch
    is padded with one-ball tables at rest, so every run has the same shape.
    """
    from piramida.physics import runtime
    from piramida.physics.contract import parse_request, run_requests

    runtime.use_float64()  # a piramida program: float64 throughout
    out: list[dict[str, Any]] = []
    k = 0
    while k < len(specs):
        key = _batch_key(specs[k])
        chunk: list[dict[str, Any]] = []
        while k < len(specs) and len(chunk) < batch and _batch_key(specs[k]) == key:
            chunk.append(specs[k])
            k += 1
        pad = {**{f: chunk[0][f] for f in ("table", "params", "models")}}
        W, L = float(pad["table"]["width"]), float(pad["table"]["length"])
        pad["balls"] = [{"id": 0, "x": W / 2, "y": L / 2}]
        full = list(chunk) + [pad] * (batch - len(chunk))
        requests = [parse_request({**s, "capacity": capacity}) for s in full]
        t0 = time.perf_counter()
        results = run_requests(requests)
        wall = (time.perf_counter() - t0) / len(chunk)
        for r in results[: len(chunk)]:
            r["wall_s"] = wall
        out += results[: len(chunk)]
        if progress is not None:
            progress(len(chunk))
    return out


def _batch_key(spec: dict[str, Any]) -> str:
    return json.dumps([spec["table"], spec["params"], spec["models"]], sort_keys=True)


def reference_spec(spec: dict[str, Any]) -> dict[str, Any]:
    """The spec as the pooltool bridge takes it (the ``contact`` model is piramida's)."""
    models = {k: v for k, v in spec["models"].items() if k != "contact"}
    return {**spec, "models": models, "max_events": REF_MAX_EVENTS}


def run_reference_one(spec: dict[str, Any]) -> dict[str, Any]:
    """pooltool's result, or {"error": ...} if pooltool raised."""
    from piramida.physics.pooltool_bridge import run_pooltool

    try:
        return run_pooltool(reference_spec(spec))
    except Exception as err:  # pooltool's Stronge asserts on some inputs: report, go on
        return {"error": f"{type(err).__name__}: {err}"}


def configure_reference(spacer: float | None = None, cradle_guard: bool = True) -> None:
    """Diagnostics only: change two pooltool quirks in this process.

    ``spacer`` replaces ``pooltool.constants.MIN_DIST`` (1e-6 m), the gap ``make_kiss``
    leaves between colliding balls and between a ball and a cushion; ``cradle_guard=False``
    turns ``resolve_continually_touching`` (the Newton's-cradle momentum transfer after a
    ball-ball collision) into a no-op. Neither is on unless asked for.
    """
    import pooltool.constants as const
    from pooltool.physics.resolve.ball_ball.core import CoreBallBallCollision

    if spacer is not None:
        const.MIN_DIST = spacer
    if not cradle_guard:

        def untouched(self: Any, ball1: Any, ball2: Any) -> tuple[Any, Any]:
            return ball1, ball2

        CoreBallBallCollision.resolve_continually_touching = untouched  # type: ignore[method-assign]


class _Lazy:
    """A future run on first ``result()`` in this process (``workers=0``)."""

    def __init__(self, spec: dict[str, Any]) -> None:
        self.spec = spec
        self.value: Any = None
        self.callbacks: list[Callable[[Any], None]] = []

    def result(self) -> Any:
        if self.value is None:
            self.value = run_reference_one(self.spec)
            for fn in self.callbacks:
                fn(self)
        return self.value

    def add_done_callback(self, fn: Callable[[Any], None]) -> None:
        self.callbacks.append(fn)


def start_reference(
    specs: Sequence[dict[str, Any]], workers: int, spacer: float | None = None, cradle_guard: bool = True
) -> tuple[Any, list[Any]]:
    """Start pooltool on every spec in ``workers`` spawned processes; (pool, futures).

    ``workers=0`` runs pooltool in this process, lazily, when a result is asked for.
    """
    if workers <= 0:
        configure_reference(spacer, cradle_guard)
        return None, [_Lazy(s) for s in specs]
    pool = ProcessPoolExecutor(
        workers,
        mp_context=mp.get_context("spawn"),
        initializer=configure_reference,
        initargs=(spacer, cradle_guard),
    )
    return pool, [pool.submit(run_reference_one, s) for s in specs]


# --------------------------------------------------------------------------- comparison


def event_key(event: dict[str, Any]) -> tuple[Any, ...]:
    """What must agree: kind, balls (a ball-ball pair unordered), cushion or pocket."""
    kind = event["kind"]
    balls = tuple(sorted(event["balls"])) if kind == "ball-ball" else tuple(event["balls"])
    where = event.get("cushion") or event.get("pocket") or ""
    return (kind, balls, where)


def compared_events(result: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for e in result["events"] if e["kind"] in COMPARED_KINDS]


def merge_chatter(events: Sequence[dict[str, Any]], window: float = 0.01) -> list[dict[str, Any]]:
    """Events with grazing repeats merged: a contact that repeats the previous compared
    event of each of its balls within ``window`` seconds is dropped (a ball pressed
    against a rail by its spin, or two balls rolling together, touch again and again).
    """
    last: dict[int, tuple[tuple[Any, ...], float]] = {}
    out = []
    for e in events:
        key = event_key(e)
        prev = [last.get(b) for b in e["balls"]]
        repeat = all(p is not None and p[0] == key and e["t"] - p[1] < window for p in prev)
        for b in e["balls"]:
            last[b] = (key, e["t"])
        if not repeat:
            out.append(e)
    return out


def _describe(event: dict[str, Any] | None) -> str | None:
    if event is None:
        return None
    kind, balls, where = event_key(event)
    return f"{kind} {'-'.join(map(str, balls))}{' ' + where if where else ''} @ {event['t']:.4f}s"


def compare(spec: dict[str, Any], ours: dict[str, Any], ref: dict[str, Any]) -> dict[str, Any]:
    """One shot's comparison record (JSON-ready)."""
    record: dict[str, Any] = {"n_balls": len(spec["balls"]), "moving": sum("v" in b for b in spec["balls"])}
    if "error" in ref:
        record.update(status="reference-error", error=ref["error"], match=False)
        return record
    if ours.get("overflow"):
        record.update(status="overflow", match=False)
        return record
    a, b = compared_events(ours), compared_events(ref)
    ka, kb = [event_key(e) for e in a], [event_key(e) for e in b]
    record["n_events"] = [len(a), len(b)]
    record["match_merged"] = [event_key(e) for e in merge_chatter(a)] == [
        event_key(e) for e in merge_chatter(b)
    ]
    first = next((i for i, (x, y) in enumerate(zip(ka, kb, strict=False)) if x != y), None)
    if first is None and len(ka) != len(kb):
        first = min(len(ka), len(kb))
    record["match"] = first is None
    record["status"] = "match" if first is None else "mismatch"
    common = len(ka) if first is None else first
    dts = [abs(a[i]["t"] - b[i]["t"]) for i in range(common)]
    record["max_event_dt"] = max(dts) if dts else 0.0
    record["first_event_dt"] = dts[0] if dts else None
    if first is not None:
        ea = a[first] if first < len(a) else None
        eb = b[first] if first < len(b) else None
        record["diverge"] = {
            "index": first,
            "piramida": _describe(ea),
            "pooltool": _describe(eb),
            "t": min(e["t"] for e in (ea, eb) if e is not None),
            "kinds": [ea["kind"] if ea else "end", eb["kind"] if eb else "end"],
        }
    pa = {x["id"]: x for x in ours["balls"]}
    pb = {x["id"]: x for x in ref["balls"]}
    diffs = [
        math.hypot(pa[i]["x"] - pb[i]["x"], pa[i]["y"] - pb[i]["y"])
        for i in pa
        if pa[i]["pocket"] is None and pb[i]["pocket"] is None
    ]
    record["max_position_diff"] = max(diffs) if diffs else 0.0
    record["pocketed"] = [
        sorted(i for i in pa if pa[i]["pocket"] is not None),
        sorted(i for i in pb if pb[i]["pocket"] is not None),
    ]
    record["duration"] = [ours["duration"], ref["duration"]]
    return record


def _percentiles(values: Iterable[float]) -> dict[str, float | int | None]:
    x = np.asarray(list(values), dtype=float)
    if x.size == 0:
        return {"n": 0, "p50": None, "p90": None, "p99": None, "max": None}
    return {
        "n": int(x.size),
        "p50": float(np.percentile(x, 50)),
        "p90": float(np.percentile(x, 90)),
        "p99": float(np.percentile(x, 99)),
        "max": float(x.max()),
    }


def summarise(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Agreement figures for a group of shot records."""
    n = len(records)
    matched = [r for r in records if r.get("match")]
    within = [r for r in matched if r["max_position_diff"] <= POSITION_TOL]
    mism = [r for r in records if r.get("status") == "mismatch"]
    where: dict[str, int] = {}
    for r in mism:
        pair = " vs ".join(r["diverge"]["kinds"])
        where[pair] = where.get(pair, 0) + 1
    return {
        "shots": n,
        "identical_sequences": len(matched),
        "identical_fraction": len(matched) / n if n else None,
        "identical_after_merging_chatter": sum(bool(r.get("match_merged")) for r in records),
        "identical_and_within_5mm": len(within),
        "agree_fraction": len(within) / n if n else None,
        "reference_errors": sum(r.get("status") == "reference-error" for r in records),
        "overflows": sum(r.get("status") == "overflow" for r in records),
        "position_diff_on_matches_m": _percentiles(r["max_position_diff"] for r in matched),
        "first_event_dt_s": _percentiles(
            r["first_event_dt"] for r in records if r.get("first_event_dt") is not None
        ),
        "max_event_dt_on_matches_s": _percentiles(r["max_event_dt"] for r in matched),
        "divergence_kinds": dict(sorted(where.items(), key=lambda kv: -kv[1])),
        "divergence_index": _percentiles(r["diverge"]["index"] for r in mism),
    }


# --------------------------------------------------------------------------- breaks


def break_statistics(spec: dict[str, Any], result: dict[str, Any]) -> dict[str, float]:
    """One break's statistics (the same definitions for both engines).

    cushion contacts counts cushion and jaw events; ``crossed`` counts the balls on the
    table whose final centre is on the other side of the centre line than at the start;
    ``spread`` is the RMS distance of the balls on the table from their mean position.
    """
    L = float(spec["table"]["length"])
    start = {b["id"]: b["y"] for b in spec["balls"]}
    events = result["events"]
    on_table = [b for b in result["balls"] if b["pocket"] is None]
    xy = np.array([[b["x"], b["y"]] for b in on_table]) if on_table else np.zeros((1, 2))
    stats = {
        "cushion_contacts": sum(e["kind"] in ("cushion", "jaw") for e in events),
        "ball_ball": sum(e["kind"] == "ball-ball" for e in events),
        "pocketed": sum(b["pocket"] is not None for b in result["balls"]),
        "crossed": sum((b["y"] - L / 2) * (start[b["id"]] - L / 2) < 0 for b in on_table),
        "spread": float(np.sqrt(np.mean(np.sum((xy - xy.mean(axis=0)) ** 2, axis=1)))),
        "duration": float(result["duration"]),
    }
    lines = [e for e in events if e["kind"] == "centre-line"]
    if lines:  # piramida only: balls that crossed at least once, however they ended
        stats["crossed_ever"] = len({e["balls"][0] for e in lines})
    return stats


def compare_breaks(ours: Sequence[dict[str, float]], ref: Sequence[dict[str, float]]) -> dict[str, Any]:
    """Mean, sd and the difference of means in standard errors, per statistic."""
    out: dict[str, Any] = {}
    for key in ("cushion_contacts", "ball_ball", "crossed", "spread", "pocketed", "duration"):
        a = np.array([s[key] for s in ours], dtype=float)
        b = np.array([s[key] for s in ref], dtype=float)
        if a.size == 0 or b.size == 0:
            continue
        se = math.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size) if min(a.size, b.size) > 1 else 0.0
        diff = float(a.mean() - b.mean())
        out[key] = {
            "piramida_mean": float(a.mean()),
            "piramida_sd": float(a.std(ddof=1)) if a.size > 1 else 0.0,
            "pooltool_mean": float(b.mean()),
            "pooltool_sd": float(b.std(ddof=1)) if b.size > 1 else 0.0,
            "diff": diff,
            "z": diff / se if se > 0 else (0.0 if diff == 0 else math.inf),
        }
    crossed_ever = [s["crossed_ever"] for s in ours if "crossed_ever" in s]
    if crossed_ever:
        out["crossed_ever_piramida_mean"] = float(np.mean(crossed_ever))
    return out


# --------------------------------------------------------------------------- driver


@dataclass
class Case:
    """One (table, model) group of shots."""

    table: str
    model: str
    kind: str  # "random", "probe" or "break"
    specs: list[dict[str, Any]] = field(default_factory=list)


def build_cases(
    seed: int,
    shots: int,
    breaks: int,
    tables: Sequence[str],
    models: Sequence[str],
    quick_probes: bool = False,
    break_tables: Sequence[str] = ("pockets-7ft",),
) -> list[Case]:
    """Every group of shots to run; the same seed gives the same shots for every model."""
    specs = table_specs()
    cases = []
    for model in models:
        for name in tables:
            rng = np.random.default_rng([seed, list(specs).index(name)])
            cases.append(Case(name, model, "random", random_shots(rng, specs[name], model, shots)))
            probes = pocket_probes(specs[name], model, quick=quick_probes)
            if probes:
                cases.append(Case(name, model, "probe", probes))
        for name in break_tables:
            if breaks:
                rng = np.random.default_rng([seed, 100 + list(specs).index(name)])
                cases.append(Case(name, model, "break", break_shots(rng, specs[name], model, breaks)))
    return cases


def run_cases(
    cases: Sequence[Case],
    workers: int = 1,
    show_progress: bool = True,
    spacer: float | None = None,
    cradle_guard: bool = True,
) -> dict[str, Any]:
    """Run both engines on every case; return the per-shot records and summaries.

    pooltool runs in ``workers`` processes (0: in this one) while piramida runs here.
    """
    all_specs = [s for c in cases for s in c.specs]
    t0 = time.perf_counter()
    pool, futures = start_reference(all_specs, workers, spacer, cradle_guard)
    ours: list[dict[str, Any]] = []
    ours_s: list[float] = []
    with _progress(show_progress) as bar:
        ptask = bar.add_task("piramida", total=len(all_specs))
        rtask = bar.add_task("pooltool", total=len(all_specs))
        for f in futures:
            f.add_done_callback(lambda _: bar.advance(rtask))
        for c in cases:
            tc = time.perf_counter()
            ours += run_piramida(c.specs, progress=lambda n: bar.advance(ptask, n))
            ours_s.append(time.perf_counter() - tc)
        t_ours = time.perf_counter() - t0
        refs = [f.result() for f in futures]
    if pool is not None:
        pool.shutdown()
    t_all = time.perf_counter() - t0
    report: dict[str, Any] = {"groups": [], "breaks": [], "shots": []}
    k = 0
    for c, c_s in zip(cases, ours_s, strict=True):
        o, r = ours[k : k + len(c.specs)], refs[k : k + len(c.specs)]
        k += len(c.specs)
        timing = {"piramida_s": c_s, "pooltool_s": sum(x.get("wall_s", 0.0) for x in r)}
        if c.kind == "break":
            so = [break_statistics(s, x) for s, x in zip(c.specs, o, strict=True)]
            sr = [break_statistics(s, x) for s, x in zip(c.specs, r, strict=True) if "error" not in x]
            report["breaks"].append(
                {
                    "table": c.table,
                    "model": c.model,
                    "breaks": len(c.specs),
                    "reference_errors": len(c.specs) - len(sr),
                    "overflows": sum(bool(x.get("overflow")) for x in o),
                    "stats": compare_breaks(so, sr),
                    **timing,
                }
            )
            continue
        recs = []
        for i, (s, x, y) in enumerate(zip(c.specs, o, r, strict=True)):
            rec = compare(s, x, y)
            rec.update(table=c.table, model=c.model, kind=c.kind, index=i)
            recs.append(rec)
        report["shots"] += recs
        report["groups"].append(
            {"table": c.table, "model": c.model, "kind": c.kind, **summarise(recs), **timing}
        )
    report["overall"] = {
        f"{m}": summarise([r for r in report["shots"] if r["model"] == m])
        for m in sorted({c.model for c in cases})
    }
    report["wall_s"] = {"piramida_incl_compiles": t_ours, "total": t_all}
    report["reference_quirks"] = {
        "make_kiss_spacer_m": 1e-6 if spacer is None else spacer,
        "cradle_guard": cradle_guard,
    }
    return report


class _NoBar:
    def __enter__(self) -> _NoBar:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def add_task(self, *args: Any, **kwargs: Any) -> int:
        return 0

    def advance(self, *args: Any) -> None:
        return None


def _progress(show: bool) -> Any:
    if not show:
        return _NoBar()
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(
        TextColumn("{task.description:>9}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        transient=False,
    )


# --------------------------------------------------------------------------- report


def _mm(x: float | None) -> str:
    return "-" if x is None else f"{x * 1e3:.3g}"


def _sci(x: float | None) -> str:
    return "-" if x is None else f"{x:.2e}"


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def markdown(report: dict[str, Any]) -> str:
    lines = ["# piramida vs pooltool-billiards 0.6.0: shot-for-shot agreement", ""]
    lines += [
        "Identical = same ordered sequence of ball-ball, cushion, jaw and pocket events.",
        "Position differences (mm) are the largest final-position difference over the balls",
        "left on the table, on shots with identical sequences. 'Chatter merged': a contact that",
        "repeats its balls' previous contact within 10 ms counts once (grazing repeats).",
        f"pooltool quirks: make_kiss spacer {report['reference_quirks']['make_kiss_spacer_m']:g} m, "
        f"cradle guard {'on' if report['reference_quirks']['cradle_guard'] else 'off'}.",
        "",
        "| table | model | kind | shots | identical | + within 5 mm | identical, chatter merged "
        "| pos p50 | p90 | p99 | max | first-event dt p50 (s) | max | ref errors |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for g in report["groups"]:
        p, f = g["position_diff_on_matches_m"], g["first_event_dt_s"]
        lines.append(
            f"| {g['table']} | {g['model']} | {g['kind']} | {g['shots']} | {_pct(g['identical_fraction'])} "
            f"| {_pct(g['agree_fraction'])} | {_pct(g['identical_after_merging_chatter'] / g['shots'])} "
            f"| {_mm(p['p50'])} | {_mm(p['p90'])} | {_mm(p['p99'])} "
            f"| {_mm(p['max'])} | {_sci(f['p50'])} | {_sci(f['max'])} | {g['reference_errors']} |"
        )
    lines += ["", "## Overall, per model", ""]
    for m, g in report["overall"].items():
        lines.append(
            f"- **{m}**: {g['identical_sequences']}/{g['shots']} identical "
            f"({_pct(g['identical_fraction'])}), "
            f"{g['identical_and_within_5mm']} also within 5 mm ({_pct(g['agree_fraction'])}); "
            f"position diff p50/p90/p99/max = {_mm(g['position_diff_on_matches_m']['p50'])}/"
            f"{_mm(g['position_diff_on_matches_m']['p90'])}/{_mm(g['position_diff_on_matches_m']['p99'])}/"
            f"{_mm(g['position_diff_on_matches_m']['max'])} mm"
        )
    lines += ["", "## Where mismatching shots diverge", ""]
    lines += [
        "| table | model | kind | shot | balls | index | piramida | pooltool |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in report["shots"]:
        if r.get("status") == "mismatch":
            d = r["diverge"]
            lines.append(
                f"| {r['table']} | {r['model']} | {r['kind']} | {r['index']} | {r['n_balls']} | {d['index']} "
                f"| {d['piramida']} | {d['pooltool']} |"
            )
        elif r.get("status") in ("reference-error", "overflow"):
            lines.append(
                f"| {r['table']} | {r['model']} | {r['kind']} | {r['index']} | {r['n_balls']} | - "
                f"| {r['status']} | {r.get('error', '')} |"
            )
    if report["breaks"]:
        lines += ["", "## Breaks (statistics over many breaks)", ""]
        lines += [
            "| table | model | statistic | piramida mean ± sd | pooltool mean ± sd | diff | z |",
            "|---|---|---|---|---|---|---|",
        ]
        for b in report["breaks"]:
            for key, s in b["stats"].items():
                if not isinstance(s, dict):
                    continue
                lines.append(
                    f"| {b['table']} | {b['model']} ({b['breaks']}) | {key} | {s['piramida_mean']:.3g} ± "
                    f"{s['piramida_sd']:.2g} | {s['pooltool_mean']:.3g} ± {s['pooltool_sd']:.2g} "
                    f"| {s['diff']:+.3g} | {s['z']:+.2f} |"
                )
            if "crossed_ever_piramida_mean" in b["stats"]:
                lines.append(
                    f"| {b['table']} | {b['model']} | crossed at least once (piramida's log) "
                    f"| {b['stats']['crossed_ever_piramida_mean']:.3g} | - | - | - |"
                )
    w = report["wall_s"]
    lines += [
        "",
        f"Wall time: {w['total']:.0f} s (piramida incl. compiles {w['piramida_incl_compiles']:.0f} s).",
    ]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shots", type=int, default=64, help="random shots per table and model")
    parser.add_argument("--breaks", type=int, default=100, help="breaks per model (0: none)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="piramida-out/agreement", help="output directory")
    parser.add_argument("--models", default=",".join(MODELS), help="comma-separated cushion models")
    parser.add_argument("--tables", default="rect-7ft,pockets-7ft,pockets-pyramid")
    parser.add_argument("--break-tables", default="pockets-7ft")
    parser.add_argument("--quick-probes", action="store_true", help="a few probes per table only")
    parser.add_argument(
        "--workers", type=int, default=os.cpu_count() or 1, help="pooltool processes (0: in this one)"
    )
    parser.add_argument(
        "--ref-spacer",
        type=float,
        default=None,
        help="diagnostic: pooltool's make_kiss spacer (MIN_DIST, default 1e-6 m)",
    )
    parser.add_argument(
        "--ref-no-cradle-guard",
        action="store_true",
        help="diagnostic: turn off pooltool's resolve_continually_touching",
    )
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    models = [m for m in args.models.split(",") if m]
    tables = [t for t in args.tables.split(",") if t]
    cases = build_cases(
        args.seed,
        args.shots,
        args.breaks,
        tables,
        models,
        args.quick_probes,
        [t for t in args.break_tables.split(",") if t],
    )
    report = run_cases(
        cases,
        workers=args.workers,
        show_progress=not args.no_progress,
        spacer=args.ref_spacer,
        cradle_guard=not args.ref_no_cradle_guard,
    )
    from piramida.physics.files import write_atomic
    from piramida.physics.provenance import stamped

    report["options"] = vars(args)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    write_atomic(out / "agreement.json", json.dumps(stamped(report), indent=1))
    text = markdown(report)
    write_atomic(out / "agreement.md", text)
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
