"""`PyramidAEC`: one pyramid frame between two agents, as a PettingZoo AEC env (self-play, matches).

`player_0` and `player_1` are seats 0 and 1 of one table. `agent_selection` is the player
to move (`state.turn`): the shooter, or in a DECISION phase the player who decides, so
one agent may move several times in a row (a run of pots; a decision after the other's
foul). One `step` is one move (`envs.actions`, the same modes as the Gymnasium envs).

Each agent sees the table from its own side: `envs.observation` with "me" = that agent
(the state's `turn` set to the agent's seat before encoding), so the observation spaces
are the Gymnasium envs' and a policy trained there plays here. For the agent not to move,
the phase, decision and options describe the other player's pending move.

Rewards follow every move, for both agents, from the referee's scores: points won minus
points conceded (times `point_reward`), and +-`win_reward` when the frame ends; they are
zero-sum. Both agents are terminated at the end of the frame and truncated when the frame
reaches `shot_limit` moves (both players' shots and decisions together).

Infos (both agents, the same keys at reset and after every move): the standing (`score`
by seat, `phase`, `winner`, `to_move`) and the referee's verdict of the last move (`shot`,
`legal`, `fouls`, `points`, ...; zeros at reset). In the assisted mode both infos also hold
`action_mask`, as PettingZoo's classic envs give it: the legal choices for the agent to
move, all zeros for the other one and once the frame is over. Its form is Gymnasium's for
a MultiDiscrete space, a tuple of int8 arrays, one per component, so
`action_space(agent).sample(mask)` takes it (concatenated, it is MaskablePPO's mask). With
`mask_in_observation=True` each observation is also a classic env's `Dict`:
`{"observation": the table, "action_mask": the same tuple}`; by default the mask stays
out of the observation, so that the observation spaces are the Gymnasium envs'.

The table is played as `core.PAD` identical tables, the batch the Gymnasium envs compile
for, so the kernel is compiled once for both. Its state, keys and last shot are kept in
a one-table `tables.Tables`, whose helpers give the infos, the masks and the picture; the
moves are played here, because both seats are agents.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import jax
import jax.numpy as jnp
import numpy as np
from gymnasium.utils import seeding
from pettingzoo import AECEnv

from piramida.envs import actions as act
from piramida.envs import core, functional, render
from piramida.envs import observation as encoding
from piramida.envs.tables import Tables
from piramida.envs.vector_env import reset_info
from piramida.physics.runtime import in_float64_methods
from piramida.rules import state as st
from piramida.rules.game import Move, Outcome

AGENTS = ("player_0", "player_1")  # seat 0, seat 1


def _no_opponent(states: st.GameState, keys: Any) -> Move:
    """The `Tables`' opponent: never asked, since both seats are agents here."""
    raise RuntimeError("PyramidAEC: both seats are agents; the engine has no opponent to ask")


@in_float64_methods
class PyramidAEC(render.TableRendering, AECEnv[str, Any, Any]):
    """One frame of a pyramid variant between `player_0` and `player_1` (see the module docstring).

    Args:
      variant: `free`, `combined`, `dynamic` or `classic` (or 0-3).
      action_mode: `raw` (flat Box) or `assisted` (ghost-ball candidates, MultiDiscrete).
      observation: `flat` (Box) or `dict`.
      noise: execution noise for both players: a magnitude or a level name (`physics.noise`).
      shot_limit: moves in the frame (both players) before both agents are truncated.
      point_reward, win_reward: see `core.Settings`.
      render_mode: `rgb_array`, `ansi` or `human` (where Tk has a display, `render`).
      mask_in_observation: the assisted mode's action mask in each observation too (a `Dict`
        of `observation` and `action_mask`, PettingZoo's classic envs' form).

    """

    metadata: dict[str, Any] = {  # noqa: RUF012
        "render_modes": list(render.RENDER_MODES),
        "name": "piramida_pyramid_v1",
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(
        self,
        variant: str | int = "free",
        render_mode: str | None = None,
        mask_in_observation: bool = False,
        **options: Any,
    ) -> None:
        """Build the spaces and the engine (compiled on the first reset)."""
        super().__init__()
        self.settings = core.settings_from(variant, **options)
        self.render_mode = render.check_render_mode(render_mode)
        self.metadata = {**self.metadata, "render_modes": render.available_render_modes()}
        if not isinstance(mask_in_observation, bool):
            raise TypeError(f"mask_in_observation: expected True or False, got {mask_in_observation!r:.40}")
        if mask_in_observation and self.settings.action_mode != "assisted":
            raise ValueError("mask_in_observation: only the assisted action mode has choices to mask")
        self.mask_in_observation = mask_in_observation
        self.possible_agents = list(AGENTS)
        self.agents: list[str] = []
        # One object per agent, returned by every call (PettingZoo seeds spaces through them).
        self.observation_spaces = {a: self._observation_space() for a in AGENTS}
        self.action_spaces = {a: act.action_space(self.settings.action_mode) for a in AGENTS}
        self.core = Tables(1, self.settings, _no_opponent)
        self._rng: np.random.Generator | None = None
        self._views: Any = None  # the two agents' observations (rows 0 and 1 of the batch)
        self._masks: dict[str, tuple[np.ndarray, ...]] = {}
        self._moves = 0
        self._viewer: render.Viewer | None = None

    def _observation_space(self) -> gym.Space[Any]:
        """`envs.observation`'s space, in a `Dict` with the action mask's with `mask_in_observation`."""
        table = encoding.observation_space(self.settings.observation)
        if not self.mask_in_observation:
            return table
        parts = [gym.spaces.Box(0, 1, (int(n),), np.int8) for n in act.ASSISTED_NVEC]
        return gym.spaces.Dict({"observation": table, "action_mask": gym.spaces.Tuple(parts)})

    def observation_space(self, agent: str) -> gym.Space[Any]:
        """The agent's observation space (`envs.observation`'s; the same object every call)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gym.Space[Any]:
        """The agent's action space (`envs.actions`; the same object every call)."""
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new frame with a random first breaker; the same seed gives the same frame (and game).

        `options` are ignored: PettingZoo's API test resets with options of its own and expects
        them taken (the Gymnasium envs refuse any, `core.check_reset_options`).
        """
        if seed is not None or self._rng is None:
            self._rng, _ = seeding.np_random(seed)
        seeds = np.repeat(core.seeds_from(self._rng, 1), self.core.size)
        keys = jax.vmap(jax.random.PRNGKey)(jnp.asarray(seeds))
        self.core.states, self.core.keys = core.new_frames(keys, self.settings.variant)
        self.core.last = None
        self._moves = 0
        self.agents = list(AGENTS)
        self.rewards = {a: 0.0 for a in AGENTS}
        self._cumulative_rewards = {a: 0.0 for a in AGENTS}
        self.terminations = {a: False for a in AGENTS}
        self.truncations = {a: False for a in AGENTS}
        self._refresh(None)

    def observe(self, agent: str) -> Any:
        """The table seen from `agent`'s seat."""
        seat = AGENTS.index(agent)
        table = jax.tree_util.tree_map(lambda x: x[seat].copy(), self._views)
        if not self.mask_in_observation:
            return table
        return {"observation": table, "action_mask": tuple(part.copy() for part in self._masks[agent])}

    def step(self, action: Any) -> None:
        """The selected agent's move; rewards to both agents; the next agent is the player to move."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        space = self.action_spaces[agent]
        chosen = np.asarray(action, space.dtype)
        if not space.contains(chosen):
            raise ValueError(f"action {action!r} of {agent} is outside the action space {space}")
        before = self.core.states
        assert before is not None
        actions = jnp.asarray(np.repeat(chosen[None], self.core.size, axis=0))
        moves = core.decode_moves(before, actions, self.settings.action_mode)
        everywhere = jnp.ones(self.core.size, bool)
        self.core.states, outcome, self.core.keys = core.play_masked(
            before, moves, self.core.keys, everywhere, self.settings.noise
        )
        self.core.last = functional.Played.of(before, moves, outcome)
        self._moves += 1
        # Zero-sum: seat 0's reward, as the Gymnasium envs give it to their learner, and its negative.
        mine = float(core.reward_of(before, self.core.states, self.settings)[0])
        self.rewards = {AGENTS[0]: mine, AGENTS[1]: 0.0 - mine}
        over = int(self.core.states.phase[0]) == st.OVER
        cut = not over and self._moves >= self.settings.shot_limit
        self.terminations = {a: over for a in self.agents}
        self.truncations = {a: cut for a in self.agents}
        self._cumulative_rewards[agent] = 0.0
        self._refresh(outcome)
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _refresh(self, outcome: Outcome | None) -> None:
        """Both agents' observations (one batched call), the infos, and the agent to move."""
        states = self.core.states
        assert states is not None
        seats = jnp.asarray(np.arange(self.core.size) % 2, jnp.int32)
        settings = self.settings
        seen = core.observe_states(
            states.replace(turn=seats), settings.shot_limit, settings.noise, settings.observation
        )
        self._views = jax.tree_util.tree_map(np.asarray, seen)
        info = reset_info(self.core) if outcome is None else self.core.info(self.core.last)
        shared = {name: value[0] for name, value in info.items()}
        mover = AGENTS[int(shared["to_move"])]
        self.agent_selection = mover
        self.infos = {a: dict(shared) for a in self.agents}
        if self.settings.action_mode == "assisted":
            self._masks = self._action_masks(mover, int(shared["phase"]) == st.OVER)
            for agent in self.agents:
                self.infos[agent]["action_mask"] = self._masks[agent]

    def _action_masks(self, mover: str, over: bool) -> dict[str, tuple[np.ndarray, ...]]:
        """Each agent's mask, one int8 array per MultiDiscrete component: the mover's legal choices."""
        size = sum(act.ASSISTED_NVEC)
        legal = np.zeros(size, bool) if over else self.core.action_masks()[0]
        cuts = np.cumsum(act.ASSISTED_NVEC)[:-1]
        return {
            agent: tuple(np.split((legal if agent == mover else np.zeros(size, bool)).astype(np.int8), cuts))
            for agent in AGENTS
        }
