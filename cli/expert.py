"""`piramida expert`: learn from the search bot, record its decisions, then fit a policy to them.

`piramida expert record --out DATA` plays search-bot games in batches and saves each
position with the search's value of every menu slot and its choice (`training.expert`);
`piramida expert distill --data DATA --out RUN` fits the slot-scoring network to them
(`training.distill`) and writes `RUN/policy.npz` (+ `.json`), which `--bot`/`--agents`
take by path and which, copied to `agents/data/trained.*`, is the shipped `trained` bot.
`piramida expert iterate --out DIR` runs rounds of expert iteration (`evaluation.iteration`):
data from the search guided by the network, the network refitted, judged each round.
All three resume when run again with the same folders.
"""

from __future__ import annotations

import argparse
import math
import shlex
import sys
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from piramida.agents.scorer import PolicyFileError
from piramida.agents.search import LEVELS
from piramida.physics import noise, provenance

HELP = "learn from the search bot: record its decisions (record), fit a policy to them (distill)"
DESCRIPTION = (
    "Expert iteration. `record` plays batches of search-bot games (against itself and "
    "greedy, all four variants, pro and amateur noise) and saves every position with the "
    "search's value of each shot-menu slot and its choice, in atomic chunks (DATA/chunk-N.npz); "
    "`distill` fits the slot-scoring network to them, with TensorBoard curves (RUN/tensorboard), "
    "an atomic checkpoint each epoch and the best epoch's policy (RUN/policy.npz and .json); "
    "`iterate` runs rounds of both with the search guided by the current network, judging each "
    "round's network against greedy and the strong search (DIR/rounds.json, DIR/rounds.png). "
    "Run again with the same folders to resume."
)


def _positive(kind: type) -> Any:
    def read(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a positive {kind.__name__}, got {text!r}") from None
        if not (value > 0 and math.isfinite(value)):
            raise argparse.ArgumentTypeError(f"expected a positive {kind.__name__}, got {text!r}")
        return value

    return read


def _noise_name(text: str) -> str:
    try:
        noise.level(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's options (`cli.main` registers the command with `HELP` and `DESCRIPTION`)."""
    steps = parser.add_subparsers(dest="step", metavar="STEP", required=True)
    rec = steps.add_parser("record", help="record the search bot's decisions into a data set folder")
    rec.add_argument(
        "--out", required=True, type=Path, help="the data set folder (continued if it holds chunks)"
    )
    rec.add_argument(
        "--positions", type=_positive(int), default=20_000, help="positions to hold (default 20000)"
    )
    rec.add_argument(
        "--tables", type=_positive(int), default=128, help="frames played side by side (default 128)"
    )
    rec.add_argument("--moves", type=_positive(int), default=48, help="moves per chunk (default 48)")
    rec.add_argument("--level", choices=list(LEVELS), default="strong", help="the labelling search level")
    rec.add_argument(
        "--noise",
        type=_noise_name,
        nargs="+",
        default=["pro", "amateur"],
        help="noise levels, by turns per chunk",
    )
    rec.add_argument("--seed", type=int, default=0, help="seed of chunk 0 (default 0)")
    fit = steps.add_parser("distill", help="fit the slot-scoring policy to a data set")
    fit.add_argument("--data", required=True, type=Path, help="a data set folder written by `record`")
    fit.add_argument(
        "--out", required=True, type=Path, help="the run folder (resumed if it holds a checkpoint)"
    )
    fit.add_argument("--epochs", type=_positive(int), default=30, help="passes over the data (default 30)")
    fit.add_argument("--batch", type=_positive(int), default=256, help="positions per step (default 256)")
    fit.add_argument(
        "--learning-rate", type=_positive(float), default=1e-3, help="peak Adam rate (default 1e-3)"
    )
    fit.add_argument("--width", type=_positive(int), default=128, help="the network's width (default 128)")
    fit.add_argument("--seed", type=int, default=0, help="initial weights and batch order (default 0)")
    fit.add_argument(
        "--match-every",
        type=_positive(int),
        default=None,
        help="every this many epochs, play the network against greedy and the strong search for the "
        "win-rate curves (default: no matches)",
    )
    fit.add_argument(
        "--match-games", type=_positive(int), default=64, help="Free frames per match (default 64)"
    )
    _iterate_arguments(steps)


# `iterate`'s numeric options: (IterationPlan field, type, help); each flag is the field's name.
ITERATE_NUMBERS = (
    ("rounds", int, "rounds after round 0"),
    ("positions", int, "positions per round"),
    ("finalists", int, "the network's slots the guided search strikes"),
    ("samples", int, "strikes of each finalist"),
    ("tables", int, "frames recorded side by side"),
    ("moves", int, "moves per chunk"),
    ("epochs", int, "epochs of each refit"),
    ("learning_rate", float, "peak Adam rate"),
    ("frames", int, "frames per judge and variant"),
)


def _flag(field: str) -> str:
    return "--" + field.replace("_", "-")


def _iterate_arguments(steps: Any) -> None:
    from piramida.agents.trained import LEVELS as TRAINED_LEVELS
    from piramida.evaluation.iteration import IterationPlan
    from piramida.rules.ids import VARIANT_NAMES

    plan = IterationPlan()
    it = steps.add_parser("iterate", help="rounds of data from the network-guided search and refits, judged")
    it.add_argument("--out", required=True, type=Path, help="the rounds' folder (resumed if it holds rounds)")
    for field, kind, text in ITERATE_NUMBERS:
        default = getattr(plan, field)
        it.add_argument(
            _flag(field), type=_positive(kind), default=default, help=f"{text} (default {default})"
        )
    it.add_argument(
        "--player",
        choices=list(TRAINED_LEVELS),
        default=plan.player,
        help=f"the level judged (default {plan.player})",
    )
    it.add_argument("--judges", nargs="+", default=list(plan.judges), help="the bots each round meets")
    it.add_argument(
        "--variants",
        nargs="+",
        choices=list(VARIANT_NAMES),
        default=list(plan.variants),
        help="the variants judged",
    )
    it.add_argument(
        "--start", type=Path, default=None, help="the round-0 policy (.npz; default: the shipped one)"
    )
    it.add_argument("--seed", type=int, default=plan.seed, help=f"seed of every round (default {plan.seed})")


def _iterate(args: argparse.Namespace) -> int:
    from piramida.agents import check_bot
    from piramida.evaluation.iteration import LOG, PICTURE, IterationPlan, iterate

    try:
        judges = tuple(check_bot(name) for name in args.judges)
    except ValueError as error:
        print(f"piramida expert iterate: --judges: {error}", file=sys.stderr)
        return 2
    if args.start is not None and not args.start.is_file():
        print(f"piramida expert iterate: --start: no such file {args.start}", file=sys.stderr)
        return 2
    plan = IterationPlan(
        **{field: getattr(args, field) for field, _, _ in ITERATE_NUMBERS},
        player=args.player,
        judges=judges,
        variants=tuple(args.variants),
        start=str(args.start or ""),
        seed=args.seed,
    )
    numbers = [word for field, _, _ in ITERATE_NUMBERS for word in (_flag(field), str(getattr(plan, field)))]
    command = shlex.join(
        ["piramida", "expert", "iterate", "--out", str(args.out), *numbers, "--player", plan.player]
        + ["--judges", *plan.judges, "--variants", *plan.variants, "--seed", str(plan.seed)]
        + (["--start", plan.start] if plan.start else [])
    )
    with _bar() as bar:
        log = iterate(plan, args.out, command, _tasks(bar))
    for entry in log["rounds"]:
        rates = ", ".join(
            f"{judge} {sum(by.values()) / len(by):.1%}" for judge, by in entry["win_rates"].items()
        )
        print(f"round {entry['round']}: mean win rate over the variants vs {rates}")
    print(f"wrote {args.out / LOG} and {args.out / PICTURE}")
    return 0


def _tasks(bar: Progress) -> Any:
    """A `progress(what, done, total)` that shows each `what` as a bar of its own."""
    tasks: dict[str, Any] = {}

    def progress(what: str, done: int, total: int) -> None:
        if what not in tasks:
            tasks[what] = bar.add_task(what, total=total)
        bar.update(tasks[what], completed=done)

    return progress


def _bar() -> Progress:
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
    )


def run(args: argparse.Namespace) -> int:
    """Run `record` or `distill`; 2 with a one-line message for a folder that cannot be used."""
    from piramida.training import distill, expert

    try:
        if args.step == "iterate":
            return _iterate(args)
        if args.step == "record":
            plan = expert.RecordPlan(
                positions=args.positions,
                tables=args.tables,
                moves=args.moves,
                level=args.level,
                noises=tuple(args.noise),
                seed=args.seed,
            )
            with _bar() as bar:
                task = bar.add_task("recording positions", total=plan.positions)
                held = expert.record(plan, args.out, lambda done, _: bar.update(task, completed=done))
            print(f"{args.out}: {held} positions")
            return 0
        started = time.perf_counter()
        fit = distill.DistillPlan(
            epochs=args.epochs,
            batch=args.batch,
            learning_rate=args.learning_rate,
            width=args.width,
            seed=args.seed,
            match_every=args.match_every or 0,
            match_games=args.match_games,
        )
        command = (
            f"piramida expert distill --data {args.data} --out {args.out} --epochs {fit.epochs} "
            f"--batch {fit.batch} --learning-rate {fit.learning_rate} --width {fit.width} --seed {fit.seed}"
        )
        if fit.match_every:
            command += f" --match-every {fit.match_every} --match-games {fit.match_games}"
        made = {"command": command, "data": expert.summary(args.data), "machine": provenance.machine()}
        with _bar() as bar:
            metrics = distill.distill(fit, args.data, args.out, made, _tasks(bar))
        hours = (time.perf_counter() - started) / 3600.0
        print(
            f"{args.out / 'policy.npz'}: agreement with the search {metrics['validation/agreement']:.1%}, "
            f"regret {metrics['validation/regret']:.4f} frames ({hours:.2f} h)"
        )
        return 0
    except (expert.ExpertDataError, PolicyFileError, OSError) as error:
        print(f"piramida expert: {error}", file=sys.stderr)
        return 2
