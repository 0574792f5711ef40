"""`train`: a stable-baselines3 run on the batched vector env, in rounds, with checkpoints and resume.

(`--algo jax-ppo` runs `training.jax_ppo` instead, which shares the rounds, the paths and
the checkpoint metadata defined here and in `checkpoint`.)

The run learns in chunks of `checkpoint_every` learner moves (`model.learn(...,
reset_num_timesteps=False)`), writing a checkpoint after each (`OUT/checkpoints/step-N.zip`)
and `OUT/final.zip` at the end. Chunks start at fixed step counts, so a run resumed from
any of its checkpoints makes exactly the calls an uninterrupted run makes from there, with
the same model, optimizer, RNG states and game states: the final weights are the same.
Learner moves are counted over all tables (SB3's `num_timesteps`), and `steps`,
`checkpoint_every` and `league_every` are rounded up to whole rounds (`TrainConfig.round_moves`).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from piramida.envs import core
from piramida.training import checkpoint, prior
from piramida.training.config import IDENTITY, ConfigError, TrainConfig
from piramida.training.league import League

STEP_FILE = re.compile(r"step-(\d+)\.zip")


@dataclass(frozen=True)
class Result:
    """What a run wrote: the final checkpoint, its step count, and this session's moves, seconds and rate."""

    final: Path
    steps: int
    moves: int
    seconds: float
    moves_per_second: float


def round_up(value: int, unit: int) -> int:
    """`value` rounded up to a multiple of `unit` (at least one `unit`)."""
    return max(unit, -(-value // unit) * unit)


def checkpoint_path(out: Path, steps: int) -> Path:
    """Where the checkpoint after `steps` learner moves goes."""
    return out / "checkpoints" / f"step-{steps:09d}.zip"


def latest_checkpoint(out: Path) -> Path:
    """The checkpoint with the most steps in `out`; ConfigError if there is none."""
    found = sorted(
        (int(m.group(1)), p)
        for p in (out / "checkpoints").glob("step-*.zip")
        if (m := STEP_FILE.fullmatch(p.name))
    )
    if not found:
        raise ConfigError(f"resume: no checkpoint in {out / 'checkpoints'}")
    return found[-1][1]


def env_state(env: Any) -> dict[str, Any]:
    """The vector env's games, JAX keys, move counters and reset generator (numpy)."""
    engine = env.venv.core
    return {
        "states": jax.tree_util.tree_map(np.asarray, engine.states),
        "keys": np.asarray(engine.keys),
        "learner_moves": engine.learner_moves.copy(),
        "np_random": env.venv.np_random.bit_generator.state,
    }


def set_env_state(env: Any, state: dict[str, Any]) -> None:
    """Put back what `env_state` took."""
    engine = env.venv.core
    engine.states = jax.tree_util.tree_map(jnp.asarray, state["states"])
    engine.keys = jnp.asarray(state["keys"])
    engine.learner_moves[:] = state["learner_moves"]
    generator = np.random.Generator(np.random.PCG64())
    generator.bit_generator.state = state["np_random"]
    env.venv.np_random = generator


def check_device(device: str) -> None:
    """ConfigError if `cuda` is asked for and torch sees no GPU."""
    import torch

    if device == "cuda" and not torch.cuda.is_available():
        raise ConfigError("device: cuda asked for, but torch sees no GPU (use cpu or auto)")


def train(
    config: TrainConfig,
    out: Path,
    resume: Path | None = None,
    progress: bool = True,
) -> Result:
    """Train (or continue training) as `config` says, writing TensorBoard logs and checkpoints into `out`.

    Raises `checkpoint.CheckpointError` for a resume file that is not a checkpoint of this
    run, and `ConfigError` for settings that cannot run here.
    """
    if config.algo == "jax-ppo":  # no stable-baselines3: its own jitted loop
        from piramida.training import jax_ppo

        return jax_ppo.train(config, out, resume, progress)
    from stable_baselines3.common.logger import configure

    import piramida.physics  # noqa: F401 (float64, which the game states need)
    from piramida.envs.sb3 import SB3VecEnv
    from piramida.training.callbacks import TrainingCallback, progress_bar

    check_device(config.device)
    if resume is not None:
        meta = checkpoint.read_meta(resume)
        assert meta is not None
        checkpoint.check_fits(resume, meta, config, IDENTITY)
    rounds = config.round_moves()
    every, total = round_up(config.checkpoint_every, rounds), round_up(config.steps, rounds)
    settings = core.settings_from(
        config.variant, action_mode=config.action_mode, noise=config.noise, shot_limit=config.shot_limit
    )
    league = League(
        config.league or (config.opponent,), settings, config.seed, round_up(config.league_every, rounds)
    )
    env = SB3VecEnv(
        config.tables,
        variant=config.variant,
        action_mode=config.action_mode,
        opponent=league,
        noise=config.noise,
        shot_limit=config.shot_limit,
    )
    algorithm = checkpoint.algorithm_class(config.algo)
    saved: dict[str, Any] | None = None
    if resume is not None:
        model, saved = checkpoint.load(resume, env, config.device)
        set_env_state(env, saved["env"])
        league.pool = list(saved["pool"])
    else:
        model = algorithm(
            "MlpPolicy", env, seed=config.seed, device=config.device, verbose=0, **config.hyper()
        )
        if config.action_mode == "assisted":
            prior.apply_sb3(model, config.assisted_prior)
    league.live = checkpoint.deterministic(model, config.algo)
    out.mkdir(parents=True, exist_ok=True)
    model.set_logger(configure(str(out / "tensorboard"), ["tensorboard"]))

    bar = progress_bar(progress)
    task = bar.add_task("training", total=total, completed=model.num_timesteps, rate=0.0)
    callback = TrainingCallback(config.tables, rounds, league, (bar, task))
    if saved is not None:
        callback.set_state(saved["metrics"])
        checkpoint.set_rng_states(saved["rng"], model)
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
            path = checkpoint_path(out, model.num_timesteps)
            if model.num_timesteps % every == 0:  # periodic: `self` may play it from the next chunk on
                league.pool = [*league.pool, str(path.resolve())]
            _save(path, model, env, callback, config, final=False)
    seconds = time.perf_counter() - start
    final = out / "final.zip"
    _save(final, model, env, callback, config, final=True)
    model.logger.close()
    env.close()
    moves = model.num_timesteps - moves_at_start
    return Result(final, model.num_timesteps, moves, seconds, moves / seconds if seconds > 0 else 0.0)


def _save(path: Path, model: Any, env: Any, callback: Any, config: TrainConfig, final: bool) -> None:
    """A checkpoint of the run as it stands between two chunks."""
    resume_state = {
        "rng": checkpoint.rng_states(model),
        "env": env_state(env),
        "metrics": callback.state(),
        "pool": list(callback.league.pool),
        "league": {"round": callback.league.round, "playing": callback.league.current_name},  # for the record
    }
    checkpoint.save(path, model, checkpoint.new_meta(config, model.num_timesteps, final), resume_state)
