"""What the play page's browser tests share: opening a page, driving it by table coordinates, waiting.

Screenshots go to `tests/artifacts/`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
TIMEOUT_MS = 180_000  # a bot's first move at a new level compiles it (tens of seconds on two busy cores)
PLAYBACK = 8  # the balls roll 8 times as fast as on the table: the tests watch what happens, not how long
SCREENS = {"desktop": (1280, 800), "small": (800, 600), "phone": (390, 844)}
# Every value the page's busy flag takes, in order (animating, thinking, idle ...).
RECORD_BUSY = """
window.busyLog = [];
new MutationObserver(() => window.busyLog.push(document.body.dataset.busy))
  .observe(document, {attributes: true, subtree: true, attributeFilter: ["data-busy"]});
"""


@contextmanager
def open_page(browser: Browser, size: tuple[int, int], touch: bool = False) -> Iterator[Page]:
    """A page of `size` (CSS pixels; `touch` for a phone) that fails the test on any JavaScript error."""
    width, height = size
    context = browser.new_context(
        viewport={"width": width, "height": height}, accept_downloads=True, has_touch=touch, is_mobile=touch
    )
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    page.add_init_script(RECORD_BUSY)
    page.set_default_timeout(TIMEOUT_MS)
    yield page
    context.close()
    assert not errors, errors


def no_warming(page: Page) -> None:
    """Answer the page's `/api/warm` in the browser: picking a level then compiles nothing on the server.

    For tests of what the level list says: a picked search level's bot compiles for minutes at
    batch 1 in the server's background, on the cores the other tests share. That a picked
    level warms, and what the page says meanwhile, is `test_play_preparing.py`'s and
    `test_play_practice_api.py`'s.
    """
    page.route("**/api/warm", lambda route: route.fulfill(json={"state": "ready"}))


def shot(page: Page, name: str) -> None:
    """Save a screenshot under `tests/artifacts/`, named with the screen's size."""
    ARTIFACTS.mkdir(exist_ok=True)
    size = page.viewport_size or {"width": 0, "height": 0}
    page.screenshot(path=str(ARTIFACTS / f"{name}-{size['width']}x{size['height']}.png"))


def desktop(page: Page) -> bool:
    """Whether `page` is the desktop of `SCREENS` (the docs' pictures are taken there)."""
    return page.viewport_size == dict(zip(("width", "height"), SCREENS["desktop"], strict=True))


def at(page: Page, x: float, y: float) -> tuple[float, float]:
    """Page coordinates of a table point (metres)."""
    sx, sy = page.evaluate("([x, y]) => window.piramida.toPage(x, y)", [x, y])
    return float(sx), float(sy)


def settled(page: Page) -> None:
    """Wait two animation frames: a panel opened or closed, the table refits to the room left.

    On a phone the table fills what the panels leave; a table point's page position read
    before the refit is clicked after it, a few pixels off a 10 px ball.
    """
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")


def drag(page: Page, start: tuple[float, float], end: tuple[float, float]) -> None:
    """Press at one table point, move to another, release."""
    page.mouse.move(*at(page, *start))
    page.mouse.down()
    page.mouse.move(*at(page, *end), steps=8)
    page.mouse.up()


def game(page: Page) -> dict[str, Any]:
    """The game as the page holds it."""
    value: dict[str, Any] = page.evaluate("window.piramida.game()")
    return value


def new_game(page: Page, base_url: str, playback: float = PLAYBACK, **body: Any) -> str:
    """A game made through the API (a seed, a layout, a breaker), opened in `page` at `playback`; its id."""
    created = page.request.post(f"{base_url}/api/games", data=body, timeout=TIMEOUT_MS)
    assert created.status == 201, created.text()
    game_id: str = created.json()["id"]
    page.goto(f"{base_url}/?game={game_id}&speed={playback}")
    page.wait_for_function(f"window.piramida.game() && window.piramida.game().id === '{game_id}'")
    return game_id


def aim_line_waits(page: Page, changes: int = 12) -> tuple[list[float], list[float]]:
    """Turn the aim `changes` times by the keys, each once its line is drawn; the waits in ms.

    The page's whole wait for each line (asked, simulated on the server, drawn) and the server's
    part of it; the page's first aim ever is left out (it may compile). The page must be waiting
    for the human with a ball picked.
    """
    page.wait_for_function(  # once the warm-up's last compiles are done, as a player's aims are
        "fetch('/api/ready').then(r => r.json()).then(s => s.done === s.total)", polling=500
    )
    before = page.evaluate("window.piramida.timings.aim.length")
    for k in range(changes):
        page.keyboard.press("ArrowLeft" if k % 2 else "ArrowRight")
        page.wait_for_function(f"window.piramida.timings.aim.length >= {before + k + 1}")
    timings = page.evaluate("window.piramida.timings")
    return timings["aim"][max(before, 1) :], timings["aimServer"][max(before, 1) :]


def wait_idle_for_human(page: Page) -> None:
    """Wait until the page waits for the human (or the frame is over); fail with what it shows."""
    try:
        page.wait_for_function(
            "document.body.dataset.busy === 'idle'"
            " && ['human', 'over'].includes(document.body.dataset.toMove)"
        )
    except Exception as err:
        shown = (
            page.inner_text("#error"),
            page.inner_text("#status"),
            page.evaluate("document.body.dataset.busy"),
        )
        raise AssertionError(f"the page did not come back to the human: {shown}") from err
