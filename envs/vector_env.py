"""`PyramidVectorEnv`: B tables stepped by one jitted call, for `gymnasium.make_vec`.

Auto-reset happens in the same step (Gymnasium's `AutoresetMode.SAME_STEP`), inside the
engine's passes (`envs.functional`): a table whose frame ended returns the first
observation of its next frame, drawn from the table's own key (so the seeds of `reset`
decide every later frame), and the last observation of the ended one is in
`infos["final_obs"]` (with the mask `infos["_final_obs"]`). The other infos are arrays
over the tables: the referee's verdict of the learner's move (`legal`, `fouls`,
`points`, `scored`, ...) and the standing (`score`, `phase`, `winner`), with the same
keys at reset (`reset_info`).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
from gymnasium.envs.registration import EnvSpec
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from piramida.agents import Agent
from piramida.envs import actions as act
from piramida.envs import core, opponents
from piramida.envs import observation as encoding
from piramida.envs.tables import Tables
from piramida.physics.fields import read_int
from piramida.physics.runtime import in_float64_methods
from piramida.rules import ids

# The verdict of the learner's move in the infos (`tables.Tables.info`): per table, shape and dtype.
MOVE_INFO: dict[str, tuple[tuple[int, ...], type]] = {
    "shot": ((), np.bool_),
    "legal": ((), np.bool_),
    "fouls": ((), np.int32),
    "invalid": ((), np.int32),
    "points": ((2,), np.int32),
    "scored": ((ids.N_BALLS,), np.bool_),
    "decision_invalid": ((), np.int32),
}


def reset_info(engine: Tables) -> dict[str, np.ndarray]:
    """The infos at reset: the standing, and the verdict keys all zero, as where no move was played.

    So reset and step give the same keys (SB3's `reset_infos`, Gymnasium's info wrappers and
    a user's logging read one set).
    """
    zeros: dict[str, np.ndarray] = {
        name: np.zeros((engine.batch, *shape), dtype) for name, (shape, dtype) in MOVE_INFO.items()
    }
    return engine.info(None) | zeros


class ShotLimitSpec:
    """The env's spec as `gym.make` or `gym.make_vec` set it, with `max_episode_steps` its shot limit.

    The ids are registered without a limit: `gym.make` would wrap a registered one in a
    `TimeLimit` of that number whatever `shot_limit` the env was made with (cutting a
    500-move frame at 200, or naming 200 for a 30-move one). The env truncates itself.
    """

    settings: core.Settings
    _spec: EnvSpec | None = None

    @property
    def spec(self) -> EnvSpec | None:
        """The spec set, with `max_episode_steps` the shot limit the env truncates at (None if unset)."""
        if self._spec is None:
            return None
        return dataclasses.replace(self._spec, max_episode_steps=self.settings.shot_limit)

    @spec.setter
    def spec(self, value: EnvSpec | None) -> None:
        """What `gym.make` and `gym.make_vec` set."""
        self._spec = value


@in_float64_methods
class PyramidVectorEnv(ShotLimitSpec, VectorEnv[Any, Any, Any]):
    """B frames of one variant (see `PyramidEnv` for the arguments), one jitted step for all."""

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}  # noqa: RUF012

    def __init__(
        self,
        num_envs: int = 1,
        variant: str | int = "free",
        opponent: str | Agent | opponents.ObservationPolicy = "random",
        render_mode: str | None = None,
        **options: Any,
    ) -> None:
        """Build the spaces and the engine (compiled on the first reset)."""
        if render_mode is not None:
            raise ValueError("render_mode: the vector env does not render; render a single PyramidEnv")
        self.settings = core.settings_from(variant, **options)
        self.num_envs = read_int(num_envs, "num_envs", 1, core.MAX_COUNT)
        self.single_observation_space = encoding.observation_space(self.settings.observation)
        self.single_action_space = act.action_space(self.settings.action_mode)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.opponent = opponents.resolve(opponent, self.settings)
        self.core = Tables(self.num_envs, self.settings, self.opponent, restart=True)
        self.render_mode = None

    def set_opponent_policy(self, policy: opponents.ObservationPolicy) -> None:
        """For `opponent="self"`: the policy (observations -> actions) the opponent plays with."""
        if not isinstance(self.opponent, opponents.ObservationOpponent):
            raise TypeError("set_opponent_policy: this env's opponent is a bot, not a policy")
        self.opponent.set_policy(policy)

    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """New frames on every table; an int seed seeds the whole batch, a list one per table."""
        core.check_reset_options(options)
        if isinstance(seed, list):
            if len(seed) != self.num_envs:
                raise ValueError(f"seed: expected {self.num_envs} seeds, got {len(seed)}")
            super().reset(seed=seed[0])
            seeds = np.asarray(seed, np.int64)
        else:
            super().reset(seed=seed)
            seeds = core.seeds_from(self.np_random, self.num_envs)
        self.core.reset(seeds)
        return self.core.observe(), reset_info(self.core)

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Every table's move, the opponents' replies, and same-step resets of ended frames."""
        actions = np.asarray(actions)
        if actions.shape != self.action_space.shape:
            raise ValueError(f"actions: expected shape {self.action_space.shape}, got {actions.shape}")
        if not self.action_space.contains(actions.astype(self.action_space.dtype)):
            single = self.single_action_space
            k = next(k for k, row in enumerate(actions) if not single.contains(row.astype(single.dtype)))
            raise ValueError(
                f"actions: table {k}'s action {actions[k]} is outside {single} (NaN, infinite, out of range)"
            )
        reward, terminated, truncated = self.core.step(actions)
        infos = self.core.info(self.core.last)
        done = terminated | truncated
        if done.any():  # restarted in the same step: the ended frames' last observations
            infos["final_obs"] = self.core.final_observations()
            infos["_final_obs"] = done
        return self.core.observe(), reward.astype(np.float64), terminated, truncated, infos

    def action_masks(self) -> np.ndarray:
        """(B, sum(nvec)) legal choices of the assisted mode (MaskablePPO)."""
        if self.settings.action_mode != "assisted":
            raise ValueError("action_masks: only the assisted action mode has discrete choices")
        return self.core.action_masks()
