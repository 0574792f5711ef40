"""jax-ppo's learning: PPO's settings, the runner a round changes, and the jitted round (as in PureJaxRL).

SB3 steps the env from Python and moves every batch through numpy and torch; here one
`jit`ted `update` does a whole round: a `lax.scan` of `n_steps` moves over the
functional env (`envs.functional`: the learner's move, the bot's replies, same-step
restarts), GAE, then `n_epochs` x minibatches of clipped PPO updates (`optax`: Adam after
clipping the global gradient norm). As in SB3, advantages are normalised per minibatch,
and a frame cut by the shot limit is bootstrapped from its last observation's value. The
networks are `training.networks` (`mlp`, on the flat observation) or the trained bot's
slot scorer (`training.slot_policy`, on the `menu` observation, `--policy`); the run
around the round is `training.jax_driver`. The opponent is a bot playing inside the
loop, one compiled round per bot (a league switches between them by round), or `self`:
a slot policy's earlier parameters, passed to the round as an argument and played as
the trained bot's `policy` level (`slot_policy.as_bot`), so every snapshot shares one
compiled round.

The round runs under `shard_map` over a one-axis mesh of devices (`table_mesh`, axis
`tables`; every device by default, of every process where several joined the run through
`jax.distributed`: `training.hosts`): each device steps its share of the tables with its
own keys and takes its share of every minibatch, and the gradients and statistics are
averaged over the devices, so every device applies the same update to the replicated
networks. On one device the round is the plain single-device program, bit for bit; two
processes of one device each give two devices' bits.
"""

from __future__ import annotations

import dataclasses
import functools
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import optax
from jax.sharding import Mesh, NamedSharding, PartitionSpec

import piramida.physics  # noqa: F401 (float64, which the game states need)
from piramida.agents import make_bot
from piramida.envs import core, functional
from piramida.training import networks, runs, slot_policy
from piramida.training.config import SELF, ConfigError, TrainConfig, observation_of

try:
    from jax import shard_map
except ImportError:  # jax before shard_map left `experimental`
    from jax.experimental.shard_map import shard_map  # type: ignore[no-redef]

AXIS = "tables"  # the mesh's one axis: the tables are split along it


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
    learned: Any  # the policy chose this move (the slot policy's decisions are the search's)
    figures: dict[str, Any]  # what `callbacks.Figures.add` counts


def table_mesh(config: TrainConfig, hyper: Hyper, devices: Sequence[Any] | None = None) -> Mesh:
    """The mesh a round splits its tables over: `devices` (default: every device, of every process).

    ConfigError unless the tables and the minibatch split evenly, so every device steps
    as many tables and takes as many moves of each minibatch.
    """
    devices = list(jax.devices() if devices is None else devices)
    count = len(devices)
    if config.tables % count:
        raise ConfigError(
            f"tables: {config.tables} tables do not split over {count} devices (use a multiple of {count})"
        )
    if hyper.batch_size % count:
        raise ConfigError(
            f"hyperparameters: batch_size {hyper.batch_size} does not split over {count} devices "
            f"(use a multiple of {count})"
        )
    return Mesh(np.asarray(devices), (AXIS,))


def _specs(env: PartitionSpec) -> Runner:
    """A runner's layout: the games split along the tables (as `env` says), the rest replicated."""
    return Runner._make((PartitionSpec(), PartitionSpec(), env, PartitionSpec()))  # a runner of specs


def _laid_out(tree: Any, mesh: Mesh, spec: PartitionSpec) -> Any:
    """`tree`'s arrays laid out on `mesh` by `spec`, each device (of any process) given its part.

    Every process holds the whole value (the same seed makes the same runner; a checkpoint
    holds the gathered games), so each process cuts its own devices' parts from it.
    """
    sharding = NamedSharding(mesh, spec)

    def put(leaf: Any) -> Any:
        whole = np.asarray(leaf)
        return jax.make_array_from_callback(whole.shape, sharding, lambda index: whole[index])

    return jax.tree_util.tree_map(put, tree)


def placed(runner: Runner, mesh: Mesh) -> Runner:
    """`runner` laid out on `mesh` as the round takes it: the games split by tables, the rest copied."""
    specs = _specs(PartitionSpec(AXIS))
    return Runner(*(_laid_out(part, mesh, spec) for part, spec in zip(runner, specs, strict=True)))


def replicated(tree: Any, mesh: Mesh) -> Any:
    """`tree` copied to every device of `mesh`: the round's other inputs (the env's numbers, a snapshot)."""
    return _laid_out(tree, mesh, PartitionSpec())


def optimizer(hyper: Hyper) -> optax.GradientTransformation:
    """Adam (SB3's eps) after clipping the gradients' global norm."""
    return optax.chain(
        optax.clip_by_global_norm(hyper.max_grad_norm), optax.adam(hyper.learning_rate, eps=1e-5)
    )


@functools.lru_cache(maxsize=16)
def opponent_bot(name: str, noise: float) -> functional.Opponent:
    """The bot `name` as it plays inside the loop, planning for the run's `noise` (one object per name).

    Built with concrete arrays even where first asked for inside a trace: the cached bot
    outlives that trace.
    """
    with jax.ensure_compile_time_eval():
        return make_bot(name, noise).act


def drawn(config: TrainConfig, steps: int) -> tuple[str, np.random.Generator | None]:
    """The round starting after `steps` learner moves: its opponent (or `SELF`), and the draw's generator.

    The opponent, or the league's draw (`runs.league_draw`, as the SB3 driver draws); the
    generator picks `self`'s snapshot from the pool (None without a league).
    """
    if not config.league:
        return config.opponent, None
    rounds = config.round_moves()
    return runs.league_draw(
        config.league, config.seed, steps // runs.round_up(config.league_every or rounds, rounds)
    )


def new_runner(config: TrainConfig, settings: core.Settings, hyper: Hyper, openings: bool = True) -> Runner:
    """A run's start: fresh (or loaded) networks, a fresh optimizer, fresh frames (openings played).

    `openings=False` leaves the frames as drawn: the runner's shapes for `jax.eval_shape`
    (a resumed run's template), where the opponent's opening moves cannot be played.
    """
    key_params, key_env, key = jax.random.split(jax.random.PRNGKey(config.seed), 3)
    if config.policy == "mlp":
        params = networks.init_params(key_params, settings.action_mode, hyper.net_arch, config.assisted_prior)
    else:
        params = slot_policy.init_params(config.policy, key_params)
    numbers = functional.EnvParams.of(settings)
    keys = jax.random.split(key_env, config.tables)
    if openings:
        name, _ = drawn(config, 0)
        bot = slot_policy.as_bot(params, config.noise) if name == SELF else opponent_bot(name, config.noise)
        env = functional.reset_on_host(keys, numbers, functional.opponent_policy(bot))
    else:
        env, *_ = functional.fresh(keys, numbers.variant)
    return Runner(params, optimizer(hyper).init(params), env, key)


def _masks(env: functional.EnvState, mode: str) -> Any:
    """The env's legal choices; `raw` has none (a (B, 1) placeholder keeps the rollout's shape)."""
    if mode == "assisted":
        return functional.masks(env)
    return jnp.ones((env.moves.shape[0], 1), bool)


@functools.lru_cache(maxsize=8)
def make_update(
    mode: str, opponent: functional.Opponent, hyper: Hyper, policy: str = "mlp", mesh: Mesh | None = None
) -> Any:
    """The jitted round: (runner, env numbers, snapshot) -> (runner, figures rows (n_steps, B), mean losses).

    One per action mode, bot (`opponent_bot`, or `SELF`), `Hyper`, network (`policy`:
    `mlp` or a slot scorer) and mesh (`table_mesh`: the runner laid out as `placed` lays
    it; None: the plain single-device round, which a one-device mesh reproduces bit for
    bit, as it skips the collectives: a mean over one device is the identity); the env's
    numbers (`functional.EnvParams`) and the snapshot (`self`'s parameters; None for a
    bot) are traced.
    """
    devices = 1 if mesh is None else mesh.size
    local_batch = hyper.batch_size // devices  # each device's share of a minibatch

    def mean(x: Any) -> Any:
        """The mean over every device's share (equal shares: the mean of the devices' means)."""
        return jnp.mean(x) if devices == 1 else jax.lax.pmean(jnp.mean(x), AXIS)

    def var(x: Any) -> Any:
        """The variance over every device's share, as `jnp.var` computes it on one."""
        return jnp.var(x) if devices == 1 else mean(jnp.square(x - mean(x)))

    def device_key(key: Any) -> Any:
        """The device's own key: the round's on one device, else folded with the device's index."""
        return key if devices == 1 else jax.random.fold_in(key, jax.lax.axis_index(AXIS))

    def across(tree: Any) -> Any:
        """`tree` averaged over the devices (gradients, statistics): every device applies the same update."""
        return tree if devices == 1 else jax.lax.pmean(tree, AXIS)

    tx = optimizer(hyper)
    slots = policy != "mlp"
    observation = observation_of(policy)
    value_of = slot_policy.value if slots else networks.value

    def act(params: Any, obs: Any, mask: Any, key: Any, env: functional.EnvState, numbers: Any) -> Any:
        """(action, its log-probability, learned) of the network."""
        if slots:
            return slot_policy.sample(params, obs, mask, key, env.games, numbers.noise)
        action, log_prob = networks.sample(params, obs, mask, key, mode)
        return action, log_prob, jnp.ones(log_prob.shape, bool)

    def log_prob_of(params: Any, obs: Any, mask: Any, action: Any) -> tuple[Any, Any]:
        if slots:
            return slot_policy.log_prob(params, obs, mask, action)
        return networks.log_prob(params, obs, mask, action, mode)

    def rollout_step(carry: tuple[Any, ...], _: Any) -> tuple[tuple[Any, ...], Transition]:
        params, snapshot, numbers, env, obs, key = carry
        player = slot_policy.as_bot(snapshot, numbers.noise) if opponent == SELF else opponent
        key, key_act = jax.random.split(key)
        mask = _masks(env, mode)
        action, log_prob, learned = act(params, obs, mask, key_act, env, numbers)
        played = action if mode == "assisted" else jnp.clip(action, -1.0, 1.0)
        env, next_obs, reward, terminated, truncated, info = functional.step(
            env, played, numbers, player, mode, observation
        )
        bootstrap = hyper.gamma * value_of(params, info.final_obs) * truncated
        transition = Transition(
            obs=obs,
            mask=mask,
            action=action,
            log_prob=log_prob,
            value=value_of(params, obs),
            reward=reward.astype(jnp.float32) + bootstrap,
            done=terminated | truncated,
            learned=learned,
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
        return (params, snapshot, numbers, env, next_obs, key), transition

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
        log_prob, entropy = log_prob_of(params, t.obs, t.mask, t.action)
        advantage = (advantage - mean(advantage)) / (jnp.sqrt(var(advantage)) + 1e-8)
        # the moves the policy chose, over the minibatch's count of them per device (the devices' mean
        # of their losses is then the minibatch's loss)
        chosen = across(jnp.sum(t.learned).astype(jnp.float32))
        weight = t.learned.astype(jnp.float32) / jnp.maximum(chosen, 1 / devices)
        ratio = jnp.where(t.learned, jnp.exp(log_prob - t.log_prob), 1.0)
        clipped = jnp.clip(ratio, 1.0 - hyper.clip_range, 1.0 + hyper.clip_range)
        policy_loss = -jnp.sum(weight * jnp.minimum(advantage * ratio, advantage * clipped))
        value_loss = jnp.mean((returns - value_of(params, t.obs)) ** 2)  # averaged over devices below
        entropy_loss = -jnp.sum(weight * entropy)
        total = policy_loss + hyper.ent_coef * entropy_loss + hyper.vf_coef * value_loss
        stats = {
            "loss": total,
            "policy_gradient_loss": policy_loss,
            "value_loss": value_loss,
            "entropy_loss": entropy_loss,
            "approx_kl": jnp.sum(weight * ((ratio - 1.0) - jnp.log(ratio))),
            "clip_fraction": jnp.sum(weight * (jnp.abs(ratio - 1.0) > hyper.clip_range)),
        }
        return total, stats

    def minibatch(carry: tuple[Any, Any], batch: tuple[Any, ...]) -> tuple[tuple[Any, Any], dict[str, Any]]:
        params, opt_state = carry
        grads, stats = across(jax.grad(loss, has_aux=True)(params, batch))
        updates, opt_state = tx.update(grads, opt_state, params)
        return (optax.apply_updates(params, updates), opt_state), stats

    def epoch(carry: tuple[Any, Any, Any], data: tuple[Any, ...]) -> tuple[tuple[Any, Any, Any], Any]:
        params, opt_state, key = carry
        key, key_perm = jax.random.split(key)
        size = data[1].shape[0]
        order = jax.random.permutation(key_perm, size)
        shuffled = jax.tree_util.tree_map(
            lambda x: x[order].reshape(size // local_batch, local_batch, *x.shape[1:]), data
        )
        (params, opt_state), stats = jax.lax.scan(minibatch, (params, opt_state), shuffled)
        return (params, opt_state, key), stats

    def update(
        runner: Runner, numbers: functional.EnvParams, snapshot: Any
    ) -> tuple[Runner, dict[str, Any], dict[str, Any]]:
        """One device's round on its tables (the updates averaged with the other devices')."""
        key_rollout, key_epochs, key = jax.random.split(runner.key, 3)
        obs = functional.observe(runner.env.games, numbers, observation)
        (_, _, _, env, obs, _), traj = jax.lax.scan(
            rollout_step,
            (runner.params, snapshot, numbers, runner.env, obs, device_key(key_rollout)),
            None,
            hyper.n_steps,
        )
        advantage = advantages(traj, value_of(runner.params, obs))
        returns = advantage + traj.value
        flat = jax.tree_util.tree_map(
            lambda x: x.reshape(-1, *x.shape[2:]), (traj._replace(figures={}), advantage, returns)
        )
        (params, opt_state, _), stats = jax.lax.scan(
            lambda c, _: epoch(c, flat),
            (runner.params, runner.opt_state, device_key(key_epochs)),
            None,
            hyper.n_epochs,
        )
        means = {name: jnp.mean(value) for name, value in stats.items()}
        means["loss"] = stats["loss"][-1, -1]  # SB3 logs the last minibatch's loss
        means["explained_variance"] = 1.0 - var(returns - traj.value) / var(returns)
        return Runner(params, opt_state, env, key), traj.figures, means

    if mesh is None:
        return jax.jit(lambda runner, numbers, snapshot=None: update(runner, numbers, snapshot))
    # check_vma=False: the env's `cond`s return arrays the type checker would call replicated.
    sharded = shard_map(
        update,
        mesh=mesh,
        in_specs=(_specs(PartitionSpec(AXIS)), PartitionSpec(), PartitionSpec()),
        out_specs=(_specs(PartitionSpec(AXIS)), PartitionSpec(None, AXIS), PartitionSpec()),
        check_vma=False,
    )
    return jax.jit(lambda runner, numbers, snapshot=None: sharded(runner, numbers, snapshot))


def time_rounds(
    config: TrainConfig, rounds: int, devices: Sequence[Any] | None = None
) -> tuple[float, float]:
    """Seconds of a run's first round (the reset and the compile) and of `rounds` more (benchmarks).

    The tables split over `devices` (default: every device), as a run splits them.
    """
    hyper, settings = Hyper.of(config), runs.settings_of(config)
    started = time.perf_counter()
    mesh = table_mesh(config, hyper, devices)
    runner = placed(new_runner(config, settings, hyper), mesh)
    update = make_update(
        settings.action_mode, opponent_bot(config.opponent, config.noise), hyper, config.policy, mesh
    )
    numbers = functional.EnvParams.of(settings)
    runner = jax.block_until_ready(update(runner, numbers))[0]
    first = time.perf_counter() - started
    started = time.perf_counter()
    for _ in range(rounds):
        runner = jax.block_until_ready(update(runner, numbers))[0]
    return first, time.perf_counter() - started
