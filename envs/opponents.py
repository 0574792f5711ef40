"""Opponents: a bot by name (`random`, `greedy`, `search:LEVEL`), a policy over observations, or the learner.

A bot plays from the game state (`agents.Agent.act`). A trained policy plays from the
observation, so it becomes an opponent here, through the same encoding the learner uses:
the opponent sees the table from its own side (the observation is always from the
player to move) and its action is decoded like the learner's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import numpy as np

from piramida.agents import Agent, make_bot
from piramida.envs import core
from piramida.rules import state as st
from piramida.rules.game import Move

# A policy over observations: (observations (B, ...), numpy) -> actions (B, ...).
ObservationPolicy = Callable[[Any], Any]


class ObservationOpponent:
    """An opponent that acts through the observation and action encoding (a saved or live policy)."""

    def __init__(
        self, settings: core.Settings, policy: ObservationPolicy | None = None, name: str = "policy"
    ) -> None:
        """`policy` may be set later (`set_policy`), as self-play does once the learner exists."""
        self.settings, self.policy, self.name = settings, policy, name

    def set_policy(self, policy: ObservationPolicy) -> None:
        """Play with `policy` from now on (self-play: the learner's current policy)."""
        self.policy = policy

    def __call__(self, states: st.GameState, keys: Any) -> Move:
        """Moves for a batch: observe from the mover's side, ask the policy, decode."""
        if self.policy is None:
            raise RuntimeError(
                f"opponent {self.name!r} has no policy yet: call env.set_opponent_policy(fn) "
                "(fn maps a batch of observations to a batch of actions) before playing"
            )
        settings = self.settings
        seen = core.observe_states(states, settings.shot_limit, settings.noise, settings.observation)
        policy: Any = self.policy
        on_device = getattr(policy, "on_device", False)  # it takes JAX arrays (DLPack to torch, or jax)
        observations = seen if on_device else jax.tree_util.tree_map(np.asarray, seen)
        if getattr(policy, "takes_masks", False) and settings.action_mode == "assisted":
            # A policy that masks its choices (MaskablePPO, a jax-ppo checkpoint) gets the legal slots.
            masks = core.legal_masks(states)
            actions = policy(observations, masks if on_device else np.array(masks))  # np.array: writable
        else:
            actions = policy(observations)
        return core.decode_moves(states, actions, settings.action_mode)


def resolve(opponent: str | Agent | ObservationPolicy, settings: core.Settings) -> core.Policy:
    """A batch policy from a bot's name, `self`, an Agent, or a callable over observations.

    A saved policy is a player of `training.players` (`make_player(path, noise)`, an Agent):
    the environments sit below training and never open a file themselves.
    """
    if isinstance(opponent, str):
        if opponent == "self":
            return ObservationOpponent(settings, None, "self")
        try:
            return make_bot(opponent, settings.noise).act
        except ValueError as error:
            raise ValueError(
                f"opponent: {error}, or 'self'; a saved policy plays as "
                "piramida.training.players.make_player(path, noise)"
            ) from error
    if hasattr(opponent, "act"):
        return opponent.act
    if callable(opponent):
        return ObservationOpponent(settings, opponent, getattr(opponent, "__name__", "policy"))
    raise ValueError(
        f"opponent: expected a bot name, 'self', an Agent or a callable, got {type(opponent).__name__}"
    )
