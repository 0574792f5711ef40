"""The pure-JAX env: `make` gives gymnax-shaped `reset(key, params)` and `step(key, state, action, params)`.

    import jax
    from piramida.envs import jax_env

    env, params = jax_env.make("free", num_envs=1024, opponent="random")
    obs, state = jax.jit(env.reset)(jax.random.PRNGKey(0), params)
    action = jax.random.uniform(jax.random.PRNGKey(1), (1024, 11), minval=-1.0, maxval=1.0)  # or a policy's
    step = jax.jit(env.step)
    obs, state, reward, terminated, truncated, info = step(jax.random.PRNGKey(2), state, action, params)

Batched, said plainly: every array has a leading axis of `num_envs` tables, and one call
plays one learner move on every table (the learner is seat 0), then the opponent's
replies, and restarts the frames that ended (their last observation is
`info.final_obs`); `reward` is the learner's points minus the opponent's (times
`point_reward`) plus `win_reward` for a won frame, minus it for a lost one. The functions
are pure: the PRNG keys are arguments (`reset` draws the frames from `key`, `step` the
execution noise and the opponent's draws), so a seed gives the same frames, and they work
under `jit`, `lax.scan`, `vmap` (over groups of tables) and `shard_map` (tables split over
devices; give each device its own key, e.g. `fold_in(key, axis_index)`, and pass
`check_vma=False`: the env's `cond`s return arrays the replication checker takes for
replicated), all tested against plain calls. Only
the action mode, the observation kind, the opponent and `num_envs` shape the compiled
program; the numbers in `params` (variant, noise, shot limit, rewards) are traced, so
every variant and noise level shares one compile.

Dtypes: the observations and rewards are float32 and the counts int32, whatever the
process's `jax_enable_x64`; the state (the games, opaque to a training loop) keeps
float64, the kernel's precision. Each function computes inside `runtime.float64()`, so a
caller's own JAX keeps its default dtypes: importing piramida or making the env changes
no global setting.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import gymnasium as gym
import jax
import jax.numpy as jnp

from piramida.envs import actions as act
from piramida.envs import core, functional
from piramida.envs import observation as obs
from piramida.envs.functional import EnvParams, EnvState, Opponent, StepInfo
from piramida.physics.runtime import in_float64, in_float64_methods


@in_float64_methods
@dataclass(frozen=True)
class JaxEnv:
    """B tables against a JAX bot as pure functions (hashable: static under `jit`).

    Attributes:
      num_envs: tables (B).
      opponent: a bot's name (`random`, `greedy`, ...) or a bot's `act`.
      action_mode: `raw` (Box) or `assisted` (MultiDiscrete over the shot menu).
      observation: `flat`, `dict` or `menu`.

    """

    num_envs: int
    opponent: Opponent
    action_mode: str = "raw"
    observation: str = "flat"

    @property
    def action_space(self) -> gym.Space[Any]:
        """One table's action space (a batch of actions is (B, ...))."""
        return act.action_space(self.action_mode)

    @property
    def observation_space(self) -> gym.Space[Any]:
        """One table's observation space."""
        return obs.observation_space(self.observation)

    def reset(self, key: Any, params: EnvParams) -> tuple[Any, EnvState]:
        """(obs (B, ...), state): new frames drawn from `key`, the opponent's opening moves played."""
        state = functional.reset(jax.random.split(key, self.num_envs), params, self.opponent)
        return functional.observe(state.games, params, self.observation), state

    def step(
        self, key: Any, state: EnvState, action: Any, params: EnvParams
    ) -> tuple[Any, EnvState, Any, Any, Any, StepInfo]:
        """One learner move on every table: (obs, state, reward, terminated, truncated, info), (B, ...)."""
        keyed = EnvState(state.games, jax.random.split(key, self.num_envs), state.moves)
        state, observed, reward, terminated, truncated, info = functional.step(
            keyed, action, params, self.opponent, self.action_mode, self.observation
        )
        info = dataclasses.replace(info, score=info.score.astype(jnp.int32))
        return observed, state, reward.astype(jnp.float32), terminated, truncated, info

    def action_masks(self, state: EnvState) -> Any:
        """(B, sum(nvec)) the assisted mode's legal choices."""
        return functional.masks(state)


@in_float64
def make(
    variant: str | int = "free", *, num_envs: int = 1, opponent: Opponent = "random", **options: Any
) -> tuple[JaxEnv, EnvParams]:
    """The env of a variant and its default numbers: `(env, params)`.

    `options` are the Gymnasium envs' (`action_mode`, `observation`, `noise`, `shot_limit`,
    `point_reward`, `win_reward`); a bad one raises ValueError naming it.
    """
    if isinstance(num_envs, bool) or not isinstance(num_envs, int) or not 1 <= num_envs <= core.MAX_COUNT:
        raise ValueError(f"num_envs: expected a positive number of tables, got {num_envs!r}")
    settings = core.settings_from(variant, **options)
    functional.opponent_policy(opponent)  # an unknown bot is named now, not inside a trace
    env = JaxEnv(num_envs, opponent, settings.action_mode, settings.observation)
    return env, EnvParams.of(settings)
