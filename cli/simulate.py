"""`piramida simulate`: JSON in, JSON out (docs/cli.md).

The command only reads, writes and reports; the contract itself (requests, results,
batching) is `physics.contract`, shared with the referee, the play app and the benchmarks.
"""

from __future__ import annotations

import argparse

from piramida.cli import jsonio
from piramida.physics.contract import parse_request, run_requests
from piramida.physics.fields import FieldError

HELP = "simulate shots given as JSON (one object, or JSON Lines for a batch)"
DESCRIPTION = (
    "Read one JSON object, or JSON Lines (one table a line, simulated as one "
    "batch), and write the final balls, pocketed balls and event log as JSON. "
    "The schema is in the documentation: docs/cli.md."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's options (`cli.main` registers the command with `HELP` and `DESCRIPTION`)."""
    jsonio.add_io_arguments(parser)


def run(args: argparse.Namespace) -> int:
    """Check the output, read, simulate, write; bad input exits with status 2 and names the field."""
    try:
        jsonio.check_destination(args.output)
        values = jsonio.read_values(args.input)
        requests = jsonio.answer_each(values, parse_request)
    except FieldError as err:
        return jsonio.fail("simulate", err)
    return jsonio.finish("simulate", args.output, values, run_requests(requests))
