"""Ball-cushion contacts: `han_2005` and `stronge_compliant`.

Both act in the cushion frame: x along the inward contact normal (from the ball into the
cushion), y along the cushion, z up. The cushion meets the ball above its equator, at the
nose height h, so the contact normal tilts down by theta, sin(theta) = h/R - 1; that tilt
is what lets a cushion turn topspin into draw and back. Straight cushions, jaw faces and
jaw noses all use these, with the normal of the point of contact.
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp

from piramida.physics import arrays
from piramida.physics.params import Models, PhysicsParams
from piramida.physics.resolve.stronge import stronge_compliant


def _to_frame(v: Any, w: Any, n: Any) -> tuple[Any, Any]:
    t = jnp.array([-n[1], n[0]])
    return jnp.array([arrays.dot(v, n), arrays.dot(v, t), 0.0]), jnp.array(
        [arrays.dot(w[:2], n), arrays.dot(w[:2], t), w[2]]
    )


def _from_frame(V: Any, W: Any, n: Any) -> tuple[Any, Any]:
    t = jnp.array([-n[1], n[0]])
    v = V[0] * n + V[1] * t
    w = jnp.concatenate([W[0] * n + W[1] * t, W[2:]])
    return v, w


def han_2005(V: Any, W: Any, p: PhysicsParams, h: Any) -> tuple[Any, Any]:
    """Han (2005), "Dynamics in carom and three cushion billiards", eqs. 14-23.

    One impulse with restitution e_c along the tilted normal and Coulomb friction f_c
    in the contact plane: sliding throughout, or sticking when the friction suffices.
    """
    R, m = p.R, p.m
    theta = jnp.arcsin(h / R - 1.0)
    sin, cos = jnp.sin(theta), jnp.cos(theta)
    # Slip velocity at the contact point in the contact frame (eq. 14).
    sx = V[0] * sin - V[2] * cos + R * W[1]
    sy = -V[1] - R * W[2] * cos + R * W[0] * sin
    c = -V[0] * cos  # normal approach speed (planar: no vertical velocity)
    A, B = 7.0 / (2.0 * m), 1.0 / m  # eq. 16
    pz = -(1.0 + p.e_c) * c / B  # eq. 17: normal impulse
    slip = jnp.sqrt(sx**2 + sy**2)
    stick = slip / A <= p.f_c * pz  # eq. 20
    safe_slip = jnp.where(slip > 0, slip, 1.0)
    px = jnp.where(stick, sx / A, p.f_c * pz * sx / safe_slip)  # eqs. 18, 19
    py = jnp.where(stick, sy / A, p.f_c * pz * sy / safe_slip)
    # Back to the cushion frame (eqs. 21-22).
    PX = -px * sin - pz * cos
    PY = py
    PZ = px * cos - pz * sin
    inertia = 2.0 / 5.0 * m * R**2
    V_new = V + jnp.array([PX / m, PY / m, 0.0])  # eq. 23; vertical velocity dropped
    W_new = W + (R / inertia) * jnp.array([-PY * sin, PX * sin - PZ * cos, PY * cos])
    return V_new, W_new


def rebound(
    v: Any, w: Any, normal_in: Any, reach: Any, p: PhysicsParams, h: Any, models: Models
) -> tuple[Any, Any]:
    """Velocity (2,) and spin (3,) after a cushion contact.

    Args:
      v, w: the ball's velocity (2,) and spin (3,).
      normal_in: (2,) horizontal unit normal from the ball into the cushion.
      reach: horizontal distance from the contact edge (a segment's line, or a nose
        circle's centre) to the ball centre; `stronge_compliant` tilts its contact normal
        by it, as pooltool does.
      p, h, models: constants, cushion nose height, model choice.

    """
    V, W = _to_frame(v, w, normal_in)
    if models.cushion == "han_2005":
        V, W = han_2005(V, W, p, h)
    else:
        V, W = stronge_compliant(V, W, p, h, reach)
    return _from_frame(V, W, normal_in)
