"""Shot facts and legality read from one shot's event log: G5.3, G12.1, G20, G22, G24.

`shot_facts` is written for one table and is pure array code over the log's C slots
(masks, `argmax` for "first", scatters per ball, one sort and running maxima), so
`jax.jit(jax.vmap(shot_facts))` runs a whole batch of tables at once. Its work grows as C
(C log C for the sort; one (C, N) running max for A-17(4) "direct"), never C x C: the
referee must stay cheap next to the physics (`benchmarks/referee_speed.py`). `explain`
turns one table's facts into the rule ids a verdict cites. The readings of the rules
chosen here (A-16, A-17, A-18, A-20, A-21 and the G20 notes) are tabled in
`docs/rules-legality-notes.md`.

Pieces of cushion. A contact is with one of 12 pieces: the six cushion segments
(ids 0-5) and the jaws of the six pockets (6 + pocket id), the numbering of
`touch_a`/`touch_b` in the log and of `Snapshot.cushion`. A jaw is cushion rubber (A-16),
so every "touches a cushion" below includes jaws; the log names only the pocket of a jaw
contact, not which of its two jaws, so two pieces count as different cushions (G20(2.1))
only when no segment could be behind both.

What the log promises (`piramida.physics.kernel`), and this module relies on:
- a `centre-line` event means the ball centre went from one half to the other. A ball
  whose centre starts on the line is put in the half it heads for and logs no event for
  leaving the line, only for a later crossing (G20-N3);
- a ball frozen against a cushion and driven into it by a ball-ball contact logs a
  `cushion` event right after that contact, and the two balls' contact comes as a burst
  of `ball-ball` events at one instant (one collision here: `same_collision_s`);
- `off-table` marks a ball that counts as jumped (G24.1, G24.2; A-29).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from piramida.physics import events as ev
from piramida.physics.engine import facts as kernel_facts
from piramida.physics.kernel import Snapshot
from piramida.physics.table import (
    BACK,
    BACK_LEFT,
    BACK_RIGHT,
    FRONT,
    FRONT_LEFT,
    FRONT_RIGHT,
    LEFT_BACK,
    LEFT_FRONT,
    MIDDLE_LEFT,
    MIDDLE_RIGHT,
    RIGHT_BACK,
    RIGHT_FRONT,
)
from piramida.rules.ids import MIDDLE_POCKETS, NO_BALL

N_PIECES = kernel_facts.N_PIECES  # six cushion segments, then the jaws of the six pockets (6 + pocket id)
CUSHION_IDENTITIES = ("segment", "side")  # A-16 `cushion_identity`
CAUSAL_CHAINS = ("direct", "any_later")  # A-17(4) `causal_chain`
# Two contacts of one pair of balls at most this apart (s) are one collision (G20-N2): the
# kernel's reading of its own log (`physics.engine.facts.BURST_S`) uses the same window.
SAME_COLLISION_S = kernel_facts.BURST_S

# The cushion segments behind each jaw (A-16: jaw rubber belongs to the adjacent segment).
_JAW_SEGMENTS = {
    FRONT_LEFT: (FRONT, LEFT_FRONT),
    FRONT_RIGHT: (FRONT, RIGHT_FRONT),
    MIDDLE_LEFT: (LEFT_FRONT, LEFT_BACK),
    MIDDLE_RIGHT: (RIGHT_FRONT, RIGHT_BACK),
    BACK_LEFT: (BACK, LEFT_BACK),
    BACK_RIGHT: (BACK, RIGHT_BACK),
}
# With `cushion_identity="side"` a long side split by its middle pocket is one cushion.
_SIDE_OF_SEGMENT = {FRONT: 0, BACK: 1, LEFT_FRONT: 2, LEFT_BACK: 2, RIGHT_FRONT: 3, RIGHT_BACK: 3}


def other_cushion_table(identity: str) -> np.ndarray:
    """(12, 12) bool: pieces p and q are certainly different cushions (G20(2.1), A-16)."""
    if identity not in CUSHION_IDENTITIES:
        raise ValueError(f"cushion_identity must be one of {CUSHION_IDENTITIES}, got {identity!r}")
    behind: list[set[int]] = [{segment} for segment in range(6)]
    behind += [set(_JAW_SEGMENTS[pocket]) for pocket in range(6)]
    if identity == "side":
        behind = [{_SIDE_OF_SEGMENT[s] for s in segments} for segments in behind]
    return np.array([[not (p & q) for q in behind] for p in behind])


@jax.tree_util.register_dataclass
@dataclass(frozen=True)
class ShotFacts:
    """What one shot's log says about contact and legality (a pytree; leading axes are batch axes).

    "After the contact" means in log slots after `first_contact_index` (after
    `break_contact_index` for the break clauses): only those events count (A-17(1), A-21).
    "Touched a cushion" includes the jaws (A-16); "crossed" includes a middle-pocket jaw
    contact (G20-N4). N is the number of balls (16), C the log capacity.

    Attributes:
      is_break: () the shot was a break (G12.1 applies instead of G20).
      first_contact: () G5.3 / III.6 `first_object_contact`: the first object ball the own
        ball touched, frozen partners excluded (G19.2-N, A-20); -1 if none.
      first_contact_index: () its log slot; C if none.
      hit: () G5.3 satisfied: the own ball touched an object ball other than a frozen partner.
      frozen_partners: (N,) object balls touching the own ball at shot start (G19.2-N).
      frozen_partner_contact: () the own ball touched a frozen partner (G19.2-N).
      own_cushions_before_contact: () cushion and jaw contacts of the own ball before the
        first contact (G5.2: played off a cushion); all of them if there was none.
      declared_frozen: (N,) cushion piece each ball was declared frozen against, -1 if not
        (G20-N2, A-18; by default every ball the snapshot finds against a cushion).
      pocketed: (N,) the ball fell into a pocket during the shot (G22; it stays there).
      pocket_of: (N,) the pocket it fell into, -1 if none.
      jumped: (N,) the ball left the table (an `off-table` event, G24).
      cushion_balls: (N,) balls that touched a cushion after the contact that counts
        (the first contact, or the first own-ball-pyramid contact on a break).
      crossing_balls: (N,) balls that crossed the centre line after that contact.
      break_contact: () the first pyramid ball the own ball touched (III.6), -1 if none.
      break_contact_index: () its log slot; C if none.
      g12_1_1: () G12.1(1): a ball (the own ball too, A-21) fell into a pocket.
      g12_1_2: () G12.1(2): at least three distinct pyramid balls touched a cushion.
      g12_1_3: () G12.1(3): two of them did, and a pyramid ball crossed the centre line.
      break_legal: () G12.1: any of the three.
      g20_1: () G20(1): a ball fell into a pocket after the contact.
      g20_2: () G20(2) and (4), the lead-in: a ball rebounded off a cushion.
      g20_2_1: () G20(2.1): a ball rebounded off a cushion, then touched another cushion.
      g20_2_2: () G20(2.2): a ball rebounded, then moved another ball, which then touched a
        cushion before its next ball-ball contact (A-17(4)); a declared frozen ball's
        being pressed against its cushion counts as its rebound (G20-N2, A-18).
      g20_2_3: () G20(2.3): a ball rebounded, then touched a ball that was touching a cushion.
      g20_3: () G20(3), the lead-in: a ball crossed the centre line.
      g20_3_1: () G20(3.1): a ball crossed, then touched a cushion.
      g20_3_2: () G20(3.2): a ball crossed, then moved another ball onto a cushion.
      g20_3_3: () G20(3.3): a ball crossed, then touched a ball that was touching a cushion.
      g20_4_1: () G20(4.1): a ball rebounded off a cushion, then crossed.
      g20_4_2: () G20(4.2): a ball rebounded, then moved another ball across the line; a
        declared frozen ball's pressing counts as in (2.2).
      g20_n2_declared: () (2.2) or (4.2) holds only through a declared frozen ball, with no
        second separate collision (G20-N2, second sentence).
      g20_legal: () G20: the own ball hit (G5.3) and one of (1) ... (4.2) holds.
      overflow: () the log ran out of room: the facts describe a truncated shot.
      legal: () nothing read from the log makes the shot a foul: G5.3, then G12.1 for a
        break or G20 otherwise, no ball jumped (G24.3), and the log is whole. Fouls that
        are not in the log (G15-G19, G21.2, variant rules) are the verdict's.

    """

    is_break: Any
    first_contact: Any
    first_contact_index: Any
    hit: Any
    frozen_partners: Any
    frozen_partner_contact: Any
    own_cushions_before_contact: Any
    declared_frozen: Any
    pocketed: Any
    pocket_of: Any
    jumped: Any
    cushion_balls: Any
    crossing_balls: Any
    break_contact: Any
    break_contact_index: Any
    g12_1_1: Any
    g12_1_2: Any
    g12_1_3: Any
    break_legal: Any
    g20_1: Any
    g20_2: Any
    g20_2_1: Any
    g20_2_2: Any
    g20_2_3: Any
    g20_3: Any
    g20_3_1: Any
    g20_3_2: Any
    g20_3_3: Any
    g20_4_1: Any
    g20_4_2: Any
    g20_n2_declared: Any
    g20_legal: Any
    overflow: Any
    legal: Any


def _first(mask: Any) -> Any:
    """Index of the first True along the last axis, or its length if none."""
    n = mask.shape[-1]
    return jnp.where(jnp.any(mask, axis=-1), jnp.argmax(mask, axis=-1), n).astype(jnp.int32)


def _spare(mask: Any, index: Any, size: int) -> Any:
    """`index` where `mask` holds and it is below `size`, else the spare entry `size`.

    Scatters below write into `size + 1` entries and drop the spare one, so an event
    that is not of the kind asked for, or names no ball, writes nowhere.
    """
    return jnp.where(mask & (index >= 0) & (index < size), index, size)


def _first_of(mask: Any, ball: Any, n: int) -> Any:
    """(N,): each ball's first slot whose event is `mask` and names it in `ball`, or C.

    A scatter-min over the C slots: O(C), where a (C, N) mask would be O(C * N).
    """
    c = mask.shape[0]
    slots = jnp.arange(c, dtype=jnp.int32)
    return jnp.full(n + 1, c, jnp.int32).at[_spare(mask, ball, n)].min(slots)[:n]


def _last_of(mask: Any, ball: Any, n: int) -> Any:
    """(N,): each ball's last such slot, or -1 (a scatter-max, as `_first_of`)."""
    slots = jnp.arange(mask.shape[0], dtype=jnp.int32)
    return jnp.full(n + 1, -1, jnp.int32).at[_spare(mask, ball, n)].max(slots)[:n]


def _any_of(mask: Any, ball: Any, n: int) -> Any:
    """(N,): some slot whose event is `mask` names the ball in `ball`."""
    return _first_of(mask, ball, n) < mask.shape[0]


def _of(per_ball: Any, ball: Any, default: Any) -> Any:
    """per_ball[ball[k]] for each slot k, `default` where ball[k] is not a ball."""
    n = per_ball.shape[0]
    return jnp.where((ball >= 0) & (ball < n), per_ball[jnp.clip(ball, 0, n - 1)], default)


def _segment_max(left: tuple[Any, Any], right: tuple[Any, Any]) -> tuple[Any, Any]:
    """Combine for a running max that restarts where the flag is set (`associative_scan`)."""
    left_start, left_max = left
    right_start, right_max = right
    return left_start | right_start, jnp.where(right_start, right_max, jnp.maximum(left_max, right_max))


def _continued(log: ev.EventLog, is_ball_ball: Any, n: int, same_collision_s: float) -> Any:
    """(C,): ball-ball contacts at most `same_collision_s` after an earlier contact of their pair.

    Such a contact continues that one collision (G20-N2). Sorting the slots by (pair,
    slot) puts each pair's contacts together, and a running max of their times, restarted
    at each pair, gives the latest earlier one: O(C log C) instead of C x C slot pairs.
    """
    c = log.t.shape[0]
    low, high = jnp.minimum(log.a, log.b), jnp.maximum(log.a, log.b)
    pair = jnp.where(is_ball_ball, low * n + high, n * n)
    order = jnp.sort(pair * c + jnp.arange(c))
    slot, pair = order % c, order // c
    t = log.t[slot]
    starts = jnp.concatenate([jnp.ones(1, bool), pair[1:] != pair[:-1]])
    _, latest = jax.lax.associative_scan(_segment_max, (starts, t))
    earlier = jnp.where(starts, -jnp.inf, jnp.concatenate([jnp.full(1, -jnp.inf), latest[:-1]]))
    # t - earlier falls as earlier grows: "within the window after the latest" is "after some".
    continued = (pair < n * n) & (t - earlier <= same_collision_s)
    return jnp.zeros(c, bool).at[slot].set(continued)


def _latest_meeting(meets_at: Any, a: Any, b: Any, n: int) -> Any:
    """(C,): the latest slot up to k where ball a[k] met another ball (`meets_at`), or -1.

    One running max over a (C, N) table of each ball's meetings (A-17(4) "direct").
    """
    c = meets_at.shape[0]
    balls = jnp.arange(n)
    slots = jnp.arange(c, dtype=jnp.int32)
    meets = meets_at[:, None] & ((a[:, None] == balls) | (b[:, None] == balls))
    latest = jax.lax.associative_scan(jnp.maximum, jnp.where(meets, slots[:, None], -1), axis=0)
    return jnp.take_along_axis(latest, jnp.clip(a, 0, n - 1)[:, None], axis=1)[:, 0]


def _then(done: Any, meeting: Any, a: Any) -> tuple[Any, Any]:
    """(C,) x 2: ball a[k] / b[k] of meeting slot k does `done` before its next meeting.

    `done` marks slots j whose ball a[j] did the thing, `meeting` is a[j]'s latest meeting
    before j (`_latest_meeting`): a scatter marks that meeting, on the side a[j] took in it.
    Read only at meeting slots (`_latest_meeting`'s `meets_at`).
    """
    c = done.shape[0]
    side = jnp.where(a[jnp.maximum(meeting, 0)] == a, 0, 1)
    marked = jnp.zeros(2 * c + 1, bool).at[_spare(done & (meeting >= 0), 2 * meeting + side, 2 * c)].set(True)
    by_side = marked[:-1].reshape(c, 2)
    return by_side[:, 0], by_side[:, 1]


def shot_facts(
    log: ev.EventLog,
    start: Snapshot,
    own_ball: Any,
    object_mask: Any,
    pyramid_mask: Any,
    is_break: Any,
    length: Any = None,
    declared_frozen: Any = None,
    *,
    cushion_identity: str = "segment",
    causal_chain: str = "direct",
    break_cross_ball_distinct: bool = False,
    same_collision_s: float = SAME_COLLISION_S,
) -> ShotFacts:
    """Read one table's shot log: first contact, pockets, jumps, G12.1 and G20.

    Args:
      log: one table's event log (C slots).
      start: the snapshot at shot start (`cushion` (N,), `touching` (N, N)).
      own_ball: () int, the struck ball (G4.1).
      object_mask: (N,) bool, the object balls on the bed at shot start (G4.4); the own
        ball is never one.
      pyramid_mask: (N,) bool, the balls racked at shot start (S-7; used on a break).
      is_break: () bool, the shot is a break: G12.1 decides instead of G20.
      length: unused: the kernel logs the centre-line crossings (G20-N3) and the snapshot
        says which centres start on the line; kept so callers may pass the table length.
      declared_frozen: (N,) int, the cushion piece each ball was declared frozen against
        before the shot, -1 if not (IN-5, G20-N2). None treats every ball the snapshot
        finds against a cushion as declared (A-18 `auto_declare_frozen`, default true).
      cushion_identity: "segment" (default) or "side": what "another cushion" means in
        G20(2.1) (A-16).
      causal_chain: "direct" (default): in (2.2), (3.2), (4.2) the moved ball must touch the
        cushion or cross before its next ball-ball contact; "any_later": any time after
        (A-17(4)).
      break_cross_ball_distinct: G12.1(3) needs the crossing ball to be a third ball, not
        one of the two cushion balls (A-21; default false).
      same_collision_s: contacts of one pair of balls closer in time than this are one
        collision (G20-N2 "two separate collisions"; default 10 ms; 0 or more).

    Returns:
      The shot's `ShotFacts`.

    """
    del length
    if causal_chain not in CAUSAL_CHAINS:
        raise ValueError(f"causal_chain must be one of {CAUSAL_CHAINS}, got {causal_chain!r}")
    if not same_collision_s >= 0:
        raise ValueError(f"same_collision_s must be 0 or more, got {same_collision_s!r}")
    other_cushion = jnp.asarray(other_cushion_table(cushion_identity))
    n = object_mask.shape[-1]
    c = log.t.shape[-1]
    balls = jnp.arange(n)
    slots = jnp.arange(c)
    own = jnp.asarray(own_ball, jnp.int32)
    is_own = balls == own
    is_break = jnp.asarray(is_break, bool)

    # The log as (C,) masks; the ball of a cushion, crossing, pocket or jump event is `a`.
    # Per-ball facts are scatters over the slots (`_first_of`, ...), not (C, N) masks.
    used = (slots < log.count) & (log.kind != ev.NONE)
    kind = jnp.where(used, log.kind, ev.NONE)
    a, b = log.a, log.b
    names_ball = (a >= 0) & (a < n)
    is_ball_ball = kind == ev.BALL_BALL
    is_contact = (kind == ev.CUSHION) | (kind == ev.JAW)
    piece = jnp.where(kind == ev.JAW, ev.JAW_TOUCH_OFFSET + b, b)
    middle_jaw = (kind == ev.JAW) & jnp.isin(b, jnp.asarray(MIDDLE_POCKETS))
    is_crossing = (kind == ev.CENTRE_LINE) | middle_jaw  # G20-N4
    cushion_ev = is_contact & names_ball
    crossing_ev = is_crossing & names_ball
    pocket_ev = (kind == ev.POCKET) & names_ball
    jumped = _any_of(kind == ev.OFF_TABLE, a, n)

    # G5.3 and G19.2-N: the first contact of the own ball with an object ball that was not
    # touching it at shot start. On a break, the first contact with the pyramid.
    frozen_partners = jnp.any(start.touching & is_own[:, None], axis=0) & ~is_own
    partner = jnp.where(a == own, b, jnp.where(b == own, a, NO_BALL))
    own_contact = is_ball_ball & (partner >= 0)
    objects = jnp.asarray(object_mask, bool) & ~is_own
    pyramid = jnp.asarray(pyramid_mask, bool) & ~is_own
    contact = own_contact & _of(objects & ~frozen_partners, partner, False)
    break_hit = own_contact & _of(pyramid & ~frozen_partners, partner, False)
    first = _first(contact)
    first_break = _first(break_hit)
    hit = first < c
    first_contact = jnp.where(hit, jnp.sum(jnp.where(slots == first, partner, 0)), NO_BALL)
    break_contact = jnp.where(first_break < c, jnp.sum(jnp.where(slots == first_break, partner, 0)), NO_BALL)
    frozen_partner_contact = jnp.any(own_contact & _of(frozen_partners, partner, False))
    own_cushions_before = jnp.sum(cushion_ev & _of(is_own, a, False) & (slots < first))

    # G22: pockets (a pocketed ball stays pocketed in this planar kernel).
    pocket_slot = _first_of(pocket_ev, a, n)
    pocketed = pocket_slot < c
    pocket_of = jnp.where(pocketed, b[jnp.minimum(pocket_slot, c - 1)], -1).astype(jnp.int32)

    # G12.1, over events after the first own-ball-pyramid contact (III.6, A-21).
    after_break = slots > first_break
    break_cushion = _any_of(cushion_ev & after_break, a, n) & pyramid
    break_crossing = _any_of(crossing_ev & after_break, a, n) & pyramid
    cushion_count = jnp.sum(break_cushion)
    g12_1_1 = jnp.any(pocket_ev & after_break)
    g12_1_2 = cushion_count >= 3
    if break_cross_ball_distinct:
        g12_1_3 = jnp.any(break_crossing & (cushion_count - break_cushion >= 2))
    else:
        g12_1_3 = (cushion_count >= 2) & jnp.any(break_crossing)
    break_legal = g12_1_1 | g12_1_2 | g12_1_3

    # G20, over events after the first contact (A-17(1)), in log order (A-17(2), G20-N1).
    after = slots > first
    rebound = cushion_ev & after
    crossed = crossing_ev & after
    g20_1 = jnp.any(pocket_ev & after)
    g20_2 = jnp.any(rebound)
    g20_3 = jnp.any(crossed)

    # (2.1): the same ball touches piece p, later piece q, and p, q are other cushions:
    # each (ball, piece)'s first and last touch, scattered into N x 12 entries.
    touch = _spare(rebound & (piece >= 0) & (piece < N_PIECES), a * N_PIECES + piece, n * N_PIECES)
    first_touch = jnp.full(n * N_PIECES + 1, c).at[touch].min(slots)[:-1].reshape(n, N_PIECES)
    last_touch = jnp.full(n * N_PIECES + 1, -1).at[touch].max(slots)[:-1].reshape(n, N_PIECES)
    g20_2_1 = jnp.any((first_touch[:, :, None] < last_touch[:, None, :]) & other_cushion)
    # (3.1) and (4.1): crossing then cushion, cushion then crossing, by the same ball. A
    # middle-jaw contact is a cushion contact and a crossing (A-16, G20-N4), but one event:
    # each clause needs two (G20-N1).
    first_rebound = _first_of(rebound, a, n)
    last_rebound = _last_of(rebound, a, n)
    first_crossing = _first_of(crossed, a, n)
    last_crossing = _last_of(crossed, a, n)
    g20_3_1 = jnp.any(first_crossing < last_rebound)
    g20_4_1 = jnp.any(first_rebound < last_crossing)

    # Chains: ball X, having rebounded (or crossed) earlier, meets ball Y in a ball-ball
    # contact at slot m after the first contact; then Y touches a cushion / crosses before
    # its next ball-ball contact (A-17(4)), or was touching a cushion at m (A-17(5)).
    # Contacts of one pair less than `same_collision_s` after the pair's earlier contact
    # are that one collision: the kernel resolves a ball driven into a frozen neighbour or
    # cushion as a burst of contacts at one instant, which is not "two separate
    # collisions" (G20-N2); a collision is dated by its first contact. Each fact below is
    # (C,) for ball a[m] and for ball b[m] of slot m.
    meets_at = is_ball_ball & ~_continued(log, is_ball_ball, n, same_collision_s)
    meeting = meets_at & after
    rebounded = (_of(first_rebound, a, c) < slots, _of(first_rebound, b, c) < slots)
    crossed_earlier = (_of(first_crossing, a, c) < slots, _of(first_crossing, b, c) < slots)
    if causal_chain == "direct":
        latest = _latest_meeting(meets_at, a, b, n)
        y_cushion = _then(rebound, latest, a)
        y_crossing = _then(crossed, latest, a)
    else:
        y_cushion = (_of(last_rebound, a, -1) > slots, _of(last_rebound, b, -1) > slots)
        y_crossing = (_of(last_crossing, a, -1) > slots, _of(last_crossing, b, -1) > slots)
    touching = (log.touch_a >= 0, log.touch_b >= 0)
    # G20-N2 (b), A-18: a declared frozen object ball, still against the declared piece at
    # its first ball-ball contact, rebounds off it at that contact and so moves the other
    # ball; this may be the first contact itself. Such a slot is a meeting (no earlier
    # contact of its pair to continue), so `y_cushion` and `y_crossing` hold there.
    declared = start.cushion if declared_frozen is None else jnp.asarray(declared_frozen)
    declared = jnp.where(is_own, -1, declared).astype(jnp.int32)
    first_meeting = jnp.minimum(_first_of(is_ball_ball, a, n), _first_of(is_ball_ball, b, n))
    pressed_at = is_ball_ball & (slots >= first) & hit
    pressed_x = pressed_at & (slots == _of(first_meeting, a, -1))
    pressed_x = pressed_x & (_of(declared, a, -1) >= 0) & (log.touch_a == _of(declared, a, -1))
    pressed_y = pressed_at & (slots == _of(first_meeting, b, -1))
    pressed_y = pressed_y & (_of(declared, b, -1) >= 0) & (log.touch_b == _of(declared, b, -1))

    def either_way(x_before: tuple[Any, Any], y_after: tuple[Any, Any]) -> Any:
        """Some meeting where X (either ball of it) did x_before and the other then y_after."""
        (x_a, x_b), (y_a, y_b) = x_before, y_after
        return jnp.any(meeting & ((x_a & y_b) | (x_b & y_a)))

    def pressed_then(y_after: tuple[Any, Any]) -> Any:
        y_a, y_b = y_after
        return jnp.any((pressed_x & y_b) | (pressed_y & y_a))

    plain_2_2 = either_way(rebounded, y_cushion)
    plain_4_2 = either_way(rebounded, y_crossing)
    n2_2_2 = pressed_then(y_cushion)
    n2_4_2 = pressed_then(y_crossing)
    g20_2_2 = plain_2_2 | n2_2_2
    g20_4_2 = plain_4_2 | n2_4_2
    g20_2_3 = either_way(rebounded, touching)
    g20_3_2 = either_way(crossed_earlier, y_cushion)
    g20_3_3 = either_way(crossed_earlier, touching)
    g20_2 = g20_2 | jnp.any(pressed_x | pressed_y)

    clauses = (g20_1, g20_2_1, g20_2_2, g20_2_3, g20_3_1, g20_3_2, g20_3_3, g20_4_1, g20_4_2)
    g20_any = jnp.any(jnp.stack(clauses))
    plain = (g20_1, g20_2_1, plain_2_2, g20_2_3, g20_3_1, g20_3_2, g20_3_3, g20_4_1, plain_4_2)
    g20_n2_declared = g20_any & ~jnp.any(jnp.stack(plain))
    g20_legal = hit & g20_any

    counted = jnp.where(is_break, first_break, first)
    after_counted = slots > counted
    overflow = jnp.asarray(log.overflow, bool)
    legal = hit & jnp.where(is_break, break_legal, g20_legal) & ~jnp.any(jumped) & ~overflow
    return ShotFacts(
        is_break=is_break,
        first_contact=first_contact.astype(jnp.int32),
        first_contact_index=first,
        hit=hit,
        frozen_partners=frozen_partners,
        frozen_partner_contact=frozen_partner_contact,
        own_cushions_before_contact=own_cushions_before.astype(jnp.int32),
        declared_frozen=declared,
        pocketed=pocketed,
        pocket_of=pocket_of,
        jumped=jumped,
        cushion_balls=_any_of(cushion_ev & after_counted, a, n),
        crossing_balls=_any_of(crossing_ev & after_counted, a, n),
        break_contact=break_contact.astype(jnp.int32),
        break_contact_index=first_break,
        g12_1_1=g12_1_1,
        g12_1_2=g12_1_2,
        g12_1_3=g12_1_3,
        break_legal=break_legal,
        g20_1=g20_1,
        g20_2=g20_2,
        g20_2_1=g20_2_1,
        g20_2_2=g20_2_2,
        g20_2_3=g20_2_3,
        g20_3=g20_3,
        g20_3_1=g20_3_1,
        g20_3_2=g20_3_2,
        g20_3_3=g20_3_3,
        g20_4_1=g20_4_1,
        g20_4_2=g20_4_2,
        g20_n2_declared=g20_n2_declared,
        g20_legal=g20_legal,
        overflow=overflow,
        legal=legal,
    )


# Rule ids of the G20 clauses, in the order `explain` lists them.
_G20_CLAUSES = (
    ("g20_1", "G20(1)"),
    ("g20_2_1", "G20(2.1)"),
    ("g20_2_2", "G20(2.2)"),
    ("g20_2_3", "G20(2.3)"),
    ("g20_3_1", "G20(3.1)"),
    ("g20_3_2", "G20(3.2)"),
    ("g20_3_3", "G20(3.3)"),
    ("g20_4_1", "G20(4.1)"),
    ("g20_4_2", "G20(4.2)"),
)
_G12_CLAUSES = (("g12_1_1", "G12.1(1)"), ("g12_1_2", "G12.1(2)"), ("g12_1_3", "G12.1(3)"))


def explain(facts: ShotFacts) -> list[str]:
    """The rule ids behind one table's facts: satisfied ones plain, fouls as "foul <id>".

    For example `["G5.3", "G20(2.1)", "G20(4.1)"]` for a legal shot, `["foul G5.3
    (G19.2-N)"]` when the own ball touched only a frozen partner, `["G5.3", "foul G12.1"]`
    for a failed break. Plain Python, for one table (no batch axis).
    """
    f = {name: np.asarray(value) for name, value in vars(facts).items()}
    out: list[str] = []
    if bool(f["overflow"]):
        out.append("foul: log overflow (truncated shot)")
    if not bool(f["hit"]):
        out.append("foul G5.3 (G19.2-N)" if bool(f["frozen_partner_contact"]) else "foul G5.3")
    else:
        out.append("G5.3")
        if bool(f["is_break"]):
            met = [rule for name, rule in _G12_CLAUSES if bool(f[name])]
            out += met or ["foul G12.1"]
        else:
            met = [rule for name, rule in _G20_CLAUSES if bool(f[name])]
            if met and bool(f["g20_n2_declared"]):
                met.append("G20-N2")
            out += met or ["foul G20"]
    jumped = np.flatnonzero(f["jumped"])
    if jumped.size:
        out.append(f"foul G24.3 (ball{'s' if jumped.size > 1 else ''} {', '.join(map(str, jumped))})")
    return out
