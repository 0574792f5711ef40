"""A recipe over seeds: each seed's learning curves up to a budget, their mean and spread, and its strength.

Each `--run TRAIN:EVAL` names a training run's folder (`piramida train --out`, with its
`tensorboard/`) and the folder of a `piramida eval` of its policy at the budget against a
judge (`results.json`). The picture has one panel per curve (`evaluation.curves.CURVES`):
the mean over the seeds, the band between the lowest and the highest, and each seed
faintly. The JSON holds each seed's win rate against the judge with its 95 % interval,
and their mean and spread.

    python benchmarks/seed_curves.py --run runs/s0:runs/s0-eval --run runs/s1:runs/s1-eval \
        --steps 458752 --judge greedy --png docs/scratch_seeds.png --json docs/scratch_seeds.json
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path
from typing import Any

import numpy as np

from piramida.evaluation import curves
from piramida.physics.files import write_atomic
from piramida.physics.provenance import stamped


def strength(eval_folder: Path, judge: str) -> dict[str, Any]:
    """The policy's record against `judge` in an evaluation's results (the meeting it played)."""
    results = json.loads((eval_folder / "results.json").read_text())
    for meeting in results["meetings"]:
        if judge in meeting["agents"]:
            policy = next(name for name in meeting["agents"] if name != judge)
            mine = meeting["bots"][policy]
            return {key: mine[key] for key in ("wins", "losses", "win_rate", "win_rate_ci95")}
    raise SystemExit(f"{eval_folder}: no meeting against {judge}")


def plot_seeds(runs: list[curves.Scalars], path: Path, steps: int) -> None:
    """Mean, lowest-to-highest band and each seed, per curve, up to `steps` learner moves."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = curves.CURVES
    fig, axes = plt.subplots(1, len(panels), figsize=(3.2 * len(panels), 2.9), dpi=110, squeeze=False)
    for ax, (tag, title) in zip(axes[0], panels, strict=True):
        series = [dict(run[tag]) for run in runs if run.get(tag)]
        shared = sorted(set.intersection(*(set(s) for s in series)) if series else set())
        shared = [step for step in shared if step <= steps]
        if shared:
            values = np.asarray([[s[step] for step in shared] for s in series])
            for row in values:
                ax.plot(shared, row, lw=0.6, alpha=0.35, color="tab:blue")
            ax.fill_between(shared, values.min(axis=0), values.max(axis=0), alpha=0.2, color="tab:blue")
            ax.plot(
                shared, values.mean(axis=0), lw=1.6, color="tab:blue", label=f"mean of {len(series)} seeds"
            )
        curves.finish_panel(ax, tag, title, "learner moves")
    curves.save_panels(fig, axes, path)


def main() -> None:
    """Read the runs and their evaluations; write the picture and the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--run", action="append", required=True, metavar="TRAIN:EVAL", help="a seed's folders"
    )
    parser.add_argument("--steps", type=int, required=True, help="the budget: curves are drawn up to it")
    parser.add_argument("--judge", default="greedy", help="the evaluations' opponent (default: %(default)s)")
    parser.add_argument("--png", required=True, help="the picture to write")
    parser.add_argument("--json", help="the figures to write")
    args = parser.parse_args()
    pairs = [tuple(Path(part) for part in text.split(":", 1)) for text in args.run]
    plot_seeds([curves.read(train) for train, _ in pairs], Path(args.png), args.steps)
    seeds = [
        {"run": str(train), "eval": str(judged)} | strength(judged, args.judge) for train, judged in pairs
    ]
    rates = [seed["win_rate"] for seed in seeds]
    figures = {
        "judge": args.judge,
        "steps": args.steps,
        "seeds": seeds,
        "mean_win_rate": statistics.fmean(rates),
        "lowest_win_rate": min(rates),
        "highest_win_rate": max(rates),
        "stdev_win_rate": statistics.stdev(rates) if len(rates) > 1 else 0.0,
    }
    print(json.dumps(figures, indent=1))
    if args.json:
        write_atomic(args.json, json.dumps(stamped(figures), indent=1) + "\n")


if __name__ == "__main__":
    main()
