"""`piramida eval`: a round-robin tournament of bots over variants, with ratings, a report and replays.

Writes into `--out`: results.json (every meeting, per-player figures, Elo ratings per
variant and overall, the command, seed, machine and versions), results.csv (one row per
variant x pair x player), report.md with ratings.png and win_rates.png, and with
`--replays N` N frames as match records (replays/*.jsonl, `rules.match`) and animated GIFs.
Bad input (an unknown agent, variant or noise level, fewer than one game or more than fit
in memory, an out folder that cannot be written) is answered with a message naming the
flag and exit status 2; so is a disk that fills up mid-run, results.json then keeping the
meetings written before (it is rewritten, atomically, as each meeting ends).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from piramida.cli import options
from piramida.evaluation import roster
from piramida.evaluation.roster import parse_agents
from piramida.evaluation.settings import add_game_arguments
from piramida.rules import ids
from piramida.rules.memory import too_many_tables

HELP = "round-robin tournament of bots over variants: ratings, report, replays"
DESCRIPTION = (
    "Every pair of --agents plays --games frames in each of --variants (one batch "
    "per pair and variant; each breaks in half of them). Writes results.json, results.csv, "
    "report.md with pictures, and optionally replays, into --out."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's options (`cli.main` registers the command with `HELP` and `DESCRIPTION`)."""
    parser.add_argument(
        "--agents",
        type=parse_agents,
        required=True,
        help="comma-separated players, two or more: random, greedy, search (= search:strong), "
        "search:easy|medium|strong|strongest, trained (the shipped policy), level:NAME (a level of "
        "the play page, with its own cue whatever --noise), or a saved policy (a "
        "`piramida train` checkpoint, a `piramida expert distill` policy.npz, or an SB3 .zip with "
        "--trust-pickle)",
    )
    options.add_trust_pickle(parser)
    add_game_arguments(parser, "pro")
    parser.add_argument("--out", default="piramida-eval", help="output folder (default: %(default)s)")
    parser.add_argument("--replays", type=int, default=0, help="games to save as match records and GIFs (0)")


def fail(message: str) -> int:
    """Print a usage error as argparse does and return its exit status."""
    print(f"piramida eval: error: {message}", file=sys.stderr)
    return 2


def check(args: argparse.Namespace) -> str | None:
    """The first problem with the arguments, naming the flag; None if there is none."""
    if len(args.agents) < 2:
        return f"--agents: need two or more players, got {','.join(args.agents)}"
    if len(args.noise) != 1:
        return "--noise: give one level (run the command once per level)"
    for flag, value, low in (("--games", args.games, 1), ("--cap", args.cap, 1), ("--stuck", args.stuck, 0)):
        if value < low:
            return f"{flag}: expected an integer >= {low}, got {value}"
    if args.replays < 0:
        return f"--replays: expected an integer >= 0, got {args.replays}"
    too_many = too_many_tables(args.games)  # a meeting plays its games as one batch of tables
    if too_many:
        return f"--games: {too_many}"
    out = Path(args.out)
    try:
        out.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=out, prefix=".write-test-"):
            pass
    except OSError as error:
        return f"--out: cannot write to {out} ({error.strerror or error})"
    return None


def command(args: argparse.Namespace) -> str:
    """The command line that repeats this run, every option spelled out."""
    return (
        f"piramida eval --agents {','.join(args.agents)} "
        f"--variants {','.join(ids.VARIANT_NAMES[v] for v in args.variants)} --games {args.games} "
        f"--noise {args.noise[0]:g} --cap {args.cap} --stuck {args.stuck} --seed {args.seed} "
        f"--replays {args.replays} --out {args.out}"
    )


def run(args: argparse.Namespace) -> int:
    """Check the arguments, play the tournament, write the results as they come."""
    options.apply_trust_pickle(args)
    try:
        roster.check_policies(args.agents)
    except argparse.ArgumentTypeError as error:
        return fail(f"--agents: {error}")
    problem = check(args)
    if problem is not None:
        return fail(problem)

    from piramida.evaluation.campaign import evaluate
    from piramida.evaluation.results import meetings_written
    from piramida.evaluation.tournament import Plan

    plan = Plan(
        agents=tuple(args.agents),
        variants=tuple(args.variants),
        magnitude=args.noise[0],
        games=args.games,
        cap=args.cap,
        stuck=args.stuck,
        seed=args.seed,
        replays=args.replays,
    )
    try:
        evaluate(plan, Path(args.out), command(args))
    except OSError as error:  # a full disk: results.json keeps every meeting written before
        kept = meetings_written(Path(args.out))
        return fail(
            f"--out: cannot write {error.filename or args.out} ({error.strerror or error}); "
            f"results.json keeps the {kept} meeting{'s' * (kept != 1)} written before"
        )
    return 0
