"""The page as a new player found it, and what was done about it, in headless Chromium.

A slow pull of the cue shoots; power is said in words; every move number shows; on a phone
held upright the table stands upright and fills the screen; each rule cited opens in plain
words, and a Rules panel explains each game; practice takes shots back and gives hints;
a replay link opens a finished frame. The server is `conftest.py`'s (greedy).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers.play_layouts import HUMAN_DECIDES, NEAR_END, WINNING_SHOT
from pagekit import (
    PLAYBACK,
    SCREENS,
    TIMEOUT_MS,
    at,
    game,
    new_game,
    no_warming,
    open_page,
    shot,
    wait_idle_for_human,
)
from playwright.sync_api import Browser, Page

from piramida.agents import ladder as levels
from piramida.play import engine

pytestmark = pytest.mark.slow
PRACTICE = {"bot": "greedy", "level": "easy", "noise": "amateur", "practice": True}


def win_the_frame(page: Page) -> None:
    """Near the end of a frame (`NEAR_END`): pick the coloured ball and pot the last ball."""
    page.wait_for_selector("body[data-busy=idle]", state="attached")
    page.mouse.click(*at(page, 0.40, 0.40))  # Free: pick the ball to strike (G4.3)
    page.evaluate(
        "([phi, b]) => Object.assign(window.piramida.ui, {phi, b})", [WINNING_SHOT["phi"], WINNING_SHOT["b"]]
    )
    page.locator("#power").fill(str(WINNING_SHOT["speed"]))
    page.click("#shoot")
    page.wait_for_selector("#over:not([hidden])")


def test_a_slow_pull_in_small_steps_shoots_and_power_is_said_in_words(
    browser: Browser, base_url: str
) -> None:
    with open_page(browser, SCREENS["desktop"]) as page:
        new_game(page, base_url, seed=13)
        page.wait_for_selector("body[data-busy=idle]", state="attached")
        assert (page.inner_text("#power-word"), page.inner_text("#power-ms")) == ("very hard", "8.0 m/s")
        page.locator("#power").fill("1")
        assert (page.inner_text("#power-word"), page.inner_text("#power-ms")) == ("soft", "1.0 m/s")
        x, y = page.evaluate("window.piramida.ui.place")
        page.mouse.move(*at(page, x, y - 0.5))  # on the cue, which lies towards the house end
        page.mouse.down()
        page.mouse.move(*at(page, x, y - 0.6), steps=50)  # 10 cm back in 2 mm steps: a slow pull
        assert page.inner_text("#power-word") == "firm"  # about 3.3 m/s
        assert 3.0 <= float(page.input_value("#power")) < 4.5
        page.mouse.up()  # let go: the shot
        page.wait_for_function("window.piramida.positions() !== null")
        wait_idle_for_human(page)
        first = game(page)["log"][0]
        assert first["by"] == 0 and page.evaluate("window.busyLog").count("thinking-referee") == 1


def play_moves(page: Page, base_url: str, count: int) -> str:
    """A game played through the API until its log has `count` moves (greedy replies); its id.

    A request waits as long as the page does: the bot's first move on this server may compile
    it (API requests otherwise give up after 30 s).
    """
    view: dict[str, Any] = page.request.post(
        f"{base_url}/api/games", data={"seed": 21}, timeout=TIMEOUT_MS
    ).json()
    url = f"{base_url}/api/games/{view['id']}"
    while len(view["log"]) < count:
        assert view["to_move"] != "over", "the frame ended too soon"
        if view["to_move"] == "bot":
            answer = page.request.post(f"{url}/bot", data={"seq": view["seq"]}, timeout=TIMEOUT_MS)
        elif view["pending"]:
            decision = {"seq": view["seq"], **view["pending"]["default"]}
            answer = page.request.post(f"{url}/decision", data=decision, timeout=TIMEOUT_MS)
        else:
            assert view["region"] in (None, "house"), view["region"]
            nearest = min(view["state"]["balls"], key=lambda b: b["y"])["id"]  # Free: any ball (G4.3)
            ball = 0 if view["region"] else view["own_ball"] if view["own_ball"] is not None else nearest
            body = {"seq": view["seq"], "ball": ball, "speed": 4.0, "phi": 80.0 + 5 * len(view["log"])}
            if view["region"]:
                body["place"] = {"x": engine.DIMS.width / 2, "y": 0.6}
            answer = page.request.post(f"{url}/shot", data=body, timeout=TIMEOUT_MS)
        assert answer.ok, answer.text()
        view = answer.json()["game"]
    return str(view["id"])


def test_the_moves_list_shows_every_number_past_ten(browser: Browser, base_url: str) -> None:
    with open_page(browser, SCREENS["desktop"]) as page:
        game_id = play_moves(page, base_url, 12)
        page.goto(f"{base_url}/?game={game_id}&speed={PLAYBACK}")
        wait_idle_for_human(page)
        page.click("#log-box summary")
        numbers = page.eval_on_selector_all("#log .n", "els => els.map(e => e.textContent)")
        assert len(numbers) >= 12 and numbers == [f"{k}." for k in range(1, len(numbers) + 1)]
        log = page.locator("#log").bounding_box()
        tenth = page.locator("#log li:nth-child(10) .n").bounding_box()
        assert log is not None and tenth is not None
        assert tenth["x"] >= log["x"] and tenth["width"] >= 2 * 6  # "10." whole, inside the list
        shot(page, "play-moves-past-ten")


def test_the_level_list_names_each_level_with_its_measured_rating(browser: Browser, base_url: str) -> None:
    rated = [level for level in levels.LEVELS if level.rating is not None]
    assert len(rated) >= 5  # the ladder's measured levels
    with open_page(browser, SCREENS["desktop"]) as page:
        no_warming(page)  # a level is picked below: its bot need not compile
        new_game(page, base_url, seed=5)
        options = "all => all.map((o) => [o.value, o.textContent])"
        names = dict(page.eval_on_selector_all("#opponent option", options))
        for level in rated:
            assert names[level.name] == f"{level.name} · {level.rating}"
        page.click("#new-game summary")  # the level list is in the New game menu
        page.select_option("#opponent", rated[0].name)
        assert f"Rated {rated[0].rating}" in page.inner_text("#opponent-line")


def test_on_a_phone_held_upright_the_table_stands_upright_and_fills_the_screen(
    browser: Browser, base_url: str
) -> None:
    width, height = SCREENS["phone"]
    with open_page(browser, (width, height), touch=True) as page:
        new_game(page, base_url, seed=11)
        page.wait_for_selector("body[data-busy=idle]", state="attached")
        box = page.locator("#table").bounding_box()
        assert box is not None
        assert box["height"] > 1.6 * box["width"]  # upright: the long axis vertical
        assert box["height"] >= 0.65 * height and box["width"] >= 0.8 * width, box
        drawn = page.evaluate("window.piramida.view()")
        assert drawn["upright"] and 2 * engine.DIMS.R * drawn["pxPerMetre"] >= 10  # balls 10 px across
        house = at(page, engine.DIMS.width / 2, 0.0)
        back = at(page, engine.DIMS.width / 2, float(engine.SETUP.table.length))
        assert house[1] > back[1]  # the house end at the bottom, by the player's thumb
        shoot = page.locator("#shoot").bounding_box()
        assert shoot is not None and shoot["y"] + shoot["height"] <= height and shoot["y"] > box["y"]
        shot(page, "play-phone-upright")
        page.tap("#shoot")  # by touch: the break
        page.wait_for_function("window.piramida.game().seq >= 1")
        wait_idle_for_human(page)


def test_each_rule_cited_opens_in_plain_words_and_the_rules_panel_explains_each_game(
    page: Page, base_url: str
) -> None:
    new_game(page, base_url, state=HUMAN_DECIDES)
    page.wait_for_selector("#decision:not([hidden])")
    assert "the chosen one is ringed in red" in page.inner_text("#decision-text")  # Free: no numbers
    page.mouse.click(*at(page, 1.2, 3.0))
    page.click("#decision-buttons button[data-option=shoot]")
    wait_idle_for_human(page)
    page.click("#rules summary")
    page.click("#rules-text button.cite:text-is('FREE-7')")
    opened = page.inner_text("#rules-text .cite-text")
    assert opened.startswith("FREE-7: Free: after a foul the opponent takes any ball from the table")
    page.click("#rules-text button.cite:text-is('FREE-7')")
    assert page.locator("#rules-text .cite-text").count() == 0  # the same button closes it
    page.click("#rules-box summary")
    variants = page.eval_on_selector_all("#rules-variants section", "els => els.map(e => e.dataset.variant)")
    assert variants == ["free", "combined", "dynamic", "classic"]  # the game on the table first
    free = page.inner_text("#rules-variants section[data-variant=free]")
    for point in ("Aim", "Scoring", "Fouls", "Penalties", "Be the first to pot eight balls."):
        assert point in free
    assert "71 points" in page.inner_text("#rules-variants section[data-variant=classic]")
    shot(page, "play-rules")


def test_practice_takes_a_shot_back_and_hints_the_bots_choice(page: Page, base_url: str) -> None:
    new_game(page, base_url, settings=PRACTICE, state=NEAR_END)
    assert page.is_visible("#practice") and page.is_disabled("#undo")
    win_the_frame(page)
    assert page.inner_text("#headline") == "You potted a ball. You won the frame 8:5."
    page.click("#undo")
    page.wait_for_function("window.piramida.game().seq === 2 && document.body.dataset.busy === 'idle'")
    view = game(page)
    assert view["to_move"] == "human" and view["state"]["balls"] == NEAR_END["balls"]
    assert page.is_hidden("#over")
    assert page.inner_text("#headline") == "You took back your last shot: play it again."
    page.click("#hint")
    page.wait_for_function("window.piramida.hint() !== null")
    hint = page.evaluate("window.piramida.hint()")
    assert page.evaluate("window.piramida.ui.phi") == pytest.approx(hint["strike"]["phi"])
    assert page.evaluate("window.piramida.ui.own") == hint["strike"]["ball"]
    assert "Hint: the bot would play this" in page.inner_text("#hint-out")
    page.wait_for_function("window.piramida.aimLine() !== null")  # the bot's choice, drawn on the table
    assert page.evaluate("window.piramida.aimLine()[0].ball") == hint["strike"]["ball"]
    shot(page, "play-practice-hint")


def test_a_replay_link_opens_the_finished_frame_and_its_file_downloads(
    browser: Browser, base_url: str
) -> None:
    with open_page(browser, SCREENS["desktop"]) as page, open_page(browser, SCREENS["small"]) as friend:
        game_id = new_game(page, base_url, state=NEAR_END)
        win_the_frame(page)
        link = page.get_attribute("#replay-link", "href")
        assert link == f"/?replay={game_id}"
        with page.expect_download() as download:
            page.click("#share-file")
        record = Path(download.value.path()).read_text()
        lines = record.splitlines()
        assert lines[0].startswith('{"format": "piramida-match"') and len(lines) == 2  # the header, the shot
        friend.goto(f"{base_url}{link}&speed={PLAYBACK}")
        friend.wait_for_selector("#replay:not([hidden])")
        friend.wait_for_function("document.getElementById('replay-at').textContent === 'move 1 of 1'")
        friend.wait_for_function("document.body.dataset.busy === 'idle'")
        assert "1 move; verdicts reproduced" in friend.inner_text("#replay-report")
        assert friend.inner_text("#headline") == "The player potted a ball. The player won the frame 8:5."
        assert f"?replay={game_id}" in friend.url
        shot(friend, "play-replay-link")


def test_practice_places_the_balls_by_hand(page: Page, base_url: str) -> None:
    new_game(page, base_url, settings=PRACTICE, state=NEAR_END)
    page.wait_for_selector("body[data-busy=idle]", state="attached")
    page.click("#place-balls")
    assert page.inner_text("#place-balls") == "Play from here" and page.is_disabled("#shoot")
    page.mouse.move(*at(page, 1.2, 3.0))  # ball 14
    page.mouse.down()
    page.mouse.move(*at(page, 1.0, 2.0), steps=6)
    page.mouse.up()
    page.click("#place-balls")
    page.wait_for_function("window.piramida.game().seq === 1 && document.body.dataset.busy === 'idle'")
    moved = next(b for b in game(page)["state"]["balls"] if b["id"] == 14)
    assert (moved["x"], moved["y"]) == pytest.approx((1.0, 2.0), abs=0.02)
    assert page.inner_text("#headline") == "You placed the balls: play from here."
    assert page.inner_text("#place-balls") == "Place balls"
    page.mouse.click(*at(page, 0.40, 0.40))  # Free: pick the ball to strike, and play from here
    assert not page.is_disabled("#shoot")
    shot(page, "play-practice-placed")
