"""The JSON contract of `piramida simulate`: parse and check requests, write results.

A request is one JSON object (DESIGN.md, "Command-line contracts"); JSON Lines give a
batch. Every problem is a `FieldError` (`rules.fields`, shared with the referee) whose
message starts with the field's path (`line 3: balls[2].x: ...`), never a traceback.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

import piramida.physics as ph
from piramida.physics.kernel import DEFAULT_CAPACITY, contact_distance
from piramida.physics.layouts import MAX_BALLS
from piramida.physics.params import PARAM_NAMES
from piramida.physics.table import DEFAULT_TABLE, PRESETS, SPEC_FIELDS, TableSpec
from piramida.physics.validate import InputError, check_balls, check_strikes
from piramida.rules.fields import FieldError, read_bool, read_int, read_number, read_object

REQUEST_FIELDS = ("table", "params", "models", "balls", "strike", "capacity", "record")
STRIKE_FIELDS = ("ball", "speed", "phi", "theta", "a", "b")
MODEL_FIELDS = ("ball_ball", "cushion", "contact")


@dataclass(frozen=True)
class Request:
    """One table's shot, ready for the kernel."""

    table: ph.Table
    table_key: str  # requests with equal keys share a table and run as one batch
    params: ph.PhysicsParams
    models: ph.Models
    balls: ph.BallState
    strike: ph.Strike | None
    capacity: int
    record: bool


def parse_table(value: Any) -> tuple[ph.Table, str]:
    """A preset name, a rectangle or a pocket table (pooltool's PocketTableSpecs fields)."""
    if isinstance(value, str):
        if value not in PRESETS:
            raise FieldError(f"table: unknown preset {value!r}; presets: {', '.join(sorted(PRESETS))}")
        return ph.preset(value), value
    kind = value.get("kind") if isinstance(value, dict) else None
    if kind == "rectangle":
        fields = read_object(value, "table", ("kind", "width", "length", "cushion_height"))
        dims = {
            k: read_number(fields[k], f"table.{k}", positive=True) for k in ("width", "length") if k in fields
        }
        if len(dims) < 2:
            raise FieldError("table: a rectangle needs width and length")
        h = fields.get("cushion_height")
        height = None if h is None else read_number(h, "table.cushion_height", positive=True)
        return ph.rectangle(dims["width"], dims["length"], height), repr(sorted(fields.items()))
    if kind == "pockets":
        fields = read_object(value, "table", ("kind", *SPEC_FIELDS))
        base = PRESETS[DEFAULT_TABLE]
        changes = {
            k: read_number(v, f"table.{k}", positive=k.endswith(("width", "length", "radius", "height")))
            for k, v in fields.items()
            if k != "kind"
        }
        spec: TableSpec = base.replace(**changes)
        return ph.pocket_table(spec), repr(sorted(fields.items()))
    raise FieldError('table: expected a preset name or an object with "kind": "rectangle" or "pockets"')


def parse_params(value: Any) -> ph.PhysicsParams:
    """Any subset of the physical constants, overriding the preset's."""
    fields = read_object(value, "params", PARAM_NAMES)
    changes = {
        k: read_number(v, f"params.{k}", positive=k in ("R", "m", "g", "cue_mass")) for k, v in fields.items()
    }
    for k, v in changes.items():
        if v < 0:
            raise FieldError(f"params.{k}: must not be negative, got {v}")
    return ph.PYRAMID_PARAMS.replace(**changes)


def parse_models(value: Any) -> ph.Models:
    """Model names; pooltool's names mean pooltool's equations."""
    fields = read_object(value, "models", MODEL_FIELDS)
    try:
        return ph.Models(**fields)
    except (ValueError, TypeError) as err:
        raise FieldError(str(err)) from err


def _vector(value: Any, path: str, size: int) -> list[float]:
    if not isinstance(value, list) or len(value) != size:
        raise FieldError(f"{path}: expected a list of {size} numbers")
    return [read_number(x, f"{path}[{k}]") for k, x in enumerate(value)]


def parse_balls(value: Any) -> ph.BallState:
    """Ball ids 0..15 with positions, and optionally their own initial motion."""
    if not isinstance(value, list) or not value:
        raise FieldError("balls: expected a non-empty list of balls")
    r = np.zeros((MAX_BALLS, 2))
    v = np.zeros((MAX_BALLS, 2))
    w = np.zeros((MAX_BALLS, 3))
    present = np.zeros(MAX_BALLS, dtype=bool)
    for k, ball in enumerate(value):
        path = f"balls[{k}]"
        fields = read_object(ball, path, ("id", "x", "y", "v", "w"))
        ident = fields.get("id")
        if isinstance(ident, bool) or not isinstance(ident, int) or not 0 <= ident < MAX_BALLS:
            raise FieldError(f"{path}.id: expected a ball id 0..{MAX_BALLS - 1}, got {ident!r}")
        if present[ident]:
            raise FieldError(f"{path}.id: ball {ident} is listed twice")
        for axis, name in enumerate(("x", "y")):
            if name not in fields:
                raise FieldError(f"{path}.{name}: missing")
            r[ident, axis] = read_number(fields[name], f"{path}.{name}")
        if "v" in fields:
            v[ident] = _vector(fields["v"], f"{path}.v", 2)
        if "w" in fields:
            w[ident] = _vector(fields["w"], f"{path}.w", 3)
        present[ident] = True
    s = np.where(present, ph.motion.STATIONARY, ph.motion.ABSENT).astype(np.int32)
    return ph.BallState(r=jnp.asarray(r), v=jnp.asarray(v), w=jnp.asarray(w), s=jnp.asarray(s))


def parse_strike(value: Any) -> ph.Strike:
    """A cue strike: ball, speed (m/s), phi and theta (degrees), tip offsets a and b (R)."""
    fields = read_object(value, "strike", STRIKE_FIELDS)
    for required in ("ball", "speed", "phi"):
        if required not in fields:
            raise FieldError(f"strike.{required}: missing")
    ball = fields["ball"]
    if isinstance(ball, bool) or not isinstance(ball, int):
        raise FieldError(f"strike.ball: expected a ball id, got {ball!r}")
    numbers = {k: read_number(fields[k], f"strike.{k}") for k in STRIKE_FIELDS[1:] if k in fields}
    return ph.Strike(ball=ball, **numbers)


def parse_request(value: Any) -> Request:
    """One JSON object of the `simulate` contract."""
    fields = read_object(value, "request", REQUEST_FIELDS)
    table, key = parse_table(fields.get("table", DEFAULT_TABLE))
    params = parse_params(fields.get("params", {}))
    models = parse_models(fields.get("models", {}))
    balls = parse_balls(fields.get("balls"))
    strike = parse_strike(fields["strike"]) if "strike" in fields else None
    capacity = read_int(fields.get("capacity", DEFAULT_CAPACITY), "capacity", 2, 100_000)
    record = read_bool(fields.get("record", False), "record")
    batched = jax.tree_util.tree_map(lambda x: x[None], balls)
    try:
        check_balls(table, batched, float(params.R), float(contact_distance(table, params, models)))
        if strike is not None:
            check_strikes(jax.tree_util.tree_map(lambda x: np.asarray(x)[None], strike), batched)
    except InputError as err:
        raise FieldError(str(err)) from err
    # Requests with equal keys run as one batch: same table, constants, models, options,
    # and either all with a strike or all with explicit initial motion.
    batch_key = f"{key}|{params}|{models}|{capacity}|{record}|{strike is not None}"
    return Request(table, batch_key, params, models, balls, strike, capacity, record)


def result_to_json(result: ph.ShotResult, index: int) -> dict[str, Any]:
    """Table `index` of a batched result in the contract's output shape."""
    host = jax.tree_util.tree_map(np.asarray, result)
    final, pocket = host.final, host.pocket[index]
    balls = []
    for ball in range(final.s.shape[1]):
        if final.s[index, ball] == ph.motion.ABSENT:
            continue
        entry: dict[str, Any] = {
            "id": ball,
            "x": float(final.r[index, ball, 0]),
            "y": float(final.r[index, ball, 1]),
            "pocket": ph.POCKET_NAMES[pocket[ball]] if pocket[ball] >= 0 else None,
        }
        if pocket[ball] >= 0:
            entry["pocket_time"] = float(host.pocket_time[index, ball])
        balls.append(entry)
    start = host.start
    on_line = np.flatnonzero(start.on_centre_line[index]).tolist()
    pairs = np.argwhere(np.triu(start.touching[index], 1)).tolist()
    touching_cushion = {
        str(ball): name
        for ball, touch in enumerate(start.cushion[index])
        if (name := ph.events.touch_name(int(touch))) is not None
    }
    out: dict[str, Any] = {
        "balls": balls,
        "events": ph.to_records(host.log, index),
        "duration": float(host.duration[index]),
        "overflow": bool(host.log.overflow[index]),
        "start": {"touching_cushion": touching_cushion, "touching": pairs, "on_centre_line": on_line},
    }
    if host.history is not None:
        count = int(host.log.count[index])
        out["history"] = [
            {
                "t": float(host.log.t[index, k]),
                "balls": [
                    [float(x) for x in host.history.r[index, k, b]] + [int(host.history.s[index, k, b])]
                    for b in range(final.s.shape[1])
                ],
            }
            for k in range(count)
        ]
    return out
