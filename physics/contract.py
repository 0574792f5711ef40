"""The JSON contract of `piramida simulate`: requests read, results written, the start snapshot both ways.

One module for the whole document (docs/cli.md), used by the
command, by the referee's reader of results (`rules.codec`), by the play app and by the
benchmarks, so that a field is added in one place; the event records inside a result are
the event log's own JSON (`events.to_records`, `events.log_from_json`). A request is one
JSON object; JSON Lines give a batch. Every problem is a `FieldError` whose message starts
with the field's path (`line 3: balls[2].x: ...`), never a traceback. Every number is
checked against its physical range (`RANGES`) where it is read, so the kernel never runs
on a value that would make it write NaN or infinity.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import jax
import jax.numpy as jnp
import numpy as np

from piramida.physics import events as ev
from piramida.physics.fields import (
    FieldError,
    member,
    read_bool,
    read_int,
    read_name,
    read_number,
    read_object,
    shown,
)
from piramida.physics.kernel import DEFAULT_CAPACITY, ShotResult, Snapshot, contact_distance, simulate
from piramida.physics.layouts import MAX_BALLS
from piramida.physics.motion import ABSENT, STATIONARY, BallState
from piramida.physics.params import (
    BALL_BALL_MODELS,
    CUSHION_CONTACTS,
    CUSHION_MODELS,
    PARAM_NAMES,
    PYRAMID_PARAMS,
    Models,
    PhysicsParams,
)
from piramida.physics.strike import Strike
from piramida.physics.table import (
    DEFAULT_TABLE,
    POCKET_NAMES,
    PRESETS,
    SPEC_FIELDS,
    Table,
    TableSpec,
    pocket_table,
    preset,
    rectangle,
)
from piramida.physics.validate import (
    CAPACITY,
    RANGES,
    InputError,
    check_balls,
    check_setup,
    check_strikes,
    check_table,
)

T = TypeVar("T")

REQUEST_FIELDS = ("table", "params", "models", "balls", "strike", "capacity", "record")
STRIKE_FIELDS = ("ball", "speed", "phi", "theta", "a", "b")  # a `Strike`'s fields, in every contract
MODEL_NAMES = {"ball_ball": BALL_BALL_MODELS, "cushion": CUSHION_MODELS, "contact": CUSHION_CONTACTS}
RESULT_FIELDS = ("balls", "events", "start", "overflow", "duration", "history")
START_FIELDS = ("touching_cushion", "touching", "on_centre_line")


# --- requests ---------------------------------------------------------------------------


def _number(value: Any, path: str, field: str | None = None) -> float:
    """A number in the range of `field` (its key in `RANGES`; `path` itself if None), named by `path`."""
    return read_number(value, path, within=RANGES[field or path])


@dataclass(frozen=True)
class Request:
    """One table's shot, ready for the kernel."""

    table: Table
    table_key: str  # requests with equal keys share a table and run as one batch
    params: PhysicsParams
    models: Models
    balls: BallState
    strike: Strike | None
    capacity: int
    record: bool


def parse_table(value: Any) -> tuple[Table, str]:
    """A preset name, a rectangle or a pocket table (pooltool's PocketTableSpecs fields)."""
    if isinstance(value, str):
        if value not in PRESETS:
            raise FieldError(f"table: unknown preset {shown(value)}; presets: {', '.join(sorted(PRESETS))}")
        return preset(value), value
    kind = value.get("kind") if isinstance(value, dict) else None
    if kind == "rectangle":
        fields = read_object(value, "table", ("kind", "width", "length", "cushion_height"))
        dims = {k: _number(fields[k], f"table.{k}") for k in ("width", "length") if k in fields}
        if len(dims) < 2:
            raise FieldError("table: a rectangle needs width and length")
        h = fields.get("cushion_height")
        height = None if h is None else _number(h, "table.cushion_height")
        table = rectangle(dims["width"], dims["length"], height)
    elif kind == "pockets":
        fields = read_object(value, "table", ("kind", *SPEC_FIELDS))
        changes = {k: _number(v, f"table.{k}") for k, v in fields.items() if k != "kind"}
        spec: TableSpec = PRESETS[DEFAULT_TABLE].replace(**changes)
        table = pocket_table(spec)
    else:
        raise FieldError('table: expected a preset name or an object with "kind": "rectangle" or "pockets"')
    try:
        check_table(table)
    except InputError as err:
        raise FieldError(str(err)) from err
    return table, repr(sorted(fields.items()))


def parse_params(value: Any) -> PhysicsParams:
    """Any subset of the physical constants, overriding the preset's."""
    fields = read_object(value, "params", PARAM_NAMES)
    return PYRAMID_PARAMS.replace(**{k: _number(v, f"params.{k}") for k, v in fields.items()})


def parse_setup(request: dict[str, Any]) -> tuple[Table, str, PhysicsParams]:
    """A request's `table` and `params`, checked against each other (the nose height in radii)."""
    table, key = parse_table(request.get("table", DEFAULT_TABLE))
    params = parse_params(request.get("params", {}))
    try:
        check_setup(table, params)  # each number is in range: this is the nose height in radii
    except InputError as err:
        raise FieldError(str(err)) from err
    return table, key, params


def parse_models(value: Any) -> Models:
    """Model names; pooltool's names mean pooltool's equations."""
    fields = read_object(value, "models", tuple(MODEL_NAMES))
    names: dict[str, Any] = {
        k: MODEL_NAMES[k][read_name(v, f"models.{k}", MODEL_NAMES[k])] for k, v in fields.items()
    }
    return Models(**names)


def _vector(value: Any, path: str, field: str, size: int) -> list[float]:
    if not isinstance(value, list) or len(value) != size:
        raise FieldError(f"{path}: expected a list of {size} numbers")
    return [_number(x, f"{path}[{k}]", field) for k, x in enumerate(value)]


def parse_balls(value: Any) -> BallState:
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
            raise FieldError(f"{path}.id: expected a ball id 0..{MAX_BALLS - 1}, got {shown(ident)}")
        if present[ident]:
            raise FieldError(f"{path}.id: ball {ident} is listed twice")
        for axis, name in enumerate(("x", "y")):
            if name not in fields:
                raise FieldError(f"{path}.{name}: missing")
            r[ident, axis] = _number(fields[name], f"{path}.{name}", f"balls.{name}")
        if "v" in fields:
            v[ident] = _vector(fields["v"], f"{path}.v", "balls.v", 2)
        if "w" in fields:
            w[ident] = _vector(fields["w"], f"{path}.w", "balls.w", 3)
        present[ident] = True
    s = np.where(present, STATIONARY, ABSENT).astype(np.int32)
    return BallState(r=jnp.asarray(r), v=jnp.asarray(v), w=jnp.asarray(w), s=jnp.asarray(s))


def parse_strike(value: Any) -> Strike:
    """A cue strike: ball, speed (m/s), phi and theta (degrees), tip offsets a and b (R)."""
    fields = read_object(value, "strike", STRIKE_FIELDS)
    for required in ("ball", "speed", "phi"):
        if required not in fields:
            raise FieldError(f"strike.{required}: missing")
    ball = read_int(fields["ball"], "strike.ball", 0, MAX_BALLS - 1)
    numbers = {k: _number(fields[k], f"strike.{k}") for k in STRIKE_FIELDS[1:] if k in fields}
    return Strike(ball=ball, **numbers)


def parse_request(value: Any) -> Request:
    """One JSON object of the `simulate` contract."""
    fields = read_object(value, "request", REQUEST_FIELDS)
    table, key, params = parse_setup(fields)
    models = parse_models(fields.get("models", {}))
    balls = parse_balls(fields.get("balls"))
    strike = parse_strike(fields["strike"]) if "strike" in fields else None
    capacity = read_int(fields.get("capacity", DEFAULT_CAPACITY), "capacity", *CAPACITY)
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


# --- the start snapshot -----------------------------------------------------------------


def read_ball_list(value: Any, path: str) -> list[int]:
    """A list of distinct ball ids."""
    if not isinstance(value, list):
        raise FieldError(f"{path}: expected a list of ball ids")
    out = [ev.read_ball(b, f"{path}[{k}]") for k, b in enumerate(value)]
    if len(set(out)) != len(out):
        raise FieldError(f"{path}: a ball is listed twice")
    return out


def read_ball_key(key: str, path: str) -> int:
    """A ball id written as an object key ("7"): ASCII digits only (int() also reads "٧")."""
    if not (key.isascii() and key.isdigit()):
        raise FieldError(f"{path}: expected a ball id 0..15 in ASCII digits")
    return ev.read_ball(int(key), path)


def read_touches(value: dict[str, Any], path: str) -> np.ndarray:
    """(16,) each ball's touch id from `{"7": "back", "3": "jaw:middle-left"}` (`touches_json`), else -1."""
    out = np.full(MAX_BALLS, -1, np.int32)
    for key, name in value.items():
        where = member(path, key)
        out[read_ball_key(key, where)] = ev.read_touch(name, where)
    return out


def start_to_json(start: Snapshot) -> dict[str, Any]:
    """One table's start snapshot (host arrays) as the result's `start` object."""
    return {
        "touching_cushion": ev.touches_json(enumerate(start.cushion)),
        "touching": np.argwhere(np.triu(start.touching, 1)).tolist(),
        "on_centre_line": np.flatnonzero(start.on_centre_line).tolist(),
    }


def start_from_json(value: Any, path: str) -> Snapshot:
    """A start snapshot from the result's `start` object (`start_to_json` read back)."""
    fields = read_object(value, path, START_FIELDS)
    touching_cushion = fields.get("touching_cushion", {})
    if not isinstance(touching_cushion, dict):
        raise FieldError(f"{path}.touching_cushion: expected an object of ball id -> cushion piece")
    cushion = read_touches(touching_cushion, f"{path}.touching_cushion")
    pairs = np.zeros((MAX_BALLS, MAX_BALLS), bool)
    touching = fields.get("touching", [])
    if not isinstance(touching, list):
        raise FieldError(f"{path}.touching: expected a list of ball pairs")
    for k, pair in enumerate(touching):
        if not isinstance(pair, list) or len(pair) != 2:
            raise FieldError(f"{path}.touching[{k}]: expected a pair of ball ids")
        i, j = (ev.read_ball(x, f"{path}.touching[{k}][{m}]") for m, x in enumerate(pair))
        pairs[i, j] = pairs[j, i] = True
    line = np.zeros(MAX_BALLS, bool)
    line[read_ball_list(fields.get("on_centre_line", []), f"{path}.on_centre_line")] = True
    return Snapshot(
        cushion=jnp.asarray(cushion), touching=jnp.asarray(pairs), on_centre_line=jnp.asarray(line)
    )


# --- results ----------------------------------------------------------------------------


def result_to_json(result: ShotResult, index: int) -> dict[str, Any]:
    """Table `index` of a batched result in the contract's output shape (`RESULT_FIELDS`)."""
    host = jax.tree_util.tree_map(np.asarray, result)
    final, pocket = host.final, host.pocket[index]
    balls = []
    for ball in range(final.s.shape[1]):
        if final.s[index, ball] == ABSENT:
            continue
        entry: dict[str, Any] = {
            "id": ball,
            "x": float(final.r[index, ball, 0]),
            "y": float(final.r[index, ball, 1]),
            "pocket": POCKET_NAMES[pocket[ball]] if pocket[ball] >= 0 else None,
        }
        if pocket[ball] >= 0:
            entry["pocket_time"] = float(host.pocket_time[index, ball])
        balls.append(entry)
    out: dict[str, Any] = {
        "balls": balls,
        "events": ev.to_records(host.log, index),
        "duration": float(host.duration[index]),
        "overflow": bool(host.log.overflow[index]),
        "start": start_to_json(jax.tree_util.tree_map(lambda x: x[index], host.start)),
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


def stack_strikes(strikes: Sequence[Strike]) -> Strike:
    """One batched `Strike` from per-table strikes."""
    columns = {f: np.asarray([getattr(s, f) for s in strikes], dtype=np.float64) for f in STRIKE_FIELDS[1:]}
    return Strike(ball=np.asarray([s.ball for s in strikes], dtype=np.int32), **columns)


def run_requests(requests: Sequence[Request | T]) -> list[dict[str, Any] | T]:
    """Simulate requests in batches of equal table, params and models; results in their order.

    Anything else in `requests` (a bad line's failure) stays in its place.
    """
    out: list[dict[str, Any] | T] = [{} if isinstance(r, Request) else r for r in requests]
    groups: dict[str, list[tuple[int, Request]]] = {}
    for k, request in enumerate(requests):
        if isinstance(request, Request):
            groups.setdefault(request.table_key, []).append((k, request))
    for members in groups.values():
        batch = [request for _, request in members]
        first = batch[0]
        balls = jax.tree_util.tree_map(lambda *xs: np.stack(xs), *(r.balls for r in batch))
        strikes = None
        if first.strike is not None:  # then every member has one (see `Request.table_key`)
            strikes = stack_strikes([r.strike for r in batch if r.strike is not None])
        result = simulate(
            first.table,
            balls,
            strikes,
            first.params,
            first.models,
            first.capacity,
            first.record,
            validate=False,
        )
        for index, (k, _) in enumerate(members):
            out[k] = result_to_json(result, index)
    return out
