"""The cue strike: what a cue of given speed, aim, elevation and tip offset does to a ball.

Leckie & Greenspan's instantaneous-impulse model (pooltool's `instantaneous_point`): the
cue (mass M, speed V) hits the ball's surface point Q elastically along its own axis d;
the impulse is J = 2 m V / (1 + m/M + (5 / 2R^2) |Q x d|^2), the ball leaves with
v = J d / m and w = Q x J d / I. The table absorbs the vertical part of v (the kernel is
planar), so an elevated cue gives massé spin but no jump. Squirt is not modelled.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp

from piramida.physics import arrays
from piramida.physics.arrays import put
from piramida.physics.motion import BallState
from piramida.physics.params import PhysicsParams

# Accepted ranges, checked by `validate`: a tip further than MAX_TIP_OFFSET * R from the
# centre miscues on a real cue (Alciatore: about half the radius), so it is refused.
MAX_SPEED = 12.0  # m/s of the cue; a hard break is about 8-10 m/s
MAX_ELEVATION = 89.0  # degrees
MAX_TIP_OFFSET = 0.6  # fraction of R, sqrt(a^2 + b^2)


@jax.tree_util.register_dataclass
@dataclass(frozen=True)
class Strike:
    """One cue strike (fields are scalars per table, or (B,) in a batch).

    Attributes:
      ball: id of the ball struck (any ball; in Free pyramid any may be the own ball).
      speed: cue speed (m/s).
      phi: aim in degrees counter-clockwise from +x (90 is straight up the table).
      theta: cue elevation in degrees above the cloth.
      a: side offset of the tip as a fraction of R (+ is right of centre).
      b: vertical offset of the tip as a fraction of R (+ is above centre).

    """

    ball: Any
    speed: Any
    phi: Any
    theta: Any = 0.0
    a: Any = 0.0
    b: Any = 0.0


def cue_impulse(strike: Strike, p: PhysicsParams) -> tuple[Any, Any]:
    """Velocity (2,) and spin (3,) the struck ball leaves with."""
    phi, theta = jnp.deg2rad(strike.phi), jnp.deg2rad(strike.theta)
    aim = jnp.array([jnp.cos(phi), jnp.sin(phi), 0.0])
    right = jnp.array([jnp.sin(phi), -jnp.cos(phi), 0.0])
    up = jnp.array([0.0, 0.0, 1.0])
    side, height = strike.a * p.R, strike.b * p.R
    depth = jnp.sqrt(jnp.maximum(p.R**2 - side**2 - height**2, 0.0))
    contact = side * right + height * up - depth * aim
    axis = jnp.cos(theta) * aim - jnp.sin(theta) * up
    lever = jnp.cross(contact, axis)
    impulse = 2.0 * p.m * strike.speed / (1.0 + p.m / p.cue_mass + 2.5 / p.R**2 * arrays.dot(lever, lever))
    v = impulse / p.m * axis
    w = impulse * lever / (0.4 * p.m * p.R**2)
    return v[:2], w


def strike_ball(balls: BallState, strike: Strike, p: PhysicsParams) -> BallState:
    """The table's balls with the struck ball set in motion (state classified later)."""
    v, w = cue_impulse(strike, p)
    return BallState(
        r=balls.r,
        v=put(balls.v, strike.ball, v),
        w=put(balls.w, strike.ball, w),
        s=balls.s,
    )
