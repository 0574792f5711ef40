"""What both training drivers share: rounds, checkpoint paths, resuming, the env's settings, the result.

A run learns in rounds (`TrainConfig.round_moves`: a rollout of every table); `steps`,
`checkpoint_every` and `league_every` are rounded up to whole rounds. It writes a
checkpoint every `checkpoint_every` learner moves (`OUT/checkpoints/step-N.zip`) and
`OUT/final.zip` at the end. Chunks start at fixed step counts, so a run resumed from any of
its checkpoints makes exactly the calls an uninterrupted run makes from there, with the
same state: the final weights are the same. Learner moves are counted over all tables.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from piramida.envs import core
from piramida.training import checkpoint
from piramida.training.config import IDENTITY, ConfigError, TrainConfig

STEP_FILE = re.compile(r"step-(\d+)\.zip")


@dataclass(frozen=True)
class Result:
    """What a run wrote: the final checkpoint, its step count, this session's moves, seconds and rate.

    `devices`: how many devices the tables were split over (jax-ppo; None for the torch drivers).
    """

    final: Path
    steps: int
    moves: int
    seconds: float
    moves_per_second: float
    devices: int | None = None

    @classmethod
    def timed(cls, final: Path, steps: int, moves: int, seconds: float, devices: int | None = None) -> Result:
        """The result of a session that made `moves` learner moves in `seconds`."""
        return cls(final, steps, moves, seconds, moves / seconds if seconds > 0 else 0.0, devices)


def round_up(value: int, unit: int) -> int:
    """`value` rounded up to a multiple of `unit` (at least one `unit`)."""
    return max(unit, -(-value // unit) * unit)


def league_draw(members: tuple[str, ...], seed: int, round_: int) -> tuple[str, np.random.Generator]:
    """Round `round_`'s league member, drawn by a generator seeded by (seed, round); and the generator.

    The draws depend on nothing but the round, so a resumed run draws what an uninterrupted one does.
    """
    rng = np.random.default_rng([seed, round_])
    return members[int(rng.integers(len(members)))], rng


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


def remove_stray_writes(out: Path) -> list[Path]:
    """Remove the temporary files of checkpoints whose writing was killed (`write_atomic`'s); the removed.

    A write interrupted by kill -9 leaves its `.step-N.zip.XXXX.tmp` behind: never a
    checkpoint (the name is only replaced when the write is whole), only disk space.
    """
    stray = sorted((out / "checkpoints").glob(".*.zip.*.tmp"))
    for path in stray:
        path.unlink(missing_ok=True)
    return stray


class Restorable(Protocol):
    """Metrics that continue from saved windows (`callbacks.Figures`, `callbacks.TrainingCallback`)."""

    def set_state(self, state: dict[str, Any]) -> None:
        """Continue from `state`."""


def resumed(config: TrainConfig, path: Path) -> checkpoint.Checkpoint:
    """The checkpoint at `path`; CheckpointError unless it is one of `config`'s run."""
    ck = checkpoint.read(path)
    checkpoint.check_fits(ck.path, ck.meta, config, IDENTITY)
    return ck


def pool_of(ck: checkpoint.Checkpoint) -> list[str]:
    """The league's pool of past checkpoints (`self`'s); CheckpointError unless each names a file."""
    pool = checkpoint.part(ck, "resume", "pool")
    if not isinstance(pool, list) or not all(isinstance(p, str) and Path(p).is_file() for p in pool):
        raise ck.error("resume.pool: not a list of this run's checkpoint files")
    return pool


def restore_metrics(ck: checkpoint.Checkpoint, metrics: Restorable) -> None:
    """Give `metrics` the windows saved in `ck`; CheckpointError if they do not fit."""
    try:
        metrics.set_state(checkpoint.part(ck, "resume", "metrics"))
    except (KeyError, TypeError, ValueError) as error:
        raise ck.error(f"resume.metrics: {error}") from error


def settings_of(config: TrainConfig) -> core.Settings:
    """The env's settings for a run."""
    return core.settings_from(
        config.variant,
        action_mode=config.action_mode,
        observation=config.observation(),
        noise=config.noise,
        shot_limit=config.shot_limit,
    )
