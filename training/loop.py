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
        "states": checkpoint.flat_arrays(engine.states),
        "keys": np.asarray(engine.keys),
        "learner_moves": engine.learner_moves.copy(),
        "np_random": env.venv.np_random.bit_generator.state,
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
    engine.learner_moves[:] = moves
    generator = np.random.Generator(np.random.PCG64())
    try:
        generator.bit_generator.state = saved["np_random"]
    except (TypeError, ValueError, KeyError) as error:
        raise ck.error(f"resume.env.np_random: not a PCG64 state ({error})") from error
    env.venv.np_random = generator


def pool_of(ck: checkpoint.Checkpoint) -> list[str]:
    """The league's pool of past checkpoints; CheckpointError unless each names a file."""
    pool = checkpoint.part(ck, "resume", "pool")
    if not isinstance(pool, list) or not all(isinstance(p, str) and Path(p).is_file() for p in pool):
        raise ck.error("resume.pool: not a list of this run's checkpoint files")
    return pool


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
    saved = checkpoint.read(resume) if resume is not None else None
    if saved is not None:
        checkpoint.check_fits(saved.path, saved.meta, config, IDENTITY)
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
    model = algorithm("MlpPolicy", env, seed=config.seed, device=config.device, verbose=0, **config.hyper())
    if saved is not None:  # the fresh model takes the saved one's state
        checkpoint.restore_model(saved, model)
        set_env_state(saved, env)
        league.pool = pool_of(saved)
    elif config.action_mode == "assisted":
        prior.apply_sb3(model, config.assisted_prior)
    league.live = checkpoint.deterministic(model, config.algo)
    out.mkdir(parents=True, exist_ok=True)
    model.set_logger(configure(str(out / "tensorboard"), ["tensorboard"]))

    bar = progress_bar(progress)
    task = bar.add_task("training", total=total, completed=model.num_timesteps, rate=0.0)
    callback = TrainingCallback(config.tables, rounds, league, (bar, task))
    if saved is not None:
        try:
            callback.set_state(checkpoint.part(saved, "resume", "metrics"))
        except (KeyError, TypeError, ValueError) as error:
            raise saved.error(f"resume.metrics: {error}") from error
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
    state = {"model": checkpoint.model_state(model), "resume": resume_state}
    checkpoint.write(path, checkpoint.new_meta(config, model.num_timesteps, final), state)
