"""Learning curves of training runs, read from their TensorBoard logs, for the report and the demo.

A saved policy written by `piramida train` sits in OUT/final.zip or OUT/checkpoints/step-N.zip,
with the run's logs in OUT/tensorboard. A resumed run logs into a second event file, and
the steps after its last checkpoint may be logged twice; for each step the value logged
last (the later file) is kept.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

# (TensorBoard tag, panel title), in the order of the panels.
CURVES = (
    ("piramida/win_rate", "win rate"),
    ("piramida/pot_rate", "pot success rate"),
    ("piramida/fouls_per_shot", "fouls per shot"),
    ("rollout/ep_rew_mean", "return per frame"),
)
# The curves of a distillation run (`piramida expert distill`), by positions seen.
DISTILL_CURVES = (
    ("match/win_rate_greedy", "win rate against greedy (Free, pro)"),
    ("match/win_rate_search:strong", "win rate against the strong search"),
    ("validation/regret", "regret against the search (frames)"),
    ("validation/agreement", "agreement with the search"),
    ("validation/loss", "validation loss"),
    ("time/hours", "hours"),
)
Curves = tuple[tuple[str, str], ...]
Scalars = dict[str, list[tuple[int, float]]]


def run_folder(policy: str | Path) -> Path | None:
    """The training run a saved policy came from (the folder holding `tensorboard/`), if any."""
    path = Path(policy).resolve()
    for folder in (path.parent, path.parent.parent):
        if (folder / "tensorboard").is_dir():
            return folder
    return None


def read(run: Path, curves: Curves = CURVES) -> Scalars:
    """Every tag of `curves` that the run logged: (step, value) sorted by step."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    found: dict[str, dict[int, float]] = {}
    # Event file names start with their creation time (events.out.tfevents.SECONDS.host...).
    for events in sorted((run / "tensorboard").rglob("events.out.tfevents.*"), key=lambda p: p.name):
        accumulator = EventAccumulator(str(events), size_guidance={"scalars": 0})
        accumulator.Reload()
        logged = set(accumulator.Tags()["scalars"])
        for tag, _ in curves:
            if tag in logged:
                found.setdefault(tag, {}).update({e.step: e.value for e in accumulator.Scalars(tag)})
    return {tag: sorted(points.items()) for tag, points in found.items()}


def plot(
    runs: dict[str, Scalars], path: Path, curves: Curves = CURVES, x_label: str = "learner moves"
) -> Path:
    """One panel per curve, one line per run (labelled by the `runs` keys)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(curves), figsize=(3.2 * len(curves), 2.9), dpi=110, squeeze=False)
    for ax, (tag, title) in zip(axes[0], curves, strict=True):
        for name, scalars in runs.items():
            if scalars.get(tag):
                steps, values = zip(*scalars[tag], strict=True)
                ax.plot(steps, values, label=name, lw=1.2)
        finish_panel(ax, tag, title, x_label)
    save_panels(fig, axes, path)
    return path


def finish_panel(ax: Any, tag: str, title: str, x_label: str) -> None:
    """A curve's panel titled and labelled; a win rate on its whole scale."""
    ax.set_title(title, fontsize=9)
    if "win_rate" in tag:
        ax.set_ylim(0.0, 1.0)  # a share of frames: on its whole scale, not zoomed into the noise
    ax.set_xlabel(x_label, fontsize=8)
    ax.tick_params(labelsize=7)
    ax.grid(alpha=0.3)


def save_panels(fig: Any, axes: Any, path: Path) -> None:
    """The figure, with the first panel's legend, written to `path` and closed."""
    import matplotlib.pyplot as plt

    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
