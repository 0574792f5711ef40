"""Baseline figures of the bundled bots: `greedy` against `random` in every variant and noise level.

For each setting (variant x execution-noise magnitude) the script plays `--games` frames of
`greedy` against `random` as ONE batch of that many tables (`evaluation.arena.head_to_head`:
each bot moves on the tables where it is to move, one `play` call advances every table;
greedy breaks first in half of the frames). A frame stops when it is OVER or after `--cap`
moves (shots and decisions), or is set aside as stuck after `--stuck` consecutive refused
shots (below). Both bots shoot with the same execution noise (`physics.noise`; magnitude 1
is FastFiz's default, `LEVELS` names pro = 0.15 and amateur = 0.45).

Figures (per bot, counted over that bot's shots in the head-to-head frames above):

- shots: shots the referee judged (`verdict.invalid == 0`), the break included.
- pot rate: the share of shots that pocketed at least one ball legally (`verdict.legal`
  and a ball scored or a point won).
- fouls/shot: the share of shots with a foul (`verdict.fouls != 0`).
- balls/turn: balls scored (`verdict.scored`) per visit to the table, a visit being a run
  of consecutive shots by the same player (decisions in between do not break it).
- own potted: the share of shots on which the struck (own) ball went into a pocket.
- top fouls: the most frequent foul kinds (`verdict.FOUL_NAMES`), as shares of shots.
- refused: shots the referee refused to judge (`verdict.invalid != 0`; in practice
  `overflow`: the kernel's event log, `--capacity` slots, filled up before the balls
  stopped). A refused shot leaves the state as it was and the same player shoots again;
  greedy is deterministic, so without execution noise it repeats the refused shot for
  ever. A table with `--stuck` refused shots in a row is set aside as stuck (counted as
  unfinished; the result is the same as playing it to the cap when the loop is
  deterministic), so that it no longer holds the batch to the cap.

Per setting: greedy's wins, random's wins, draws (OVER with no winner), unfinished
frames (still going at the cap, or stuck; how many of these were stuck, and in how many
greedy was ahead on score), and greedy's win rate over the decided frames (wins /
(wins + losses)) with its 95 % Wilson score interval.

Usage::

    python benchmarks/baselines.py                                   # 200 games, 4 variants x 4 noise levels
    python benchmarks/baselines.py --games 16 --noise 0              # a quick smoke test
    python benchmarks/baselines.py --games 200 --variants free,combined,dynamic,classic \\
        --noise 0,0.1,0.25,0.5 --seed 0 --cap 400 --stuck 10 --json out.json --markdown out.md

Compiled shapes depend on the batch size, so one run uses one batch size (`--games`); the
persistent compilation cache makes the second run with the same size start fast.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from rich.console import Console

from piramida.agents import make_agent
from piramida.evaluation.arena import head_to_head
from piramida.evaluation.report import match_progress, print_setting, setting_task, settings_markdown
from piramida.evaluation.settings import add_match_arguments, check_match_arguments
from piramida.physics import runtime
from piramida.physics.files import write_atomic
from piramida.physics.provenance import machine, stamped
from piramida.rules import ids
from piramida.rules.game import CAPACITY

runtime.use_float64()  # a piramida program: the games compute in float64 throughout

DEFAULT_NOISE = "0,0.1,0.25,0.5"


def markdown(report: dict[str, Any]) -> str:
    """The report as markdown: the head-to-head table, then one per-bot table per setting."""
    cfg = report["config"]
    return (
        f"# Baselines: greedy vs random\n\n`{report['command']}`: {cfg['games']} frames per setting, cap "
        f"{cfg['cap']} moves, stuck after {cfg['stuck']} refused shots in a row, event log {cfg['capacity']} "
        f"slots, seed {cfg['seed']}; {report['wall_s']:.0f} s wall on {report['machine']}.\n\n"
        + settings_markdown(report["settings"])
    )


def main(argv: list[str] | None = None) -> None:
    """Run every (variant, noise) setting, print the tables, write the JSON and markdown."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    add_match_arguments(parser, DEFAULT_NOISE)
    parser.add_argument(
        "--capacity", type=int, default=CAPACITY, help=f"event-log slots per shot ({CAPACITY})"
    )
    args = parser.parse_args(argv)
    check_match_arguments(parser, args)
    if args.capacity < 1:
        parser.error("--capacity must be >= 1")

    console = Console() if sys.stdout.isatty() else Console(width=160)
    bots = (("greedy", make_agent("greedy")), ("random", make_agent("random")))
    report: dict[str, Any] = {
        "command": " ".join(["python", "benchmarks/baselines.py", *(sys.argv[1:] if argv is None else argv)]),
        "config": {
            "games": args.games,
            "variants": [ids.VARIANT_NAMES[v] for v in args.variants],
            "noise": args.noise,
            "cap": args.cap,
            "seed": args.seed,
            "stuck": args.stuck,
            "capacity": args.capacity,
        },
        "machine": machine(),
        "settings": [],
        "wall_s": 0.0,
    }
    start = time.perf_counter()
    with match_progress(console) as progress:
        for variant in args.variants:
            for magnitude in args.noise:
                name = f"{ids.VARIANT_NAMES[variant]:8} noise {magnitude:<5g}"
                task, on_step = setting_task(progress, name, args.cap, args.games)

                result = head_to_head(
                    bots,
                    variant,
                    magnitude,
                    args.games,
                    args.cap,
                    args.seed,
                    args.stuck,
                    args.capacity,
                    on_step,
                )
                progress.update(task, total=result["steps"], completed=result["steps"])
                report["settings"].append(result)
                report["wall_s"] = time.perf_counter() - start
                print_setting(progress.console, result)
                if args.json:
                    write_atomic(args.json, json.dumps(stamped(report), indent=2, allow_nan=True) + "\n")
                if args.markdown:
                    write_atomic(args.markdown, markdown(report))
    console.print(f"wall time {report['wall_s']:.0f} s")
    console.print(markdown(report))


if __name__ == "__main__":
    main()
