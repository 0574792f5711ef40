"""JSON for the referee: game states, shots, shot records, verdicts.

Used by `piramida referee` and by the match record. A shot's result is a document of
`piramida simulate` (`physics.contract`): its event records and start snapshot are read
and written by the physics' own readers and writers, and only the checks against the game
(which balls were on the table) are made here. Every reader checks its input and
raises `FieldError` whose message starts with the field's path (`state.balls[3].x: ...`),
never a traceback. Writers and readers round-trip exactly (floats as Python writes
them), so a saved match re-adjudicates to the same verdicts.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from piramida.physics import events as ev
from piramida.physics.contract import (
    RESULT_FIELDS,
    STRIKE_FIELDS,
    read_ball_list,
    read_touches,
    start_from_json,
    start_to_json,
)
from piramida.physics.events import read_ball, read_pocket
from piramida.physics.fields import (
    FieldError,
    read_bool,
    read_int,
    read_name,
    read_number,
    read_object,
    shown,
)
from piramida.physics.kernel import Snapshot
from piramida.physics.table import POCKET_NAMES
from piramida.rules import ids
from piramida.rules import state as st
from piramida.rules import verdict as vd
from piramida.rules.decisions import Decision, default_decision, eligible_balls
from piramida.rules.referee import ShotRecord
from piramida.rules.variants import CLASSIC_LAST_BALL_BONUS

# Jitted once (and kept in the persistent compile cache): eager JAX would compile every
# small op on its own, which costs the command line seconds.
_eligible = jax.jit(eligible_balls)
_default = jax.jit(default_decision, static_argnames=("dims",))
hand_region = jax.jit(st.hand_region, static_argnames=("dims",))
start_balls = jax.jit(st.start_balls)


# --- small readers --------------------------------------------------------------------


def _xy(value: Any, path: str) -> tuple[float, float]:
    if isinstance(value, list) and len(value) == 2:
        return read_number(value[0], f"{path}[0]"), read_number(value[1], f"{path}[1]")
    fields = read_object(value, path, ("x", "y"))
    for axis in ("x", "y"):
        if axis not in fields:
            raise FieldError(f"{path}.{axis}: missing")
    return read_number(fields["x"], f"{path}.x"), read_number(fields["y"], f"{path}.y")


def variant_of(value: Any, path: str = "variant") -> int:
    """A variant by name (`ids.VARIANT_NAMES`)."""
    return read_name(value, path, ids.VARIANT_NAMES)


# --- game state -----------------------------------------------------------------------

STATE_FIELDS = (
    "variant", "balls", "shelves", "scores", "turn", "breaker", "phase", "region", "decision",
    "object_only", "call", "playoff", "last_pocketed", "winner", "shots", "key", "hand", "own_ball",
)  # fmt: skip


def _check_classic_scores(scores: list[int], values: list[int], objects_left: bool, path: str) -> None:
    """Refuse Classic scores its shelves cannot produce.

    A foul moves 5 points from one player to the other (CLS-5.6) and the last ball earns
    10 more (CLS-5.1): each score is its shelf's value plus a multiple of 5, and together
    they are the shelves' values, plus 10 once no object ball is left (the 70:70 playoff,
    CLS-5.7, puts the last ball back and is not checked).
    """
    total = sum(values) + (0 if objects_left else CLASSIC_LAST_BALL_BONUS)
    if sum(scores) != total or any((s - v) % 5 for s, v in zip(scores, values, strict=True)):
        raise FieldError(
            f"{path}: {scores} cannot come from these shelves (worth {values}): the scores add up to "
            f"{total}, and each differs from its shelf's value by a multiple of 5 (CLS-5.1, CLS-5.6)"
        )


def _classic_value(balls: list[int]) -> int:
    return sum(11 if b == 1 else b for b in balls)


def state_from_json(
    value: Any, variant: int | None = None, dims: st.Dims = st.DEFAULT_DIMS, path: str = "state"
) -> st.GameState:
    """A one-table `GameState` from its JSON form (`state_to_json`), checked field by field.

    Every one of the 16 balls must be on the table (`balls`), on a shelf (`shelves`) or in
    hand; only the coloured ball can be in hand, and it is in hand exactly in the
    break and in-hand phases (and may be while a decision is pending).
    """
    fields = read_object(value, path, STATE_FIELDS)
    if "variant" in fields:
        own_variant = variant_of(fields["variant"], f"{path}.variant")
        if variant is not None and own_variant != variant:
            raise FieldError(f"{path}.variant: {shown(fields['variant'])} differs from the request's variant")
        variant = own_variant
    if variant is None:
        raise FieldError(f"{path}.variant: missing")
    positions = np.tile(np.asarray(ids.OFF_TABLE_XY, np.float64), (ids.N_BALLS, 1))
    on_table = np.zeros(ids.N_BALLS, bool)
    balls = fields.get("balls")
    if not isinstance(balls, list):
        raise FieldError(f"{path}.balls: expected a list of balls on the table")
    width, length = dims.width, dims.length
    for k, ball in enumerate(balls):
        where = f"{path}.balls[{k}]"
        entry = read_object(ball, where, ("id", "x", "y"))
        if "id" not in entry:
            raise FieldError(f"{where}.id: missing")
        b = read_ball(entry["id"], f"{where}.id")
        if on_table[b]:
            raise FieldError(f"{where}.id: ball {b} is listed twice")
        x, y = _xy({"x": entry.get("x"), "y": entry.get("y")} if "x" in entry and "y" in entry else {}, where)
        # A ball at rest against a cushion has its centre a little under R from the nose
        # line (the nose meets the ball above its equator), so only the bed is checked.
        if not (0 < x < width and 0 < y < length):
            raise FieldError(f"{where}: centre ({x}, {y}) is off the bed (0 < x < {width}, 0 < y < {length})")
        positions[b] = (x, y)
        on_table[b] = True
    shelf = np.full(ids.N_BALLS, -1, np.int32)
    shelves = fields.get("shelves", [[], []])
    if not isinstance(shelves, list) or len(shelves) != 2:
        raise FieldError(f"{path}.shelves: expected two lists of ball ids, one per player")
    for player in (0, 1):
        for k, b in enumerate(read_ball_list(shelves[player], f"{path}.shelves[{player}]")):
            where = f"{path}.shelves[{player}][{k}]"
            if on_table[b] or shelf[b] >= 0:
                raise FieldError(
                    f"{where}: ball {b} is also {'on the table' if on_table[b] else 'on the other shelf'}"
                )
            if b == ids.COLOURED and variant != ids.FREE:
                raise FieldError(f"{where}: the coloured ball is the own ball here and never scores (A-09)")
            shelf[b] = player
    hand = [b for b in range(ids.N_BALLS) if not on_table[b] and shelf[b] < 0]
    if [b for b in hand if b != ids.COLOURED]:
        missing = [b for b in hand if b != ids.COLOURED]
        raise FieldError(f"{path}.balls: ball {missing[0]} is neither on the table nor on a shelf")
    # `hand` and `own_ball` follow from the balls and the variant (`state_to_json` writes them
    # for the reader): given, they must say the same, or a position would silently differ.
    derived = {"hand": hand, "own_ball": None if variant == ids.FREE else ids.COLOURED}
    for name, value in derived.items():
        if name in fields and fields[name] != value:
            raise FieldError(
                f"{path}.{name}: {shown(fields[name])} is not what the balls and the variant give ({value}); "
                "leave it out"
            )
    phase = read_name(fields.get("phase", "normal"), f"{path}.phase", st.PHASE_NAMES)
    coloured_in_hand = ids.COLOURED in hand
    if phase in (st.BREAK, st.IN_HAND) and not coloured_in_hand:
        raise FieldError(
            f"{path}.balls: ball 0 is in hand in the {st.PHASE_NAMES[phase]} phase: leave it out"
        )
    if phase == st.NORMAL and coloured_in_hand:
        raise FieldError(f"{path}.balls: ball 0 (the coloured ball) is missing")
    counts = [int(np.sum(shelf == p)) for p in (0, 1)]
    if variant == ids.CLASSIC:
        default_scores = [_classic_value([b for b in range(16) if shelf[b] == p]) for p in (0, 1)]
    else:
        default_scores = counts
    scores = fields.get("scores", default_scores)
    if not isinstance(scores, list) or len(scores) != 2:
        raise FieldError(f"{path}.scores: expected two integers")
    scores = [read_int(x, f"{path}.scores[{p}]", -10_000, 10_000) for p, x in enumerate(scores)]
    if variant != ids.CLASSIC and scores != counts:
        raise FieldError(
            f"{path}.scores: in {ids.VARIANT_NAMES[variant]} a score is its shelf's ball count "
            f"(A-13): {counts}"
        )
    playoff = read_bool(fields.get("playoff", False), f"{path}.playoff")
    if variant == ids.CLASSIC and not playoff:
        _check_classic_scores(scores, default_scores, bool(np.any(on_table[1:])), f"{path}.scores")
    target = st.CLASSIC_TARGET if variant == ids.CLASSIC else st.FREE_TARGET
    reached = scores if variant == ids.CLASSIC else counts
    if phase != st.OVER and max(reached) >= target:
        rule = ("FREE-1", "COMB-1", "DYN-1", "CLS-1")[variant]
        raise FieldError(
            f"{path}.phase: player {reached.index(max(reached))} has {max(reached)} "
            f"{'points' if variant == ids.CLASSIC else 'balls'}: the frame is over ({rule}), "
            f"not {st.PHASE_NAMES[phase]}"
        )
    turn = read_int(fields.get("turn", 0), f"{path}.turn", 0, 1)
    breaker = read_int(fields.get("breaker", 0), f"{path}.breaker", 0, 1)
    region = read_name(fields.get("region", "house"), f"{path}.region", ids.REGION_NAMES)
    decision, options, late_penalty = st.NO_DECISION, 0, False
    if phase == st.DECISION:
        d = read_object(
            fields.get("decision"),
            f"{path}.decision",
            ("kind", "options", "by", "takes_ball", "late_penalty"),
        )
        decision = read_name(d.get("kind"), f"{path}.decision.kind", st.DECISION_NAMES)
        late_penalty = read_bool(d.get("late_penalty", False), f"{path}.decision.late_penalty")
        if late_penalty and decision != st.EXCHANGE:
            raise FieldError(
                f"{path}.decision.late_penalty: only an exchange decision has a late foul's penalty "
                "waiting behind it (G22.3)"
            )
        names = st.OPTION_NAMES[decision]
        given = d.get("options", list(names))
        if not isinstance(given, list):
            raise FieldError(f"{path}.decision.options: expected a list of option names")
        for k, option in enumerate(given):
            options |= 1 << read_name(option, f"{path}.decision.options[{k}]", names)
    elif fields.get("decision") is not None:
        raise FieldError(f"{path}.decision: only in the decision phase")
    call_ball, call_pocket = ids.NO_BALL, -1
    if fields.get("call") is not None:
        call_ball, call_pocket = call_from_json(fields["call"], f"{path}.call")
    last = fields.get("last_pocketed")
    winner = fields.get("winner")
    key = fields.get("key", 0)
    if isinstance(key, int) and not isinstance(key, bool):
        seed = read_int(key, f"{path}.key", 0, 2**32 - 1)
        key_array = np.asarray(jax.random.PRNGKey(seed), np.uint32)
    elif isinstance(key, list) and len(key) == 2:
        key_array = np.asarray(
            [read_int(k, f"{path}.key[{i}]", 0, 2**32 - 1) for i, k in enumerate(key)], np.uint32
        )
    else:
        raise FieldError(f"{path}.key: expected a seed (integer) or a PRNG key (two integers)")
    return st.GameState(
        variant=jnp.int32(variant),
        positions=jnp.asarray(positions),
        on_table=jnp.asarray(on_table),
        shelf=jnp.asarray(shelf),
        score=jnp.asarray(scores, jnp.int32),
        turn=jnp.int32(turn),
        breaker=jnp.int32(breaker),
        phase=jnp.int32(phase),
        region=jnp.int32(region),
        decision=jnp.int32(decision),
        options=jnp.int32(options),
        late_penalty=jnp.bool_(late_penalty),
        own_ball=jnp.int32(ids.NO_BALL if variant == ids.FREE else ids.COLOURED),
        object_only=jnp.bool_(read_bool(fields.get("object_only", False), f"{path}.object_only")),
        call_ball=jnp.int32(call_ball),
        call_pocket=jnp.int32(call_pocket),
        playoff=jnp.bool_(playoff),
        last_pocketed=jnp.int32(-1 if last is None else read_ball(last, f"{path}.last_pocketed")),
        winner=jnp.int32(-1 if winner is None else read_int(winner, f"{path}.winner", 0, 1)),
        shots=jnp.int32(read_int(fields.get("shots", 0), f"{path}.shots", 0, 10**9)),
        key=jnp.asarray(key_array),
    )


def call_from_json(value: Any, path: str = "call") -> tuple[int, int]:
    """A Classic call (CLS-5.2): `{"ball": 5, "pocket": "back-left"}`."""
    fields = read_object(value, path, ("ball", "pocket"))
    for name in ("ball", "pocket"):
        if name not in fields:
            raise FieldError(f"{path}.{name}: missing")
    ball = read_int(fields["ball"], f"{path}.ball", 1, ids.N_BALLS - 1)
    return ball, read_pocket(fields["pocket"], f"{path}.pocket")


def with_request_call(state: st.GameState, value: Any) -> st.GameState:
    """The state with a request's Classic call (CLS-5.2) made; `None` leaves it as it is."""
    if value is None:
        return state
    if int(state.variant) != ids.CLASSIC:
        raise FieldError("call: only Classic has calls (CLS-5.2)")
    return st.with_call(state, *call_from_json(value))


def _options_json(kind: int, options: int) -> list[str]:
    return [name for k, name in enumerate(st.OPTION_NAMES[kind]) if options >> k & 1]


def state_to_json(state: st.GameState) -> dict[str, Any]:
    """A one-table state as JSON (`state_from_json` reads it back exactly)."""
    s = st.to_host(state)
    on = np.flatnonzero(s.on_table)
    phase = int(s.phase)
    decision = int(s.decision)
    out: dict[str, Any] = {
        "variant": ids.VARIANT_NAMES[int(s.variant)],
        "balls": [{"id": int(b), "x": float(s.positions[b, 0]), "y": float(s.positions[b, 1])} for b in on],
        "shelves": [[int(b) for b in np.flatnonzero(s.shelf == p)] for p in (0, 1)],
        "hand": [int(b) for b in np.flatnonzero(~s.on_table & (s.shelf < 0))],
        "scores": [int(x) for x in s.score],
        "turn": int(s.turn),
        "breaker": int(s.breaker),
        "phase": st.PHASE_NAMES[phase],
        "region": ids.REGION_NAMES[int(s.region)],
        "decision": None,
        "object_only": bool(s.object_only),
        "call": None,
        "playoff": bool(s.playoff),
        "last_pocketed": int(s.last_pocketed) if int(s.last_pocketed) >= 0 else None,
        "winner": int(s.winner) if int(s.winner) >= 0 else None,
        "shots": int(s.shots),
        "key": [int(k) for k in s.key],
    }
    if phase == st.DECISION:
        out["decision"] = {
            "kind": st.DECISION_NAMES[decision],
            "options": _options_json(decision, int(s.options)),
        }
        if bool(s.late_penalty):
            out["decision"]["late_penalty"] = True
    if int(s.call_ball) >= 0:
        out["call"] = {"ball": int(s.call_ball), "pocket": POCKET_NAMES[int(s.call_pocket)]}
    return out


# --- shots ----------------------------------------------------------------------------


def declared_from_json(value: Any, path: str) -> int:
    """Declared fouls by name (`verdict.FOUL_NAMES`, e.g. "foot") or rule id (e.g. "G16")."""
    if not isinstance(value, list):
        raise FieldError(f"{path}: expected a list of foul names or rule ids")
    names = vd.FOUL_NAMES[vd.DECLARED_FIRST : vd.DECLARED_LAST + 1]
    mask = 0
    for k, item in enumerate(value):
        if isinstance(item, str) and item in vd.DECLARED_BY_RULE:
            mask |= 1 << vd.DECLARED_BY_RULE[item]
        elif isinstance(item, str) and item in names:
            mask |= 1 << (vd.DECLARED_FIRST + names.index(item))
        else:
            rules = ", ".join(sorted(vd.DECLARED_BY_RULE))
            raise FieldError(
                f"{path}[{k}]: expected one of {', '.join(names)} (or {rules}), got {shown(item)}"
            )
    return mask


def _warning(request: dict[str, Any], name: str, rule: str) -> bool:
    """A warning given before the stroke (`placement_warned`, `frozen_warned`): default false."""
    value = request.get(name, False)
    if not isinstance(value, bool):
        raise FieldError(f"{name}: expected true or false ({rule}), got {shown(value)}")
    return value


def shot_from_json(request: dict[str, Any], state: st.GameState) -> st.Shot:
    """The `Shot` of a referee request.

    Fields: `strike.ball`, `place`, `placement_warned` (G11.3, default false),
    `frozen_warned` (G20-N2, default false; not with `declared_frozen`, which names the
    balls instead), `declared`, `declared_after_end`.
    """
    strike = read_object(request.get("strike"), "strike", STRIKE_FIELDS)
    if "ball" not in strike:
        raise FieldError("strike.ball: missing")
    ball = read_ball(strike["ball"], "strike.ball")
    placing = int(state.phase) in (st.BREAK, st.IN_HAND)
    if (placing or int(state.variant) != ids.FREE) and ball != ids.COLOURED:
        why = "the coloured ball is in hand" if placing else "the coloured ball is the own ball (G4.2)"
        raise FieldError(f"strike.ball: expected 0: {why}, got {ball}")
    if not placing and not bool(state.on_table[ball]):
        raise FieldError(f"strike.ball: ball {ball} is not on the table (G4.3, FREE-5.1)")
    if placing and request.get("place") is None:
        raise FieldError(
            f"place: missing: the own ball is in hand ({st.PHASE_NAMES[int(state.phase)]} phase)"
        )
    place = _xy(request["place"], "place") if placing else ids.OFF_TABLE_XY
    placement_warned = _warning(request, "placement_warned", "G11.3")
    frozen_warned = _warning(request, "frozen_warned", "G20-N2")
    if "frozen_warned" in request and request.get("declared_frozen") is not None:
        raise FieldError(
            "frozen_warned: give either frozen_warned (every ball found frozen, or none) or "
            "declared_frozen (the balls warned about), not both (G20-N2)"
        )
    declared = declared_from_json(request.get("declared", []), "declared")
    late = declared_from_json(request.get("declared_after_end", []), "declared_after_end")
    return st.shot(ball, place, declared, late, placement_warned, frozen_warned)


def shot_to_json(shot: st.Shot) -> dict[str, Any]:
    """A shot as the request fields `strike`, `place`, `placement_warned`, `frozen_warned`, ...."""
    host = jax.tree_util.tree_map(np.asarray, shot)
    names = vd.FOUL_NAMES
    out: dict[str, Any] = {"strike": {"ball": int(host.ball)}}
    if tuple(float(x) for x in host.place) != tuple(ids.OFF_TABLE_XY):
        out["place"] = {"x": float(host.place[0]), "y": float(host.place[1])}
        if bool(host.placement_warned):  # the JSON's default is false (G11.3)
            out["placement_warned"] = True
    if bool(host.frozen_warned):  # the JSON's default is false (G20-N2)
        out["frozen_warned"] = True
    for key, mask in (("declared", int(host.declared)), ("declared_after_end", int(host.declared_late))):
        if mask:
            out[key] = [names[k] for k in range(len(names)) if mask >> k & 1]
    return out


def declared_frozen_from_json(value: Any, path: str = "declared_frozen") -> Any:
    """G20-N2 declarations, `{"7": "back"}`: ball -> cushion piece (a cushion, or "jaw:<pocket>")."""
    if not isinstance(value, dict):
        raise FieldError(f"{path}: expected an object of ball id -> cushion name")
    return jnp.asarray(read_touches(value, path))


# --- shot records (a `piramida simulate` result) ----------------------------------------


def snapshot_from_positions(
    positions: Any, present: Any, touching_cushion: Any, length: float, R: float
) -> Snapshot:
    """A start snapshot from ball centres (used when a request gives no `start`)."""
    r = np.asarray(positions)
    present = np.asarray(present, bool)
    gaps = np.linalg.norm(r[:, None] - r[None], axis=-1) - 2 * R
    pairs = (
        present[:, None] & present[None] & ~np.eye(ids.N_BALLS, dtype=bool) & (gaps <= ids.CONTACT_TOLERANCE)
    )
    line = present & (np.abs(r[:, 1] - length / 2) <= ids.CONTACT_TOLERANCE)
    cushion = np.where(present, np.asarray(touching_cushion), -1).astype(np.int32)
    return Snapshot(
        cushion=jnp.asarray(cushion), touching=jnp.asarray(pairs), on_centre_line=jnp.asarray(line)
    )


def record_from_json(
    value: Any,
    start_on: Any,
    start_xy: Any,
    touching_cushion: Any = None,
    dims: st.Dims = st.DEFAULT_DIMS,
    path: str = "result",
) -> ShotRecord:
    """A `ShotRecord` from one table's `piramida simulate` output.

    Args:
      value: the output object (`balls`, `events`, `start`, `overflow`; `duration` and
        `history` are accepted and ignored).
      start_on, start_xy: (16,) and (16, 2), the balls on the table at shot start (the
        own ball placed), to check the result against and, with `touching_cushion` (16,)
        cushion pieces, to build the start snapshot when the output has none.

    """
    fields = read_object(value, path, RESULT_FIELDS)
    overflow = read_bool(fields.get("overflow", False), f"{path}.overflow")
    log = ev.log_from_json(fields.get("events"), overflow, f"{path}.events")
    start_on = np.asarray(start_on, bool)
    final = np.tile(np.asarray(ids.OFF_TABLE_XY, np.float64), (ids.N_BALLS, 1))
    seen = np.zeros(ids.N_BALLS, bool)
    balls = fields.get("balls")
    if not isinstance(balls, list):
        raise FieldError(f"{path}.balls: expected the list of balls after the shot")
    host = jax.tree_util.tree_map(np.asarray, log)
    pocket_events = {
        int(host.a[k]): int(host.b[k]) for k in range(int(host.count)) if int(host.kind[k]) == ev.POCKET
    }
    jumped = set()
    for k in range(int(host.count)):
        named = [int(host.a[k])] + ([int(host.b[k])] if int(host.kind[k]) == ev.BALL_BALL else [])
        for b in named:
            if b >= 0 and not start_on[b]:
                raise FieldError(f"{path}.events[{k}].balls: ball {b} was not on the table at shot start")
        if int(host.kind[k]) == ev.OFF_TABLE:
            jumped.add(int(host.a[k]))
    for k, ball in enumerate(balls):
        where = f"{path}.balls[{k}]"
        entry = read_object(ball, where, ("id", "x", "y", "pocket", "pocket_time"))
        b = read_ball(entry.get("id"), f"{where}.id")
        if not start_on[b]:
            raise FieldError(f"{where}.id: ball {b} was not on the table at shot start")
        if seen[b]:
            raise FieldError(f"{where}.id: ball {b} is listed twice")
        seen[b] = True
        final[b] = _xy({"x": entry.get("x"), "y": entry.get("y")}, where)
        # A ball at rest stands on the bed, or at most a ball's width beyond a nose line,
        # in a pocket's mouth; only a pocketed or jumped ball may be anywhere else.
        margin = 2 * dims.R
        inside = (
            -margin <= final[b][0] <= dims.width + margin and -margin <= final[b][1] <= dims.length + margin
        )
        if entry.get("pocket") is None and b not in jumped and not inside:
            raise FieldError(
                f"{where}: centre ({final[b][0]}, {final[b][1]}) is off the table, and the ball was "
                "neither pocketed nor jumped (an off-table event)"
            )
        pocket = entry.get("pocket")
        if pocket is not None:
            p = read_pocket(pocket, f"{where}.pocket")
            if pocket_events.get(b) != p:
                raise FieldError(f"{where}.pocket: the events have no pocket event of ball {b} into {pocket}")
        elif b in pocket_events:
            raise FieldError(f"{where}.pocket: the events pocket ball {b}, but its pocket is null")
    missing = np.flatnonzero(start_on & ~seen)
    if missing.size:
        raise FieldError(
            f"{path}.balls: ball {int(missing[0])} was on the table at shot start but is not listed"
        )
    if "start" in fields:
        start = start_from_json(fields["start"], f"{path}.start")
    else:
        cushion = np.full(ids.N_BALLS, -1) if touching_cushion is None else touching_cushion
        start = snapshot_from_positions(start_xy, start_on, cushion, dims.length, dims.R)
    return ShotRecord(log=log, start=start, final=jnp.asarray(final))


def record_to_json(record: ShotRecord) -> dict[str, Any]:
    """A `ShotRecord` in the `simulate` output schema (balls with pockets, events, start)."""
    host = jax.tree_util.tree_map(np.asarray, record)
    events = ev.to_records(record.log)
    pockets = {e["balls"][0]: e["pocket"] for e in events if e["kind"] == "pocket"}
    present = np.asarray(host.final[:, 0]) != ids.OFF_TABLE_XY[0]
    balls = [
        {"id": b, "x": float(host.final[b, 0]), "y": float(host.final[b, 1]), "pocket": pockets.get(b)}
        for b in range(ids.N_BALLS)
        if present[b] or b in pockets
    ]
    return {
        "balls": balls,
        "events": events,
        "overflow": bool(host.log.overflow),
        "start": start_to_json(host.start),
    }


# --- verdicts and decisions -----------------------------------------------------------


def decision_from_json(value: Any, state: st.GameState, path: str = "decision") -> Decision:
    """A decision: `{"option": "shoot", "ball": 7}` (ball where the decision takes one)."""
    fields = read_object(value, path, ("option", "ball"))
    kind = int(state.decision)
    names = st.OPTION_NAMES[kind]
    option = 0
    if names:
        if "option" not in fields:
            raise FieldError(
                f"{path}.option: missing; one of {', '.join(_options_json(kind, int(state.options)))}"
            )
        option = read_name(fields["option"], f"{path}.option", names)
        if not int(state.options) >> option & 1:
            allowed = ", ".join(_options_json(kind, int(state.options)))
            raise FieldError(
                f"{path}.option: {shown(fields['option'])} is not allowed here; allowed: {allowed}"
            )
    ball = -1
    eligible = np.asarray(_eligible(state))
    if eligible.any():
        if fields.get("ball") is None:
            raise FieldError(
                f"{path}.ball: missing; the decision takes a ball: one of {np.flatnonzero(eligible).tolist()}"
            )
        ball = read_ball(fields["ball"], f"{path}.ball")
        if not eligible[ball]:
            raise FieldError(
                f"{path}.ball: ball {ball} may not be taken; one of {np.flatnonzero(eligible).tolist()}"
            )
    elif fields.get("ball") is not None:
        raise FieldError(f"{path}.ball: this decision takes no ball")
    return Decision(option=jnp.int32(option), ball=jnp.int32(ball))


def decision_to_json(decision: Decision, state: st.GameState) -> dict[str, Any]:
    """A decision in the form `decision_from_json` reads (for the pending `state`)."""
    kind = int(state.decision)
    out: dict[str, Any] = {}
    if st.OPTION_NAMES[kind]:
        out["option"] = st.OPTION_NAMES[kind][int(decision.option)]
    if int(decision.ball) >= 0:
        out["ball"] = int(decision.ball)
    return out


def pending_json(state: st.GameState, dims: st.Dims = st.DEFAULT_DIMS) -> dict[str, Any] | None:
    """The pending decision of a state: kind, who decides, options, balls, the default.

    A decision that takes a ball (a penalty ball, FREE-7, COMB-7, DYN-7; an exchange ball,
    COMB-5.2, DYN-5.2) puts it on the decider's shelf for one point (A-09, A-13): `points`
    and `scores_after` say so, so that the shot's own answer shows what is still to come.
    """
    kind = int(state.decision)
    if int(state.phase) != st.DECISION:
        return None
    eligible = np.flatnonzero(np.asarray(_eligible(state))).tolist()
    default = _default(state, dims)
    decider = int(state.turn)
    points = [int(bool(eligible) and player == decider) for player in (0, 1)]
    return {
        "kind": st.DECISION_NAMES[kind],
        "by": decider,
        "options": _options_json(kind, int(state.options)),
        "takes_ball": bool(eligible),
        "eligible_balls": eligible,
        "points": points,
        "scores_after": [int(s) + gained for s, gained in zip(np.asarray(state.score), points, strict=True)],
        "default": decision_to_json(default, state),
    }


def verdict_to_json(
    ruling: vd.Ruling, next_state: st.GameState, dims: st.Dims = st.DEFAULT_DIMS
) -> dict[str, Any]:
    """A ruling and the next state as the `piramida referee` output object."""
    nxt = state_to_json(next_state)
    out: dict[str, Any] = {
        "valid": ruling.valid,
        "legal": ruling.legal,
        "foul": {"kinds": ruling.fouls, "rules": ruling.foul_rules} if ruling.fouls else None,
        "scored": ruling.scored,
        "scored_by": ruling.scorer if ruling.scored else None,
        "respots": [{"ball": b, "x": xy[0], "y": xy[1]} for b, xy in sorted(ruling.respots.items())],
        "to_hand": ruling.to_hand,
        "points": list(ruling.points),
        "scores": nxt["scores"],
        "next_player": ruling.next_player,
        "phase": ruling.phase,
        "region": ids.REGION_NAMES[int(hand_region(next_state, dims))]
        if ruling.phase in ("break", "in-hand")
        else None,
        "object_only": ruling.object_only,
        "decision": pending_json(next_state, dims),
        "game_over": ruling.game_over,
        "winner": ruling.winner,
        "playoff": ruling.playoff,
        "rules": ruling.rules,
        "facts": ruling.facts,
        "state": nxt,
    }
    if not ruling.valid:
        out["invalid"] = ruling.invalid
    return out
