"""The HTTP side of the app: the page, its static files, and a small JSON API over `games.Games`.

Routes (JSON in and out unless said otherwise):

    GET  /                          the page
    GET  /api/table                 the table's geometry (cushions, jaws, pockets, markings)
    POST /api/games                 a new game: {"settings"?, "state"?, "seed"?, "breaker"?}
    GET  /api/games/{id}            the game as the page shows it
    POST /api/games/{id}/shot       the human's shot
    POST /api/games/{id}/decision   the human's decision
    POST /api/games/{id}/bot        the bot's next move
    POST /api/games/{id}/extension  G26: another 45 s for this shot
    POST /api/games/{id}/rematch    a new frame, the other player breaking (G13)
    GET  /api/games/{id}/record     the match record, JSON Lines (a download)
    POST /api/replay                a match record (JSON Lines body) for the page to replay

Errors are `{"error": message}` with 400 (not JSON), 404 (no such game), 409 (out of
turn, stale page, game over), 422 (a field, named), 503 (the bot failed; the game is kept).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from piramida.physics import markings
from piramida.physics.runtime import configure
from piramida.play import engine
from piramida.play.games import Games, PlayError, Settings
from piramida.play.replay import replay
from piramida.play.store import Store
from piramida.rules.fields import FieldError

STATIC = Path(str(resources.files("piramida.play") / "static"))
Handler = Callable[[Request], Awaitable[Response]]


def table_json() -> dict[str, Any]:
    """The preset table for the page: what to draw, in metres, in the kernel's frame."""
    t = engine.TABLE
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


async def _body(request: Request) -> Any:
    raw = await request.body()
    if not raw.strip():
        return None
    try:
        return json.loads(raw)
    except json.JSONDecodeError as err:
        raise PlayError(400, f"body: not valid JSON ({err.msg}, column {err.colno})") from err


def _error(err: Exception) -> JSONResponse:
    if isinstance(err, PlayError):
        return JSONResponse({"error": err.message}, status_code=err.status)
    return JSONResponse({"error": str(err)}, status_code=422)


def endpoint(work: Callable[..., Any], game: bool = True, body: bool = False, status: int = 200) -> Handler:
    """A JSON route over `work(game_id?, body?)`, run off the event loop, its errors mapped to statuses."""

    async def handler(request: Request) -> Response:
        try:
            args = [request.path_params["game_id"]] if game else []
            if body:
                args.append(await _body(request))
            return JSONResponse(await run_in_threadpool(work, *args), status_code=status)
        except (PlayError, FieldError) as err:
            return _error(err)

    return handler


def create_app(
    state_dir: str | Path | None = None,
    defaults: Settings = Settings(),  # noqa: B008 (frozen)
    games: Games | None = None,
) -> Starlette:
    """The app: games stored under `state_dir` (default `store.DEFAULT_DIR`), new ones with `defaults`."""
    configure()
    if games is None:
        games = Games(Store(state_dir) if state_dir is not None else Store(), defaults)
    table = table_json()

    async def page(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def get_table(request: Request) -> Response:
        return JSONResponse(table)

    async def record(request: Request) -> Response:
        game_id = request.path_params["game_id"]
        try:
            text = await run_in_threadpool(games.record, game_id)
        except PlayError as err:
            return _error(err)
        headers = {"Content-Disposition": f'attachment; filename="piramida-{game_id}.jsonl"'}
        return Response(text, media_type="application/jsonl", headers=headers)

    async def load_record(request: Request) -> Response:
        text = (await request.body()).decode("utf-8", errors="replace")
        try:
            return JSONResponse(await run_in_threadpool(replay, text))
        except FieldError as err:
            return _error(err)

    routes = [
        Route("/", page),
        Route("/api/table", get_table),
        Route("/api/games", endpoint(games.create, game=False, body=True, status=201), methods=["POST"]),
        Route("/api/games/{game_id}", endpoint(games.get)),
        Route("/api/games/{game_id}/shot", endpoint(games.shoot, body=True), methods=["POST"]),
        Route("/api/games/{game_id}/decision", endpoint(games.decide, body=True), methods=["POST"]),
        Route("/api/games/{game_id}/bot", endpoint(games.bot_move, body=True), methods=["POST"]),
        Route("/api/games/{game_id}/extension", endpoint(games.extension), methods=["POST"]),
        Route("/api/games/{game_id}/rematch", endpoint(games.rematch, status=201), methods=["POST"]),
        Route("/api/games/{game_id}/record", record),
        Route("/api/replay", load_record, methods=["POST"]),
        # An editable install links the files (`editable_mode=strict`): follow the links.
        Mount("/static", StaticFiles(directory=STATIC, follow_symlink=True), name="static"),
    ]
    app = Starlette(routes=routes)
    app.state.games = games
    return app
