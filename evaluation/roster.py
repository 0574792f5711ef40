"""The players of an evaluation by name: bots (`random`, `greedy`, `search:LEVEL`) or a saved policy.

A name is checked when the command line is read, so a typo fails before any game is played;
the bot itself is built per noise level, because the search bot plans for the noise of the
games it plays (`agents.PLANNERS`).

A saved policy is a stable-baselines3 `.zip` (PPO, SAC or MaskablePPO); it plays through
the environments' encoding (`envs.opponents`): the one a `piramida train` checkpoint names
in its metadata (its action mode, observation and shot limit), else the default (raw
actions, flat observations). It is accepted only if it loads and answers a move, so that a
checkpoint of another kind is rejected up front.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp

from piramida.agents import AGENTS, PLANNERS, Agent, make_agent
from piramida.agents.search import DEFAULT_LEVEL, LEVELS
from piramida.rules import ids
from piramida.rules import state as st
from piramida.rules.game import Move


def is_path(name: str) -> bool:
    """Whether an agent name means a saved policy (a .zip, or anything with a folder in it)."""
    return name.endswith(".zip") or "/" in name or Path(name).exists()


def check_name(name: str) -> str:
    """`name` if it names a bot or a loadable saved policy; else ArgumentTypeError saying why."""
    if is_path(name):
        load_policy(name, 0.0)
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


class PolicyAgent:
    """A saved policy as an `Agent`: it sees the table through the environments' encoding."""

    def __init__(self, path: str, magnitude: float) -> None:
        """Load the policy at `path` for games with execution noise `magnitude`."""
        from piramida.envs import core
        from piramida.envs.opponents import ObservationOpponent, resolve
        from piramida.training import checkpoint

        self.name = path
        meta = checkpoint.read_meta(path, required=False)
        if meta is None:  # a plain SB3 model: the default encoding
            self._policy = resolve(path, core.Settings(noise=magnitude))
            return
        # A `piramida train` checkpoint plays through the encoding it was trained with.
        settings = core.Settings(
            action_mode=meta["action_mode"],
            observation=meta["observation"],
            noise=magnitude,
            shot_limit=meta["shot_limit"],
        )
        policy, _ = checkpoint.policy_function(path)
        self._policy = ObservationOpponent(settings, policy, path)

    def act(self, states: st.GameState, keys: Any) -> Move:
        """The policy's moves: states (B,), keys (B, 2)."""
        return self._policy(states, keys)


def load_policy(path: str, magnitude: float) -> PolicyAgent:
    """The saved policy at `path`, tried on one fresh table; ArgumentTypeError if that fails."""
    if not Path(path).is_file():
        raise argparse.ArgumentTypeError(f"agent {path!r}: no such file (a saved policy is a .zip file)")
    try:
        agent = PolicyAgent(path, magnitude)
        state = st.new_games(jnp.asarray([ids.FREE]), jax.random.PRNGKey(0)[None], jnp.zeros(1, jnp.int32))
        jax.block_until_ready(agent.act(state, jax.random.PRNGKey(1)[None]))
    except Exception as error:  # any failure to load or to move means: not a usable policy
        raise argparse.ArgumentTypeError(f"agent {path!r}: cannot load it as a policy ({error})") from error
    return agent


def build(name: str, magnitude: float) -> Agent:
    """The player called `name` (a checked name) for games with execution noise `magnitude`."""
    if is_path(name):
        return load_policy(name, magnitude)
    bot, _, level = name.partition(":")
    kwargs: dict[str, Any] = {"noise_level": magnitude} if bot in PLANNERS else {}
    if level:
        kwargs["level"] = level
    return make_agent(bot, **kwargs)
