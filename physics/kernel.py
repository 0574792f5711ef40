"""The batched event-driven kernel: `simulate` runs whole shots on many tables at once.

One table at a time is written here (STYLE habit 3); `simulate` adds the batch axis with
`vmap` and runs the whole shot inside one `jit`. Each step of the event loop finds the
earliest next event of the table from three caches, advances every ball exactly to it,
resolves it, logs it, and refreshes only the cache entries of the balls it touched:

- `pair_t` (N, N): next ball-ball contact of each pair (absolute time);
- `rail_t` (N,): next contact of each ball with the table (cushion, jaw face, jaw nose,
  pocket capture circle) or centre-line crossing, with its kind and index;
- motion transitions, recomputed in closed form every step (cheap).

Ball-ball contacts due at the same instant (within `SIMULTANEOUS`) are one event, resolved
together by `resolve.cluster` so that no contact goes first; a lone contact is
`resolve.ball_ball.collide`, as pooltool resolves it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import partial
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, PartitionSpec

from piramida.physics import arrays
from piramida.physics import events as ev
from piramida.physics.arrays import put, put_in_place
from piramida.physics.markings import centre_line_side
from piramida.physics.motion import (
    POCKETED,
    ROLLING,
    SLIDING,
    SPINNING,
    BallState,
    acceleration,
    advance,
    classify,
    settle,
    transition_time,
)
from piramida.physics.params import PYRAMID_PARAMS, Models, PhysicsParams
from piramida.physics.resolve import ball_ball, cluster, cushion, kiss
from piramida.physics.roots import first_entry, first_entry_quadratic
from piramida.physics.strike import Strike, strike_ball
from piramida.physics.table import Table
from piramida.physics.validate import check_balls, check_strikes

# Kinds of table contact in the rail cache.
LINE, ARC, HOLE, CENTRE = range(4)
# Gap (m) within which a ball counts as touching a cushion or another ball for the log
# and the start snapshot: the rules' epsilon_contact (RULES.en.md III.6).
CONTACT_EPS = 1e-4
DEFAULT_CAPACITY = 256
# Events per chunk of the event loop (see `_run_events`).
CHUNK_EVENTS = 8
# Tables stepped together (see `_run_events`). Every table is computed by code compiled
# for exactly this many tables, whatever the batch size, so a table's result does not
# depend on the batch it came in (XLA fuses, and so rounds, differently per shape). A CPU
# gains little from wide windows; a GPU needs them to fill its cores.
CPU_WINDOW = 8
ACCELERATOR_WINDOW = 8192
WINDOW_AXIS = "window"  # the name of the window's vmapped axis
# Events due within this time (s) of the earliest happen at once (`_next_event`). Mirror
# images in a symmetric shot are due at the same time up to rounding, but slow contacts
# magnify it (a position error dx shifts a contact at closing speed u by dx / u): measured
# 2.4e-12 s apart in a 3 m/s break's pushes, which 1e-12 s let through and this does not.
# A ball-ball impact lasts ~1e-4 s; at 10 m/s a ball moves 1e-8 m in this time.
SIMULTANEOUS = 1e-9


def default_window() -> int:
    """The window for the default backend: narrow on a CPU, wide on a GPU."""
    return CPU_WINDOW if jax.default_backend() == "cpu" else ACCELERATOR_WINDOW


@jax.tree_util.register_dataclass
@dataclass(frozen=True)
class Snapshot:
    """Facts at shot start that the referee needs (RULES.en.md III.2).

    Attributes:
      cushion: (N,) cushion piece each ball touches (cushion id, 6 + pocket for a jaw, -1).
      touching: (N, N) which balls touch each other (S-5).
      on_centre_line: (N,) centres on the centre line (S-2, G20 note 3).

    """

    cushion: Any
    touching: Any
    on_centre_line: Any


@jax.tree_util.register_dataclass
@dataclass(frozen=True)
class ShotResult:
    """Everything a shot produced, per table.

    Attributes:
      final: ball states when the last ball stopped.
      pocket: (N,) pocket id of each pocketed ball, -1 otherwise.
      pocket_time: (N,) when it was pocketed (inf if not).
      log: the event log.
      duration: time of the last event (s).
      start: the start snapshot.
      history: if recorded, the ball states right after each logged event, (C, N, ...);
        between events each ball follows `motion.advance` exactly.

    """

    final: BallState
    pocket: Any
    pocket_time: Any
    log: ev.EventLog
    duration: Any
    start: Snapshot
    history: BallState | None


@jax.tree_util.register_dataclass
@dataclass(frozen=True)
class _Sim:
    t: Any
    balls: BallState
    side: Any
    pocket: Any
    pocket_time: Any
    pair_t: Any
    rail_t: Any
    rail_kind: Any
    rail_idx: Any
    log: ev.EventLog
    history: BallState | None
    pending: Any  # (N,) balls whose cache entries still need refreshing
    done: Any


def contact_distance(table: Table, p: PhysicsParams, models: Models) -> Any:
    """Distance from a cushion's nose line at which a ball centre touches it.

    `nose`: R cos(theta) with sin(theta) = h/R - 1; `equator`: R.
    """
    if models.contact == "equator":
        return p.R
    sin = table.cushion_height / p.R - 1.0
    return p.R * jnp.sqrt(1.0 - sin**2)


def _line_frames(table: Table) -> tuple[Any, Any, Any]:
    d = table.line_b - table.line_a
    length = arrays.norm(d)
    along = d / length[:, None]
    normal = jnp.stack([-along[:, 1], along[:, 0]], axis=-1)
    return along, normal, length


def _circle_coeffs(r: Any, v: Any, half_a: Any, centre: Any, radius: Any) -> Any:
    """Coefficients of |r + v t + half_a t^2 - centre|^2 - radius^2."""
    d = r - centre
    return jnp.stack(
        [
            arrays.dot(d, d) - radius**2,
            2 * arrays.dot(d, v),
            arrays.dot(v, v) + 2 * arrays.dot(d, half_a),
            2 * arrays.dot(v, half_a),
            arrays.dot(half_a, half_a),
        ]
    )


def _translating(s: Any) -> Any:
    return (s == SLIDING) | (s == ROLLING)


def _pair_row(balls: BallState, acc: Any, horizon: Any, k: Any, t: Any, p: PhysicsParams) -> Any:
    """Absolute times of ball k's next contact with every other ball, (N,)."""
    n = balls.s.shape[0]
    moving = _translating(balls.s)
    in_play = balls.s < POCKETED

    def one(m: Any) -> Any:
        coeffs = _circle_coeffs(
            balls.r[k] - balls.r[m], balls.v[k] - balls.v[m], 0.5 * (acc[k] - acc[m]), 0.0, 2 * p.R
        )
        h = jnp.minimum(horizon[k], horizon[m])
        # Any overlap that is closing counts as a contact now: a contact's kiss may have
        # moved one of the balls a few micrometres into this one.
        return first_entry(coeffs, h, jnp.inf)

    times = jax.vmap(one)(jnp.arange(n)) + t
    valid = in_play[k] & in_play & (jnp.arange(n) != k) & (moving[k] | moving)
    return jnp.where(valid, times, jnp.inf)


def _rail_entry(
    balls: BallState, acc: Any, horizon: Any, side: Any, k: Any, t: Any, table: Table, c: Any
) -> tuple[Any, Any, Any]:
    """Ball k's next table contact or centre-line crossing: (absolute time, kind, index)."""
    r, v, half_a = balls.r[k], balls.v[k], 0.5 * acc[k]
    h = horizon[k]
    along, normal, length = _line_frames(table)

    def line_time(a: Any, u: Any, nrm: Any, ln: Any) -> Any:
        def one_side(n_side: Any) -> Any:
            coeffs = jnp.stack(
                [arrays.dot(n_side, r - a) - c, arrays.dot(n_side, v), arrays.dot(n_side, half_a)]
            )
            # An overlap of up to half the contact distance that closes, or turns to close,
            # counts as a contact; the far side of a line is at least 2c away, and must not.
            # A distance that starts inside (beyond the piece's end, in a pocket's mouth)
            # and comes back enters where it falls back through c.
            tau = first_entry_quadratic(coeffs, h, c / 2)
            at = r + v * tau + half_a * tau**2
            s = arrays.dot(u, at - a)
            return jnp.where((s >= 0) & (s <= ln), tau, jnp.inf)

        return jnp.minimum(one_side(nrm), one_side(-nrm))

    line_t = jax.vmap(line_time)(table.line_a, along, normal, length)
    # A closing overlap with a nose or a capture circle (a kiss or rounding put the ball
    # in it) is a contact, or a drop, at once; so is one that turns to close.
    arc_t = jax.vmap(
        lambda centre, rho: first_entry(_circle_coeffs(r, v, half_a, centre, rho + c), h, jnp.inf, graze=True)
    )(table.arc_centre, table.arc_radius)
    hole_t = jax.vmap(
        lambda centre, rho: first_entry(_circle_coeffs(r, v, half_a, centre, rho), h, jnp.inf, graze=True)
    )(table.pocket_centre, table.pocket_radius)
    mid = table.length / 2
    cross = side[k] * jnp.stack([r[1] - mid, v[1], half_a[1]])
    centre_t = jnp.where(side[k] != 0, first_entry_quadratic(cross, h, 0.0), jnp.inf)
    groups = [(LINE, line_t), (ARC, arc_t), (HOLE, hole_t), (CENTRE, centre_t[None])]
    kinds = jnp.concatenate([jnp.full(g.shape, kind, jnp.int32) for kind, g in groups])
    index = jnp.concatenate([jnp.arange(g.shape[0], dtype=jnp.int32) for _, g in groups])
    times = jnp.concatenate([g for _, g in groups])
    best = jnp.argmin(times)
    valid = _translating(balls.s[k])
    return jnp.where(valid, times[best] + t, jnp.inf), kinds[best], index[best]


def touching_cushion(r: Any, table: Table, c: Any) -> Any:
    """Which cushion piece a centre at r touches (within CONTACT_EPS): id or -1.

    Cushion ids 0-5; jaws (faces and noses) of pocket k are 6 + k.
    """
    along, normal, length = _line_frames(table)
    rel = r - table.line_a
    s = arrays.dot(rel, along)
    gap_line = jnp.abs(arrays.dot(rel, normal)) - c
    on_line = (s >= 0) & (s <= length) & (gap_line <= CONTACT_EPS)
    line_id = jnp.where(table.line_cushion >= 0, table.line_cushion, ev.JAW_TOUCH_OFFSET + table.line_pocket)
    gap_arc = arrays.norm(r - table.arc_centre) - table.arc_radius - c
    on_arc = gap_arc <= CONTACT_EPS
    ids = jnp.concatenate([line_id, ev.JAW_TOUCH_OFFSET + table.arc_pocket])
    hits = jnp.concatenate([on_line, on_arc])
    return jnp.where(jnp.any(hits), ids[jnp.argmax(hits)], -1)


def _snapshot(balls: BallState, table: Table, p: PhysicsParams, c: Any) -> Snapshot:
    in_play = balls.s < POCKETED
    cushion_ids = jax.vmap(lambda r: touching_cushion(r, table, c))(balls.r)
    gaps = arrays.norm(balls.r[:, None] - balls.r[None]) - 2 * p.R
    pair_ok = in_play[:, None] & in_play[None] & ~jnp.eye(balls.s.shape[0], dtype=bool)
    return Snapshot(
        cushion=jnp.where(in_play, cushion_ids, -1),
        touching=pair_ok & (gaps <= CONTACT_EPS),
        on_centre_line=in_play & (centre_line_side(balls.r, table.length) == 0),
    )


def _refresh(sim: _Sim, k: Any, table: Table, p: PhysicsParams, c: Any) -> _Sim:
    """Recompute ball k's cache entries after its trajectory changed."""
    acc = acceleration(sim.balls, p)
    horizon = transition_time(sim.balls, p)
    row = _pair_row(sim.balls, acc, horizon, k, sim.t, p)
    rail_t, rail_kind, rail_idx = _rail_entry(sim.balls, acc, horizon, sim.side, k, sim.t, table, c)
    # A ball that starts moving from a centre on the line belongs to the half it heads for.
    vy = sim.balls.v[k, 1]
    side = jnp.where((sim.side[k] == 0) & (vy != 0), jnp.sign(vy), sim.side[k]).astype(sim.side.dtype)
    return _replace(
        sim,
        pair_t=put(put(sim.pair_t, k, row, axis=0), k, row, axis=1),
        rail_t=put(sim.rail_t, k, rail_t),
        rail_kind=put(sim.rail_kind, k, rail_kind),
        rail_idx=put(sim.rail_idx, k, rail_idx),
        side=put(sim.side, k, side),
    )


def _replace(sim: _Sim, **changes: Any) -> _Sim:
    return dataclasses.replace(sim, **changes)


# Fields written in place, each write already guarded: a select over them would cost a
# pass over the whole log (capacity entries) on every step.
_WRITTEN_IN_PLACE = ("log", "history")


def _unless(keep: Any, new: _Sim, old: _Sim) -> _Sim:
    """`old` where `keep`, else `new`; the log and history are taken from `new` as they are."""
    chosen = {
        field.name: jax.tree_util.tree_map(
            lambda n, o: jnp.where(keep, o, n), getattr(new, field.name), getattr(old, field.name)
        )
        for field in dataclasses.fields(_Sim)
        if field.name not in _WRITTEN_IN_PLACE
    }
    return _replace(new, **chosen)


def _next_event(sim: _Sim, p: PhysicsParams) -> tuple[Any, Any, Any, Any, Any]:
    """The next event: (time, is ball-ball, is table contact, ball i, ball j).

    Events due within `SIMULTANEOUS` of the earliest happen at its time, those of a single
    ball (table contacts, then motion transitions) first: they commute with each other, and
    the ball-ball contacts of that instant are then resolved together (`_contacts_now`)
    with every ball already in its new state.
    """
    n = sim.balls.s.shape[0]
    upper = jnp.triu(jnp.ones((n, n), dtype=bool), 1)
    pair_t = jnp.where(upper, sim.pair_t, jnp.inf)
    flat = jnp.argmin(pair_t)
    t_pair = pair_t.reshape(-1)[flat]
    rail_ball = jnp.argmin(sim.rail_t)
    t_rail = sim.rail_t[rail_ball]
    trans_t = sim.t + transition_time(sim.balls, p)
    trans_ball = jnp.argmin(trans_t)
    t_trans = trans_t[trans_ball]
    t_next = jnp.minimum(jnp.minimum(t_pair, t_rail), t_trans)
    single = jnp.minimum(t_rail, t_trans) <= t_next + SIMULTANEOUS
    is_pair = ~single
    is_rail = single & (t_rail <= t_trans)
    i = jnp.select([is_pair, is_rail], [flat // n, rail_ball], trans_ball).astype(jnp.int32)
    j = jnp.where(is_pair, flat % n, i).astype(jnp.int32)
    return t_next, is_pair, is_rail, i, j


def _apply_event(
    sim: _Sim,
    t_next: Any,
    is_pair: Any,
    is_rail: Any,
    i: Any,
    j: Any,
    table: Table,
    p: PhysicsParams,
    models: Models,
    c: Any,
    write: Any,
) -> _Sim:
    """Advance every ball to the event, resolve it and log it where `write` (caches not yet refreshed)."""
    is_trans = ~is_pair & ~is_rail
    balls = advance(sim.balls, t_next - sim.t, p)
    r, v, w, s = balls.r, balls.v, balls.w, balls.s
    moving = _translating(s)
    kind, idx = sim.rail_kind[i], sim.rail_idx[i]
    bounce = is_rail & ((kind == LINE) | (kind == ARC))
    drop = is_rail & (kind == HOLE)
    crossing = is_rail & (kind == CENTRE)

    # Ball-ball: kiss, then collide.
    kissed_i, kissed_j = kiss.ball_ball(r[i], v[i], r[j], v[j], moving[i] | moving[j], p.R)
    r = put(put(r, j, jnp.where(is_pair, kissed_j, r[j])), i, jnp.where(is_pair, kissed_i, r[i]))
    v_i, w_i, v_j, w_j = ball_ball.collide(r[i], v[i], w[i], r[j], v[j], w[j], p, models)
    touch_i = touching_cushion(r[i], table, c)
    touch_j = touching_cushion(r[j], table, c)
    # Table contacts: kiss, then the normal at the point of contact, pointing at the ball.
    _, normal, _ = _line_frames(table)
    line = jnp.minimum(idx, normal.shape[0] - 1)
    arc = jnp.minimum(idx, table.arc_centre.shape[0] - 1)
    line_n = normal[line]
    line_n = jnp.where(arrays.dot(line_n, r[i] - table.line_a[line]) >= 0, line_n, -line_n)
    arc_centre, arc_reach = table.arc_centre[arc], table.arc_radius[arc] + c
    kissed = jnp.where(
        kind == ARC,
        kiss.circle(r[i], v[i], arc_centre, arc_reach, moving[i]),
        kiss.line(r[i], v[i], -line_n, table.line_a[line], c, moving[i]),
    )
    r = put(r, i, jnp.where(bounce, kissed, r[i]))
    arc_d = r[i] - arc_centre
    toward_ball = jnp.where(kind == ARC, arc_d / arrays.norm(arc_d), line_n)
    # How far the ball centre stands from the contact edge (the cushion models tilt by it).
    reach = jnp.where(kind == ARC, arrays.norm(arc_d), arrays.dot(r[i] - table.line_a[line], line_n))
    v_c, w_c = cushion.rebound(v[i], w[i], -toward_ball, reach, p, table.cushion_height, models)
    settled_v, settled_w, settled_s = settle(v[i], w[i], s[i], p)

    cases = [is_pair, bounce, drop, is_trans]
    new_vi = jnp.select(cases, [v_i, v_c, jnp.zeros(2), settled_v], v[i])
    new_wi = jnp.select(cases, [w_i, w_c, jnp.zeros(3), settled_w], w[i])
    new_si = jnp.select(
        [is_pair | bounce, drop, is_trans],
        [classify(new_vi, new_wi, p), POCKETED, settled_s],
        s[i],
    )
    # j == i unless the event is a ball-ball contact, so j's update comes first.
    v = put(put(v, j, jnp.where(is_pair, v_j, v[j])), i, new_vi)
    w = put(put(w, j, jnp.where(is_pair, w_j, w[j])), i, new_wi)
    s = put(put(s, j, jnp.where(is_pair, classify(v_j, w_j, p), s[j])), i, new_si)
    new_balls = BallState(r=r, v=v, w=w, s=s.astype(balls.s.dtype))

    # What to log.
    line_cushion = table.line_cushion[line]
    line_kind = jnp.where(line_cushion >= 0, ev.CUSHION, ev.JAW)
    line_b = jnp.where(line_cushion >= 0, line_cushion, table.line_pocket[line])
    old_s = sim.balls.s[i]
    trans_kind = jnp.select(
        [old_s == SLIDING, (old_s == ROLLING) & (settled_s == SPINNING), old_s == ROLLING],
        [ev.SLIDING_ROLLING, ev.ROLLING_SPINNING, ev.ROLLING_STATIONARY],
        ev.SPINNING_STATIONARY,
    )
    is_line, is_arc, is_hole = kind == LINE, kind == ARC, kind == HOLE
    rail_kind = jnp.select([is_line, is_arc, is_hole], [line_kind, ev.JAW, ev.POCKET], ev.CENTRE_LINE)
    # A crossing from the front half (side -1) to the back is logged as +1.
    rail_b = jnp.select([is_line, is_arc, is_hole], [line_b, table.arc_pocket[arc], idx], -sim.side[i])
    log_kind = jnp.select([is_pair, is_rail], [ev.BALL_BALL, rail_kind], trans_kind)
    log_b = jnp.select([is_pair, is_rail], [j, rail_b], -1)
    log = ev.record(
        sim.log,
        t_next,
        log_kind,
        i,
        log_b,
        jnp.where(is_pair, touch_i, -1),
        jnp.where(is_pair, touch_j, -1),
        write,
    )
    history = sim.history
    if history is not None:
        slot = jnp.minimum(sim.log.count, history.s.shape[0] - 1)
        history = jax.tree_util.tree_map(lambda h, x: put_in_place(h, slot, x, write), history, new_balls)
    return _replace(
        sim,
        t=t_next,
        balls=new_balls,
        side=jnp.where(crossing, put(sim.side, i, -sim.side[i]), sim.side),
        pocket=jnp.where(drop, put(sim.pocket, i, idx), sim.pocket),
        pocket_time=jnp.where(drop, put(sim.pocket_time, i, t_next), sim.pocket_time),
        log=log,
        history=history,
        # After a ball-ball contact, ball j's cache entries are refreshed in the next step.
        pending=is_pair & (jnp.arange(sim.balls.s.shape[0]) == j),
    )


def _contacts_now(sim: _Sim, t_next: Any, is_pair: Any) -> Any:
    """The ball-ball contacts (N, N, upper triangle) that the next event resolves at once.

    Empty unless the next event is a ball-ball contact chosen now (no refresh pending).
    """
    n = sim.balls.s.shape[0]
    upper = jnp.triu(jnp.ones((n, n), dtype=bool), 1)
    chosen = is_pair & jnp.isfinite(t_next) & ~jnp.any(sim.pending) & ~sim.done
    return chosen & upper & (sim.pair_t <= t_next + SIMULTANEOUS)


def _apply_contacts(
    sim: _Sim, t_next: Any, contacts: Any, table: Table, p: PhysicsParams, models: Models, c: Any
) -> _Sim:
    """Advance every ball to t_next and resolve `contacts` together (`resolve.cluster`).

    Each contact is logged; every ball they moved is left to refresh.
    """
    balls = advance(sim.balls, t_next - sim.t, p)
    r, v, w = cluster.resolve(balls.r, balls.v, balls.w, contacts, _translating(balls.s), p, models)
    involved = jnp.any(contacts, axis=0) | jnp.any(contacts, axis=1)
    s = jnp.where(involved, classify(v, w, p), balls.s).astype(balls.s.dtype)
    new_balls = BallState(r=r, v=v, w=w, s=s)
    touch = jax.vmap(lambda x: touching_cushion(x, table, c))(r)
    n = s.shape[0]
    flat = contacts.reshape(-1)
    rank = jnp.cumsum(flat) - 1
    total = rank[-1] + 1

    def log_one(m: Any, log: ev.EventLog) -> ev.EventLog:
        # The m-th contact in pair order (a < b).
        k = jnp.argmax(flat & (rank == m))
        a, b = (k // n).astype(jnp.int32), (k % n).astype(jnp.int32)
        return ev.record(log, t_next, ev.BALL_BALL, a, b, touch[a], touch[b])

    log = jax.lax.fori_loop(0, total, log_one, sim.log)
    history = sim.history
    if history is not None:
        slots = jnp.arange(history.s.shape[0])
        new = (slots >= sim.log.count) & (slots < sim.log.count + total)
        history = jax.tree_util.tree_map(
            lambda h, x: jnp.where(new.reshape(-1, *[1] * x.ndim), x[None], h), history, new_balls
        )
    return _replace(sim, t=t_next, balls=new_balls, log=log, history=history, pending=involved)


def _step(sim: _Sim, table: Table, p: PhysicsParams, models: Models, c: Any, transitions: bool) -> _Sim:
    """One step of the event loop: an event and its first ball's refresh, or a pending refresh.

    Each step refreshes the cache entries of exactly one ball, the costly part: a ball-ball
    contact takes two steps (the second refreshes its other ball before the next event is
    chosen), simultaneous contacts one per ball they moved, every other event one. Batched,
    a step costs the same for every table, so this halves the cost of the common
    single-ball events.

    Runs under a `vmap` over the window named `WINDOW_AXIS`. Simultaneous contacts are rare
    and costly to resolve: they are resolved (first) only when some table of the window has
    them, a branch taken or skipped for the whole window.
    """
    event = _next_event(sim, p)
    t_next, is_pair, is_rail, i, j = event
    contacts = _contacts_now(sim, t_next, is_pair)
    several = jnp.sum(contacts) > 1
    anywhere = jax.lax.psum(several.astype(jnp.int32), WINDOW_AXIS) > 0

    def together(sim: _Sim) -> _Sim:
        resolved = _apply_contacts(sim, t_next, contacts, table, p, models, c)
        return jax.tree_util.tree_map(lambda new, old: jnp.where(several, new, old), resolved, sim)

    # After simultaneous contacts, the step goes on as a pending refresh of their first ball.
    sim = jax.lax.cond(anywhere, together, lambda sim: sim, sim)
    pending = jnp.any(sim.pending)
    ended = ~jnp.isfinite(t_next) & ~pending
    idle = sim.done | ended
    logged = ~(pending | idle) & (transitions | is_pair | is_rail)
    happened = _apply_event(sim, t_next, is_pair, is_rail, i, j, table, p, models, c, logged)
    nxt = _unless(pending | idle, happened, sim)
    k = jnp.where(pending, jnp.argmax(sim.pending), i)
    left = jnp.where(pending | idle, sim.pending, happened.pending) & (jnp.arange(sim.pending.shape[0]) != k)
    refreshed = _refresh(_replace(nxt, pending=left), k, table, p, c)
    nxt = _unless(idle, refreshed, nxt)
    return _replace(nxt, done=idle | nxt.log.overflow)


def _start(
    balls: BallState,
    strike: Strike | None,
    table: Table,
    p: PhysicsParams,
    capacity: int,
    record: bool,
    c: Any,
) -> _Sim:
    n = balls.s.shape[0]
    struck = -1
    if strike is not None:
        balls = strike_ball(balls, strike, p)
        struck = strike.ball
    in_play = balls.s < POCKETED
    balls = BallState(balls.r, balls.v, balls.w, jnp.where(in_play, classify(balls.v, balls.w, p), balls.s))
    history = None
    if record:
        history = jax.tree_util.tree_map(lambda x: jnp.repeat(x[None], capacity, axis=0), balls)
    log = ev.record(ev.empty_log(capacity), 0.0, ev.STRIKE, struck, -1, -1, -1)
    side = centre_line_side(balls.r, table.length)
    side = jnp.where((side == 0) & (balls.v[:, 1] != 0), jnp.sign(balls.v[:, 1]), side).astype(jnp.int32)
    acc = acceleration(balls, p)
    horizon = transition_time(balls, p)
    pair_t = jax.vmap(lambda k: _pair_row(balls, acc, horizon, k, 0.0, p))(jnp.arange(n))
    rail_t, rail_kind, rail_idx = jax.vmap(
        lambda k: _rail_entry(balls, acc, horizon, side, k, 0.0, table, c)
    )(jnp.arange(n))
    return _Sim(
        t=jnp.float64(0.0),
        balls=balls,
        side=side,
        pocket=jnp.full(n, -1, jnp.int32),
        pocket_time=jnp.full(n, jnp.inf),
        pair_t=pair_t,
        rail_t=rail_t,
        rail_kind=rail_kind,
        rail_idx=rail_idx,
        log=log,
        history=history,
        pending=jnp.zeros(n, dtype=bool),
        done=jnp.bool_(False),
    )


def _run_events(
    sims: _Sim, table: Table, p: PhysicsParams, models: Models, c: Any, window: int, transitions: bool
) -> _Sim:
    """Step a batch of tables (leading axis B, a multiple of `window`) until every shot ends.

    The loop works in chunks of `CHUNK_EVENTS` events on a window of `window` tables,
    refilled before each chunk with tables whose shots are still running. A vmapped
    `while_loop` would step all B tables until the slowest one ends; here a long shot
    holds only its window. The chunk is always compiled for `window` tables.
    """
    chunk = jax.vmap(
        lambda sim: jax.lax.fori_loop(
            0, CHUNK_EVENTS, lambda _, s: _step(s, table, p, models, c, transitions), sim
        ),
        axis_name=WINDOW_AXIS,
    )

    def refill_and_run(sims: _Sim) -> _Sim:
        # Gathered even when the window is the whole batch: one program shape for all sizes.
        running_first = jnp.argsort(sims.done, stable=True)[:window]
        part = chunk(jax.tree_util.tree_map(lambda x: x[running_first], sims))
        return jax.tree_util.tree_map(lambda x, y: x.at[running_first].set(y), sims, part)

    return jax.lax.while_loop(lambda s: ~jnp.all(s.done), refill_and_run, sims)


def _by_window(fn: Any, window: int, *trees: Any) -> Any:
    """`vmap(fn)` over a batch (a multiple of `window`), compiled for `window` tables."""
    tiles = jax.tree_util.tree_map(lambda x: x.reshape(-1, window, *x.shape[1:]), trees)
    out = jax.lax.map(lambda tile: jax.vmap(fn)(*tile), tiles)
    return jax.tree_util.tree_map(lambda x: x.reshape(-1, *x.shape[2:]), out)


def _pad(tree: Any, size: int) -> Any:
    """The batch grown to `size` tables with copies of its first table."""
    return jax.tree_util.tree_map(
        lambda x: jnp.concatenate([x, jnp.repeat(x[:1], size - x.shape[0], axis=0)]), tree
    )


@partial(jax.jit, static_argnames=("models", "capacity", "record", "transitions", "window"))
def _simulate_batch(
    balls: BallState,
    strikes: Strike | None,
    table: Table,
    p: PhysicsParams,
    models: Models,
    capacity: int,
    record: bool,
    transitions: bool,
    window: int,
) -> ShotResult:
    batch = balls.s.shape[0]
    padded = -(-batch // window) * window
    balls, strikes = _pad((balls, strikes), padded)
    c = contact_distance(table, p, models)
    start = _by_window(lambda b: _snapshot(b, table, p, c), window, balls)
    sims = _by_window(lambda b, s: _start(b, s, table, p, capacity, record, c), window, balls, strikes)
    # The copies that fill the last window start finished: they never take a window slot.
    sims = _replace(sims, done=sims.done | (jnp.arange(padded) >= batch))
    sims = _run_events(sims, table, p, models, c, window, transitions)
    result = ShotResult(
        final=sims.balls,
        pocket=sims.pocket,
        pocket_time=sims.pocket_time,
        log=sims.log,
        duration=sims.t,
        start=start,
        history=sims.history,
    )
    return jax.tree_util.tree_map(lambda x: x[:batch], result)


def simulate(
    table: Table,
    balls: BallState,
    strikes: Strike | None = None,
    params: PhysicsParams = PYRAMID_PARAMS,
    models: Models | None = None,
    capacity: int = DEFAULT_CAPACITY,
    record: bool = False,
    validate: bool = True,
    window: int | None = None,
    transitions: bool = True,
) -> ShotResult:
    """Simulate one shot on each of B tables (one `jit`, batched over the leading axis).

    A table's result is the same to the last bit in a batch of any size, as long as the
    window is the same. With several local devices (GPUs, or CPU devices from
    `XLA_FLAGS=--xla_force_host_platform_device_count=N`) the batch is split over all of
    them when B divides evenly (`shard_map` on a one-axis `Mesh`: each device runs its own
    event loop on its share); the result stays sharded.

    Args:
      table: the table (shared by all B tables).
      balls: (B, N, ...) ball states before the shot; balls may carry initial motion.
      strikes: (B,) cue strikes, applied before the shot, or None.
      params: physical constants (shared).
      models: model choices (static).
      capacity: event-log slots per table; a table that needs more is flagged.
      record: keep every ball's state after each event (for `trajectory`).
      validate: check the inputs on the host first (`validate.InputError` if bad);
        skipped automatically when the inputs are traced.
      window: tables stepped together (static); `default_window()` if None.
      transitions: also log the motion transitions (sliding-rolling, ...). The referee
        reads none of them, and a slow push through a cluster logs about as many of them
        as contacts, so the game leaves them out; a recorded shot needs them (its
        history is the state at each logged event).

    Returns:
      A `ShotResult` with a leading (B,) axis.

    """
    if record and not transitions:
        raise ValueError("simulate: record=True needs transitions=True (the history holds every event)")
    traced = any(isinstance(x, jax.core.Tracer) for x in jax.tree_util.tree_leaves((balls, strikes)))
    if validate and not traced:
        reach = float(contact_distance(table, params, models or Models()))
        check_balls(table, balls, float(params.R), reach)
        if strikes is not None:
            check_strikes(strikes, balls)
    options = {
        "models": models or Models(),
        "capacity": capacity,
        "record": record,
        "transitions": transitions,
        "window": window or default_window(),
    }
    devices = len(jax.local_devices())
    if not traced and devices > 1 and balls.s.shape[0] % devices == 0:
        return _simulate_sharded(balls, strikes, table, params, devices=devices, **options)
    return _simulate_batch(balls, strikes, table, params, **options)


@partial(jax.jit, static_argnames=("models", "capacity", "record", "transitions", "window", "devices"))
def _simulate_sharded(
    balls: BallState,
    strikes: Strike | None,
    table: Table,
    p: PhysicsParams,
    models: Models,
    capacity: int,
    record: bool,
    transitions: bool,
    window: int,
    devices: int,
) -> ShotResult:
    """`_simulate_batch` on each device's share of the tables (the table axis split)."""
    mesh = Mesh(np.asarray(jax.local_devices()[:devices]), ("tables",))
    tables, shared = PartitionSpec("tables"), PartitionSpec()

    def local(balls: BallState, strikes: Strike | None, table: Table, p: PhysicsParams) -> ShotResult:
        return _simulate_batch(balls, strikes, table, p, models, capacity, record, transitions, window)

    run = jax.shard_map(
        local, mesh=mesh, in_specs=(tables, tables, shared, shared), out_specs=tables, check_vma=False
    )
    return run(balls, strikes, table, p)
