"""The agent protocol: a bot that moves on a batch of tables from their game states.

Every bot plays through the same call, so matches, environments and the play app treat
them alike: `act` takes B game states and B PRNG keys and returns one batched
`rules.game.Move` for the player to move on each table, whatever the phase (a shot in
BREAK, NORMAL and IN_HAND; a decision in DECISION; anything in OVER, which `play`
ignores). The same keys give the same moves. Trained policies act on observations, not
states, and become opponents through `envs/`.
"""

from __future__ import annotations

from typing import Protocol

from jax import Array

from piramida.rules.game import Move
from piramida.rules.state import GameState


class Agent(Protocol):
    """A bot: `name`, and `act` on a batch of games."""

    name: str

    def act(self, states: GameState, keys: Array) -> Move:
        """The moves of the players to move: states with leading axis B, keys (B, 2)."""
        ...
