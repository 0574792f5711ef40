"""`piramida referee`: the JSON contract, decisions, JSON Lines, replay, and clear errors (exit 2).

Requests are built from hand-written states and event logs in the `piramida simulate`
output schema (real `simulate` output goes through the same handler in
`test_rules_games_physics.py`). The physics kernel must never be compiled here.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import jax
import numpy as np
import pytest
from helpers.referee_helpers import CLASSIC, COMBINED, FREE, HOUSE_XY, table_state

import piramida.physics as ph
from piramida.cli.main import main
from piramida.physics import kernel
from piramida.physics.motion import STATIONARY
from piramida.rules import codec, ids, match
from piramida.rules import state as st
from piramida.rules.decisions import decide_one

W, L = 1.775, 3.55


@pytest.fixture(autouse=True)
def no_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    """The referee reads event logs; it never runs (or compiles) the physics kernel."""

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("piramida referee ran the physics kernel")

    monkeypatch.setattr(kernel, "_simulate_batch", refuse)


def run_cli(
    args: list[str], capsys: pytest.CaptureFixture[str], stdin: str | None = None
) -> tuple[int, Any, str]:
    if stdin is not None:
        import io
        import sys

        old = sys.stdin
        sys.stdin = io.StringIO(stdin)
        try:
            status = main(args)
        finally:
            sys.stdin = old
    else:
        status = main(args)
    out = capsys.readouterr()
    body: Any = out.out
    if status in (0, 1) and out.out.strip():
        lines = out.out.strip().splitlines()
        body = (
            json.loads(out.out)
            if len(lines) == 1 or out.out.lstrip().startswith("{\n")
            else [json.loads(x) for x in lines]
        )
    return status, body, out.err


def result_of(
    state: st.GameState, events: list[dict[str, Any]], place: tuple[float, float] | None = None
) -> dict[str, Any]:
    """A `simulate`-style result: every ball where it stood, pockets from the events."""
    pockets = {e["balls"][0]: e["pocket"] for e in events if e["kind"] == "pocket"}
    balls = [dict(b, pocket=pockets.get(b["id"])) for b in codec.state_to_json(state)["balls"]]
    if place is not None:
        balls.append({"id": 0, "x": place[0], "y": place[1], "pocket": pockets.get(0)})
    events = [{"t": 0.0, "kind": "strike", "balls": [0]}] + [
        dict(e, t=0.1 * (k + 1)) for k, e in enumerate(events)
    ]
    return {"balls": balls, "events": events, "duration": 1.0, "overflow": False}


def contact(a: int, b: int) -> dict[str, Any]:
    return {"kind": "ball-ball", "balls": [a, b]}


def cushion(ball: int, name: str) -> dict[str, Any]:
    return {"kind": "cushion", "balls": [ball], "cushion": name}


def potted(ball: int, name: str) -> dict[str, Any]:
    return {"kind": "pocket", "balls": [ball], "pocket": name}


def break_request() -> dict[str, Any]:
    game = st.new_game(ids.FREE, jax.random.PRNGKey(0), 0)
    place = HOUSE_XY
    events = [contact(0, 1), cushion(2, "back"), potted(3, "back-left"), cushion(4, "right-back")]
    return {
        "variant": "free",
        "state": codec.state_to_json(game),
        "strike": {"ball": 0, "speed": 8.0, "phi": 90.0},
        "place": {"x": place[0], "y": place[1]},
        "result": result_of(game, events, place),
    }


def foul_request(variant: int = FREE) -> dict[str, Any]:
    state = table_state(variant)
    return {
        "variant": ids.VARIANT_NAMES[variant],
        "state": codec.state_to_json(state),
        "strike": {"ball": 0, "speed": 2.0, "phi": 10.0},
        "result": result_of(state, [contact(0, 5), cushion(5, "left-back")]),
    }


def write(tmp_path: Path, request: Any, name: str = "request.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(request))
    return str(path)


def test_referee_rules_a_legal_break(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run_cli(["referee", write(tmp_path, break_request())], capsys)
    assert status == 0
    assert out["valid"] and out["legal"] and out["foul"] is None
    assert out["scored"] == [3] and out["scored_by"] == 0 and out["points"] == [1, 0]
    assert out["next_player"] == 0 and out["phase"] == "normal" and out["decision"] is None
    assert not out["game_over"] and out["winner"] is None
    assert {"G12.1", "G12.1(1)", "FREE-5.2"} <= set(out["rules"])
    assert out["state"]["shelves"] == [[3], []] and out["state"]["scores"] == [1, 0]


def test_referee_rules_a_foul_then_takes_the_decision(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run_cli(["referee", write(tmp_path, foul_request())], capsys)
    assert status == 0 and not out["legal"]
    assert out["foul"] == {"kinds": ["not-completed"], "rules": ["G20", "G29.1(9)"]}
    pending = out["decision"]
    assert pending["kind"] == "G6" and pending["by"] == 1 and pending["options"] == ["shoot", "hand-back"]
    assert pending["takes_ball"] and 0 in pending["eligible_balls"]  # FREE-7: any ball
    # The shot's own answer says what the pending penalty ball will do (FREE-6, A-13).
    assert out["points"] == [0, 0] and pending["points"] == [0, 1] and pending["scores_after"] == [0, 1]
    assert set(pending["default"]) == {"option", "ball"}
    decision = {"variant": "free", "state": out["state"], "decision": {"option": "hand-back", "ball": 9}}
    status, out, _ = run_cli(["referee", write(tmp_path, decision, "d.json")], capsys)
    assert status == 0 and out["taken"] == 9 and out["scores"] == pending["scores_after"]
    assert out["next_player"] == 0 and out["phase"] == "normal" and "G6(2)" in out["rules"]


def test_referee_classic_call_and_points(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = table_state(CLASSIC)
    request = {
        "variant": "classic",
        "state": codec.state_to_json(state),
        "call": {"ball": 5, "pocket": "back-left"},
        "strike": {"ball": 0},
        "result": result_of(state, [contact(0, 5), potted(5, "back-left")]),
    }
    status, out, _ = run_cli(["referee", write(tmp_path, request)], capsys)
    assert status == 0 and out["scored"] == [5] and out["points"] == [5, 0] and "CLS-5.3" in out["rules"]
    request["call"] = {"ball": 5, "pocket": "back-right"}
    status, out, _ = run_cli(["referee", write(tmp_path, request)], capsys)
    assert out["scored"] == [] and [r["ball"] for r in out["respots"]] == [5] and out["next_player"] == 1


def test_referee_json_lines_answers_line_by_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = tmp_path / "requests.jsonl"
    lines.write_text(json.dumps(break_request()) + "\n" + json.dumps(foul_request()) + "\n")
    out_file = tmp_path / "out.jsonl"
    status, _, _ = run_cli(["referee", str(lines), "-o", str(out_file)], capsys)
    assert status == 0
    answers = [json.loads(x) for x in out_file.read_text().splitlines()]
    assert [a["legal"] for a in answers] == [True, False]
    assert not list(tmp_path.glob("*.tmp"))


def test_referee_json_lines_answers_every_line_around_a_bad_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A bad line (bad JSON, or a bad field) is answered in its place by an error naming the
    # field and its line; every other line exactly as it is answered alone; exit status 2.
    good = [break_request(), foul_request()]
    alone = [run_cli(["referee", write(tmp_path, r, f"r{k}.json")], capsys)[1] for k, r in enumerate(good)]
    bad_field = copy.deepcopy(break_request())
    bad_field["strike"]["ball"] = "zero"
    text = "\n".join([json.dumps(good[0]), "{not json", json.dumps(bad_field), json.dumps(good[1])]) + "\n"
    status, body, err = run_cli(["referee"], capsys, stdin=text)
    out = [json.loads(line) for line in body.splitlines()]
    assert status == 2 and len(out) == 4
    assert out[0] == alone[0] and out[3] == alone[1]
    assert out[1]["line"] == 2 and "not valid JSON" in out[1]["error"]
    assert out[2]["line"] == 3 and out[2]["error"].startswith("strike.ball")
    assert "line 2: not valid JSON" in err and "line 3: strike.ball" in err and "Traceback" not in err


def test_referee_accepts_a_centre_line_event_without_direction(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The referee counts crossings (G20(2.2)); it does not read their direction.
    request = foul_request()
    crossing = {"t": 0.15, "kind": "centre-line", "balls": [5]}
    request["result"]["events"].insert(2, crossing)
    status, out, _ = run_cli(["referee", write(tmp_path, request)], capsys)
    crossing["direction"] = "front-to-back"
    status_with, out_with, _ = run_cli(["referee", write(tmp_path, request, "with.json")], capsys)
    assert status == status_with == 0 and out == out_with


def frozen_request() -> dict[str, Any]:
    """Ball 5 frozen against the left cushion, struck once by the own ball, which then reaches
    the right cushion: G20(2.2) only through G20-N2 (no second collision). No "start" is
    given, so the referee finds the frozen ball from the positions (a centre at the nose's
    contact distance touches the cushion)."""
    frozen_x = float(kernel.contact_distance(ph.preset(), ph.PYRAMID_PARAMS, ph.Models()))
    where = {0: (0.6, 1.2), 5: (frozen_x, 1.2), 6: (1.2, 2.6)}
    rest = [b for b in range(1, 16) if b not in where]
    state = table_state(FREE, balls=where, shelves=(rest[:6], rest[6:]))
    return {
        "variant": "free",
        "state": codec.state_to_json(state),
        "strike": {"ball": 0},
        "result": result_of(
            state,
            [
                {"kind": "ball-ball", "balls": [0, 5], "touching_cushion": {"5": "left-front"}},
                cushion(0, "right-front"),
            ],
        ),
    }


def test_referee_reads_stdin_and_derives_the_start_snapshot(capsys: pytest.CaptureFixture[str]) -> None:
    request = frozen_request() | {"frozen_warned": True}  # every ball found frozen
    status, out, _ = run_cli(["referee"], capsys, stdin=json.dumps(request))
    assert status == 0 and out["legal"] and {"G20(2.2)", "G20-N2"} <= set(out["rules"])
    request = frozen_request() | {"declared_frozen": {}}
    status, out, _ = run_cli(["referee"], capsys, stdin=json.dumps(request))
    assert status == 0 and not out["legal"]  # nothing declared and no second collision


def test_G20_N2_an_unannounced_frozen_ball_struck_once_is_a_foul(capsys: pytest.CaptureFixture[str]) -> None:
    """G20 note 2: "Jeigu dviejų atskirų susidūrimų nebuvo, tai smūgis yra teisingas tik tada,
    jeigu varžovas įspėjo žaidėją, kad rutulys prieš smūgį palies bortą, priešingu atveju
    klaida." A human match says who was warned (`frozen_warned`, `declared_frozen`); unsaid,
    nobody was.
    """
    status, out, _ = run_cli(["referee"], capsys, stdin=json.dumps(frozen_request()))
    assert status == 0 and not out["legal"] and out["foul"]["kinds"] == ["not-completed"]
    assert "G20-N2" in out["rules"] and out["next_player"] == 1
    for warning in ({"frozen_warned": True}, {"declared_frozen": {"5": "left-front"}}):
        status, out, _ = run_cli(["referee"], capsys, stdin=json.dumps(frozen_request() | warning))
        assert status == 0 and out["legal"] and "G20-N2" in out["rules"], warning
    both = frozen_request() | {"frozen_warned": False, "declared_frozen": {}}
    status, _, err = run_cli(["referee"], capsys, stdin=json.dumps(both))
    assert status == 2 and "frozen_warned: give either" in err and "Traceback" not in err


def test_G20_N2_a_match_record_without_the_warning_replays_as_it_was_judged() -> None:
    """Records written before the warning was an input were judged with every frozen ball
    announced; new records say whether it was given, and both replay as judged.
    """
    request = {k: v for k, v in frozen_request().items() if k != "variant"}
    state = codec.state_from_json(request["state"], ids.FREE)
    start = codec.start_balls(state, codec.shot_from_json(request, state))
    reach = kernel.contact_distance(ph.preset(), ph.PYRAMID_PARAMS, ph.Models())
    cushion = np.asarray([int(kernel.touching_cushion(r, ph.preset(), reach)) for r in start.r])
    on = np.asarray(start.s) == STATIONARY
    result = codec.record_from_json(request["result"], on, np.asarray(start.r), cushion, st.DEFAULT_DIMS)
    request["result"] = codec.record_to_json(result)  # as a record stores it: with its start snapshot
    old = match.rejudge({"kind": "shot", **request}, ids.FREE, st.DEFAULT_DIMS)
    assert old["legal"] and "G20-N2" in old["rules"]
    unwarned = match.rejudge({"kind": "shot", **request, "frozen_warned": False}, ids.FREE, st.DEFAULT_DIMS)
    assert not unwarned["legal"]


def test_referee_replays_a_match_record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    request = foul_request()
    verdict = match.rejudge({"kind": "shot", **request}, ids.FREE, st.DEFAULT_DIMS)
    state = codec.state_from_json(verdict["state"], ids.FREE)
    decision = codec.decision_from_json({"option": "shoot", "ball": 9}, state)
    record = match.MatchRecord(ids.FREE)
    record.entries.append(
        {"kind": "shot", **{k: v for k, v in request.items() if k != "variant"}, "verdict": verdict}
    )
    _, nxt = decide_one(state, decision, st.DEFAULT_DIMS)
    record.add_decision(state, decision, nxt)
    path = tmp_path / "match.jsonl"
    record.save(path)
    status, out, _ = run_cli(["referee", "--replay", str(path)], capsys)
    assert status == 0 and out == {"entries": 2, "reproduced": True, "mismatches": []}
    tampered = [json.loads(x) for x in path.read_text().splitlines()]
    tampered[1]["verdict"]["points"] = [0, 5]
    path.write_text("".join(json.dumps(x) + "\n" for x in tampered))
    status, out, _ = run_cli(["referee", "--replay", str(path)], capsys)
    assert status == 1 and not out["reproduced"] and out["mismatches"][0]["line"] == 2


def test_G11_3_an_unwarned_placement_on_the_house_line_stands(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """G11.3: "Jeigu rutulys pastatomas ne namų zonoje, varžovas arba teisėjas privalo
    perspėti žaidėją prieš šiam smūgiuojant, priešingu atveju manoma, kad žaidimas buvo
    pradėtas teisingai." A request without `placement_warned` (default false) is ruled as
    an unwarned placement: the break stands.
    """
    request = break_request()
    request["place"] = {"x": W / 2, "y": L / 4}  # G10.2: on the house line, not in the house
    status, out, _ = run_cli(["referee", write(tmp_path, request)], capsys)
    assert status == 0 and out["valid"] and out["legal"] and "G11.3" in out["rules"]


def test_G22_3_the_late_penalty_waits_behind_the_exchange_in_the_json(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """G22.3: "Jeigu klaida buvo padaryta pasibaigus smūgiui, skiriama bauda, tačiau rutuliai
    įkritę iki smūgio pabaigos yra teisingai įmušti." The state's exchange decision says a
    late foul's penalty waits behind it (`late_penalty`), so the decision request that
    follows hands the opponent his penalty decision.
    """
    state = table_state(COMBINED)
    request = {
        "variant": "combined",
        "state": codec.state_to_json(state),
        "strike": {"ball": 0},
        "declared_after_end": ["touch"],
        "result": result_of(state, [contact(0, 5), cushion(0, "left-back"), potted(0, "back-left")]),
    }
    status, out, _ = run_cli(["referee"], capsys, stdin=json.dumps(request))
    assert status == 0 and out["foul"]["kinds"] == ["after-shot-end"] and out["next_player"] == 0
    assert out["decision"]["kind"] == "exchange" and out["state"]["decision"]["late_penalty"] is True
    decision = {"variant": "combined", "state": out["state"], "decision": {"ball": 11}}
    status, out, _ = run_cli(["referee"], capsys, stdin=json.dumps(decision))
    assert status == 0 and out["scores"] == [1, 0] and out["next_player"] == 1 and out["phase"] == "decision"
    assert out["state"]["decision"] == {"kind": "G6", "options": ["shoot", "hand-back"]}
    assert {"COMB-5.2", "G22.3", "COMB-7"} <= set(out["rules"])
    decision["state"]["decision"] = {"kind": "G6", "late_penalty": True}  # only an exchange has one
    status, _, err = run_cli(["referee"], capsys, stdin=json.dumps(decision))
    assert status == 2 and "state.decision.late_penalty: only an exchange" in err


def _on_shelves(variant: int, shelves: tuple[list[int], list[int]], scores: list[int] | None = None) -> Any:
    state = table_state(variant, shelves=shelves, scores=scores)
    return {
        "variant": ids.VARIANT_NAMES[variant],
        "state": codec.state_to_json(state),
        "strike": {"ball": 0},
        "result": result_of(state, [contact(0, 9), cushion(9, "left-back")]),
    }


INCONSISTENT = [
    # Scores the shelves cannot produce: a foul moves 5 (CLS-5.6), the shelves add up.
    ("state.scores", lambda: _on_shelves(CLASSIC, ([5], []), [3, 0])),
    # A frame already won is over (FREE-1, CLS-1), not still being played.
    ("state.phase", lambda: _on_shelves(FREE, ([1, 2, 3, 4, 5, 6, 7, 8], []))),
    ("state.phase", lambda: _on_shelves(CLASSIC, ([5], []), [75, -70])),
    # Events naming a ball on a shelf; a final position off the table; a ball listed twice.
    ("result.events[1].balls", lambda: _on_shelves(FREE, ([9], []))),
    ("result.balls[3]", lambda: _broken(lambda r: r["result"]["balls"][3].update(x=-0.5))),
    ("result.balls[16].id", lambda: _broken(lambda r: r["result"]["balls"].append(r["result"]["balls"][3]))),
]


@pytest.mark.parametrize(
    ("field", "make"), INCONSISTENT, ids=[f"{f}-{k}" for k, (f, _) in enumerate(INCONSISTENT)]
)
def test_referee_refuses_inconsistent_input(
    field: str, make: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Inconsistent input is refused with a message naming the field, never adjudicated.
    status, out, err = run_cli(["referee", write(tmp_path, make())], capsys)
    assert status == 2 and out == "" and f"error: {field}" in err, err


def test_referee_accepts_classic_scores_after_fouls(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Ball 5 on player 0's shelf, then a foul by player 1 (+5 / -5): 10 and -5 (CLS-5.6, A-15).
    status, out, _ = run_cli(["referee", write(tmp_path, _on_shelves(CLASSIC, ([5], []), [10, -5]))], capsys)
    assert status == 0 and out["valid"]


def _broken(change: Any) -> dict[str, Any]:
    request = copy.deepcopy(break_request())
    change(request)
    return request


BAD_REQUESTS = [
    ("state", lambda r: r.pop("state")),
    ("colour", lambda r: r.update(colour="red")),
    ("variant", lambda r: r.update(variant="snooker")),
    ("state.variant", lambda r: r.update(variant="classic")),
    ("strike.ball", lambda r: r["strike"].update(ball="zero")),
    ("strike.ball", lambda r: r["strike"].update(ball=5)),  # G11.2: the break is the coloured ball's
    ("place", lambda r: r.pop("place")),
    # On the house line (G10), and the player was warned before the stroke (G11.3).
    ("place", lambda r: r.update(place={"x": W / 2, "y": L / 4}, placement_warned=True)),
    ("placement_warned", lambda r: r.update(placement_warned="yes")),
    ("state.balls[3].x", lambda r: r["state"]["balls"][3].update(x="left")),
    ("state.balls", lambda r: r["state"]["balls"].pop(4)),
    ("state.shelves[0][0]", lambda r: r["state"].update(shelves=[[3], []])),
    ("state.phase", lambda r: r["state"].update(phase="decision", decision={"kind": "G6"})),
    # Derived fields that disagree with the balls: a hand of 16 balls was silently cut to [0].
    ("state.hand", lambda r: r["state"].update(hand=list(range(16)))),
    ("state.own_ball", lambda r: r["state"].update(own_ball=0)),  # Free has no own ball
    ("result", lambda r: r.pop("result")),
    ("result.events[1].kind", lambda r: r["result"]["events"][1].update(kind="bounce")),
    ("result.events[2].cushion", lambda r: r["result"]["events"][2].update(cushion="top")),
    ("result.events[3].t", lambda r: r["result"]["events"][3].update(t=-1.0)),
    ("result.balls[1].pocket", lambda r: r["result"]["balls"][1].update(pocket="back-left")),
    ("result.balls", lambda r: r["result"]["balls"].pop(0)),
    ("result.overflow", lambda r: r["result"].update(overflow=True)),
    ("call", lambda r: r.update(call={"ball": 3, "pocket": "back-left"})),  # no calls in Free
    ("decision", lambda r: r.update(decision={"option": "shoot"})),
    ("table", lambda r: r.update(table="snooker-12ft")),
    ("declared[0]", lambda r: r.update(declared=["sneezed"])),
    # Hostile values: a seed past 32 bits, ball ids in non-ASCII digits.
    ("state.key", lambda r: r["state"].update(key=2**70)),
    ("declared_frozen.٣", lambda r: r.update(declared_frozen={"٣": "back"})),
    # The table and constants are read as `piramida simulate` reads them, ranges included.
    ("params.g", lambda r: r.update(params={"g": 1e-300})),
    ("table.cushion_height", lambda r: r.update(params={"R": 0.02})),
    # A long or line-breaking key is quoted cut short.
    ("declared_frozen['7\\n']", lambda r: r.update(declared_frozen={"7\n": "back"})),
    ("result['xxxx", lambda r: r["result"].update({"x" * 10_000: 1})),
]


@pytest.mark.parametrize(("field", "change"), BAD_REQUESTS, ids=[f for f, _ in BAD_REQUESTS])
def test_referee_bad_input_names_the_field_and_exits_2(
    field: str, change: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run_cli(["referee", write(tmp_path, _broken(change))], capsys)
    assert status == 2 and out == ""
    assert err.startswith("piramida referee: error: ") and f" {field}" in err, err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("text", "field"),
    [("", "input"), ("{not json", "line 1"), ('{"variant": "free"}\n[1, 2]\n', "line 1")],
)
def test_referee_bad_text_exits_2(text: str, field: str, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run_cli(["referee"], capsys, stdin=text)
    assert status == 2 and field in err


def test_referee_bad_decision_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run_cli(["referee", write(tmp_path, foul_request(CLASSIC))], capsys)
    request = {"variant": "classic", "state": out["state"], "decision": {"option": "shoot", "ball": 4}}
    status, _, err = run_cli(["referee", write(tmp_path, request, "d.json")], capsys)
    assert status == 2 and "decision.ball: this decision takes no ball" in err
    request["decision"] = {"option": "rerack-break"}
    status, _, err = run_cli(["referee", write(tmp_path, request, "d.json")], capsys)
    assert status == 2 and "decision.option" in err
    request["state"]["decision"]["options"] = "shoot"  # not a list
    status, _, err = run_cli(["referee", write(tmp_path, request, "d.json")], capsys)
    assert status == 2 and "state.decision.options: expected a list" in err


def test_referee_missing_file_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run_cli(["referee", "/nonexistent/request.json"], capsys)
    assert status == 2 and "input" in err
