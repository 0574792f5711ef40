"""A `--algo jax-ppo` run: the jitted rounds (`training.ppo`) driven from Python, with checkpoints and resume.

Python only calls the round once per round, writes the figures (`callbacks.Figures`, the
same TensorBoard tags as the SB3 driver, and `train/*` losses of the same names),
checkpoints, and moves the progress bar; the rounds, the paths, resuming and the league's
draws are `training.runs`'. A league switches the round's program: one compiled round per
member bot (`ppo.make_update`), drawn every `league_every` moves as the SB3 driver draws.
Its `self` member is, as there, a periodic checkpoint of this run drawn from the pool of
those written so far (the learner's current policy before the first), its parameters
handed to the round (a slot-scorer run only). A slot-scorer run (`--policy`) also writes
its policy as a `trained` bot's `OUT/policy.npz` at every checkpoint
(`slot_policy.export`). Checkpoints are piramida's data-only zips
(`training.checkpoint`): the runner (the parameters, the optimizer's state, the games and
every PRNG key, one array per leaf, named by its path), the metrics' windows and the
league's pool. A run is a function of its seed: resumed from any checkpoint it ends with
the uninterrupted run's parameters. The round splits the tables over every device of
`--device`'s platform (`ppo.table_mesh`), of every process where several joined the run
(`training.hosts`: process 0 alone writes); a checkpoint holds the games gathered from
the devices, and a resumed run splits them again.
"""

from __future__ import annotations

import functools
import time
from pathlib import Path
from typing import Any

import jax
import numpy as np
from stable_baselines3.common.logger import Logger, configure

from piramida.envs import functional
from piramida.training import callbacks, checkpoint, hosts, ppo, runs, slot_policy
from piramida.training.config import SELF, ConfigError, TrainConfig


def jax_device(name: str) -> Any:
    """The process's own JAX device for `--device`: `cpu`, `cuda` (a GPU) or `auto`; ConfigError if absent."""
    if name == "auto":
        return jax.local_devices()[0]
    platform = "gpu" if name == "cuda" else "cpu"
    try:
        return jax.local_devices(backend=platform)[0]
    except RuntimeError as error:
        raise ConfigError(f"device: {name} asked for, but JAX has no {platform} backend ({error})") from error


def train(config: TrainConfig, out: Path, resume: Path | None = None, progress: bool = True) -> runs.Result:
    """Train (or continue) a jax-ppo run as `config` says; as `trainer.train` (same outputs and errors)."""
    hyper = ppo.Hyper.of(config)
    settings = runs.settings_of(config)
    rounds = config.round_moves()
    every, total = runs.round_up(config.checkpoint_every, rounds), runs.round_up(config.steps, rounds)
    device = jax_device(config.device)
    mesh = ppo.table_mesh(config, hyper, jax.devices(device.platform))
    hosts.connect(mesh)
    writer = hosts.writes()
    with jax.default_device(device):
        figures = callbacks.Figures(config.tables)
        pool: list[str] = []  # periodic checkpoints: `self`'s snapshots
        if resume is not None:
            ck = runs.resumed(config, resume)
            runner = load(ck, config)
            runs.restore_metrics(ck, figures)
            steps = ck.meta["steps"]
            pool = runs.pool_of(ck)
        else:
            runner, steps = ppo.new_runner(config, settings, hyper), 0
        runner = ppo.placed(runner, mesh)
        snapshots = Snapshots(runner)
        numbers = ppo.replicated(functional.EnvParams.of(settings), mesh)
        if writer:
            out.mkdir(parents=True, exist_ok=True)
        logger = configure(str(out / "tensorboard"), ["tensorboard"]) if writer else Logger(None, [])
        bar = callbacks.progress_bar(progress and writer)
        task = bar.add_task("training", total=total, completed=steps, rate=0.0)
        start, steps_at_start = time.perf_counter(), steps
        with bar:
            while steps < total:
                name, draw = ppo.drawn(config, steps)
                opponent: functional.Opponent
                if name == SELF:
                    assert draw is not None
                    opponent, snapshot = SELF, snapshots.draw(pool, draw, runner)
                else:
                    opponent, snapshot = ppo.opponent_bot(name, config.noise), None
                update = ppo.make_update(settings.action_mode, opponent, hyper, config.policy, mesh)
                runner, rows, losses = update(runner, numbers, ppo.replicated(snapshot, mesh))
                rows, losses = hosts.gathered((rows, losses))
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
                    path = runs.checkpoint_path(out, steps)
                    if steps % every == 0:  # periodic: `self` may play it from the next round on
                        pool = [*pool, str(path.resolve())]
                    whole = hosts.gathered(runner)
                    if writer:
                        save(path, whole, figures, pool, config, steps, final=False)
                        if config.policy != "mlp":
                            elapsed = time.perf_counter() - start
                            slot_policy.export(out / "policy.npz", whole.params, config, steps, elapsed)
                    hosts.barrier(f"checkpoint {steps}")  # the others may play it as `self` next
        seconds = time.perf_counter() - start
        final = out / "final.zip"
        whole = hosts.gathered(runner)
        if writer:
            save(final, whole, figures, pool, config, steps, final=True)
        logger.close()
    return runs.Result.timed(final, steps, steps - steps_at_start, seconds, mesh.size)


def save(
    path: Path,
    runner: ppo.Runner,
    figures: callbacks.Figures,
    pool: list[str],
    config: TrainConfig,
    steps: int,
    final: bool,
) -> None:
    """Write a checkpoint atomically: metadata, the runner's arrays, the metrics' windows, the pool."""
    resume = {"metrics": figures.state(), "pool": pool}
    state = {"runner": checkpoint.flat_arrays(runner._asdict()), "resume": resume}
    checkpoint.write(path, checkpoint.new_meta(config, steps, final), state)


def load(ck: checkpoint.Checkpoint, config: TrainConfig) -> ppo.Runner:
    """The runner a checkpoint of `config`'s run saved, ready to continue."""
    hyper, settings = ppo.Hyper.of(config), runs.settings_of(config)
    template = jax.eval_shape(functools.partial(ppo.new_runner, config, settings, hyper, openings=False))
    return ppo.Runner(**checkpoint.filled(ck, template._asdict(), checkpoint.part(ck, "runner"), "runner"))


class Snapshots:
    """`self`'s parameters: the learner's, read from this run's checkpoints (the last few kept)."""

    kept = 4

    def __init__(self, runner: ppo.Runner) -> None:
        """Read checkpoints into `runner`'s structure (shapes and dtypes checked)."""
        self.template = runner._asdict()
        self.loaded: dict[str, Any] = {}

    def draw(self, pool: list[str], draw: np.random.Generator, runner: ppo.Runner) -> Any:
        """A checkpoint drawn uniformly from `pool`, or the learner's current parameters before the first."""
        if not pool:
            return runner.params
        path = pool[int(draw.integers(len(pool)))]
        if path not in self.loaded:
            if len(self.loaded) >= self.kept:
                self.loaded.pop(next(iter(self.loaded)))
            ck = checkpoint.read(path)
            self.loaded[path] = checkpoint.filled(ck, self.template, checkpoint.part(ck, "runner"), "runner")[
                "params"
            ]
        return self.loaded[path]
