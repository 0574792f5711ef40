"""Ball in hand: where the own ball may be placed, and a default place (G10, G11, G21.2, DYN-5.2).

Regions (`ids.HOUSE`, `ids.TEMPORARY_HOUSE`, `ids.ANYWHERE`):

* HOUSE (G2.2, G10, G11.3, A-25): the centre strictly in front of the house line. A-25
  asks for a tolerance: a centre within `line_tolerance` (default the rules' epsilon,
  `CONTACT_TOLERANCE` = 0.1 mm) of the line counts as on the line, so not in the house.
* TEMPORARY_HOUSE (G21.2, A-24(c)): "the opposite side of the table", the area between
  the line through the back spot parallel to the back cushion and the back cushion; the
  line itself is excluded as in G10, with the same tolerance.
* ANYWHERE (DYN-5.2, DYN-7(2)): the whole bed.

Everywhere the whole ball must be on the cloth (its centre at least R from every cushion
nose line; pockets are ignored) and it must neither overlap nor touch a ball on the table:
the gap must exceed `CONTACT_TOLERANCE`, the rules' "touching" epsilon (docs/rules/specification.md III.6).
A-25 would allow touching; a ball placed frozen to another would make its first shot a
G19.2 case, so the referee does not place one there.

All functions are pure and jit/vmap-able; `region` may be traced.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from piramida.physics import markings
from piramida.rules.ids import ANYWHERE, CONTACT_TOLERANCE, HOUSE, N_BALLS, OFF_TABLE_XY, TEMPORARY_HOUSE

# The default policy's candidate grid: GRID x GRID points spread over the region's box
# (centres R from the cushions, short of the region's line by the tolerance). On the
# 12 ft table this is about 4 cm x 2 cm in a house zone, finer than a ball.
GRID = 41
# A coarser grid for callers that place a ball on every move of a large batch (bots, the
# environments' action decoding): about 10 cm x 5 cm in the house, 10 times cheaper; the
# preferred point and its clamp into the region are still tried first.
COARSE_GRID = 13


def region_bounds(
    region: Any, width: Any, length: Any, R: Any, line_tolerance: Any = CONTACT_TOLERANCE
) -> Any:
    """The closed box a centre must lie in, as (x_lo, x_hi, y_lo, y_hi), each a scalar.

    The region's line (house line, or the line through the back spot) is an open bound
    and is returned as the bound itself; `in_region` tests it strictly.
    """
    R = jnp.asarray(R)
    house = markings.house_line_y(length) - line_tolerance
    temporary = markings.back_spot(width, length)[1] + line_tolerance
    y_lo = jnp.where(region == TEMPORARY_HOUSE, temporary, R)
    y_hi = jnp.where(region == HOUSE, house, jnp.asarray(length) - R)
    return R, jnp.asarray(width) - R, y_lo, y_hi


def in_region(xy: Any, region: Any, width: Any, length: Any, line_tolerance: Any = CONTACT_TOLERANCE) -> Any:
    """Whether a centre is inside the region (G10, G21.2 / A-24(c)), ignoring the cushions; (...,) bool.

    HOUSE: y < house line - tolerance (a centre on the line is not in the house, G10.2).
    TEMPORARY_HOUSE: y > back spot line + tolerance. ANYWHERE: always.
    """
    y = jnp.asarray(xy)[..., 1]
    house = y < markings.house_line_y(length) - line_tolerance
    temporary = y > markings.back_spot(width, length)[1] + line_tolerance
    return jnp.where(
        region == HOUSE, house, jnp.where(region == TEMPORARY_HOUSE, temporary, region == ANYWHERE)
    )


def on_cloth(xy: Any, width: Any, length: Any, R: Any) -> Any:
    """Whether the whole ball lies on the bed: centre at least R from every cushion nose, (...,) bool."""
    xy = jnp.asarray(xy)
    x, y = xy[..., 0], xy[..., 1]
    return (x >= R) & (x <= jnp.asarray(width) - R) & (y >= R) & (y <= jnp.asarray(length) - R)


def clear_of_balls(xy: Any, positions: Any, on_table: Any, R: Any) -> Any:
    """Whether a ball at `xy` (..., 2) neither overlaps nor touches a ball on the table, (...,) bool.

    The gap between the discs must exceed `CONTACT_TOLERANCE` (gap <= epsilon is
    "touching", docs/rules/specification.md III.6).
    """
    distance = jnp.linalg.norm(jnp.asarray(xy)[..., None, :] - jnp.asarray(positions), axis=-1)
    clear = distance - 2 * jnp.asarray(R) > CONTACT_TOLERANCE
    return jnp.all(clear | ~jnp.asarray(on_table, bool), axis=-1)


def placement_ok(
    xy: Any,
    region: Any,
    positions: Any,
    on_table: Any,
    width: Any,
    length: Any,
    R: Any,
    line_tolerance: Any = CONTACT_TOLERANCE,
) -> Any:
    """Whether the own ball may be placed by hand with its centre at `xy` (G9, G10, G11.3, G21.2).

    Args:
        xy: (..., 2) candidate centre(s).
        region: HOUSE, TEMPORARY_HOUSE or ANYWHERE (int, may be traced).
        positions: (16, 2) ball centres; on_table: (16,) bool, the balls on the bed. The
            ball being placed must not be marked on the table (it is in hand).
        width, length: playing area (m). R: ball radius (m).
        line_tolerance: A-25's epsilon for "on the region's line" (m).

    Returns:
        (...,) bool: centre strictly inside the region, whole ball on the cloth, and a gap
        over `CONTACT_TOLERANCE` to every ball on the table.

    """
    return (
        in_region(xy, region, width, length, line_tolerance)
        & on_cloth(xy, width, length, R)
        & clear_of_balls(xy, positions, on_table, R)
    )


def natural_point(region: Any, width: Any, length: Any) -> Any:
    """The default policy's preferred point for a region, (2,).

    HOUSE: on the long axis a quarter of the house's depth in front of the house line (as
    `physics.layouts.break_positions`); TEMPORARY_HOUSE: its mirror behind the back spot;
    ANYWHERE: the centre spot.
    """
    width, length = jnp.asarray(width), jnp.asarray(length)
    y = jnp.where(
        region == HOUSE,
        length / 4 - length / 16,
        jnp.where(region == TEMPORARY_HOUSE, 3 * length / 4 + length / 16, length / 2),
    )
    return jnp.stack([width / 2, y])


def default_placement(
    region: Any,
    positions: Any,
    on_table: Any,
    width: Any,
    length: Any,
    R: Any,
    preferred: Any = None,
    line_tolerance: Any = CONTACT_TOLERANCE,
    grid: int = GRID,
) -> Any:
    """The default policy's place for a ball in hand, (2,) (G11.1, G21.2, DYN-5.2).

    The policy: `preferred` (default `natural_point(region)`) if `placement_ok`; else the
    legal candidate nearest to it, from a fixed candidate set: `preferred` clamped into the
    region's box, and a `grid` x `grid` grid over that box (`GRID`; `COARSE_GRID` for bots).
    Whenever any candidate is legal, a legal point is returned. If none is (the region is
    crowded beyond what 15 other balls can do on a pyramid table), the result is NaN, so
    that it cannot pass for a position.

    Args: as `placement_ok`, with `preferred` an optional (2,) point and `grid` (static).
    """
    if preferred is None:
        preferred = natural_point(region, width, length)
    preferred = jnp.asarray(preferred, dtype=jnp.result_type(float))
    x_lo, x_hi, y_lo, y_hi = region_bounds(region, width, length, R, line_tolerance)
    # Grid points sit strictly inside the box (the open line bound is never a candidate).
    u = jnp.asarray((np.arange(grid) + 0.5) / grid)
    gx, gy = jnp.meshgrid(x_lo + u * (x_hi - x_lo), y_lo + u * (y_hi - y_lo), indexing="ij")
    points = jnp.stack([gx.ravel(), gy.ravel()], axis=-1)
    # The clamped point is nudged inside the open bound by a micrometre of the box.
    margin = 1e-6 * (y_hi - y_lo)
    clamped = jnp.stack(
        [jnp.clip(preferred[0], x_lo, x_hi), jnp.clip(preferred[1], y_lo + margin, y_hi - margin)]
    )
    candidates = jnp.concatenate([preferred[None], clamped[None], points])
    ok = placement_ok(candidates, region, positions, on_table, width, length, R, line_tolerance)
    distance = jnp.linalg.norm(candidates - preferred, axis=-1)
    best = jnp.argmin(jnp.where(ok, distance, jnp.inf))
    return jnp.where(jnp.any(ok), candidates[best], jnp.nan)


def placements(
    placing: Any,
    regions: Any,
    positions: Any,
    on_table: Any,
    preferred: Any,
    width: Any,
    length: Any,
    R: Any,
    grid: int = COARSE_GRID,
) -> Any:
    """(B, 2): `default_placement` on each table of a batch where `placing`, `OFF_TABLE_XY` elsewhere.

    Most tables of a game in progress place nothing, and the grid search costs about as
    much as a move's referee when every table runs it (14 ms for 1,024 tables, 13 x 13 on
    this project's CPU). Where the preferred point is legal it is the place (the policy's
    first candidate, at distance 0), so only the tables whose preferred point is not legal
    are searched: a break's house is empty, and most balls in hand go where they are
    asked. None searched where no table needs it; up to a sixteenth of the batch (at least
    one table) gathered and searched; where more tables need it, all. The places are the
    same either way.

    Args: `placing` (B,) bool, `regions` (B,), `positions` (B, 16, 2), `on_table` (B, 16),
    `preferred` (B, 2); the rest as `default_placement`.
    """
    batch = placing.shape[0]
    bucket = max(1, batch // 16)
    preferred = jnp.asarray(preferred, dtype=jnp.result_type(float))
    search = jax.vmap(lambda r, p, o, q: default_placement(r, p, o, width, length, R, q, grid=grid))
    nowhere = jnp.broadcast_to(jnp.asarray(OFF_TABLE_XY, preferred.dtype), preferred.shape)
    legal = jax.vmap(lambda q, r, p, o: placement_ok(q, r, p, o, width, length, R))(
        preferred, regions, positions, on_table
    )
    asked = jnp.where((placing & legal)[:, None], preferred, nowhere)
    searching = placing & ~legal

    def few() -> Any:
        # Rows past the searching tables repeat table 0, and write what table 0's row holds.
        (index,) = jnp.nonzero(searching, size=bucket, fill_value=0)
        found = search(regions[index], positions[index], on_table[index], preferred[index])
        return asked.at[index].set(jnp.where(searching[index][:, None], found, asked[index]))

    def every() -> Any:
        return jnp.where(searching[:, None], search(regions, positions, on_table, preferred), asked)

    count = jnp.sum(searching)
    return lax.switch((count > 0).astype(jnp.int32) + (count > bucket), [lambda: asked, few, every])


def house_region(
    positions: Any, on_table: Any, own: Any, length: Any, line_tolerance: Any = CONTACT_TOLERANCE
) -> Any:
    """The from-hand region of a house shot: HOUSE, or TEMPORARY_HOUSE when G21.2 applies.

    G21.2 with A-24(b): if all object balls on the table are in the house zone (and there
    is at least one), the shot is played from the opposite end, which temporarily becomes
    the house zone. `own` is the id of the ball in hand; it is never an object ball here.
    "In the house" is `in_region(..., HOUSE)`'s test, house-line tolerance included (A-25).
    """
    objects = jnp.asarray(on_table, bool) & (jnp.arange(N_BALLS) != own)
    inside = jnp.asarray(positions)[:, 1] < markings.house_line_y(length) - line_tolerance
    all_inside = jnp.any(objects) & jnp.all(inside | ~objects)
    return jnp.where(all_inside, TEMPORARY_HOUSE, HOUSE)
