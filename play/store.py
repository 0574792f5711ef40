"""Games on disk: one JSON file per game, written atomically, so a crash or restart loses nothing.

A game is a JSON-ready dict (`games.Games` owns its fields). Every change is written to a
temporary file and moved over the old one with `os.replace`, so a reader (another tab, a
restarted server) sees the game before or after a move, never half of one. Ids are
random hex, checked before they touch the file system.
"""

from __future__ import annotations

import errno
import re
import secrets
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from piramida.physics import jsontext
from piramida.physics.files import write_atomic

DEFAULT_DIR = Path.home() / ".cache" / "piramida" / "games"
GAME_ID = re.compile(r"[0-9a-f]{16}")
FULL = (errno.ENOSPC, errno.EDQUOT)  # the disk (or the user's quota) is full: HTTP 507


class UnknownGameError(KeyError):
    """No game of that id in the store."""


class StoreError(Exception):
    """A game file that could not be read or written: `status` 507 for a full disk, 503 otherwise."""

    def __init__(self, path: Path, doing: str, err: OSError) -> None:
        """Name the file, what was being done and the system's reason (never a traceback)."""
        self.status = 507 if err.errno in FULL else 503
        unchanged = "; nothing changed" if doing == "write" else ""
        super().__init__(f"game file {path.name}: cannot {doing} it ({err.strerror or err}){unchanged}")


class Store:
    """The game files under `directory`, and one lock per game for the moves that change it."""

    def __init__(self, directory: str | Path = DEFAULT_DIR) -> None:
        """Use (and create) `directory`."""
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()

    def new_id(self) -> str:
        """A fresh random id (64 bits: no two tabs collide)."""
        return secrets.token_hex(8)

    def path(self, game_id: str) -> Path:
        """The file of a game; `UnknownGameError` for an id that cannot be one."""
        if not GAME_ID.fullmatch(game_id):
            raise UnknownGameError(game_id)
        return self.directory / f"{game_id}.json"

    def load(self, game_id: str) -> dict[str, Any]:
        """The game as saved last; `UnknownGameError`, `FieldError` (no JSON) or `StoreError` (unreadable)."""
        path = self.path(game_id)
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            raise UnknownGameError(game_id) from None
        except OSError as err:
            raise StoreError(path, "read", err) from err
        game: dict[str, Any] = jsontext.loads(raw, f"game {game_id}")
        return game

    def save(self, game: dict[str, Any]) -> None:
        """Write a game atomically (temporary file, then `os.replace`); never NaN or an infinity.

        A failed write (a full disk) keeps the file as it was (`write_atomic`): `StoreError`.
        """
        path = self.path(game["id"])
        try:
            write_atomic(path, jsontext.dumps(game))
        except OSError as err:
            raise StoreError(path, "write", err) from err

    @contextmanager
    def lock(self, game_id: str) -> Iterator[None]:
        """Hold a game's lock: one move at a time per game, games in parallel."""
        with self._guard:
            lock = self._locks.setdefault(game_id, threading.Lock())
        with lock:
            yield
