"""The ball state, and ball motion between events in JAX (Leckie & Greenspan's equations).

Between two events every ball's position is a quadratic in time with a constant
acceleration (sliding: against the contact point's slip; rolling: against the velocity;
spinning and stationary: none); the z-spin decays linearly in every state and stops at 0.
The kernel evolves balls with the Warp twin of these equations (`physics.engine.motion`);
`advance` here samples a recorded shot between its events (`physics.trajectory`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp

from piramida.physics import arrays
from piramida.physics.params import PhysicsParams

# Motion states (pooltool's codes, plus ABSENT for an id with no ball on the table).
STATIONARY, SPINNING, SLIDING, ROLLING, POCKETED, ABSENT = range(6)
# Speeds below this (m/s, also R * |w|) count as zero when a state is classified.
REST_SPEED = 1e-12


@jax.tree_util.register_dataclass
@dataclass(frozen=True)
class BallState:
    """The kinematic state of every ball on one table (a pytree).

    Attributes:
        r: (N, 2) centre positions (m).
        v: (N, 2) velocities (m/s).
        w: (N, 3) angular velocities (rad/s).
        s: (N,) motion state codes (`STATIONARY` ... `ABSENT`).

    """

    r: Any
    v: Any
    w: Any
    s: Any


def contact_slip(v: Any, w: Any, R: Any) -> Any:
    """Velocity of the ball's contact point with the cloth, (..., 2).

    Zero when the ball rolls; the sliding friction acts against it.
    """
    return jnp.stack([v[..., 0] - R * w[..., 1], v[..., 1] + R * w[..., 0]], axis=-1)


def _unit(x: Any) -> Any:
    norm = arrays.norm(x)[..., None]
    return jnp.where(norm > 0, x / jnp.where(norm > 0, norm, 1.0), 0.0)


def acceleration(state: BallState, p: PhysicsParams) -> Any:
    """Constant acceleration of each ball until its next event, (N, 2)."""
    slip_dir = _unit(contact_slip(state.v, state.w, p.R))
    vel_dir = _unit(state.v)
    sliding = (state.s == SLIDING)[:, None]
    rolling = (state.s == ROLLING)[:, None]
    return jnp.where(sliding, -p.u_s * p.g * slip_dir, jnp.where(rolling, -p.u_r * p.g * vel_dir, 0.0))


def spin_decay_rate(p: PhysicsParams) -> Any:
    """How fast |w_z| falls in every state (rad/s^2)."""
    return 5.0 * p.u_sp * p.g / (2.0 * p.R)


def advance(state: BallState, dt: Any, p: PhysicsParams) -> BallState:
    """Every ball `dt` seconds later, assuming no event in between (exact polynomials)."""
    a = acceleration(state, p)
    slip_dir = _unit(contact_slip(state.v, state.w, p.R))
    r = state.r + state.v * dt + 0.5 * a * dt**2
    v = state.v + a * dt
    # Sliding friction's torque turns w_xy at 5 u_s g / 2R against (slip x z).
    w_slide = state.w[:, :2] - (5.0 * p.u_s * p.g / (2.0 * p.R)) * dt * jnp.stack(
        [slip_dir[:, 1], -slip_dir[:, 0]], axis=-1
    )
    w_roll = jnp.stack([-v[:, 1], v[:, 0]], axis=-1) / p.R
    w_xy = jnp.where(
        (state.s == SLIDING)[:, None],
        w_slide,
        jnp.where((state.s == ROLLING)[:, None], w_roll, state.w[:, :2]),
    )
    wz = state.w[:, 2]
    wz = jnp.sign(wz) * jnp.maximum(jnp.abs(wz) - spin_decay_rate(p) * dt, 0.0)
    moving = (state.s == SLIDING) | (state.s == ROLLING) | (state.s == SPINNING)
    return BallState(
        r=jnp.where(moving[:, None], r, state.r),
        v=jnp.where(moving[:, None], v, state.v),
        w=jnp.where(moving[:, None], jnp.concatenate([w_xy, wz[:, None]], axis=-1), state.w),
        s=state.s,
    )
