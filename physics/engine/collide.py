"""Ball-ball collisions: `frictional_inelastic` (with throw) and `frictionless_elastic`.

Alciatore's model (TP A-5, A-6, A-14) as pooltool-billiards 0.6 extends it to two moving
balls: the normal velocities exchange with restitution e_b; the contact points' relative
surface velocity is reduced by a friction impulse mu |dv_n|, unless that would reverse
it, in which case the surfaces leave without slip. mu(v) = a + b exp(-c v) is Alciatore's
fit to measured throw (or the constant u_b). The JAX twin `physics.resolve.ball_ball`
predicts throw for the bots; the two are held together by the kernel tests.
"""

from __future__ import annotations

import warp as wp

from piramida.physics.engine.motion import Params
from piramida.physics.resolve.ball_ball import ALCIATORE_A as _A
from piramida.physics.resolve.ball_ball import ALCIATORE_B as _B
from piramida.physics.resolve.ball_ball import ALCIATORE_C as _C

F = wp.float64
ALCIATORE_A = wp.constant(wp.float64(_A))
ALCIATORE_B = wp.constant(wp.float64(_B))
ALCIATORE_C = wp.constant(wp.float64(_C))
NO_SLIP = wp.constant(wp.float64(1e-14))


@wp.func
def friction_coefficient(slip_speed: wp.float64, p: Params) -> wp.float64:
    """Ball-ball friction at this relative surface speed (Alciatore's fit, or u_b)."""
    if p.alciatore:
        return ALCIATORE_A + ALCIATORE_B * wp.exp(-ALCIATORE_C * slip_speed)
    return p.u_b


@wp.func
def surface_velocity(v: wp.vec3d, w: wp.vec3d, d: wp.vec3d, R: wp.float64) -> wp.vec3d:
    """Velocity of the surface point of a ball in direction d."""
    return v + wp.cross(w, R * d)


@wp.func
def to_frame(x: wp.vec3d, n: wp.vec3d, t: wp.vec3d) -> wp.vec3d:
    """Components along the line of centres n, its perpendicular t, and z."""
    return wp.vec3d(wp.dot(x, n), wp.dot(x, t), x[2])


@wp.func
def from_frame(x: wp.vec3d, n: wp.vec3d, t: wp.vec3d) -> wp.vec3d:
    """Back from `to_frame`."""
    return x[0] * n + x[1] * t + wp.vec3d(F(0.0), F(0.0), x[2])


@wp.func
def collide(
    r1: wp.vec2d, v1: wp.vec2d, w1: wp.vec3d, r2: wp.vec2d, v2: wp.vec2d, w2: wp.vec3d, p: Params
) -> tuple[wp.vec2d, wp.vec3d, wp.vec2d, wp.vec3d]:
    """Velocities and spins of both balls after they collide (centres at contact)."""
    d = r2 - r1
    dn = d / wp.length(d)
    zero = F(0.0)
    n = wp.vec3d(dn[0], dn[1], zero)
    t = wp.vec3d(-dn[1], dn[0], zero)
    V1 = to_frame(wp.vec3d(v1[0], v1[1], zero), n, t)
    V2 = to_frame(wp.vec3d(v2[0], v2[1], zero), n, t)
    W1 = to_frame(w1, n, t)
    W2 = to_frame(w2, n, t)
    e = p.e_b
    v1n = F(0.5) * ((F(1.0) - e) * V1[0] + (F(1.0) + e) * V2[0])
    v2n = F(0.5) * ((F(1.0) + e) * V1[0] + (F(1.0) - e) * V2[0])
    V1f = wp.vec3d(v1n, V1[1], V1[2])
    V2f = wp.vec3d(v2n, V2[1], V2[2])
    W1f = W1
    W2f = W2
    if not p.frictionless:
        x = wp.vec3d(F(1.0), zero, zero)
        # Tangential surface velocities at the contact point, relative.
        s1 = V1 - V1[0] * x + wp.cross(W1, p.R * x)
        s2 = V2 - V2[0] * x + wp.cross(W2, -p.R * x)
        mu = friction_coefficient(wp.length(s1 - s2), p)
        dvn = wp.abs(v2n - v1n)
        T1 = wp.vec3d(zero, V1[1], V1[2])
        T2 = wp.vec3d(zero, V2[1], V2[2])
        S1 = wp.vec3d(zero, W1[1], W1[2])
        S2 = wp.vec3d(zero, W2[1], W2[2])
        slip = surface_velocity(T1, S1, x, p.R) - surface_velocity(T2, S2, -x, p.R)
        slip_speed = wp.length(slip)
        has_slip = slip_speed > NO_SLIP
        slip_dir = slip
        if has_slip:
            slip_dir = slip / slip_speed
        # Sliding throughout: a friction impulse mu |dv_n| against the slip.
        dv = -mu * dvn * slip_dir
        dw = F(2.5) / p.R * wp.cross(x, dv)
        after = surface_velocity(T1 + dv, S1 + dw, x, p.R) - surface_velocity(T2 - dv, S2 + dw, -x, p.R)
        # Slip would reverse: the surfaces stick, and the impulse is the one that ends slip.
        if (not has_slip) or wp.dot(slip, after) <= zero:
            dv = -(T1 - T2 + p.R * wp.cross(S1 + S2, x)) / F(7.0)
            dw = -(F(5.0) / F(14.0)) * (wp.cross(x, T1 - T2) / p.R + S1 + S2)
        # Planar kernel: the vertical velocity that spin-induced throw would add is dropped.
        V1f = wp.vec3d(v1n, T1[1] + dv[1], zero)
        V2f = wp.vec3d(v2n, T2[1] - dv[1], zero)
        W1f = wp.vec3d(W1[0], S1[1] + dw[1], S1[2] + dw[2])
        W2f = wp.vec3d(W2[0], S2[1] + dw[1], S2[2] + dw[2])
    out1 = from_frame(V1f, n, t)
    out2 = from_frame(V2f, n, t)
    return (
        wp.vec2d(out1[0], out1[1]),
        from_frame(W1f, n, t),
        wp.vec2d(out2[0], out2[1]),
        from_frame(W2f, n, t),
    )
