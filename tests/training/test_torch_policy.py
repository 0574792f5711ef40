"""A saved SB3 policy plays on JAX arrays by DLPack, with the same actions as `model.predict`.

On this CPU, JAX's and torch's CPU memory is the same memory: a hand-over that copied
would show a different data pointer. The actions must match SB3's own `predict` for each
action space (PPO's clipped Box, SAC's squashed Box, MaskablePPO's masked MultiDiscrete).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import jax
import jax.numpy as jnp
import numpy as np
import pytest
import torch

from piramida.envs.actions import ASSISTED_NVEC, action_space
from piramida.envs.observation import observation_space
from piramida.training import policies
from piramida.training.torch_policy import TorchPolicy, to_jax, to_torch


class Spaces(gym.Env):
    """Only the spaces a model is built for; it is never stepped."""

    def __init__(self, mode: str, observation: str) -> None:
        self.action_space = action_space(mode)
        self.observation_space = observation_space(observation)


def observations(kind: str, batch: int) -> Any:
    space = observation_space(kind)
    space.seed(0)
    samples = [space.sample() for _ in range(batch)]
    return jax.tree_util.tree_map(lambda *xs: jnp.asarray(np.stack(xs)), *samples)


def test_a_jax_array_reaches_torch_without_a_copy_and_comes_back_uncommitted() -> None:
    array = jnp.arange(12.0, dtype=jnp.float32).reshape(3, 4)
    tensor = to_torch(array, torch.device("cpu"))
    assert tensor.data_ptr() == array.unsafe_buffer_pointer()
    back = to_jax(tensor * 2)
    assert isinstance(back, jax.Array) and np.array_equal(np.asarray(back), 2 * np.asarray(array))
    # Committed (as a DLPack array is), it would make every program it meets compile again.
    assert not back.committed
    copied = to_torch(np.asarray(array), torch.device("cpu"))  # numpy in: a tensor all the same
    assert torch.equal(copied, tensor)


@pytest.mark.parametrize(
    ("algo", "mode", "observation"),
    [("ppo", "raw", "flat"), ("sac", "raw", "dict"), ("maskable-ppo", "assisted", "flat")],
)
def test_the_actions_are_those_of_predict(algo: str, mode: str, observation: str) -> None:
    policy_name = "MultiInputPolicy" if observation == "dict" else "MlpPolicy"
    model = policies.algorithm_class(algo)(policy_name, Spaces(mode, observation), seed=0, device="cpu")
    torch.manual_seed(0)
    with torch.no_grad():  # wide outputs, so that PPO's clipping and SAC's squashing both matter
        for parameter in model.policy.parameters():
            parameter.normal_(0.0, 1.0)
    obs = observations(observation, 6)
    played = policies.deterministic(model, algo)
    assert isinstance(played, TorchPolicy)
    numpy_obs = jax.tree_util.tree_map(np.asarray, obs)
    if algo == "maskable-ppo":
        masks = np.random.default_rng(0).random((6, sum(ASSISTED_NVEC))) < 0.5
        offsets = np.cumsum((0, *ASSISTED_NVEC[:-1]))
        masks[:, offsets] = True  # at least one legal choice per head
        actions = played(obs, jnp.asarray(masks))
        expected = model.predict(numpy_obs, deterministic=True, action_masks=masks)[0]
        assert masks[np.arange(6)[:, None], np.asarray(actions) + offsets].all()
    else:
        actions = played(obs)
        expected = model.predict(numpy_obs, deterministic=True)[0]
    assert isinstance(actions, jax.Array)
    np.testing.assert_allclose(np.asarray(actions), expected, rtol=1e-6, atol=1e-6)
    if mode == "raw":
        assert np.abs(np.asarray(actions)).max() <= 1.0 and np.isclose(np.abs(np.asarray(actions)).max(), 1.0)
