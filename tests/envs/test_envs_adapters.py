"""The library adapters: the stable-baselines3 VecEnv and the PettingZoo AEC env.

Every env here has at most 8 tables (the engine pads to 8, so one compiled batch size)
and the default event-log capacity; a tiny `shot_limit` forces the episode ends.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from pettingzoo.test import api_test
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
from stable_baselines3 import PPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import VecMonitor

from piramida.envs import actions as act
from piramida.envs import core, pettingzoo_env
from piramida.envs import observation as encoding
from piramida.envs.pettingzoo_aec import AGENTS, PyramidAEC
from piramida.envs.sb3 import SB3VecEnv
from piramida.envs.vector_env import PyramidVectorEnv
from piramida.rules import ids
from piramida.rules import state as st

I_BROKE = -2  # index of the "I broke" flag in the flat observation (the last field, `flags`)


def _actions(vec: SB3VecEnv, seed: int) -> np.ndarray:
    """A batch of actions from a seeded action space."""
    vec.action_space.seed(seed)
    return np.stack([vec.action_space.sample() for _ in range(vec.num_envs)])


def _rollout(vec: SB3VecEnv, seed: int, steps: int) -> list[Any]:
    vec.seed(seed)
    seen = [vec.reset()]
    for step in range(steps):
        obs, reward, done, _ = vec.step(_actions(vec, step))
        seen += [obs, reward, done]
    return seen


def test_sb3_vec_env_steps_every_table_and_ends_episodes_the_sb3_way() -> None:
    vec = SB3VecEnv(3, variant="dynamic", shot_limit=2)
    assert vec.observation_space.shape == (encoding.FLAT_SIZE,)
    assert vec.action_space.shape == (act.RAW_SIZE,)
    obs = vec.reset()
    assert obs.shape == (3, encoding.FLAT_SIZE) and obs.dtype == np.float32
    assert len(vec.reset_infos) == 3 and all("score" in info for info in vec.reset_infos)

    # Table 0's frame is marked over: it ends by termination, the others go on.
    engine = vec.venv.core
    assert engine.states is not None
    engine.states = engine.states.replace(phase=engine.states.phase.at[0].set(st.OVER))
    obs, reward, done, infos = vec.step(_actions(vec, 0))
    assert obs.shape == (3, encoding.FLAT_SIZE) and obs.dtype == np.float32
    assert reward.shape == (3,) and reward.dtype == np.float32
    assert done.dtype == np.bool_ and done.tolist() == [True, False, False]
    assert isinstance(infos, list) and len(infos) == 3
    assert [info["TimeLimit.truncated"] for info in infos] == [False, False, False]
    final = infos[0]["terminal_observation"]
    assert final.shape == (encoding.FLAT_SIZE,) and vec.observation_space.contains(final)
    assert "terminal_observation" not in infos[1]
    assert not np.array_equal(final, obs[0])  # the next frame's first observation

    # The shot limit (2 learner moves) cuts the other two frames: truncated, not terminated.
    obs, reward, done, infos = vec.step(_actions(vec, 1))
    for i in (1, 2):
        ended_by_rules = infos[i]["phase"] == st.OVER
        assert done[i]
        assert infos[i]["TimeLimit.truncated"] == (not ended_by_rules)
        assert infos[i]["terminal_observation"].shape == (encoding.FLAT_SIZE,)
    assert not done[0]


def test_sb3_vec_env_same_seed_same_observations() -> None:
    vec = SB3VecEnv(2, variant="classic", shot_limit=3)
    first, again, other = _rollout(vec, 7, 3), _rollout(vec, 7, 3), _rollout(vec, 8, 3)
    for a, b in zip(first, again, strict=True):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(first[0], other[0])


def test_sb3_vec_env_wraps_a_vector_env_with_dict_observations() -> None:
    vec = SB3VecEnv(PyramidVectorEnv(2, variant="combined", observation="dict", shot_limit=1))
    obs = vec.reset()
    assert set(obs) == set(vec.observation_space.spaces)
    for name, space in vec.observation_space.spaces.items():
        assert obs[name].shape == (2, *space.shape) and obs[name].dtype == np.float32
    _, _, done, infos = vec.step(_actions(vec, 0))
    assert done.all()
    assert all(vec.observation_space.contains(info["terminal_observation"]) for info in infos)
    with pytest.raises(TypeError, match="existing vector env"):
        SB3VecEnv(vec.venv, shot_limit=3)


def test_sb3_vec_env_attributes_methods_and_self_play() -> None:
    vec = SB3VecEnv(2, opponent="self", shot_limit=2)
    assert vec.get_attr("action_space") == [vec.action_space] * 2
    assert vec.get_attr("settings", indices=1) == [vec.venv.settings]
    assert vec.env_is_wrapped(Monitor) == [True, True]  # it reports episodes as Monitor does
    assert vec.env_is_wrapped(gym.wrappers.TimeLimit) == [False, False]
    assert not is_masking_supported(vec)  # the raw mode has no masks
    with pytest.raises(ValueError, match="share one engine"):
        vec.set_attr("anything", 1, indices=[0])
    vec.set_attr("anything", 1)
    assert vec.get_attr("anything") == [1, 1]

    seen: list[int] = []

    def policy(observations: np.ndarray) -> np.ndarray:
        seen.append(len(observations))
        return np.zeros((len(observations), act.RAW_SIZE), np.float32)

    vec.set_opponent_policy(policy)
    assert vec.env_method("set_opponent_policy", policy) == [None, None]
    vec.seed(3)
    vec.reset()
    for step in range(3):
        vec.step(_actions(vec, step))
    assert seen  # the opponent moved with the learner's policy


def test_maskable_ppo_gets_masks_in_assisted_mode_and_learns() -> None:
    vec = SB3VecEnv(2, action_mode="assisted", shot_limit=4)
    vec.reset()
    assert is_masking_supported(vec)
    masks = get_action_masks(vec)
    assert masks.shape == (2, sum(act.ASSISTED_NVEC)) and masks.dtype == np.bool_
    np.testing.assert_array_equal(masks, vec.action_masks())
    np.testing.assert_array_equal(vec.env_method("action_masks", indices=[1])[0], masks[1])
    assert masks[:, : act.K].any(axis=1).all()
    model = MaskablePPO("MlpPolicy", vec, n_steps=8, batch_size=8, n_epochs=1, device="cpu", seed=0)
    model.learn(total_timesteps=16)
    assert model.num_timesteps == 16


class EpisodeSums(BaseCallback):
    """Each ended episode's (return, length), summed here from the rewards the algorithm saw."""

    def _on_training_start(self) -> None:
        self.running = np.zeros(self.training_env.num_envs)
        self.lengths = np.zeros(self.training_env.num_envs, int)
        self.ended: list[tuple[float, int]] = []

    def _on_step(self) -> bool:
        self.running += self.locals["rewards"]
        self.lengths += 1
        for i in np.flatnonzero(self.locals["dones"]):
            self.ended.append((float(self.running[i]), int(self.lengths[i])))
            self.running[i], self.lengths[i] = 0.0, 0
        return True


def _logged(model: Any) -> list[tuple[float, int]]:
    """What SB3 keeps for `rollout/ep_rew_mean` and `ep_len_mean`."""
    return [(episode["r"], episode["l"]) for episode in model.ep_info_buffer]


def test_maskable_ppo_logs_every_finished_episode_with_no_monitor() -> None:
    # With no Monitor, SB3's ep_info_buffer stayed empty: no rollout/ep_rew_mean in the logs.
    vec = SB3VecEnv(2, action_mode="assisted", opponent="random", shot_limit=3)
    model = MaskablePPO("MlpPolicy", vec, n_steps=50, batch_size=50, n_epochs=1, device="cpu", seed=0)
    sums = EpisodeSums()
    model.learn(total_timesteps=200, callback=sums)
    assert len(sums.ended) >= 60  # 100 moves a table, at most 3 an episode
    assert _logged(model) == pytest.approx(sums.ended[-len(model.ep_info_buffer) :])
    assert any(r != 0 for r, _ in _logged(model))  # points were scored: the sums are tested
    assert all(type(e["r"]) is float and type(e["l"]) is int for e in model.ep_info_buffer)


def test_vec_monitor_still_wraps_it_and_counts_each_episode_once() -> None:
    with pytest.warns(UserWarning, match="already wrapped with a `Monitor`"):
        vec = VecMonitor(SB3VecEnv(2, shot_limit=4))
    model = PPO("MlpPolicy", vec, n_steps=8, batch_size=8, n_epochs=1, device="cpu", seed=0)
    sums = EpisodeSums()
    model.learn(total_timesteps=32, callback=sums)
    assert model.num_timesteps == 32
    assert len(sums.ended) >= 6 and _logged(model) == pytest.approx(sums.ended)


@pytest.mark.parametrize("variant", ids.VARIANT_NAMES)
def test_pettingzoo_api_test_passes_for_every_variant(variant: str) -> None:
    api_test(pettingzoo_env(variant, shot_limit=6), num_cycles=5)


# api_test's advice for Box/Discrete spaces and array observations: Dict and MultiDiscrete are intended.
@pytest.mark.filterwarnings("ignore:.*probably should be gymnasium.spaces:UserWarning")
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array:UserWarning")
def test_pettingzoo_api_test_passes_in_assisted_mode_with_dict_observations() -> None:
    env = pettingzoo_env("classic", action_mode="assisted", observation="dict", shot_limit=6)
    api_test(env, num_cycles=5)
    env.reset(seed=1)
    mask = env.infos[env.agent_selection]["action_mask"]
    assert [len(part) for part in mask] == list(act.ASSISTED_NVEC)
    assert all(part.dtype == np.int8 for part in mask)
    np.testing.assert_array_equal(np.concatenate(mask), env.core.action_masks()[0])
    # As in PettingZoo's classic envs, the agent not to move has a mask too: all zeros.
    other = AGENTS[1 - AGENTS.index(env.agent_selection)]
    assert not np.concatenate(env.infos[other]["action_mask"]).any()


@pytest.mark.filterwarnings("ignore:Action mask is not a NumPy array:UserWarning")  # a tuple: MultiDiscrete's
@pytest.mark.filterwarnings("ignore:.*probably should be gymnasium.spaces:UserWarning")
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array:UserWarning")
def test_pettingzoo_offers_the_mask_in_a_classic_dict_observation() -> None:
    env = pettingzoo_env("free", action_mode="assisted", shot_limit=6, mask_in_observation=True)
    api_test(env, num_cycles=5)
    env.reset(seed=2)
    for agent in AGENTS:
        seen = env.observe(agent)
        assert set(seen) == {"observation", "action_mask"}
        assert env.observation_space(agent).contains(seen)
        assert seen["observation"].shape == (encoding.FLAT_SIZE,)
        in_info = env.infos[agent]["action_mask"]
        np.testing.assert_array_equal(np.concatenate(seen["action_mask"]), np.concatenate(in_info))
    with pytest.raises(ValueError, match="only the assisted action mode"):
        pettingzoo_env("free", mask_in_observation=True)


def _game(env: PyramidAEC, seed: int, moves: int) -> list[Any]:
    """Who moved, both agents' observations and rewards, move by move."""
    env.reset(seed=seed)
    env.action_space(AGENTS[0]).seed(seed)
    seen: list[Any] = []
    for _ in range(moves):
        mover = env.agent_selection
        env.step(env.action_space(AGENTS[0]).sample())
        seen += [mover, *(env.observe(a) for a in AGENTS), dict(env.rewards)]
    return seen


def test_pettingzoo_seeding_gives_the_same_game() -> None:
    env = PyramidAEC("dynamic", noise="pro")
    first, again, other = _game(env, 4, 4), _game(env, 4, 4), _game(env, 5, 4)
    for a, b in zip(first, again, strict=True):
        if isinstance(a, np.ndarray):
            np.testing.assert_array_equal(a, b)
        else:
            assert a == b
    assert any(
        not np.array_equal(a, b) for a, b in zip(first, other, strict=True) if isinstance(a, np.ndarray)
    )


def test_pettingzoo_agents_see_their_own_side_and_share_zero_sum_rewards() -> None:
    env = PyramidAEC("free", shot_limit=4, render_mode="ansi")
    env.reset(seed=9)
    mover = env.agent_selection
    other = AGENTS[1 - AGENTS.index(mover)]
    # The breaker moves first: it sees "I broke", the other agent does not.
    assert env.observe(mover)[I_BROKE] == 1.0 and env.observe(other)[I_BROKE] == 0.0
    # The mover's observation is the Gymnasium envs' encoding of the table.
    assert env.core.states is not None
    gym_view = core.observe_states(env.core.states, env.settings.shot_limit, env.settings.noise, "flat")
    np.testing.assert_array_equal(env.observe(mover), np.asarray(gym_view)[0])
    assert "player" in env.render()

    at_reset = set(env.infos[AGENTS[0]])
    for _ in range(4):
        agent = env.agent_selection
        if env.terminations[agent]:
            break
        env.step(env.action_space(agent).sample())
        assert set(env.infos[AGENTS[0]]) == set(env.infos[AGENTS[1]]) == at_reset
        assert env.rewards[AGENTS[0]] == -env.rewards[AGENTS[1]]
        assert {"legal", "fouls", "points", "score", "to_move"} <= set(env.infos[AGENTS[0]])
        assert env.agent_selection == AGENTS[int(env.infos[AGENTS[0]]["to_move"])]
    # Four moves: the frame is cut unless it ended; then each agent takes its dead step.
    assert all(env.truncations.values()) or all(env.terminations.values())
    for _ in AGENTS:
        env.step(None)
    assert env.agents == []
