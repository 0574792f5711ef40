"""The HTTP side of the app: the page, its static files, and a small JSON API over `games.Games`.

Routes (JSON in and out unless said otherwise):

    GET  /                          the page
    GET  /api/table                 the table's geometry (cushions, jaws, pockets, markings)
    GET  /api/ready                 the warm-up's progress: the page waits for "ready" (`warmup`)
    GET  /api/levels                the opponents the page offers (`levels`)
    GET  /api/rules                 the rules in plain words: each rule id's sentence, each game (`rulebook`)
    POST /api/warm                  {"settings"}: compile that bot now (a level the player picked); its status
    POST /api/games                 a new game: {"settings"?, "state"?, "seed"?, "breaker"?}
    GET  /api/games/{id}            the game as the page shows it
    GET  /api/games/{id}/events     server-sent events: the game each time it changes (another tab)
    POST /api/games/{id}/shot       the human's shot
    POST /api/games/{id}/aim        the aimed shot's true paths, not played (the aiming line)
    POST /api/games/{id}/decision   the human's decision
    GET  /api/games/{id}/bot        whether the bot's next move compiles first ("cold", "preparing", "ready")
    POST /api/games/{id}/bot        the bot's next move
    POST /api/games/{id}/undo       practice: take back the human's last shot
    POST /api/games/{id}/hint       practice: the shot the bot would play in the human's place
    POST /api/games/{id}/layout     practice: the balls on the table placed anew {"balls": [{id, x, y}]}
    POST /api/games/{id}/extension  G26: another 45 s for this shot
    POST /api/games/{id}/rematch    a new frame, the other player breaking (G13)
    GET  /api/games/{id}/record     the match record, JSON Lines (a download)
    GET  /api/games/{id}/replay     the frame so far, as the page replays it (a replay link: /?replay={id})
    POST /api/replay                a match record (JSON Lines body) for the page to replay

What is guaranteed, whatever a request holds: `piramida play` listens on 127.0.0.1
(unless `--host` says otherwise), and the app serves only the Host names it was started
for (`allowed_hosts`; 403 for any other, so a rebound DNS name gets nothing). A request
that changes something (any method but GET and HEAD) is refused with 403 when it has an
`Origin` that is not the server's own (`http://` and its Host), and with 415 when it
carries a body, or names a type, that is not JSON: `application/json`, or for a match
record `application/jsonl` or `application/x-ndjson` (every route takes the three). A
page on another site can send none of these without a CORS preflight, which this server
never answers, so no web page the player visits can drive it. Every body is decoded by
`rules.jsontext` (a record's lines by `rules.match`), and every answer but a success is
`{"error": message}`, the message cut to `MAX_ERROR` characters: 400 (not UTF-8, not
JSON), 403 and 415 (above), 404 (no such game or route), 405, 408 and 413 (a body not
sent in time, or too large: `limits`), 409 (out of turn, stale page, game over), 422 (a
field, named; a stored game's file that is not a game), 507 (the disk is full: nothing
changed) and 503 (the bot failed, the game is kept; a game's file cannot be read or
written), and 500 for a bug, logged with its traceback: never plain text, never a
traceback in the answer.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable, Collection
from dataclasses import asdict
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

from piramida.agents import ladder as levels
from piramida.physics import jsontext, markings
from piramida.physics.fields import FieldError, shown
from piramida.play import engine, rulebook
from piramida.play.games import Games, PlayError, Settings
from piramida.play.limits import BodyLimit, Limits
from piramida.play.replay import replay
from piramida.play.store import Store
from piramida.play.warmup import Warmup, page_steps, referee_beside

STATIC = Path(str(resources.files("piramida.play") / "static"))
Handler = Callable[[Request], Awaitable[Response]]
JSON_TYPES = ("application/json", "application/jsonl", "application/x-ndjson")
SAFE_METHODS = ("GET", "HEAD")  # they change nothing, so any Origin may send them
EVENTS_POLL_S = 0.3  # how often a game's event stream looks at its file
# A stream ends after this; the page's EventSource reconnects (`retry`) and no stream holds a
# stopping server for longer.
EVENTS_STREAM_S = 20.0
MAX_ERROR = 300  # characters of an error message: enough to name the field and the value cut short
log = logging.getLogger(__name__)


def table_json() -> dict[str, Any]:
    """The preset table for the page: what to draw, in metres, in the kernel's frame."""
    t = engine.SETUP.table
    w, ln = float(t.width), float(t.length)
    arcs = [
        {"x": float(c[0]), "y": float(c[1]), "r": float(r)}
        for c, r in zip(np.asarray(t.arc_centre), np.asarray(t.arc_radius), strict=True)
        if r > 0
    ]
    pockets = [
        {"name": name, "x": float(c[0]), "y": float(c[1]), "r": float(r)}
        for name, c, r in zip(
            engine.ph.POCKET_NAMES, np.asarray(t.pocket_centre), np.asarray(t.pocket_radius), strict=True
        )
    ]
    return {
        "width": w,
        "length": ln,
        "R": engine.DIMS.R,
        "segments": [
            [*map(float, a), *map(float, b)]
            for a, b in zip(np.asarray(t.line_a), np.asarray(t.line_b), strict=True)
        ],
        "arcs": arcs,
        "pockets": pockets,
        "house_line": float(markings.house_line_y(ln)),
        "centre_line": float(markings.centre_line_y(ln)),
        "spots": [
            np.asarray(f(w, ln)).tolist()
            for f in (markings.front_spot, markings.centre_spot, markings.back_spot)
        ],
    }


def local_hosts(host: str, port: int) -> list[str]:
    """The Host headers a browser sends to a server bound to `host` at `port`, or at it by a loopback name."""
    names = dict.fromkeys((f"[{host}]" if ":" in host else host, "localhost", "127.0.0.1", "[::1]"))
    return [name if port == 80 else f"{name}:{port}" for name in names]  # port 80 goes unsaid


def _error(status: int, message: str) -> JSONResponse:
    """`{"error": message}`, the message cut short and made UTF-8 (it may quote what a request sent)."""
    if len(message) > MAX_ERROR:
        message = f"{message[:MAX_ERROR]}... ({len(message)} characters)"
    text = message.encode("utf-8", "backslashreplace").decode("utf-8")  # a lone surrogate, escaped
    return JSONResponse({"error": text}, status_code=status)


def _refusal(scope: Scope, allowed_hosts: frozenset[str]) -> Response | None:
    """403 or 415 for a request another site could have made (the module docstring); None to serve it."""
    headers = Headers(scope=scope)
    host = headers.get("host", "").lower()
    if host not in allowed_hosts:
        return _error(403, f"Host {shown(host)}: not a name this server answers to")
    if scope["method"] in SAFE_METHODS:
        return None
    origin = headers.get("origin")
    if origin is not None and origin.lower() != f"{scope['scheme']}://{host}":
        return _error(403, f"Origin {shown(origin)}: only this server's own page may change a game")
    media = headers.get("content-type", "").split(";")[0].strip().lower()
    has_body = headers.get("content-length", "0").strip() != "0" or "transfer-encoding" in headers
    if (media or has_body) and media not in JSON_TYPES:
        return _error(415, f"Content-Type {shown(media)}: expected {', '.join(JSON_TYPES)}")
    return None


class Guard:
    """ASGI middleware that answers `_refusal` before any route (or its body) is read.

    Not Starlette's `TrustedHostMiddleware`: that one answers in plain text and ignores the port.
    """

    def __init__(self, app: ASGIApp, allowed_hosts: Collection[str]) -> None:
        """Serve `app` to requests whose Host header is one of `allowed_hosts` (`local_hosts`)."""
        self.app = app
        self.allowed_hosts = frozenset(host.lower() for host in allowed_hosts)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Refuse or pass on one request (anything but HTTP, e.g. lifespan, passes)."""
        refusal = _refusal(scope, self.allowed_hosts) if scope["type"] == "http" else None
        await (refusal or self.app)(scope, receive, send)


def _json(raw: bytes) -> Any:
    """The body's JSON value, None for an empty body; 400 for anything `rules.jsontext` refuses."""
    if not raw.strip():
        return None
    try:
        return jsontext.loads(raw, "body")
    except FieldError as err:
        raise PlayError(400, str(err)) from err


def _text(raw: bytes) -> str:
    """The body as text (a match record: `rules.match` decodes each line); 400 if it is not UTF-8."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise PlayError(400, f"body: not UTF-8 text (byte {err.start})") from err


def _internal(request: Request, err: Exception) -> Response:
    """A bug, not a bad request: logged with its traceback, answered as JSON 500."""
    log.exception("internal error in %s %s", request.method, request.url.path, exc_info=err)
    return _error(500, f"internal error: {type(err).__name__}: {err}")


def _http_error(request: Request, err: Exception) -> Response:
    """Starlette's own refusals (no such route, method not allowed) as JSON."""
    assert isinstance(err, HTTPException)
    return _error(err.status_code, err.detail)


def endpoint(
    work: Callable[..., Any], game: bool = True, read: Callable[[bytes], Any] | None = None, status: int = 200
) -> Handler:
    """A route over `work(game_id?, read(body)?)`, run off the event loop, every error a JSON answer.

    `work` answers a JSON-ready value (sent with `status`) or a whole `Response`.
    """

    async def handler(request: Request) -> Response:
        try:
            args = [request.path_params["game_id"]] if game else []
            if read is not None:
                args.append(read(await request.body()))
            result = await run_in_threadpool(work, *args)
            return result if isinstance(result, Response) else JSONResponse(result, status_code=status)
        except PlayError as err:
            return _error(err.status, err.message)
        except FieldError as err:
            return _error(422, str(err))
        except Exception as err:  # a bug: answered and logged
            return _internal(request, err)

    return handler


def create_app(
    state_dir: str | Path | None = None,
    defaults: Settings = Settings(),  # noqa: B008 (frozen)
    games: Games | None = None,
    *,
    allowed_hosts: Collection[str],
    warm: bool = False,
    limits: Limits = Limits(),  # noqa: B008 (frozen)
) -> Starlette:
    """The app: games stored under `state_dir` (default `store.DEFAULT_DIR`), new ones with `defaults`.

    Only requests whose Host header is in `allowed_hosts` are served (`local_hosts`), and
    only bodies within `limits` (`limits.BodyLimit`). With `warm`, the page's programs
    compile in a background thread from now on (`warmup`).
    """
    if games is None:
        games = Games(Store(state_dir) if state_dir is not None else Store(), defaults)
    table = table_json()
    rules = rulebook.packaged()
    bot = levels.level_of(asdict(games.defaults)) or games.defaults.bot
    warmup = Warmup(
        page_steps(games.defaults.variant, lambda state: games.first_move(games.defaults, state), bot)
        if warm
        else []
    )
    offered = {
        "levels": [level.json() for level in levels.LEVELS],
        "default": levels.level_of(asdict(games.defaults)),
        "settings": asdict(games.defaults),
    }

    async def page(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def get_table(request: Request) -> Response:
        return JSONResponse(table)

    async def ready(request: Request) -> Response:
        return JSONResponse(warmup.status())

    async def get_levels(request: Request) -> Response:
        return JSONResponse(offered)

    async def get_rules(request: Request) -> Response:
        return JSONResponse(rules)

    async def game_events(request: Request) -> Response:
        """The game (as `GET`) whenever its file changes, and at once if its `seq` is not the page's."""
        game_id = request.path_params["game_id"]
        try:
            view = await run_in_threadpool(games.get, game_id)
        except PlayError as err:
            return _error(err.status, err.message)
        path = games.store.path(game_id)
        known = request.query_params.get("seq")

        async def stream() -> Any:
            """The changes until `EVENTS_STREAM_S` ends it, or the game's file goes or stops being a game."""
            yield "retry: 500\n\n"
            if known != str(view["seq"]):
                yield f"data: {json.dumps(view)}\n\n"
            end = time.monotonic() + EVENTS_STREAM_S
            try:
                seen = path.stat().st_mtime_ns
                while time.monotonic() < end and not await request.is_disconnected():
                    await asyncio.sleep(EVENTS_POLL_S)
                    changed = path.stat().st_mtime_ns
                    if changed != seen:
                        seen = changed
                        yield f"data: {json.dumps(await run_in_threadpool(games.get, game_id))}\n\n"
            except (PlayError, OSError) as err:  # the page's next request answers why
                log.info("events of game %s end: %s", game_id, err)

        return StreamingResponse(
            stream(), media_type="text/event-stream", headers={"Cache-Control": "no-store"}
        )

    def download(game_id: str) -> Response:
        headers = {"Content-Disposition": f'attachment; filename="piramida-{game_id}.jsonl"'}
        return Response(games.record(game_id), media_type="application/jsonl", headers=headers)

    routes = [
        Route("/", page),
        Route("/api/table", get_table),
        Route("/api/ready", ready),
        Route("/api/levels", get_levels),
        Route("/api/rules", get_rules),
        Route("/api/warm", endpoint(games.warm, game=False, read=_json), methods=["POST"]),
        Route("/api/games", endpoint(games.create, game=False, read=_json, status=201), methods=["POST"]),
        Route("/api/games/{game_id}", endpoint(games.get)),
        Route("/api/games/{game_id}/events", game_events),
        Route("/api/games/{game_id}/shot", endpoint(games.shoot, read=_json), methods=["POST"]),
        Route("/api/games/{game_id}/aim", endpoint(games.aim, read=_json), methods=["POST"]),
        Route("/api/games/{game_id}/decision", endpoint(games.decide, read=_json), methods=["POST"]),
        Route("/api/games/{game_id}/bot", endpoint(games.game_bot), methods=["GET"]),
        Route("/api/games/{game_id}/bot", endpoint(games.bot_move, read=_json), methods=["POST"]),
        Route("/api/games/{game_id}/undo", endpoint(games.undo, read=_json), methods=["POST"]),
        Route("/api/games/{game_id}/hint", endpoint(games.hint, read=_json), methods=["POST"]),
        Route("/api/games/{game_id}/layout", endpoint(games.layout, read=_json), methods=["POST"]),
        Route("/api/games/{game_id}/extension", endpoint(games.extension), methods=["POST"]),
        Route("/api/games/{game_id}/rematch", endpoint(games.rematch, status=201), methods=["POST"]),
        Route("/api/games/{game_id}/record", endpoint(download)),
        Route("/api/games/{game_id}/replay", endpoint(games.replay)),
        Route("/api/replay", endpoint(replay, game=False, read=_text), methods=["POST"]),
        # An editable install links the files (`editable_mode=strict`): follow the links.
        Mount("/static", StaticFiles(directory=STATIC, follow_symlink=True), name="static"),
    ]
    app = Starlette(
        routes=routes,
        middleware=[Middleware(Guard, allowed_hosts=allowed_hosts), Middleware(BodyLimit, limits=limits)],
        exception_handlers={HTTPException: _http_error, Exception: _internal},
    )
    app.state.games = games
    app.state.warmup = warmup.start(referee_beside(games.defaults.variant) if warm else None)
    return app
