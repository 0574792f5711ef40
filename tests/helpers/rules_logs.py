"""Hand-written event logs and start snapshots for referee tests, without the physics kernel.

A log is a list of events, one tuple each, in time order; `log_of` packs them into an
`EventLog` of fixed capacity, as the kernel would have written them. Kinds and names are
those of the `piramida simulate` JSON (docs/cli.md), or the short ids of docs/rules/specification.md III:

    ("ball-ball", 0, 5)                          # balls 0 and 5 meet
    ("ball-ball", 0, 5, {"touching": {5: "back"}})  # ... while 5 touches the back cushion
    ("cushion", 5, "back")      ("cushion", 5, "LB")      # a cushion segment
    ("jaw", 5, "middle-left")   ("jaw", 5, "ML")          # a pocket jaw (face or nose)
    ("pocket", 5, "front-left")                           # ball 5 falls into FL
    ("centre-line", 5, "front-to-back")  ("centre-line", 5, -1)  # direction or +1 / -1
    ("off-table", 5)                                      # G24: ball 5 jumped
    ("strike", 0)  ("rolling-stationary", 5)              # the other kinds

Every tuple may end in an options dict: `{"t": 1.25}` sets the event time (otherwise
events are 0.1 s apart, after the previous one), `{"touching": {ball: piece}}` says which
cushion piece a ball of a ball-ball contact was touching (a cushion, or "jaw:<pocket>").

    log = log_of([("ball-ball", 0, 5), ("cushion", 5, "back"), ("cushion", 5, "LF")])
    start = snapshot_of(frozen={7: "back"}, touching=[(0, 3)], on_centre_line=[9])
    facts = shot_facts(log, start, own_ball=0, object_mask=mask_of(range(1, 16)), ...)

`stack` puts several logs (or snapshots, or masks) on a leading batch axis for `vmap`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from piramida.physics import events as ev
from piramida.physics.kernel import Snapshot
from piramida.physics.table import CUSHION_NAMES, POCKET_NAMES

N_BALLS = 16
CAPACITY = 32
STEP = 0.1  # s between events whose time is not given (more than one collision apart, G20-N2)

_CUSHION_SHORT = ("F", "B", "LF", "LB", "RF", "RB")
_POCKET_SHORT = ("FL", "FR", "ML", "MR", "BL", "BR")
_DIRECTIONS = {"front-to-back": 1, "back-to-front": -1, 1: 1, -1: -1}


def cushion_id(name: str | int) -> int:
    """A cushion segment by name ("left-front"), short id ("LF") or number (0-5)."""
    if isinstance(name, int):
        return name
    if name in CUSHION_NAMES:
        return CUSHION_NAMES.index(name)
    if name in _CUSHION_SHORT:
        return _CUSHION_SHORT.index(name)
    raise ValueError(f"unknown cushion {name!r}; one of {CUSHION_NAMES} or {_CUSHION_SHORT}")


def pocket_id(name: str | int) -> int:
    """A pocket by name ("middle-left"), short id ("ML") or number (0-5)."""
    if isinstance(name, int):
        return name
    if name in POCKET_NAMES:
        return POCKET_NAMES.index(name)
    if name in _POCKET_SHORT:
        return _POCKET_SHORT.index(name)
    raise ValueError(f"unknown pocket {name!r}; one of {POCKET_NAMES} or {_POCKET_SHORT}")


def piece_id(name: str | int | None) -> int:
    """A cushion piece as the log's touch ids: a cushion (0-5), "jaw:<pocket>" (6 + pocket), None (-1)."""
    if name is None:
        return -1
    if isinstance(name, str) and name.startswith("jaw:"):
        return ev.JAW_TOUCH_OFFSET + pocket_id(name[4:])
    return cushion_id(name)


def log_of(events: Iterable[Sequence[Any]], capacity: int = CAPACITY, overflow: bool = False) -> ev.EventLog:
    """An `EventLog` of fixed capacity holding `events` (see the module docstring)."""
    rows: list[tuple[float, int, int, int, int, int]] = []
    t = 0.0
    for event in events:
        event = list(event)
        options: dict[str, Any] = event.pop() if event and isinstance(event[-1], dict) else {}
        name, *args = event
        kind = ev.KIND_NAMES.index(name)
        t = float(options.get("t", t + STEP if rows else 0.0))
        a, b, touch_a, touch_b = int(args[0]) if args else -1, -1, -1, -1
        if kind == ev.BALL_BALL:
            b = int(args[1])
            touching = options.get("touching", {})
            touch_a, touch_b = piece_id(touching.get(a)), piece_id(touching.get(b))
        elif kind == ev.CUSHION:
            b = cushion_id(args[1])
        elif kind in (ev.JAW, ev.POCKET):
            b = pocket_id(args[1])
        elif kind == ev.CENTRE_LINE:
            b = _DIRECTIONS[args[1]]
        rows.append((t, kind, a, b, touch_a, touch_b))
    if len(rows) > capacity:
        raise ValueError(f"{len(rows)} events do not fit a log of capacity {capacity}")
    log = ev.empty_log(capacity)
    count = len(rows)
    columns = list(zip(*rows, strict=True)) if rows else [()] * 6

    def fill(empty: Any, values: Sequence[Any]) -> Any:
        out = np.asarray(empty).copy()
        out[:count] = values
        return jnp.asarray(out)

    return ev.EventLog(
        t=fill(log.t, columns[0]),
        kind=fill(log.kind, columns[1]),
        a=fill(log.a, columns[2]),
        b=fill(log.b, columns[3]),
        touch_a=fill(log.touch_a, columns[4]),
        touch_b=fill(log.touch_b, columns[5]),
        count=jnp.int32(count),
        overflow=jnp.bool_(overflow),
    )


def snapshot_of(
    frozen: Mapping[int, str | int] | None = None,
    touching: Iterable[tuple[int, int]] = (),
    on_centre_line: Iterable[int] = (),
    n_balls: int = N_BALLS,
) -> Snapshot:
    """A start `Snapshot`: balls frozen to a cushion piece, touching pairs, centres on the line.

    Args:
      frozen: ball -> the cushion piece it touches at shot start ("back", "LF", "jaw:ML").
      touching: pairs of balls touching each other (stored both ways).
      on_centre_line: balls whose centre is on the centre line (G20-N3).
      n_balls: N.

    """
    cushion = np.full(n_balls, -1, np.int32)
    for ball, name in (frozen or {}).items():
        cushion[ball] = piece_id(name)
    pairs = np.zeros((n_balls, n_balls), bool)
    for i, j in touching:
        pairs[i, j] = pairs[j, i] = True
    line = np.zeros(n_balls, bool)
    line[list(on_centre_line)] = True
    return Snapshot(
        cushion=jnp.asarray(cushion), touching=jnp.asarray(pairs), on_centre_line=jnp.asarray(line)
    )


def mask_of(balls: Iterable[int], n_balls: int = N_BALLS) -> Any:
    """(n_balls,) bool mask with the given balls set."""
    mask = np.zeros(n_balls, bool)
    mask[list(balls)] = True
    return jnp.asarray(mask)


def declared_of(frozen: Mapping[int, str | int], n_balls: int = N_BALLS) -> Any:
    """(n_balls,) int: the cushion piece each ball was declared frozen against (G20-N2), -1 if not."""
    out = np.full(n_balls, -1, np.int32)
    for ball, name in frozen.items():
        out[ball] = piece_id(name)
    return jnp.asarray(out)


def stack(items: Sequence[Any]) -> Any:
    """Pytrees of equal structure (logs, snapshots, masks) stacked on a new leading axis."""
    return jax.tree_util.tree_map(lambda *x: jnp.stack([jnp.asarray(v) for v in x]), *items)
