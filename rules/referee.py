"""`adjudicate`: the referee's ruling on a shot and the game's next state, batched in JAX.

One table's ruling (`adjudicate_table`) is pure array code over the state, the shot and
the kernel's event log: the facts of the shot (`shot_facts`: G5.3, G12.1, G20, G22, G24),
then the fouls (one penalty however many, G29.2), then the variant's ruling
(`variants`), then the respots (G25) and the next state. `adjudicate` runs it on a batch
under `jit` + `vmap`; `adjudicate_one` runs one table and returns a readable `Ruling`
with the rule ids that decided it.

The referee never sees the physics kernel itself, only what it wrote: an event log, the
start snapshot and the final positions (`ShotRecord`, or the kernel's `ShotResult`).
"""

from __future__ import annotations

import dataclasses
import functools
import re
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from piramida.physics import events as ev
from piramida.physics.kernel import LogFacts, ShotResult, Snapshot
from piramida.rules import ids, kernel_facts, placement, variants
from piramida.rules import state as st
from piramida.rules import verdict as vd
from piramida.rules.respot import respot
from piramida.rules.shot_facts import ShotFacts, explain, shot_facts

BALLS = np.arange(ids.N_BALLS)  # numpy: canonicalised to the caller's int width where it is used


@jax.tree_util.register_dataclass
@dataclass(frozen=True)
class ShotRecord:
    """What the referee reads of a shot (one table, or a batch on leading axes).

    Attributes:
      log: the kernel's `EventLog`.
      start: the kernel's start `Snapshot` (frozen balls, touching pairs, centre line).
      final: (16, 2) ball centres when the shot ended (pocketed balls: anything).
      facts: what the kernel noted of the shot's events as it ran (`physics.LogFacts`), or
        None for a log from elsewhere (a JSON record): the referee then reads the log.

    """

    log: ev.EventLog
    start: Snapshot
    final: Any
    facts: LogFacts | None = None


def record_of(result: ShotResult | ShotRecord) -> ShotRecord:
    """The referee's view of a kernel `ShotResult` (a `ShotRecord` passes through)."""
    if isinstance(result, ShotRecord):
        return result
    return ShotRecord(log=result.log, start=result.start, final=result.final.r, facts=result.facts)


def _last_pocketed(record: ShotRecord, mask: Any) -> Any:
    """The ball of the last `pocket` event whose ball is in `mask`, or -1 (CLS-5.7)."""
    log = record.log
    if record.facts is not None:
        return kernel_facts.last_pocketed(record.facts, mask)
    slots = jnp.arange(log.t.shape[-1])
    used = slots < log.count
    ball = jnp.clip(log.a, 0, ids.N_BALLS - 1)
    hit = used & (log.kind == ev.POCKET) & (log.a >= 0) & mask[ball]
    last = jnp.max(jnp.where(hit, slots, -1))
    return jnp.where(last >= 0, jnp.sum(jnp.where(slots == last, log.a, 0)), -1).astype(jnp.int32)


def _fact_cites(cite: vd.Cites, facts: ShotFacts, is_break: Any, counted: Any) -> None:
    """The rules of the shot's facts: contact, break clauses, G20 clauses."""
    cite("G5.1", facts.hit)
    for clause in ("1", "2", "3"):
        cite(f"G12.1({clause})", is_break & getattr(facts, f"g12_1_{clause}"))
    cite("G12.1", is_break)
    normal = ~is_break & facts.hit & counted
    for name in ("1", "2_1", "2_2", "2_3", "3_1", "3_2", "3_3", "4_1", "4_2"):
        cite(f"G20({name.replace('_', '.')})", normal & getattr(facts, f"g20_{name}"))
    cite("G20", ~is_break & facts.hit)
    cite("G20-N2", normal & facts.g20_n2_declared)
    cite("G19.2-N", ~facts.hit & facts.frozen_partner_contact)


def adjudicate_table(
    state: st.GameState,
    shot: st.Shot,
    result: ShotResult | ShotRecord,
    dims: st.Dims = st.DEFAULT_DIMS,
    declared_frozen: Any = None,
) -> tuple[vd.Verdict, st.GameState]:
    """Rule on one table's shot: (verdict, next state). Pure JAX (jit/vmap-able).

    Args:
      state: the game before the shot (phase BREAK, NORMAL or IN_HAND).
      shot: the struck ball, the placement from hand, fouls declared by a human referee.
      result: the kernel's `ShotResult` for this table, or a `ShotRecord`.
      dims: table figures (static).
      declared_frozen: (16,) cushion piece each ball was declared frozen against before
        the shot (G20-N2), -1 if not; None: every ball found against a cushion where
        `shot.frozen_warned` (A-18), none where not.

    An invalid shot (see `verdict.INVALID`) leaves the state unchanged.

    """
    record = record_of(result)
    cite = vd.Cites()
    s = state
    own = jnp.asarray(shot.ball, jnp.int32)
    own_index = jnp.clip(own, 0, ids.N_BALLS - 1)
    own_mask = own == BALLS
    placing = (s.phase == st.BREAK) | (s.phase == st.IN_HAND)
    is_break = s.phase == st.BREAK
    hand = st.in_hand(s)

    # --- Is there a shot to judge? -------------------------------------------------------
    region = st.hand_region(s, dims)
    place = jnp.asarray(shot.place, jnp.float64)
    own_ok = (own >= 0) & (own < ids.N_BALLS)
    # G4.2, G11.2: the coloured ball breaks, and is the own ball in COMB/DYN/CLS;
    # G4.3, FREE-2, FREE-5.1: in FREE after the break any ball on the table.
    fixed = jnp.where(s.own_ball >= 0, s.own_ball, ids.COLOURED)
    own_ok &= jnp.where(placing, (own == fixed) & hand[own_index], s.on_table[own_index])
    own_ok &= jnp.where((s.phase == st.NORMAL) & (s.variant != ids.FREE), own == fixed, True)
    place_ok = ~placing | placement.placement_ok(
        place, region, s.positions, s.on_table, dims.width, dims.length, dims.R
    )
    # G11.3: a ball placed outside the house that nobody warned about before the stroke is
    # deemed placed correctly (it must still stand on the cloth, clear of the other balls);
    # the temporary house is the house of that shot (G21.1 "atsižvelgiant į ... 11 punktą").
    unwarned = placing & (region != ids.ANYWHERE) & ~jnp.asarray(shot.placement_warned, bool)
    place_ok |= (
        unwarned
        & placement.on_cloth(place, dims.width, dims.length, dims.R)
        & placement.clear_of_balls(place, s.positions, s.on_table, dims.R)
    )
    call_given = s.call_ball >= 0
    call_index = jnp.clip(s.call_ball, 0, ids.N_BALLS - 1)
    call_ok = ~call_given | (
        (s.call_ball != ids.COLOURED)
        & (s.call_ball < ids.N_BALLS)
        & s.on_table[call_index]
        & (s.call_pocket >= 0)
        & (s.call_pocket < 6)
    )
    call_ok |= s.variant != ids.CLASSIC
    invalid = (
        jnp.where(s.phase == st.DECISION, 1 << vd.BAD_PHASE, 0)
        | jnp.where(s.phase == st.OVER, 1 << vd.BAD_OVER, 0)
        | jnp.where(own_ok, 0, 1 << vd.BAD_OWN)
        | jnp.where(place_ok, 0, 1 << vd.BAD_PLACE)
        | jnp.where(call_ok, 0, 1 << vd.BAD_CALL)
        | jnp.where(record.log.overflow, 1 << vd.BAD_OVERFLOW, 0)
    ).astype(jnp.int32)
    valid = invalid == 0

    # --- The facts of the shot -----------------------------------------------------------
    start_on = s.on_table | (placing & own_mask)
    start_xy = jnp.where((placing & own_mask)[:, None], place, s.positions)
    objects = start_on & ~own_mask  # G4.4
    pyramid = objects & is_break  # S-7: the balls racked at the break
    if record.facts is not None and declared_frozen is None:
        # The kernel noted the facts as the shot ran: the same as the log's (the tests
        # compare them), for the price of the balls, not of the log's capacity.
        facts = kernel_facts.facts_of(record.facts, record.start, record.log.overflow, own, objects, is_break)
    else:
        facts = shot_facts(
            record.log, record.start, own, objects, pyramid, is_break, dims.length, declared_frozen
        )
    pocketed = facts.pocketed & start_on
    jumped = facts.jumped & start_on & ~pocketed

    # --- Fouls (G29.1; one penalty for all of them, G29.2) -------------------------------
    failed_break = is_break & ~facts.break_legal  # G12.1, G29.1(2)
    no_contact = ~facts.hit  # G5.3, G19.2-N, G29.1(1)
    # G20-N2: a single collision with a frozen ball is its rebound only "jeigu varžovas
    # įspėjo žaidėją"; the facts take every found frozen ball as warned about unless told.
    warned = jnp.asarray(shot.frozen_warned, bool) if declared_frozen is None else jnp.bool_(True)
    unannounced = ~is_break & facts.hit & facts.g20_n2_declared & ~warned
    not_completed = ~is_break & facts.hit & (~facts.g20_legal | unannounced)  # G20, G29.1(9)
    # G21.2, A-24(a) `first_contact`: from the house (or temporary house), the first ball
    # hit must lie outside it at shot start; a G20 failure (G21.3).
    first = jnp.clip(facts.first_contact, 0, ids.N_BALLS - 1)
    from_house = (s.phase == st.IN_HAND) & (region != ids.ANYWHERE)
    house_first = (
        from_house & facts.hit & placement.in_region(start_xy[first], region, dims.width, dims.length)
    )
    own_jumped = jnp.any(jumped & own_mask)
    own_pocketed = jnp.any(pocketed & own_mask)
    classic = s.variant == ids.CLASSIC
    fouls = (
        jnp.where(no_contact, 1 << vd.NO_CONTACT, 0)
        | jnp.where(failed_break, 1 << vd.FAILED_BREAK, 0)
        | jnp.where(not_completed, 1 << vd.NOT_COMPLETED, 0)
        | jnp.where(house_first, 1 << vd.HOUSE_FIRST, 0)
        | jnp.where(jnp.any(jumped), 1 << vd.JUMPED, 0)  # G24.3, G29.1(10)
        | jnp.where(classic & own_pocketed, 1 << vd.OWN_POCKETED, 0)  # CLS-5.5
        | jnp.where(classic & own_jumped, 1 << vd.OWN_OFF, 0)  # CLS-5.5
        | (jnp.asarray(shot.declared, jnp.int32) & vd.DECLARED_MASK)  # G14.2, G15-G19, G26, G28
    ).astype(jnp.int32)
    foul_in_shot = fouls != 0
    late = jnp.asarray(shot.declared_late, jnp.int32) & vd.DECLARED_MASK != 0

    key, key_spot, key_lot = jax.random.split(s.key, 3)
    left_on = start_on & ~pocketed & ~jumped
    ctx = variants.Context(
        state=s,
        shooter=s.turn,
        opponent=1 - s.turn,
        own=own,
        own_mask=own_mask,
        objects=objects,
        pocketed=pocketed,
        pocket_of=facts.pocket_of,
        jumped=jumped,
        is_break=is_break,
        failed_break=failed_break,
        foul_in_shot=foul_in_shot,
        late=late,
        left_on=left_on,
        last_pocketed=_last_pocketed(record, pocketed & objects),
        lot=jax.random.bernoulli(key_lot),
    )
    out = variants.rule(ctx)
    fouls = fouls | jnp.where(out.penalty & late, 1 << vd.LATE, 0)

    # --- Balls: shelves, hand, respots (G22.2, G24.4, G25) -------------------------------
    on_table = left_on & ~out.to_hand
    positions = jnp.where(on_table[:, None], record.final, jnp.asarray(ids.OFF_TABLE_XY))
    positions = respot(positions, on_table, out.respot, key_spot, dims.width, dims.length, dims.R)
    on_table = on_table | out.respot
    shelf = jnp.where(out.unshelve, -1, jnp.where(out.scored, s.turn, s.shelf))  # CLS-5.7 last

    # --- Citations -----------------------------------------------------------------------
    _fact_cites(cite, facts, is_break, ~foul_in_shot)
    cite("G20-N2", unannounced)
    for k, (_, rules) in enumerate(vd.FOULS):
        for rule in rules:
            cite(rule, (fouls >> k) & 1 == 1)
    cite("G4.2", s.variant != ids.FREE)
    cite("G4.3", (s.variant == ids.FREE) & ~is_break)
    cite("G11.2", is_break)
    cite("G11.3", placing & ((region == ids.HOUSE) | unwarned))
    cite("G21.2", placing & (region == ids.TEMPORARY_HOUSE))
    cite("A-24", house_first | (placing & (region == ids.TEMPORARY_HOUSE)))
    cite("G21.3", from_house)
    cite("A-21", is_break & (failed_break | own_pocketed))
    cite("G25.2", jnp.any(out.respot))
    cite("G25.3", jnp.any(out.respot))
    for name, variant in (
        ("FREE", ids.FREE),
        ("COMB", ids.COMBINED),
        ("DYN", ids.DYNAMIC),
        ("CLS", ids.CLASSIC),
    ):
        is_variant = s.variant == variant
        if name != "CLS":
            cite(f"{name}-4", is_variant & is_break)
        cite(
            {"FREE": "FREE-5.6", "COMB": "COMB-5.4", "DYN": "DYN-5.4", "CLS": "CLS-5.8"}[name],
            is_variant & not_completed,
        )
    cite("CLS-4", classic & is_break)
    cited = out.cited | cite.array()

    # --- The next state and the verdict --------------------------------------------------
    over = out.phase == st.OVER
    nxt = s.replace(
        positions=positions,
        on_table=on_table,
        shelf=shelf.astype(jnp.int32),
        score=(s.score + out.points).astype(jnp.int32),
        turn=jnp.asarray(out.turn, jnp.int32),
        phase=jnp.asarray(out.phase, jnp.int32),
        region=jnp.asarray(out.region, jnp.int32),
        decision=jnp.asarray(out.decision, jnp.int32),
        options=jnp.asarray(out.options, jnp.int32),
        late_penalty=jnp.asarray(out.late_penalty, bool),
        object_only=jnp.asarray(out.object_only, bool),
        call_ball=jnp.int32(ids.NO_BALL),
        call_pocket=jnp.int32(-1),
        playoff=jnp.asarray(out.playoff, bool),
        last_pocketed=jnp.where(jnp.any(out.scored), _last_pocketed(record, out.scored), s.last_pocketed),
        winner=jnp.asarray(out.winner, jnp.int32),
        shots=s.shots + 1,
        key=key,
    )
    nxt = jax.tree_util.tree_map(lambda new, old: jnp.where(valid, new, old), nxt, s)
    none = jnp.zeros(ids.N_BALLS, bool)
    verdict = vd.Verdict(
        invalid=invalid,
        legal=valid & ~out.penalty,
        fouls=jnp.where(valid, fouls, 0).astype(jnp.int32),
        scored=out.scored & valid,
        scorer=s.turn,
        points=jnp.where(valid, out.points, 0).astype(jnp.int32),
        respot=out.respot & valid,
        respot_xy=jnp.where((out.respot & valid)[:, None], positions, jnp.asarray(ids.OFF_TABLE_XY)),
        to_hand=jnp.where(valid, out.to_hand, none),
        next_player=nxt.turn,
        phase=nxt.phase,
        region=jnp.where(valid, nxt.region, s.region).astype(jnp.int32),
        decision=nxt.decision,
        options=nxt.options,
        takes_ball=valid
        & (out.decision != st.NO_DECISION)
        & jnp.asarray(st.TAKES_BALL)[out.decision]
        & (s.variant != ids.CLASSIC),
        object_only=nxt.object_only,
        game_over=valid & over,
        winner=jnp.where(valid, out.winner, -1).astype(jnp.int32),
        playoff=nxt.playoff,
        cited=cited & valid,
    )
    return verdict, nxt


@functools.partial(jax.jit, static_argnames=("dims",))
def adjudicate(
    state: st.GameState,
    shot: st.Shot,
    result: ShotResult | ShotRecord,
    dims: st.Dims = st.DEFAULT_DIMS,
) -> tuple[vd.Verdict, st.GameState]:
    """Rule on a batch of shots (leading axis B): (verdicts, next states), one `jit`.

    Args:
      state: (B,) game states before the shot.
      shot: (B,) the shots (`state.Shot`).
      result: the kernel's `ShotResult` for the batch (or a batched `ShotRecord`).
      dims: table figures (static).

    """
    record = record_of(result)
    return jax.vmap(lambda s, x, r: adjudicate_table(s, x, r, dims))(state, shot, record)


_adjudicate_one = jax.jit(adjudicate_table, static_argnames=("dims",))


@functools.partial(jax.jit, static_argnames=("dims",))
def _facts_one(
    state: st.GameState, shot: st.Shot, record: ShotRecord, declared_frozen: Any, dims: st.Dims
) -> Any:
    """One table's `ShotFacts`, read from the log (the reference reading) for the ruling's lines."""
    if declared_frozen is None:  # the facts as the shooter was warned: every found frozen ball, or none
        declared_frozen = jnp.where(jnp.asarray(shot.frozen_warned, bool), record.start.cushion, -1)
    start_on = state.on_table | (
        ((state.phase == st.BREAK) | (state.phase == st.IN_HAND)) & (shot.ball == BALLS)
    )
    own = shot.ball == BALLS
    return shot_facts(
        record.log,
        record.start,
        shot.ball,
        start_on & ~own,
        start_on & ~own & (state.phase == st.BREAK),
        state.phase == st.BREAK,
        dims.length,
        declared_frozen,
    )


_RULE_ID = re.compile(r"(G\d+[.\d]*(?:\([\d.]+\))?(?:-N\d?)?)")


def explained(
    state: st.GameState,
    shot: st.Shot,
    verdict: vd.Verdict,
    result: ShotResult | ShotRecord,
    dims: st.Dims = st.DEFAULT_DIMS,
    declared_frozen: Any = None,
) -> vd.Ruling:
    """One table's verdict made readable: the rule ids that decided it and the shot's facts in words.

    `verdict` is the referee's ruling on the shot (`adjudicate_table`, or `rules.game.play`
    on a recorded shot, whose log `result` holds); `state` is the state the shot was played
    from (with its Classic call). The ruling's `facts` are `shot_facts.explain`'s lines.
    """
    record = record_of(result)
    frozen = None if declared_frozen is None else jnp.asarray(declared_frozen, jnp.int32)
    lines = explain(_facts_one(state, shot, record, frozen, dims)) if int(verdict.invalid) == 0 else []
    ruling = vd.ruling(verdict, facts_rules=None)
    for line in lines:
        for rule in _RULE_ID.findall(line):
            if rule not in ruling.rules:
                ruling.rules.append(rule)
    ruling.facts = lines
    if int(state.call_ball) >= 0:
        ruling.call = (int(state.call_ball), vd.pocket_name(int(state.call_pocket)))
    return ruling


def adjudicate_one(
    state: st.GameState,
    shot: st.Shot,
    result: ShotResult | ShotRecord,
    dims: st.Dims = st.DEFAULT_DIMS,
    declared_frozen: Any = None,
    index: int | None = None,
) -> tuple[vd.Ruling, st.GameState]:
    """One table, in plain Python: (readable ruling with its rule ids, next state).

    `index` picks table `index` of a batched `ShotResult` (the state and shot are one
    table's). The ruling's `facts` are `shot_facts.explain`'s lines for the shot.
    """
    # The reference reading of the log, also where the kernel noted its facts.
    record = dataclasses.replace(record_of(result), facts=None)
    if index is not None:
        record = jax.tree_util.tree_map(lambda x: x[index], record)
    frozen = None if declared_frozen is None else jnp.asarray(declared_frozen, jnp.int32)
    verdict, nxt = _adjudicate_one(state, shot, record, dims, frozen)
    return explained(state, shot, verdict, record, dims, declared_frozen), nxt
