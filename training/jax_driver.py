"""A `--algo jax-ppo` run: the jitted rounds (`training.ppo`) driven from Python, with checkpoints and resume.

Python only calls the round once per round, writes the figures (`callbacks.Figures`, the
same TensorBoard tags as the SB3 driver, and `train/*` losses of the same names),
checkpoints, and moves the progress bar; the rounds, the paths, resuming and the league's
draws are `training.runs`'. A league switches the round's program: one compiled round per
member bot (`ppo.make_update`), drawn every `league_every` moves as the SB3 driver draws.
A slot-scorer run (`--policy`) also writes its policy as a `trained` bot's
`OUT/policy.npz` at every checkpoint (`slot_policy.export`). Checkpoints are piramida's
data-only zips (`training.checkpoint`): the runner (the parameters, the optimizer's state,
the games and every PRNG key, one array per leaf, named by its path) and the metrics'
windows. A run is a function of its seed: resumed from any checkpoint it ends with the
uninterrupted run's parameters.
"""

from __future__ import annotations

import functools
import time
from pathlib import Path
from typing import Any

import jax
from stable_baselines3.common.logger import configure

from piramida.envs import functional
from piramida.training import callbacks, checkpoint, ppo, runs, slot_policy
from piramida.training.config import ConfigError, TrainConfig


def jax_device(name: str) -> Any:
    """JAX's device for `--device`: `cpu`, `cuda` (a GPU) or `auto` (JAX's default); ConfigError if absent."""
    if name == "auto":
        return jax.devices()[0]
    platform = "gpu" if name == "cuda" else "cpu"
    try:
        return jax.devices(platform)[0]
    except RuntimeError as error:
        raise ConfigError(f"device: {name} asked for, but JAX has no {platform} backend ({error})") from error


def train(config: TrainConfig, out: Path, resume: Path | None = None, progress: bool = True) -> runs.Result:
    """Train (or continue) a jax-ppo run as `config` says; as `trainer.train` (same outputs and errors)."""
    hyper = ppo.Hyper.of(config)
    settings = runs.settings_of(config)
    rounds = config.round_moves()
    every, total = runs.round_up(config.checkpoint_every, rounds), runs.round_up(config.steps, rounds)
    with jax.default_device(jax_device(config.device)):
        figures = callbacks.Figures(config.tables)
        if resume is not None:
            ck = runs.resumed(config, resume)
            runner = load(ck, config)
            runs.restore_metrics(ck, figures)
            steps = ck.meta["steps"]
        else:
            runner, steps = ppo.new_runner(config, settings, hyper), 0
        numbers = functional.EnvParams.of(settings)
        out.mkdir(parents=True, exist_ok=True)
        logger = configure(str(out / "tensorboard"), ["tensorboard"])
        bar = callbacks.progress_bar(progress)
        task = bar.add_task("training", total=total, completed=steps, rate=0.0)
        start, steps_at_start = time.perf_counter(), steps
        with bar:
            while steps < total:
                bot = ppo.opponent_bot(ppo.opponent_of(config, steps), config.noise)
                update = ppo.make_update(settings.action_mode, bot, hyper, config.policy)
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
                    save(runs.checkpoint_path(out, steps), runner, figures, config, steps, final=False)
                    if config.policy != "mlp":
                        elapsed = time.perf_counter() - start
                        slot_policy.export(out / "policy.npz", runner.params, config, steps, elapsed)
        seconds = time.perf_counter() - start
        final = out / "final.zip"
        save(final, runner, figures, config, steps, final=True)
        logger.close()
    return runs.Result.timed(final, steps, steps - steps_at_start, seconds)


def save(
    path: Path, runner: ppo.Runner, figures: callbacks.Figures, config: TrainConfig, steps: int, final: bool
) -> None:
    """Write a checkpoint atomically: metadata, the runner's arrays, the metrics' windows."""
    state = {"runner": checkpoint.flat_arrays(runner._asdict()), "resume": {"metrics": figures.state()}}
    checkpoint.write(path, checkpoint.new_meta(config, steps, final), state)


def load(ck: checkpoint.Checkpoint, config: TrainConfig) -> ppo.Runner:
    """The runner a checkpoint of `config`'s run saved, ready to continue."""
    hyper, settings = ppo.Hyper.of(config), runs.settings_of(config)
    template = jax.eval_shape(functools.partial(ppo.new_runner, config, settings, hyper))
    return ppo.Runner(**checkpoint.filled(ck, template._asdict(), checkpoint.part(ck, "runner"), "runner"))
