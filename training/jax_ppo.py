"""`--algo jax-ppo`: PPO with the policy, the env and the update in one jitted function (as in PureJaxRL).

SB3 steps the env from Python and moves every batch through numpy and torch; here one
`jit`ted `update` does a whole round: a `lax.scan` of `n_steps` moves over the
functional env (`envs.functional`: the learner's move, the bot's replies, same-step
restarts), GAE, then `n_epochs` x minibatches of clipped PPO updates (`optax`: Adam after
clipping the global gradient norm). Python only calls it once per round, writes the
figures (`callbacks.Figures`, the same TensorBoard tags as the SB3 path, and `train/*`
losses of the same names), checkpoints, and moves the progress bar.

The policy is two tanh MLPs (actor and critic, `net_arch` each, orthogonal init), on flat
observations. `assisted`: one categorical per `MultiDiscrete` head, the slot head masked
with the env's legal slots (as MaskablePPO). `raw`: a diagonal Gaussian with a learned
log standard deviation, clipped to [-1, 1] for the env (as SB3's PPO). As in SB3, advantages
are normalised per minibatch, and a frame cut by the shot limit is bootstrapped from its
last observation's value.

Checkpoints are piramida's data-only zips (`training.checkpoint`): the runner (the
parameters, the optimizer's state, the games and every PRNG key, one array per leaf,
named by its path) and the metrics' windows. A run is a function of its seed: resumed
from any checkpoint it ends with the uninterrupted run's parameters.
"""

from __future__ import annotations

import dataclasses
import functools
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import optax

import piramida.physics  # noqa: F401 (float64, which the game states need)
from piramida.envs import actions as act
from piramida.envs import core, functional
from piramida.envs import observation as encoding
from piramida.training import callbacks, checkpoint, loop, prior
from piramida.training.config import IDENTITY, ConfigError, TrainConfig, config_from_json

MASKED = -1e9  # the logit of an illegal slot: exp() is 0, and 0 x it stays finite in the entropy


@dataclass(frozen=True)
class Hyper:
    """PPO's settings (the `[hyperparameters]` table; defaults as SB3's PPO, rollouts as `config`'s)."""

    n_steps: int = 64
    batch_size: int = 256
    n_epochs: int = 4
    learning_rate: float = 3e-4
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.0
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    net_arch: tuple[int, ...] = (64, 64)

    @classmethod
    def of(cls, config: TrainConfig) -> Hyper:
        """The run's settings; ConfigError names an unknown or bad one."""
        values = dict(config.hyper())
        known = [f.name for f in dataclasses.fields(cls)]
        unknown = sorted(set(values) - set(known))
        if unknown:
            raise ConfigError(
                f"hyperparameters: jax-ppo does not take {unknown}; it takes {', '.join(known)}"
            )
        try:
            if "net_arch" in values:
                values["net_arch"] = tuple(values["net_arch"])
        except TypeError as error:
            raise ConfigError(f"hyperparameters: net_arch: expected layer sizes ({error})") from error
        hyper = cls(**values)
        for name in ("n_steps", "batch_size", "n_epochs"):
            value = getattr(hyper, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"hyperparameters: {name}: expected an integer >= 1, got {value!r}")
        if not all(isinstance(n, int) and n >= 1 for n in hyper.net_arch):
            raise ConfigError(f"hyperparameters: net_arch: expected layer sizes >= 1, got {hyper.net_arch!r}")
        moves = hyper.n_steps * config.tables
        if moves % hyper.batch_size:
            raise ConfigError(
                f"hyperparameters: batch_size {hyper.batch_size} must divide a rollout's "
                f"n_steps x tables = {moves} moves"
            )
        return hyper


class Runner(NamedTuple):
    """Everything a round changes: the networks, the optimizer, the games, the PRNG key."""

    params: Any
    opt_state: Any
    env: functional.EnvState
    key: Any


class Transition(NamedTuple):
    """One rollout step (leading axis: tables; `scan` adds the step axis)."""

    obs: Any
    mask: Any
    action: Any
    log_prob: Any
    value: Any
    reward: Any  # with the truncation bootstrap
    done: Any
    figures: dict[str, Any]  # what `callbacks.Figures.add` counts


# The networks ---------------------------------------------------------------------------------


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


def _value(params: dict[str, Any], obs: Any) -> Any:
    return _forward(params["critic"], obs.astype(jnp.float32))[..., 0]


def _heads(params: dict[str, Any], obs: Any, mask: Any) -> list[Any]:
    """Per head of the `MultiDiscrete`, the masked log-probabilities (B, n)."""
    logits = jnp.where(mask, _forward(params["actor"], obs.astype(jnp.float32)), MASKED)
    split = jnp.split(logits, np.cumsum(act.ASSISTED_NVEC)[:-1], axis=-1)
    return [jax.nn.log_softmax(head, axis=-1) for head in split]


def _sample(params: dict[str, Any], obs: Any, mask: Any, key: Any, mode: str) -> tuple[Any, Any]:
    """Actions drawn from the policy (B, ...) and their log-probabilities (B,)."""
    if mode == "assisted":
        heads = _heads(params, obs, mask)
        keys = jax.random.split(key, len(heads))
        actions = jnp.stack([jax.random.categorical(k, h) for k, h in zip(keys, heads, strict=True)], -1)
        return actions.astype(jnp.int32), _log_prob(params, obs, mask, actions, mode)[0]
    mean = _forward(params["actor"], obs.astype(jnp.float32))
    actions = mean + jnp.exp(params["log_std"]) * jax.random.normal(key, mean.shape, jnp.float32)
    return actions, _log_prob(params, obs, mask, actions, mode)[0]


def _log_prob(params: dict[str, Any], obs: Any, mask: Any, actions: Any, mode: str) -> tuple[Any, Any]:
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
    log_prob = jnp.sum(-0.5 * z * z - log_std - 0.5 * jnp.log(2 * jnp.pi), -1)
    entropy = jnp.sum(0.5 + 0.5 * jnp.log(2 * jnp.pi) + log_std) * jnp.ones(mean.shape[0])
    return log_prob, entropy


def deterministic_actions(params: dict[str, Any], obs: Any, mask: Any, mode: str) -> Any:
    """The policy's most likely actions: each head's argmax over legal choices, or the clipped mean."""
    if mode == "assisted":
        return jnp.stack([jnp.argmax(h, -1) for h in _heads(params, obs, mask)], -1).astype(jnp.int32)
    return jnp.clip(_forward(params["actor"], obs.astype(jnp.float32)), -1.0, 1.0)


# The round ------------------------------------------------------------------------------------


def optimizer(hyper: Hyper) -> optax.GradientTransformation:
    """Adam (SB3's eps) after clipping the gradients' global norm."""
    return optax.chain(
        optax.clip_by_global_norm(hyper.max_grad_norm), optax.adam(hyper.learning_rate, eps=1e-5)
    )


def new_runner(config: TrainConfig, settings: core.Settings, hyper: Hyper) -> Runner:
    """A run's start: fresh networks and optimizer, fresh frames (the bot's opening moves played)."""
    key_params, key_env, key = jax.random.split(jax.random.PRNGKey(config.seed), 3)
    params = init_params(key_params, settings.action_mode, hyper.net_arch, config.assisted_prior)
    numbers = functional.EnvParams.of(settings)
    env = functional.reset(jax.random.split(key_env, config.tables), numbers, config.opponent)
    return Runner(params, optimizer(hyper).init(params), env, key)


def _masks(env: functional.EnvState, mode: str) -> Any:
    """The env's legal choices; `raw` has none (a (B, 1) placeholder keeps the rollout's shape)."""
    if mode == "assisted":
        return functional.masks(env)
    return jnp.ones((env.moves.shape[0], 1), bool)


@functools.lru_cache(maxsize=4)
def make_update(mode: str, opponent: str, hyper: Hyper) -> Any:
    """The jitted round: (runner, env numbers) -> (runner, figures rows (n_steps, B), mean losses).

    One per action mode, bot and `Hyper`; the env's numbers (`functional.EnvParams`) are traced.
    """
    tx = optimizer(hyper)

    def rollout_step(carry: tuple[Any, ...], _: Any) -> tuple[tuple[Any, ...], Transition]:
        params, numbers, env, obs, key = carry
        key, key_act = jax.random.split(key)
        mask = _masks(env, mode)
        action, log_prob = _sample(params, obs, mask, key_act, mode)
        played = action if mode == "assisted" else jnp.clip(action, -1.0, 1.0)
        env, next_obs, reward, terminated, truncated, info = functional.step(
            env, played, numbers, opponent, mode
        )
        bootstrap = hyper.gamma * _value(params, info.final_obs) * truncated
        transition = Transition(
            obs=obs,
            mask=mask,
            action=action,
            log_prob=log_prob,
            value=_value(params, obs),
            reward=reward.astype(jnp.float32) + bootstrap,
            done=terminated | truncated,
            figures={
                "rewards": reward,
                "dones": terminated | truncated,
                "shots": info.shot,
                "pots": info.pot,
                "fouls": info.fouls != 0,
                "won": info.won,
                "score": info.score,
            },
        )
        return (params, numbers, env, next_obs, key), transition

    def advantages(traj: Transition, last_value: Any) -> Any:
        def back(carry: tuple[Any, Any], t: Transition) -> tuple[tuple[Any, Any], Any]:
            gae, next_value = carry
            going = 1.0 - t.done.astype(jnp.float32)
            delta = t.reward + hyper.gamma * next_value * going - t.value
            gae = delta + hyper.gamma * hyper.gae_lambda * going * gae
            return (gae, t.value), gae

        _, out = jax.lax.scan(back, (jnp.zeros_like(last_value), last_value), traj, reverse=True)
        return out

    def loss(params: Any, batch: tuple[Any, ...]) -> tuple[Any, dict[str, Any]]:
        t, advantage, returns = batch
        log_prob, entropy = _log_prob(params, t.obs, t.mask, t.action, mode)
        advantage = (advantage - advantage.mean()) / (advantage.std() + 1e-8)
        ratio = jnp.exp(log_prob - t.log_prob)
        clipped = jnp.clip(ratio, 1.0 - hyper.clip_range, 1.0 + hyper.clip_range)
        policy_loss = -jnp.minimum(advantage * ratio, advantage * clipped).mean()
        value_loss = jnp.mean((returns - _value(params, t.obs)) ** 2)
        entropy_loss = -entropy.mean()
        total = policy_loss + hyper.ent_coef * entropy_loss + hyper.vf_coef * value_loss
        stats = {
            "loss": total,
            "policy_gradient_loss": policy_loss,
            "value_loss": value_loss,
            "entropy_loss": entropy_loss,
            "approx_kl": jnp.mean((ratio - 1.0) - (log_prob - t.log_prob)),
            "clip_fraction": jnp.mean(jnp.abs(ratio - 1.0) > hyper.clip_range),
        }
        return total, stats

    def minibatch(carry: tuple[Any, Any], batch: tuple[Any, ...]) -> tuple[tuple[Any, Any], dict[str, Any]]:
        params, opt_state = carry
        grads, stats = jax.grad(loss, has_aux=True)(params, batch)
        updates, opt_state = tx.update(grads, opt_state, params)
        return (optax.apply_updates(params, updates), opt_state), stats

    def epoch(carry: tuple[Any, Any, Any], data: tuple[Any, ...]) -> tuple[tuple[Any, Any, Any], Any]:
        params, opt_state, key = carry
        key, key_perm = jax.random.split(key)
        size = data[1].shape[0]
        order = jax.random.permutation(key_perm, size)
        shuffled = jax.tree_util.tree_map(
            lambda x: x[order].reshape(size // hyper.batch_size, hyper.batch_size, *x.shape[1:]), data
        )
        (params, opt_state), stats = jax.lax.scan(minibatch, (params, opt_state), shuffled)
        return (params, opt_state, key), stats

    @jax.jit
    def update(
        runner: Runner, numbers: functional.EnvParams
    ) -> tuple[Runner, dict[str, Any], dict[str, Any]]:
        key_rollout, key_epochs, key = jax.random.split(runner.key, 3)
        obs = functional.observe(runner.env.games, numbers)
        (_, _, env, obs, _), traj = jax.lax.scan(
            rollout_step, (runner.params, numbers, runner.env, obs, key_rollout), None, hyper.n_steps
        )
        advantage = advantages(traj, _value(runner.params, obs))
        returns = advantage + traj.value
        flat = jax.tree_util.tree_map(
            lambda x: x.reshape(-1, *x.shape[2:]), (traj._replace(figures={}), advantage, returns)
        )
        (params, opt_state, _), stats = jax.lax.scan(
            lambda c, _: epoch(c, flat), (runner.params, runner.opt_state, key_epochs), None, hyper.n_epochs
        )
        means = {name: jnp.mean(value) for name, value in stats.items()}
        means["loss"] = stats["loss"][-1, -1]  # SB3 logs the last minibatch's loss
        means["explained_variance"] = 1.0 - jnp.var(returns - traj.value) / jnp.var(returns)
        return Runner(params, opt_state, env, key), traj.figures, means

    return update


# The run --------------------------------------------------------------------------------------


def jax_device(name: str) -> Any:
    """JAX's device for `--device`: `cpu`, `cuda` (a GPU) or `auto` (JAX's default); ConfigError if absent."""
    if name == "auto":
        return jax.devices()[0]
    platform = "gpu" if name == "cuda" else "cpu"
    try:
        return jax.devices(platform)[0]
    except RuntimeError as error:
        raise ConfigError(f"device: {name} asked for, but JAX has no {platform} backend ({error})") from error


def settings_of(config: TrainConfig) -> core.Settings:
    """The env's settings for a run."""
    return core.settings_from(
        config.variant, action_mode=config.action_mode, noise=config.noise, shot_limit=config.shot_limit
    )


def train(config: TrainConfig, out: Path, resume: Path | None = None, progress: bool = True) -> loop.Result:
    """Train (or continue) as `config` says; as `loop.train` (same outputs, errors and `Result`)."""
    from stable_baselines3.common.logger import configure

    hyper = Hyper.of(config)
    settings = settings_of(config)
    rounds = config.round_moves()
    every, total = loop.round_up(config.checkpoint_every, rounds), loop.round_up(config.steps, rounds)
    with jax.default_device(jax_device(config.device)):
        figures = callbacks.Figures(config.tables)
        if resume is not None:
            ck = checkpoint.read(resume)
            checkpoint.check_fits(ck.path, ck.meta, config, IDENTITY)
            runner = load(ck, config)
            try:
                figures.set_state(checkpoint.part(ck, "resume", "metrics"))
            except (KeyError, TypeError, ValueError) as error:
                raise ck.error(f"resume.metrics: {error}") from error
            steps = ck.meta["steps"]
        else:
            runner, steps = new_runner(config, settings, hyper), 0
        update = make_update(settings.action_mode, config.opponent, hyper)
        numbers = functional.EnvParams.of(settings)
        out.mkdir(parents=True, exist_ok=True)
        logger = configure(str(out / "tensorboard"), ["tensorboard"])
        bar = callbacks.progress_bar(progress)
        task = bar.add_task("training", total=total, completed=steps, rate=0.0)
        start, steps_at_start = time.perf_counter(), steps
        with bar:
            while steps < total:
                runner, rows, losses = update(runner, numbers)
                rows = jax.device_get(rows)
                for t in range(hyper.n_steps):
                    figures.add(**{name: column[t] for name, column in rows.items()})
                steps += rounds
                rate = (steps - steps_at_start) / (time.perf_counter() - start)
                for name, value in losses.items():
                    logger.record(f"train/{name}", float(value))
                logger.record("train/learning_rate", hyper.learning_rate)
                callbacks.write(logger, figures, steps, rate)
                bar.update(task, completed=steps, rate=rate)
                if steps % every == 0 or steps == total:
                    save(loop.checkpoint_path(out, steps), runner, figures, config, steps, final=False)
        seconds = time.perf_counter() - start
        final = out / "final.zip"
        save(final, runner, figures, config, steps, final=True)
        logger.close()
    moves = steps - steps_at_start
    return loop.Result(final, steps, moves, seconds, moves / seconds if seconds > 0 else 0.0)


# Checkpoints ----------------------------------------------------------------------------------


def save(
    path: Path, runner: Runner, figures: callbacks.Figures, config: TrainConfig, steps: int, final: bool
) -> None:
    """Write a checkpoint atomically: metadata, the runner's arrays, the metrics' windows."""
    state = {"runner": checkpoint.flat_arrays(runner._asdict()), "resume": {"metrics": figures.state()}}
    checkpoint.write(path, checkpoint.new_meta(config, steps, final), state)


def load(ck: checkpoint.Checkpoint, config: TrainConfig) -> Runner:
    """The runner a checkpoint of `config`'s run saved, ready to continue."""
    hyper, settings = Hyper.of(config), settings_of(config)
    template = jax.eval_shape(functools.partial(new_runner, config, settings, hyper))
    return Runner(**checkpoint.filled(ck, template._asdict(), checkpoint.part(ck, "runner"), "runner"))


class SavedPolicy:
    """A jax-ppo checkpoint's policy, deterministic: observations (B, FLAT_SIZE) and masks -> actions."""

    takes_masks = True  # `envs.opponents.ObservationOpponent` passes the legal slots
    on_device = True  # ... as JAX arrays, and the actions stay JAX arrays

    def __init__(self, params: dict[str, Any], mode: str) -> None:
        """Play `params` in action mode `mode`."""
        self.params, self.mode = params, mode
        self._act = jax.jit(functools.partial(deterministic_actions, mode=mode))

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
        functools.partial(init_params, jax.random.PRNGKey(0), ck.meta["action_mode"], net_arch)
    )
    runner = checkpoint.part(ck, "runner")
    if not isinstance(runner, dict):
        raise ck.error("runner: not a table of arrays")
    params = checkpoint.filled(ck, {"params": template}, runner, "runner")["params"]
    return SavedPolicy(params, ck.meta["action_mode"])
