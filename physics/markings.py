"""The spots, lines and zones of rules G2 and G10, as functions the referee can use.

All take the table's `width` and `length` (floats or traced arrays) so they work in plain
Python and inside `jit`. Positions are ball centres (rule G9 judges by the centre).
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp


def centre_spot(width: Any, length: Any) -> Any:
    """G2.1(1): the centre of the table."""
    return jnp.stack([jnp.asarray(width) / 2, jnp.asarray(length) / 2])


def centre_line_y(length: Any) -> Any:
    """G2.1(2): the line through the centre spot, parallel to the short cushions."""
    return jnp.asarray(length) / 2


def front_spot(width: Any, length: Any) -> Any:
    """G2.1(3): the middle of the front half."""
    return jnp.stack([jnp.asarray(width) / 2, jnp.asarray(length) / 4])


def house_line_y(length: Any) -> Any:
    """G2.1(4): the house line, through the front spot."""
    return jnp.asarray(length) / 4


def back_spot(width: Any, length: Any) -> Any:
    """G2.1(5): the middle of the back half, where the rack's apex stands (G8.1)."""
    return jnp.stack([jnp.asarray(width) / 2, 3 * jnp.asarray(length) / 4])


def spotting_line(width: Any, length: Any) -> tuple[Any, Any]:
    """G2.1(6): the long axis from the back spot to the back cushion, as (start, end)."""
    return back_spot(width, length), jnp.stack([jnp.asarray(width) / 2, jnp.asarray(length)])


def in_house(xy: Any, length: Any) -> Any:
    """G2.2 and G10: strictly between the front cushion and the house line.

    A centre on the house line is not in the house (G10). `xy` is (..., 2).
    """
    return jnp.asarray(xy)[..., 1] < house_line_y(length)


# "On a line" within this distance of it (m): the rules' epsilon (docs/rules/specification.md III.6, 0.1 mm).
ON_LINE_TOLERANCE = 1e-4


def centre_line_side(xy: Any, length: Any, tolerance: float = ON_LINE_TOLERANCE) -> Any:
    """Which half a centre lies in: -1 front, +1 back, 0 on the centre line.

    The tolerance is the rules' epsilon for "on the line" (docs/rules/specification.md III.6, 0.1 mm).
    """
    offset = jnp.asarray(xy)[..., 1] - centre_line_y(length)
    return jnp.where(jnp.abs(offset) <= tolerance, 0, jnp.sign(offset)).astype(jnp.int32)
