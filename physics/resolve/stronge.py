"""Stronge's compliant ball-cushion contact, as pooltool-billiards 0.6.0 resolves it.

The cushion is a pair of springs at the point of contact: one along the contact normal
(stiffness k_n) and one in the contact plane (stiffness k_n / eta^2). The normal spring
runs half an oscillation, restitution e stretching its second quarter, so the contact
lasts t_f = (1 + e) t_c. The tangential spring either slips against Coulomb friction
throughout ("gross slip"), sticks first and slips once the spring force outgrows the
friction limit ("initial stick"), or slips, sticks and slips again ("slip-stick-slip").
Only the frequency ratio omega_t / omega_n shapes the outcome.

The contact normal is tilted: the cushion edge sits at height h, so the normal from the
edge to the ball centre points down toward the cloth when h > R. The solve runs along
that 3D normal and the tangent of the contact velocity; the ball leaves with its vertical
velocity dropped, as pooltool does.

Equations: benchmarks/POOLTOOL_PHYSICS.md, section 4a. Everything is branch-free
(`jnp.where`), and the slip time comes from a fixed number of bisection steps on a
bracket that always holds a sign change, so the function jits and vmaps.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from piramida.physics import arrays
from piramida.physics.params import PhysicsParams

# Tangential inverse-mass coefficient of a solid sphere against a fixed half-space:
# 1 + m R^2 / I with I = (2/5) m R^2.
BETA_T = 3.5
# Normal inverse-mass coefficient (the cushion does not move).
BETA_N = 1.0
# Normal spring stiffness (N/m). Arbitrary: it sets the contact duration, not the outcome,
# which depends only on omega_t / omega_n. pooltool's value, kept so times match.
K_N = 1e3
# Tangential-to-normal frequency ratio omega_t / omega_n; pooltool's default resolver uses
# 1.8 (its class default is 1.7). It must lie in (1, 2); eta^2 = (BETA_T / BETA_N) / ratio^2.
DEFAULT_OMEGA_RATIO = 1.8
# numpy.isclose defaults: pooltool snaps the slip time to t_c or t_f when the slip ratio is
# this close to a case boundary (|a - b| <= ATOL + RTOL |b|). Reproduced for agreement.
ISCLOSE_RTOL = 1e-5
ISCLOSE_ATOL = 1e-8
# Bisection halvings of [t_c, t_f]: e t_c / 2^60 is far below one ulp of t_f.
BISECTION_STEPS = 60


def _isclose(a: Any, b: Any) -> Any:
    """`numpy.isclose(a, b)` with its default tolerances."""
    return jnp.abs(a - b) <= ISCLOSE_ATOL + ISCLOSE_RTOL * jnp.abs(b)


def _arccos(x: Any) -> Any:
    """`arccos` of x clipped to [-1, 1], with a finite gradient at and beyond the ends."""
    inside = jnp.abs(x) < 1.0
    angle = jnp.arccos(jnp.where(inside, x, 0.0))
    return jnp.where(inside, angle, jnp.where(x > 0.0, 0.0, jnp.pi))


def _safe_norm(x: Any) -> Any:
    """Euclidean norm that is 0 (with a finite gradient) at the zero vector."""
    sq = arrays.dot(x, x)
    positive = sq > 0.0
    return jnp.where(positive, jnp.sqrt(jnp.where(positive, sq, 1.0)), 0.0)


def collinear_compliant(
    v_t0: Any, v_n0: Any, m: Any, mu: Any, e: Any, omega_ratio: Any = DEFAULT_OMEGA_RATIO
) -> tuple[Any, Any]:
    """Final tangential and normal contact velocities of the compliant frictional impact.

    Stronge's collinear compliant collision with restitution e and friction mu, as in
    pooltool's `resolve_collinear_compliant_frictional_inelastic_collision`, including its
    snapping of the slip time at the case boundaries.

    Args:
        v_t0: initial tangential contact velocity, <= 0.
        v_n0: initial normal contact velocity, < 0 (approaching).
        m: effective mass (kg); it only scales the contact duration.
        mu: Coulomb friction coefficient (f_c). Zero means no tangential impulse.
        e: restitution coefficient (e_c), in (0, 1].
        omega_ratio: omega_t / omega_n, in (1, 2).

    Returns:
        (v_tf, v_nf): the tangential and normal contact velocities at separation.

    Note:
        Where pooltool itself misbehaves this returns the continuous answer instead: when
        the slip ratio is within about 1e-8 (relative) of 3.5 mu, the stick starts at t_c to
        rounding, pooltool's root finder sees exactly 0 at t_c and returns it (a jump in
        v_tf) or fails its own `t_stick <= t_slip` assertion; exactly on the gross-slip
        edge its `-1 <= x` assertion fails by rounding.

    """
    ratio_beta = BETA_T / BETA_N
    eta2 = ratio_beta / omega_ratio**2
    omega_n = jnp.sqrt(BETA_N * K_N / m)
    omega_t = omega_n * jnp.sqrt(ratio_beta / eta2)
    t_c = jnp.pi / (2.0 * omega_n)
    t_f = (1.0 + e) * t_c
    shift = (jnp.pi / 2.0) * (1.0 - 1.0 / e)  # phase offset of the restitution quarter

    def phase_restitution(t: Any) -> Any:
        return omega_n * t / e + shift

    no_friction = mu <= 0.0
    mu_s = jnp.where(no_friction, 1.0, mu)
    rho = v_t0 / v_n0  # slip ratio, >= 0
    stick_edge = mu_s * eta2  # below: the contact sticks from the start
    gross_edge = mu_s * ((1.0 + e) * ratio_beta - eta2 / e)  # above: slips throughout
    gross = no_friction | (rho > gross_edge)
    initial_stick = ~gross & (rho < stick_edge)

    # Slip-stick-slip: the moment the initial slip stops, as a fraction tau of t_c.
    below = rho <= mu_s * ratio_beta
    den_c = eta2 - ratio_beta
    den_r = eta2 / e - e * ratio_beta
    den_r = jnp.where(den_r == 0.0, 1.0, den_r)  # then the restitution branch is gross slip
    x_c = (rho / mu_s - ratio_beta) / den_c
    x_r = (rho / mu_s - ratio_beta) / den_r
    tau = jnp.where(
        below,
        (2.0 / jnp.pi) * _arccos(x_c),
        e * (2.0 / jnp.pi) * (_arccos(x_r) - shift),
    )
    t_st_sss = t_c * tau
    in_compression = t_st_sss <= t_c
    phase_st = jnp.where(in_compression, omega_n * t_st_sss, phase_restitution(t_st_sss))
    u_st_sss = -mu_s * v_n0 * eta2 / omega_n * jnp.sin(phase_st)
    v_st_sss = v_t0 - mu_s * ratio_beta * v_n0 * (1.0 - jnp.where(in_compression, 1.0, e) * jnp.cos(phase_st))

    # Initial stick is slip-stick-slip with the stick starting at t = 0 at rest.
    t_st = jnp.where(initial_stick, 0.0, t_st_sss)
    u_st = jnp.where(initial_stick, 0.0, u_st_sss)
    v_st = jnp.where(initial_stick, v_t0, v_st_sss)

    def excess(t: Any) -> Any:
        """Tangential spring force over the friction limit, in units of mu m |v_n0| omega_n.

        Negative while the contact sticks; zero when it starts to slip again.
        """
        s = omega_t * (t - t_st)
        spring = omega_n / (mu_s * v_n0) * (u_st * jnp.cos(s) - v_st / omega_t * jnp.sin(s))
        return jnp.abs(spring) - eta2 * jnp.sin(phase_restitution(t))

    # The contact sticks from max(t_c, t_st) (excess < 0 there, or 0 at t_st itself) and
    # must slip by t_f, where the normal force is gone (excess >= 0). Bisect that bracket.
    # Before t_st the stick formula is an extrapolation with no meaning, so it is left out.
    def bisect(_: int, bracket: tuple[Any, Any]) -> tuple[Any, Any]:
        lo, hi = bracket
        mid = 0.5 * (lo + hi)
        slips = excess(mid) > 0.0
        return jnp.where(slips, lo, mid), jnp.where(slips, mid, hi)

    lo, hi = jax.lax.fori_loop(0, BISECTION_STEPS, bisect, (jnp.maximum(t_c, t_st), t_f))
    t_slip = 0.5 * (lo + hi)
    # pooltool's snaps (checked in its order, first match wins).
    near_zero = _isclose(rho, 0.0)
    near_stick = _isclose(rho, stick_edge)
    near_gross = _isclose(rho, gross_edge)
    t_slip = jnp.where(
        initial_stick,
        jnp.where(near_zero, t_f, jnp.where(near_stick, t_c, t_slip)),
        jnp.where(near_stick, t_c, jnp.where(near_gross, t_f, t_slip)),
    )

    s = omega_t * (t_slip - t_st)
    v_slip = omega_t * u_st * jnp.sin(s) + v_st * jnp.cos(s)
    v_tf_stick = v_slip + mu_s * ratio_beta * v_n0 * e * (1.0 + jnp.cos(phase_restitution(t_slip)))
    v_tf_gross = v_t0 - mu * v_n0 * ratio_beta * (1.0 + e)
    v_tf = jnp.where(gross, v_tf_gross, v_tf_stick)
    v_nf = e * v_n0 * jnp.cos(phase_restitution(t_f))  # = -e v_n0
    return v_tf, v_nf


def stronge_compliant(
    V: Any, W: Any, p: PhysicsParams, h: Any, reach: Any, omega_ratio: Any = DEFAULT_OMEGA_RATIO
) -> tuple[Any, Any]:
    """Ball-cushion contact by Stronge's compliant model (pooltool's `stronge_compliant`).

    Args:
        V: (3,) ball velocity in the cushion frame: x along the horizontal inward normal
            (from the ball INTO the cushion, so V[0] > 0 when approaching), y along the
            cushion (y = z_hat x x_hat), z up. V[2] = 0.
        W: (3,) angular velocity in the same frame.
        p: ball constants; uses p.R, p.m, p.e_c and p.f_c.
        h: cushion contact height above the cloth (m).
        reach: horizontal distance (m) from the contact edge (the segment line, or a
            jaw-nose circle's centre) to the ball centre at contact. pooltool uses R + 1e-6
            for straight segments and R + rho + 1e-6 for circular noses (rho = nose
            radius). The 3D contact normal, from the edge to the ball centre, is
            unit((-reach, 0, R - h)).
        omega_ratio: omega_t / omega_n, in (1, 2); pooltool's default resolver uses 1.8.

    Returns:
        (V_new, W_new): (3,) each in the same frame, with V_new[2] = 0. A ball that is not
        approaching along the 3D normal (n . V >= 0) is returned unchanged.

    """
    V = jnp.asarray(V)
    W = jnp.asarray(W)
    R = p.R
    reach = jnp.asarray(reach, dtype=V.dtype)
    normal = jnp.stack([-reach, jnp.zeros_like(reach), R - h + jnp.zeros_like(reach)])
    normal = normal / arrays.norm(normal)
    # Velocity of the ball's point of contact, at -R n from its centre.
    v_c = V + jnp.cross(W, -R * normal)
    # Spin adds nothing along the normal: take v_n0 from V alone, so that a ball sliding
    # along the cushion (n . V = 0) is never "approaching" by rounding.
    v_n0 = arrays.dot(normal, V)
    n_cross_v = jnp.cross(normal, v_c)
    slip = _safe_norm(n_cross_v)
    v_t0 = -slip
    has_slip = slip > 0.0
    # Unit tangent with v_t0 * t_hat the tangential part of v_c (zero when there is none).
    t_hat = jnp.where(has_slip, jnp.cross(n_cross_v, normal) / jnp.where(has_slip, v_t0, -1.0), 0.0)

    approaching = v_n0 < 0.0
    v_n0_safe = jnp.where(approaching, v_n0, -1.0)
    v_tf, v_nf = collinear_compliant(v_t0, v_n0_safe, p.m, p.f_c, p.e_c, omega_ratio)

    dv_n = (v_nf - v_n0_safe) / BETA_N
    dv_t = (v_tf - v_t0) / BETA_T
    V_new = V + dv_n * normal + dv_t * t_hat
    # Spin change from the friction impulse at -R n: (m R / I) (-n x dv), m R^2 / I = 2.5.
    W_new = W + (2.5 / R) * jnp.cross(-normal, dv_t * t_hat)
    V_new = V_new.at[2].set(0.0)
    return jnp.where(approaching, V_new, V), jnp.where(approaching, W_new, W)
