"""The `piramida` command: one entry point, one subcommand per job.

With no subcommand it runs `demo`, the main job on its defaults.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from piramida.cli import bench, demo, evaluate, expert, play, protocol, referee, simulate, train
from piramida.cli.version import __version__
from piramida.physics import runtime

# Each command's module holds its help, description, options and `run`; its work lives in a room below.
COMMANDS = {
    "demo": demo,
    "simulate": simulate,
    "referee": referee,
    "bench": bench,
    "eval": evaluate,
    "play": play,
    "train": train,
    "expert": expert,
    "protocol": protocol,
}


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    parser = argparse.ArgumentParser(
        prog="piramida",
        description="piramida: Russian pyramid billiards on a batched, event-driven Warp physics kernel.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module in COMMANDS.items():
        command = commands.add_parser(name, help=module.HELP, description=module.DESCRIPTION)
        module.add_arguments(command)
        command.set_defaults(run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (2 for bad input)."""
    runtime.use_float64()  # the command's process is piramida's own
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        args = parser.parse_args(["demo", *(argv or [])])
    status: int = args.run(args)
    return status


if __name__ == "__main__":
    sys.exit(main())
