"""Simultaneous ball-ball contacts: every contact due at one instant, resolved together.

Resolving such contacts one after the other gives a result that depends on the order: a
perfectly symmetric break would not stay symmetric. Here the set is one impact, by a law
that treats every contact alike:

1. Kiss: each contact proposes `kiss.ball_ball`'s positions for its two balls; a ball in
   several contacts moves by the mean of its proposals (one contact: exactly the kiss).
2. Normal impulses: Newton's restitution law at every contact at once (Moreau's impact
   law), impulses P_k >= 0 such that each contact leaves with at least e_b times its
   approach speed, with equality wherever P_k > 0: a linear complementarity problem
   solved by projected Jacobi iteration (every contact corrects its impulse from the same
   velocities, so the result commutes with any relabelling of the balls). The relaxation
   1 / (most contacts on one ball) keeps the Jacobi step convergent (Gershgorin).
3. Friction (`frictional_inelastic`): each contact applies `collide`'s throw impulse
   with its own solved normal impulse, capped where its slip would reverse; if the
   contacts sharing a ball together overshoot, all are scaled by the factor that
   minimises the kinetic energy, so friction never adds energy.

Contacts are held as a list (`first`, `second`, i < j, in row-major pair order); at an
instant the balls touch, so their contact graph is planar: at most 3 N - 6 contacts.
"""

from __future__ import annotations

import warp as wp

from piramida.physics.engine import kiss
from piramida.physics.engine.collide import friction_coefficient
from piramida.physics.engine.motion import Params

F = wp.float64
MAX_CONTACTS = wp.constant(48)  # >= 3 * 16 - 6
MAX_SWEEPS = wp.constant(400)  # Jacobi sweeps at most; a cluster of the break converges in dozens
# Converged when no impulse (m/s per unit mass) changes by more than this times the
# fastest ball of the cluster: float64 rounding, with room.
TOLERANCE = wp.constant(wp.float64(1e-14))


@wp.func
def kiss_all(
    r: wp.array(dtype=wp.vec2d),
    v: wp.array(dtype=wp.vec2d),
    moving: wp.array(dtype=wp.int32),
    partners: wp.array(dtype=wp.int32),
    moved: wp.array(dtype=wp.vec2d),
    n: wp.int32,
    R: wp.float64,
):
    """Kiss every contact; a ball in several moves by the mean of its proposals.

    `partners[i]` has bit j set when balls i and j are in contact; every proposal is made
    from the same positions.
    """
    for i in range(n):
        total = wp.vec2d(F(0.0), F(0.0))
        count = F(0.0)
        for j in range(n):
            if (partners[i] >> j) & 1 == 1:
                kissed, _ = kiss.ball_ball(r[i], v[i], r[j], v[j], moving[i] == 1 or moving[j] == 1, R)
                total = total + (kissed - r[i])
                count = count + F(1.0)
        moved[i] = r[i] + total / wp.max(count, F(1.0))
    for i in range(n):
        r[i] = moved[i]


@wp.func
def apply_impulses(
    v0: wp.array(dtype=wp.vec2d),
    out: wp.array(dtype=wp.vec2d),
    n: wp.int32,
    contacts: wp.int32,
    first: wp.array(dtype=wp.int32),
    second: wp.array(dtype=wp.int32),
    normal: wp.array(dtype=wp.vec2d),
    impulse: wp.array(dtype=wp.float64),
):
    """Velocities after the normal impulses: ball j of contact (i, j) receives P n, ball i -P n."""
    for i in range(n):
        out[i] = v0[i]
    for k in range(contacts):
        push = impulse[k] * normal[k]
        out[first[k]] = out[first[k]] - push
        out[second[k]] = out[second[k]] + push


@wp.func
def resolve(
    r: wp.array(dtype=wp.vec2d),
    v: wp.array(dtype=wp.vec2d),
    w: wp.array(dtype=wp.vec3d),
    moving: wp.array(dtype=wp.int32),
    n: wp.int32,
    contacts: wp.int32,
    first: wp.array(dtype=wp.int32),
    second: wp.array(dtype=wp.int32),
    partners: wp.array(dtype=wp.int32),
    normal: wp.array(dtype=wp.vec2d),
    impulse: wp.array(dtype=wp.float64),
    target: wp.array(dtype=wp.float64),
    v_new: wp.array(dtype=wp.vec2d),
    dv: wp.array(dtype=wp.vec2d),
    dw: wp.array(dtype=wp.vec3d),
    p: Params,
):
    """Positions, velocities and spins of all balls after the simultaneous contacts, in place."""
    kiss_all(r, v, moving, partners, v_new, n, p.R)
    most = F(1.0)
    speed = F(0.0)
    for i in range(n):
        count = F(0.0)
        for j in range(n):
            if (partners[i] >> j) & 1 == 1:
                count = count + F(1.0)
        most = wp.max(most, count)
        if count > F(0.0):
            speed = wp.max(speed, wp.length(v[i]))
    for k in range(contacts):
        normal[k] = wp.normalize(r[second[k]] - r[first[k]])
        target[k] = p.e_b * wp.max(-wp.dot(v[second[k]] - v[first[k]], normal[k]), F(0.0))
        impulse[k] = F(0.0)
    relax = F(1.0) / most
    tolerance = TOLERANCE * speed
    sweeps = int(0)
    change = F(wp.inf)
    while sweeps < MAX_SWEEPS and change > tolerance:
        apply_impulses(v, v_new, n, contacts, first, second, normal, impulse)
        change = F(0.0)
        for k in range(contacts):
            separation = wp.dot(v_new[second[k]] - v_new[first[k]], normal[k])
            updated = wp.max(impulse[k] + F(0.5) * relax * (target[k] - separation), F(0.0))
            change = wp.max(change, wp.abs(updated - impulse[k]))
            impulse[k] = updated
        sweeps = sweeps + 1
    apply_impulses(v, v_new, n, contacts, first, second, normal, impulse)
    if p.frictionless:
        for i in range(n):
            v[i] = v_new[i]
        return
    for i in range(n):
        dv[i] = wp.vec2d(F(0.0), F(0.0))
        dw[i] = wp.vec3d(F(0.0), F(0.0), F(0.0))
    for k in range(contacts):
        a = first[k]
        b = second[k]
        n3 = wp.vec3d(normal[k][0], normal[k][1], F(0.0))
        rel = v_new[a] - v_new[b]
        slip = wp.vec3d(rel[0], rel[1], F(0.0)) + wp.cross(w[a] + w[b], p.R * n3)
        slip = slip - wp.dot(slip, n3) * n3
        slip_speed = wp.length(slip)
        if slip_speed > F(1e-14):
            dvn = F(2.0) * p.e_b / (F(1.0) + p.e_b) * impulse[k]
            # Sliding throughout, or (slip would reverse) the impulse that ends the slip:
            # the slip changes by 7 times the impulse per unit mass.
            size = wp.min(friction_coefficient(slip_speed, p) * dvn, slip_speed / F(7.0))
            step = -size / slip_speed * slip
            spin = F(2.5) / p.R * wp.cross(n3, step)
            # Planar kernel: the vertical velocity that spin-induced throw would add is dropped.
            dv[a] = dv[a] + wp.vec2d(step[0], step[1])
            dv[b] = dv[b] - wp.vec2d(step[0], step[1])
            dw[a] = dw[a] + spin
            dw[b] = dw[b] + spin
    # Cluster stick cap: the energy along s (dv, dw) is E0 + s lin + s^2 quad.
    k_inertia = F(0.4) * p.R * p.R
    lin = F(0.0)
    quad = F(0.0)
    for i in range(n):
        lin = lin + wp.dot(v_new[i], dv[i]) + k_inertia * wp.dot(w[i], dw[i])
        quad = quad + F(0.5) * (wp.dot(dv[i], dv[i]) + k_inertia * wp.dot(dw[i], dw[i]))
    scale = F(1.0)
    if lin + quad > F(0.0):
        scale = wp.clamp(-lin / (F(2.0) * quad), F(0.0), F(1.0))
    for i in range(n):
        v[i] = v_new[i] + scale * dv[i]
        w[i] = w[i] + scale * dw[i]
