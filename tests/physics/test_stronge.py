"""Stronge's compliant ball-cushion model (`piramida.physics.resolve.stronge`)."""

from __future__ import annotations

import math
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from piramida.physics import POOLTOOL_PARAMS, PhysicsParams
from piramida.physics.resolve.stronge import (
    BETA_T,
    DEFAULT_OMEGA_RATIO,
    collinear_compliant,
    stronge_compliant,
)

R = POOLTOOL_PARAMS.R
H_DEFAULT = 0.64 * 2 * R  # pooltool's default cushion height
REACH_LINEAR = R + 1e-6  # pooltool's make_kiss spacer
ETA2 = BETA_T / DEFAULT_OMEGA_RATIO**2


def _params(e_c: Any, f_c: Any) -> PhysicsParams:
    return POOLTOOL_PARAMS.replace(e_c=e_c, f_c=f_c)


# One compiled program for every batch: params, height and reach are mapped too.
_batched = jax.jit(
    jax.vmap(lambda V, W, e_c, f_c, h, reach: stronge_compliant(V, W, _params(e_c, f_c), h, reach))
)


def _resolve(V: Any, W: Any, e_c: Any, f_c: Any, h: Any, reach: Any) -> tuple[Any, Any]:
    n = len(V)
    full = [np.broadcast_to(np.asarray(x, dtype=np.float64), (n,)) for x in (e_c, f_c, h, reach)]
    V_new, W_new = _batched(jnp.asarray(V), jnp.asarray(W), *map(jnp.asarray, full))
    return np.asarray(V_new), np.asarray(W_new)


def _energy(V: Any, W: Any) -> Any:
    """Kinetic energy per unit mass (translation plus rotation, I = 2/5 m R^2)."""
    return 0.5 * np.sum(V * V, axis=-1) + 0.5 * 0.4 * R**2 * np.sum(W * W, axis=-1)


def _random_cushion_frame(rng: np.random.Generator, n: int) -> dict[str, Any]:
    """Random approaches in the cushion frame: speeds, incidence, side and top/back spin."""
    speed = rng.uniform(0.05, 8.0, n)
    incidence = rng.uniform(-1.45, 1.45, n)  # up to 83 degrees from the normal
    V = np.stack([speed * np.cos(incidence), speed * np.sin(incidence), np.zeros(n)], axis=1)
    # Spin from almost none to about 2.5 v / R per axis, so that every case of the model
    # (initial stick, slip-stick-slip, gross slip) gets a fair share.
    spin = speed / R * 10.0 ** rng.uniform(-2.5, 0.4, n)
    W = rng.normal(size=(n, 3)) * spin[:, None]
    rolling = rng.random(n) < 0.25  # a quarter roll in, some of them with side spin
    W[rolling, 0] = -V[rolling, 1] / R
    W[rolling, 1] = V[rolling, 0] / R
    W[rolling, 2] *= rng.random(rolling.sum()) < 0.5
    return {
        "V": V,
        "W": W,
        "e_c": rng.uniform(0.6, 0.95, n),
        "f_c": rng.uniform(0.05, 0.4, n),
        "h": rng.uniform(1.05, 1.6, n) * R,
        "reach": R + 1e-6 + np.where(rng.random(n) < 0.5, 0.0, rng.uniform(0.0, 0.05, n)),
    }


def _pooltool_reference(n: int, seed: int) -> tuple[dict[str, Any], Any, Any, Any]:
    """Random contacts resolved by pooltool's own resolvers (odd ones on circular noses).

    Returns the cases in the cushion frame, pooltool's v and w in the table frame, and the
    rotations from the cushion frame to the table frame.
    """
    from pooltool.objects.ball.datatypes import Ball, BallParams, BallState
    from pooltool.objects.table.components import CircularCushionSegment, LinearCushionSegment
    from pooltool.physics.resolve.ball_cushion.stronge_compliant import (
        StrongeCompliantCircular,
        StrongeCompliantLinear,
    )

    # The model is passed explicitly, never read from ~/.config/pooltool.
    linear_model = StrongeCompliantLinear(omega_ratio=DEFAULT_OMEGA_RATIO)
    circular_model = StrongeCompliantCircular(omega_ratio=DEFAULT_OMEGA_RATIO)

    rng = np.random.default_rng(seed)
    case = _random_cushion_frame(rng, n)
    circular = np.arange(n) % 2 == 1
    nose = rng.uniform(0.002, 0.05, n)
    case["reach"] = np.where(circular, R + nose + 1e-6, REACH_LINEAR)
    psi = rng.uniform(-math.pi, math.pi, n)  # direction of the inward normal on the table

    ref_v = np.empty((n, 3))
    ref_w = np.empty((n, 3))
    rot = np.zeros((n, 3, 3))  # cushion frame -> table frame
    for i in range(n):
        c, s = math.cos(psi[i]), math.sin(psi[i])
        rot[i] = [[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]]
        inward = np.array([c, s, 0.0])
        edge = np.array([0.3, -0.2, float(case["h"][i])])  # on the cushion line / nose centre
        v = rot[i] @ case["V"][i]
        contact = edge - float(case["reach"][i]) * inward
        contact[2] = R
        # 0.1 micron short of contact along the path: pooltool's make_kiss moves it there.
        rvw = np.array([contact - 1e-7 * v / np.linalg.norm(v), v, rot[i] @ case["W"][i]])
        params = BallParams(m=POOLTOOL_PARAMS.m, R=R, e_c=float(case["e_c"][i]), f_c=float(case["f_c"][i]))
        ball = Ball(id="cue", params=params, state=BallState(rvw=rvw, s=2, t=0.0))
        if circular[i]:
            cushion: Any = CircularCushionSegment(id="jaw", center=edge, radius=float(nose[i]))
            out, _ = circular_model.resolve(ball, cushion)
        else:
            along = np.array([-s, c, 0.0])
            cushion = LinearCushionSegment(id="rail", p1=edge - 0.5 * along, p2=edge + 0.7 * along)
            out, _ = linear_model.resolve(ball, cushion)
        ref_v[i], ref_w[i] = out.state.rvw[1], out.state.rvw[2]
    return case, ref_v, ref_w, rot


@pytest.mark.pooltool
def test_agrees_with_pooltool() -> None:
    """400 random contacts through pooltool's resolvers, compared in the table frame."""
    case, ref_v, ref_w, rot = _pooltool_reference(400, seed=20240611)
    V_new, W_new = _resolve(**case)
    v = np.einsum("nij,nj->ni", rot, V_new)
    w = np.einsum("nij,nj->ni", rot, W_new)
    v_scale = np.linalg.norm(case["V"], axis=1)[:, None]
    w_scale = np.maximum(np.linalg.norm(case["W"], axis=1), v_scale[:, 0] / R)[:, None]
    assert np.max(np.abs(v - ref_v)) < 1e-9
    assert np.max(np.abs(w - ref_w)) < 1e-9 * R**-1  # w is about v / R
    assert np.max(np.abs(v - ref_v) / v_scale) < 1e-12
    assert np.max(np.abs(w - ref_w) / w_scale) < 1e-12


def test_rolling_straight_in_rebound() -> None:
    """A ball rolling at 1 m/s straight into a default rail leaves at 0.8116 m/s."""
    V_new, W_new = _resolve(
        np.array([[1.0, 0.0, 0.0]]),
        np.array([[0.0, 1.0 / R, 0.0]]),
        0.85,
        0.2,
        H_DEFAULT,
        REACH_LINEAR,
    )
    assert V_new[0, 0] == pytest.approx(-0.8116, abs=1e-3)
    np.testing.assert_allclose(V_new[0, 1:], 0.0, atol=1e-15)
    np.testing.assert_allclose(W_new[0, [0, 2]], 0.0, atol=1e-12)
    # The tilted normal turns most of the topspin around: it leaves far from rolling.
    assert 0.0 < W_new[0, 1] < 0.5 / R


def test_energy_never_rises() -> None:
    case = _random_cushion_frame(np.random.default_rng(7), 4000)
    V_new, W_new = _resolve(**case)
    assert np.all(np.isfinite(V_new)) and np.all(np.isfinite(W_new))
    before, after = _energy(case["V"], case["W"]), _energy(V_new, W_new)
    assert np.all(after <= before * (1.0 + 1e-12))
    assert np.all(V_new[:, 2] == 0.0)


def test_normal_velocity_reverses() -> None:
    """On a rail of pooltool's height every approach leaves the cushion.

    (On a much higher rail, h = 1.6 R, with f_c = 0.36, a slow grazing ball with back spin
    can keep a little inward horizontal speed: friction along the steep tilted normal
    outweighs the rebound. pooltool does the same.)
    """
    case = _random_cushion_frame(np.random.default_rng(8), 4000)
    case["h"] = np.full(4000, H_DEFAULT)
    V_new, _ = _resolve(**case)
    assert np.all(case["V"][:, 0] > 0.0)
    assert np.all(V_new[:, 0] < 0.0)


def test_gross_slip_friction_impulse() -> None:
    """Strong side spin slips throughout: the friction impulse is f_c times the normal one."""
    n = 50
    speed = np.linspace(0.1, 6.0, n)
    V = np.stack([speed, np.zeros(n), np.zeros(n)], axis=1)
    W = np.stack([np.zeros(n), np.zeros(n), 3.0 * speed / R], axis=1)  # heavy running side
    V_new, W_new = _resolve(V, W, 0.85, 0.2, H_DEFAULT, REACH_LINEAR)
    normal = np.array([-REACH_LINEAR, 0.0, R - H_DEFAULT])
    normal /= np.linalg.norm(normal)
    v_n0 = V @ normal
    # Reconstruct the 3D impulse per unit mass (v_z was dropped, so use the spin change).
    dW = W_new - W
    dv_t = np.cross(normal, dW) * (R / 2.5)  # inverts dW = (2.5/R) (-n) x dv_t
    np.testing.assert_allclose(np.linalg.norm(dv_t, axis=1), 0.2 * 1.85 * np.abs(v_n0), rtol=1e-12)
    np.testing.assert_allclose(dv_t @ normal, 0.0, atol=1e-12)
    # Friction opposes the slip of the contact point (+y here, from the side spin).
    assert np.all(dv_t[:, 1] < 0.0)
    assert np.all(V_new[:, 1] < 0.0)


def test_not_approaching_is_unchanged() -> None:
    V = np.array([[-1.0, 0.3, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 0.0]])
    W = np.array([[10.0, -20.0, 30.0], [0.0, 0.0, 50.0], [1.0, 2.0, 3.0]])
    V_new, W_new = _resolve(V, W, 0.85, 0.2, H_DEFAULT, REACH_LINEAR)
    np.testing.assert_array_equal(V_new, V)
    np.testing.assert_array_equal(W_new, W)


def test_zero_slip_is_finite() -> None:
    """No tangential slip: a head-on ball at the equator height, and one spun to cancel it."""
    normal = np.array([-REACH_LINEAR, 0.0, R - H_DEFAULT])
    normal /= np.linalg.norm(normal)
    V = np.array([[1.0, 0.0, 0.0], [1.5, 0.0, 0.0]])
    V_t = V[1] - (V[1] @ normal) * normal
    W = np.array([[0.0, 0.0, 0.0], np.cross(normal, V_t) / R])
    V_new, W_new = _resolve(V, W, 0.85, 0.2, np.array([R, H_DEFAULT]), REACH_LINEAR)
    assert np.all(np.isfinite(V_new)) and np.all(np.isfinite(W_new))
    np.testing.assert_allclose(V_new[0], [-0.85, 0.0, 0.0], atol=1e-15)
    np.testing.assert_array_equal(W_new[0], 0.0)
    # Sticking throughout: no friction impulse, only the normal one (then v_z is dropped).
    expected = V[1] - (1.0 + 0.85) * (V[1] @ normal) * normal
    expected[2] = 0.0
    np.testing.assert_allclose(V_new[1], expected, atol=1e-12)
    np.testing.assert_allclose(W_new[1], W[1], atol=1e-12)


def test_case_boundaries_are_finite_and_continuous() -> None:
    """Slip ratios exactly on, and just off, the three case boundaries."""
    m, mu, e = POOLTOOL_PARAMS.m, 0.2, 0.85
    stick_edge = mu * ETA2
    gross_edge = mu * ((1.0 + e) * BETA_T - ETA2 / e)
    edges = np.array([0.0, stick_edge, BETA_T * mu, gross_edge])
    rho = np.concatenate([edges, edges * (1 - 1e-4), edges * (1 + 1e-4)])
    v_n0 = -1.3 * np.ones_like(rho)
    solve = jax.jit(jax.vmap(collinear_compliant, in_axes=(0, 0, None, None, None)))
    v_tf, v_nf = map(np.asarray, solve(jnp.asarray(rho * v_n0), jnp.asarray(v_n0), m, mu, e))
    assert np.all(np.isfinite(v_tf))
    np.testing.assert_allclose(v_nf, -e * v_n0, rtol=1e-14)
    on, below, above = v_tf[:4], v_tf[4:8], v_tf[8:]
    # Continuous through 3.5 mu and the gross-slip edge (pooltool snaps the slip time at the
    # stick edge, which makes a jump there by design).
    for k in (2, 3):
        assert abs(on[k] - below[k]) < 1e-3 * 1.3
        assert abs(on[k] - above[k]) < 1e-3 * 1.3
    # Gross slip: the tangential contact velocity changes by 3.5 mu (1 + e) |v_n0|.
    assert on[3] == pytest.approx(-gross_edge * 1.3 + BETA_T * mu * 1.3 * (1 + e), rel=1e-12)
    # Sticking throughout (no slip): it stays zero.
    assert on[0] == pytest.approx(0.0, abs=1e-14)


def test_gradients_are_finite() -> None:
    """Differentiable through every case, including no slip and no approach."""
    case = _random_cushion_frame(np.random.default_rng(9), 64)
    V = np.concatenate([case["V"], [[1.0, 0.0, 0.0], [-1.0, 0.2, 0.0], [0.0, 0.0, 0.0]]])
    W = np.concatenate([case["W"], np.zeros((3, 3))])
    h = np.concatenate([case["h"], [R, H_DEFAULT, H_DEFAULT]])

    def total(V: Any, W: Any, h: Any) -> Any:
        V_new, W_new = stronge_compliant(V, W, POOLTOOL_PARAMS, h, REACH_LINEAR)
        return jnp.sum(V_new) + R * jnp.sum(W_new)

    grads = jax.jit(jax.vmap(jax.grad(total, argnums=(0, 1, 2))))(V, W, h)
    for g in grads:
        assert np.all(np.isfinite(np.asarray(g)))
