"""The shot's facts, noted by the table's own thread event by event as the shot runs.

A referee reading the log from JAX pays for the log's capacity (1,024 slots a table, a
sort among them) on every table, however short the shot; the thread that logs an event
notes what it means as it goes (`note`, after `begin`), so that a game need not keep the
log at all. What it keeps is the size of the balls:

- per shot (`SHOT_FIELDS`): the log slot of the struck ball's first contact with a ball
  on the table that it was not touching at the start, that ball, the struck ball's
  cushion contacts before it, and the bits of `SHOT_BITS`: what happened after that
  contact, in order (a ball that had touched a cushion met a ball that then touched a
  cushion before its next meeting, ...);
- per ball (`BALL_BITS`): the cushion pieces it touched after the first contact, whether
  it touched any and whether it crossed the centre line after it, whether it left the
  table; and the log slot of its pocket event.

These are physical statements; `rules.kernel_facts` names the rules they decide. A
cushion "piece" is a cushion segment (0-5) or the jaws of a pocket (6 + pocket id), a
middle pocket's jaw contact also counts as a crossing, and contacts of one pair of balls
at most `BURST_S` apart are one collision: the referee's readings, kept here so that the
log-reading referee (`rules.shot_facts`, the reference of the tests) and this reader
cannot drift apart.
"""

from __future__ import annotations

import warp as wp

from piramida.physics import events as ev
from piramida.physics import layouts
from piramida.physics.engine.motion import POCKETED
from piramida.physics.engine.roots import infinity
from piramida.physics.table import MIDDLE_LEFT, MIDDLE_RIGHT

# Two contacts of one pair of balls at most this far apart (s) are one collision: the
# kernel resolves a ball driven into a frozen neighbour as a burst of contacts at one
# instant (about 1e-16 s apart at a 0 gap, 1e-4 s at 0.1 mm); the ear hears 10 ms as one.
BURST_S = 0.01
N_PIECES = 12  # six cushion segments, then the jaws of the six pockets (6 + pocket id)
JAW_PIECE = ev.JAW_TOUCH_OFFSET

# `facts_shot` columns; a slot is an event's index in the log, whether or not the log is
# kept, and `limit` (the log's capacity, past which the shot overflows) is the slot of none.
SHOT_FIELDS = ("first_slot", "first_ball", "own_cushions_before", "bits", "limit")
# Bits of `facts_shot[:, 3]`; "after" is after the first contact, "X" and "Y" any two balls
# that meet (a ball-ball contact that is not part of an earlier contact's burst).
SHOT_BITS = (
    "pocket_after",  # a ball fell into a pocket
    "cushion_after",  # a ball touched a cushion
    "crossing_after",  # a ball crossed the centre line
    "crossed_then_cushion",  # one ball crossed, later touched a cushion
    "cushion_then_crossed",  # one ball touched a cushion, later crossed
    "cushioned_meets_then_cushion",  # X had touched a cushion, met Y; Y then touched one before
    # its next meeting
    "cushioned_meets_then_crossed",  # ... Y then crossed before its next meeting
    "cushioned_meets_touching",  # X had touched a cushion, met Y, which was touching one then
    "crossed_meets_then_cushion",  # X had crossed, met Y; Y then touched a cushion before its next meeting
    "crossed_meets_touching",  # X had crossed, met Y, which was touching a cushion then
    # At its first meeting, from the first contact on, a ball frozen at the start pressed its cushion:
    "pressed",
    "pressed_meets_then_cushion",  # ... and the ball it met then touched a cushion before its next meeting
    "pressed_meets_then_crossed",  # ... and the ball it met then crossed before its next meeting
    "frozen_partner_contact",  # the struck ball touched a ball it was touching at the start
)
# Bits of `facts_ball`, above the `N_PIECES` bits of the pieces touched after the first contact.
BALL_BITS = ("cushion_after", "crossing_after", "jumped")

_BIT = {name: wp.constant(1 << k) for k, name in enumerate(SHOT_BITS)}
POCKET_AFTER = _BIT["pocket_after"]
CUSHION_AFTER = _BIT["cushion_after"]
CROSSING_AFTER = _BIT["crossing_after"]
CROSSED_THEN_CUSHION = _BIT["crossed_then_cushion"]
CUSHION_THEN_CROSSED = _BIT["cushion_then_crossed"]
CUSHIONED_MEETS_THEN_CUSHION = _BIT["cushioned_meets_then_cushion"]
CUSHIONED_MEETS_THEN_CROSSED = _BIT["cushioned_meets_then_crossed"]
CUSHIONED_MEETS_TOUCHING = _BIT["cushioned_meets_touching"]
CROSSED_MEETS_THEN_CUSHION = _BIT["crossed_meets_then_cushion"]
CROSSED_MEETS_TOUCHING = _BIT["crossed_meets_touching"]
PRESSED = _BIT["pressed"]
PRESSED_MEETS_THEN_CUSHION = _BIT["pressed_meets_then_cushion"]
PRESSED_MEETS_THEN_CROSSED = _BIT["pressed_meets_then_crossed"]
FROZEN_PARTNER_CONTACT = _BIT["frozen_partner_contact"]
BALL_CUSHION = wp.constant(1 << N_PIECES)
BALL_CROSSING = wp.constant(1 << (N_PIECES + 1))
BALL_JUMPED = wp.constant(1 << (N_PIECES + 2))
# What a ball carries from its latest meeting, for what it does before the next one.
FROM_CUSHIONED = wp.constant(1)
FROM_CROSSED = wp.constant(2)
FROM_PRESSED = wp.constant(4)

_MAX_BALLS = wp.constant(layouts.MAX_BALLS)
_BURST = wp.constant(wp.float64(BURST_S))
_NONE = wp.constant(ev.NONE)
_BALL_BALL = wp.constant(ev.BALL_BALL)
_CUSHION = wp.constant(ev.CUSHION)
_JAW = wp.constant(ev.JAW)
_POCKET = wp.constant(ev.POCKET)
_CENTRE_LINE = wp.constant(ev.CENTRE_LINE)
_OFF_TABLE = wp.constant(ev.OFF_TABLE)
_JAW_PIECE = wp.constant(JAW_PIECE)
_PIECES = wp.constant(N_PIECES)
_MIDDLE_LEFT = wp.constant(MIDDLE_LEFT)
_MIDDLE_RIGHT = wp.constant(MIDDLE_RIGHT)


@wp.func
def begin(
    tid: wp.int32,
    n: wp.int32,
    limit: wp.int32,
    last_contact: wp.array(dtype=wp.float64),
    carried: wp.array(dtype=wp.int32),
    met: wp.array(dtype=wp.int32),
    facts_shot: wp.array2d(dtype=wp.int32),
    facts_ball: wp.array2d(dtype=wp.int32),
    facts_pocket: wp.array2d(dtype=wp.int32),
):
    """Table `tid`'s facts before its first event.

    `last_contact` (N x N), `carried` and `met` (N) are the thread's scratch: the time of
    each pair's latest contact, what each ball carries from its latest meeting, and
    whether it has met a ball yet.
    """
    for i in range(n):
        facts_ball[tid, i] = 0
        facts_pocket[tid, i] = limit
        carried[i] = 0
        met[i] = 0
        for j in range(n):
            last_contact[i * _MAX_BALLS + j] = -infinity()
    facts_shot[tid, 0] = limit
    facts_shot[tid, 1] = -1
    facts_shot[tid, 2] = 0
    facts_shot[tid, 3] = 0
    facts_shot[tid, 4] = limit


@wp.func
def note(
    tid: wp.int32,
    k: wp.int32,
    t: wp.float64,
    kind: wp.int32,
    a: wp.int32,
    b: wp.int32,
    touch_a: wp.int32,
    touch_b: wp.int32,
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
):
    """Note table `tid`'s event `k` in its facts (see the module docstring).

    The event is (t, kind, a, b) and, for a ball-ball contact, the piece each ball touched;
    `own` is the struck ball.
    """
    first = facts_shot[tid, 0]
    bits = facts_shot[tid, 3]
    after = k > first
    names_ball = a >= 0 and a < n
    if kind == _BALL_BALL and names_ball and b >= 0 and b < n:
        low = wp.min(a, b)
        high = wp.max(a, b)
        meets = t - last_contact[low * _MAX_BALLS + high] > _BURST
        last_contact[low * _MAX_BALLS + high] = t
        if a == own or b == own:
            partner = wp.where(a == own, b, a)
            if snap_touching[tid, own, partner] == 1:
                bits = bits | FROZEN_PARTNER_CONTACT
            elif first == facts_shot[tid, 4] and s_in[tid, partner] < POCKETED:
                first = k
                facts_shot[tid, 0] = k
                facts_shot[tid, 1] = partner
        # A ball frozen against a cushion at the start, at its first meeting from the
        # first contact on, still against that piece: it pressed it.
        pressed_a = False
        pressed_b = False
        if first <= k:
            pressed_a = met[a] == 0 and a != own and snap_cushion[tid, a] >= 0
            pressed_a = pressed_a and touch_a == snap_cushion[tid, a]
            pressed_b = met[b] == 0 and b != own and snap_cushion[tid, b] >= 0
            pressed_b = pressed_b and touch_b == snap_cushion[tid, b]
        if pressed_a or pressed_b:
            bits = bits | PRESSED
        met[a] = 1
        met[b] = 1
        if meets:
            from_a = wp.where(pressed_a, FROM_PRESSED, 0)
            from_b = wp.where(pressed_b, FROM_PRESSED, 0)
            if k > first:
                cushioned_a = (facts_ball[tid, a] & BALL_CUSHION) != 0
                cushioned_b = (facts_ball[tid, b] & BALL_CUSHION) != 0
                crossed_a = (facts_ball[tid, a] & BALL_CROSSING) != 0
                crossed_b = (facts_ball[tid, b] & BALL_CROSSING) != 0
                if (cushioned_a and touch_b >= 0) or (cushioned_b and touch_a >= 0):
                    bits = bits | CUSHIONED_MEETS_TOUCHING
                if (crossed_a and touch_b >= 0) or (crossed_b and touch_a >= 0):
                    bits = bits | CROSSED_MEETS_TOUCHING
                from_a = from_a | wp.where(cushioned_a, FROM_CUSHIONED, 0)
                from_a = from_a | wp.where(crossed_a, FROM_CROSSED, 0)
                from_b = from_b | wp.where(cushioned_b, FROM_CUSHIONED, 0)
                from_b = from_b | wp.where(crossed_b, FROM_CROSSED, 0)
            # Each ball now carries what the other one brought to this meeting.
            carried[b] = from_a
            carried[a] = from_b
    elif names_ball and kind != _NONE:
        is_cushion = kind == _CUSHION or kind == _JAW
        middle_jaw = kind == _JAW and (b == _MIDDLE_LEFT or b == _MIDDLE_RIGHT)
        is_crossing = kind == _CENTRE_LINE or middle_jaw  # a middle pocket's jaw counts as one
        if is_cushion and a == own and first == facts_shot[tid, 4]:
            facts_shot[tid, 2] = facts_shot[tid, 2] + 1
        if kind == _POCKET:
            if facts_pocket[tid, a] == facts_shot[tid, 4]:
                facts_pocket[tid, a] = k
            if after:
                bits = bits | POCKET_AFTER
        if kind == _OFF_TABLE:
            facts_ball[tid, a] = facts_ball[tid, a] | BALL_JUMPED
        if after and (is_cushion or is_crossing):
            had = facts_ball[tid, a]
            brought = carried[a]
            if is_cushion:
                bits = bits | CUSHION_AFTER
                if (had & BALL_CROSSING) != 0:
                    bits = bits | CROSSED_THEN_CUSHION
                if (brought & FROM_CUSHIONED) != 0:
                    bits = bits | CUSHIONED_MEETS_THEN_CUSHION
                if (brought & FROM_CROSSED) != 0:
                    bits = bits | CROSSED_MEETS_THEN_CUSHION
                if (brought & FROM_PRESSED) != 0:
                    bits = bits | PRESSED_MEETS_THEN_CUSHION
                piece = wp.where(kind == _JAW, _JAW_PIECE + b, b)
                seen = had | BALL_CUSHION
                if piece >= 0 and piece < _PIECES:
                    seen = seen | (1 << piece)
                facts_ball[tid, a] = seen
            if is_crossing:
                bits = bits | CROSSING_AFTER
                if (had & BALL_CUSHION) != 0:
                    bits = bits | CUSHION_THEN_CROSSED
                if (brought & FROM_CUSHIONED) != 0:
                    bits = bits | CUSHIONED_MEETS_THEN_CROSSED
                if (brought & FROM_PRESSED) != 0:
                    bits = bits | PRESSED_MEETS_THEN_CROSSED
                facts_ball[tid, a] = facts_ball[tid, a] | BALL_CROSSING
    facts_shot[tid, 3] = bits
