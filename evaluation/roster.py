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
from pathlib import Path
from typing import Any

from piramida.agents import AGENTS, PLANNERS, Agent, make_agent
from piramida.agents.search import DEFAULT_LEVEL, LEVELS
from piramida.training import players
from piramida.training.players import PolicyAgent


def check_name(name: str) -> str:
    """`name` if it names a bot or an existing file (`check_policies` loads it); else ArgumentTypeError."""
    if players.names_a_file(name):
        if not Path(name).is_file():
            raise argparse.ArgumentTypeError(f"agent {name!r}: no such file (a saved policy is a .zip file)")
        return name
    bot, _, level = name.partition(":")
    if bot not in AGENTS:
        raise argparse.ArgumentTypeError(
            f"unknown agent {name!r}; choose from {', '.join(sorted(AGENTS))} "
            f"(search levels: {', '.join(f'search:{k}' for k in LEVELS)}) or a saved policy (.zip)"
        )
    if level and bot != "search":
        raise argparse.ArgumentTypeError(f"agent {name!r}: only search takes a level")
    if level and level not in LEVELS:
        raise argparse.ArgumentTypeError(
            f"agent {name!r}: unknown search level; choose from {', '.join(LEVELS)}"
        )
    return name


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
            load_policy(name, 0.0)


def load_policy(path: str, magnitude: float) -> PolicyAgent:
    """The saved policy at `path` (`training.players.load_policy`); ArgumentTypeError if it fails."""
    try:
        return players.load_policy(path, magnitude)
    except players.PolicyError as error:
        raise argparse.ArgumentTypeError(f"agent {error}") from error


def build(name: str, magnitude: float) -> Agent:
    """The player called `name` (a checked name) for games with execution noise `magnitude`."""
    if players.names_a_file(name):
        return load_policy(name, magnitude)
    bot, _, level = name.partition(":")
    kwargs: dict[str, Any] = {"noise_level": magnitude} if bot in PLANNERS else {}
    if level:
        kwargs["level"] = level
    return make_agent(bot, **kwargs)
