"""Placing the balls of a contact a hair apart before it is resolved ("make kiss").

At the event time the contact distance is reached to float64 precision, so a ball may sit
a rounding error inside another ball or a cushion. As pooltool-billiards 0.6 does, each
contact first moves its balls back along their velocities (straight-line, smallest time
offset) until they stand `CONTACT_GAP` apart; where that would move them more than
`5 * CONTACT_GAP`, or a ball is not translating, they are pushed apart along the contact
normal instead. The contact normal and the cushion models' tilt then come from these
positions, which is what makes the two engines agree shot for shot.
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp

from piramida.physics import arrays

# pooltool's `MIN_DIST`: the gap left between the surfaces of a resolved contact (m).
CONTACT_GAP = 1e-6
# Larger corrections fall back to a push along the normal (pooltool's factor).
MAX_SHIFT = 5 * CONTACT_GAP


def _nearest_root(alpha: Any, beta: Any, gamma: Any) -> tuple[Any, Any]:
    """The root of alpha t^2 + beta t + gamma with the smallest |t|, and whether it exists."""
    disc = beta * beta - 4 * alpha * gamma
    sq = jnp.sqrt(jnp.maximum(disc, 0.0))
    q = -0.5 * (beta + jnp.where(beta >= 0, sq, -sq))
    safe_alpha = jnp.where(alpha > 0, alpha, 1.0)
    safe_q = jnp.where(q != 0, q, 1.0)
    t1, t2 = q / safe_alpha, gamma / safe_q
    t = jnp.where(jnp.abs(t1) < jnp.abs(t2), t1, t2)
    # A double root with a negative discriminant by rounding is kept, as pooltool keeps
    # nearly real complex roots.
    t = jnp.where(disc >= 0, t, -beta / (2 * safe_alpha))
    return t, (alpha > 0) & (q != 0)


def _unit(x: Any) -> Any:
    return x / jnp.maximum(arrays.norm(x), 1e-300)


def ball_ball(r1: Any, v1: Any, r2: Any, v2: Any, moving: Any, R: Any) -> tuple[Any, Any]:
    """Positions (2,) of two touching balls moved to `2R + CONTACT_GAP` apart."""
    target = 2 * R + CONTACT_GAP
    B, C = v2 - v1, r2 - r1
    t, ok = _nearest_root(arrays.dot(B, B), 2 * arrays.dot(B, C), arrays.dot(C, C) - target**2)
    traced1, traced2 = r1 + t * v1, r2 + t * v2
    shift = arrays.norm((traced1 + traced2 - r1 - r2) / 2)
    normal = _unit(C)
    push = (target - arrays.norm(C)) / 2
    use_trace = moving & ok & (shift <= MAX_SHIFT)
    return (
        jnp.where(use_trace, traced1, r1 - push * normal),
        jnp.where(use_trace, traced2, r2 + push * normal),
    )


def line(r: Any, v: Any, normal_in: Any, point: Any, reach: Any, moving: Any) -> Any:
    """Ball position (2,) moved to `reach + CONTACT_GAP` from a cushion line.

    Args:
      normal_in: (2,) unit normal of the line pointing from the ball into the cushion.
      point: (2,) any point of the line.
      reach: the contact distance from the line.

    """
    target = reach + CONTACT_GAP
    d0 = arrays.dot(r - point, normal_in)
    vn = arrays.dot(v, normal_in)
    safe_vn = jnp.where(vn != 0, vn, 1.0)
    t1, t2 = (target - d0) / safe_vn, (-target - d0) / safe_vn
    t = jnp.where(jnp.abs(t1) < jnp.abs(t2), t1, t2)
    traced = r + t * v
    pushed = r - (target + d0) * normal_in  # the foot of the perpendicular, then target back
    use_trace = moving & (vn != 0) & (arrays.norm(t * v) <= MAX_SHIFT)
    return jnp.where(use_trace, traced, pushed)


def circle(r: Any, v: Any, centre: Any, reach: Any, moving: Any) -> Any:
    """Ball position (2,) moved to `reach + CONTACT_GAP` from a jaw nose's centre."""
    target = reach + CONTACT_GAP
    diff = r - centre
    t, ok = _nearest_root(arrays.dot(v, v), 2 * arrays.dot(diff, v), arrays.dot(diff, diff) - target**2)
    traced = r + t * v
    pushed = centre + target * _unit(diff)
    use_trace = moving & ok & (arrays.norm(t * v) <= MAX_SHIFT)
    return jnp.where(use_trace, traced, pushed)
