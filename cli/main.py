"""The `piramida` command: one entry point, one subcommand per job.

With no subcommand it runs `demo`, the main job on its defaults.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from piramida.cli import bench, demo, evaluate, play, referee, simulate, train


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    parser = argparse.ArgumentParser(
        prog="piramida",
        description="piramida: Russian pyramid billiards on a batched, event-driven Warp physics kernel.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in (demo, simulate, referee, bench, evaluate, play, train):
        module.add_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (2 for bad input)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        args = parser.parse_args(["demo", *(argv or [])])
    status: int = args.run(args)
    return status


if __name__ == "__main__":
    sys.exit(main())
