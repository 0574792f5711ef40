"""Bots for the play app's tests: one that waits for the test, as a long first compile would."""

from __future__ import annotations

import threading
from typing import Any

from piramida.physics import noise
from piramida.rules.game import Move
from piramida.rules.state import GameState
from piramida.training.players import make_player


class HeldBot:
    """The greedy bot, whose moves wait until the test sets `release` (a compile that takes minutes)."""

    def __init__(self, release: threading.Event) -> None:
        self.inner = make_player("greedy", noise.level("none"))
        self.name = self.inner.name
        self.release = release

    def act(self, states: GameState, keys: Any) -> Move:
        assert self.release.wait(120), "the test never released the bot"
        return self.inner.act(states, keys)
