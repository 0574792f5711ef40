"""`piramida protocol`: the fixed-budget protocols, listed or run (train, judge, record).

`list` prints each protocol's budget and judges; `run NAME --entry FILE` trains the entry
(a `piramida train` TOML file without variant, noise or steps, which the protocol sets)
for the protocol's budget, plays it against the judges and writes OUT/result.json, and
with `--record FILE` adds the result to a shared results file. An interrupted run goes on
where it stopped when run again. Bad input is one line naming the flag, exit status 2.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path
from typing import Any

HELP = "fixed-budget protocols: list them, or train an entry for one and judge it"
DESCRIPTION = (
    "A protocol fixes the variant, the learner moves, the noise and the judges (greedy and "
    "search:strong, 200 frames each); an entry (a piramida train TOML file) fixes the algorithm "
    "and its settings. `run` trains, judges and records; run it again to resume."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's actions and options (`cli.main` registers it with `HELP` and `DESCRIPTION`)."""
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    actions.add_parser("list", help="the protocols, their budgets and judges")
    run_parser = actions.add_parser("run", help="train an entry for a protocol, judge it, record the result")
    add = run_parser.add_argument
    add("protocol", help="the protocol's name (see `piramida protocol list`)")
    add(
        "--entry",
        required=True,
        metavar="FILE",
        help="the entry: a piramida train TOML file (its name names it)",
    )
    add("--seed", type=int, help="the run's seed (default: the entry's, else 0)")
    add("--out", help="output folder (default: runs/PROTOCOL/ENTRY-seedS)")
    add(
        "--record", metavar="FILE", help="also add the result to this results file (e.g. docs/protocols.json)"
    )
    add("--no-progress", action="store_true", help="no progress bars")


def fail(message: str) -> int:
    """Print a usage error as argparse does and return its exit status."""
    print(f"piramida protocol: error: {message}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    """List the protocols, or run one for an entry; exit status 2 for bad input."""
    from piramida.evaluation import protocols

    if args.action == "list":
        for listed in protocols.PROTOCOLS.values():
            print(f"{listed.name:12s} {listed.describe()}")
        return 0
    protocol = protocols.PROTOCOLS.get(args.protocol)
    if protocol is None:
        return fail(f"unknown protocol {args.protocol!r}; choose from {', '.join(protocols.PROTOCOLS)}")
    return _run(args, protocol)


def _run(args: argparse.Namespace, protocol: Any) -> int:
    from piramida.evaluation import protocols
    from piramida.physics import jsontext
    from piramida.physics.files import write_atomic
    from piramida.training import CheckpointError, ConfigError, config

    entry_path = Path(args.entry)
    try:
        entry: dict[str, Any] = config.read_toml(str(entry_path))
    except ConfigError as error:
        return fail(f"--entry: {error}")
    if args.seed is not None:
        entry["seed"] = args.seed
    name = entry_path.stem
    out = Path(args.out or f"runs/{protocol.name}/{name}-seed{entry.get('seed', 0)}")
    record = ["--record", args.record] if args.record else []
    command = shlex.join(
        ["piramida", "protocol", "run", protocol.name, "--entry", str(entry_path),
         "--seed", str(entry.get("seed", 0)), "--out", str(out), *record]
    )  # fmt: skip
    try:
        result = protocols.run(protocol, entry, name, out, command, progress=not args.no_progress)
        write_atomic(out / "result.json", jsontext.dumps(result, indent=1) + "\n")
        if args.record:
            protocols.record(Path(args.record), result)
    except ConfigError as error:
        return fail(f"--entry: {error}")
    except CheckpointError as error:
        return fail(f"--out: {error}")
    except ValueError as error:
        return fail(f"--record: {error}")
    except OSError as error:
        return fail(f"--out: cannot write {error.filename or out} ({error.strerror or error})")
    for judge, figures in result["judges"].items():
        low, high = figures["win_rate_ci95"]
        print(
            f"{protocol.name} {name} seed {result['seed']}: "
            f"{100 * figures['win_rate']:.1f} % against {judge} "
            f"(95 % CI {100 * low:.1f}-{100 * high:.1f} %, {figures['frames']} frames)"
        )
    print(f"wrote {out / 'result.json'}")
    return 0
