"""The page while the server still compiles: "Preparing the table... (k of 2)", then playable;
and while a bot prepares its first move, or a level the player picked.

The warm-up's two needed steps are held by the test (`page_steps` replaced by two steps
that wait on events), and so is the bot (`HeldBot`), so the page is seen at each stage
however fast the machine is. How long a real cold start takes is measured by
`benchmarks/play_timings.py`, not here.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import uvicorn
from helpers.play_bots import HeldBot
from pagekit import PLAYBACK, SCREENS, open_page, wait_idle_for_human
from playwright.sync_api import Browser
from starlette.applications import Starlette

from piramida.agents import ladder as levels
from piramida.play import server
from piramida.play.games import Games, Settings
from piramida.play.store import Store
from piramida.play.warmup import Step

HELD = ("the shot: kernel, referee, paths", "the aiming line")


def serve(build: Callable[[list[str]], Starlette]) -> tuple[str, uvicorn.Server, threading.Thread]:
    """`build(allowed_hosts)` served by uvicorn in a thread on a free port: (address, server, thread)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    app = build(server.local_hosts("127.0.0.1", port))
    uv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=uv.run, daemon=True)
    thread.start()
    while not uv.started:
        time.sleep(0.05)
    return f"http://127.0.0.1:{port}", uv, thread


@pytest.fixture
def held_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[str, list[threading.Event]]]:
    """A server whose warm-up waits for the test to release each needed step: (its address, the events)."""
    released = [threading.Event() for _ in HELD]

    def steps(*args: object) -> list[Step]:
        return [
            Step(name, lambda e=event: e.wait(60) or None, needed=True)
            for name, event in zip(HELD, released, strict=True)
        ]

    monkeypatch.setattr(server, "page_steps", steps)
    defaults = Settings(bot="greedy", level="easy", noise="amateur")
    url, uv, thread = serve(
        lambda hosts: server.create_app(tmp_path, defaults, allowed_hosts=hosts, warm=True)
    )
    yield url, released
    for event in released:
        event.set()
    uv.should_exit = True
    thread.join(10)


def test_the_page_says_how_far_the_preparation_is_until_it_is_playable(
    browser: Browser, held_server: tuple[str, list[threading.Event]]
) -> None:
    url, released = held_server
    with open_page(browser, SCREENS["small"]) as page:
        page.goto(url)
        page.wait_for_function(
            r"/^0 of 2: the shot: kernel, referee, paths \(\d+ s\)$/"
            ".test(document.getElementById('preparing-step').textContent)"
        )
        assert page.is_visible("#preparing") and "Preparing the table" in page.inner_text("#preparing")
        released[0].set()
        page.wait_for_function(
            r"/^1 of 2: the aiming line \(\d+ s\)$/"
            ".test(document.getElementById('preparing-step').textContent)"
        )
        assert page.evaluate("document.getElementById('preparing-bar').value") == 1
        assert page.is_visible("#preparing")
        released[1].set()
        page.wait_for_function(
            "document.body.dataset.ready && document.body.dataset.busy === 'idle'"
            " && !document.getElementById('shoot').disabled"
        )
        assert page.is_hidden("#preparing")


@pytest.fixture
def held_bot(tmp_path: Path) -> Iterator[tuple[str, threading.Event]]:
    """A server whose bots wait until the test releases them (a first move compiling): (address, event)."""
    release = threading.Event()
    defaults = Settings(bot="greedy", noise="none")
    games = Games(Store(tmp_path), defaults, agent_of=lambda settings: HeldBot(release))
    url, uv, thread = serve(lambda hosts: server.create_app(games=games, allowed_hosts=hosts))
    yield url, release
    release.set()
    uv.should_exit = True
    thread.join(10)


def test_the_page_says_when_the_bot_prepares_its_first_move_or_a_picked_level(
    browser: Browser, held_bot: tuple[str, threading.Event]
) -> None:
    url, release = held_bot
    with open_page(browser, SCREENS["small"]) as page:
        created = page.request.post(f"{url}/api/games", data={"seed": 3, "breaker": 1})  # the bot breaks
        page.goto(f"{url}/?game={created.json()['id']}&speed={PLAYBACK}")
        page.wait_for_function(
            "document.getElementById('thinking-what').textContent"
            " === 'The bot is preparing its first move (compiling, once per server)'"
        )
        assert page.is_visible("#thinking")
        page.wait_for_function(  # the seconds it has taken so far
            r"/^[1-9]\d*\.\d s$/.test(document.getElementById('thinking-time').textContent)"
        )
        page.click("#new-game summary")
        page.select_option("#opponent", "club")  # picked while the bot prepares: its bot warms too
        page.wait_for_function(
            "document.getElementById('opponent-ready').textContent"
            ".startsWith('Getting this bot ready: compiling its moves, once per server')"
        )
        release.set()
        wait_idle_for_human(page)
        assert page.is_hidden("#thinking") and page.evaluate("window.piramida.game().seq") >= 1
        page.wait_for_function("document.getElementById('opponent-ready').textContent === ''")
        status = page.request.post(f"{url}/api/warm", data={"settings": levels.BY_NAME["club"].settings()})
        assert status.json() == {"state": "ready"}
