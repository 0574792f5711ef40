"""Fixtures of the play page's browser tests: a real server in a thread, Debian's Chromium, a page.

The server plays the `greedy` bot at `amateur` noise (it compiles in seconds) and warms its
programs up as `piramida play` does (the page waits for them). Chromium must
be installed (`apt-get install chromium`): without it the browser tests fail, never skip.
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
from playwright.sync_api import Browser, Page, sync_playwright

from piramida.play.games import Settings
from piramida.play.server import create_app, local_hosts

CHROMIUM = "/usr/bin/chromium"


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    settings = Settings(bot="greedy", level="easy", noise="amateur")
    app = create_app(
        tmp_path_factory.mktemp("games"), settings, allowed_hosts=local_hosts("127.0.0.1", port), warm=True
    )
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, log_level="warning", timeout_graceful_shutdown=1
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(10)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield browser
        browser.close()


@pytest.fixture(params=list(SCREENS))
def page(browser: Browser, request: pytest.FixtureRequest) -> Iterator[Page]:
    """A page on each of `SCREENS` (the phone by touch) that fails the test on any JavaScript error."""
    with open_page(browser, SCREENS[request.param], touch=request.param == "phone") as page:
        yield page
