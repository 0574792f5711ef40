"""The waits a player sees, measured in the browser from `piramida play` itself.

    python benchmarks/play_timings.py [--json docs/play_timings.json]

Needs Debian's Chromium and Playwright, as the browser tests do (it drives the page with
their helpers, `tests/play/pagekit.py`); run it on an otherwise idle machine.

Starts the command in a subprocess with empty compile caches (a fresh `PIRAMIDA_CACHE_DIR`,
which holds both the JAX and the Warp cache), times how long until the page is playable
(the table prepared, the game shown, Shoot enabled), plays a frame at the default level
(`levels.DEFAULT`) timing each bot move as the page waits for it (the page counts the
seconds, and says the bot is preparing its first move while that waits on the warm-up's
compile: on a cold start it always does), then starts the command
again over the same caches and turns the aim twelve times in a set layout, timing each aiming
line (asked, simulated on the server, drawn). The figures go to `--json` (by default
docs/play_timings.json), with whether each target is met: playable within 10 s of a cold start,
every bot move after the first within 1 s, the aiming line's median wait within 50 ms.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, sync_playwright

from piramida.physics.files import write_atomic
from piramida.physics.provenance import stamped

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "play"))
from helpers.play_layouts import NEAR_END
from pagekit import SCREENS, aim_line_waits, at, new_game, open_page

CHROMIUM = "/usr/bin/chromium"
PLAYABLE_S = 10.0
PIRAMIDA = shutil.which("piramida") or "piramida"
BOT_MOVES = 6  # timed after the first
BOT_MOVE_S = 1.0
AIM_LINE_MS = 50.0  # the median wait for the aiming line after a change of aim
# Every text of the bot's thinking line (what it does, and the seconds), as the page shows it.
RECORD_THINKING = """
window.thinkingLog = [];
document.addEventListener("DOMContentLoaded", () => new MutationObserver(() => {
  const what = document.getElementById("thinking-what").textContent;
  window.thinkingLog.push([what, document.getElementById("thinking-time").textContent]);
}).observe(document.getElementById("thinking"), {childList: true, characterData: true, subtree: true}));
"""
PREPARING = "The bot is preparing its first move (compiling, once per server)"


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


def measure(browser: Browser, tmp_path: Path) -> dict[str, Any]:
    """A cold start, a frame's bot moves, a restart: the figures of the module docstring."""
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
        assert any(re.fullmatch(r"\d+\.\d s", seconds) for _, seconds in thinking), thinking  # counting
        assert any(what == PREPARING for what, _ in thinking), thinking
    with served(cache, games) as (url, started), open_page(browser, SCREENS["desktop"]) as page:
        out["cached_playable_s"] = round(playable(page, url, started), 1)
        new_game(page, url, state=NEAR_END)
        page.wait_for_selector("body[data-busy=idle]", state="attached")
        page.mouse.click(*at(page, 0.40, 0.40))  # the coloured ball (G4.3)
        waits, server = aim_line_waits(page)
        out["aim_line_ms"] = {
            "page_median": round(statistics.median(waits), 1),
            "page_min": round(min(waits), 1),
            "server_median": round(statistics.median(server), 1),
        }
    out["targets_met"] = {
        "playable_after_a_cold_start": out["cold_playable_s"] <= PLAYABLE_S,
        "later_bot_moves": len(out["later_bot_moves_s"]) >= BOT_MOVES
        and max(out["later_bot_moves_s"]) < BOT_MOVE_S,
        "aim_line": out["aim_line_ms"]["page_median"] <= AIM_LINE_MS,
    }
    return out


def main() -> None:
    """Measure once; print the figures and write them to --json."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", default="docs/play_timings.json", help="where the figures go")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        out = measure(browser, Path(tmp))
        browser.close()
    report = stamped({"cpus": os.cpu_count(), "load": os.getloadavg()[0], **out})
    text = json.dumps(report, indent=2) + "\n"
    write_atomic(args.json, text)
    print(text)


if __name__ == "__main__":
    main()
