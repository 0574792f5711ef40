"""The shot's `ShotFacts` from what the kernel read of its own log: work the size of the balls.

The kernel's thread notes each event as the shot runs (`physics.engine.facts`) and keeps
physical statements: the struck ball's first contact, what happened after it and in what
order. Here they become the rules' facts (G5.3, G12.1, G20 and its notes, G22, G24) with
the readings of `rules.shot_facts` at its defaults (a segment is one cushion, A-16; the
"direct" causal chain, A-17(4); any ball may be G12.1(3)'s crossing ball, A-21; every ball
found frozen is declared, A-18), which stays the reference: the tests compare the two on
recorded game shots, field by field. A referee with other readings, or with a human's
declarations, reads the log (`shot_facts`).
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
import numpy as np

from piramida.physics.engine import facts as kf
from piramida.physics.kernel import LogFacts, Snapshot
from piramida.rules.ids import NO_BALL
from piramida.rules.shot_facts import ShotFacts, other_cushion_table

_BIT = {name: 1 << k for k, name in enumerate(kf.SHOT_BITS)}
_LIMIT = kf.SHOT_FIELDS.index("limit")
_PIECE_BITS = np.asarray(1 << np.arange(kf.N_PIECES), np.int32)


def _has(bits: Any, name: str) -> Any:
    return (bits & _BIT[name]) != 0


def _ball_bit(name: str) -> int:
    return 1 << (kf.N_PIECES + kf.BALL_BITS.index(name))


def last_pocketed(log_facts: LogFacts, mask: Any) -> Any:
    """The ball of the latest pocket event among the balls in `mask`, or -1 (CLS-5.7).

    A planar kernel pockets a ball once, so each ball has at most one pocket slot.
    """
    slot = log_facts.pocket_slot
    latest = jnp.where(mask & (slot < log_facts.shot[_LIMIT]), slot, -1)
    ball = jnp.argmax(latest)
    return jnp.where(latest[ball] >= 0, ball, -1).astype(jnp.int32)


def facts_of(
    log_facts: LogFacts,
    start: Snapshot,
    overflow: Any,
    own_ball: Any,
    object_mask: Any,
    is_break: Any,
) -> ShotFacts:
    """One table's `ShotFacts` from the kernel's `LogFacts` (as `shot_facts` reads its log).

    Args:
      log_facts: the kernel's reading of the log (`ShotResult.facts`), one table.
      start: the start snapshot (declared frozen balls, A-18).
      overflow: () the shot logged more events than its limit (the log's capacity).
      own_ball: () the struck ball (G4.1): the kernel's struck ball.
      object_mask: (N,) the object balls on the bed at shot start (G4.4).
      is_break: () the shot is a break: G12.1 decides instead of G20 (the pyramid is
        then every object ball, S-7).

    """
    n = object_mask.shape[-1]
    first_slot, first_ball, own_before, bits, limit = (log_facts.shot[k] for k in range(len(kf.SHOT_FIELDS)))
    per_ball = log_facts.ball
    own = jnp.asarray(own_ball, jnp.int32)
    is_own = jnp.arange(n) == own
    is_break = jnp.asarray(is_break, bool)
    objects = jnp.asarray(object_mask, bool) & ~is_own
    hit = first_slot < limit

    cushion_balls = (per_ball & _ball_bit("cushion_after")) != 0
    crossing_balls = (per_ball & _ball_bit("crossing_after")) != 0
    jumped = (per_ball & _ball_bit("jumped")) != 0
    pocketed = log_facts.pocket_slot < limit

    # G12.1 (S-7: on a break the pyramid is every object ball, so its first contact is G5.3's).
    pyramid = objects & is_break
    cushion_count = jnp.sum(cushion_balls & pyramid)
    g12_1_1 = is_break & _has(bits, "pocket_after")
    g12_1_2 = cushion_count >= 3
    g12_1_3 = (cushion_count >= 2) & jnp.any(crossing_balls & pyramid)
    break_legal = g12_1_1 | g12_1_2 | g12_1_3

    # G20(2.1): one ball touched two pieces that are certainly different cushions.
    pieces = (per_ball[:, None] & _PIECE_BITS) != 0
    other = jnp.asarray(other_cushion_table("segment"))
    g20_2_1 = jnp.any(pieces[:, :, None] & pieces[:, None, :] & other)

    g20_1 = _has(bits, "pocket_after")
    plain = (
        g20_1,
        g20_2_1,
        _has(bits, "cushioned_meets_then_cushion"),  # (2.2)
        _has(bits, "cushioned_meets_touching"),  # (2.3)
        _has(bits, "crossed_then_cushion"),  # (3.1)
        _has(bits, "crossed_meets_then_cushion"),  # (3.2)
        _has(bits, "crossed_meets_touching"),  # (3.3)
        _has(bits, "cushion_then_crossed"),  # (4.1)
        _has(bits, "cushioned_meets_then_crossed"),  # (4.2)
    )
    g20_2_2 = plain[2] | _has(bits, "pressed_meets_then_cushion")  # G20-N2, A-18
    g20_4_2 = plain[8] | _has(bits, "pressed_meets_then_crossed")
    clauses = (*plain[:2], g20_2_2, *plain[3:8], g20_4_2)
    g20_any = jnp.any(jnp.stack(clauses))
    g20_legal = hit & g20_any
    overflow = jnp.asarray(overflow, bool)
    legal = hit & jnp.where(is_break, break_legal, g20_legal) & ~jnp.any(jumped) & ~overflow
    return ShotFacts(
        is_break=is_break,
        first_contact=jnp.where(hit, first_ball, NO_BALL).astype(jnp.int32),
        first_contact_index=first_slot,
        hit=hit,
        frozen_partners=jnp.any(start.touching & is_own[:, None], axis=0) & ~is_own,
        frozen_partner_contact=_has(bits, "frozen_partner_contact"),
        own_cushions_before_contact=own_before,
        declared_frozen=jnp.where(is_own, -1, start.cushion).astype(jnp.int32),
        pocketed=pocketed,
        pocket_of=jnp.where(pocketed, log_facts.pocket, -1).astype(jnp.int32),
        jumped=jumped,
        cushion_balls=cushion_balls,
        crossing_balls=crossing_balls,
        break_contact=jnp.where(is_break & hit, first_ball, NO_BALL).astype(jnp.int32),
        break_contact_index=jnp.where(is_break, first_slot, limit),
        g12_1_1=g12_1_1,
        g12_1_2=g12_1_2,
        g12_1_3=g12_1_3,
        break_legal=break_legal,
        g20_1=g20_1,
        g20_2=_has(bits, "cushion_after") | _has(bits, "pressed"),
        g20_2_1=g20_2_1,
        g20_2_2=g20_2_2,
        g20_2_3=plain[3],
        g20_3=_has(bits, "crossing_after"),
        g20_3_1=plain[4],
        g20_3_2=plain[5],
        g20_3_3=plain[6],
        g20_4_1=plain[7],
        g20_4_2=g20_4_2,
        g20_n2_declared=g20_any & ~jnp.any(jnp.stack(plain)),
        g20_legal=g20_legal,
        overflow=overflow,
        legal=legal,
    )
