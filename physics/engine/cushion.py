"""Ball-cushion contacts: `han_2005` and `stronge_compliant` (pooltool-billiards 0.6).

Both act in the cushion frame: x along the inward contact normal (from the ball into the
cushion), y along the cushion, z up. The cushion meets the ball above its equator, at
the nose height h, so the contact normal tilts down; that tilt is what lets a cushion
turn topspin into draw and back. Straight cushions, jaw faces and jaw noses all use
these, with the normal of the point of contact. Equations: benchmarks/POOLTOOL_PHYSICS.md.
"""

from __future__ import annotations

import warp as wp

from piramida.physics.engine.motion import Params
from piramida.physics.resolve import stronge as _stronge

F = wp.float64
BETA_T = wp.constant(wp.float64(_stronge.BETA_T))
BETA_N = wp.constant(wp.float64(_stronge.BETA_N))
K_N = wp.constant(wp.float64(_stronge.K_N))
OMEGA_RATIO = wp.constant(wp.float64(_stronge.DEFAULT_OMEGA_RATIO))
ISCLOSE_RTOL = wp.constant(wp.float64(_stronge.ISCLOSE_RTOL))
ISCLOSE_ATOL = wp.constant(wp.float64(_stronge.ISCLOSE_ATOL))
BISECTION_STEPS = wp.constant(_stronge.BISECTION_STEPS)
PI = wp.constant(wp.float64(3.141592653589793))


@wp.func
def han_2005(V: wp.vec3d, W: wp.vec3d, p: Params) -> tuple[wp.vec3d, wp.vec3d]:
    """Han (2005), "Dynamics in carom and three cushion billiards", eqs. 14-23.

    One impulse with restitution e_c along the tilted normal and Coulomb friction f_c in
    the contact plane: sliding throughout, or sticking when the friction suffices.
    """
    R = p.R
    m = p.m
    theta = wp.asin(p.h / R - F(1.0))
    sin = wp.sin(theta)
    cos = wp.cos(theta)
    sx = V[0] * sin - V[2] * cos + R * W[1]  # eq. 14: slip at the contact point
    sy = -V[1] - R * W[2] * cos + R * W[0] * sin
    c = -V[0] * cos  # normal approach speed (planar: no vertical velocity)
    A = F(7.0) / (F(2.0) * m)  # eq. 16
    B = F(1.0) / m
    pz = -(F(1.0) + p.e_c) * c / B  # eq. 17: normal impulse
    slip = wp.sqrt(sx * sx + sy * sy)
    px = sx / A  # eq. 20: sticking ...
    py = sy / A
    if not (slip / A <= p.f_c * pz):
        safe = slip
        if not (slip > F(0.0)):
            safe = F(1.0)
        px = p.f_c * pz * sx / safe  # ... or sliding (eqs. 18, 19)
        py = p.f_c * pz * sy / safe
    PX = -px * sin - pz * cos  # eqs. 21-22: back to the cushion frame
    PY = py
    PZ = px * cos - pz * sin
    inertia = F(2.0) / F(5.0) * m * R * R
    V_new = V + wp.vec3d(PX / m, PY / m, F(0.0))  # eq. 23; vertical velocity dropped
    W_new = W + (R / inertia) * wp.vec3d(-PY * sin, PX * sin - PZ * cos, PY * cos)
    return V_new, W_new


@wp.func
def isclose(a: wp.float64, b: wp.float64) -> wp.bool:
    """`numpy.isclose(a, b)` with its default tolerances (pooltool's snaps)."""
    return wp.abs(a - b) <= ISCLOSE_ATOL + ISCLOSE_RTOL * wp.abs(b)


@wp.func
def arccos_clipped(x: wp.float64) -> wp.float64:
    """Arccos of x clipped to [-1, 1]."""
    if wp.abs(x) < F(1.0):
        return wp.acos(x)
    if x > F(0.0):
        return F(0.0)
    return PI


@wp.func
def phase_restitution(t: wp.float64, omega_n: wp.float64, e: wp.float64, shift: wp.float64) -> wp.float64:
    """Phase of the normal spring in its restitution quarter."""
    return omega_n * t / e + shift


@wp.func
def stick_excess(
    t: wp.float64,
    t_st: wp.float64,
    u_st: wp.float64,
    v_st: wp.float64,
    omega_n: wp.float64,
    omega_t: wp.float64,
    mu_s: wp.float64,
    v_n0: wp.float64,
    eta2: wp.float64,
    e: wp.float64,
    shift: wp.float64,
) -> wp.float64:
    """Tangential spring force over the friction limit: < 0 while the contact sticks."""
    s = omega_t * (t - t_st)
    spring = omega_n / (mu_s * v_n0) * (u_st * wp.cos(s) - v_st / omega_t * wp.sin(s))
    return wp.abs(spring) - eta2 * wp.sin(phase_restitution(t, omega_n, e, shift))


@wp.func
def collinear_compliant(
    v_t0: wp.float64, v_n0: wp.float64, m: wp.float64, mu: wp.float64, e: wp.float64
) -> tuple[wp.float64, wp.float64]:
    """Final tangential and normal contact velocities of Stronge's compliant impact.

    Gross slip, initial stick, or slip-stick-slip, with pooltool's snapping of the slip
    time at the case boundaries (`physics.resolve.stronge.collinear_compliant`).
    """
    ratio_beta = BETA_T / BETA_N
    eta2 = ratio_beta / (OMEGA_RATIO * OMEGA_RATIO)
    omega_n = wp.sqrt(BETA_N * K_N / m)
    omega_t = omega_n * wp.sqrt(ratio_beta / eta2)
    t_c = PI / (F(2.0) * omega_n)
    t_f = (F(1.0) + e) * t_c
    shift = (PI / F(2.0)) * (F(1.0) - F(1.0) / e)
    no_friction = mu <= F(0.0)
    mu_s = mu
    if no_friction:
        mu_s = F(1.0)
    rho = v_t0 / v_n0
    stick_edge = mu_s * eta2
    gross_edge = mu_s * ((F(1.0) + e) * ratio_beta - eta2 / e)
    gross = no_friction or rho > gross_edge
    if gross:
        return v_t0 - mu * v_n0 * ratio_beta * (F(1.0) + e), e * v_n0 * wp.cos(
            phase_restitution(t_f, omega_n, e, shift)
        )
    initial_stick = rho < stick_edge
    t_st = F(0.0)
    u_st = F(0.0)
    v_st = v_t0
    if not initial_stick:
        # Slip-stick-slip: the moment the initial slip stops, as a fraction tau of t_c.
        den_c = eta2 - ratio_beta
        den_r = eta2 / e - e * ratio_beta
        if den_r == F(0.0):
            den_r = F(1.0)
        tau = e * (F(2.0) / PI) * (arccos_clipped((rho / mu_s - ratio_beta) / den_r) - shift)
        if rho <= mu_s * ratio_beta:
            tau = (F(2.0) / PI) * arccos_clipped((rho / mu_s - ratio_beta) / den_c)
        t_st = t_c * tau
        phase = phase_restitution(t_st, omega_n, e, shift)
        scale = e
        if t_st <= t_c:
            phase = omega_n * t_st
            scale = F(1.0)
        u_st = -mu_s * v_n0 * eta2 / omega_n * wp.sin(phase)
        v_st = v_t0 - mu_s * ratio_beta * v_n0 * (F(1.0) - scale * wp.cos(phase))
    # The contact sticks from max(t_c, t_st) and must slip by t_f: bisect that bracket.
    lo = wp.max(t_c, t_st)
    hi = t_f
    for _ in range(BISECTION_STEPS):
        mid = F(0.5) * (lo + hi)
        if stick_excess(mid, t_st, u_st, v_st, omega_n, omega_t, mu_s, v_n0, eta2, e, shift) > F(0.0):
            hi = mid
        else:
            lo = mid
    t_slip = F(0.5) * (lo + hi)
    # pooltool's snaps (checked in its order, first match wins).
    if initial_stick:
        if isclose(rho, F(0.0)):
            t_slip = t_f
        elif isclose(rho, stick_edge):
            t_slip = t_c
    else:
        if isclose(rho, stick_edge):
            t_slip = t_c
        elif isclose(rho, gross_edge):
            t_slip = t_f
    s = omega_t * (t_slip - t_st)
    v_slip = omega_t * u_st * wp.sin(s) + v_st * wp.cos(s)
    v_tf = v_slip + mu_s * ratio_beta * v_n0 * e * (
        F(1.0) + wp.cos(phase_restitution(t_slip, omega_n, e, shift))
    )
    return v_tf, e * v_n0 * wp.cos(phase_restitution(t_f, omega_n, e, shift))


@wp.func
def stronge_compliant(V: wp.vec3d, W: wp.vec3d, reach: wp.float64, p: Params) -> tuple[wp.vec3d, wp.vec3d]:
    """Stronge's compliant model along the tilted 3D normal (pooltool's `stronge_compliant`).

    `reach`: horizontal distance from the contact edge to the ball centre; the normal from
    the edge to the centre is unit((-reach, 0, R - h)). A ball not approaching along it is
    returned unchanged.
    """
    R = p.R
    normal = wp.normalize(wp.vec3d(-reach, F(0.0), R - p.h))
    v_c = V + wp.cross(W, -R * normal)
    v_n0 = wp.dot(normal, V)
    if not (v_n0 < F(0.0)):
        return V, W
    n_cross_v = wp.cross(normal, v_c)
    slip = wp.length(n_cross_v)
    v_t0 = -slip
    t_hat = wp.vec3d(F(0.0), F(0.0), F(0.0))
    if slip > F(0.0):
        t_hat = wp.cross(n_cross_v, normal) / v_t0
    v_tf, v_nf = collinear_compliant(v_t0, v_n0, p.m, p.f_c, p.e_c)
    dv_n = (v_nf - v_n0) / BETA_N
    dv_t = (v_tf - v_t0) / BETA_T
    V_new = V + dv_n * normal + dv_t * t_hat
    # Spin change from the friction impulse at -R n: (m R / I) (-n x dv), m R^2 / I = 2.5.
    W_new = W + (F(2.5) / R) * wp.cross(-normal, dv_t * t_hat)
    return wp.vec3d(V_new[0], V_new[1], F(0.0)), W_new


@wp.func
def rebound(
    v: wp.vec2d, w: wp.vec3d, normal_in: wp.vec2d, reach: wp.float64, p: Params
) -> tuple[wp.vec2d, wp.vec3d]:
    """Velocity and spin after a cushion contact; `normal_in` points from the ball into the cushion."""
    t = wp.vec2d(-normal_in[1], normal_in[0])
    V = wp.vec3d(wp.dot(v, normal_in), wp.dot(v, t), F(0.0))
    W = wp.vec3d(w[0] * normal_in[0] + w[1] * normal_in[1], w[0] * t[0] + w[1] * t[1], w[2])
    V_new = V
    W_new = W
    if p.han:
        V_new, W_new = han_2005(V, W, p)
    else:
        V_new, W_new = stronge_compliant(V, W, reach, p)
    v_out = V_new[0] * normal_in + V_new[1] * t
    w_xy = W_new[0] * normal_in + W_new[1] * t
    return v_out, wp.vec3d(w_xy[0], w_xy[1], W_new[2])
