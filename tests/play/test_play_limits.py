"""What one client may cost the play server: the body's size, the time to send a request, a disconnect.

A real uvicorn server in a thread (`piramida play`'s protocol, `limits.deadline_protocol`)
with small limits, spoken to over raw sockets: a body too large is refused before it is
read, a request half sent is closed after the deadline, and a client that goes away
mid-body is one log line. No request here plays a move, so nothing compiles.
"""

from __future__ import annotations

import logging
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import uvicorn
from starlette.testclient import TestClient

from piramida.play.games import Settings
from piramida.play.limits import Limits, deadline_protocol
from piramida.play.server import create_app, local_hosts

LIMITS = Limits(max_body_bytes=10_000, body_timeout_s=1.0, head_timeout_s=1.0)
WAIT_S = 30.0  # a generous bound on each closing: the deadlines are 1 s


class Server:
    """A running server's address and the games folder it writes to."""

    def __init__(self, port: int, games: Path) -> None:
        self.port, self.games = port, games

    def connect(self) -> socket.socket:
        sock = socket.create_connection(("127.0.0.1", self.port), timeout=WAIT_S)
        return sock

    def head(self, method: str, path: str, headers: dict[str, str]) -> bytes:
        lines = [
            f"{method} {path} HTTP/1.1",
            f"Host: 127.0.0.1:{self.port}",
            *(f"{k}: {v}" for k, v in headers.items()),
        ]
        return ("\r\n".join(lines) + "\r\n\r\n").encode()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    games = tmp_path_factory.mktemp("games")
    app = create_app(
        games,
        Settings(bot="greedy", noise="none"),
        allowed_hosts=local_hosts("127.0.0.1", port),
        limits=LIMITS,
    )
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, http=deadline_protocol(LIMITS), log_level="warning", log_config=None
    )
    running = uvicorn.Server(config)
    thread = threading.Thread(target=running.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + WAIT_S
    while not running.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    yield Server(port, games)
    running.should_exit = True
    thread.join(10)


def read_until_closed(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection (a timeout fails the test)."""
    received = b""
    while chunk := sock.recv(65536):
        received += chunk
    return received


def test_a_declared_body_over_the_limit_is_413_before_a_byte_of_it_is_read(server: Server) -> None:
    # A 128 MB body was read and parsed in full. Now the head alone is
    # answered, and the connection closed, with not one byte of the body sent.
    with server.connect() as sock:
        sock.sendall(
            server.head(
                "POST", "/api/games", {"Content-Type": "application/json", "Content-Length": str(128 << 20)}
            )
        )
        answer = read_until_closed(sock)
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert b'"error":"body: larger than the limit of 10000 bytes"' in answer


def test_a_chunked_body_is_413_as_soon_as_it_passes_the_limit(server: Server) -> None:
    headers = {"Content-Type": "application/json", "Transfer-Encoding": "chunked"}
    chunk = b"2710\r\n" + b" " * 10_000 + b"\r\n"  # 10,000 bytes a chunk (hex 2710)
    with server.connect() as sock:
        sock.sendall(server.head("POST", "/api/games", headers) + chunk + chunk)  # never ended
        answer = read_until_closed(sock)
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]


def test_a_body_within_the_limit_is_served(tmp_path: Path) -> None:
    client = TestClient(create_app(tmp_path, allowed_hosts=["testserver"], limits=LIMITS))
    padded = b'{"seed": 1, "settings": {"variant": "snooker"}}' + b" " * 9_000
    response = client.post("/api/games", content=padded, headers={"Content-Type": "application/json"})
    assert response.status_code == 422 and "settings.variant" in response.json()["error"]
    response = client.post(
        "/api/games", content=padded + b" " * 1_000, headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 413 and response.json() == {
        "error": "body: larger than the limit of 10000 bytes"
    }


@pytest.mark.parametrize("sent", ["half a head", "a head and half its body", "nothing"])
def test_a_stalled_connection_is_closed_after_the_deadline(server: Server, sent: str) -> None:
    # 300 half-sent requests stayed open for good; each is now closed after its deadline
    # (1 s here), a stalled body with a 408 answer.
    head = server.head("POST", "/api/games", {"Content-Type": "application/json", "Content-Length": "100"})
    data = {"half a head": head[:30], "a head and half its body": head + b'{"seed":', "nothing": b""}[sent]
    with server.connect() as sock:
        sock.sendall(data)
        started = time.monotonic()
        answer = read_until_closed(sock)
        waited = time.monotonic() - started
    assert waited < WAIT_S
    if sent == "a head and half its body":
        assert answer.startswith(b"HTTP/1.1 408") and b"not sent whole within 1 s" in answer, answer[:200]
    else:
        assert answer == b""


def test_a_keep_alive_connection_that_stalls_in_its_next_head_is_closed(server: Server) -> None:
    # uvicorn's keep-alive timer stops at the first byte of the next request: the deadline does not.
    with server.connect() as sock:
        sock.sendall(server.head("GET", "/api/ready", {}))
        first = b""
        while not first.endswith(b"}"):  # the whole answer: its head and its JSON body
            chunk = sock.recv(65536)
            assert chunk, first  # not closed before the answer
            first += chunk
        assert first.startswith(b"HTTP/1.1 200"), first
        sock.sendall(b"GET /api/rea")
        assert read_until_closed(sock) == b""


def test_a_client_that_goes_away_mid_body_is_one_log_line(
    server: Server, caplog: pytest.LogCaptureFixture
) -> None:
    # Each disconnect was logged as a full ClientDisconnect traceback (100 disconnects, 100 tracebacks).
    head = server.head("POST", "/api/games", {"Content-Type": "application/json", "Content-Length": "100"})
    before = len(list(server.games.iterdir()))
    with caplog.at_level(logging.INFO):
        for _ in range(3):
            with server.connect() as sock:
                sock.sendall(head + b'{"seed": 1')
                time.sleep(0.2)  # the server has the head and part of the body
        deadline = time.monotonic() + WAIT_S
        while sum("went away" in r.getMessage() for r in caplog.records) < 3:
            assert time.monotonic() < deadline, [r.getMessage() for r in caplog.records]
            time.sleep(0.05)
    assert all(r.exc_info is None and r.levelno < logging.WARNING for r in caplog.records), [
        (r.levelname, r.getMessage()) for r in caplog.records
    ]
    gone = [r.getMessage() for r in caplog.records if "went away" in r.getMessage()]
    assert len(gone) == 3 and all("\n" not in line and "POST /api/games" in line for line in gone)
    assert len(list(server.games.iterdir())) == before
