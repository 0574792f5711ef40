"""The players of an evaluation by name: bots (`greedy`, `search:LEVEL` ...), page levels, saved policies.

`level:NAME` is a level of the play page (`agents.ladder`): its bot with its own cue, so
that it plays in a tournament as it plays on the page, whatever the tournament's noise.

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
from piramida.agents import ladder as levels
from piramida.physics import noise
from piramida.training import players

LEVEL = "level:"  # the prefix of a play-page level's name


def page_level(name: str) -> levels.Level | None:
    """The play-page level `name` spells (`level:NAME`), None for other players; else ArgumentTypeError."""
    if not name.startswith(LEVEL):
        return None
    try:
        return levels.find(name.removeprefix(LEVEL))
    except levels.LevelError as error:
        raise argparse.ArgumentTypeError(f"agent {name!r:.50}: {error}") from error


def check_name(name: str) -> str:
    """`name` if it names a bot, a page level or a file (`check_policies` loads it); or ArgumentTypeError."""
    if page_level(name) is not None:
        return name
    try:
        return players.check_name(name)
    except players.PolicyError as error:
        raise argparse.ArgumentTypeError(f"agent {error}") from error


def magnitude_of(name: str, magnitude: float) -> float:
    """The execution noise `name` plays with in games at `magnitude`: a page level's own cue, else that."""
    level = page_level(name)
    return magnitude if level is None else noise.level(level.noise)


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
    """The player called `name` (a checked name) for games at noise `magnitude` (`magnitude_of`)."""
    level = page_level(name)
    try:
        if level is not None:
            return players.make_player(level.player(), magnitude_of(name, magnitude))
        return players.make_player(name, magnitude)
    except players.PolicyError as error:
        raise argparse.ArgumentTypeError(f"agent {error}") from error
