"""The play app's HTTP API: bad and out-of-turn requests change nothing, games are isolated and persist.

The bot is `greedy` (it compiles in seconds); every shot runs the real kernel and referee.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers.play_layouts import HUMAN_DECIDES, NEAR_END, WINNING_SHOT
from helpers.referee_helpers import FREE, table_state
from starlette.testclient import TestClient

import piramida.physics as ph
from piramida.agents import make_agent
from piramida.cli.main import main
from piramida.physics import kernel
from piramida.play import engine
from piramida.play.games import Games, Settings
from piramida.play.server import create_app
from piramida.play.store import Store
from piramida.rules import match
from piramida.training import checkpoint

GREEDY = Settings(bot="greedy", noise="none")
JSON = {"Content-Type": "application/json"}  # what the page sends with every body (server.py's checks)


def make_client(directory: Path, games: Games | None = None, defaults: Settings = GREEDY) -> TestClient:
    return TestClient(create_app(directory, defaults, games, allowed_hosts=["testserver"]))


@pytest.fixture
def client(tmp_path: Path) -> TestClient:
    return make_client(tmp_path)


def new_game(client: TestClient, **body: Any) -> dict[str, Any]:
    response = client.post("/api/games", json=body)
    assert response.status_code == 201, response.text
    game: dict[str, Any] = response.json()
    return game


def snapshot(client: TestClient, game_id: str) -> dict[str, Any]:
    view: dict[str, Any] = client.get(f"/api/games/{game_id}").json()
    view.pop("server_time")
    return view


def test_a_rematchs_seed_follows_from_the_frames(client: TestClient) -> None:
    # A match replays from its first frame's seed: each rematch's seed is the frame's, drawn
    # on, and the seed sets the rack (its jitter).
    game = new_game(client, seed=4)
    first, again = (client.post(f"/api/games/{game['id']}/rematch", json={}).json() for _ in range(2))
    assert first["id"] != again["id"] and first["state"] == again["state"]
    assert first["state"]["breaker"] == 1 - game["state"]["breaker"]
    other = client.post(f"/api/games/{new_game(client, seed=5)['id']}/rematch", json={}).json()
    assert other["state"]["balls"] != first["state"]["balls"]


def test_break_then_the_bot_replies_and_the_record_replays(client: TestClient) -> None:
    game = new_game(client, seed=3)
    assert (game["to_move"], game["state"]["phase"], game["region"]) == ("human", "break", "house")
    shot = {"seq": 0, "ball": 0, "speed": 8.0, "phi": 90.0, "place": {"x": 0.8875, "y": 0.6}}
    response = client.post(f"/api/games/{game['id']}/shot", json=shot)
    assert response.status_code == 200, response.text
    move = response.json()["move"]
    assert move["words"] and move["verdict"]["valid"]
    animation = move["animation"]
    assert len(animation["frames"]) > 10 and animation["frames"][0] != animation["frames"][-1]
    bot_moves = 0
    view = response.json()["game"]
    while view["to_move"] == "bot" and bot_moves < 6:
        reply = client.post(f"/api/games/{game['id']}/bot", json={"seq": view["seq"]})
        assert reply.status_code == 200, reply.text
        view = reply.json()["game"]
        bot_moves += 1
    assert bot_moves >= 1
    record = client.get(f"/api/games/{game['id']}/record")
    assert record.status_code == 200 and "attachment" in record.headers["content-disposition"]
    loaded = match.loads(record.text)
    assert len(loaded.entries) == view["seq"] and match.replay(loaded)["reproduced"]
    replayed = client.post("/api/replay", content=record.text, headers=JSON)
    assert replayed.status_code == 200, replayed.text
    body = replayed.json()
    assert body["report"]["reproduced"] and len(body["steps"]) == view["seq"]
    assert body["steps"][0]["animation"]["frames"] == animation["frames"]  # the break re-run exactly


BAD_REQUESTS = [
    ("shot", b"{not json", 400, "body: not valid JSON"),
    ("shot", {"ball": 0, "phi": 90.0}, 422, "speed: missing"),
    ("shot", {"ball": 0, "speed": "fast", "phi": 90.0}, 422, "speed: expected a finite number"),
    ("shot", {"ball": 0, "speed": 3.0, "phi": 90.0}, 422, "place: missing"),
    ("shot", {"ball": 3, "speed": 3.0, "phi": 90.0, "place": {"x": 0.8875, "y": 0.6}}, 422, "strike.ball"),
    (
        "shot",
        {"ball": 0, "speed": 3.0, "phi": 90.0, "place": {"x": 0.8875, "y": 2.0}},
        422,
        "place: the ball",
    ),
    ("shot", {"ball": 0, "speed": 30.0, "phi": 90.0, "place": {"x": 0.8875, "y": 0.6}}, 422, "strike.speed"),
    (
        "shot",
        {"ball": 0, "speed": 3.0, "phi": 90.0, "place": {"x": 0.8875, "y": 0.6}, "spin": 1},
        422,
        "spin",
    ),
    ("shot", {"seq": 5, "ball": 0, "speed": 3.0, "phi": 90.0, "place": {"x": 0.8875, "y": 0.6}}, 409, "seq"),
    ("decision", {"option": "shoot"}, 409, "no decision is pending"),
    ("bot", {}, 409, "not the bot's turn"),
    ("bot", {"frozen_warned": "yes"}, 422, "frozen_warned: expected true or false"),
    ("extension", None, 409, "no shot clock"),
]


@pytest.mark.parametrize(("route", "body", "status", "message"), BAD_REQUESTS)
def test_bad_requests_are_4xx_and_change_nothing(
    client: TestClient, route: str, body: Any, status: int, message: str
) -> None:
    game = new_game(client)
    before = snapshot(client, game["id"])
    url = f"/api/games/{game['id']}/{route}"
    response = (
        client.post(url, content=body, headers=JSON)
        if isinstance(body, bytes)
        else client.post(url, json=body)
    )
    assert response.status_code == status, response.text
    assert message in response.json()["error"]
    assert snapshot(client, game["id"]) == before


def test_G20_N2_the_bot_warned_or_not_about_a_frozen_ball() -> None:
    """G20 note 2: "Jeigu dviejų atskirų susidūrimų nebuvo, tai smūgis yra teisingas tik tada,
    jeigu varžovas įspėjo žaidėją, kad rutulys prieš smūgį palies bortą, priešingu atveju
    klaida." The own ball driven into ball 5, frozen against the left cushion, comes back
    off it (one collision) to the right cushion: legal only when warned (`frozen_warned`,
    the `bot` route's field for the human's warning).
    """
    frozen_x = float(kernel.contact_distance(ph.preset(), ph.PYRAMID_PARAMS, ph.Models()))
    where = {0: (0.6, 1.2), 5: (frozen_x, 1.2), 6: (1.2, 2.6)}
    rest = [b for b in range(1, 16) if b not in where]
    state = table_state(FREE, balls=where, shelves=(rest[:6], rest[6:]))
    strike = ph.Strike(ball=0, speed=2.0, phi=180.0, theta=0.0, a=0.0, b=0.0)
    warned = engine.simulate_shot(state, strike, frozen_warned=True).verdict
    assert warned["legal"] and {"G20(2.2)", "G20-N2"} <= set(warned["rules"])
    unwarned = engine.simulate_shot(state, strike, frozen_warned=False)
    assert not unwarned.verdict["legal"] and unwarned.verdict["foul"]["kinds"] == ["not-completed"]
    assert "G20-N2" in unwarned.verdict["rules"]
    assert unwarned.entry is not None and unwarned.entry["frozen_warned"] is False  # the record says so
    assert match.rejudge(unwarned.entry, FREE, engine.DIMS) == unwarned.entry["verdict"]


def test_unknown_games_and_bad_settings(client: TestClient) -> None:
    assert client.get("/api/games/0123456789abcdef").status_code == 404
    assert client.get("/api/games/..%2Fetc").status_code == 404
    assert client.post("/api/games/zz/shot", json={}).status_code == 404
    response = client.post("/api/games", json={"settings": {"variant": "snooker"}})
    assert response.status_code == 422 and "settings.variant" in response.json()["error"]
    response = client.post("/api/games", json={"state": {"variant": "free", "balls": []}})
    assert response.status_code == 422 and response.json()["error"].startswith("state.balls")
    classic = new_game(client, state=NEAR_END | {"variant": "classic"})
    assert classic["settings"]["variant"] == "classic"  # the position's own variant
    response = client.post("/api/replay", content="not a record", headers=JSON)
    assert response.status_code == 422 and response.json()["error"].startswith("record: line 1")


def test_out_of_turn_moves_are_409_and_change_nothing(client: TestClient) -> None:
    game = new_game(client, state=NEAR_END | {"turn": 1})  # the bot is to move
    before = snapshot(client, game["id"])
    response = client.post(f"/api/games/{game['id']}/shot", json=WINNING_SHOT)
    assert response.status_code == 409 and "not your turn" in response.json()["error"]
    assert snapshot(client, game["id"]) == before
    pending = new_game(client, state=HUMAN_DECIDES)
    response = client.post(f"/api/games/{pending['id']}/shot", json=WINNING_SHOT)
    assert response.status_code == 409 and "a decision is pending" in response.json()["error"]


def test_two_games_are_isolated(client: TestClient) -> None:
    one, two = new_game(client, state=NEAR_END), new_game(client, state=NEAR_END)
    before = snapshot(client, two["id"])
    response = client.post(f"/api/games/{one['id']}/shot", json=WINNING_SHOT)
    assert response.status_code == 200, response.text
    assert response.json()["game"]["to_move"] == "over"
    assert snapshot(client, two["id"]) == before
    over = client.post(f"/api/games/{one['id']}/shot", json=WINNING_SHOT)
    assert over.status_code == 409 and "over" in over.json()["error"]


def test_a_game_survives_a_new_app_over_the_same_state_dir(tmp_path: Path) -> None:
    first = make_client(tmp_path)
    game = new_game(first, state=HUMAN_DECIDES)
    decided = first.post(f"/api/games/{game['id']}/decision", json={"option": "shoot", "ball": 14})
    assert decided.status_code == 200, decided.text
    assert decided.json()["game"]["state"]["shelves"][0][-1] == 14  # FREE-7: the penalty ball
    before = snapshot(first, game["id"])
    again = make_client(tmp_path)  # a restarted server
    assert snapshot(again, game["id"]) == before
    response = again.post(f"/api/games/{game['id']}/shot", json=WINNING_SHOT)
    assert response.status_code == 200 and response.json()["game"]["to_move"] == "over"
    winner = response.json()["game"]["state"]["winner"]
    assert winner == 0 and "Game over: You won" in " ".join(response.json()["move"]["words"])


class BrokenBot:
    name = "broken"

    def act(self, states: Any, keys: Any) -> Any:
        raise RuntimeError("the bot tripped over its cue")


def test_a_bot_exception_does_not_lose_the_game(tmp_path: Path) -> None:
    bots: dict[str, Any] = {"bot": BrokenBot()}
    games = Games(Store(tmp_path), GREEDY, agent_of=lambda settings: bots["bot"])
    client = make_client(tmp_path, games)
    game = new_game(client, state=NEAR_END | {"turn": 1})
    before = snapshot(client, game["id"])
    response = client.post(f"/api/games/{game['id']}/bot", json={})
    assert response.status_code == 503 and "tripped over its cue" in response.json()["error"]
    after = snapshot(client, game["id"])
    assert after.pop("bot_error") and {k: v for k, v in before.items() if k != "bot_error"} == after
    games._agents.clear()
    bots["bot"] = make_agent("greedy")
    response = client.post(f"/api/games/{game['id']}/bot", json={})
    assert response.status_code == 200, response.text
    assert response.json()["game"]["seq"] == 1 and response.json()["game"]["bot_error"] is None


def test_the_shot_clock_of_G26(tmp_path: Path) -> None:
    client = make_client(tmp_path)
    game = new_game(client, state=NEAR_END, settings={"shot_clock": True})
    assert game["clock"]["on"] and game["clock"]["deadline"] is not None
    assert game["clock"]["extensions_left"] == 2  # a one-frame match is a level deciding frame
    extended = client.post(f"/api/games/{game['id']}/extension")
    assert extended.status_code == 200 and extended.json()["clock"]["extended"]
    assert client.post(f"/api/games/{game['id']}/extension").status_code == 409  # one per shot
    store = Store(tmp_path)
    saved = store.load(game["id"])
    saved["clock"]["started"] -= 100.0  # 100 s taken: over the extended 90 s
    store.save(saved)
    response = client.post(f"/api/games/{game['id']}/shot", json=WINNING_SHOT)
    verdict = response.json()["move"]["verdict"]
    assert verdict["foul"]["kinds"] == ["slow-play"] and "G26" in verdict["foul"]["rules"]
    assert "shot clock ran out" in response.json()["move"]["words"][0]


def test_cli_refuses_a_file_that_is_not_a_policy(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    checkpoint = tmp_path / "policy.zip"
    checkpoint.write_bytes(b"")
    assert main(["play", "--bot", str(checkpoint), "--no-browser", "--state-dir", str(tmp_path)]) == 2
    assert f"--bot '{checkpoint}': cannot load it as a policy" in capsys.readouterr().err


def test_a_saved_policy_is_the_bot_and_a_page_cannot_name_another_file(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    from stable_baselines3 import PPO

    from piramida.envs.sb3 import SB3VecEnv

    path = str(tmp_path / "policy.zip")
    PPO("MlpPolicy", SB3VecEnv(2, shot_limit=4), n_steps=8, batch_size=8, device="cpu", seed=0).save(path)
    untrusted = make_client(tmp_path / "untrusted", defaults=Settings(bot=path, noise="none"))
    game = new_game(untrusted, state=NEAR_END | {"turn": 1})
    response = untrusted.post(f"/api/games/{game['id']}/bot", json={})  # a foreign SB3 zip unpickles
    assert response.status_code == 503 and "zip without piramida metadata" in response.json()["error"]
    checkpoint.set_pickle_trusted(True)  # as `piramida play --trust-pickle` does
    request.addfinalizer(lambda: checkpoint.set_pickle_trusted(False))
    client = make_client(tmp_path / "games", defaults=Settings(bot=path, noise="none"))
    game = new_game(client, state=NEAR_END | {"turn": 1})
    response = client.post(f"/api/games/{game['id']}/bot", json={})
    assert response.status_code == 200, response.text
    assert response.json()["game"]["seq"] == 1 and response.json()["move"]["verdict"]["valid"]
    other = tmp_path / "other.zip"
    response = client.post("/api/games", json={"settings": {"bot": str(other)}})
    assert response.status_code == 422 and "settings.bot" in response.json()["error"]
