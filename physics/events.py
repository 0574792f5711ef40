"""The event log: what happened in a shot, in time order, with fixed capacity per table.

Each entry is (t, kind, a, b, touch_a, touch_b):
- `a` is the ball the event is about (the first ball of a ball-ball contact);
- `b` is the other ball (ball-ball), the cushion id (cushion), the pocket id (jaw,
  pocket), the crossing direction (centre-line: +1 front to back, -1 back to front),
  or -1;
- `touch_a`, `touch_b` say, for a ball-ball contact, which cushion piece each ball was
  touching at that instant (G20(2.3), (3.3)): a cushion id, 6 + pocket id for a jaw, or
  -1 for none.
If a table's log fills up, its `overflow` flag is set and the shot stops there: a
truncated log is never passed off as a whole one.

The log's JSON records (the `events` of `piramida simulate`'s output, docs/cli.md, "The JSON
contracts") are written (`to_records`) and read back (`log_from_json`, for
the referee) here, side by side, so that a new field is one edit; the rest of the
document is `physics.contract`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from piramida.physics.fields import FieldError, member, read_int, read_name, read_number, read_object
from piramida.physics.layouts import MAX_BALLS
from piramida.physics.table import CUSHION_NAMES, POCKET_NAMES

(
    NONE,
    STRIKE,
    BALL_BALL,
    CUSHION,
    JAW,
    POCKET,
    CENTRE_LINE,
    SLIDING_ROLLING,
    ROLLING_SPINNING,
    ROLLING_STATIONARY,
    SPINNING_STATIONARY,
    OFF_TABLE,
) = range(12)
KIND_NAMES: tuple[str, ...] = (
    "none",
    "strike",
    "ball-ball",
    "cushion",
    "jaw",
    "pocket",
    "centre-line",
    "sliding-rolling",
    "rolling-spinning",
    "rolling-stationary",
    "spinning-stationary",
    "off-table",  # never written by this planar kernel; the referee accepts it (G24)
)
TRANSITIONS = (SLIDING_ROLLING, ROLLING_SPINNING, ROLLING_STATIONARY, SPINNING_STATIONARY)
JAW_TOUCH_OFFSET = 6  # touch ids 6..11 are the jaws of pockets 0..5
DIRECTIONS = ("back-to-front", "front-to-back")  # a centre-line crossing's `b`: -1, +1
EVENT_FIELDS = ("t", "kind", "balls", "cushion", "pocket", "direction", "touching_cushion")
MIN_CAPACITY = 64  # event logs read from JSON are padded to a power of two at least this


@jax.tree_util.register_dataclass
@dataclass(frozen=True)
class EventLog:
    """Per-table event log of fixed capacity C (a pytree; leading axes are batch axes).

    Attributes:
      t: (..., C) event times (s from the strike); inf in unused slots.
      kind: (..., C) event kinds (`KIND_NAMES`); NONE in unused slots.
      a, b: (..., C) the event's ball and its partner id (see the module docstring).
      touch_a, touch_b: (..., C) cushion piece each ball touched at a ball-ball contact.
      count: (...,) how many slots are used.
      overflow: (...,) the log ran out of room before the shot ended.

    """

    t: Any
    kind: Any
    a: Any
    b: Any
    touch_a: Any
    touch_b: Any
    count: Any
    overflow: Any


def empty_log(capacity: int) -> EventLog:
    """A log with no events, for one table."""
    minus = jnp.full(capacity, -1, jnp.int32)
    return EventLog(
        t=jnp.full(capacity, jnp.inf),
        kind=jnp.zeros(capacity, jnp.int32),
        a=minus,
        b=minus,
        touch_a=minus,
        touch_b=minus,
        count=jnp.int32(0),
        overflow=jnp.bool_(False),
    )


def touch_name(touch: int) -> str | None:
    """Name of a touch id: a cushion, `jaw:<pocket>`, or None for -1."""
    if touch < 0:
        return None
    if touch < JAW_TOUCH_OFFSET:
        return CUSHION_NAMES[touch]
    return f"jaw:{POCKET_NAMES[touch - JAW_TOUCH_OFFSET]}"


def touches_json(touches: Iterable[tuple[int, Any]]) -> dict[str, str]:
    """`{"7": "back", "3": "jaw:middle-left"}`: each (ball, touch id) with a touch, keyed by ball id."""
    return {str(ball): name for ball, touch in touches if (name := touch_name(int(touch))) is not None}


def read_ball(value: Any, path: str) -> int:
    """A ball id 0..15."""
    return read_int(value, path, 0, MAX_BALLS - 1)


def read_pocket(value: Any, path: str) -> int:
    """A pocket by name (`POCKET_NAMES`)."""
    return read_name(value, path, POCKET_NAMES)


def read_touch(name: Any, path: str) -> int:
    """A touch id by name (`touch_name` read back): a cushion, or `jaw:<pocket>`."""
    if isinstance(name, str) and name.startswith("jaw:"):
        return JAW_TOUCH_OFFSET + read_pocket(name[4:], path)
    return read_name(name, path, CUSHION_NAMES)


def to_records(log: EventLog, table_index: int | None = None) -> list[dict[str, Any]]:
    """One table's events as JSON-ready dicts (the `piramida simulate` schema)."""
    host = jax.tree_util.tree_map(np.asarray, log)
    if table_index is not None:
        host = jax.tree_util.tree_map(lambda x: x[table_index], host)
    out: list[dict[str, Any]] = []
    for k in range(int(host.count)):
        kind, a, b = int(host.kind[k]), int(host.a[k]), int(host.b[k])
        entry: dict[str, Any] = {"t": float(host.t[k]), "kind": KIND_NAMES[kind]}
        if kind == BALL_BALL:
            entry["balls"] = [a, b]
            touching = touches_json(((a, host.touch_a[k]), (b, host.touch_b[k])))
            if touching:
                entry["touching_cushion"] = touching
        else:
            entry["balls"] = [a]
        if kind == CUSHION:
            entry["cushion"] = CUSHION_NAMES[b]
        elif kind in (JAW, POCKET):
            entry["pocket"] = POCKET_NAMES[b]
        elif kind == CENTRE_LINE:
            entry["direction"] = DIRECTIONS[b > 0]
        out.append(entry)
    return out


def _record(value: Any, path: str) -> tuple[float, int, int, int, int, int]:
    """One event record read back: (t, kind, a, b, touch_a, touch_b)."""
    e = read_object(value, path, EVENT_FIELDS)
    t = read_number(e.get("t"), f"{path}.t")
    kind = read_name(e.get("kind"), f"{path}.kind", KIND_NAMES[1:]) + 1
    balls = e.get("balls")
    wanted = 2 if kind == BALL_BALL else 1
    if not isinstance(balls, list) or len(balls) != wanted:
        raise FieldError(f"{path}.balls: expected a list of {wanted} ball id{'s' if wanted > 1 else ''}")
    lo = -1 if kind == STRIKE else 0
    a = read_int(balls[0], f"{path}.balls[0]", lo, MAX_BALLS - 1)
    b, touch_a, touch_b = -1, -1, -1
    if kind == BALL_BALL:
        b = read_ball(balls[1], f"{path}.balls[1]")
        touching = e.get("touching_cushion", {})
        if not isinstance(touching, dict):
            raise FieldError(f"{path}.touching_cushion: expected an object of ball id -> cushion piece")
        for key, name in touching.items():
            where = member(f"{path}.touching_cushion", key)
            if key not in (str(a), str(b)):
                raise FieldError(f"{where}: not a ball of this contact ({a} and {b})")
            if key == str(a):
                touch_a = read_touch(name, where)
            else:
                touch_b = read_touch(name, where)
    elif kind == CUSHION:
        b = read_name(e.get("cushion"), f"{path}.cushion", CUSHION_NAMES)
    elif kind in (JAW, POCKET):
        b = read_pocket(e.get("pocket"), f"{path}.pocket")
    elif kind == CENTRE_LINE and e.get("direction") is not None:
        # Optional: the referee counts crossings, not their direction (G20(2.2)).
        b = 1 if read_name(e.get("direction"), f"{path}.direction", DIRECTIONS) else -1
    return t, kind, a, b, touch_a, touch_b


def log_from_json(events: Any, overflow: bool = False, path: str = "result.events") -> EventLog:
    """An `EventLog` from the `to_records` records (padded to a power of two)."""
    if not isinstance(events, list):
        raise FieldError(f"{path}: expected a list of events")
    rows = [_record(e, f"{path}[{k}]") for k, e in enumerate(events)]
    for k in range(1, len(rows)):
        if rows[k][0] < rows[k - 1][0]:
            raise FieldError(f"{path}[{k}].t: events must be in time order")
    capacity = max(MIN_CAPACITY, 1 << max(len(rows), 1).bit_length())
    t = np.full(capacity, np.inf)
    columns = np.full((5, capacity), -1, np.int32)
    columns[0] = NONE
    for k, row in enumerate(rows):
        t[k] = row[0]
        columns[:, k] = row[1:]
    return EventLog(
        t=jnp.asarray(t),
        kind=jnp.asarray(columns[0]),
        a=jnp.asarray(columns[1]),
        b=jnp.asarray(columns[2]),
        touch_a=jnp.asarray(columns[3]),
        touch_b=jnp.asarray(columns[4]),
        count=jnp.int32(len(rows)),
        overflow=jnp.bool_(overflow),
    )
