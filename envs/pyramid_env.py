"""`PyramidEnv`: one frame of a pyramid variant against an opponent, as a Gymnasium env.

One step is one move of the learner: a shot, or a decision when one is pending (the
observation's `phase` says which); the opponent's replies are played before the step
returns. `terminated` at the end of the frame, `truncated` at the shot limit (the env's
own: `spec.max_episode_steps` says it, and no `TimeLimit` is added). The info holds the
referee's verdict of the learner's move (`legal`, `fouls`, `points`, ...; zeros at reset)
and the standing.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from piramida.agents import Agent
from piramida.envs import actions as act
from piramida.envs import core, opponents, render
from piramida.envs import observation as encoding
from piramida.envs.tables import Tables
from piramida.envs.vector_env import ShotLimitSpec, reset_info
from piramida.physics.runtime import in_float64_methods


@in_float64_methods
class PyramidEnv(ShotLimitSpec, render.TableRendering, gym.Env[Any, Any]):
    """One pyramid frame per episode (see the module docstring).

    Args:
      variant: `free`, `combined`, `dynamic` or `classic` (or 0-3).
      opponent: a bot name (`random`, `greedy`), `self`, a saved model's path, an Agent, or
        a callable from observations to actions.
      render_mode: `rgb_array`, `ansi` or `human` (where Tk has a display: the instance's
        `metadata["render_modes"]` lists the modes that work here).
      options: `action_mode` (`raw` Box or `assisted` MultiDiscrete), `observation` (`flat`
        or `dict`), `noise` (a magnitude or a level name, `physics.noise`), `shot_limit`,
        `point_reward`, `win_reward` (`core.Settings`).

    """

    metadata: dict[str, Any] = {"render_modes": list(render.RENDER_MODES), "render_fps": 2}  # noqa: RUF012

    def __init__(
        self,
        variant: str | int = "free",
        opponent: str | Agent | opponents.ObservationPolicy = "random",
        render_mode: str | None = None,
        **options: Any,
    ) -> None:
        """Build the spaces and the engine (compiled on the first reset)."""
        self.settings = core.settings_from(variant, **options)
        self.render_mode = render.check_render_mode(render_mode)
        self.metadata = {**self.metadata, "render_modes": render.available_render_modes()}
        self.observation_space = encoding.observation_space(self.settings.observation)
        self.action_space = act.action_space(self.settings.action_mode)
        self.opponent = opponents.resolve(opponent, self.settings)
        self.core = Tables(1, self.settings, self.opponent)
        self._viewer: render.Viewer | None = None

    def set_opponent_policy(self, policy: opponents.ObservationPolicy) -> None:
        """For `opponent="self"`: the policy (observations -> actions) the opponent plays with."""
        if not isinstance(self.opponent, opponents.ObservationOpponent):
            raise TypeError("set_opponent_policy: this env's opponent is a bot, not a policy")
        self.opponent.set_policy(policy)

    def _obs(self) -> Any:
        batch = self.core.observe()
        if isinstance(batch, dict):
            return {name: value[0] for name, value in batch.items()}
        return batch[0]

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """A new frame; the same seed gives the same frame and, with the same actions, the same game."""
        core.check_reset_options(options)
        super().reset(seed=seed)
        self.core.reset(core.seeds_from(self.np_random, 1))
        return self._obs(), _first(reset_info(self.core))

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Play the learner's move and the opponent's replies."""
        if not self.action_space.contains(np.asarray(action, self.action_space.dtype)):
            raise ValueError(f"action {action!r} is outside the action space {self.action_space}")
        reward, terminated, truncated = self.core.step(np.asarray(action)[None])
        if self.render_mode == "human":
            self.render()
        return (
            self._obs(),
            float(reward[0]),
            bool(terminated[0]),
            bool(truncated[0]),
            _first(self.core.info(self.core.last)),
        )

    def action_masks(self) -> np.ndarray:
        """Legal choices of the assisted mode (sb3-contrib's MaskablePPO reads this)."""
        if self.settings.action_mode != "assisted":
            raise ValueError("action_masks: only the assisted action mode has discrete choices")
        return self.core.action_masks()[0]


def _first(info: dict[str, np.ndarray]) -> dict[str, Any]:
    return {name: value[0] for name, value in info.items()}
