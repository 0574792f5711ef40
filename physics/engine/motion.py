"""Ball motion between events (Leckie & Greenspan), for one ball at a time.

The same equations as `physics.motion` (which samples recorded shots in JAX): between
two events a ball's position is a quadratic in time with a constant acceleration
(sliding: against the contact point's slip; rolling: against the velocity; spinning and
stationary: none), and the z-spin decays linearly to 0.
"""

from __future__ import annotations

import warp as wp

from piramida.physics.engine.roots import infinity
from piramida.physics.motion import POCKETED as _POCKETED
from piramida.physics.motion import REST_SPEED as _REST_SPEED
from piramida.physics.motion import ROLLING as _ROLLING
from piramida.physics.motion import SLIDING as _SLIDING
from piramida.physics.motion import SPINNING as _SPINNING
from piramida.physics.motion import STATIONARY as _STATIONARY

F = wp.float64
STATIONARY = wp.constant(_STATIONARY)
SPINNING = wp.constant(_SPINNING)
SLIDING = wp.constant(_SLIDING)
ROLLING = wp.constant(_ROLLING)
POCKETED = wp.constant(_POCKETED)
REST_SPEED = wp.constant(wp.float64(_REST_SPEED))


@wp.struct
class Params:
    """The physical constants and model choices of a batch (all tables share them)."""

    R: wp.float64
    m: wp.float64
    u_s: wp.float64
    u_r: wp.float64
    u_sp: wp.float64
    e_b: wp.float64
    u_b: wp.float64
    e_c: wp.float64
    f_c: wp.float64
    g: wp.float64
    h: wp.float64  # cushion nose height (m)
    c: wp.float64  # contact distance from a cushion's nose line (m)
    length: wp.float64  # table length (m), for the centre line
    frictionless: wp.bool  # ball-ball `frictionless_elastic` (else `frictional_inelastic`)
    alciatore: wp.bool  # Alciatore's u_b(v) fit (else the constant u_b)
    han: wp.bool  # cushion `han_2005` (else `stronge_compliant`)


@wp.func
def translating(s: wp.int32) -> wp.bool:
    """Sliding or rolling: the ball's centre moves."""
    return s == SLIDING or s == ROLLING


@wp.func
def unit2(x: wp.vec2d) -> wp.vec2d:
    """X / |x|, or 0 for the zero vector."""
    n = wp.length(x)
    if n > F(0.0):
        return x / n
    return wp.vec2d(F(0.0), F(0.0))


@wp.func
def contact_slip(v: wp.vec2d, w: wp.vec3d, R: wp.float64) -> wp.vec2d:
    """Velocity of the ball's contact point with the cloth: zero when it rolls."""
    return wp.vec2d(v[0] - R * w[1], v[1] + R * w[0])


@wp.func
def acceleration(v: wp.vec2d, w: wp.vec3d, s: wp.int32, p: Params) -> wp.vec2d:
    """Constant acceleration of a ball until its next event."""
    if s == SLIDING:
        return -p.u_s * p.g * unit2(contact_slip(v, w, p.R))
    if s == ROLLING:
        return -p.u_r * p.g * unit2(v)
    return wp.vec2d(F(0.0), F(0.0))


@wp.func
def spin_decay_rate(p: Params) -> wp.float64:
    """How fast |w_z| falls in every state (rad/s^2)."""
    return F(5.0) * p.u_sp * p.g / (F(2.0) * p.R)


@wp.func
def transition_time(v: wp.vec2d, w: wp.vec3d, s: wp.int32, p: Params) -> wp.float64:
    """Time from now until the ball's next motion transition; inf if none."""
    if s == SLIDING:
        return F(2.0) * wp.length(contact_slip(v, w, p.R)) / (F(7.0) * p.u_s * p.g)
    if s == ROLLING:
        return wp.length(v) / (p.u_r * p.g)
    if s == SPINNING:
        return wp.abs(w[2]) / spin_decay_rate(p)
    return infinity()


@wp.func
def advance_position(
    r: wp.vec2d, v: wp.vec2d, w: wp.vec3d, s: wp.int32, dt: wp.float64, p: Params
) -> wp.vec2d:
    """The centre `dt` seconds later, assuming no event in between."""
    if s == SLIDING or s == ROLLING or s == SPINNING:
        a = acceleration(v, w, s, p)
        return r + v * dt + F(0.5) * a * (dt * dt)
    return r


@wp.func
def advance_velocity(v: wp.vec2d, w: wp.vec3d, s: wp.int32, dt: wp.float64, p: Params) -> wp.vec2d:
    """The velocity `dt` seconds later."""
    if s == SLIDING or s == ROLLING or s == SPINNING:
        return v + acceleration(v, w, s, p) * dt
    return v


@wp.func
def advance_spin(v: wp.vec2d, w: wp.vec3d, s: wp.int32, dt: wp.float64, p: Params) -> wp.vec3d:
    """The spin `dt` seconds later: sliding friction's torque, rolling, the z-spin's decay."""
    if not (s == SLIDING or s == ROLLING or s == SPINNING):
        return w
    wx = w[0]
    wy = w[1]
    if s == SLIDING:
        slip_dir = unit2(contact_slip(v, w, p.R))
        turn = F(5.0) * p.u_s * p.g / (F(2.0) * p.R) * dt
        wx = w[0] - turn * slip_dir[1]
        wy = w[1] + turn * slip_dir[0]
    elif s == ROLLING:
        v_new = advance_velocity(v, w, s, dt, p)
        wx = -v_new[1] / p.R
        wy = v_new[0] / p.R
    wz = wp.sign(w[2]) * wp.max(wp.abs(w[2]) - spin_decay_rate(p) * dt, F(0.0))
    if w[2] == F(0.0):
        wz = F(0.0)
    return wp.vec3d(wx, wy, wz)


@wp.func
def classify(v: wp.vec2d, w: wp.vec3d, p: Params) -> wp.int32:
    """The motion state of a free ball with velocity v and spin w."""
    speed = wp.length(v)
    slip = wp.length(contact_slip(v, w, p.R))
    spin_xy = p.R * wp.sqrt(w[0] * w[0] + w[1] * w[1])
    spin_z = p.R * wp.abs(w[2])
    if speed <= REST_SPEED and spin_xy <= REST_SPEED:
        if spin_z > REST_SPEED:
            return SPINNING
        return STATIONARY
    if slip <= REST_SPEED:
        return ROLLING
    return SLIDING


@wp.func
def settle(v: wp.vec2d, w: wp.vec3d, s: wp.int32, p: Params) -> tuple[wp.vec2d, wp.vec3d, wp.int32]:
    """A ball's velocity, spin and state once its due transition happened.

    Sliding becomes rolling (w_xy set to roll exactly); rolling becomes spinning or
    stationary (v and w_xy set to 0); spinning becomes stationary (w_z set to 0).
    """
    zero2 = wp.vec2d(F(0.0), F(0.0))
    spins = p.R * wp.abs(w[2]) > REST_SPEED
    if s == SLIDING:
        rolling_w = wp.vec3d(-v[1] / p.R, v[0] / p.R, w[2])
        new_s = ROLLING
        # A slide that ends with the ball already at rest goes straight to its rest state.
        if wp.length(v) <= REST_SPEED:
            new_s = classify(v, rolling_w, p)
        return v, rolling_w, new_s
    if s == ROLLING:
        new_s = STATIONARY
        if spins:
            new_s = SPINNING
        return zero2, wp.vec3d(F(0.0), F(0.0), w[2]), new_s
    return zero2, wp.vec3d(F(0.0), F(0.0), F(0.0)), STATIONARY
