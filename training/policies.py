"""Playing a saved policy: a checkpoint (or, when trusted, a foreign stable-baselines3 zip) as actions.

`policy_function` is what every player of saved policies calls (`envs.opponents`, the
league, `piramida eval` and `play`): observations in, deterministic actions out. A
stable-baselines3 checkpoint is rebuilt from its config and its arrays into a model
without an env (`bare_model`) and played through `torch_policy.TorchPolicy`; a jax-ppo
checkpoint's parameters are played by `SavedPolicy` (`training.networks`). Global RNG
states are kept while a model is built (`checkpoint.rng_kept`): loading an opponent in the
middle of a run must not change the learner's draws.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp

from piramida.envs import actions as act
from piramida.envs.observation import observation_space
from piramida.physics.fields import shown
from piramida.training import checkpoint, networks
from piramida.training.config import config_from_json
from piramida.training.ppo import Hyper


def algorithm_class(algo: str) -> Any:
    """The stable-baselines3 (or sb3-contrib) class of `algo`."""
    if algo == "ppo":
        from stable_baselines3 import PPO

        return PPO
    if algo == "sac":
        from stable_baselines3 import SAC

        return SAC
    if algo == "maskable-ppo":
        from sb3_contrib import MaskablePPO

        return MaskablePPO
    raise ValueError(f"algo: unknown algorithm {algo!r}")


def bare_model(algo: str, hyper: dict[str, Any], observation: Any, action: Any, device: str = "cpu") -> Any:
    """A stable-baselines3 model with the spaces and settings of a run but no environment (to play)."""
    with checkpoint.rng_kept():
        model = algorithm_class(algo)("MlpPolicy", None, device=device, _init_setup_model=False, **hyper)
        model.observation_space, model.action_space, model.n_envs = observation, action, 1
        model._setup_model()
    return model


def policy_function(path: str | Path) -> tuple[Callable[[Any], Any], dict[str, Any] | None]:
    """A saved policy as observations -> actions (deterministic), and its metadata if it has some.

    A piramida checkpoint is rebuilt from its config and arrays (a jax-ppo one as
    `SavedPolicy`, which also takes the legal slots). A foreign stable-baselines3 zip is
    loaded by unpickling, only when trusted (`checkpoint.set_pickle_trusted`), as PPO, SAC
    and MaskablePPO in turn. Global RNG states are kept (`checkpoint.rng_kept`).
    """
    path = Path(path)
    if checkpoint.read_meta(path, required=False) is None:
        return _foreign_policy(path), None
    ck = checkpoint.read(path)
    if ck.meta["algo"] == "jax-ppo":  # no SB3 model inside: its own arrays
        if ck.meta["observation"] == "menu":
            raise checkpoint.CheckpointError(
                f"{path}: a slot-scorer run's checkpoint (--policy); its policy plays as the run's policy.npz"
            )
        return saved_policy(ck), ck.meta
    config = config_from_json(ck.meta["config"], playing=True)
    model = bare_model(
        config.algo,
        config.hyper(),
        observation_space(ck.meta["observation"]),
        act.action_space(config.action_mode),
    )
    policy = checkpoint.part(ck, "model", "parameters", "policy")
    try:
        model.policy.load_state_dict(policy, strict=True)
    except Exception as error:  # torch names the key or shape that does not fit
        raise ck.error(f"model.parameters.policy does not fit: {shown(str(error), 200)}") from error
    return deterministic(model, config.algo), ck.meta


def _foreign_policy(path: Path) -> Callable[[Any], Any]:
    """A stable-baselines3 zip from elsewhere, unpickled only when trusted."""
    if not checkpoint.pickle_trusted():
        raise checkpoint.CheckpointError(
            f"{path}: a stable-baselines3 zip without piramida metadata; loading it unpickles its data, "
            "which can run any code inside: pass --trust-pickle only for a file you trust"
        )
    errors = []
    for algo in ("ppo", "sac", "maskable-ppo"):
        try:
            with checkpoint.rng_kept():
                model = algorithm_class(algo).load(str(path), device="cpu")
        except Exception as error:  # try the next algorithm; report all if none loads
            errors.append(f"{algo}: {shown(str(error), 80)}")
            continue
        return deterministic(model, algo)
    raise checkpoint.CheckpointError(f"{path}: not a loadable policy ({'; '.join(errors)})")


def deterministic(model: Any, algo: str) -> Callable[..., Any]:
    """The `algo` model's deterministic actions for a batch of observations (and masks, for MaskablePPO)."""
    from piramida.training.torch_policy import TorchPolicy

    return TorchPolicy(model, masked=algo == "maskable-ppo")


class SavedPolicy:
    """A jax-ppo checkpoint's policy, deterministic: observations (B, FLAT_SIZE) and masks -> actions."""

    takes_masks = True  # `envs.opponents.ObservationOpponent` passes the legal slots
    on_device = True  # ... as JAX arrays, and the actions stay JAX arrays

    def __init__(self, params: dict[str, Any], mode: str) -> None:
        """Play `params` in action mode `mode`."""
        self.params, self.mode = params, mode
        self._act = jax.jit(functools.partial(networks.deterministic_actions, mode=mode))

    def __call__(self, observations: Any, masks: Any = None) -> jax.Array:
        """The actions for a batch; every choice is legal where `masks` is None."""
        obs = jnp.asarray(observations)
        if masks is None:
            width = sum(act.ASSISTED_NVEC) if self.mode == "assisted" else 1
            masks = jnp.ones((obs.shape[0], width), bool)
        return self._act(self.params, obs, jnp.asarray(masks))


def saved_policy(ck: checkpoint.Checkpoint) -> SavedPolicy:
    """The policy of a jax-ppo checkpoint (its parameters only: the optimizer and games are not read)."""
    net_arch = Hyper.of(config_from_json(ck.meta["config"], playing=True)).net_arch
    template = jax.eval_shape(
        functools.partial(networks.init_params, jax.random.PRNGKey(0), ck.meta["action_mode"], net_arch)
    )
    runner = checkpoint.part(ck, "runner")
    if not isinstance(runner, dict):
        raise ck.error("runner: not a table of arrays")
    params = checkpoint.filled(ck, {"params": template}, runner, "runner")["params"]
    return SavedPolicy(params, ck.meta["action_mode"])
