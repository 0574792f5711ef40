"""piramida.agents: bots that play from the game state (protocol, random, greedy, casual, search, trained).

`make_agent` builds one by name, and `make_bot` from a player's name (`greedy`,
`search:medium`), so matches, the environments and the command line name bots alike
(saved policies join them in `training.players`).
The module `candidates` keeps its name (its function of the same name, and `aim`, are not
re-exported here, so that `from piramida.agents import candidates` is the module).
"""

from collections.abc import Callable
from typing import Any

from piramida.agents.candidates import Candidates, PowerRule
from piramida.agents.casual import CasualAgent
from piramida.agents.greedy import GreedyAgent
from piramida.agents.protocol import Agent
from piramida.agents.random_agent import RandomAgent
from piramida.agents.search import DEFAULT_LEVEL, LEVELS, SearchAgent
from piramida.agents.trained import LEVELS as TRAINED_LEVELS
from piramida.agents.trained import TrainedAgent

AGENTS: dict[str, Callable[..., Agent]] = {
    "random": RandomAgent,
    "greedy": GreedyAgent,
    "casual": CasualAgent,
    "search": SearchAgent,
    "trained": TrainedAgent,
}
PLANNERS = ("search", "trained")  # bots that know the execution noise: they take `noise_level`
LEVELS_OF: dict[str, Any] = {"search": LEVELS, "trained": TRAINED_LEVELS}  # the bots that take a level


def make_agent(name: str, **kwargs: Any) -> Agent:
    """The agent called `name` ("random", "greedy", "casual", "search", "trained"), built with `kwargs`.

    A ValueError names an unknown one.
    """
    if name not in AGENTS:
        raise ValueError(f"agents: unknown agent {name!r}; choose from {sorted(AGENTS)}")
    return AGENTS[name](**kwargs)


def check_bot(name: str) -> str:
    """`name` if it names a bot (`search:LEVEL`, `trained:LEVEL` too); else a ValueError saying which are."""
    bot, colon, level = name.partition(":")
    if bot not in AGENTS:
        levels = ", ".join(f"{b}:{k}" for b, known in LEVELS_OF.items() for k in known)
        raise ValueError(f"unknown bot {name!r}; choose from {', '.join(sorted(AGENTS))} ({levels})")
    if colon and bot not in LEVELS_OF:
        raise ValueError(f"bot {name!r}: only {' and '.join(LEVELS_OF)} take a level")
    if colon and level not in LEVELS_OF[bot]:
        raise ValueError(f"bot {name!r}: unknown {bot} level; choose from {', '.join(LEVELS_OF[bot])}")
    return name


def make_bot(name: str, noise_level: float) -> Agent:
    """The bot called `name` (`random`, `greedy`, `casual`, `search[:LEVEL]`, `trained[:LEVEL]`) at a noise.

    The search plans for the noise of the games it plays and the trained policy sees it,
    so they are built per noise level.
    """
    bot, _, level = check_bot(name).partition(":")
    kwargs: dict[str, Any] = {"noise_level": noise_level} if bot in PLANNERS else {}
    if level:
        kwargs["level"] = level
    return make_agent(bot, **kwargs)


__all__ = [
    "AGENTS",
    "DEFAULT_LEVEL",
    "LEVELS_OF",
    "PLANNERS",
    "Agent",
    "Candidates",
    "CasualAgent",
    "GreedyAgent",
    "PowerRule",
    "RandomAgent",
    "SearchAgent",
    "TrainedAgent",
    "check_bot",
    "make_agent",
    "make_bot",
]
