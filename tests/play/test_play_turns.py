"""The turn flow never sticks: a rematch the bot breaks, a new game mid-animation, a double click on Shoot.

Each of these stuck the page before: the bot never broke after a rematch, the old
game came back when its animation ended, and a second click answered a red "seq" error.
"""

from __future__ import annotations

import pytest
from helpers.play_layouts import NEAR_END, WINNING_SHOT
from pagekit import at, game, new_game, shot, wait_idle_for_human
from playwright.sync_api import Page

pytestmark = pytest.mark.slow


def test_after_a_rematch_the_bot_breaks(page: Page, base_url: str) -> None:
    game_id = new_game(page, base_url, state=NEAR_END, seed=4)  # the rematch's seed follows from it
    page.wait_for_selector("body[data-busy=idle]", state="attached")
    page.mouse.click(*at(page, 0.40, 0.40))  # Free: pick the coloured ball (G4.3)
    page.evaluate(
        "([phi, b]) => Object.assign(window.piramida.ui, {phi, b})", [WINNING_SHOT["phi"], WINNING_SHOT["b"]]
    )
    page.locator("#power").fill(str(WINNING_SHOT["speed"]))
    page.click("#shoot")
    page.wait_for_selector("#over:not([hidden])")
    assert "won" in page.inner_text("#verdict")
    page.click("#rematch")
    page.wait_for_function(f"window.piramida.game().id !== '{game_id}'")
    assert game(page)["state"]["breaker"] == 1  # G13: the bot breaks the next frame
    wait_idle_for_human(page)
    view = game(page)
    assert view["seq"] >= 1 and view["to_move"] == "human"  # the bot broke, the page came back
    assert "won" not in page.inner_text("#verdict")
    assert page.is_hidden("#over")
    shot(page, "play-rematch-bot-broke")


def test_a_new_game_during_the_bots_animation_stays(page: Page, base_url: str) -> None:
    old = new_game(page, base_url, seed=5, breaker=1)  # the bot breaks at once
    page.wait_for_function("window.piramida.positions() !== null")  # its break is rolling
    page.click("#new-game summary")
    page.click("#start")
    page.wait_for_function(f"window.piramida.game().id !== '{old}'")
    new = game(page)["id"]
    page.wait_for_function("window.piramida.positions() === null && document.body.dataset.busy === 'idle'")
    page.wait_for_timeout(500)
    view = game(page)
    assert view["id"] == new and view["seq"] == 0 and view["state"]["phase"] == "break"
    assert page.url.endswith(f"?game={new}")


def test_shoot_is_disabled_while_a_shot_is_judged_and_rolls(page: Page, base_url: str) -> None:
    new_game(page, base_url, seed=7)
    page.wait_for_selector("body[data-busy=idle]", state="attached")
    page.dblclick("#shoot")  # a break at the page's default aim and power
    page.wait_for_function("window.piramida.positions() !== null")
    assert page.is_disabled("#shoot")
    wait_idle_for_human(page)
    assert page.inner_text("#error") == ""
    busy = page.evaluate("window.busyLog")
    assert busy.count("thinking-referee") == 1  # one shot sent, not two
