"""What one client may cost the play server: a body's size, the time to send a request, a disconnect.

Any local page or script can reach the server, so no request may hold memory or a
connection without bound. `BodyLimit` (ASGI middleware) reads each body before the app
sees it: a declared `Content-Length` over the limit is answered 413 at once, a body that
grows past it 413 as soon as it does, one not sent whole in time 408, and each closes the
connection; a client that goes away mid-body is logged as one line and answered nothing.
`deadline_protocol` gives uvicorn an HTTP/1.1 protocol that closes a connection whose
request head (the request line and headers) is not sent whole in time, which uvicorn's
own timeouts (keep-alive only) never do.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any

from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Limits:
    """The server's limits; the defaults are generous for the page and a match record on one machine.

    Attributes:
      max_body_bytes: the largest body; a match record to replay is the largest the page
        sends, about 5 kB a move (measured on `piramida eval`'s replays): some 800 moves.
      body_timeout_s: time to send a whole body once the head is in.
      head_timeout_s: time to send a whole request head, from the connection's start or the
        previous answer.

    """

    max_body_bytes: int = 4 << 20
    body_timeout_s: float = 15.0
    head_timeout_s: float = 15.0


class _TooLargeError(Exception):
    """The body grew past the limit."""


class _DisconnectedError(Exception):
    """The client went away before its body was whole."""


def _closing(status: int, message: str) -> JSONResponse:
    """`{"error": message}` that ends the connection (the rest of the body is never read)."""
    return JSONResponse({"error": message}, status_code=status, headers={"Connection": "close"})


def _who(client: Any) -> str:
    """A client's address for the log: `host:port` (uvicorn's `(host, port)`), if known."""
    return f"{client[0]}:{client[1]}" if client else "a client"


class BodyLimit:
    """ASGI middleware: the whole body, within the `Limits`, read before the app runs."""

    def __init__(self, app: ASGIApp, limits: Limits) -> None:
        """Pass requests whose body fits `limits` on to `app`."""
        self.app = app
        self.limits = limits

    async def _read(self, receive: Receive) -> bytes:
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                raise _DisconnectedError
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.limits.max_body_bytes:
                raise _TooLargeError
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Read the body, then run the app on it; answer 413 or 408, or log a disconnect, instead."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limits.max_body_bytes
        too_large = f"body: larger than the limit of {limit} bytes"
        declared = Headers(scope=scope).get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            await _closing(413, too_large)(scope, receive, send)
            return
        try:
            body = await asyncio.wait_for(self._read(receive), self.limits.body_timeout_s)
        except _TooLargeError:
            await _closing(413, too_large)(scope, receive, send)
            return
        except TimeoutError:
            message = f"body: not sent whole within {self.limits.body_timeout_s:g} s"
            await _closing(408, message)(scope, receive, send)
            return
        except _DisconnectedError:
            request = f"{scope['method']} {scope['path']}"
            log.info("%s went away before sending the whole body of %s", _who(scope.get("client")), request)
            return
        delivered = False

        async def replay() -> Message:
            """The body in one message, then the client's own messages (a disconnect)."""
            nonlocal delivered
            if delivered:
                return await receive()
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)


def deadline_protocol(limits: Limits) -> type[H11Protocol]:
    """Uvicorn's h11 protocol, closing a connection whose request head is not whole in `head_timeout_s`.

    The deadline starts with the connection and again after each answer, and stops once a
    head is parsed (the body has `BodyLimit`'s own deadline).
    """

    class HeadDeadlineProtocol(H11Protocol):
        _deadline: asyncio.TimerHandle | None = None

        def _arm(self) -> None:
            self._disarm()
            self._deadline = self.loop.call_later(limits.head_timeout_s, self._expire)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _expire(self) -> None:
            self._deadline = None
            if not self.transport.is_closing():
                log.info("closed %s: no whole request head in %g s", _who(self.client), limits.head_timeout_s)
                self.transport.close()

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._arm()

        def handle_events(self) -> None:
            cycle = self.cycle
            super().handle_events()
            if self.cycle is not cycle:  # a head was parsed: its request runs
                self._disarm()

        def on_response_complete(self) -> None:
            self._arm()  # before the next pipelined request, whose head disarms it
            super().on_response_complete()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

    return HeadDeadlineProtocol
