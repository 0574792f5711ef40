"""The learning curves of distillation runs, from their TensorBoard logs, as one picture.

python benchmarks/distill_curves.py RUN [RUN ...] --out docs/distill_curves.png
"""

from __future__ import annotations

import argparse
from pathlib import Path

from piramida.evaluation import curves
from piramida.physics import runtime

runtime.use_float64()  # a piramida program: the games compute in float64 throughout


def main() -> None:
    """Read each run's logs and draw one panel per curve, one line per run."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path, help="run folders of `piramida expert distill`")
    parser.add_argument("--out", type=Path, required=True, help="the picture to write (.png)")
    args = parser.parse_args()
    runs = {run.name: curves.read(run, curves.DISTILL_CURVES) for run in args.runs}
    curves.plot(runs, args.out, curves.DISTILL_CURVES, x_label="positions seen")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
