"""`piramida simulate` and `piramida demo`: the JSON contract and clear errors (exit 2)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from piramida.cli.main import main

STRAIGHT_SHOT = {
    "table": "pyramid-12ft",
    "balls": [{"id": 0, "x": 0.8875, "y": 0.30}, {"id": 1, "x": 0.8875, "y": 2.0}],
    "strike": {"ball": 0, "speed": 3.0, "phi": 90.0, "theta": 0.0, "a": 0.0, "b": 0.0},
}


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main(args)
    out = capsys.readouterr()
    return status, out.out, out.err


def test_simulate_writes_the_contract_for_one_object(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    request = tmp_path / "shot.json"
    request.write_text(json.dumps(STRAIGHT_SHOT))
    status, out, _ = run_cli(["simulate", str(request)], capsys)
    assert status == 0
    result = json.loads(out)
    assert [b["id"] for b in result["balls"]] == [0, 1]
    kinds = [e["kind"] for e in result["events"]]
    assert kinds[0] == "strike"
    # A straight shot up the long axis: ball 0 crosses the centre line, then meets ball 1.
    assert kinds.index("centre-line") < kinds.index("ball-ball")
    contact = result["events"][kinds.index("ball-ball")]
    assert contact["balls"] == [0, 1]
    times = [e["t"] for e in result["events"]]
    assert times == sorted(times)
    assert result["overflow"] is False
    assert result["duration"] == pytest.approx(times[-1])
    # Head-on and without side spin: nothing leaves the long axis.
    assert all(b["x"] == pytest.approx(0.8875, abs=1e-9) for b in result["balls"])


def test_simulate_json_lines_keeps_order_and_mixes_tables(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rolling = {
        "table": {"kind": "rectangle", "width": 1.775, "length": 3.55},
        "balls": [{"id": 3, "x": 0.5, "y": 1.0, "v": [0.0, 0.5], "w": [-0.5 / 0.034, 0.0, 0.0]}],
    }
    lines = tmp_path / "batch.jsonl"
    lines.write_text("\n".join(json.dumps(r) for r in (STRAIGHT_SHOT, rolling, STRAIGHT_SHOT)) + "\n")
    out_file = tmp_path / "out.jsonl"
    status, _, _ = run_cli(["simulate", str(lines), "-o", str(out_file)], capsys)
    assert status == 0
    results = [json.loads(line) for line in out_file.read_text().splitlines()]
    assert len(results) == 3
    assert results[0] == results[2]
    # The rolling ball stops after v^2 / (2 u_r g) with the preset's u_r = 0.01.
    stop = results[1]["balls"][0]
    assert stop["id"] == 3
    assert stop["y"] == pytest.approx(1.0 + 0.5**2 / (2 * 0.01 * 9.81), rel=1e-9)
    assert results[1]["events"][0]["kind"] == "strike" and results[1]["events"][0]["balls"] == [-1]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"balls": [{"id": 0, "x": 0.01, "y": 1.0}]}, "ball 0: centre (0.0100, 1.0000) is off the cloth"),
        ({"balls": [{"id": 0, "x": 0.5, "y": 1.0}, {"id": 1, "x": 0.55, "y": 1.0}]}, "balls 0 and 1 overlap"),
        ({"balls": [{"id": 16, "x": 0.5, "y": 1.0}]}, "balls[0].id: expected a ball id 0..15"),
        ({"balls": [{"id": 0, "x": "a", "y": 1.0}]}, "balls[0].x: expected a finite number"),
        ({"strike": {"ball": 5, "speed": 2.0, "phi": 0.0}}, "strike.ball: ball 5 is not on the table"),
        (
            {"strike": {"ball": 0, "speed": 40.0, "phi": 0.0}},
            "strike.speed: expected a number in (0, 12] m/s",
        ),
        (
            {"strike": {"ball": 0, "speed": 2.0, "phi": 0.0, "a": 0.7}},
            "strike.a: expected a number in [-0.6, 0.6] R",
        ),
        (
            {"strike": {"ball": 0, "speed": 2.0, "phi": 0.0, "a": 0.5, "b": 0.5}},
            "strike.a/b: tip offset 0.707 R",
        ),
        ({"strike": {"ball": 0, "speed": 2.0}}, "strike.phi: missing"),
        ({"params": {"mu": 0.2}}, "params.mu: unknown field"),
        (
            {"models": {"cushion": "magic"}},
            "models.cushion: expected one of han_2005, stronge_compliant, got 'magic'",
        ),
        ({"table": "snooker"}, "table: unknown preset 'snooker'"),
        (
            {"table": {"kind": "rectangle", "width": -1, "length": 2}},
            "table.width: expected a number in [0.5, 2.5] m, got -1",
        ),
        ({"capacity": 1}, "capacity: expected an integer 2..100000"),
        # Physical ranges (`physics.contract.RANGES`), and the nose height, which depends on R.
        ({"params": {"g": 0}}, "params.g: expected a number in [1, 100] m/s^2, got 0"),
        ({"strike": {"ball": 0, "speed": 2.0, "phi": 1e300}}, "strike.phi: expected a number in [-360, 360]"),
        (
            {"params": {"R": 0.05}},
            "table.cushion_height: a nose 0.04352 m high is 0.87 R for params.R = 0.05 m",
        ),
        (
            {
                "table": {
                    "kind": "pockets",
                    "side_pocket_angle": 0,
                    "cushion_width": 0.03,
                    "side_jaw_radius": 0.03,
                }
            },
            "table: a jaw of the middle-left pocket is 0.000 mm long",
        ),
    ],
)
def test_simulate_names_the_bad_field_and_exits_2(
    change: dict[str, object], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    request = tmp_path / "bad.json"
    request.write_text(json.dumps({**STRAIGHT_SHOT, **change}))
    status, out, err = run_cli(["simulate", str(request)], capsys)
    assert status == 2
    assert out == ""
    assert message in err
    assert "Traceback" not in err


def test_simulate_reports_the_line_of_bad_json_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = tmp_path / "batch.jsonl"
    lines.write_text(json.dumps(STRAIGHT_SHOT) + "\n{not json\n")
    status, _, err = run_cli(["simulate", str(lines)], capsys)
    assert status == 2
    assert "line 2: not valid JSON" in err


def test_simulate_answers_every_line_around_a_bad_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = tmp_path / "batch.jsonl"
    bad = {**STRAIGHT_SHOT, "capacity": 1}
    lines.write_text("\n".join(json.dumps(r) for r in (STRAIGHT_SHOT, bad, STRAIGHT_SHOT)) + "\n")
    status, out, err = run_cli(["simulate", str(lines)], capsys)
    results = [json.loads(line) for line in out.splitlines()]
    assert status == 2 and len(results) == 3
    assert results[1]["line"] == 2 and results[1]["error"].startswith("capacity:")
    single = tmp_path / "one.json"
    single.write_text(json.dumps(STRAIGHT_SHOT))
    _, alone, _ = run_cli(["simulate", str(single)], capsys)
    assert results[0] == results[2] == json.loads(alone)
    assert "line 2: capacity" in err


def test_simulate_reports_a_missing_file(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run_cli(["simulate", "/nonexistent/shot.json"], capsys)
    assert status == 2
    assert "/nonexistent/shot.json" in err


@pytest.mark.slow
def test_demo_breaks_the_rack_and_draws_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run_cli(["demo", "--out", str(tmp_path), "--train-steps", "0"], capsys)
    assert status == 0
    assert not (tmp_path / "train").exists()
    shot = json.loads((tmp_path / "break.json").read_text())
    assert (tmp_path / "break.png").stat().st_size > 10_000
    assert not shot["overflow"]
    kinds = {e["kind"] for e in shot["events"]}
    assert {"strike", "ball-ball", "cushion"} <= kinds
    assert len(shot["balls"]) == 16
    # The break starts with ball 0 meeting the apex ball of the rack (ball 1).
    first_contact = next(e for e in shot["events"] if e["kind"] == "ball-ball")
    assert first_contact["balls"] == [0, 1]
    assert all(math.isfinite(b["x"]) and math.isfinite(b["y"]) for b in shot["balls"])
    assert "events" in out


@pytest.mark.slow
def test_demo_trains_a_policy_and_evaluates_it_with_its_learning_curves(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run_cli(
        ["demo", "--out", str(tmp_path), "--train-steps", "1024", "--games", "2", "--tables", "8"], capsys
    )
    assert status == 0
    assert (tmp_path / "train" / "final.zip").is_file()
    assert "pot success rate while training" in out
    results = json.loads((tmp_path / "eval" / "results.json").read_text())
    assert results["config"]["agents"] == [str(tmp_path / "train" / "final.zip"), "random", "greedy"]
    assert "## Learning curves" in (tmp_path / "eval" / "report.md").read_text()
    assert (tmp_path / "eval" / "learning_curves.png").stat().st_size > 10_000


@pytest.mark.parametrize("flag", ["--train-steps=-1", "--games=0", "--tables=0"])
def test_demo_refuses_bad_counts(flag: str, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run_cli(["demo", flag], capsys)
    assert status == 2 and flag.split("=")[0] in err


HOSTILE = [
    (bytes(range(128, 256)) * 8, "input: not UTF-8 text"),
    (("[" * 200_000 + "]" * 200_000).encode(), "nested too deeply"),
    (b'{"capacity": ' + b"9" * 5000 + b"}", "a number of 5000 digits"),
    (b'{"balls": [{"id": 0, "x": 1' + b"0" * 400 + b', "y": 1.0}]}', "a number of 401 digits"),
    (b'{"balls": [{"id": 0, "x": 1e400, "y": 1.0}]}', "too large for a float"),
    (b'{"balls": [{"id": 0, "x": NaN, "y": 1.0}]}', "NaN is not a JSON number"),
]


@pytest.mark.parametrize("command", ["simulate", "referee"])
@pytest.mark.parametrize(
    ("data", "message"), HOSTILE, ids=["bytes", "nesting", "digits", "huge-integer", "huge-float", "nan"]
)
def test_hostile_input_gets_one_line_and_exit_2(
    command: str, data: bytes, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "hostile.json"
    path.write_bytes(data)
    status, _, err = run_cli([command, str(path)], capsys)
    assert status == 2 and message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1 and len(err) < 400
