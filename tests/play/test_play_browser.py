"""The play page end to end in headless Chromium (Debian's `chromium`, driven by Playwright).

A real server (uvicorn in a thread, `conftest.py`) with the `greedy` bot at `amateur` noise; the tests aim and
shoot with the mouse, watch the balls move and stop, read the verdicts, let the bot reply, take a decision
after a foul, finish a frame set up near its end, and replay its record. Screenshots go to
`tests/artifacts/`.
Chromium must be installed (`apt-get install chromium`): without it these tests fail.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.play_layouts import HUMAN_DECIDES
from pagekit import PLAYBACK, at, drag, game, settled, shot, wait_idle_for_human
from playwright.sync_api import Page

# Compile-heavy or long: left out of the quick lane (`pytest -m "not slow"`).
pytestmark = pytest.mark.slow
# Counts, at every animation frame, the different ball layouts the page draws from the start of
# its next animation to its end, into `window.framesDrawn`. Started before the shot, it cannot
# miss a short animation (one that ends before a later `evaluate` would begin).
COUNT_NEXT_ANIMATION_FRAMES = """() => {
  window.framesDrawn = null;
  const seen = new Set();
  const tick = () => {
    const now = window.piramida.positions();
    if (now !== null) seen.add(JSON.stringify(now));
    else if (seen.size) { window.framesDrawn = seen.size; return; }
    requestAnimationFrame(tick);
  };
  tick();
}"""


def test_aim_break_watch_the_balls_and_the_bot_reply(page: Page, base_url: str) -> None:
    created = page.request.post(f"{base_url}/api/games", data={"seed": 1})
    page.goto(f"{base_url}/?game={created.json()['id']}&speed={PLAYBACK}")
    page.wait_for_selector("body[data-busy=idle]", state="attached")
    assert game(page)["state"]["phase"] == "break"
    rack = {b["id"]: (b["x"], b["y"]) for b in game(page)["state"]["balls"]}
    place = page.evaluate("window.piramida.ui.place")
    drag(page, tuple(place), (0.80, 0.55))  # the coloured ball, within the house (G11)
    placed = page.evaluate("window.piramida.ui.place")
    assert placed == pytest.approx([0.80, 0.55], abs=0.01)
    apex = min(rack.values(), key=lambda xy: xy[1])
    drag(page, (0.9, 1.5), apex)  # aim at the apex ball: the ghost ball and first contact drawn
    phi = page.evaluate("window.piramida.ui.phi")
    assert 85 < phi < 95
    page.locator("#power").fill("8")
    page.evaluate(COUNT_NEXT_ANIMATION_FRAMES)
    page.click("#shoot")
    # The balls move: the layouts drawn from the cue's stroke until they stop differ
    # (however slowly a busy machine draws, the frames in between differ).
    frames = page.wait_for_function("window.framesDrawn").json_value()
    shot(page, "play-break-moved")
    assert frames >= 2, frames
    wait_idle_for_human(page)
    busy = page.evaluate("window.busyLog")
    assert "animating" in busy and "thinking" in busy  # the bot thought, then its shot was shown
    view = game(page)
    moved = {b["id"]: (b["x"], b["y"]) for b in view["state"]["balls"]}
    assert moved != rack and view["seq"] >= 2  # the balls stopped elsewhere; the bot moved
    assert page.inner_text("#headline")
    rules = " ".join(" ".join(move["words"]) for move in view["log"])
    assert any(rule in rules for rule in ("G12.1", "G20", "G22.2", "G6", "Legal shot"))
    page.click("#log-box summary")
    assert page.locator("#log li").count() == len(view["log"]) >= 2
    if view["to_move"] == "human" and view["state"]["phase"] == "normal" and view["own_ball"] is None:
        # Free (G4.3): pick a ball, aim at its nearest neighbour; the ghost ball shows the contact.
        balls = sorted((b["y"], b["x"]) for b in view["state"]["balls"])
        own = balls[0][1], balls[0][0]  # the ball nearest the house end, aimed at one 0.6 m or more away
        far = [(x, y) for y, x in balls if (x - own[0]) ** 2 + (y - own[1]) ** 2 > 0.36]
        target = min(
            far or [(balls[-1][1], balls[-1][0])],
            key=lambda xy: (xy[0] - own[0]) ** 2 + (xy[1] - own[1]) ** 2,
        )
        page.mouse.click(*at(page, *own))
        drag(page, own, target)
        assert page.evaluate("window.piramida.ui.own") is not None
    shot(page, "play-after-bot")


def test_foul_decision_then_finish_the_frame_and_replay_it(page: Page, base_url: str) -> None:
    created = page.request.post(f"{base_url}/api/games", data={"state": HUMAN_DECIDES})
    assert created.status == 201, created.text()
    game_id = created.json()["id"]
    page.goto(f"{base_url}/?game={game_id}&speed={PLAYBACK}")
    page.wait_for_selector("#decision:not([hidden])")
    assert "G6" in page.inner_text("#decision-text")
    page.mouse.click(*at(page, 1.2, 3.0))  # take ball 14 as the penalty ball (FREE-7)
    assert page.evaluate("window.piramida.ui.take") == 14
    page.click("#decision-buttons button[data-option=shoot]")
    wait_idle_for_human(page)
    assert page.inner_text("#headline") == "You took a ball as the penalty ball and chose to shoot. You play."
    page.click("#rules summary")  # the rule numbers, behind a toggle
    assert "You decided to shoot and took a ball as the penalty ball (G6, G6(1), FREE-7" in page.inner_text(
        "#rules-text"
    )
    settled(page)
    assert game(page)["state"]["shelves"][0] == [1, 2, 3, 4, 5, 6, 14]

    page.mouse.click(*at(page, 0.40, 0.40))  # Free: pick the ball to strike (G4.3)
    assert page.evaluate("window.piramida.ui.own") == 0
    drag(page, (0.6, 0.9), (0.13, 0.13))  # aim: from the coloured ball at ball 13
    phi = page.evaluate("window.piramida.ui.phi")
    assert phi == pytest.approx(225.0, abs=0.6)
    page.locator("#power").fill("1")
    box = page.locator("#spin").bounding_box()
    assert box is not None
    radius = box["width"] / 2 * (1 - 32 / 120)  # the disc: 16 of the canvas's 120 px in from its edge
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2 + 0.3 * radius)  # draw
    assert page.evaluate("window.piramida.ui.b") == pytest.approx(-0.3, abs=0.03)
    assert page.inner_text("#spin-out") == "draw 0.30"
    page.click("#shoot")
    page.wait_for_selector("#over:not([hidden])")
    assert "You won 8:6" in page.inner_text("#over-text")
    assert page.inner_text("#headline") == "You potted a ball. You won the frame 8:6."
    shot(page, "play-game-over")

    page.click("#new-game summary")
    with page.expect_download() as download:
        page.click("#download")
    record = Path(download.value.path()).read_text()
    assert record.splitlines()[0].startswith('{"format": "piramida-match"')
    page.set_input_files("#load", files=[{"name": "game.jsonl", "mimeType": "application/jsonl",
                                          "buffer": record.encode()}])  # fmt: skip
    page.wait_for_selector("#replay:not([hidden])")
    page.wait_for_function("document.getElementById('replay-report').textContent.includes('reproduced')")
    assert "2 moves; verdicts reproduced" in page.inner_text("#replay-report")
    page.click("#replay-next")
    page.wait_for_function("document.getElementById('replay-at').textContent === 'move 2 of 2'")
    shot(page, "play-replay")
    page.click("#replay-exit")
    page.click("#rematch")
    page.wait_for_function(f"window.piramida.game().id !== '{game_id}'")
    assert game(page)["state"]["breaker"] == 1  # G13: the other player breaks the next frame
