"""`PyramidVectorEnv`: B tables stepped by jitted calls, for `gymnasium.make_vec`.

On the CPU the tables are played in chunks of `core.CPU_CHUNK`, each chunk a `core.Core`,
so every env size runs the same compiled programs (a second env of another size compiles
nothing new); on a GPU all tables are one `Core`.

Auto-reset happens in the same step (Gymnasium's `AutoresetMode.SAME_STEP`): a table
whose frame ended returns the first observation of its next frame, and the last
observation of the ended one is in `infos["final_obs"]` (with the mask
`infos["_final_obs"]`). The other infos are arrays over the tables: the referee's
verdict of the learner's move (`legal`, `fouls`, `points`, `scored`, ...) and the
standing (`score`, `phase`, `winner`).
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from piramida.agents import Agent
from piramida.envs import actions as act
from piramida.envs import core, opponents
from piramida.envs import observation as encoding
from piramida.physics.fields import read_int
from piramida.physics.runtime import in_float64_methods
from piramida.rules import state as st


@in_float64_methods
class PyramidVectorEnv(VectorEnv[Any, Any, Any]):
    """B frames of one variant (see `PyramidEnv` for the arguments), stepped by jitted calls."""

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
        self.cores = [core.Core(size, self.settings, self.opponent) for size in core.chunks(self.num_envs)]
        self.starts = np.cumsum([0] + [c.batch for c in self.cores])  # each core's first table
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
        for c, part in zip(self.cores, self._split(seeds), strict=True):
            c.reset(part)
        return self._observe(), self._info(None)

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
        steps = [c.step(part) for c, part in zip(self.cores, self._split(actions), strict=True)]
        reward, terminated, truncated = (np.concatenate([s[k] for s in steps]) for k in range(3))
        infos = self._info([s[3] for s in steps])
        done = terminated | truncated
        if done.any():
            infos["final_obs"] = self._observe()
            infos["_final_obs"] = done
            seeds = core.seeds_from(self.np_random, self.num_envs)
            for c, part, where in zip(self.cores, self._split(seeds), self._split(done), strict=True):
                if where.any():
                    c.reset(part, where=where)
        return self._observe(), reward.astype(np.float64), terminated, truncated, infos

    def action_masks(self) -> np.ndarray:
        """(B, sum(nvec)) legal choices of the assisted mode (MaskablePPO)."""
        if self.settings.action_mode != "assisted":
            raise ValueError("action_masks: only the assisted action mode has discrete choices")
        return np.concatenate([c.action_masks() for c in self.cores])

    @property
    def compiled_tables(self) -> int:
        """The tables the cores play, padding included (the games' batch in `games`)."""
        return sum(c.size for c in self.cores)

    def games(self) -> tuple[st.GameState, Any, np.ndarray]:
        """Every core's games and JAX keys (padded, in order) and learner moves, each as one batch."""
        assert all(c.states is not None for c in self.cores), "call reset() first"
        states = jax.tree_util.tree_map(lambda *rows: jnp.concatenate(rows), *[c.states for c in self.cores])
        keys = jnp.concatenate([c.keys for c in self.cores])
        return states, keys, np.concatenate([c.learner_moves for c in self.cores])

    def set_games(self, states: st.GameState, keys: Any, learner_moves: np.ndarray) -> None:
        """Put back what `games` took (a resumed run), cut into each core's tables."""
        first = np.cumsum([0] + [c.size for c in self.cores])
        for c, start, end, moves in zip(
            self.cores, first[:-1], first[1:], self._split(learner_moves), strict=True
        ):
            c.states = jax.tree_util.tree_map(lambda x, start=start, end=end: x[start:end], states)
            c.keys = keys[start:end]
            c.learner_moves[:] = moves

    def _split(self, rows: np.ndarray) -> list[np.ndarray]:
        """`rows` (B, ...) cut into each core's tables."""
        return np.split(rows, self.starts[1:-1])

    def _observe(self) -> Any:
        return _joined([c.observe() for c in self.cores])

    def _info(self, outcomes: list[Any] | None) -> dict[str, np.ndarray]:
        """Each core's infos joined; `outcomes`: each core's learner move, or None after a reset."""
        moves = outcomes if outcomes is not None else [None] * len(self.cores)
        return _joined([c.info(o) for c, o in zip(self.cores, moves, strict=True)])


def _joined(parts: list[Any]) -> Any:
    """The cores' pytrees of (b, ...) numpy arrays as one of (B, ...)."""
    return jax.tree_util.tree_map(lambda *rows: np.concatenate(rows), *parts)
