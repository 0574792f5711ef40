"""Ball layouts: a state from positions, the triangle rack's geometry, random layouts.

The rack's rules (which ball goes where, G8 and CLS-3) belong to the referee; this module
only knows geometry.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from piramida.physics.motion import ABSENT, STATIONARY, BallState
from piramida.physics.runtime import in_float64

MAX_BALLS = 16  # ids 0 (the coloured ball) to 15
# Racked balls stand this far apart (m) instead of touching: exactly touching balls
# would all have to be resolved at the same instant. 1 micrometre changes no break
# statistic measurably and keeps every contact a separate, ordered event.
RACK_GAP = 1e-6


@in_float64
def at_rest(positions: Any, ids: Any = None, slots: int = MAX_BALLS) -> BallState:
    """A table with balls at rest at `positions` (n, 2); ids default to 0..n-1.

    Ids without a position are ABSENT (not on the table).
    """
    positions = np.asarray(positions, dtype=np.float64).reshape(-1, 2)
    ids = np.arange(len(positions)) if ids is None else np.asarray(ids, dtype=np.int64)
    r = np.zeros((slots, 2))
    s = np.full(slots, ABSENT, dtype=np.int32)
    r[ids] = positions
    s[ids] = STATIONARY
    return BallState(r=jnp.asarray(r), v=jnp.zeros((slots, 2)), w=jnp.zeros((slots, 3)), s=jnp.asarray(s))


def triangle(apex: Any, rows: int, R: float, gap: float = RACK_GAP, pointing: float = -1.0) -> np.ndarray:
    """Centres of a triangle rack, row by row, each row left to right, (rows(rows+1)/2, 2).

    The apex is at `apex`; rows extend in +y when `pointing` is -1 (apex towards the
    front cushion, as in G8.1), with neighbours `2R + gap` apart.
    """
    pitch = 2 * R + gap
    centres = []
    for row in range(rows):
        y = apex[1] - pointing * row * pitch * np.sqrt(3) / 2
        for k in range(row + 1):
            centres.append((apex[0] + (k - row / 2) * pitch, y))
    return np.asarray(centres)


@in_float64
def random_layout(key: Any, width: float, length: float, n: int, R: float, margin: float = 1e-3) -> Any:
    """N non-overlapping ball centres drawn uniformly on the cloth, (n, 2) (jit-able).

    Rejection sampling on a fixed grid of candidates: each ball takes the first candidate
    that overlaps no earlier ball, so the result is deterministic for a key.
    """
    candidates = 64
    lo = jnp.array([R + margin, R + margin])
    hi = jnp.array([width - R - margin, length - R - margin])
    trials = jax.random.uniform(key, (n, candidates, 2), minval=lo, maxval=hi)

    def place(placed: Any, k: Any) -> tuple[Any, Any]:
        gaps = jnp.linalg.norm(trials[k][:, None] - placed[None], axis=-1)
        ok = jnp.all((gaps > 2 * R + margin) | (jnp.arange(n)[None] >= k), axis=1)
        choice = trials[k][jnp.argmax(ok)]
        return placed.at[k].set(choice), None

    placed, _ = jax.lax.scan(place, jnp.full((n, 2), -1e3), jnp.arange(n))
    return placed


def break_positions(width: float, length: float, R: float, cue_x: float | None = None) -> np.ndarray:
    """16 centres for a break: ball 0 in the house, balls 1-15 racked (G8.1), (16, 2).

    The rack's apex stands on the back spot; the own ball sits on the long axis (or at
    `cue_x`) a quarter of the house's depth in front of the house line (G10, G11).
    """
    rack = triangle((width / 2, 3 * length / 4), rows=5, R=R)
    cue = (width / 2 if cue_x is None else cue_x, length / 4 - length / 16)
    return np.vstack([np.asarray(cue)[None], rack])
