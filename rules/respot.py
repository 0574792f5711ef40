"""Spotting balls back onto the table (G25.2 with A-22 and A-23; CLS-5.7, CLS-5.4, G24.4).

Geometry of G25.2 as settled here:

* The spotting line is the long axis x = width/2 (G2.1(6)). Balls are placed on it one at a
  time, in a random order drawn from the key (A-23: a seeded RNG, so a replay with the same
  key is identical).
* Each ball goes to the free point on the line nearest the back spot on its back-cushion
  side: the back spot itself if free (a single ball: G25.2; CLS-5.7), else just behind the
  obstruction (A-22: "from the back spot towards the back cushion"; A-23: an occupied back
  spot is an obstruction like any other). Balls already spotted are obstructions for the
  next, so a group lines up behind the back spot in the random order, `gap` apart ("as
  close to each other as possible, but they must not touch").
* A point is free if the ball there keeps a gap of at least `gap` to every ball on the
  table. A ball beside the line obstructs too (A-23) if its disc comes that close: a ball
  at perpendicular distance d from the line blocks the open interval of half-width
  sqrt((2R + gap)^2 - d^2) around its own y.
* The whole ball must stay on the cloth: a centre at most length - R. If no free point
  is left between the back spot and that limit ("no more room on the spotting line"),
  the ball goes to the free point nearest the back spot on its centre-spot side (G25.2's
  last sentence). The rules stop at the centre spot; here the line simply continues to
  the front cushion (y >= R). On a pyramid table this never matters: each of the 15
  other balls blocks at most 4R + 2 gap (14 cm) of the 3.5 m long axis.
* If even that fails (impossible on the pyramid tables, see above), the ball is left off
  the table at `OFF_TABLE_XY`; it never overlaps anything.

The first free point on one side of the back spot is always the back spot itself or the
edge of one obstruction's blocked interval, so each placement checks just those 1 + 16
candidates exactly (no search grid) and picks the nearest free one; a `lax.scan` over the
16 slots in the random order places the balls. Jit- and vmap-able.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from piramida.physics import markings
from piramida.rules.ids import N_BALLS, OFF_TABLE_XY

# "as close as possible but not touching" is a 0.5 mm gap between spotted balls and
# their neighbours. It exceeds the "touching" epsilon (ids.CONTACT_TOLERANCE, 0.1 mm), so a
# spotted ball is never judged frozen to another.
SPOT_GAP = 5e-4

# Rounding slack when a candidate on the edge of one blocked interval is tested against
# the same interval (the edge is exactly `gap` away, up to float64 rounding of y ~ 3 m).
_EDGE_SLACK = 1e-10


def blocked_intervals(
    positions: Any, obstacles: Any, width: Any, R: Any, gap: Any = SPOT_GAP
) -> tuple[Any, Any]:
    """The along-line interval each obstruction blocks on the spotting line.

    A ball at perpendicular distance d < 2R + gap from the long axis blocks the open
    interval (y - h, y + h) with h = sqrt((2R + gap)^2 - d^2): a ball centred there would
    come closer than `gap` to it (A-23: balls beside the line obstruct too).

    Args:
        positions: (16, 2) centres. obstacles: (16,) bool, the balls on the table.
        width: table width (m). R: ball radius (m). gap: the least gap allowed (m).

    Returns:
        half-widths h (16,) and blocks (16,) bool (the ball is on the table and near enough).

    """
    reach = 2 * jnp.asarray(R) + gap
    d = jnp.abs(jnp.asarray(positions)[:, 0] - jnp.asarray(width) / 2)
    blocks = jnp.asarray(obstacles, bool) & (d < reach)
    h = jnp.sqrt(jnp.maximum(reach**2 - d**2, 0.0))
    return jnp.where(blocks, h, 0.0), blocks


def spot_point(
    positions: Any, obstacles: Any, width: Any, length: Any, R: Any, gap: Any = SPOT_GAP
) -> tuple[Any, Any]:
    """Where the next ball goes on the spotting line (G25.2, A-22, A-23).

    Returns:
        the centre (2,), and whether a free point was found (bool). The point is the
        nearest free one to the back spot on the back-cushion side (up to length - R),
        else the nearest on the centre-spot side (down to R).

    """
    h, blocks = blocked_intervals(positions, obstacles, width, R, gap)
    y = jnp.asarray(positions)[:, 1]
    spot_y = markings.back_spot(width, length)[1]

    def free(c: Any) -> Any:
        inside = blocks[None, :] & (jnp.abs(c[:, None] - y[None, :]) < h[None, :] - _EDGE_SLACK)
        return ~jnp.any(inside, axis=1)

    valid = jnp.concatenate([jnp.array([True]), blocks])
    behind = jnp.concatenate([spot_y[None], y + h])  # towards the back cushion
    ok_behind = valid & free(behind) & (behind >= spot_y) & (behind <= jnp.asarray(length) - R)
    before = jnp.concatenate([spot_y[None], y - h])  # towards the centre spot
    ok_before = valid & free(before) & (before <= spot_y) & (before >= R)

    y_behind = jnp.min(jnp.where(ok_behind, behind, jnp.inf))
    y_before = jnp.max(jnp.where(ok_before, before, -jnp.inf))
    found_behind, found_before = jnp.any(ok_behind), jnp.any(ok_before)
    chosen = jnp.where(found_behind, y_behind, jnp.where(found_before, y_before, spot_y))
    return jnp.stack([jnp.asarray(width) / 2, chosen]), found_behind | found_before


def respot(
    positions: Any,
    on_table: Any,
    to_spot: Any,
    key: Any,
    width: Any,
    length: Any,
    R: Any,
    gap: Any = SPOT_GAP,
) -> Any:
    """Put the balls marked `to_spot` back on the spotting line (G25.1, G25.2, A-22, A-23).

    Args:
        positions: (16, 2) centres. on_table: (16,) bool, the balls on the bed.
        to_spot: (16,) bool, the balls to spot (illegally pocketed, jumped, uncalled:
            G22.4, G24.4, CLS-5.4; the last pocketed ball of CLS-5.7). A ball marked here
            is lifted first even if it is marked on the table.
        key: PRNG key for G25.2's random order.
        width, length: playing area (m). R: ball radius (m). gap: least gap (m), A-23.

    Returns:
        (16, 2) positions: spotted balls on the long axis, every other ball where it was.
        The new on-table mask is `on_table | to_spot` (a ball that found no room, which
        cannot happen on the pyramid tables, is left at `OFF_TABLE_XY`).

    """
    positions = jnp.asarray(positions, dtype=jnp.result_type(float))
    to_spot = jnp.asarray(to_spot, bool)
    obstacles = jnp.asarray(on_table, bool) & ~to_spot
    order = jax.random.permutation(key, N_BALLS)

    def place(carry: tuple[Any, Any], ball: Any) -> tuple[tuple[Any, Any], None]:
        xy, occupied = carry
        point, found = spot_point(xy, occupied, width, length, R, gap)
        new = jnp.where(found, point, jnp.asarray(OFF_TABLE_XY))
        xy = xy.at[ball].set(jnp.where(to_spot[ball], new, xy[ball]))
        occupied = occupied.at[ball].set(occupied[ball] | (to_spot[ball] & found))
        return (xy, occupied), None

    (positions, _), _ = jax.lax.scan(place, (positions, obstacles), order)
    return positions


def respot_ball(positions: Any, on_table: Any, ball: Any, width: Any, length: Any, R: Any) -> Any:
    """Spot one ball on the back spot, or as close behind as G25.2/A-23 allow (CLS-5.7).

    CLS-5.7 (70:70) puts the last pocketed ball back on the back spot; a single ball needs
    no random order, so no key. Returns the (16, 2) positions.
    """
    to_spot = jnp.arange(N_BALLS) == ball
    return respot(positions, on_table, to_spot, jax.random.PRNGKey(0), width, length, R)
