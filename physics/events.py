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
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

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
            touching = {
                str(ball): name
                for ball, touch in ((a, int(host.touch_a[k])), (b, int(host.touch_b[k])))
                if (name := touch_name(touch)) is not None
            }
            if touching:
                entry["touching_cushion"] = touching
        else:
            entry["balls"] = [a]
        if kind == CUSHION:
            entry["cushion"] = CUSHION_NAMES[b]
        elif kind in (JAW, POCKET):
            entry["pocket"] = POCKET_NAMES[b]
        elif kind == CENTRE_LINE:
            entry["direction"] = "front-to-back" if b > 0 else "back-to-front"
        out.append(entry)
    return out
