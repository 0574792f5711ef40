"""The kernel: one thread runs one table's shot from the strike to the last ball at rest.

Each turn of the loop finds the table's earliest next event from three caches, advances
every ball exactly to it, resolves it, logs it, and refreshes the cache entries of the
balls it touched:

- `pair_t` (N x N): next ball-ball contact of each pair (absolute time);
- `rail_t` (N): next contact of each ball with the table (cushion, jaw face, jaw nose,
  pocket capture circle) or centre-line crossing, with its kind and index;
- motion transitions, recomputed in closed form every turn (cheap).

Events due within `SIMULTANEOUS` of the earliest happen at its time, those of a single
ball (table contacts, then motion transitions) first: they commute with each other.
Ball-ball contacts due at one instant are one event, resolved together by `cluster`; a
lone contact is `collide`, as pooltool resolves it. A finished table's thread is simply
done: one slow shot holds nobody else.
"""

from __future__ import annotations

import warp as wp

from piramida.physics import events as ev
from piramida.physics import layouts, markings
from piramida.physics.engine import cluster, facts, kiss
from piramida.physics.engine.cluster import MAX_CONTACTS
from piramida.physics.engine.collide import collide
from piramida.physics.engine.cushion import rebound
from piramida.physics.engine.detect import (
    ARC,
    CONTACT_EPS,
    HOLE,
    LINE,
    circle_centre,
    line_normal,
    line_point,
    pair_time,
    rail_entry,
    touching_cushion,
)
from piramida.physics.engine.motion import (
    POCKETED,
    ROLLING,
    SLIDING,
    SPINNING,
    Params,
    acceleration,
    advance_position,
    advance_spin,
    advance_velocity,
    classify,
    settle,
    transition_time,
    translating,
)
from piramida.physics.engine.roots import infinity

F = wp.float64
MAX_BALLS = wp.constant(layouts.MAX_BALLS)
PAIRS = wp.constant(layouts.MAX_BALLS**2)  # slots of the pair cache
# Events due within this time (s) of the earliest happen at once. Mirror images in a
# symmetric shot are due at the same time up to rounding, but slow contacts magnify it
# (a position error dx shifts a contact at closing speed u by dx / u): measured 2.4e-12 s
# apart in a 3 m/s break's pushes. A ball-ball impact lasts ~1e-4 s; at 10 m/s a ball
# moves 1e-8 m in this time.
SIMULTANEOUS = wp.constant(wp.float64(1e-9))
CENTRE_TOLERANCE = wp.constant(wp.float64(markings.ON_LINE_TOLERANCE))  # "on the centre line"
STRIKE = wp.constant(ev.STRIKE)
BALL_BALL = wp.constant(ev.BALL_BALL)
CUSHION = wp.constant(ev.CUSHION)
JAW = wp.constant(ev.JAW)
POCKET = wp.constant(ev.POCKET)
CENTRE_LINE = wp.constant(ev.CENTRE_LINE)
SLIDING_ROLLING = wp.constant(ev.SLIDING_ROLLING)
ROLLING_SPINNING = wp.constant(ev.ROLLING_SPINNING)
ROLLING_STATIONARY = wp.constant(ev.ROLLING_STATIONARY)
SPINNING_STATIONARY = wp.constant(ev.SPINNING_STATIONARY)
# Layout of the `constants` and `options` inputs (`physics.kernel` packs them).
CONSTANTS = ("R", "m", "u_s", "u_r", "u_sp", "e_b", "u_b", "e_c", "f_c", "g", "h", "c", "length")
OPTIONS = ("frictionless", "alciatore", "han", "transitions", "record", "keep_log", "limit")


@wp.func
def unpack(constants: wp.array(dtype=wp.float64), options: wp.array(dtype=wp.int32)) -> Params:
    """The `Params` struct from the packed inputs (order: CONSTANTS, OPTIONS)."""
    p = Params()
    p.R = constants[0]
    p.m = constants[1]
    p.u_s = constants[2]
    p.u_r = constants[3]
    p.u_sp = constants[4]
    p.e_b = constants[5]
    p.u_b = constants[6]
    p.e_c = constants[7]
    p.f_c = constants[8]
    p.g = constants[9]
    p.h = constants[10]
    p.c = constants[11]
    p.length = constants[12]
    p.frictionless = options[0] == 1
    p.alciatore = options[1] == 1
    p.han = options[2] == 1
    return p


@wp.func
def centre_side(y: wp.float64, length: wp.float64) -> wp.int32:
    """Which half a centre lies in: -1 front, +1 back, 0 on the centre line."""
    offset = y - length / F(2.0)
    if wp.abs(offset) <= CENTRE_TOLERANCE:
        return 0
    if offset > F(0.0):
        return 1
    return -1


@wp.func
def log_event(
    log_t: wp.array2d(dtype=wp.float64),
    log_kind: wp.array2d(dtype=wp.int32),
    log_a: wp.array2d(dtype=wp.int32),
    log_b: wp.array2d(dtype=wp.int32),
    log_ta: wp.array2d(dtype=wp.int32),
    log_tb: wp.array2d(dtype=wp.int32),
    tid: wp.int32,
    count: wp.int32,
    t: wp.float64,
    kind: wp.int32,
    a: wp.int32,
    b: wp.int32,
    ta: wp.int32,
    tb: wp.int32,
    limit: wp.int32,
    keep: wp.bool,
    n: wp.int32,
    own: wp.int32,
    s_in: wp.array2d(dtype=wp.int32),
    snap_cushion: wp.array2d(dtype=wp.int32),
    snap_touching: wp.array3d(dtype=wp.int32),
    last_contact: wp.array(dtype=wp.float64),
    carried: wp.array(dtype=wp.int32),
    met: wp.array(dtype=wp.int32),
    facts_shot: wp.array2d(dtype=wp.int32),
    facts_ball: wp.array2d(dtype=wp.int32),
    facts_pocket: wp.array2d(dtype=wp.int32),
) -> tuple[wp.int32, wp.bool]:
    """Append one event (to the log if it is kept) and note it in the shot's facts.

    Returns the new count and whether the shot had already logged `limit` events, and the
    event was lost.
    """
    if count >= limit:
        return count, True
    if keep:
        log_t[tid, count] = t
        log_kind[tid, count] = kind
        log_a[tid, count] = a
        log_b[tid, count] = b
        log_ta[tid, count] = ta
        log_tb[tid, count] = tb
    facts.note(
        tid,
        count,
        t,
        kind,
        a,
        b,
        ta,
        tb,
        n,
        own,
        s_in,
        snap_cushion,
        snap_touching,
        last_contact,
        carried,
        met,
        facts_shot,
        facts_ball,
        facts_pocket,
    )
    return count + 1, False


@wp.func
def keep_state(
    hist_r: wp.array4d(dtype=wp.float64),
    hist_v: wp.array4d(dtype=wp.float64),
    hist_w: wp.array4d(dtype=wp.float64),
    hist_s: wp.array3d(dtype=wp.int32),
    tid: wp.int32,
    slot: wp.int32,
    n: wp.int32,
    r: wp.array(dtype=wp.vec2d),
    v: wp.array(dtype=wp.vec2d),
    w: wp.array(dtype=wp.vec3d),
    s: wp.array(dtype=wp.int32),
):
    """Write every ball's state into history slot `slot`."""
    for i in range(n):
        for d in range(2):
            hist_r[tid, slot, i, d] = r[i][d]
            hist_v[tid, slot, i, d] = v[i][d]
        for d in range(3):
            hist_w[tid, slot, i, d] = w[i][d]
        hist_s[tid, slot, i] = s[i]


@wp.func
def refresh(
    k: wp.int32,
    n: wp.int32,
    t: wp.float64,
    p: Params,
    r: wp.array(dtype=wp.vec2d),
    v: wp.array(dtype=wp.vec2d),
    s: wp.array(dtype=wp.int32),
    acc: wp.array(dtype=wp.vec2d),
    horizon: wp.array(dtype=wp.float64),
    side: wp.array(dtype=wp.int32),
    pair_t: wp.array(dtype=wp.float64),
    rail_t: wp.array(dtype=wp.float64),
    rail_kind: wp.array(dtype=wp.int32),
    rail_idx: wp.array(dtype=wp.int32),
    lines: wp.array2d(dtype=wp.float64),
    arcs: wp.array2d(dtype=wp.float64),
    holes: wp.array2d(dtype=wp.float64),
):
    """Recompute ball k's cache entries after its trajectory changed."""
    in_play_k = s[k] < POCKETED
    for m in range(n):
        due = infinity()
        if in_play_k and s[m] < POCKETED and m != k and (translating(s[k]) or translating(s[m])):
            due = pair_time(r[k], v[k], acc[k], horizon[k], r[m], v[m], acc[m], horizon[m], F(2.0) * p.R) + t
        pair_t[k * MAX_BALLS + m] = due
        pair_t[m * MAX_BALLS + k] = due
    rail_t[k] = infinity()
    if translating(s[k]):
        due, kind, index = rail_entry(
            r[k], v[k], F(0.5) * acc[k], horizon[k], side[k], p.c, p.length / F(2.0), lines, arcs, holes
        )
        rail_t[k] = due + t
        rail_kind[k] = kind
        rail_idx[k] = index
    # A ball that starts moving from a centre on the line belongs to the half it heads for.
    if side[k] == 0 and v[k][1] != F(0.0):
        side[k] = 1
        if v[k][1] < F(0.0):
            side[k] = -1


@wp.func
def motion_caches(
    n: wp.int32,
    p: Params,
    v: wp.array(dtype=wp.vec2d),
    w: wp.array(dtype=wp.vec3d),
    s: wp.array(dtype=wp.int32),
    acc: wp.array(dtype=wp.vec2d),
    horizon: wp.array(dtype=wp.float64),
):
    """Every ball's acceleration and time to its next transition, from its current state."""
    for i in range(n):
        acc[i] = acceleration(v[i], w[i], s[i], p)
        horizon[i] = transition_time(v[i], w[i], s[i], p)


@wp.func
def advance_all(
    n: wp.int32,
    dt: wp.float64,
    p: Params,
    r: wp.array(dtype=wp.vec2d),
    v: wp.array(dtype=wp.vec2d),
    w: wp.array(dtype=wp.vec3d),
    s: wp.array(dtype=wp.int32),
):
    """Every ball dt seconds later (exact polynomials; no event in between)."""
    for i in range(n):
        r_new = advance_position(r[i], v[i], w[i], s[i], dt, p)
        w_new = advance_spin(v[i], w[i], s[i], dt, p)
        v[i] = advance_velocity(v[i], w[i], s[i], dt, p)
        w[i] = w_new
        r[i] = r_new


@wp.func
def transition_kind(old: wp.int32, new: wp.int32) -> wp.int32:
    """The log's kind of a motion transition from state `old` to `new`."""
    if old == SLIDING:
        return SLIDING_ROLLING
    if old == ROLLING:
        if new == SPINNING:
            return ROLLING_SPINNING
        return ROLLING_STATIONARY
    return SPINNING_STATIONARY


@wp.kernel
def shot(
    r_in: wp.array3d(dtype=wp.float64),
    v_in: wp.array3d(dtype=wp.float64),
    w_in: wp.array3d(dtype=wp.float64),
    s_in: wp.array2d(dtype=wp.int32),
    struck: wp.array(dtype=wp.int32),
    constants: wp.array(dtype=wp.float64),
    options: wp.array(dtype=wp.int32),
    lines: wp.array2d(dtype=wp.float64),
    line_ids: wp.array2d(dtype=wp.int32),
    arcs: wp.array2d(dtype=wp.float64),
    arc_pocket: wp.array(dtype=wp.int32),
    holes: wp.array2d(dtype=wp.float64),
    r_out: wp.array3d(dtype=wp.float64),
    v_out: wp.array3d(dtype=wp.float64),
    w_out: wp.array3d(dtype=wp.float64),
    s_out: wp.array2d(dtype=wp.int32),
    pocket: wp.array2d(dtype=wp.int32),
    pocket_time: wp.array2d(dtype=wp.float64),
    log_t: wp.array2d(dtype=wp.float64),
    log_kind: wp.array2d(dtype=wp.int32),
    log_a: wp.array2d(dtype=wp.int32),
    log_b: wp.array2d(dtype=wp.int32),
    log_ta: wp.array2d(dtype=wp.int32),
    log_tb: wp.array2d(dtype=wp.int32),
    log_count: wp.array(dtype=wp.int32),
    log_overflow: wp.array(dtype=wp.int32),
    duration: wp.array(dtype=wp.float64),
    snap_cushion: wp.array2d(dtype=wp.int32),
    snap_touching: wp.array3d(dtype=wp.int32),
    snap_centre: wp.array2d(dtype=wp.int32),
    hist_r: wp.array4d(dtype=wp.float64),
    hist_v: wp.array4d(dtype=wp.float64),
    hist_w: wp.array4d(dtype=wp.float64),
    hist_s: wp.array3d(dtype=wp.int32),
    facts_shot: wp.array2d(dtype=wp.int32),
    facts_ball: wp.array2d(dtype=wp.int32),
    facts_pocket: wp.array2d(dtype=wp.int32),
):
    """Simulate table `tid`'s shot (inputs: balls after the strike; see `physics.kernel`)."""
    tid = wp.tid()
    n = r_in.shape[1]
    p = unpack(constants, options)
    transitions = options[3] == 1
    record = options[4] == 1
    keep_log = options[5] == 1  # else the log keeps one slot, and only the facts are noted
    limit = options[6]  # events a shot may log before it overflows
    r = wp.zeros(shape=(MAX_BALLS,), dtype=wp.vec2d)
    v = wp.zeros(shape=(MAX_BALLS,), dtype=wp.vec2d)
    w = wp.zeros(shape=(MAX_BALLS,), dtype=wp.vec3d)
    s = wp.zeros(shape=(MAX_BALLS,), dtype=wp.int32)
    side = wp.zeros(shape=(MAX_BALLS,), dtype=wp.int32)
    acc = wp.zeros(shape=(MAX_BALLS,), dtype=wp.vec2d)
    horizon = wp.zeros(shape=(MAX_BALLS,), dtype=wp.float64)
    pair_t = wp.zeros(shape=(PAIRS,), dtype=wp.float64)
    rail_t = wp.zeros(shape=(MAX_BALLS,), dtype=wp.float64)
    rail_kind = wp.zeros(shape=(MAX_BALLS,), dtype=wp.int32)
    rail_idx = wp.zeros(shape=(MAX_BALLS,), dtype=wp.int32)
    touch = wp.zeros(shape=(MAX_BALLS,), dtype=wp.int32)
    moving = wp.zeros(shape=(MAX_BALLS,), dtype=wp.int32)
    partners = wp.zeros(shape=(MAX_BALLS,), dtype=wp.int32)
    scratch_v = wp.zeros(shape=(MAX_BALLS,), dtype=wp.vec2d)
    scratch_dv = wp.zeros(shape=(MAX_BALLS,), dtype=wp.vec2d)
    scratch_dw = wp.zeros(shape=(MAX_BALLS,), dtype=wp.vec3d)
    first = wp.zeros(shape=(MAX_CONTACTS,), dtype=wp.int32)
    second = wp.zeros(shape=(MAX_CONTACTS,), dtype=wp.int32)
    normal = wp.zeros(shape=(MAX_CONTACTS,), dtype=wp.vec2d)
    impulse = wp.zeros(shape=(MAX_CONTACTS,), dtype=wp.float64)
    target = wp.zeros(shape=(MAX_CONTACTS,), dtype=wp.float64)
    last_contact = wp.zeros(shape=(PAIRS,), dtype=wp.float64)  # the facts' scratch (`facts.begin`)
    carried = wp.zeros(shape=(MAX_BALLS,), dtype=wp.int32)
    met = wp.zeros(shape=(MAX_BALLS,), dtype=wp.int32)

    for i in range(n):
        r[i] = wp.vec2d(r_in[tid, i, 0], r_in[tid, i, 1])
        v[i] = wp.vec2d(v_in[tid, i, 0], v_in[tid, i, 1])
        w[i] = wp.vec3d(w_in[tid, i, 0], w_in[tid, i, 1], w_in[tid, i, 2])
        s[i] = s_in[tid, i]
        pocket[tid, i] = -1
        pocket_time[tid, i] = infinity()
    # The start snapshot (docs/rules/specification.md III.2): cushions touched, balls touching, centres on
    # the centre line.
    for i in range(n):
        in_play = s[i] < POCKETED
        snap_cushion[tid, i] = -1
        snap_centre[tid, i] = 0
        if in_play:
            snap_cushion[tid, i] = touching_cushion(r[i], p.c, lines, line_ids, arcs, arc_pocket)
            if centre_side(r[i][1], p.length) == 0:
                snap_centre[tid, i] = 1
        for j in range(n):
            close = wp.length(r[i] - r[j]) - F(2.0) * p.R <= CONTACT_EPS
            snap_touching[tid, i, j] = wp.where(in_play and s[j] < POCKETED and i != j and close, 1, 0)
    for i in range(n):
        if s[i] < POCKETED:
            s[i] = classify(v[i], w[i], p)
        side[i] = centre_side(r[i][1], p.length)
        if side[i] == 0 and v[i][1] != F(0.0):
            side[i] = wp.where(v[i][1] > F(0.0), 1, -1)
    for k in range(log_t.shape[1]):
        log_t[tid, k] = infinity()
        log_kind[tid, k] = 0
        log_a[tid, k] = -1
        log_b[tid, k] = -1
        log_ta[tid, k] = -1
        log_tb[tid, k] = -1
    facts.begin(tid, n, limit, last_contact, carried, met, facts_shot, facts_ball, facts_pocket)
    count, overflow = log_event(
        log_t,
        log_kind,
        log_a,
        log_b,
        log_ta,
        log_tb,
        tid,
        0,
        F(0.0),
        STRIKE,
        struck[tid],
        -1,
        -1,
        -1,
        limit,
        keep_log,
        n,
        struck[tid],
        s_in,
        snap_cushion,
        snap_touching,
        last_contact,
        carried,
        met,
        facts_shot,
        facts_ball,
        facts_pocket,
    )
    slots = hist_s.shape[1]
    if not record:
        slots = 1
    for slot in range(slots):
        keep_state(hist_r, hist_v, hist_w, hist_s, tid, slot, n, r, v, w, s)
    t = F(0.0)
    motion_caches(n, p, v, w, s, acc, horizon)
    for k in range(n):
        refresh(
            k, n, t, p, r, v, s, acc, horizon, side, pair_t, rail_t, rail_kind, rail_idx, lines, arcs, holes
        )

    while not overflow:
        # The next event: the earliest pair contact, table contact and transition.
        t_pair = infinity()
        pi = int(0)
        pj = int(0)
        for i in range(n):
            for j in range(i + 1, n):
                if pair_t[i * MAX_BALLS + j] < t_pair:
                    t_pair = pair_t[i * MAX_BALLS + j]
                    pi = i
                    pj = j
        t_rail = infinity()
        rail_ball = int(0)
        t_trans = infinity()
        trans_ball = int(0)
        for i in range(n):
            if rail_t[i] < t_rail:
                t_rail = rail_t[i]
                rail_ball = i
            due = t + horizon[i]
            if due < t_trans:
                t_trans = due
                trans_ball = i
        t_next = wp.min(wp.min(t_pair, t_rail), t_trans)
        if not wp.isfinite(t_next):
            break
        single = wp.min(t_rail, t_trans) <= t_next + SIMULTANEOUS
        is_rail = single and t_rail <= t_trans
        contacts = int(0)
        if not single:
            for a in range(n):
                partners[a] = 0
            for a in range(n):
                for b in range(a + 1, n):
                    if pair_t[a * MAX_BALLS + b] <= t_next + SIMULTANEOUS and contacts < MAX_CONTACTS:
                        first[contacts] = a
                        second[contacts] = b
                        partners[a] = partners[a] | (1 << b)
                        partners[b] = partners[b] | (1 << a)
                        contacts = contacts + 1
        advance_all(n, t_next - t, p, r, v, w, s)
        logged_from = count
        moved = int(0)
        if contacts > 1:
            # Simultaneous contacts, resolved as one impact; every ball they moved refreshed.
            for i in range(n):
                moving[i] = wp.where(translating(s[i]), 1, 0)
            cluster.resolve(
                r,
                v,
                w,
                moving,
                n,
                contacts,
                first,
                second,
                partners,
                normal,
                impulse,
                target,
                scratch_v,
                scratch_dv,
                scratch_dw,
                p,
            )
            for i in range(n):
                if partners[i] != 0:
                    s[i] = classify(v[i], w[i], p)
                    touch[i] = touching_cushion(r[i], p.c, lines, line_ids, arcs, arc_pocket)
            for k in range(contacts):
                a = first[k]
                b = second[k]
                count, full = log_event(
                    log_t,
                    log_kind,
                    log_a,
                    log_b,
                    log_ta,
                    log_tb,
                    tid,
                    count,
                    t_next,
                    BALL_BALL,
                    a,
                    b,
                    touch[a],
                    touch[b],
                    limit,
                    keep_log,
                    n,
                    struck[tid],
                    s_in,
                    snap_cushion,
                    snap_touching,
                    last_contact,
                    carried,
                    met,
                    facts_shot,
                    facts_ball,
                    facts_pocket,
                )
                overflow = overflow or full
            if record:
                for slot in range(logged_from, wp.min(logged_from + contacts, hist_s.shape[1])):
                    keep_state(hist_r, hist_v, hist_w, hist_s, tid, slot, n, r, v, w, s)
            for i in range(n):
                if partners[i] != 0:
                    moved = moved | (1 << i)
        else:
            i = trans_ball
            j = trans_ball
            if not single:
                i = pi
                j = pj
            elif is_rail:
                i = rail_ball
                j = rail_ball
            kind = int(0)
            other = int(-1)
            touch_i = int(-1)
            touch_j = int(-1)
            if not single:
                kissed_i, kissed_j = kiss.ball_ball(
                    r[i], v[i], r[j], v[j], translating(s[i]) or translating(s[j]), p.R
                )
                r[j] = kissed_j
                r[i] = kissed_i
                vi, wi, vj, wj = collide(r[i], v[i], w[i], r[j], v[j], w[j], p)
                touch_i = touching_cushion(r[i], p.c, lines, line_ids, arcs, arc_pocket)
                touch_j = touching_cushion(r[j], p.c, lines, line_ids, arcs, arc_pocket)
                v[j] = vj
                w[j] = wj
                s[j] = classify(vj, wj, p)
                v[i] = vi
                w[i] = wi
                s[i] = classify(vi, wi, p)
                kind = BALL_BALL
                other = j
            elif is_rail:
                contact = rail_kind[i]
                index = rail_idx[i]
                if contact == LINE or contact == ARC:
                    # Kiss, then rebound off the normal at the point of contact (towards the ball).
                    toward = wp.vec2d(F(0.0), F(0.0))
                    reach = F(0.0)
                    if contact == LINE:
                        start = line_point(lines, index)
                        toward = line_normal(lines, index)
                        if wp.dot(toward, r[i] - start) < F(0.0):
                            toward = -toward
                        r[i] = kiss.line(r[i], v[i], -toward, start, p.c, translating(s[i]))
                        reach = wp.dot(r[i] - start, toward)
                        kind = CUSHION
                        other = line_ids[index, 0]
                        if other < 0:
                            kind = JAW
                            other = line_ids[index, 1]
                    else:
                        centre = circle_centre(arcs, index)
                        r[i] = kiss.circle(r[i], v[i], centre, arcs[index, 2] + p.c, translating(s[i]))
                        reach = wp.length(r[i] - centre)
                        toward = (r[i] - centre) / reach
                        kind = JAW
                        other = arc_pocket[index]
                    v_new, w_new = rebound(v[i], w[i], -toward, reach, p)
                    v[i] = v_new
                    w[i] = w_new
                    s[i] = classify(v_new, w_new, p)
                elif contact == HOLE:
                    v[i] = wp.vec2d(F(0.0), F(0.0))
                    w[i] = wp.vec3d(F(0.0), F(0.0), F(0.0))
                    s[i] = POCKETED
                    pocket[tid, i] = index
                    pocket_time[tid, i] = t_next
                    kind = POCKET
                    other = index
                else:
                    # A crossing from the front half (side -1) to the back is logged as +1.
                    kind = CENTRE_LINE
                    other = -side[i]
                    side[i] = -side[i]
            else:
                old = s[i]
                v_new, w_new, s_new = settle(v[i], w[i], s[i], p)
                v[i] = v_new
                w[i] = w_new
                s[i] = s_new
                kind = transition_kind(old, s_new)
            if transitions or kind == BALL_BALL or is_rail:
                if record:
                    keep_state(
                        hist_r, hist_v, hist_w, hist_s, tid, wp.min(count, hist_s.shape[1] - 1), n, r, v, w, s
                    )
                count, full = log_event(
                    log_t,
                    log_kind,
                    log_a,
                    log_b,
                    log_ta,
                    log_tb,
                    tid,
                    count,
                    t_next,
                    kind,
                    i,
                    other,
                    touch_i,
                    touch_j,
                    limit,
                    keep_log,
                    n,
                    struck[tid],
                    s_in,
                    snap_cushion,
                    snap_touching,
                    last_contact,
                    carried,
                    met,
                    facts_shot,
                    facts_ball,
                    facts_pocket,
                )
                overflow = overflow or full
            moved = (1 << i) | (1 << j)
        # Every ball the event moved gets its cache entries refreshed.
        t = t_next
        motion_caches(n, p, v, w, s, acc, horizon)
        for i in range(n):
            if (moved >> i) & 1 == 1:
                refresh(
                    i,
                    n,
                    t,
                    p,
                    r,
                    v,
                    s,
                    acc,
                    horizon,
                    side,
                    pair_t,
                    rail_t,
                    rail_kind,
                    rail_idx,
                    lines,
                    arcs,
                    holes,
                )

    for i in range(n):
        for d in range(2):
            r_out[tid, i, d] = r[i][d]
            v_out[tid, i, d] = v[i][d]
        for d in range(3):
            w_out[tid, i, d] = w[i][d]
        s_out[tid, i] = s[i]
    log_count[tid] = count
    log_overflow[tid] = wp.where(overflow, 1, 0)
    duration[tid] = t
