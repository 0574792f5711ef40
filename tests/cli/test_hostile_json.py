"""Hostile JSON for `piramida simulate` and `piramida referee`.

Whatever the input, each command exits 0 or 2, reports each refused request in one short
line on stderr (never a traceback), and writes only JSON: no NaN, no infinity, one answer
line per request. The property tests throw random JSON values, valid requests with fields
replaced, deleted or added, and raw bytes at the in-process command line, many requests
a run as JSON Lines so that the kernel runs once per example. The regression tests pin
the cases that once failed: NaN in the output from a tiny g or a huge spin, an output
folder found missing only after the whole simulation, a long value echoed whole.
"""

from __future__ import annotations

import contextlib
import copy
import errno
import io
import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_cli import STRAIGHT_SHOT
from test_cli_referee import break_request, foul_request

from piramida.cli import jsonio, referee
from piramida.cli import simulate as simulate_cli
from piramida.cli.main import main
from piramida.physics import contract, jsontext, kernel
from piramida.physics import events as ev
from piramida.physics.fields import FieldError
from piramida.physics.params import PARAM_NAMES
from piramida.physics.table import PYRAMID_SPEC, SPEC_FIELDS
from piramida.rules import codec

REFEREE_REQUESTS = [break_request(), foul_request()]
# A shot with every optional field, and a ball with its own motion, for the mutations.
SIMULATE_REQUESTS = [
    {**STRAIGHT_SHOT, "params": {"u_r": 0.012}, "models": {"cushion": "han_2005"}, "capacity": 256},
    {
        "table": {"kind": "pockets", "width": 1.775, "length": 3.55, "side_pocket_angle": 7.0},
        "balls": [{"id": 3, "x": 0.5, "y": 1.0, "v": [0.0, 0.5], "w": [-10.0, 0.0, 5.0]}],
        "record": True,
    },
]
COMMANDS = ["simulate", "referee"]
BASES = {"simulate": SIMULATE_REQUESTS, "referee": REFEREE_REQUESTS}
MAX_LINE = 500  # characters of one line on stderr


# --- running the command line in process ------------------------------------------------


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder for the input files, shared by the examples of a property test."""
    return tmp_path_factory.mktemp("hostile")


@pytest.fixture(scope="module", autouse=True)
def warm(folder: Path) -> None:
    """Compile the kernel and the referee's programs before the examples (the first call takes seconds)."""
    for command in COMMANDS:
        status, out, err = cli(command, folder / "warm.jsonl", as_lines(BASES[command]))
        assert status == 0 and len(out.splitlines()) == 2, err


def cli(command: str, path: Path, data: bytes, *options: str) -> tuple[int, str, str]:
    """`piramida <command> <path> <options>` on `data`: exit status, stdout, stderr."""
    path.write_bytes(data)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main([command, str(path), *options])
    return status, out.getvalue(), err.getvalue()


def _no_constant(name: str) -> Any:
    raise AssertionError(f"{name} in the output")


def _finite(text: str) -> float:
    value = float(text)
    assert math.isfinite(value), f"{text} in the output"
    return value


def check(status: int, out: str, err: str, requests: int) -> list[Any]:
    """The contract for any input of `requests` requests; the answers written."""
    assert status in (0, 2), err
    assert "Traceback" not in err
    # The ranges refuse every value that would make the kernel write NaN or infinity, so
    # the last guard against them (an answer refused as "cannot be written as JSON") never fires.
    assert "cannot be written as JSON" not in err, err[:2000]
    messages = err.splitlines()
    assert len(messages) <= requests, err[:2000]
    assert all(len(m) < MAX_LINE for m in messages), max(messages, key=len)[: 2 * MAX_LINE]
    answers = [
        json.loads(line, parse_constant=_no_constant, parse_float=_finite) for line in out.splitlines()
    ]
    assert len(answers) in (0, requests)
    errors = [a for a in answers if set(a) == {"error", "line"}]
    if status == 0:
        assert len(answers) == requests and not errors and not messages
    else:
        assert messages and (not answers or len(errors) == len(messages))
    return answers


def on_a_table(answers: list[Any]) -> None:
    """Every ball of every shot ends near a table (no table is wider than 2.5 m or longer than 5 m).

    Nonsense a range let through shows here even when it stays finite: a negative g
    sends the ball hundreds of metres away.
    """
    for answer in answers:
        for ball in answer.get("balls", []):
            assert -1 <= ball["x"] <= 3.5 and -1 <= ball["y"] <= 6, answer


def as_lines(requests: list[Any]) -> bytes:
    """JSON Lines of `requests` (one alone is a lone request)."""
    return "".join(json.dumps(r) + "\n" for r in requests).encode()


# --- strategies -------------------------------------------------------------------------

# Names the readers know, so that random documents sometimes get past the first check.
NAMES = st.sampled_from(
    ["pyramid-12ft", "pooltool-7ft", "rectangle", "pockets", "free", "classic", "back-left", "strike",
     "ball-ball", "cushion", "normal", "decision", "G6", "shoot", "han_2005", "nose", "٣", "１２", "0", "7"]
)  # fmt: skip
# Field names of both contracts, so that an added field is often a known one.
FIELDS = st.sampled_from(
    sorted({*PARAM_NAMES, *SPEC_FIELDS, *contract.REQUEST_FIELDS, *contract.STRIKE_FIELDS,
            *referee.REQUEST_FIELDS, *codec.STATE_FIELDS, *contract.RESULT_FIELDS, *ev.EVENT_FIELDS,
            "x", "y", "v", "w", "id", "kind"})
)  # fmt: skip
TEXT = (
    st.text(max_size=12)
    | NAMES
    | FIELDS
    | st.integers(41, 5_000).map(lambda n: "x" * n)
    | st.text(alphabet=st.characters(categories=["Nd"]), min_size=1, max_size=4)
)
INTEGERS = st.integers() | st.sampled_from(
    [0, 1, -1, 2, 15, 16, 2**31, 2**32, 2**63, 2**70, -(2**70), 10**99]
)
FLOATS = st.floats(allow_nan=False, allow_infinity=False) | st.sampled_from(
    [0.0, -0.0, 5e-324, 1e-300, 1e-12, 0.5, 1e300, -1e300, 1.7976931348623157e308]
)
# Values a physical field might plausibly get: in or near every range of `physics.contract.RANGES`.
PHYSICAL = st.floats(-2_000, 2_000) | st.floats(0, 0.2)
JSON = st.recursive(
    st.none() | st.booleans() | INTEGERS | FLOATS | TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
    max_leaves=12,
)
SCALES = st.sampled_from([-1.0, 0.0, 1e-300, 1e-6, 0.5, 0.999, 1.001, 2.0, 10.0, 1e6, 1e300])


def _paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """The path of every value inside `value`, itself included."""
    yield path
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        yield from _paths(item, (*path, key))


def _at(value: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        value = value[key]
    return value


@st.composite
def mutants(draw: st.DrawFn, bases: list[Any]) -> Any:
    """A valid request with one or two values replaced (by anything, or scaled), deleted or added to."""
    doc = copy.deepcopy(draw(st.sampled_from(bases)))
    for _ in range(draw(st.integers(1, 2))):
        path = draw(st.sampled_from(list(_paths(doc))))
        if not path:
            return draw(JSON)
        parent, key = _at(doc, path[:-1]), path[-1]
        old = parent[key]
        how = draw(st.sampled_from(["replace", "scale", "delete", "add"]))
        if how == "delete":
            del parent[key]
        elif how == "add" and isinstance(old, dict):
            old[draw(FIELDS | TEXT)] = draw(JSON | PHYSICAL)
        elif how == "add" and isinstance(old, list):
            old.append(draw(JSON))
        elif how == "scale" and isinstance(old, int | float) and not isinstance(old, bool):
            parent[key] = old * draw(SCALES)
        else:
            parent[key] = draw(JSON | PHYSICAL | INTEGERS)
    return doc


def _with(request: Any, path: tuple[Any, ...], value: Any) -> Any:
    """A copy of `request` with `value` at `path` (objects on the way made as needed)."""
    doc = copy.deepcopy(request)
    parent = doc
    for key in path[:-1]:
        parent = parent.setdefault(key, {}) if isinstance(parent, dict) else parent[key]
    parent[path[-1]] = value
    return doc


RECTANGLE = {
    **STRAIGHT_SHOT,
    "table": {"kind": "rectangle", "width": 1.775, "length": 3.55, "cushion_height": 0.0435},
}
POCKETS = {
    **STRAIGHT_SHOT,
    "table": {"kind": "pockets", **{f: getattr(PYRAMID_SPEC, f) for f in SPEC_FIELDS}},
}
MOVING = SIMULATE_REQUESTS[1]  # ball 3 with its own v and w, no strike
# Every number of the `simulate` contract: (a request that has it, its path, its `RANGES` key).
NUMBERS = (
    [(STRAIGHT_SHOT, ("params", k), f"params.{k}") for k in PARAM_NAMES]
    + [(RECTANGLE, ("table", k), f"table.{k}") for k in ("width", "length", "cushion_height")]
    + [(POCKETS, ("table", k), f"table.{k}") for k in SPEC_FIELDS]
    + [(MOVING, ("balls", 0, k), f"balls.{k}") for k in ("x", "y")]
    + [(MOVING, ("balls", 0, k, i), f"balls.{k}") for k, size in (("v", 2), ("w", 3)) for i in range(size)]
    + [(STRAIGHT_SHOT, ("strike", k), f"strike.{k}") for k in contract.STRIKE_FIELDS[1:]]
)


EXTREMES = st.sampled_from([0, -0.0, 5e-324, 1e-300, -1e-300, 1e-9, 1e9, 1e300, -1e300, 2**70])


@st.composite
def every_number(draw: st.DrawFn) -> list[Any]:
    """A valid request for each number of the contract with that number set to anything.

    Extreme, anything at all, or anywhere in its range (where the kernel must stay finite).
    """
    requests = []
    for request, path, key in NUMBERS:
        inside = st.floats(contract.RANGES[key].lo, contract.RANGES[key].hi)
        requests.append(_with(request, path, draw(EXTREMES | inside | inside | FLOATS | INTEGERS)))
    return requests


def batches(requests: st.SearchStrategy[Any]) -> st.SearchStrategy[list[Any]]:
    """One to eight requests: a lone one, or JSON Lines run as one batch."""
    return st.lists(requests, min_size=1, max_size=8)


# --- property tests -----------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("command", COMMANDS)
@settings(max_examples=600, deadline=None)
@given(data=st.data())
def test_mutated_requests_are_answered_or_refused_in_one_line(
    command: str, data: st.DataObject, folder: Path
) -> None:
    requests = data.draw(batches(mutants(BASES[command])))
    answers = check(*cli(command, folder / f"mutants-{command}.jsonl", as_lines(requests)), len(requests))
    if command == "simulate":
        on_a_table(answers)


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(requests=every_number())
def test_every_number_is_refused_or_simulated_sensibly(requests: list[Any], folder: Path) -> None:
    on_a_table(check(*cli("simulate", folder / "numbers.jsonl", as_lines(requests)), len(requests)))


@pytest.mark.parametrize("command", COMMANDS)
@settings(max_examples=400, deadline=None)
@given(requests=batches(JSON))
def test_random_json_is_refused_in_one_line(command: str, requests: list[Any], folder: Path) -> None:
    check(*cli(command, folder / f"json-{command}.jsonl", as_lines(requests)), len(requests))


@st.composite
def damaged(draw: st.DrawFn, bases: list[Any]) -> bytes:
    """A valid request's text with bytes overwritten, or random bytes."""
    text = bytearray(json.dumps(draw(st.sampled_from(bases))).encode())
    for _ in range(draw(st.integers(0, 3))):
        text[draw(st.integers(0, len(text) - 1))] = draw(st.integers(0, 255))
    return bytes(text) if draw(st.booleans()) else draw(st.binary(max_size=300))


@pytest.mark.parametrize("command", COMMANDS)
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_raw_bytes_are_refused_in_one_line(command: str, data: st.DataObject, folder: Path) -> None:
    raw = data.draw(damaged(BASES[command]))
    check(*cli(command, folder / f"bytes-{command}.json", raw), requests_in(raw))


def requests_in(raw: bytes) -> int:
    """How many requests `jsonio.read_values` finds in `raw` (1 where it refuses the whole input)."""
    try:
        text = raw.decode()
    except UnicodeDecodeError:
        return 1
    try:
        jsontext.loads(text.strip())
    except FieldError:
        return max(1, sum(1 for line in text.splitlines() if line.strip()))
    return 1


# --- regressions --------------------------------------------------------------------------


def refused(command: str, request: Any, folder: Path, *options: str) -> str:
    """The one short stderr line with which `command` refuses `request` (exit 2, no output)."""
    status, out, err = cli(command, folder / "request.json", json.dumps(request).encode(), *options)
    assert status == 2 and out == "" and "Traceback" not in err, err
    assert len(err.splitlines()) == 1 and len(err) < MAX_LINE, err[:MAX_LINE]
    return err


def with_ball(**change: Any) -> dict[str, Any]:
    return {**STRAIGHT_SHOT, "balls": [{**STRAIGHT_SHOT["balls"][0], **change}, STRAIGHT_SHOT["balls"][1]]}


@pytest.mark.parametrize(
    ("request_", "message"),
    [
        (
            {**STRAIGHT_SHOT, "params": {"g": 1e-300}},
            "params.g: expected a number in [1, 100] m/s^2, got 1e-300",
        ),
        (
            with_ball(w=[0.0, 0.0, 1e300]),
            "balls[0].w[2]: expected a number in [-1000, 1000] rad/s, got 1e+300",
        ),
        (
            with_ball(v=[0.0, 2**70]),
            "balls[0].v[1]: expected a number in [-30, 30] m/s, got 1180591620717411303424",
        ),
        ({**STRAIGHT_SHOT, "params": {"u_r": 0}}, "params.u_r: expected a number in [0.001, 0.1], got 0"),
        ({**STRAIGHT_SHOT, "params": {"R": 0.02}}, "table.cushion_height: a nose 0.04352 m high is 2.18 R"),
    ],
    ids=["tiny-g", "huge-spin", "huge-speed", "no-rolling-resistance", "nose-above-the-ball"],
)
def test_simulate_refuses_out_of_range_values_before_the_kernel(
    request_: Any, message: str, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(simulate_cli, "run_requests", _never)
    assert message in refused("simulate", request_, folder)


def _never(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("the request was run")


def _dotted(path: tuple[Any, ...]) -> str:
    return "".join(f"[{k}]" if isinstance(k, int) else f".{k}" for k in path)[1:]


@pytest.mark.parametrize(("request_", "path", "key"), NUMBERS, ids=[_dotted(p) for _, p, _ in NUMBERS])
def test_each_number_outside_its_range_is_refused_naming_it(
    request_: Any, path: tuple[Any, ...], key: str, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(simulate_cli, "run_requests", _never)
    limits = contract.RANGES[key]
    span = limits.hi - limits.lo
    for value in (limits.lo if limits.above else limits.lo - span / 100, limits.hi + span / 100):
        err = refused("simulate", _with(request_, path, value), folder)
        assert f"{_dotted(path)}: expected a number in {limits}, got {value!r}" in err


@pytest.mark.parametrize("command", COMMANDS)
def test_a_missing_output_folder_is_refused_before_any_work(
    command: str, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(kernel, "_simulate_batch", _never)
    monkeypatch.setattr(simulate_cli, "run_requests", _never)
    monkeypatch.setattr(jsonio, "answer_each", _never)
    target = folder / "missing" / "out.jsonl"
    err = refused(command, BASES[command][0], folder, "-o", str(target))
    assert f"output: no such folder: '{target.parent}'" in err
    err = refused(command, BASES[command][0], folder, "-o", str(folder))
    assert f"output: is a folder: '{folder}'" in err
    assert not target.parent.exists()


def test_a_failed_write_is_one_line_naming_the_output(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def full(path: Any, data: Any) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(jsonio, "write_atomic", full)
    target = folder / "out.jsonl"
    err = refused("simulate", STRAIGHT_SHOT, folder, "-o", str(target))
    assert f"output: No space left on device: '{target}'" in err and not target.exists()


def test_the_output_file_is_written_atomically(folder: Path) -> None:
    target = folder / "answers.jsonl"
    target.write_text("old\n")
    status, out, _ = cli(
        "simulate", folder / "shot.json", json.dumps(STRAIGHT_SHOT).encode(), "-o", str(target)
    )
    assert status == 0 and out == "" and json.loads(target.read_text())["balls"]
    assert not list(folder.glob(".answers.jsonl.*"))  # no temporary file left behind


def test_a_non_finite_result_is_refused_in_its_place(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The ranges keep the kernel finite; should it ever write NaN, that request is refused
    # naming the number, and the other lines are still answered.
    real = contract.result_to_json

    def poisoned(result: Any, index: int) -> dict[str, Any]:
        out = real(result, index)
        return {**out, "duration": math.nan} if index == 1 else out

    monkeypatch.setattr(contract, "result_to_json", poisoned)
    status, out, err = cli("simulate", folder / "batch.jsonl", as_lines([STRAIGHT_SHOT] * 3))
    answers = [json.loads(line) for line in out.splitlines()]
    message = "answer.duration: nan cannot be written as JSON: this request has no answer"
    assert status == 2 and len(answers) == 3 and answers[1] == {"error": message, "line": 2}
    assert answers[0] == answers[2] and "balls" in answers[0]
    assert err.splitlines() == [f"piramida simulate: error: line 2: {message}"]
    monkeypatch.setattr(contract, "result_to_json", lambda result, index: {"x": [math.inf]})
    assert "answer.x[0]: inf cannot be written as JSON" in refused("simulate", STRAIGHT_SHOT, folder)


LONG = "x" * 1_000_000


@pytest.mark.parametrize(
    ("command", "request_", "field"),
    [
        ("simulate", {**STRAIGHT_SHOT, "table": LONG}, "table: unknown preset 'xxxx"),
        ("simulate", {**STRAIGHT_SHOT, LONG: 1}, "request['xxxx"),
        ("simulate", {**STRAIGHT_SHOT, "params": {"g\n": 1}}, "params['g\\n']: unknown field"),
        ("simulate", {**STRAIGHT_SHOT, "models": {"cushion": LONG}}, "models.cushion: expected one of"),
        ("referee", {**REFEREE_REQUESTS[0], "variant": LONG}, "variant: expected one of"),
        ("referee", {**REFEREE_REQUESTS[0], LONG: 1}, "['xxxx"),
        ("referee", {**REFEREE_REQUESTS[0], "declared_frozen": {LONG: "back"}}, "declared_frozen['xxxx"),
        ("referee", {**REFEREE_REQUESTS[0], "placement_warned": LONG}, "placement_warned: expected true"),
    ],
    ids=["preset", "key", "newline-key", "model", "variant", "referee-key", "frozen-key", "warned"],
)
def test_a_long_value_is_quoted_cut_short(command: str, request_: Any, field: str, folder: Path) -> None:
    assert field in refused(command, request_, folder)  # in one line of under 500 characters
