"""Game figures for TensorBoard; the SB3 callback that counts them, draws the league, moves the bar.

Figures (TensorBoard tags), over the last `WINDOW` ended frames or the moves since the
last write:

| tag | meaning |
|---|---|
| `rollout/ep_rew_mean` | return of a frame (points won minus conceded, +-1 for the result) |
| `rollout/ep_len_mean` | learner moves in a frame |
| `piramida/win_rate` | frames won out of frames ended (a frame cut by the shot limit is not won) |
| `piramida/points_per_game` | the learner's score when its frame ended |
| `piramida/pot_rate` | learner shots that were legal and scored |
| `piramida/fouls_per_shot` | learner shots with a foul |
| `time/shots_per_second` | learner moves (shots and decisions, all tables) per second of this process |

SB3 adds its losses (`train/...`; `training.jax_driver` writes the same names). Everything
is written at the step count (`num_timesteps`), so a resumed run continues the same curves.
`Figures` does the counting for both trainers; `TrainingCallback` feeds it SB3's infos.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from typing import Any

import numpy as np
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeRemainingColumn
from stable_baselines3.common.callbacks import BaseCallback

from piramida.training.league import League

WINDOW = 100  # ended frames in the rolling figures


def progress_bar(enabled: bool) -> Progress:
    """The training bar on stderr: moves done, shots per second (a `rate` field), time left."""
    return Progress(
        TextColumn("training"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]:,.0f} shots/s"),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        disable=not enabled,
    )


class Figures:
    """The game figures: frames in progress, the window of ended frames, shot counts since the last write.

    Args:
      tables: the vector env's tables.

    """

    def __init__(self, tables: int) -> None:
        """Start with empty windows (`set_state` puts a checkpoint's back)."""
        self.returns = np.zeros(tables)
        self.lengths = np.zeros(tables, np.int64)
        self.frames: deque[tuple[float, int, bool, float]] = deque(maxlen=WINDOW)
        self.shots = self.pots = self.fouls = 0

    def add(self, rewards: Any, dones: Any, shots: Any, pots: Any, fouls: Any, won: Any, score: Any) -> None:
        """Count one vector step: (tables,) rewards, ended frames, shot / pot / foul flags, won, score."""
        self.returns += rewards
        self.lengths += 1
        self.shots += int(np.sum(shots))
        self.pots += int(np.sum(pots))
        self.fouls += int(np.sum(fouls))
        for i in np.flatnonzero(dones):
            self.frames.append((float(self.returns[i]), int(self.lengths[i]), bool(won[i]), float(score[i])))
            self.returns[i], self.lengths[i] = 0.0, 0

    def record(self, record: Callable[[str, Any], None]) -> None:
        """Record the window's and the shots' figures (`record(tag, value)`); the shot counts restart."""
        if self.frames:
            returns, lengths, won, points = (
                np.asarray(column, float) for column in zip(*self.frames, strict=True)
            )
            record("rollout/ep_rew_mean", float(returns.mean()))
            record("rollout/ep_len_mean", float(lengths.mean()))
            record("piramida/win_rate", float(won.mean()))
            record("piramida/points_per_game", float(points.mean()))
        if self.shots:
            record("piramida/pot_rate", self.pots / self.shots)
            record("piramida/fouls_per_shot", self.fouls / self.shots)
        record("piramida/frames_in_window", len(self.frames))
        self.shots = self.pots = self.fouls = 0

    def state(self) -> dict[str, Any]:
        """What a checkpoint keeps of the figures (frames in progress and the windows)."""
        return {
            "returns": self.returns.copy(),
            "lengths": self.lengths.copy(),
            "frames": list(self.frames),
            "counts": (self.shots, self.pots, self.fouls),
        }

    def set_state(self, state: dict[str, Any]) -> None:
        """Put back what `state` took; ValueError (or KeyError, TypeError) if it is not such a state."""
        for name, kind in (("returns", np.float64), ("lengths", np.int64)):
            value = state[name]
            if not isinstance(value, np.ndarray) or value.dtype != kind or value.shape != self.returns.shape:
                raise ValueError(f"{name}: not one {np.dtype(kind).name} per table")
        frame_kinds = (float, int, bool, float)
        frames = state["frames"]
        if not isinstance(frames, list | tuple) or not all(
            isinstance(f, tuple)
            and len(f) == 4
            and all(type(v) is t for v, t in zip(f, frame_kinds, strict=True))
            for f in frames
        ):
            raise ValueError("frames: not a list of (return, length, won, points)")
        counts = state["counts"]
        if not (
            isinstance(counts, tuple) and len(counts) == 3 and all(type(c) is int and c >= 0 for c in counts)
        ):
            raise ValueError("counts: not three counts")
        self.returns, self.lengths = state["returns"].copy(), state["lengths"].copy()
        self.frames = deque(frames, maxlen=WINDOW)
        self.shots, self.pots, self.fouls = counts


def write(logger: Any, figures: Figures, steps: int, rate: float) -> None:
    """Record the figures and the speed, and write them (and any pending losses) at step `steps`."""
    figures.record(logger.record)
    logger.record("time/shots_per_second", rate)
    logger.record("time/total_timesteps", steps)
    logger.dump(step=steps)


class TrainingCallback(BaseCallback):
    """Counts the games' figures, writes them every `log_every` moves, draws the league, moves the bar.

    Args:
      tables: the vector env's tables.
      log_every: learner moves between TensorBoard writes.
      league: the opponents (drawn at the start of each rollout).
      progress: a rich progress bar and its task, or None.

    """

    def __init__(
        self, tables: int, log_every: int, league: League, progress: tuple[Progress, TaskID] | None = None
    ) -> None:
        """Start with empty windows (`set_state` puts a checkpoint's back)."""
        super().__init__()
        self.log_every, self.league, self.progress = log_every, league, progress
        self.figures = Figures(tables)
        self.next_write = log_every  # the first write follows the first round (and its update)
        self.started: float | None = None  # when this process started training, and at what step
        self.started_at = 0

    def state(self) -> dict[str, Any]:
        """What a checkpoint keeps of the figures (frames in progress and the windows)."""
        return self.figures.state() | {"next_write": self.next_write}

    def set_state(self, state: dict[str, Any]) -> None:
        """Put back what `state` took (ValueError, KeyError or TypeError if it is not one)."""
        self.figures.set_state(state)
        if type(state["next_write"]) is not int:
            raise ValueError("next_write: not a step count")
        self.next_write = state["next_write"]

    def _on_training_start(self) -> None:
        if self.started is None:
            self.started, self.started_at = time.perf_counter(), self.num_timesteps
        self.league.follow(self.num_timesteps)

    def _on_rollout_start(self) -> None:
        self.league.follow(self.num_timesteps)
        if self.num_timesteps >= self.next_write:
            self.write()

    def _on_step(self) -> bool:
        rewards, dones, infos = self.locals["rewards"], self.locals["dones"], self.locals["infos"]
        shots = np.asarray([bool(info.get("shot")) for info in infos])
        self.figures.add(
            rewards,
            dones,
            shots,
            shots & [bool(i.get("legal")) and (any(i["scored"]) or i["points"][0] > 0) for i in infos],
            shots & [i.get("fouls", 0) != 0 for i in infos],
            [i["winner"] == 0 for i in infos],
            [i["score"][0] for i in infos],
        )
        if self.progress is not None:
            bar, task = self.progress
            bar.update(task, completed=self.num_timesteps, rate=self.rate())
        return True

    def _on_training_end(self) -> None:
        self.write()

    def rate(self) -> float:
        """Learner moves per second since this process started training."""
        seconds = time.perf_counter() - self.started if self.started is not None else 0.0
        return (self.num_timesteps - self.started_at) / seconds if seconds > 0 else 0.0

    def write(self) -> None:
        """Record the figures and write them (and SB3's pending losses) at the step count."""
        write(self.logger, self.figures, self.num_timesteps, self.rate())
        self.next_write = (self.num_timesteps // self.log_every + 1) * self.log_every
