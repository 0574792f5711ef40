"""Players by name: the one room that turns a name into what `eval`, `play` and training put at a table.

A name is a bot (`random`, `greedy`, `search`, `search:LEVEL`, `trained`:
`agents.make_bot`), a slot-scoring policy's `.npz` (`piramida expert distill`; it plays
the shot menu from the game state like the shipped `trained` bot, at the trained bot's
default level or at the one named after a colon: `RUN/policy.npz:deep`) or a saved policy's
path (`names_a_file`, the one test of "is this a file"). `self`, the learner itself, is
not a name here: a league (`training.league`) and the environments (`envs.opponents`)
give it its policy. A saved policy is a `piramida train` checkpoint
(PPO, SAC, MaskablePPO or jax-ppo, whose masked policies choose among the legal slots
only) or, with `--trust-pickle`, a stable-baselines3 `.zip` saved elsewhere
(`training.policies`); it plays through the environments' encoding (`envs.opponents`):
the one a `piramida train` checkpoint names in its metadata (its action mode, observation
and shot limit), else the default (raw actions, flat observations). `load_policy` accepts
a file only if it loads and answers a move on a fresh table, so that a file of another
kind is rejected before any game.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp

from piramida.agents import AGENTS, Agent, TrainedAgent, check_bot, make_bot
from piramida.agents.scorer import PolicyFileError
from piramida.agents.trained import DEFAULT_LEVEL as TRAINED_DEFAULT
from piramida.agents.trained import LEVELS as TRAINED_LEVELS
from piramida.rules import ids
from piramida.rules import state as st
from piramida.rules.game import Move


def slot_policy_level(name: str) -> tuple[str, str | None]:
    """(path, level) of a slot policy named with one of the trained bot's levels (`RUN/policy.npz:deep`).

    Any other name comes back whole, with no level.
    """
    path, colon, level = name.rpartition(":")
    if colon and path.endswith(".npz") and level in TRAINED_LEVELS:
        return path, level
    return name, None


def names_a_file(name: str) -> bool:
    """Whether a player's name means a saved policy (a .zip or .npz, anything with a folder in it, a file).

    A bot's name is a bot's even where a folder of that name sits in the working directory
    (`piramida eval --out greedy` makes one); `./greedy` names the file.
    """
    name = slot_policy_level(name)[0]
    if name.endswith((".zip", ".npz")) or "/" in name:
        return True
    return name.partition(":")[0] not in AGENTS and Path(name).exists()


class PolicyError(ValueError):
    """A name that is no player: an unknown bot, or a file that cannot play; the message says why."""


def check_name(name: str) -> str:
    """`name` if it names a bot or an existing file (cheap: the file is loaded by `make_player`)."""
    if names_a_file(name):
        if not Path(slot_policy_level(name)[0]).is_file():
            raise PolicyError(f"{name!r}: no such file (a saved policy is a .zip or a slot policy's .npz)")
        return name
    try:
        return check_bot(name)
    except ValueError as error:
        raise PolicyError(f"{error} or a saved policy (.zip, or a slot policy's .npz)") from error


def make_player(name: str, noise_level: float) -> Agent:
    """The player called `name` for games at execution noise `noise_level`; PolicyError if there is none."""
    if names_a_file(check_name(name)):
        path, level = slot_policy_level(name)
        if path.endswith(".npz"):  # a slot-scoring policy (`piramida expert distill`): plays the menu
            try:
                return TrainedAgent(path, noise_level, level or TRAINED_DEFAULT)
            except PolicyFileError as error:
                raise PolicyError(str(error)) from error
        return load_policy(name, noise_level)
    return make_bot(name, noise_level)


class PolicyAgent:
    """A saved policy as an `Agent`: it sees the table through the environments' encoding."""

    def __init__(self, path: str, magnitude: float) -> None:
        """Load the policy at `path` for games with execution noise `magnitude`."""
        from piramida.envs import core
        from piramida.envs.opponents import ObservationOpponent
        from piramida.training import policies

        self.name = path
        policy, meta = policies.policy_function(path)
        settings = core.Settings(noise=magnitude)  # a plain SB3 model: the default encoding
        if meta is not None:
            settings = core.Settings(
                action_mode=meta["action_mode"],
                observation=meta["observation"],
                noise=magnitude,
                shot_limit=meta["shot_limit"],
            )
        self._policy = ObservationOpponent(settings, policy, path)

    def act(self, states: st.GameState, keys: Any) -> Move:
        """The policy's moves: states (B,), keys (B, 2)."""
        return self._policy(states, keys)


def load_policy(path: str, magnitude: float) -> PolicyAgent:
    """The saved policy at `path`, tried on one fresh table; PolicyError if that fails."""
    if not Path(path).is_file():
        raise PolicyError(f"{path!r}: no such file (a saved policy is a .zip file)")
    try:
        agent = PolicyAgent(path, magnitude)
        state = st.new_games(jnp.asarray([ids.FREE]), jax.random.PRNGKey(0)[None], jnp.zeros(1, jnp.int32))
        jax.block_until_ready(agent.act(state, jax.random.PRNGKey(1)[None]))
    except Exception as error:  # any failure to load or to move means: not a usable policy
        raise PolicyError(f"{path!r}: cannot load it as a policy ({error})") from error
    return agent
