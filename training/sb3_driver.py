"""A stable-baselines3 run (PPO, SAC, MaskablePPO) on the batched vector env, in chunks, with checkpoints.

The run learns in chunks of `checkpoint_every` learner moves (`model.learn(...,
reset_num_timesteps=False)`), writing a checkpoint after each (`training.runs`: the
rounds, the paths, resuming). A checkpoint holds the model's state, the torch, numpy and
Python RNG states, the vector env's games, keys and counters, the metrics' windows and the
league's pool, so a resumed run continues with the same model, optimizer, RNG states and
game states as an uninterrupted one. Learner moves are SB3's `num_timesteps`.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from stable_baselines3.common.logger import configure

import piramida.physics  # noqa: F401 (float64, which the game states need)
from piramida.envs import core
from piramida.envs.sb3 import SB3VecEnv
from piramida.training import checkpoint, policies, prior, runs
from piramida.training.callbacks import TrainingCallback, progress_bar
from piramida.training.config import ConfigError, TrainConfig
from piramida.training.league import League


def env_state(env: Any) -> dict[str, Any]:
    """The vector env's games, JAX keys, move counters, reset generator and episodes so far (numpy)."""
    engine = env.venv.core
    returns, lengths = env.episodes_so_far()
    return {
        "states": checkpoint.flat_arrays(engine.states),
        "keys": np.asarray(engine.keys),
        "learner_moves": engine.learner_moves.copy(),
        "np_random": env.venv.np_random.bit_generator.state,
        "episode_returns": returns,
        "episode_lengths": lengths,
    }


def set_env_state(ck: checkpoint.Checkpoint, env: Any) -> None:
    """Put back what `env_state` took; CheckpointError where it does not fit this env."""
    engine = env.venv.core
    saved = checkpoint.part(ck, "resume", "env")
    if not isinstance(saved, dict):
        raise ck.error("resume.env: not a table")
    # The shapes of the env's games and keys, as a reset would make them (without playing one).
    keys = jax.ShapeDtypeStruct((engine.size, 2), jnp.uint32)
    states, keys = jax.eval_shape(core.new_frames, keys, engine.settings.variant)
    engine.states = checkpoint.filled(ck, states, saved.get("states"), "resume.env.states")
    engine.keys = checkpoint.filled(ck, keys, {"": saved.get("keys")}, "resume.env.keys")
    moves = saved.get("learner_moves")
    if not isinstance(moves, np.ndarray) or moves.shape != engine.learner_moves.shape:
        raise ck.error("resume.env.learner_moves: not one count per table")
    engine.learner_moves = moves
    generator = np.random.Generator(np.random.PCG64())
    try:
        generator.bit_generator.state = saved["np_random"]
    except (TypeError, ValueError, KeyError) as error:
        raise ck.error(f"resume.env.np_random: not a PCG64 state ({error})") from error
    env.venv.np_random = generator
    returns, lengths = saved.get("episode_returns"), saved.get("episode_lengths")
    if returns is None and lengths is None:
        return  # a checkpoint from before the episodes were kept: they start anew
    try:
        env.continue_episodes(np.asarray(returns, np.float64), np.asarray(lengths, np.int64))
    except (TypeError, ValueError) as error:
        raise ck.error(f"resume.env.episode_returns, episode_lengths: {error}") from error


def check_device(device: str) -> None:
    """ConfigError if `cuda` is asked for and torch sees no GPU."""
    import torch

    if device == "cuda" and not torch.cuda.is_available():
        raise ConfigError("device: cuda asked for, but torch sees no GPU (use cpu or auto)")


def train(config: TrainConfig, out: Path, resume: Path | None = None, progress: bool = True) -> runs.Result:
    """Train (or continue) a stable-baselines3 run as `config` says; as `trainer.train`."""
    check_device(config.device)
    saved = runs.resumed(config, resume) if resume is not None else None
    rounds = config.round_moves()
    every, total = runs.round_up(config.checkpoint_every, rounds), runs.round_up(config.steps, rounds)
    settings = runs.settings_of(config)
    league = League(
        config.league or (config.opponent,), settings, config.seed, runs.round_up(config.league_every, rounds)
    )
    env = SB3VecEnv(
        config.tables,
        variant=config.variant,
        action_mode=config.action_mode,
        opponent=league,
        noise=config.noise,
        shot_limit=config.shot_limit,
    )
    algorithm = policies.algorithm_class(config.algo)
    model = algorithm("MlpPolicy", env, seed=config.seed, device=config.device, verbose=0, **config.hyper())
    if saved is not None:  # the fresh model takes the saved one's state
        checkpoint.restore_model(saved, model)
        set_env_state(saved, env)
        league.pool = runs.pool_of(saved)
    elif config.action_mode == "assisted":
        prior.apply_sb3(model, config.assisted_prior)
    league.live = policies.deterministic(model, config.algo)
    out.mkdir(parents=True, exist_ok=True)
    model.set_logger(configure(str(out / "tensorboard"), ["tensorboard"]))

    bar = progress_bar(progress)
    task = bar.add_task("training", total=total, completed=model.num_timesteps, rate=0.0)
    callback = TrainingCallback(config.tables, rounds, league, (bar, task))
    if saved is not None:
        runs.restore_metrics(saved, callback)
        checkpoint.set_rng_states(saved, checkpoint.part(saved, "resume", "rng"), model)
    extra = {"use_masking": True} if config.algo == "maskable-ppo" else {}
    start, moves_at_start = time.perf_counter(), model.num_timesteps
    with bar:
        while model.num_timesteps < total:
            target = min(total, (model.num_timesteps // every + 1) * every)
            model.learn(
                target - model.num_timesteps,
                callback=callback,
                log_interval=None,
                reset_num_timesteps=False,
                **extra,
            )
            path = runs.checkpoint_path(out, model.num_timesteps)
            if model.num_timesteps % every == 0:  # periodic: `self` may play it from the next chunk on
                league.pool = [*league.pool, str(path.resolve())]
            _save(path, model, env, callback, config, final=False)
    seconds = time.perf_counter() - start
    final = out / "final.zip"
    _save(final, model, env, callback, config, final=True)
    model.logger.close()
    env.close()
    return runs.Result.timed(final, model.num_timesteps, model.num_timesteps - moves_at_start, seconds)


def _save(path: Path, model: Any, env: Any, callback: Any, config: TrainConfig, final: bool) -> None:
    """A checkpoint of the run as it stands between two chunks."""
    resume_state = {
        "rng": checkpoint.rng_states(model),
        "env": env_state(env),
        "metrics": callback.state(),
        "pool": list(callback.league.pool),
        "league": {"round": callback.league.round, "playing": callback.league.current_name},  # for the record
    }
    state = {"model": checkpoint.model_state(model), "resume": resume_state}
    checkpoint.write(path, checkpoint.new_meta(config, model.num_timesteps, final), state)
