"""How strong the search bot is: `search` against `greedy` in every variant and noise level.

For each setting (variant x execution noise) the script plays `--games` frames of the search
bot (at `--level`, planning for the setting's noise) against `greedy` as one batch
(`evaluation.arena.head_to_head`: each bot breaks first in half of the frames, both shoot
with the same noise; every frame starts from a slightly imperfect rack,
`arena.jitter_racks`, so that frames differ even with no noise) and reports the search
bot's win rate over the decided frames with its 95 % Wilson interval, and per bot the pot
rate, fouls per shot, balls per turn and the clearances from the break (frames won from
the bot's own break with no shot by the opponent), plus the time each bot spent choosing
its moves.

Results are written after every setting (`--json`, `--markdown`, atomically); `--resume`
skips the settings the JSON already holds, so an interrupted run loses at most one setting.

Usage::

    python benchmarks/search_strength.py                         # 200 frames, 4 variants x none,pro,amateur
    python benchmarks/search_strength.py --games 8 --variants free --noise pro   # a smoke test
    python benchmarks/search_strength.py --json out.json --markdown out.md --resume
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from rich.console import Console

from piramida.agents import GreedyAgent
from piramida.agents.search import DEFAULT_LEVEL, LEVELS, SearchAgent
from piramida.evaluation.arena import head_to_head
from piramida.evaluation.report import match_progress, print_setting, setting_task, settings_markdown
from piramida.evaluation.settings import add_match_arguments, check_match_arguments
from piramida.physics import runtime
from piramida.physics.files import write_atomic
from piramida.physics.provenance import machine, stamped
from piramida.rules import ids
from piramida.rules.game import CAPACITY

runtime.use_float64()  # a piramida program: the games compute in float64 throughout


def main(argv: list[str] | None = None) -> None:
    """Run every (variant, noise) setting, print the tables, write the JSON and markdown."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    add_match_arguments(parser, "none,pro,amateur")
    parser.add_argument("--level", choices=list(LEVELS), default=DEFAULT_LEVEL, help="the search bot's level")
    parser.add_argument("--resume", action="store_true", help="skip the settings already in --json")
    args = parser.parse_args(argv)
    check_match_arguments(parser, args)
    if args.resume and not args.json:
        parser.error("--resume needs --json")

    console = Console() if sys.stdout.isatty() else Console(width=160)
    report: dict[str, Any] = {
        "command": " ".join(
            ["python", "benchmarks/search_strength.py", *(sys.argv[1:] if argv is None else argv)]
        ),
        "config": {
            "games": args.games,
            "level": args.level,
            "budget": LEVELS[args.level].budget,
            "cap": args.cap,
            "stuck": args.stuck,
            "seed": args.seed,
            "capacity": CAPACITY,
        },
        "machine": machine(),
        "settings": [],
        "wall_s": 0.0,
    }
    if args.resume and Path(args.json).exists():
        previous = json.loads(Path(args.json).read_text())
        if previous.get("config") != report["config"]:
            parser.error(f"--resume: {args.json} was written with another config: {previous.get('config')}")
        report["settings"], report["wall_s"] = previous["settings"], previous["wall_s"]
    done = {(s["variant"], s["noise"]) for s in report["settings"]}
    greedy = GreedyAgent()
    start = time.perf_counter() - report["wall_s"]
    with match_progress(console) as progress:
        for variant in args.variants:
            for magnitude in args.noise:
                if (ids.VARIANT_NAMES[variant], magnitude) in done:
                    continue
                name = f"{ids.VARIANT_NAMES[variant]:8} noise {magnitude:<5g}"
                task, on_step = setting_task(progress, name, args.cap, args.games)

                search = SearchAgent(args.level, noise_level=magnitude)
                result = head_to_head(
                    (("search", search), ("greedy", greedy)),
                    variant,
                    magnitude,
                    args.games,
                    args.cap,
                    args.seed,
                    args.stuck,
                    on_step=on_step,
                    rack_jitter=True,
                )
                result["search_budget"] = search.budget
                progress.update(task, total=result["steps"], completed=result["steps"])
                report["settings"].append(result)
                report["wall_s"] = time.perf_counter() - start
                print_setting(progress.console, result)
                if args.json:
                    write_atomic(args.json, json.dumps(stamped(report), indent=2, allow_nan=True) + "\n")
                if args.markdown:
                    header = (
                        f"# Search vs greedy\n\n`{report['command']}`; {report['wall_s']:.0f} s on "
                        f"{report['machine']}.\n\n"
                    )
                    write_atomic(args.markdown, header + settings_markdown(report["settings"]))
    console.print(settings_markdown(report["settings"]))


if __name__ == "__main__":
    main()
