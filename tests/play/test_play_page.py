"""The page as a player meets it: any screen, levels, cue, aiming line, verdicts, motion, sound.

Three screen sizes (a 1280x800 desktop, an 800x600 window, a 390x844 phone held upright, by
touch); screenshots of each go to `tests/artifacts/`. The server is `conftest.py`'s (greedy).
With PIRAMIDA_DOCS_SCREENSHOT=1 the aiming test also writes the docs' pictures of the page,
`docs/play.png` and `docs/play_shot.gif`.
"""

from __future__ import annotations

import io
import itertools
import json
import os
import time
from pathlib import Path

import pytest
from helpers.play_layouts import NEAR_END, WINNING_SHOT
from pagekit import (
    ARTIFACTS,
    SCREENS,
    aim_line_waits,
    at,
    desktop,
    game,
    new_game,
    no_warming,
    open_page,
    shot,
    wait_idle_for_human,
)
from PIL import Image
from playwright.sync_api import Browser, Page

pytestmark = pytest.mark.slow
DOCS = Path(__file__).resolve().parents[2] / "docs"
CONTROLS = ("#table", "#power", "#spin", "#shoot", "#mute", "#headline")


@pytest.mark.parametrize("screen", list(SCREENS))
def test_the_whole_table_and_the_controls_fit_any_screen(
    browser: Browser, base_url: str, screen: str
) -> None:
    width, height = SCREENS[screen]
    with open_page(browser, (width, height), touch=screen == "phone") as page:
        new_game(page, base_url, seed=11)
        page.wait_for_selector("body[data-busy=idle]", state="attached")
        for selector in CONTROLS:
            box = page.locator(selector).bounding_box()
            assert box is not None, selector
            assert box["x"] >= 0 and box["y"] >= 0, (selector, box)
            assert box["x"] + box["width"] <= width + 1 and box["y"] + box["height"] <= height + 1, (
                selector,
                box,
            )
        scroll = page.evaluate(
            "[document.documentElement.scrollWidth, document.documentElement.scrollHeight]"
        )
        assert scroll[0] <= width and scroll[1] <= height, scroll  # nothing to scroll to
        button = page.locator("#shoot").bounding_box()
        assert button is not None and button["height"] >= 36  # a finger's size
        shot(page, "play-screen")
        if screen == "phone":  # by touch: a tap on Shoot breaks
            page.tap("#shoot")
            page.wait_for_function("window.piramida.game().seq >= 1")
            wait_idle_for_human(page)
            shot(page, "play-screen-after-break")


def test_the_page_waits_for_the_table_then_the_level_list_says_what_each_is(
    page: Page, base_url: str
) -> None:
    no_warming(page)  # "strongest" picked below: its search would compile for minutes
    page.goto(base_url)
    page.wait_for_selector("body[data-busy=idle]", state="attached")
    assert page.is_hidden("#preparing")
    ready = page.request.get(f"{base_url}/api/ready").json()
    assert ready["ready"] and ready["needed"] == 2
    options = page.eval_on_selector_all("#opponent option", "els => els.map(e => e.value)")
    assert options == ["novice", "beginner", "improver", "amateur", "club", "strongest"]
    page.click("#new-game summary")
    assert page.input_value("#opponent") == "amateur"  # this server's greedy at amateur noise
    page.select_option("#opponent", "strongest")
    assert "deepest search" in page.inner_text("#opponent-line")
    page.select_option("#opponent", "amateur")
    assert "easiest pot" in page.inner_text("#opponent-line")
    page.click("#start")
    page.wait_for_function("window.piramida.game().seq === 0 && document.body.dataset.busy === 'idle'")
    assert game(page)["settings"]["bot"] == "greedy"
    assert "Bot (amateur)" in page.inner_text("#players")


def test_aim_with_the_keys_and_the_kernels_line_follows(page: Page, base_url: str) -> None:
    new_game(page, base_url, state=NEAR_END)
    page.wait_for_selector("body[data-busy=idle]", state="attached")
    page.mouse.click(*at(page, 0.40, 0.40))  # pick the coloured ball (G4.3)
    page.evaluate(f"window.piramida.ui.phi = {WINNING_SHOT['phi']}")
    page.keyboard.press("ArrowLeft")  # fine aim: 0.1 degree a press
    assert page.evaluate("window.piramida.ui.phi") == pytest.approx(225.1)
    assert "Aim 225.1°" in page.inner_text("#aim-out")
    page.keyboard.press("Shift+ArrowRight")  # 1 degree
    assert page.evaluate("window.piramida.ui.phi") == pytest.approx(224.1)
    page.keyboard.press("Shift+ArrowLeft")
    page.keyboard.press("ArrowRight")
    assert page.evaluate("window.piramida.ui.phi") == pytest.approx(225.0)  # straight at the pocket
    page.wait_for_function("window.piramida.aimLine() !== null")
    paths = page.evaluate("window.piramida.aimLine()")
    assert [p["ball"] for p in paths] == [0, 13] and paths[1]["end"] == "pocket"  # 13 goes in
    # A new line after each change of aim. How soon it comes is `benchmarks/play_timings.py`'s
    # to measure (machines here are shared); that the server compiles nothing per aim is
    # `test_play_features.py`'s.
    waits, server = aim_line_waits(page)
    assert len(waits) == len(server) >= 11 and all(ms > 0 for ms in waits), (waits, server)
    assert page.evaluate("window.piramida.ui.phi") == pytest.approx(225.0)  # the twelve presses cancel out
    assert [p["ball"] for p in page.evaluate("window.piramida.aimLine()")] == [0, 13]
    ARTIFACTS.mkdir(exist_ok=True)  # this test may be its worker's first to write there
    (ARTIFACTS / "play_aim_timings.json").write_text(
        json.dumps({"page_ms": waits, "server_ms": server}) + "\n"
    )
    shot(page, "play-aim-line")
    if os.environ.get("PIRAMIDA_DOCS_SCREENSHOT") == "1" and desktop(page):
        disc = page.locator("#spin").bounding_box()
        assert disc is not None
        r = disc["width"] / 2 * (1 - 32 / 120)  # the disc: 16 of the canvas's 120 px in from its edge
        page.mouse.click(disc["x"] + disc["width"] / 2 + 0.3 * r, disc["y"] + disc["height"] / 2 + 0.4 * r)
        assert page.inner_text("#spin-out") == "draw 0.40, right 0.30"
        page.locator("#power").fill("2.5")  # 13 drops, the own ball draws back and swerves (a new line)
        page.wait_for_function("window.piramida.aimLine() !== null")
        page.screenshot(path=str(DOCS / "play.png"))
        write_gif(page, DOCS / "play_shot.gif")


def write_gif(page: Page, path: Path) -> None:
    """The aimed shot as a GIF of the board: the line, the cue's stroke, the balls until they stop."""
    box = page.locator("#board").bounding_box()
    assert box is not None
    frames: list[tuple[Image.Image, float]] = []

    def grab() -> None:
        image = Image.open(io.BytesIO(page.screenshot(clip=box))).convert("RGB")
        frames.append((image.resize((image.width // 2, image.height // 2)), time.monotonic()))

    for _ in range(3):
        grab()
    page.click("#shoot")
    while len(frames) < 80 and page.evaluate("document.body.dataset.busy") != "idle":
        grab()
    grab()
    durations = [max(40, round(1000 * (b[1] - a[1]))) for a, b in itertools.pairwise(frames)] + [1500]
    durations[:3] = [600, 600, 600]  # hold the aiming line
    images = [image.quantize(colors=96) for image, _ in frames]
    images[0].save(path, save_all=True, append_images=images[1:], duration=durations, loop=0, optimize=True)


def test_pull_the_cue_back_and_let_go(page: Page, base_url: str) -> None:
    new_game(page, base_url, seed=13)
    page.wait_for_selector("body[data-busy=idle]", state="attached")
    x, y = page.evaluate("window.piramida.ui.place")
    assert page.evaluate("window.piramida.ui.phi") == 90  # the break: the cue lies towards the house end
    grip = at(page, x, y - 0.5)
    page.mouse.move(*grip)
    page.mouse.down()
    page.mouse.move(*at(page, x, y - 0.5 - 0.12), steps=6)  # drawn 12 cm further back
    pulled = float(page.input_value("#power"))
    assert 6 < pulled <= 9  # from the break's 8 m/s: further back is harder, to the top of the range
    shot(page, "play-cue-pulled")
    page.mouse.up()  # let go: the shot
    page.wait_for_function("window.piramida.positions() !== null")
    wait_idle_for_human(page)
    first = game(page)["log"][0]
    assert first["by"] == 0 and page.evaluate("window.busyLog").count("thinking-referee") == 1
    assert page.evaluate("window.piramida.heard()")[:2] == ["cue", "ball"]  # the tip, then the rack


def test_the_verdict_comes_when_the_balls_stop_and_a_pocketed_ball_drops(page: Page, base_url: str) -> None:
    new_game(page, base_url, playback=1, state=NEAR_END)  # real time: the drop lasts a few frames
    page.wait_for_selector("body[data-busy=idle]", state="attached")
    page.mouse.click(*at(page, 0.40, 0.40))
    page.evaluate(
        "([phi, b]) => Object.assign(window.piramida.ui, {phi, b})", [WINNING_SHOT["phi"], WINNING_SHOT["b"]]
    )
    page.locator("#power").fill(str(WINNING_SHOT["speed"]))
    page.click("#mute")
    assert page.inner_text("#mute") == "Sound off" and page.evaluate("localStorage['piramida-muted']") == "1"
    page.click("#shoot")
    page.wait_for_function("window.piramida.cue() !== null")  # the cue's stroke before the balls move
    page.wait_for_function("window.piramida.positions() !== null")
    assert page.inner_text("#headline") == ""  # not while the balls roll
    page.wait_for_function(
        "(window.piramida.positions() || []).some(b => b[0] === 13 && b[3] < 1)"
    )  # it sinks
    page.wait_for_selector("#over:not([hidden])")
    assert page.inner_text("#headline") == "You potted a ball. You won the frame 8:5."
    assert page.is_hidden("#rules-text")
    page.click("#rules summary")
    assert "G22.2" in page.inner_text("#rules-text")
    assert "pocket" in page.evaluate("window.piramida.heard()")
    shot(page, "play-verdict")


def test_classic_reminds_to_call_and_a_second_tab_follows_live(browser: Browser, base_url: str) -> None:
    classic = NEAR_END | {"variant": "classic", "scores": [38, 50]}  # CLS-5.1: the shelves' values
    with open_page(browser, SCREENS["desktop"]) as first, open_page(browser, SCREENS["desktop"]) as second:
        game_id = new_game(first, base_url, state=classic)
        first.wait_for_selector("body[data-busy=idle]", state="attached")
        assert "Call a ball and a pocket before you shoot (CLS-5.2)" in first.inner_text("#status")
        assert first.inner_text("#shoot") == "Shoot without a call"
        second.goto(f"{base_url}/?game={game_id}")
        second.wait_for_selector("body[data-busy=idle]", state="attached")
        first.click("input[name=mode][value=call]")
        first.mouse.click(*at(first, 0.13, 0.13))  # ball 13
        first.mouse.click(*at(first, 0.0, 0.0))  # the front-left pocket
        assert first.inner_text("#shoot") == "Shoot"
        first.evaluate(
            "([phi, b]) => Object.assign(window.piramida.ui, {phi, b})",
            [WINNING_SHOT["phi"], WINNING_SHOT["b"]],
        )
        first.locator("#power").fill("1")
        first.click("#shoot")
        second.wait_for_function("window.piramida.game().seq >= 1")  # the other tab, without a reload
        assert second.evaluate("window.piramida.game().id") == game_id
        shot(second, "play-second-tab")


# One screen: the bot's play is the same on all, and its animated run of pots takes a minute
# of real time on each (the screens' layouts have tests of their own above).
@pytest.mark.parametrize("page", ["desktop"], indirect=True)
def test_the_trained_level_plays(page: Page, base_url: str) -> None:
    trained = {"bot": "trained", "level": "easy", "noise": "amateur"}
    new_game(page, base_url, settings=trained, seed=17, breaker=1)  # the trained policy breaks
    wait_idle_for_human(page)
    view = game(page)
    assert view["seq"] >= 1 and view["bot_error"] is None, page.inner_text("#error")
    assert "Bot (trained)" in page.inner_text("#players")
