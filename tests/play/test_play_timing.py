"""The waits a player sees, measured in the browser from `piramida play` itself (issue 24's targets).

Starts the command in a subprocess with empty compile caches (a fresh `PIRAMIDA_CACHE_DIR`,
which holds both the JAX and the Warp cache), times how long until the page is playable
(the table prepared, the game shown, Shoot enabled), plays a frame at the default level
(`levels.DEFAULT`) timing each bot move as the page waits for it (the page counts the
seconds, and says the bot is getting ready while its first move waits on the warm-up's
compile: on a cold start it always does), then starts the command
again over the same caches. The figures go to `tests/artifacts/play_timings.json` (the
README's table). Asserted: every bot move after the first within 1 s, and playable within
10 s over filled caches. The cold start's figure (issue 24's 10 s) is written, not asserted:
it depends on what else the machine runs, so the README reports it from idle runs.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from pagekit import ARTIFACTS, SCREENS, at, open_page
from playwright.sync_api import Browser, Page

pytestmark = pytest.mark.slow
PIRAMIDA = shutil.which("piramida") or "piramida"
BOT_MOVES = 6  # timed after the first
BOT_MOVE_S = 1.0
# Every text of the bot's thinking time, as the page shows it.
RECORD_THINKING = """
window.thinkingLog = [];
document.addEventListener("DOMContentLoaded", () => new MutationObserver(() => {
  window.thinkingLog.push(document.getElementById("thinking-time").textContent);
}).observe(document.getElementById("thinking-time"), {childList: true, characterData: true, subtree: true}));
"""


@contextmanager
def served(cache: Path, games: Path) -> Iterator[tuple[str, float]]:
    """`piramida play` on a free port: (its address, the monotonic time it was started)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "PIRAMIDA_CACHE_DIR": str(cache)}
    started = time.monotonic()
    command = [PIRAMIDA, "play", "--no-browser", "--port", str(port), "--state-dir", str(games)]
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        while True:
            assert process.poll() is None, process.stdout.read() if process.stdout else "exited"
            try:
                urllib.request.urlopen(f"{url}/api/ready", timeout=1)
                break
            except OSError:
                time.sleep(0.05)
        yield url, started
    finally:
        process.terminate()
        process.wait(30)


def playable(page: Page, url: str, started: float, cold: bool = False) -> float:
    """Open the page and wait until the human can shoot; seconds since the command started.

    `cold`: the page must first say it is preparing the table, and how far it is.
    """
    page.goto(url)
    if cold:
        page.wait_for_function(
            r"/^[01] of 2: .+ \(\d+ s\)$/.test(document.getElementById('preparing-step').textContent)"
        )
        assert page.is_visible("#preparing") and "Preparing the table" in page.inner_text("#preparing")
    page.wait_for_function(
        "document.body.dataset.ready && document.body.dataset.busy === 'idle'"
        " && !document.getElementById('shoot').disabled"
    )
    return time.monotonic() - started


def human_move(page: Page) -> None:
    """A quick move by the human: the first decision offered, or a shot at the page's aim."""
    view: dict[str, Any] = page.evaluate("window.piramida.game()")
    if view["to_move"] == "over":
        page.click("#rematch")
        page.wait_for_function(f"window.piramida.game().id !== '{view['id']}'")
    elif view["pending"]:
        page.click("#decision-buttons button >> nth=0")
    else:
        if page.inner_text("#error"):  # the ball in hand on another ball: a little further along
            page.evaluate("window.piramida.ui.place[1] += 0.06")
        if view["own_ball"] is None and view["state"]["phase"] == "normal":  # Free: pick a ball (G4.3)
            ball = view["state"]["balls"][0]
            page.mouse.click(*at(page, ball["x"], ball["y"]))
        page.click("#shoot")


def test_playable_soon_after_start_and_every_later_bot_move_within_a_second(
    browser: Browser, tmp_path: Path
) -> None:
    cache, games = tmp_path / "cache", tmp_path / "games"
    out: dict[str, Any] = {}
    with served(cache, games) as (url, started), open_page(browser, SCREENS["desktop"]) as page:
        page.add_init_script(RECORD_THINKING)
        out["cold_playable_s"] = round(playable(page, url, started, cold=True), 1)
        waits: list[float] = []
        for _ in range(80):
            if len(waits) > BOT_MOVES:
                break
            human_move(page)
            page.wait_for_function(
                "document.body.dataset.busy === 'idle' && document.body.dataset.toMove !== 'bot'"
            )
            waits = page.evaluate("window.piramida.timings.bot")
        ready = page.request.get(f"{url}/api/ready").json()
        out["warm_up_steps_s"] = {step["name"]: step["seconds"] for step in ready["steps"]}
        out["first_bot_move_s"] = round(waits[0] / 1000, 2)
        out["later_bot_moves_s"] = [round(w / 1000, 3) for w in waits[1:]]
        thinking = page.evaluate("window.thinkingLog")
        assert any(re.fullmatch(r"\d+\.\d s", text) for text in thinking), thinking  # the seconds, counting
        assert any(text.endswith("s (getting ready: its first move compiles)") for text in thinking), thinking
    with served(cache, games) as (url, started), open_page(browser, SCREENS["desktop"]) as page:
        out["cached_playable_s"] = round(playable(page, url, started), 1)
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "play_timings.json").write_text(json.dumps(out, indent=2) + "\n")
    print(json.dumps(out, indent=2))
    assert len(out["later_bot_moves_s"]) >= BOT_MOVES and max(out["later_bot_moves_s"]) < BOT_MOVE_S, out
    assert out["cached_playable_s"] < 10, out
