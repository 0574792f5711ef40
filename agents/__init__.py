"""piramida.agents: bots that play from the game state (the agent protocol, random, greedy, search).

`make_agent` builds one by name, so matches and the command line can name their bots.
The module `candidates` keeps its name (its function of the same name, and `aim`, are not
re-exported here, so that `from piramida.agents import candidates` is the module).
"""

from collections.abc import Callable
from typing import Any

from piramida.agents.candidates import Candidates, PowerRule
from piramida.agents.greedy import GreedyAgent
from piramida.agents.protocol import Agent
from piramida.agents.random_agent import RandomAgent
from piramida.agents.search import SearchAgent

AGENTS: dict[str, Callable[..., Agent]] = {
    "random": RandomAgent,
    "greedy": GreedyAgent,
    "search": SearchAgent,
}
PLANNERS = ("search",)  # bots that plan for the execution noise: they take `noise_level`


def make_agent(name: str, **kwargs: Any) -> Agent:
    """The agent called `name` ("random", "greedy", "search"), built with `kwargs`.

    A ValueError names an unknown one.
    """
    if name not in AGENTS:
        raise ValueError(f"agents: unknown agent {name!r}; choose from {sorted(AGENTS)}")
    return AGENTS[name](**kwargs)


__all__ = [
    "AGENTS",
    "PLANNERS",
    "Agent",
    "Candidates",
    "GreedyAgent",
    "PowerRule",
    "RandomAgent",
    "SearchAgent",
    "make_agent",
]
