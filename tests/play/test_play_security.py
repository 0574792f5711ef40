"""The play server refuses hostile requests: other Hosts, other Origins, bodies that are not JSON.

And whatever body a request carries (random bytes, random JSON, a valid move or position
with one value swapped for a hostile one), the answer is a JSON 4xx error naming it in a
few words and the game is left as it was, or the move is played: never a 5xx. The app is
built once per module (the first game compiles the referee's JAX programs).
"""

from __future__ import annotations

import copy
import errno
import json
import logging
import os
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from helpers.play_layouts import HUMAN_DECIDES, NEAR_END, WINNING_SHOT
from hypothesis import event, given, settings
from hypothesis import strategies as st
from hypothesis.control import currently_in_test_context
from starlette.testclient import TestClient

from piramida.play import engine
from piramida.play.games import Games, Settings
from piramida.play.server import create_app, local_hosts
from piramida.play.store import Store

GREEDY = Settings(bot="greedy", noise="none")
JSON_TYPE = "application/json"


def fuzz(examples: int) -> settings:
    """Hypothesis settings for `examples` requests (no deadline: a played shot runs the kernel)."""
    return settings(max_examples=examples, deadline=None)


@pytest.fixture(scope="module")
def store_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("games")


@pytest.fixture(scope="module")
def client(store_dir: Path) -> TestClient:
    return TestClient(create_app(store_dir, GREEDY, allowed_hosts=["testserver"]))


def saved(store_dir: Path) -> int:
    """How many games the store holds."""
    return len(list(store_dir.glob("*.json")))


def post(client: TestClient, url: str, body: bytes, content_type: str = JSON_TYPE) -> httpx2.Response:
    """POST `body`; assert the answer is JSON and, if refused, a short `{"error": ...}` (never a 5xx)."""
    response = client.post(url, content=body, headers={"Content-Type": content_type})
    assert response.status_code < 500, response.text[:1000]
    if currently_in_test_context():  # pytest --hypothesis-show-statistics: the answers the bodies got
        event(f"HTTP {response.status_code}")
    answer = response.json()
    if response.status_code >= 400:
        assert list(answer) == ["error"] and isinstance(answer["error"], str), answer
        assert len(answer["error"]) < 400, answer["error"][:1000]
    return response


def refused(response: httpx2.Response, status: int, words: str) -> None:
    assert response.status_code == status, response.text
    assert words in response.json()["error"]


class Target:
    """A game at `layout` for hostile moves to aim at; once a move is played, a fresh game replaces it."""

    def __init__(self, client: TestClient, layout: dict[str, Any]) -> None:
        self.client, self.layout = client, layout
        self.id = self.new()

    def new(self) -> str:
        response = self.client.post("/api/games", json={"state": self.layout, "seed": 1})
        assert response.status_code == 201, response.text
        game_id: str = response.json()["id"]
        return game_id

    def snapshot(self) -> dict[str, Any]:
        view: dict[str, Any] = self.client.get(f"/api/games/{self.id}").json()
        view.pop("server_time")
        return view

    def attempt(self, route: str, body: bytes) -> None:
        """Post `body` to the game's `route`: refused with the game unchanged, or played."""
        before = self.snapshot()
        response = post(self.client, f"/api/games/{self.id}/{route}", body)
        if response.status_code < 300:
            self.id = self.new()
        else:
            assert self.snapshot() == before


@pytest.fixture(scope="module")
def shooting(client: TestClient) -> Target:
    return Target(client, NEAR_END)


@pytest.fixture(scope="module")
def deciding(client: TestClient) -> Target:
    return Target(client, HUMAN_DECIDES)


@pytest.fixture(scope="module")
def record(client: TestClient, shooting: Target) -> str:
    """The record of a frame won by one shot (a header and one shot line)."""
    game = shooting.new()
    response = client.post(f"/api/games/{game}/shot", json=WINNING_SHOT)
    assert response.status_code == 200, response.text
    return client.get(f"/api/games/{game}/record").text


# --- Host, Origin, Content-Type -----------------------------------------------------------------


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8123", "localhost:9999", "127.0.0.1", ""])
def test_a_host_it_was_not_started_for_is_refused(host: str, tmp_path: Path) -> None:
    client = TestClient(create_app(tmp_path, GREEDY, allowed_hosts=local_hosts("127.0.0.1", 8123)))
    for response in (
        client.get("/", headers={"Host": host}),
        client.get("/api/table", headers={"Host": host}),
        client.post("/api/games", json={}, headers={"Host": host}),
    ):
        refused(response, 403, "Host")
    assert saved(tmp_path) == 0


@pytest.mark.parametrize("host", ["127.0.0.1:8123", "localhost:8123", "[::1]:8123", "LOCALHOST:8123"])
def test_the_hosts_it_was_started_for_are_served(host: str, tmp_path: Path) -> None:
    client = TestClient(create_app(tmp_path, GREEDY, allowed_hosts=local_hosts("127.0.0.1", 8123)))
    assert client.get("/api/table", headers={"Host": host}).status_code == 200
    origin = f"http://{host.lower()}"
    assert client.post("/api/games", json={}, headers={"Host": host, "Origin": origin}).status_code == 201


def test_local_hosts_name_the_loopback_and_the_bound_address() -> None:
    assert local_hosts("::1", 80) == ["[::1]", "localhost", "127.0.0.1"]
    assert local_hosts("192.168.1.5", 8000) == [
        "192.168.1.5:8000",
        "localhost:8000",
        "127.0.0.1:8000",
        "[::1]:8000",
    ]


@pytest.mark.parametrize(
    "origin",
    ["http://evil.example", "null", "http://testserver:8080", "https://testserver", "http://testserver.evil"],
)
def test_a_cross_origin_post_is_refused(client: TestClient, store_dir: Path, origin: str) -> None:
    before = saved(store_dir)
    refused(client.post("/api/games", json={}, headers={"Origin": origin}), 403, "Origin")
    refused(client.post("/api/replay", content=b"{}", headers={"Origin": origin}), 403, "Origin")
    assert saved(store_dir) == before
    assert client.get("/api/table", headers={"Origin": origin}).status_code == 200  # reading changes nothing


def test_a_same_origin_post_or_one_without_origin_is_served(client: TestClient) -> None:
    assert client.post("/api/games", json={}, headers={"Origin": "http://testserver"}).status_code == 201
    assert client.post("/api/games", json={}).status_code == 201


@pytest.mark.parametrize(
    ("content_type", "body"),
    [
        ("text/plain", b"{}"),
        ("text/plain;charset=UTF-8", b""),
        ("application/x-www-form-urlencoded", b"seed=1"),
        ("multipart/form-data; boundary=x", b"--x--"),
        ("", b"{}"),
    ],
)
def test_a_body_that_is_not_json_is_refused(
    client: TestClient, store_dir: Path, content_type: str, body: bytes
) -> None:
    before = saved(store_dir)
    headers = {"Content-Type": content_type} if content_type else {}
    refused(client.post("/api/games", content=body, headers=headers), 415, "Content-Type")
    assert saved(store_dir) == before


@pytest.mark.parametrize(
    "content_type", ["application/json; charset=utf-8", "application/jsonl", "APPLICATION/JSON"]
)
def test_json_types_are_served(client: TestClient, content_type: str) -> None:
    created = client.post("/api/games", content=b"{}", headers={"Content-Type": content_type})
    assert created.status_code == 201, created.text
    extension = client.post(f"/api/games/{created.json()['id']}/extension")  # no body, no type: served
    refused(extension, 409, "no shot clock")


@pytest.mark.parametrize("content_type", ["application/jsonl", "application/x-ndjson", JSON_TYPE])
def test_a_record_replays_as_json_lines(client: TestClient, record: str, content_type: str) -> None:
    response = post(client, "/api/replay", record.encode(), content_type)
    assert response.status_code == 200 and response.json()["report"]["reproduced"], response.text


def test_unknown_routes_and_methods_are_json(client: TestClient) -> None:
    refused(client.get("/api/nothing"), 404, "Not Found")
    refused(client.get("/static/nothing.js"), 404, "Not Found")
    refused(client.put("/api/table"), 405, "Method Not Allowed")


class BuggyGames(Games):
    def get(self, game_id: str) -> dict[str, Any]:
        raise RuntimeError("a bug in the server")


def test_a_bug_is_a_logged_json_500(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    games = BuggyGames(Store(tmp_path), GREEDY)
    client = TestClient(create_app(tmp_path, GREEDY, games, allowed_hosts=["testserver"]))
    with caplog.at_level(logging.ERROR, logger="piramida.play.server"):
        response = client.get("/api/games/0123456789abcdef")
    assert response.status_code == 500
    assert response.json() == {"error": "internal error: RuntimeError: a bug in the server"}
    assert any(r.exc_info and "a bug in the server" in str(r.exc_info[1]) for r in caplog.records)


# --- hostile bodies -----------------------------------------------------------------------------

BIG = "x" * 3_000_000  # within the body limit (4 MiB): the value, not the body, is refused
HOSTILE_SCALARS = st.sampled_from(
    [
        10**99,
        -(10**99),
        2**31,
        2**63,
        2**64,
        -1,
        1.7976931348623157e308,
        -1.7976931348623157e308,
        5e-324,
        -0.0,
        1e-300,
        1e16 + 1,
        "",
        "x" * 5000,
        "\u0000",
        "\ud800",
        "🎱",
        True,
        None,
        [],
        {},
    ]
)
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
    | HOSTILE_SCALARS
)


def nested(depth: int) -> Any:
    value: Any = 0
    for level in range(depth):
        value = [value] if level % 2 else {"a": value}
    return value


JSON_VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=16,
) | st.sampled_from([nested(60), nested(70)])
HOSTILE_TEXTS = st.sampled_from(
    [
        "NaN",
        '{"speed": Infinity}',
        "-Infinity",
        "1e400",
        "1" * 400,
        "1" * 5000,
        "[" * 200_000,
        '{"a":' * 100_000,
        '{"\\ud800": 1}',
        '{"ball": "\\udfff"}',
        "\ufeff{}",
        "{}" * 2,
        '{"seq": 0, "seq": 1}',
        "[]",
        '""',
        "0",
    ]
)


def as_body(value: Any) -> bytes:
    return json.dumps(value).encode()


def paths(value: Any) -> Iterator[tuple[Any, Any]]:
    """Every (container, key) inside `value`, and a new key in each object."""
    if isinstance(value, dict):
        yield value, "extra"
        items: Any = value.items()
    elif isinstance(value, list):
        items = enumerate(value)
    else:
        return
    for key, child in items:
        yield value, key
        yield from paths(child)


@st.composite
def mutated(draw: st.DrawFn, valid: Any) -> Any:
    """`valid` with one value somewhere inside it (or a new field) swapped for a hostile JSON value."""
    value = copy.deepcopy(valid)
    container, key = draw(st.sampled_from(list(paths(value))))
    container[key] = draw(JSON_VALUES)
    return value


def bodies(*valid: Any) -> st.SearchStrategy[bytes]:
    """Random bytes, hostile JSON text, random JSON values, and mutations of the `valid` bodies."""
    return st.one_of(
        st.binary(max_size=64),
        HOSTILE_TEXTS.map(str.encode),
        JSON_VALUES.map(as_body),
        *(mutated(v).map(as_body) for v in valid),
    )


SHOT = WINNING_SHOT | {"seq": 0, "theta": 0.0, "a": 0.0}
DECISION = {"seq": 0, "option": "shoot", "ball": 14}


@fuzz(150)
@given(body=bodies({"state": NEAR_END, "settings": {"variant": "free"}, "seed": 1}, {"state": HUMAN_DECIDES}))
def test_hostile_new_games_are_refused_or_made(client: TestClient, store_dir: Path, body: bytes) -> None:
    before = saved(store_dir)
    response = post(client, "/api/games", body)
    assert saved(store_dir) == before + (response.status_code == 201)


@fuzz(150)
@given(
    body=bodies(SHOT, SHOT | {"place": {"x": 0.8, "y": 0.5}, "call": {"ball": 13, "pocket": "front-left"}})
)
def test_hostile_shots_leave_the_game_as_it_was(shooting: Target, body: bytes) -> None:
    shooting.attempt("shot", body)


@fuzz(100)
@given(body=bodies(SHOT | {"contacts": 2}, SHOT | {"place": {"x": 0.8, "y": 0.5}, "contacts": 6}))
def test_hostile_aims_answer_paths_or_a_4xx_and_play_nothing(shooting: Target, body: bytes) -> None:
    before = shooting.snapshot()
    response = post(shooting.client, f"/api/games/{shooting.id}/aim", body)
    assert response.status_code in (200, 400, 409, 415, 422), response.text[:300]
    assert shooting.snapshot() == before  # an aim is never a move


def test_a_games_event_stream_is_json_or_a_json_404(client: TestClient, shooting: Target) -> None:
    refused(client.get("/api/games/0123456789abcdef/events"), 404, "no such game")
    refused(client.get("/api/games/not-a-game/events"), 404, "no such game")
    with client.stream("GET", f"/api/games/{shooting.id}/events?seq=-1") as stream:
        assert stream.headers["content-type"].startswith("text/event-stream")
        lines = stream.iter_lines()
        assert next(lines) == "retry: 500"
        data = next(line for line in lines if line.startswith("data: "))
    assert json.loads(data.removeprefix("data: "))["id"] == shooting.id  # the page's seq was not the game's


@fuzz(100)
@given(body=bodies(DECISION))
def test_hostile_decisions_leave_the_game_as_it_was(deciding: Target, body: bytes) -> None:
    deciding.attempt("decision", body)


@fuzz(60)
@given(data=st.data())
def test_hostile_records_are_refused(client: TestClient, record: str, data: st.DataObject) -> None:
    lines = [json.loads(line) for line in record.splitlines()]
    body = data.draw(
        st.one_of(
            bodies(),
            st.lists(JSON_VALUES, min_size=1, max_size=3).map(lambda vs: b"\n".join(map(as_body, vs))),
            mutated(lines).map(lambda ls: b"\n".join(map(as_body, ls))),
        )
    )
    post(client, "/api/replay", body, "application/jsonl")


def test_a_record_whose_stored_verdict_cannot_be_worded_is_refused(client: TestClient, record: str) -> None:
    header, shot = record.splitlines()
    entry = json.loads(shot)
    entry["verdict"]["scores"] = []  # the frame is over: "won, {scores[winner]}:..." has no score to name
    post(client, "/api/replay", f"{header}\n{json.dumps(entry)}".encode(), "application/jsonl")


@pytest.mark.parametrize(
    ("route", "body"),
    [
        ("shot", {**SHOT, "call": {"ball": BIG}}),
        ("shot", {**SHOT, BIG: 1}),
        ("decision", {"option": BIG}),
    ],
)
def test_a_huge_value_is_named_not_echoed(
    client: TestClient, shooting: Target, route: str, body: Any
) -> None:
    before = shooting.snapshot()
    response = post(client, f"/api/games/{shooting.id}/{route}", as_body(body))
    assert 400 <= response.status_code < 500 and shooting.snapshot() == before
    created = post(client, "/api/games", as_body({"settings": {"variant": BIG}}))
    refused(created, 422, "settings.variant")


# --- starting positions ---------------------------------------------------------------------------

R = engine.DIMS.R
# Ball 15 on a shelf, ball 0 and the other 14 on the table: every id is placed once.
ON_ONE_POINT = {
    "variant": "free",
    "balls": [{"id": b, "x": 0.8875, "y": 2.0} for b in range(15)],
    "shelves": [[15], []],
}


def near_end_with(ball_15: dict[str, float]) -> dict[str, Any]:
    """NEAR_END with ball 15 moved to `ball_15`."""
    return NEAR_END | {"balls": [*NEAR_END["balls"][:3], {"id": 15, **ball_15}]}


@pytest.mark.parametrize(
    ("state", "words"),
    [
        (ON_ONE_POINT, "state.balls: balls 0 and 1 overlap by 68.000 mm"),
        (near_end_with({"x": 1.2, "y": 3.05}), "state.balls: balls 14 and 15 overlap"),
        (near_end_with({"x": 0.01, "y": 0.02}), "the front-left pocket (the ball has dropped)"),
        (near_end_with({"x": 0.01, "y": 1.5}), "state.balls: ball 15: centre (0.0100, 1.5000)"),
    ],
)
def test_a_starting_position_the_kernel_could_not_start_from_is_refused(
    client: TestClient, store_dir: Path, state: dict[str, Any], words: str
) -> None:
    # 15 balls on one point were accepted (201), and shots and bot moves played from it.
    before = saved(store_dir)
    refused(post(client, "/api/games", as_body({"state": state})), 422, words)
    assert saved(store_dir) == before


def overlapping(balls: list[dict[str, Any]]) -> bool:
    """Whether two of `balls` overlap (by more than the kernel's 5 um slack between balls at rest)."""
    return any(
        ((a["x"] - b["x"]) ** 2 + (a["y"] - b["y"]) ** 2) ** 0.5 < 2 * R - 5e-6
        for k, a in enumerate(balls)
        for b in balls[k + 1 :]
    )


def dropped(ball: dict[str, Any]) -> bool:
    """Whether a centre is inside a pocket's capture circle."""
    centres, radii = engine.SETUP.table.pocket_centre.tolist(), engine.SETUP.table.pocket_radius.tolist()
    return any(
        ((ball["x"] - x) ** 2 + (ball["y"] - y) ** 2) ** 0.5 < r
        for (x, y), r in zip(centres, radii, strict=True)
    )


# Centres on a coarse grid (a ball's width apart or less, near the cushions and pockets too),
# so that overlaps, frozen balls and balls in the jaws come often.
COORDINATE = st.integers(0, 40)


@fuzz(120)
@given(spots=st.lists(st.tuples(COORDINATE, COORDINATE), min_size=2, max_size=16))
def test_random_starting_positions_are_made_only_when_the_kernel_could_start_from_them(
    client: TestClient, store_dir: Path, spots: list[tuple[int, int]]
) -> None:
    width, length = engine.DIMS.width, engine.DIMS.length
    balls = [
        {"id": b, "x": 0.001 + i * (width - 0.002) / 40, "y": 0.001 + j * (length - 0.002) / 40}
        for b, (i, j) in enumerate(spots)
    ]
    rest = list(range(len(balls), 16))
    state = {"variant": "free", "balls": balls, "shelves": [rest[::2], rest[1::2]], "phase": "normal"}
    before = saved(store_dir)
    response = post(client, "/api/games", as_body({"state": state}))
    assert response.status_code in (201, 422)
    assert saved(store_dir) == before + (response.status_code == 201)
    if overlapping(balls) or any(dropped(b) for b in balls):
        assert response.status_code == 422 and response.json()["error"].startswith("state.balls: ")
    event(f"HTTP {response.status_code}")


# --- stored games -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def stored(client: TestClient, store_dir: Path) -> dict[str, Any]:
    """A game's file as the server wrote it (a position the human is to shoot from)."""
    game_id = client.post("/api/games", json={"state": NEAR_END, "seed": 1}).json()["id"]
    saved_game: dict[str, Any] = json.loads((store_dir / f"{game_id}.json").read_text())
    return saved_game


def store(store_dir: Path, game: Any) -> str:
    """Write `game` as a new game's file (its id set where it has one); the id."""
    game_id = secrets.token_hex(8)
    if isinstance(game, dict) and "id" in game:
        game = game | {"id": game_id}
    (store_dir / f"{game_id}.json").write_text(json.dumps(game))
    return game_id


ROUTES = [
    ("GET", ""),
    ("GET", "/record"),
    ("GET", "/events"),
    ("POST", "/shot"),
    ("POST", "/aim"),
    ("POST", "/decision"),
    ("POST", "/bot"),
    ("POST", "/extension"),
    ("POST", "/rematch"),
]


def every_route(client: TestClient, game_id: str) -> list[httpx2.Response]:
    """The game's every route: none may answer 5xx (`post`'s checks)."""
    answers = []
    for method, route in ROUTES:
        url = f"/api/games/{game_id}{route}"
        if method == "GET":
            answer = client.get(url, params={"seq": "-1"} if route == "/events" else None)
            assert answer.status_code < 500, answer.text[:300]
            answers.append(answer)
        else:
            body = as_body(WINNING_SHOT if route in ("/shot", "/aim") else {})
            answers.append(post(client, url, body))
    return answers


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda g: {}, "id: missing"),
        (lambda g: [g], "expected a game (an object), got list"),
        (lambda g: {k: v for k, v in g.items() if k != "state"}, "state: missing"),
        (
            lambda g: g | {"settings": g["settings"] | {"variant": "snooker"}},
            "settings.variant: expected one of",
        ),
        (
            lambda g: g | {"settings": g["settings"] | {"bot": "/tmp/policy.zip"}},
            "settings.bot: expected one of",
        ),
        (lambda g: g | {"settings": "free"}, "settings: expected an object"),
        (lambda g: g | {"state": ON_ONE_POINT}, "state.balls: balls 0 and 1 overlap"),
        (lambda g: g | {"clock": {}}, "clock.started: missing"),
        (
            lambda g: g | {"record": [{"kind": "cheat"}]},
            "record[0]: expected an object of kind shot or decision",
        ),
        (lambda g: g | {"seq": -1}, "seq: expected an integer"),
        (lambda g: g | {"version": 2}, "version: expected 1, got 2"),
    ],
)
def test_a_stored_file_that_is_no_game_is_422_naming_the_file_and_the_field(
    client: TestClient, store_dir: Path, stored: dict[str, Any], change: Any, words: str
) -> None:
    # `{}`, a file without `state`, bad settings: each was a 500 (KeyError, ValueError).
    game_id = store(store_dir, change(copy.deepcopy(stored)))
    for answer in every_route(client, game_id):
        refused(answer, 422, f"game file {game_id}.json: {words}")


@fuzz(60)
@given(data=st.data())
def test_hostile_stored_games_are_read_or_refused(
    client: TestClient, store_dir: Path, stored: dict[str, Any], data: st.DataObject
) -> None:
    game_id = secrets.token_hex(8)
    text = data.draw(
        st.one_of(
            st.binary(max_size=64),
            HOSTILE_TEXTS.map(str.encode),
            JSON_VALUES.map(as_body),
            mutated(stored).map(
                lambda game: as_body(game | {"id": game_id} if isinstance(game, dict) else game)
            ),
        )
    )
    (store_dir / f"{game_id}.json").write_bytes(text)
    answer = client.get(f"/api/games/{game_id}")
    assert answer.status_code in (200, 422), answer.text[:300]
    if answer.status_code == 422:
        assert answer.json()["error"].startswith(f"game file {game_id}.json: ")
    assert client.get(f"/api/games/{game_id}/record").status_code in (200, 422)
    post(client, f"/api/games/{game_id}/extension", b"")
    event(f"HTTP {answer.status_code}")


# --- a full disk ------------------------------------------------------------------------------------


def test_a_full_disk_is_507_and_changes_nothing(
    client: TestClient, store_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A full disk was a 500 OSError.
    deciding = client.post("/api/games", json={"state": HUMAN_DECIDES, "seed": 1}).json()["id"]
    before = client.get(f"/api/games/{deciding}").json()
    files = saved(store_dir)

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    refused(client.post("/api/games", json={"seed": 1}), 507, "cannot write it (No space left on device)")
    answer = client.post(f"/api/games/{deciding}/decision", json=DECISION)
    refused(
        answer, 507, f"game file {deciding}.json: cannot write it (No space left on device); nothing changed"
    )
    monkeypatch.undo()
    after = client.get(f"/api/games/{deciding}").json()
    assert saved(store_dir) == files and after | {"server_time": 0} == before | {"server_time": 0}
    assert not list(store_dir.glob(".*.tmp"))
