"""`SB3VecEnv`: a `PyramidVectorEnv` as a stable-baselines3 `VecEnv`, stepped by one jitted call.

SB3's own `DummyVecEnv` would step B single envs one by one; here every table moves in
the engine's one batched call and only the per-env info dicts are built table by table
(SB3 wants a list). SB3 semantics: `done = terminated | truncated`, an ended frame is
reset in the same step, its last observation is `infos[i]["terminal_observation"]` and
`infos[i]["TimeLimit.truncated"]` says it was cut by the shot limit (PPO bootstraps
those). Seeds set with `seed()` apply at the next `reset()`.

Finished episodes are reported as SB3's `Monitor` reports them: the info of the step that
ends a frame holds `episode = {"r": return, "l": length, "t": seconds since the env was
made}`, so SB3 fills `ep_info_buffer` and logs `rollout/ep_rew_mean` with no wrapper, and
`env_is_wrapped(Monitor)` says so (SB3's `evaluate_policy` then counts those episodes). A
`VecMonitor` around it still works: it warns that it overwrites those statistics, and
replaces each `episode` with its own (the same numbers, counted once).

The B tables share one engine, so attributes and methods are those of the vector env:
`get_attr` gives each index the same value, and `set_attr` / `env_method` act on every
table at once (they refuse a strict subset of indices), except `action_masks`, which is
per table (sb3-contrib's `get_action_masks` stacks `env_method("action_masks")`).
"""

from __future__ import annotations

import time
from typing import Any

import gymnasium as gym
import numpy as np
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import VecEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvObs, VecEnvStepReturn

from piramida.envs.opponents import ObservationPolicy
from piramida.envs.vector_env import PyramidVectorEnv
from piramida.physics.runtime import in_float64_methods

# Per-table methods: every other method acts on the shared engine.
_PER_TABLE = ("action_masks",)


@in_float64_methods
class SB3VecEnv(VecEnv):
    """B pyramid frames for stable-baselines3 (see the module docstring).

    Args:
      env: a `PyramidVectorEnv`, or the number of tables of a new one.
      options: the new vector env's keyword arguments (`variant`, `action_mode`,
        `observation`, `opponent`, `noise`, `shot_limit`, ...); none with an existing env.

    """

    def __init__(self, env: PyramidVectorEnv | int = 1, **options: Any) -> None:
        """Wrap `env`, or build a `PyramidVectorEnv(env, **options)`."""
        if isinstance(env, PyramidVectorEnv):
            if options:
                raise TypeError(f"SB3VecEnv: options {sorted(options)} given with an existing vector env")
            self.venv = env
        else:
            self.venv = PyramidVectorEnv(env, **options)
        self._actions: np.ndarray | None = None
        venv = self.venv
        super().__init__(venv.num_envs, venv.single_observation_space, venv.single_action_space)
        # Each table's episode so far, for the `episode` infos (Monitor's "r" and "l").
        self._returns = np.zeros(self.num_envs, np.float64)
        self._lengths = np.zeros(self.num_envs, np.int64)
        self._made = time.time()

    def reset(self) -> VecEnvObs:
        """New frames on every table, with the seeds from `seed()` if it was called."""
        given = [int(s) for s in self._seeds if s is not None]
        obs, info = self.venv.reset(seed=given if len(given) == self.num_envs else None)
        self._reset_seeds()
        self._reset_options()
        self.reset_infos = _rows(info, self.num_envs)
        self._returns[:] = 0.0
        self._lengths[:] = 0
        return _owned(obs)

    def step_async(self, actions: np.ndarray) -> None:
        """Keep the actions: `step_wait` plays them."""
        self._actions = np.asarray(actions)

    def step_wait(self) -> VecEnvStepReturn:
        """One batched step; ended frames restart at once (their last observation is in the infos)."""
        if self._actions is None:
            raise RuntimeError("step_wait: call step_async(actions) first")
        obs, reward, terminated, truncated, info = self.venv.step(self._actions)
        self._actions = None
        done = terminated | truncated
        final: Any = _owned(info.pop("final_obs")) if done.any() else None
        info.pop("_final_obs", None)
        infos = _rows(info, self.num_envs)
        self._returns += reward
        self._lengths += 1
        for i, row in enumerate(infos):
            row["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
            if done[i]:
                row["terminal_observation"] = (
                    {name: value[i] for name, value in final.items()} if isinstance(final, dict) else final[i]
                )
                row["episode"] = self._episode(i)
        return _owned(obs), reward.astype(np.float32), done, infos

    def _episode(self, i: int) -> dict[str, float | int]:
        """Table `i`'s ended episode as Monitor gives it, in Python numbers (checkpoints keep them)."""
        ended = {
            "r": round(float(self._returns[i]), 6),
            "l": int(self._lengths[i]),
            "t": round(time.time() - self._made, 6),
        }
        self._returns[i], self._lengths[i] = 0.0, 0
        return ended

    def episodes_so_far(self) -> tuple[np.ndarray, np.ndarray]:
        """Each table's return and length so far in its episode (copies; a checkpoint keeps them)."""
        return self._returns.copy(), self._lengths.copy()

    def continue_episodes(self, returns: np.ndarray, lengths: np.ndarray) -> None:
        """Carry on the episodes `episodes_so_far` gave (a resumed run); ValueError if they do not fit."""
        if returns.shape != self._returns.shape or lengths.shape != self._lengths.shape:
            raise ValueError(f"expected one return and one length per table ({self.num_envs})")
        self._returns[:], self._lengths[:] = returns, lengths

    def close(self) -> None:
        """Close the vector env."""
        self.venv.close()

    def set_opponent_policy(self, policy: ObservationPolicy) -> None:
        """Self-play: the policy (observations -> actions) the opponent plays with."""
        self.venv.set_opponent_policy(policy)

    def action_masks(self) -> np.ndarray:
        """(n_envs, sum(nvec)) bool legal choices of the assisted mode."""
        return self.venv.action_masks()

    def _attribute(self, name: str) -> Any:
        """An attribute as one table's env would have it (single spaces, not batched ones)."""
        if name == "observation_space":
            return self.venv.single_observation_space
        if name == "action_space":
            return self.venv.single_action_space
        if name == "action_masks" and self.venv.settings.action_mode != "assisted":
            # So `is_masking_supported` says no: only the assisted mode has masks.
            raise AttributeError("action_masks: only the assisted action mode has discrete choices")
        return getattr(self.venv, name)

    def _every(self, indices: VecEnvIndices, what: str) -> list[int]:
        """The indices, which must name every table: the tables share one engine."""
        chosen = list(self._get_indices(indices))
        if sorted(chosen) != list(range(self.num_envs)):
            raise ValueError(f"{what}: the {self.num_envs} tables share one engine; use every index")
        return chosen

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """The vector env's attribute, once per index (AttributeError where it has none)."""
        value = self._attribute(attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        """Set an attribute of the vector env (every table's)."""
        self._every(indices, f"set_attr({attr_name!r})")
        setattr(self.venv, attr_name, value)

    def env_method(
        self, method_name: str, *method_args: Any, indices: VecEnvIndices = None, **method_kwargs: Any
    ) -> list[Any]:
        """`action_masks` per table; any other method once on the vector env, its result per index."""
        if method_name in _PER_TABLE:
            chosen = list(self._get_indices(indices))
            rows = self._attribute(method_name)(*method_args, **method_kwargs)
            return [rows[i] for i in chosen]
        chosen = self._every(indices, f"env_method({method_name!r})")
        result = self._attribute(method_name)(*method_args, **method_kwargs)
        return [result for _ in chosen]

    def env_is_wrapped(self, wrapper_class: type[gym.Wrapper], indices: VecEnvIndices = None) -> list[bool]:
        """True for `Monitor` only: the tables are no Gymnasium envs, but report episodes as it does."""
        return [wrapper_class is Monitor for _ in self._get_indices(indices)]


def _owned(obs: Any) -> Any:
    """Writable copies of the engine's read-only observation arrays (torch warns about those)."""
    return {name: np.array(value) for name, value in obs.items()} if isinstance(obs, dict) else np.array(obs)


def _rows(info: dict[str, np.ndarray], count: int) -> list[dict[str, Any]]:
    """Per-table dicts from arrays over the tables (each array converted once)."""
    columns = {name: value.tolist() for name, value in info.items()}
    return [{name: column[i] for name, column in columns.items()} for i in range(count)]
