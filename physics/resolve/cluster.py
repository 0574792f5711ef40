"""Simultaneous ball-ball contacts: every contact due at one instant, resolved together.

A contact resolved alone is `ball_ball.collide`. When several are due at the same instant
(the apex of a struck rack meets both balls of the second row; a ball is met from two
sides; a zero-time chain reaches two touching neighbours at once), resolving them one
after the other in some order gives a result that depends on that order: a perfectly
symmetric break would not stay symmetric. Here the set is resolved as one impact, by a law
that treats every contact alike:

1. Kiss: each contact proposes `kiss.ball_ball`'s positions for its two balls; a ball in
   several contacts moves by the mean of its proposals (one contact: exactly the kiss).
2. Normal impulses: Newton's restitution law at every contact at once (Moreau's impact
   law): impulses P_k >= 0 such that each contact leaves with a separation speed of at
   least e_b times its approach speed, with equality wherever P_k > 0. For equal masses
   this is a linear complementarity problem with the matrix A_kl = n_k . n_l (+-, over the
   balls the contacts share), solved by projected Jacobi iteration: every contact corrects
   its impulse from the same velocities, so the iteration commutes with any relabelling
   of the balls (a mirror image in, the mirror image out, up to rounding). The relaxation
   1 / (most contacts on one ball) bounds the spectral radius of the Jacobi step (Gershgorin)
   so it converges. Energy: the change is -(1 - e)/2 sum_k P_k a_k (a_k >= 0 the approach
   speeds), never positive for 0 <= e <= 1; with e = 1 it is conserved.
3. Friction (`frictional_inelastic`): each contact then applies `collide`'s throw impulse
   from the velocities after step 2, with its own solved normal impulse: Alciatore's
   mu(slip), an impulse mu * dvn against the contact's slip, or the impulse that ends the
   slip where that would reverse it. `collide` takes dvn = |v2n - v1n| after the impact,
   e a for one contact, whose normal impulse is P = (1 + e) a / 2; here dvn = 2 e P / (1 + e),
   the same for one contact and zero for a contact that carries no load. Each contact's
   cap holds for that contact alone; in case the impulses of contacts that share a ball
   add up past where their slips would reverse together, all of them are scaled by the
   common factor that minimises the kinetic energy (the cluster's stick cap), so friction
   never adds energy.

All sums over contacts run in a fixed order (the kernel's results do not depend on the
batch), so mirror-image contacts differ only by rounding.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from piramida.physics import arrays
from piramida.physics.params import Models, PhysicsParams
from piramida.physics.resolve import ball_ball, kiss

# Jacobi sweeps at most; a cluster of the break converges in a few dozen.
MAX_SWEEPS = 400
# Converged when no impulse (m/s per unit mass) changes by more than this times the
# fastest ball of the cluster: float64 rounding, with room.
TOLERANCE = 1e-14


def _over_partners(x: Any) -> Any:
    """Sum of x[i, j, ...] over j, added in index order: (N, N, ...) -> (N, ...)."""
    total = x[:, 0]
    for k in range(1, x.shape[1]):
        total = total + x[:, k]
    return total


def _over_balls(x: Any) -> Any:
    """Sum of x[i] over i, in index order."""
    total = x[0]
    for k in range(1, x.shape[0]):
        total = total + x[k]
    return total


def _pad(x: Any) -> Any:
    """(..., 2) -> (..., 3) with z = 0."""
    return jnp.concatenate([x, jnp.zeros((*x.shape[:-1], 1))], axis=-1)


def kiss_all(r: Any, v: Any, contacts: Any, moving: Any, R: Any) -> Any:
    """Positions (N, 2) with every contact's balls kissed, a shared ball by its mean move.

    Args:
      contacts: (N, N) symmetric, which pairs are in contact.
      moving: (N,) which balls translate.

    """
    n = r.shape[0]
    ids = jnp.arange(n)

    def proposal(i: Any, j: Any) -> Any:
        kissed, _ = kiss.ball_ball(r[i], v[i], r[j], v[j], moving[i] | moving[j], R)
        return kissed - r[i]

    # The kiss of (j, i) mirrors that of (i, j): row i holds ball i's moves.
    moves = jax.vmap(lambda i: jax.vmap(lambda j: proposal(i, j))(ids))(ids)
    moves = jnp.where(contacts[..., None], moves, 0.0)
    count = _over_partners(contacts.astype(r.dtype))
    return r + _over_partners(moves) / jnp.maximum(count, 1.0)[:, None]


def _normals(r: Any, contacts: Any) -> Any:
    """Unit vectors n[i, j] from ball i to ball j, (N, N, 2); 0 off the contacts."""
    d = r[None, :, :] - r[:, None, :]
    dist = arrays.norm(d)
    return jnp.where(contacts[..., None], d / jnp.where(contacts, dist, 1.0)[..., None], 0.0)


def _separation(v: Any, normal: Any) -> Any:
    """Separation speed (v_j - v_i) . n_ij of every pair, (N, N)."""
    return arrays.dot(v[None, :, :] - v[:, None, :], normal)


def normal_impulses(v: Any, normal: Any, contacts: Any, e: Any) -> tuple[Any, Any]:
    """Normal impulses per unit mass (N, N) of simultaneous Newton restitution, and velocities.

    Ball j of contact (i, j) receives P[i, j] n[i, j], ball i the opposite.
    """
    approach = jnp.maximum(-_separation(v, normal), 0.0)
    target = e * approach
    count = _over_partners(contacts.astype(v.dtype))
    relax = 1.0 / jnp.maximum(jnp.max(count), 1.0)
    speed = jnp.max(jnp.where(count > 0, arrays.norm(v), 0.0))
    tolerance = TOLERANCE * speed

    def velocities(impulse: Any) -> Any:
        return v - _over_partners(impulse[..., None] * normal)

    def sweep(state: tuple[Any, Any, Any]) -> tuple[Any, Any, Any]:
        sweeps, impulse, _ = state
        shortfall = target - _separation(velocities(impulse), normal)
        new = jnp.where(contacts, jnp.maximum(impulse + 0.5 * relax * shortfall, 0.0), 0.0)
        return sweeps + 1, new, jnp.max(jnp.abs(new - impulse))

    def going(state: tuple[Any, Any, Any]) -> Any:
        sweeps, _, change = state
        return (sweeps < MAX_SWEEPS) & (change > tolerance)

    start = (jnp.int32(0), jnp.zeros_like(approach), jnp.asarray(jnp.inf, v.dtype))
    _, impulse, _ = jax.lax.while_loop(going, sweep, start)
    return impulse, velocities(impulse)


def friction_impulses(
    v: Any, w: Any, normal: Any, impulse: Any, contacts: Any, p: PhysicsParams, models: Models
) -> tuple[Any, Any]:
    """Changes of velocity (N, 2) and spin (N, 3) from every contact's friction (throw)."""
    n3 = _pad(normal)
    v3 = _pad(v)
    # Relative velocity of the contact points (ball i's minus ball j's), tangential part.
    spin_sum = w[:, None, :] + w[None, :, :]
    slip = v3[:, None, :] - v3[None, :, :] + jnp.cross(spin_sum, p.R * n3)
    slip = slip - arrays.dot(slip, n3)[..., None] * n3
    speed = arrays.norm(slip)
    if models.alciatore_friction:
        mu = ball_ball.ALCIATORE_A + ball_ball.ALCIATORE_B * jnp.exp(-ball_ball.ALCIATORE_C * speed)
    else:
        mu = p.u_b * jnp.ones_like(speed)
    dvn = 2 * p.e_b / (1 + p.e_b) * impulse
    # Sliding throughout, or (slip would reverse) the impulse that ends the slip: the slip
    # changes by 7 times the impulse per unit mass (2 from the velocities, 5 from the spins).
    size = jnp.minimum(mu * dvn, speed / 7)
    has_slip = contacts & (speed > 1e-14)
    dv = jnp.where(
        has_slip[..., None], -size[..., None] * slip / jnp.where(has_slip, speed, 1.0)[..., None], 0.0
    )
    dw = 2.5 / p.R * jnp.cross(n3, dv)
    # Planar kernel: the vertical velocity that spin-induced throw would add is dropped.
    delta_v = _over_partners(dv[..., :2])
    delta_w = _over_partners(dw)
    # Cluster stick cap: the energy along s * (delta_v, delta_w) is E0 + s lin + s^2 quad.
    k = 0.4 * p.R**2  # I / m of a solid sphere
    lin = _over_balls(arrays.dot(v, delta_v) + k * arrays.dot(w, delta_w))
    quad = 0.5 * _over_balls(arrays.dot(delta_v, delta_v) + k * arrays.dot(delta_w, delta_w))
    rises = lin + quad > 0
    scale = jnp.where(rises, jnp.clip(-lin / jnp.where(rises, 2 * quad, 1.0), 0.0, 1.0), 1.0)
    return scale * delta_v, scale * delta_w


def resolve(
    r: Any, v: Any, w: Any, contacts: Any, moving: Any, p: PhysicsParams, models: Models
) -> tuple[Any, Any, Any]:
    """Positions, velocities and spins of all balls after the simultaneous contacts.

    Args:
      r, v, w: (N, 2), (N, 2), (N, 3) the balls at the instant of the contacts.
      contacts: (N, N) the pairs in contact (either triangle or both).
      moving: (N,) which balls translate.

    Returns:
      The new (r, v, w); balls in no contact keep theirs exactly.

    """
    contacts = contacts | contacts.T
    r = kiss_all(r, v, contacts, moving, p.R)
    normal = _normals(r, contacts)
    impulse, v_new = normal_impulses(v, normal, contacts, p.e_b)
    if models.ball_ball == "frictionless_elastic":
        return r, v_new, w
    delta_v, delta_w = friction_impulses(v_new, w, normal, impulse, contacts, p, models)
    return r, v_new + delta_v, w + delta_w
