"""The players of an evaluation by name: bots (`random`, `greedy`, `search:LEVEL`) or a saved policy.

A name is checked when the command line is read, so a typo fails before any game is played;
the bot itself is built per noise level, because the search bot plans for the noise of the
games it plays (`agents.PLANNERS`).

A saved policy (a `piramida train` checkpoint, `training.players`) is accepted only if it
loads and answers a move (`check_policies`), so that a file of another kind is rejected
before any game.
"""

from __future__ import annotations

import argparse

from piramida.agents import DEFAULT_LEVEL, Agent
from piramida.training import players


def check_name(name: str) -> str:
    """`name` if it names a bot or an existing file (`check_policies` loads it); else ArgumentTypeError."""
    try:
        return players.check_name(name)
    except players.PolicyError as error:
        raise argparse.ArgumentTypeError(f"agent {error}") from error


def parse_agents(text: str) -> list[str]:
    """Comma-separated agent names (`check_name`), each at most once."""
    names = [item.strip() for item in text.split(",") if item.strip()]
    if not names:
        raise argparse.ArgumentTypeError("empty agent list")
    for name in names:
        check_name(name)
    seen = set()
    for name in names:
        if canonical(name) in seen:
            raise argparse.ArgumentTypeError(f"agent {name!r} is listed twice")
        seen.add(canonical(name))
    return [canonical(name) for name in names]


def canonical(name: str) -> str:
    """One spelling per player: `search` is the search bot at its default level."""
    return f"search:{DEFAULT_LEVEL}" if name == "search" else name


def check_policies(names: list[str]) -> None:
    """Load every saved policy among `names` once (ArgumentTypeError for one that does not play).

    Called after the options are read, so that `--trust-pickle` applies whatever its place.
    """
    for name in names:
        if players.names_a_file(name):
            build(name, 0.0)


def build(name: str, magnitude: float) -> Agent:
    """The player called `name` (a checked name) for games with execution noise `magnitude`."""
    try:
        return players.make_player(name, magnitude)
    except players.PolicyError as error:
        raise argparse.ArgumentTypeError(f"agent {error}") from error
