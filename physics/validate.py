"""Input checks for `simulate`: clear errors before a bad layout or strike is run.

The kernel itself never raises (it runs under `jit`); these run on the host, on the
arrays the caller is about to pass, and name the table, ball and field that is wrong.
"""

from __future__ import annotations

import numpy as np

from piramida.physics.layouts import MAX_BALLS
from piramida.physics.motion import ABSENT, POCKETED, BallState
from piramida.physics.strike import MAX_ELEVATION, MAX_SPEED, MAX_TIP_OFFSET, Strike
from piramida.physics.table import Table

# Balls may touch (a rack, frozen balls) but not overlap by more than this (m).
OVERLAP_TOLERANCE = 1e-9


class InputError(ValueError):
    """Bad input to the kernel; the message names the table, ball and field."""


def _where(table_index: int, batch: bool) -> str:
    return f"table {table_index}: " if batch else ""


def check_balls(table: Table, balls: BallState, R: float, reach: float | None = None) -> None:
    """Raise `InputError` for NaN, off-cloth or overlapping balls, and bad shapes.

    Args:
      balls: (B, N, ...) batched ball states.
      R: ball radius (balls may not overlap).
      reach: how close a centre may come to a cushion nose line: the contact distance of
        the cushion model (R cos(theta) where the nose meets the ball above its equator,
        so a ball frozen to a cushion is valid), R if None.

    """
    reach = R if reach is None else reach
    r, v, w, s = (np.asarray(x) for x in (balls.r, balls.v, balls.w, balls.s))
    if r.ndim != 3 or r.shape[-1] != 2 or r.shape[1] > MAX_BALLS:
        raise InputError(f"balls: expected positions of shape (tables, <= {MAX_BALLS}, 2), got {r.shape}")
    width, length = float(table.width), float(table.length)
    for name, values in (("x/y", r), ("v", v), ("w", w)):
        bad = ~np.isfinite(values).all(axis=-1) & (s != ABSENT)
        if bad.any():
            k, ball = np.argwhere(bad)[0]
            raise InputError(f"{_where(k, len(r) > 1)}ball {ball}: {name} is not a finite number")
    on_table = (s != ABSENT) & (s != POCKETED)
    x, y = r[..., 0], r[..., 1]
    inside = np.minimum(np.minimum(x - reach, width - reach - x), np.minimum(y - reach, length - reach - y))
    off = on_table & (inside < 0) & ~np.isclose(inside, 0, atol=1e-12)
    if off.any():
        k, ball = np.argwhere(off)[0]
        raise InputError(
            f"{_where(k, len(r) > 1)}ball {ball}: centre ({x[k, ball]:.4f}, {y[k, ball]:.4f}) is off the "
            f"cloth: a centre must be at least {reach:.5f} m inside the cushion nose lines, "
            f"x in [{reach:.5f}, {width - reach:.4f}], y in [{reach:.5f}, {length - reach:.4f}]"
        )
    gaps = np.linalg.norm(r[:, :, None] - r[:, None], axis=-1) - 2 * R
    both = on_table[:, :, None] & on_table[:, None]
    n = r.shape[1]
    overlap = both & (gaps < -OVERLAP_TOLERANCE) & ~np.eye(n, dtype=bool)[None]
    if overlap.any():
        k, i, j = np.argwhere(overlap)[0]
        raise InputError(f"{_where(k, len(r) > 1)}balls {i} and {j} overlap by {-gaps[k, i, j] * 1e3:.3f} mm")


def check_strikes(strikes: Strike, balls: BallState) -> None:
    """Raise `InputError` for a strike on a missing ball or outside the accepted ranges.

    Vectorised over the batch: the first bad table is reported.
    """
    s = np.asarray(balls.s)
    batch = len(s) > 1
    f = {
        name: np.broadcast_to(np.asarray(getattr(strikes, name), dtype=np.float64), (len(s),))
        for name in ("ball", "speed", "phi", "theta", "a", "b")
    }

    def fail(bad: np.ndarray, message: str) -> None:
        if bad.any():
            k = int(np.argmax(bad))
            raise InputError(_where(k, batch) + message.format(**{n: v[k] for n, v in f.items()}))

    for name in f:
        fail(~np.isfinite(f[name]), f"strike.{name}: not a finite number")
    ball = f["ball"]
    fail(
        (ball != np.round(ball)) | (ball < 0) | (ball >= s.shape[1]),
        f"strike.ball: unknown ball id {{ball}}; ids are 0..{s.shape[1] - 1}",
    )
    state = s[np.arange(len(s)), ball.astype(np.int64)]
    fail((state == ABSENT) | (state == POCKETED), "strike.ball: ball {ball:.0f} is not on the table")
    fail(
        ~((f["speed"] > 0) & (f["speed"] <= MAX_SPEED)),
        f"strike.speed: {{speed}} m/s is outside (0, {MAX_SPEED}]",
    )
    fail(
        ~((f["theta"] >= 0) & (f["theta"] <= MAX_ELEVATION)),
        f"strike.theta: {{theta}} degrees is outside [0, {MAX_ELEVATION}]",
    )
    offset = np.hypot(f["a"], f["b"])
    f["offset"] = offset
    fail(
        offset > MAX_TIP_OFFSET,
        f"strike.a/b: tip offset {{offset:.3f}} R is beyond {MAX_TIP_OFFSET} R (a miscue)",
    )
