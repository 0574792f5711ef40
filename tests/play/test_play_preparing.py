"""The page while the server still compiles: "Preparing the table... (k of 2)", then playable (issue 24).

The warm-up's two needed steps are held by the test (`page_steps` replaced by two steps
that wait on events), so the page is seen at each stage however fast the machine is. How
long a real cold start takes is measured by `benchmarks/play_timings.py`, not here.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import uvicorn
from pagekit import SCREENS, open_page
from playwright.sync_api import Browser

from piramida.play import server
from piramida.play.games import Settings
from piramida.play.warmup import Step

HELD = ("the shot: kernel, referee, paths", "the aiming line")


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
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    app = server.create_app(
        tmp_path,
        Settings(bot="greedy", level="easy", noise="amateur"),
        allowed_hosts=server.local_hosts("127.0.0.1", port),
        warm=True,
    )
    uv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=uv.run, daemon=True)
    thread.start()
    while not uv.started:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}", released
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
