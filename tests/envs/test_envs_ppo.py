"""A short stable-baselines3 PPO run on the JAX vector env learns something (fixed seeds).

PPO plays Free pyramid in the assisted mode (ghost-ball candidates plus corrections)
against the random bot on 8 tables. The untrained policy picks its corrections at random
(an aim off by up to a degree misses a pyramid pocket); after 1536 steps it must earn more
reward per move than before training, on the same seeded evaluation games.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from stable_baselines3 import PPO

from piramida.envs.sb3 import SB3VecEnv

# Compile-heavy or long: left out of the quick lane (`pytest -m "not slow"`).
pytestmark = pytest.mark.slow

TABLES = 8
EVAL_STEPS = 48  # vector steps: 384 learner moves


def reward_per_move(model: PPO) -> float:
    """Mean reward per learner move of the deterministic policy on seeded evaluation games."""
    env = SB3VecEnv(TABLES, variant="free", action_mode="assisted", opponent="random", shot_limit=1000)
    env.seed(123)
    obs = env.reset()
    total = 0.0
    for _ in range(EVAL_STEPS):
        action, _ = model.predict(obs, deterministic=True)
        obs, reward, _, _ = env.step(action)
        total += float(np.sum(reward))
    return total / (TABLES * EVAL_STEPS)


def test_ppo_improves_its_return_over_its_first_evaluation() -> None:
    torch.manual_seed(0)
    env = SB3VecEnv(TABLES, variant="free", action_mode="assisted", opponent="random")
    env.seed(0)
    model = PPO("MlpPolicy", env, n_steps=64, batch_size=128, n_epochs=4, learning_rate=1e-3, seed=0)
    before = reward_per_move(model)
    model.learn(3 * 512)
    after = reward_per_move(model)
    print(f"reward per move: {before:.4f} before training, {after:.4f} after 1536 steps")
    assert after > before
