"""`piramida referee`: JSON in, the referee's verdict out (docs/cli.md).

One request is the variant, the game state before the shot, the strike (and the call in
Classic), and the shot's result as `piramida simulate` writes it; or, while a decision is
pending, the decision. JSON Lines give several requests, answered line by line. The
schema is in docs/RULES.md. The physics kernel is never run or compiled here: the
referee reads the event log it is given.
"""

from __future__ import annotations

import argparse
from typing import Any

import jax
import numpy as np

from piramida.cli import jsonio
from piramida.physics.contract import parse_setup
from piramida.physics.fields import FieldError, member
from piramida.physics.kernel import contact_distance, touching_cushion
from piramida.physics.motion import STATIONARY
from piramida.physics.params import Models
from piramida.rules import codec, match
from piramida.rules import state as st
from piramida.rules.decisions import decide_one
from piramida.rules.referee import adjudicate_one

REQUEST_FIELDS = (
    "variant", "table", "params", "state", "call", "strike", "place", "placement_warned",
    "frozen_warned", "declared", "declared_after_end", "declared_frozen", "result", "decision",
)  # fmt: skip


HELP = "rule on a shot (or apply a decision) given as JSON"
DESCRIPTION = (
    "Read one JSON request, or JSON Lines (one request a line): the variant, the "
    "game state before the shot, the strike and call, and the shot's result as `piramida "
    "simulate` writes it. Write the verdict: legal or foul with its rule ids, balls scored, "
    "respots, points, the next player, the pending decision, game over, and the next state. "
    "With --replay, re-adjudicate a match record (JSON Lines) and report whether every "
    "verdict is reproduced. The schema is in docs/RULES.md."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's options (`cli.main` registers the command with `HELP` and `DESCRIPTION`)."""
    jsonio.add_io_arguments(parser)
    parser.add_argument("--replay", action="store_true", help="the input is a match record to replay")


@jax.jit
def _touching(r: Any, table: Any, params: Any) -> Any:
    """(16,) the cushion piece each centre touches (the start snapshot's `cushion`)."""
    c = contact_distance(table, params, Models())
    return jax.vmap(lambda x: touching_cushion(x, table, c))(r)


def _dims(request: dict[str, Any]) -> tuple[st.Dims, Any, Any]:
    table, _, params = parse_setup(request)
    return st.Dims.of(table, params.R), table, params


def answer(request: Any) -> dict[str, Any]:
    """The referee's answer to one request (raises `FieldError` for bad input)."""
    if not isinstance(request, dict):
        raise FieldError(f"request: expected an object, got {type(request).__name__}")
    unknown = sorted(set(request) - set(REQUEST_FIELDS))
    if unknown:
        raise FieldError(f"{member('', unknown[0])}: unknown field; allowed: {', '.join(REQUEST_FIELDS)}")
    dims, table, params = _dims(request)
    variant = codec.variant_of(request["variant"]) if "variant" in request else None
    if "state" not in request:
        raise FieldError("state: missing")
    state = codec.state_from_json(request["state"], variant, dims)
    state = codec.with_request_call(state, request.get("call"))
    if "decision" in request:
        for name in ("strike", "result", "place"):
            if name in request:
                raise FieldError(f"{name}: a request is either a shot or a decision, not both")
        if int(state.phase) != st.DECISION:
            raise FieldError(f"decision: no decision is pending (phase {st.PHASE_NAMES[int(state.phase)]})")
        decision = codec.decision_from_json(request["decision"], state)
        _, nxt = decide_one(state, decision, dims)
        return match.decision_json(state, decision, nxt, dims)
    phase = int(state.phase)
    if phase in (st.DECISION, st.OVER):
        what = "a decision is pending: send a decision" if phase == st.DECISION else "the frame is over"
        raise FieldError(f"state.phase: {what}")
    shot = codec.shot_from_json(request, state)
    if "result" not in request:
        raise FieldError("result: missing: the output of `piramida simulate` for this shot")
    start = codec.start_balls(state, shot)
    start_on = np.asarray(start.s) == STATIONARY
    start_xy = np.asarray(start.r)
    cushion = None
    if isinstance(request["result"], dict) and "start" not in request["result"]:
        cushion = np.asarray(_touching(start.r, table, params))
    record = codec.record_from_json(request["result"], start_on, start_xy, cushion, dims)
    frozen = None
    if request.get("declared_frozen") is not None:
        frozen = codec.declared_frozen_from_json(request["declared_frozen"])
    ruling, nxt = adjudicate_one(state, shot, record, dims, frozen)
    if not ruling.valid:
        raise FieldError(_invalid_message(ruling.invalid))
    return codec.verdict_to_json(ruling, nxt, dims)


def _invalid_message(names: list[str]) -> str:
    fields = {
        "own-ball": "strike.ball",
        "placement": "place",
        "call": "call",
        "overflow": "result.overflow",
        "decision-pending": "state.phase",
        "game-over": "state.phase",
    }
    from piramida.rules.verdict import INVALID

    reasons = dict(INVALID)
    return "; ".join(f"{fields[n]}: {reasons[n]}" for n in names)


def run(args: argparse.Namespace) -> int:
    """Check the output, read, rule, write; bad input exits with status 2 and names the field."""
    try:
        jsonio.check_destination(args.output)
        if args.replay:
            report = match.replay(match.loads(jsonio.read_text(args.input)))
            status = jsonio.finish("referee", args.output, [(None, report)], [report])
            return status or (0 if report["reproduced"] else 1)
        values = jsonio.read_values(args.input)
        answers = jsonio.answer_each(values, answer)
    except (FieldError, match.RecordError) as err:
        return jsonio.fail("referee", err)
    return jsonio.finish("referee", args.output, values, answers)
