"""Shot facts and legality read from one shot's event log: G5.3, G12.1, G20, G22, G24.

`shot_facts` is written for one table and is pure array code over the log's C slots
(masks, cumulative ops, `argmax` for "first"), so `jax.jit(jax.vmap(shot_facts))` runs
a whole batch of tables at once. `explain` turns one table's facts into the rule ids a
verdict cites. The readings of the rules chosen here (A-16, A-17, A-18, A-20, A-21 and
the G20 notes) are tabled in `docs/rules-legality-notes.md`.

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

N_PIECES = 12  # six cushion segments, then the jaws of the six pockets (6 + pocket id)
CUSHION_IDENTITIES = ("segment", "side")  # A-16 `cushion_identity`
CAUSAL_CHAINS = ("direct", "any_later")  # A-17(4) `causal_chain`
# Two contacts of one pair of balls less than this apart (s) are one collision (G20-N2):
# a click the ear hears as one, and far longer than the kernel's bursts of contacts when
# a ball is driven into a frozen neighbour (about 1e-16 s at a 0 gap, 1e-4 s at 0.1 mm).
SAME_COLLISION_S = 0.01

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


def _other_cushion_table(identity: str) -> np.ndarray:
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


def _at(rows: Any, ball: Any) -> Any:
    """rows[k, ball[k]] for each slot k, as a one-hot select (no gather under vmap)."""
    onehot = ball[:, None] == jnp.arange(rows.shape[1])
    return jnp.any(rows & onehot, axis=1)


def _before(events: Any) -> Any:
    """(C, N): such an event happened in an earlier slot (exclusive running any)."""
    seen = jnp.cumsum(events.astype(jnp.int32), axis=0) - events
    return seen > 0


def _next(events: Any) -> Any:
    """(C, N): the first slot after k holding such an event, or C."""
    c = events.shape[0]
    slots = jnp.where(events, jnp.arange(c)[:, None], c)
    from_here = jax.lax.cummin(slots, axis=0, reverse=True)
    return jnp.concatenate([from_here[1:], jnp.full_like(from_here[:1], c)], axis=0)


def _pick(per_ball: Any, ball: Any) -> Any:
    """per_ball[ball[k]] for each slot k (-1 where ball[k] is not a ball), as a one-hot sum."""
    onehot = ball[:, None] == jnp.arange(per_ball.shape[0])
    return jnp.where(jnp.any(onehot, axis=1), jnp.sum(jnp.where(onehot, per_ball, 0), axis=1), -1)


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
        collision (G20-N2 "two separate collisions"; default 10 ms).

    Returns:
      The shot's `ShotFacts`.

    """
    del length
    if causal_chain not in CAUSAL_CHAINS:
        raise ValueError(f"causal_chain must be one of {CAUSAL_CHAINS}, got {causal_chain!r}")
    other_cushion = jnp.asarray(_other_cushion_table(cushion_identity))
    n = object_mask.shape[-1]
    c = log.t.shape[-1]
    balls = jnp.arange(n)
    slots = jnp.arange(c)
    own = jnp.asarray(own_ball, jnp.int32)
    is_own = balls == own
    is_break = jnp.asarray(is_break, bool)

    # The log as masks over (slot, ball).
    used = (slots < log.count) & (log.kind != ev.NONE)
    kind = jnp.where(used, log.kind, ev.NONE)
    a, b = log.a, log.b
    is_ball_ball = kind == ev.BALL_BALL
    is_contact = (kind == ev.CUSHION) | (kind == ev.JAW)
    piece = jnp.where(kind == ev.JAW, ev.JAW_TOUCH_OFFSET + b, b)
    middle_jaw = (kind == ev.JAW) & jnp.isin(b, jnp.asarray(MIDDLE_POCKETS))
    is_crossing = (kind == ev.CENTRE_LINE) | middle_jaw  # G20-N4
    ball_a = a[:, None] == balls
    ball_b = b[:, None] == balls
    in_ball_ball = is_ball_ball[:, None] & (ball_a | ball_b)
    cushion_ev = is_contact[:, None] & ball_a
    crossing_ev = is_crossing[:, None] & ball_a
    pocket_ev = (kind == ev.POCKET)[:, None] & ball_a
    jumped = jnp.any((kind == ev.OFF_TABLE)[:, None] & ball_a, axis=0)

    # G5.3 and G19.2-N: the first contact of the own ball with an object ball that was not
    # touching it at shot start. On a break, the first contact with the pyramid.
    frozen_partners = jnp.any(start.touching & is_own[:, None], axis=0) & ~is_own
    partner = jnp.where(a == own, b, jnp.where(b == own, a, NO_BALL))
    own_contact = is_ball_ball & (partner >= 0)
    partner_is = own_contact[:, None] & (partner[:, None] == balls)
    objects = jnp.asarray(object_mask, bool) & ~is_own
    pyramid = jnp.asarray(pyramid_mask, bool) & ~is_own
    contact = jnp.any(partner_is & (objects & ~frozen_partners), axis=1)
    break_hit = jnp.any(partner_is & (pyramid & ~frozen_partners), axis=1)
    first = _first(contact)
    first_break = _first(break_hit)
    hit = first < c
    first_contact = jnp.where(hit, jnp.sum(jnp.where(slots == first, partner, 0)), NO_BALL)
    break_contact = jnp.where(first_break < c, jnp.sum(jnp.where(slots == first_break, partner, 0)), NO_BALL)
    frozen_partner_contact = jnp.any(partner_is & frozen_partners)
    own_cushions_before = jnp.sum(cushion_ev & is_own & (slots < first)[:, None])

    # G22: pockets (a pocketed ball stays pocketed in this planar kernel).
    pocketed = jnp.any(pocket_ev, axis=0)
    pocket_slot = _first(pocket_ev.T)
    pocket_of = jnp.where(
        pocketed, jnp.sum(jnp.where(slots == pocket_slot[:, None], b, 0), axis=1), -1
    ).astype(jnp.int32)

    # G12.1, over events after the first own-ball-pyramid contact (III.6, A-21).
    after_break = (slots > first_break)[:, None]
    break_cushion = jnp.any(cushion_ev & after_break, axis=0) & pyramid
    break_crossing = jnp.any(crossing_ev & after_break, axis=0) & pyramid
    cushion_count = jnp.sum(break_cushion)
    g12_1_1 = jnp.any(pocket_ev & after_break)
    g12_1_2 = cushion_count >= 3
    if break_cross_ball_distinct:
        g12_1_3 = jnp.any(break_crossing & (cushion_count - break_cushion >= 2))
    else:
        g12_1_3 = (cushion_count >= 2) & jnp.any(break_crossing)
    break_legal = g12_1_1 | g12_1_2 | g12_1_3

    # G20, over events after the first contact (A-17(1)), in log order (A-17(2), G20-N1).
    after = (slots > first)[:, None]
    rebound = cushion_ev & after
    crossed = crossing_ev & after
    g20_1 = jnp.any(pocket_ev & after)
    g20_2 = jnp.any(rebound)
    g20_3 = jnp.any(crossed)

    # (2.1): the same ball touches piece p, later piece q, and p, q are other cushions.
    piece_is = is_contact[:, None] & (piece[:, None] == jnp.arange(N_PIECES))
    touches = rebound[:, :, None] & piece_is[:, None, :]  # (C, N, P)
    first_touch = jnp.min(jnp.where(touches, slots[:, None, None], c), axis=0)  # (N, P)
    last_touch = jnp.max(jnp.where(touches, slots[:, None, None], -1), axis=0)
    g20_2_1 = jnp.any((first_touch[:, :, None] < last_touch[:, None, :]) & other_cushion)
    # (3.1) and (4.1): crossing then cushion, cushion then crossing, by the same ball. A
    # middle-jaw contact is a cushion contact and a crossing (A-16, G20-N4), but one event:
    # each clause needs two (G20-N1).
    first_rebound = _first(rebound.T)
    last_rebound = jnp.max(jnp.where(rebound, slots[:, None], -1), axis=0)
    first_crossing = _first(crossed.T)
    last_crossing = jnp.max(jnp.where(crossed, slots[:, None], -1), axis=0)
    g20_3_1 = jnp.any(first_crossing < last_rebound)
    g20_4_1 = jnp.any(first_rebound < last_crossing)

    # Chains: ball X, having rebounded (or crossed) earlier, meets ball Y in a ball-ball
    # contact at slot m after the first contact; then Y touches a cushion / crosses before
    # its next ball-ball contact (A-17(4)), or was touching a cushion at m (A-17(5)).
    # Contacts of one pair less than `same_collision_s` after the pair's earlier contact
    # are that one collision: the kernel resolves a ball driven into a frozen neighbour or
    # cushion as a burst of contacts at one instant, which is not "two separate
    # collisions" (G20-N2); a collision is dated by its first contact.
    low, high = jnp.minimum(a, b), jnp.maximum(a, b)
    same_pair = is_ball_ball[:, None] & is_ball_ball & (low[:, None] == low) & (high[:, None] == high)
    soon = (slots[:, None] <= slots) & (log.t - log.t[:, None] <= same_collision_s)
    collision_start = _first((same_pair & soon).T)  # (C,): slot of the collision's first contact
    continued = is_ball_ball & (collision_start != slots)
    meeting = is_ball_ball & ~continued & (slots > first)
    rebounded_before = _before(rebound)
    crossed_before = _before(crossed)
    if causal_chain == "direct":
        next_meeting = _next(in_ball_ball & ~continued[:, None])
    else:
        next_meeting = jnp.full((c, n), c)
    y_cushion = _next(rebound) < next_meeting
    y_crossing = _next(crossed) < next_meeting
    # G20-N2 (b), A-18: a declared frozen object ball, still against the declared piece at
    # its first ball-ball contact, rebounds off it at that contact and so moves the other
    # ball; this may be the first contact itself.
    declared = start.cushion if declared_frozen is None else jnp.asarray(declared_frozen)
    declared = jnp.where(is_own, -1, declared).astype(jnp.int32)
    first_meeting = _first(in_ball_ball.T)  # (N,)
    pressed_x = is_ball_ball & (slots >= first) & hit & (slots == _pick(first_meeting, a))
    pressed_x = pressed_x & (_pick(declared, a) >= 0) & (log.touch_a == _pick(declared, a))
    pressed_y = is_ball_ball & (slots >= first) & hit & (slots == _pick(first_meeting, b))
    pressed_y = pressed_y & (_pick(declared, b) >= 0) & (log.touch_b == _pick(declared, b))

    def either_way(x_before: Any, y_after: Any, touch: bool = False) -> Any:
        """Some meeting where X (either ball of it) did x_before and the other then y_after."""
        if touch:
            a_then_b = meeting & _at(x_before, a) & (log.touch_b >= 0)
            b_then_a = meeting & _at(x_before, b) & (log.touch_a >= 0)
        else:
            a_then_b = meeting & _at(x_before, a) & _at(y_after, b)
            b_then_a = meeting & _at(x_before, b) & _at(y_after, a)
        return jnp.any(a_then_b | b_then_a)

    def pressed_then(y_after: Any) -> Any:
        return jnp.any((pressed_x & _at(y_after, b)) | (pressed_y & _at(y_after, a)))

    plain_2_2 = either_way(rebounded_before, y_cushion)
    plain_4_2 = either_way(rebounded_before, y_crossing)
    n2_2_2 = pressed_then(y_cushion)
    n2_4_2 = pressed_then(y_crossing)
    g20_2_2 = plain_2_2 | n2_2_2
    g20_4_2 = plain_4_2 | n2_4_2
    g20_2_3 = either_way(rebounded_before, None, touch=True)
    g20_3_2 = either_way(crossed_before, y_cushion)
    g20_3_3 = either_way(crossed_before, None, touch=True)
    g20_2 = g20_2 | jnp.any(pressed_x | pressed_y)

    clauses = (g20_1, g20_2_1, g20_2_2, g20_2_3, g20_3_1, g20_3_2, g20_3_3, g20_4_1, g20_4_2)
    g20_any = jnp.any(jnp.stack(clauses))
    plain = (g20_1, g20_2_1, plain_2_2, g20_2_3, g20_3_1, g20_3_2, g20_3_3, g20_4_1, plain_4_2)
    g20_n2_declared = g20_any & ~jnp.any(jnp.stack(plain))
    g20_legal = hit & g20_any

    counted = jnp.where(is_break, first_break, first)
    after_counted = (slots > counted)[:, None]
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
        cushion_balls=jnp.any(cushion_ev & after_counted, axis=0),
        crossing_balls=jnp.any(crossing_ev & after_counted, axis=0),
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
