"""A match record: a whole frame as its shots and decisions, saved as JSON Lines, replayable.

Format (one JSON object a line; the schema of each part is docs/RULES.md's):

    {"format": "piramida-match", "version": 1, "variant": "free",
     "table": {"width": 1.775, "length": 3.55, "R": 0.034}}
    {"kind": "shot", "state": {...}, "strike": {"ball": 0}, "place": {...},
     "result": {...the `piramida simulate` output...}, "verdict": {...the referee's answer...}}
    {"kind": "decision", "state": {...}, "decision": {"option": "shoot", "ball": 7},
     "outcome": {...}}

Each entry carries the state before it, so any line can be re-adjudicated alone;
`replay` re-adjudicates every entry and checks that the verdicts and the chain of states
(each entry's next state is the following entry's state) are reproduced exactly.
Files are written atomically (a temporary file, then `os.replace`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from piramida.physics import jsontext
from piramida.physics.fields import FieldError, read_number, read_object, shown
from piramida.physics.files import write_atomic
from piramida.physics.motion import STATIONARY
from piramida.rules import codec, ids
from piramida.rules import state as st
from piramida.rules.decisions import Decision, decide_one
from piramida.rules.referee import ShotRecord, adjudicate_one
from piramida.rules.verdict import Ruling

FORMAT = "piramida-match"
VERSION = 1


class RecordError(ValueError):
    """A match record that cannot be read; the message names the line and field."""


_DECISION_RULES = {
    st.G6: ("G6(1)", "G6(2)"),
    st.G12_2: ("G12.2(1)", "G12.2(2)", "G12.2(3)", "G12.2(4)"),
    st.DYN7: ("DYN-7(1)", "DYN-7(2)"),
}
_BALL_RULES = {ids.FREE: "FREE-7", ids.COMBINED: "COMB-7", ids.DYNAMIC: "DYN-7"}


def decision_rules(state: st.GameState, decision: Decision) -> list[str]:
    """The rule ids behind a decision taken in `state` (plain Python, one table)."""
    kind, option, variant = int(state.decision), int(decision.option), int(state.variant)
    rules = ["G6"] if kind == st.G6 else ["G12.2"] if kind == st.G12_2 else []
    if kind in _DECISION_RULES:
        rules.append(_DECISION_RULES[kind][option])
    if int(decision.ball) >= 0:
        if kind == st.EXCHANGE:
            rules += ["COMB-5.2" if variant == ids.COMBINED else "DYN-5.2", "A-09"]
        else:
            rules += [_BALL_RULES[variant], "A-13"]
    if kind == st.EXCHANGE and bool(state.late_penalty):  # the late foul's penalty decision follows
        rules += ["G22.3", "COMB-7" if variant == ids.COMBINED else "DYN-7"]
    if kind == st.PENALTY_BALL:
        rules += ["COMB-7", "G21.1", "A-12"]
    if kind == st.G12_2 and option >= 2:
        rules += ["CLS-3", "A-21"] if variant == ids.CLASSIC else ["G12.2-N", "G8.2-N"]
    if kind == st.DYN7 or (kind == st.EXCHANGE and variant == ids.DYNAMIC):
        rules.append("A-11" if kind == st.DYN7 else "A-10")
    return list(dict.fromkeys(rules))


def decision_json(
    state: st.GameState, decision: Decision, nxt: st.GameState, dims: st.Dims
) -> dict[str, Any]:
    """The referee's answer to a decision: what was decided, its rules, the next state."""
    after = codec.state_to_json(nxt)
    phase = int(nxt.phase)
    return {
        "valid": True,
        "decision": codec.decision_to_json(decision, state),
        "kind": st.DECISION_NAMES[int(state.decision)],
        "by": int(state.turn),
        "taken": int(decision.ball) if int(decision.ball) >= 0 else None,
        "scores": after["scores"],
        "next_player": int(nxt.turn),
        "phase": st.PHASE_NAMES[phase],
        "region": ids.REGION_NAMES[int(st.hand_region(nxt, dims))]
        if phase in (st.BREAK, st.IN_HAND)
        else None,
        "object_only": bool(nxt.object_only),
        "game_over": phase == st.OVER,
        "winner": after["winner"],
        "rules": decision_rules(state, decision),
        "state": after,
    }


@dataclass
class MatchRecord:
    """A frame as a list of entries (JSON-ready dicts, the lines of the file)."""

    variant: int
    dims: st.Dims = st.DEFAULT_DIMS
    entries: list[dict[str, Any]] = field(default_factory=list)

    def add_shot(
        self,
        state: st.GameState,
        shot: st.Shot,
        record: ShotRecord,
        ruling: Ruling,
        next_state: st.GameState,
        result_json: dict[str, Any] | None = None,
    ) -> None:
        """Append a shot: the state before, the shot, its result, the verdict (one table).

        `result_json` is the shot's result as `piramida simulate` wrote it, stored instead
        of `record` when given (e.g. `piramida.physics.contract.result_to_json`).
        """
        entry: dict[str, Any] = {"kind": "shot", "state": codec.state_to_json(state)}
        entry.update(codec.shot_to_json(shot))
        entry["frozen_warned"] = bool(shot.frozen_warned)  # always written: see `rejudge`
        entry["result"] = codec.record_to_json(record) if result_json is None else result_json
        entry["verdict"] = codec.verdict_to_json(ruling, next_state, self.dims)
        self.entries.append(entry)

    def add_decision(self, state: st.GameState, decision: Decision, next_state: st.GameState) -> None:
        """Append a decision made in `state` (one table)."""
        self.entries.append(
            {
                "kind": "decision",
                "state": codec.state_to_json(state),
                "decision": codec.decision_to_json(decision, state),
                "outcome": decision_json(state, decision, next_state, self.dims),
            }
        )

    def header(self) -> dict[str, Any]:
        """The first line of the file."""
        d = self.dims
        return {
            "format": FORMAT,
            "version": VERSION,
            "variant": ids.VARIANT_NAMES[self.variant],
            "table": {"width": d.width, "length": d.length, "R": d.R},
        }

    def dumps(self) -> str:
        """The record as JSON Lines."""
        return "".join(json.dumps(line) + "\n" for line in [self.header(), *self.entries])

    def save(self, path: str | Path) -> None:
        """Write the record atomically: a reader never sees half a file."""
        write_atomic(path, self.dumps())


def loads(text: str) -> MatchRecord:
    """A record from JSON Lines (`MatchRecord.dumps`); `RecordError` naming the line for anything else."""
    lines = [(k, line) for k, line in enumerate(text.splitlines(), start=1) if line.strip()]
    if not lines:
        raise RecordError("line 1: empty; expected a piramida-match header")
    parsed = []
    for number, line in lines:
        try:
            parsed.append((number, jsontext.loads(line, "")))
        except FieldError as err:
            raise RecordError(f"line {number}: {err}") from err
    number, head = parsed[0]
    if not isinstance(head, dict) or head.get("format") != FORMAT:
        raise RecordError(f"line {number}.format: expected {FORMAT!r}")
    if head.get("version") != VERSION:
        raise RecordError(f"line {number}.version: expected {VERSION}, got {shown(head.get('version'))}")
    try:
        variant = codec.variant_of(head.get("variant"), "variant")
        names = ("width", "length", "R")
        table = read_object(head.get("table"), "table", names)
        dims = st.Dims(*(read_number(table.get(k), f"table.{k}", positive=True) for k in names))
    except FieldError as err:
        raise RecordError(f"line {number}: {err}") from err
    record = MatchRecord(variant, dims)
    for number, entry in parsed[1:]:
        if not isinstance(entry, dict) or entry.get("kind") not in ("shot", "decision"):
            raise RecordError(f"line {number}.kind: expected 'shot' or 'decision'")
        record.entries.append(entry | {"_line": number})
    return record


def load(path: str | Path) -> MatchRecord:
    """Read a record file."""
    return loads(Path(path).read_text())


def _strip(entry: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in entry.items() if k != "_line"}


def rejudge(entry: dict[str, Any], variant: int, dims: st.Dims) -> dict[str, Any]:
    """Re-adjudicate one entry from its own fields: the verdict (or decision outcome) anew."""
    state = codec.state_from_json(entry["state"], variant, dims)
    if entry["kind"] == "decision":
        decision = codec.decision_from_json(entry["decision"], state)
        _, nxt = decide_one(state, decision, dims)
        return decision_json(state, decision, nxt, dims)
    state = codec.with_request_call(state, entry.get("call"))  # as `piramida referee` reads it
    if "frozen_warned" not in entry and entry.get("declared_frozen") is None:
        # A record written before G20 note 2's warning was an input: its shots were judged
        # with every frozen ball announced, so it replays that way.
        entry = {**entry, "frozen_warned": True}
    shot = codec.shot_from_json(entry, state)
    start = codec.start_balls(state, shot)
    start_on = np.asarray(start.s) == STATIONARY
    record = codec.record_from_json(entry["result"], start_on, start.r, None, dims)
    frozen = (
        None
        if entry.get("declared_frozen") is None
        else codec.declared_frozen_from_json(entry["declared_frozen"])
    )
    ruling, nxt = adjudicate_one(state, shot, record, dims, frozen)
    return codec.verdict_to_json(ruling, nxt, dims)


def replay(record: MatchRecord) -> dict[str, Any]:
    """Re-adjudicate every entry; report whether verdicts and the state chain are reproduced.

    Returns a JSON-ready report: `entries`, `reproduced` (bool), and `mismatches`, a list
    of {"line", "what"} (a verdict that differs, or a state that does not follow from the
    entry before it).
    """
    mismatches: list[dict[str, Any]] = []
    previous: dict[str, Any] | None = None
    for k, entry in enumerate(record.entries):
        line = entry.get("_line", k + 2)
        try:
            again = rejudge(_strip(entry), record.variant, record.dims)
        except codec.FieldError as err:
            raise RecordError(f"line {line}: {err}") from err
        stored = entry.get("verdict") if entry["kind"] == "shot" else entry.get("outcome")
        if json.loads(json.dumps(again)) != stored:
            fields = sorted(k for k in again if not isinstance(stored, dict) or stored.get(k) != again[k])
            mismatches.append({"line": line, "what": f"verdict differs in {', '.join(fields)}"})
        if previous is not None and previous != entry["state"]:
            mismatches.append({"line": line, "what": "state is not the previous entry's next state"})
        previous = again["state"]
    return {"entries": len(record.entries), "reproduced": not mismatches, "mismatches": mismatches}
