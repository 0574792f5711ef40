"""Ball-ball collisions: `frictional_inelastic` (with throw) and `frictionless_elastic`.

`frictional_inelastic` is Alciatore's model (technical proofs TP A-5, A-6, A-14) as
pooltool-billiards 0.6 extends it to two moving balls: the normal velocities exchange
with restitution e_b; the contact points' relative surface velocity is reduced by a
friction impulse mu |dv_n|, unless that would reverse it, in which case the surfaces
leave the collision without slip (the impulse that stops the slip exactly). The friction
is Alciatore's fit to measured throw, mu(v) = a + b exp(-c v), v the relative surface
speed. This is what makes cut shots throw the object ball off the line of centres.
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp

from piramida.physics import arrays
from piramida.physics.params import Models, PhysicsParams

# Alciatore TP A-14's fit of ball-ball friction to relative surface speed (m/s).
ALCIATORE_A, ALCIATORE_B, ALCIATORE_C = 9.951e-3, 0.108, 1.088


def _frame(r1: Any, r2: Any) -> tuple[Any, Any]:
    """Unit line of centres n (1 -> 2) and its in-plane perpendicular t, as 3-vectors."""
    d = r2 - r1
    n = d / arrays.norm(d)
    return jnp.array([n[0], n[1], 0.0]), jnp.array([-n[1], n[0], 0.0])


def _to_frame(x: Any, n: Any, t: Any) -> Any:
    return jnp.array([arrays.dot(x, n), arrays.dot(x, t), x[2]])


def _from_frame(x: Any, n: Any, t: Any) -> Any:
    return x[0] * n + x[1] * t + jnp.array([0.0, 0.0, x[2]])


def _surface_velocity(v: Any, w: Any, d: Any, R: Any) -> Any:
    """Velocity of the surface point of a ball in direction d (frame coordinates)."""
    return v + jnp.cross(w, R * d)


def friction(v1: Any, w1: Any, v2: Any, w2: Any, p: PhysicsParams, models: Models) -> Any:
    """Ball-ball friction coefficient for this contact (frame coordinates, x = n)."""
    if not models.alciatore_friction:
        return p.u_b
    x = jnp.array([1.0, 0.0, 0.0])
    # Tangential surface velocities at the contact point, relative.
    s1 = v1 - v1[0] * x + jnp.cross(w1, p.R * x)
    s2 = v2 - v2[0] * x + jnp.cross(w2, -p.R * x)
    speed = arrays.norm(s1 - s2)
    return ALCIATORE_A + ALCIATORE_B * jnp.exp(-ALCIATORE_C * speed)


def collide(
    r1: Any, v1: Any, w1: Any, r2: Any, v2: Any, w2: Any, p: PhysicsParams, models: Models
) -> tuple[Any, Any, Any, Any]:
    """Velocities (2,) and spins (3,) of both balls after they collide.

    Args:
      r1, r2: (2,) centres at contact. v1, v2: (2,) velocities. w1, w2: (3,) spins.

    """
    n, t = _frame(r1, r2)
    pad = jnp.zeros(1)
    V1 = _to_frame(jnp.concatenate([v1, pad]), n, t)
    V2 = _to_frame(jnp.concatenate([v2, pad]), n, t)
    W1, W2 = _to_frame(w1, n, t), _to_frame(w2, n, t)
    e = p.e_b
    v1n = 0.5 * ((1 - e) * V1[0] + (1 + e) * V2[0])
    v2n = 0.5 * ((1 + e) * V1[0] + (1 - e) * V2[0])
    if models.ball_ball == "frictionless_elastic":
        V1f, V2f, W1f, W2f = V1.at[0].set(v1n), V2.at[0].set(v2n), W1, W2
    else:
        mu = friction(V1, W1, V2, W2, p, models)
        V1f, W1f, V2f, W2f = _frictional_tangent(V1, W1, V2, W2, jnp.abs(v2n - v1n), mu, p.R)
        V1f, V2f = V1f.at[0].set(v1n), V2f.at[0].set(v2n)
        W1f, W2f = W1f.at[0].set(W1[0]), W2f.at[0].set(W2[0])
    out_v1 = _from_frame(V1f, n, t)[:2]
    out_v2 = _from_frame(V2f, n, t)[:2]
    return out_v1, _from_frame(W1f, n, t), out_v2, _from_frame(W2f, n, t)


def _frictional_tangent(
    V1: Any, W1: Any, V2: Any, W2: Any, dvn: Any, mu: Any, R: Any
) -> tuple[Any, Any, Any, Any]:
    """Tangential velocity and spin changes from friction (normal parts dropped)."""
    x = jnp.array([1.0, 0.0, 0.0])
    keep_t = jnp.array([0.0, 1.0, 1.0])
    V1, V2 = V1 * keep_t, V2 * keep_t
    W1, W2 = W1 * keep_t, W2 * keep_t
    slip = _surface_velocity(V1, W1, x, R) - _surface_velocity(V2, W2, -x, R)
    slip_speed = arrays.norm(slip)
    has_slip = slip_speed > 1e-14
    slip_dir = slip / jnp.where(has_slip, slip_speed, 1.0)
    # Sliding throughout: a friction impulse mu * |dv_n| against the slip.
    dv = -mu * dvn * slip_dir
    dw = 2.5 / R * jnp.cross(x, dv)
    after = _surface_velocity(V1 + dv, W1 + dw, x, R) - _surface_velocity(V2 - dv, W2 + dw, -x, R)
    # Slip would reverse: the surfaces stick, and the impulse is the one that ends slip.
    stick = (~has_slip) | (arrays.dot(slip, after) <= 0)
    dv_stick = -(1.0 / 7.0) * (V1 - V2 + R * jnp.cross(W1 + W2, x))
    dw_stick = -(5.0 / 14.0) * (jnp.cross(x, V1 - V2) / R + W1 + W2)
    dv = jnp.where(stick, dv_stick, dv)
    dw = jnp.where(stick, dw_stick, dw)
    # Planar kernel: the vertical velocity that spin-induced throw would add is dropped.
    no_z = jnp.array([1.0, 1.0, 0.0])
    return (V1 + dv) * no_z, W1 + dw, (V2 - dv) * no_z, W2 + dw
