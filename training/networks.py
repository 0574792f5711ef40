"""jax-ppo's policy and value networks: their parameters, and the actions and probabilities they give.

Two tanh MLPs (actor and critic, `net_arch` each, orthogonal init) on flat observations,
written as plain functions of a pytree of arrays (flax is not a dependency): checkpoints
name each array by its path in that tree (`params['actor'][0]['w']`, ...). `assisted`: one
categorical per `MultiDiscrete` head, the slot head masked with the env's legal slots (as
MaskablePPO). `raw`: a diagonal Gaussian with a learned log standard deviation, whose
actions the env gets clipped to [-1, 1] (as SB3's PPO).
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from piramida.envs import actions as act
from piramida.envs import observation as encoding
from piramida.training import prior

MASKED = -1e9  # the logit of an illegal slot: exp() is 0, and 0 x it stays finite in the entropy


def _mlp(key: Any, sizes: tuple[int, ...], last_scale: float) -> list[dict[str, Any]]:
    """Dense layers, orthogonal init (sqrt 2 for hidden layers, `last_scale` for the output), zero biases."""
    keys = jax.random.split(key, len(sizes) - 1)
    layers = []
    for i, (k, fan_in, fan_out) in enumerate(zip(keys, sizes[:-1], sizes[1:], strict=True)):
        scale = last_scale if i == len(sizes) - 2 else float(np.sqrt(2.0))
        weight = jax.nn.initializers.orthogonal(scale)(k, (fan_in, fan_out), jnp.float32)
        layers.append({"w": weight, "b": jnp.zeros(fan_out, jnp.float32)})
    return layers


def _forward(layers: list[dict[str, Any]], x: Any) -> Any:
    for layer in layers[:-1]:
        x = jnp.tanh(x @ layer["w"] + layer["b"])
    return x @ layers[-1]["w"] + layers[-1]["b"]


def init_params(
    key: Any, mode: str, net_arch: tuple[int, ...], assisted_prior: float = 0.0
) -> dict[str, Any]:
    """The actor's and the critic's layers (and the Gaussian's log std in `raw`).

    In `assisted` the actor's output bias starts at `prior.logits(assisted_prior)`, as the
    SB3 path's (`prior.apply_sb3`).
    """
    outputs = sum(act.ASSISTED_NVEC) if mode == "assisted" else act.RAW_SIZE
    key_actor, key_critic = jax.random.split(key)
    actor = _mlp(key_actor, (encoding.FLAT_SIZE, *net_arch, outputs), 0.01)
    params: dict[str, Any] = {
        "actor": actor,
        "critic": _mlp(key_critic, (encoding.FLAT_SIZE, *net_arch, 1), 1.0),
    }
    if mode == "assisted":
        actor[-1]["b"] = jnp.asarray(prior.logits(assisted_prior))
    else:
        params["log_std"] = jnp.zeros(act.RAW_SIZE, jnp.float32)
    return params


def value(params: dict[str, Any], obs: Any) -> Any:
    """The critic's value of each observation (B,)."""
    return _forward(params["critic"], obs.astype(jnp.float32))[..., 0]


def _heads(params: dict[str, Any], obs: Any, mask: Any) -> list[Any]:
    """Per head of the `MultiDiscrete`, the masked log-probabilities (B, n)."""
    logits = jnp.where(mask, _forward(params["actor"], obs.astype(jnp.float32)), MASKED)
    split = jnp.split(logits, np.cumsum(act.ASSISTED_NVEC)[:-1], axis=-1)
    return [jax.nn.log_softmax(head, axis=-1) for head in split]


def sample(params: dict[str, Any], obs: Any, mask: Any, key: Any, mode: str) -> tuple[Any, Any]:
    """Actions drawn from the policy (B, ...) and their log-probabilities (B,)."""
    if mode == "assisted":
        heads = _heads(params, obs, mask)
        keys = jax.random.split(key, len(heads))
        actions = jnp.stack([jax.random.categorical(k, h) for k, h in zip(keys, heads, strict=True)], -1)
        return actions.astype(jnp.int32), log_prob(params, obs, mask, actions, mode)[0]
    mean = _forward(params["actor"], obs.astype(jnp.float32))
    actions = mean + jnp.exp(params["log_std"]) * jax.random.normal(key, mean.shape, jnp.float32)
    return actions, log_prob(params, obs, mask, actions, mode)[0]


def log_prob(params: dict[str, Any], obs: Any, mask: Any, actions: Any, mode: str) -> tuple[Any, Any]:
    """The log-probabilities (B,) of `actions` and the policy's entropy (B,)."""
    if mode == "assisted":
        heads = _heads(params, obs, mask)
        picked = jnp.stack(
            [jnp.take_along_axis(h, actions[:, i, None], -1)[:, 0] for i, h in enumerate(heads)]
        )
        entropies = jnp.stack([-jnp.sum(jnp.exp(h) * h, -1) for h in heads])
        return picked.sum(0), entropies.sum(0)
    mean = _forward(params["actor"], obs.astype(jnp.float32))
    log_std = params["log_std"]
    z = (actions - mean) / jnp.exp(log_std)
    log_probs = jnp.sum(-0.5 * z * z - log_std - 0.5 * jnp.log(2 * jnp.pi), -1)
    entropy = jnp.sum(0.5 + 0.5 * jnp.log(2 * jnp.pi) + log_std) * jnp.ones(mean.shape[0])
    return log_probs, entropy


def deterministic_actions(params: dict[str, Any], obs: Any, mask: Any, mode: str) -> Any:
    """The policy's most likely actions: each head's argmax over legal choices, or the clipped mean."""
    if mode == "assisted":
        return jnp.stack([jnp.argmax(h, -1) for h in _heads(params, obs, mask)], -1).astype(jnp.int32)
    return jnp.clip(_forward(params["actor"], obs.astype(jnp.float32)), -1.0, 1.0)
