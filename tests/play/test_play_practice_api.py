"""Through the API: the rules in plain words, the bot's readiness, practice (take back, hint), replay links.

The bot is `greedy` without cue noise (it compiles in seconds); a held bot (`HeldBot`) stands
for one whose first move compiles for minutes, so the test sees it "preparing" however fast
the machine is.
"""

from __future__ import annotations

import re
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from helpers.play_bots import HeldBot
from helpers.play_layouts import NEAR_END, WINNING_SHOT
from starlette.testclient import TestClient

from piramida.play import rulebook, words
from piramida.play.games import Games, Settings
from piramida.play.server import create_app
from piramida.play.store import Store
from piramida.rules.verdict import RULE_IDS

GREEDY = Settings(bot="greedy", noise="none")
PRACTICE = {"bot": "greedy", "noise": "none", "practice": True}


def make_client(directory: Path, games: Games | None = None) -> TestClient:
    return TestClient(create_app(directory, GREEDY, games, allowed_hosts=["testserver"]))


def new_game(client: TestClient, **body: Any) -> dict[str, Any]:
    response = client.post("/api/games", json=body)
    assert response.status_code == 201, response.text
    game: dict[str, Any] = response.json()
    return game


def test_every_rule_the_referee_cites_has_a_plain_sentence_and_every_game_its_summary(tmp_path: Path) -> None:
    served = make_client(tmp_path).get("/api/rules").json()
    assert served == rulebook.packaged()
    missing = [rule for rule in RULE_IDS if rule not in served["rules"]]
    assert not missing, missing
    cited_by_words = {
        rule
        for table in (words.FOULS, words.DECISIONS, words.REGIONS)
        for text in table.values()
        for rule in re.findall(r"\b(?:G\d+(?:\.\d+)?|(?:COMB|DYN)-\d+(?:\.\d+)?)\b", text)
    }
    assert cited_by_words and cited_by_words <= set(served["rules"])
    assert "penalty ball" in served["rules"]["FREE-7"]
    assert [v["name"] for v in served["variants"]] == ["free", "combined", "dynamic", "classic"]
    for variant in served["variants"]:
        points = [point["name"] for point in variant["points"]]
        assert {"Aim", "Scoring", "Fouls", "Penalties"} <= set(points), (variant["title"], points)
    assert "71" in served["variants"][3]["points"][0]["text"]


def test_a_rulebook_without_its_section_is_refused() -> None:
    with pytest.raises(rulebook.RulebookError, match="no section"):
        rulebook.load("# The referee\n\nno plain words here\n")
    with pytest.raises(rulebook.RulebookError, match="has no points"):
        rulebook.load(f"{rulebook.SECTION}\n\n| G6 | a sentence |\n\n### Free pyramid\n\nno points\n")


def test_the_bot_says_when_its_first_move_compiles_and_warms_when_picked(tmp_path: Path) -> None:
    release = threading.Event()
    games = Games(Store(tmp_path), GREEDY, agent_of=lambda settings: HeldBot(release))
    client = make_client(tmp_path, games)
    game = new_game(client, state=NEAR_END | {"turn": 1})
    assert game["bot"] == {"state": "cold"}
    assert client.get(f"/api/games/{game['id']}/bot").json() == {"state": "cold"}
    moved: dict[str, Any] = {}
    mover = threading.Thread(
        target=lambda: moved.update(r=client.post(f"/api/games/{game['id']}/bot", json={}))
    )
    mover.start()
    deadline = time.monotonic() + 30
    while client.get(f"/api/games/{game['id']}/bot").json()["state"] != "preparing":
        assert time.monotonic() < deadline, "the bot never said it was preparing"
        time.sleep(0.05)
    status = client.get(f"/api/games/{game['id']}/bot").json()
    assert status["seconds"] >= 0
    # Another level picked meanwhile: its own bot warms in the background, and says so.
    picked = client.post("/api/warm", json={"settings": {"bot": "search", "level": "easy"}})
    assert picked.status_code == 200 and picked.json()["state"] == "preparing"
    release.set()
    mover.join(120)
    assert moved["r"].status_code == 200, moved["r"].text
    assert client.get(f"/api/games/{game['id']}/bot").json() == {"state": "ready"}
    assert client.post("/api/warm", json={"settings": {"bot": "greedy", "noise": "none"}}).json() == {
        "state": "ready"
    }
    deadline = time.monotonic() + 120
    while client.post("/api/warm", json={"settings": {"bot": "search", "level": "easy"}}).json()["state"] != (
        "ready"
    ):
        assert time.monotonic() < deadline, "the picked level never became ready"
        time.sleep(0.2)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"settings": {"level": "hardest"}}, "settings.level: expected one of easy, medium"),
        ({"settings": 5}, "settings: expected an object"),
        ({"level": "easy"}, "level"),
        ({"settings": {"practice": "yes"}}, "settings.practice: expected true or false"),
    ],
)
def test_warming_a_bad_level_is_422_naming_the_field(tmp_path: Path, body: Any, message: str) -> None:
    response = make_client(tmp_path).post("/api/warm", json=body)
    assert response.status_code == 422 and message in response.json()["error"], response.text


def test_practice_takes_back_the_last_shot_and_the_bots_replies(tmp_path: Path) -> None:
    client = make_client(tmp_path)
    game = new_game(client, settings=PRACTICE, state=NEAR_END)
    url = f"/api/games/{game['id']}"
    nothing = client.post(f"{url}/undo", json={})
    assert nothing.status_code == 409 and "nothing to take back" in nothing.json()["error"]
    missed = client.post(f"{url}/shot", json=WINNING_SHOT | {"phi": 60.0, "speed": 2.0}).json()["game"]
    assert missed["to_move"] == "bot" or missed["state"]["phase"] == "decision"
    replied = client.post(f"{url}/bot", json={}).json()["game"]
    assert replied["seq"] >= 2 and len(replied["log"]) == 2
    stale = client.post(f"{url}/undo", json={"seq": 0})
    assert stale.status_code == 409 and "seq" in stale.json()["error"]
    undone = client.post(f"{url}/undo", json={"seq": replied["seq"]})
    assert undone.status_code == 200, undone.text
    back = undone.json()["game"]
    assert back["state"]["balls"] == game["state"]["balls"] and back["to_move"] == "human"
    assert back["seq"] == replied["seq"] + 1  # a new move number: other tabs and stale pages see the change
    assert [line["headline"] for line in back["log"]] == ["You took back your last shot: play it again."]
    assert undone.json()["move"]["animation"]["duration"] == 0
    record = client.get(f"{url}/record").text.splitlines()
    assert len(record) == 1  # the header only: the shot and the reply are gone from the record
    won = client.post(f"{url}/shot", json=WINNING_SHOT).json()["game"]
    assert won["to_move"] == "over"
    again = client.post(f"{url}/undo", json={}).json()["game"]  # a lost or won frame can be taken back too
    assert again["to_move"] == "human" and again["state"]["balls"] == game["state"]["balls"]


def test_practice_hints_are_the_bots_shot_unplayed(tmp_path: Path) -> None:
    client = make_client(tmp_path)
    game = new_game(client, settings=PRACTICE, state=NEAR_END)
    url = f"/api/games/{game['id']}"
    response = client.post(f"{url}/hint", json={"seq": 0})
    assert response.status_code == 200, response.text
    hint = response.json()
    assert hint["strike"]["ball"] in {b["id"] for b in NEAR_END["balls"]}
    assert hint["strike"]["speed"] > 0 and hint["place"] is None and hint["call"] is None
    assert hint["paths"][0]["ball"] == hint["strike"]["ball"]
    assert client.get(url).json()["seq"] == 0  # nothing was played
    played = client.post(f"{url}/shot", json={"seq": 0, **hint["strike"]})
    assert played.status_code == 200, played.text  # the hint is a shot the referee takes


def test_take_backs_and_hints_are_for_practice_games_only(tmp_path: Path) -> None:
    client = make_client(tmp_path)
    game = new_game(client, state=NEAR_END)
    for route in ("undo", "hint"):
        response = client.post(f"/api/games/{game['id']}/{route}", json={})
        assert response.status_code == 409 and "practice" in response.json()["error"], response.text
    practice = new_game(client, settings=PRACTICE, state=NEAR_END | {"turn": 1})
    out_of_turn = client.post(f"/api/games/{practice['id']}/hint", json={})
    assert out_of_turn.status_code == 409 and "not your turn" in out_of_turn.json()["error"]
    bad = client.post(f"/api/games/{practice['id']}/hint", json={"ball": 3})
    assert bad.status_code == 422 and "ball" in bad.json()["error"]


def test_a_replay_link_replays_the_frame_as_played(tmp_path: Path) -> None:
    client = make_client(tmp_path)
    game = new_game(client, state=NEAR_END)
    won = client.post(f"/api/games/{game['id']}/shot", json=WINNING_SHOT).json()
    response = client.get(f"/api/games/{game['id']}/replay")
    assert response.status_code == 200, response.text
    shown = response.json()
    assert shown["report"]["reproduced"] and len(shown["steps"]) == 1
    assert shown["steps"][0]["headline"] == "The player potted a ball. The player won the frame 8:5."
    assert shown["steps"][0]["animation"]["frames"] == won["move"]["animation"]["frames"]
    assert client.get("/api/games/0123456789abcdef/replay").status_code == 404


def test_practice_places_the_balls_freely_and_the_record_starts_there(tmp_path: Path) -> None:
    client = make_client(tmp_path)
    game = new_game(client, settings=PRACTICE, state=NEAR_END)
    url = f"/api/games/{game['id']}"
    moved = [ball | {"x": 1.0, "y": 2.0} if ball["id"] == 14 else ball for ball in NEAR_END["balls"]]
    response = client.post(f"{url}/layout", json={"seq": 0, "balls": moved})
    assert response.status_code == 200, response.text
    placed = response.json()["game"]
    assert placed["state"]["balls"] == moved and placed["seq"] == 1 and placed["to_move"] == "human"
    assert [line["headline"] for line in placed["log"]] == ["You placed the balls: play from here."]
    won = client.post(f"{url}/shot", json=WINNING_SHOT).json()["game"]
    assert won["to_move"] == "over"
    replayed = client.get(f"{url}/replay").json()
    assert replayed["report"]["reproduced"] and len(replayed["steps"]) == 1  # from the placed balls on
    assert replayed["steps"][0]["state"]["balls"] == moved


@pytest.mark.parametrize(
    ("balls", "message"),
    [
        (None, "balls: expected a list"),
        ([{"id": 0, "x": 0.4, "y": 0.4}], "balls: expected the balls on the table, each once: ids [0, 13"),
        ([{"id": "0", "x": 0.4, "y": 0.4}], "balls[0].id: expected an integer"),
        ([{"id": 0, "x": 0.4, "y": 0.4, "z": 1}, *NEAR_END["balls"][1:]], "z"),
        ([{"id": 0, "x": 0.14, "y": 0.14}, *NEAR_END["balls"][1:]], "layout.balls"),  # on ball 13
        ([{"id": 0, "x": 9.0, "y": 0.4}, *NEAR_END["balls"][1:]], "layout.balls"),  # off the cloth
    ],
)
def test_placing_balls_badly_is_422_naming_what_is_wrong(tmp_path: Path, balls: Any, message: str) -> None:
    client = make_client(tmp_path)
    game = new_game(client, settings=PRACTICE, state=NEAR_END)
    response = client.post(f"/api/games/{game['id']}/layout", json={"balls": balls})
    assert response.status_code == 422 and message in response.json()["error"], response.text
    assert client.get(f"/api/games/{game['id']}").json()["seq"] == 0  # nothing changed


def test_balls_are_placed_only_in_practice_when_the_human_shoots_from_the_position(tmp_path: Path) -> None:
    client = make_client(tmp_path)
    body = {"balls": NEAR_END["balls"]}
    match = new_game(client, state=NEAR_END)
    refused = client.post(f"/api/games/{match['id']}/layout", json=body)
    assert refused.status_code == 409 and "practice" in refused.json()["error"]
    rack = new_game(client, settings=PRACTICE, seed=1)  # the break: the coloured ball is in hand
    refused = client.post(f"/api/games/{rack['id']}/layout", json=body)
    assert refused.status_code == 409 and "where they lie" in refused.json()["error"]
