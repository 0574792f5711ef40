"""`piramida simulate`: JSON in, JSON out (DESIGN.md, "Command-line contracts")."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

import jax
import numpy as np

import piramida.physics as ph
from piramida.cli import jsonio
from piramida.cli.spec import Request, parse_request, result_to_json
from piramida.physics.fields import FieldError


def add_parser(commands: Any) -> None:
    """Register the subcommand."""
    parser = commands.add_parser(
        "simulate",
        help="simulate shots given as JSON (one object, or JSON Lines for a batch)",
        description="Read one JSON object, or JSON Lines (one table a line, simulated as one "
        "batch), and write the final balls, pocketed balls and event log as JSON. "
        "The schema is in the README.",
    )
    jsonio.add_io_arguments(parser)
    parser.set_defaults(run=run)


def stack_strikes(strikes: list[Any]) -> ph.Strike:
    """One batched `Strike` from per-table strikes."""
    columns = {
        f: np.asarray([getattr(s, f) for s in strikes], dtype=np.float64)
        for f in ("speed", "phi", "theta", "a", "b")
    }
    return ph.Strike(ball=np.asarray([s.ball for s in strikes], dtype=np.int32), **columns)


def run_requests(requests: Sequence[Request | jsonio.Failure]) -> list[dict[str, Any] | jsonio.Failure]:
    """Simulate requests in batches of equal table, params and models; keep their order.

    A bad line's `Failure` stays in its place.
    """
    out: list[dict[str, Any] | jsonio.Failure] = [
        r if isinstance(r, jsonio.Failure) else {} for r in requests
    ]
    groups: dict[str, list[tuple[int, Request]]] = {}
    for k, request in enumerate(requests):
        if isinstance(request, Request):
            groups.setdefault(request.table_key, []).append((k, request))
    for members in groups.values():
        batch = [request for _, request in members]
        first = batch[0]
        balls = jax.tree_util.tree_map(lambda *xs: np.stack(xs), *(r.balls for r in batch))
        strikes = None
        if first.strike is not None:  # then every member has one (see `Request.table_key`)
            strikes = stack_strikes([r.strike for r in batch])
        result = ph.simulate(
            first.table,
            balls,
            strikes,
            first.params,
            first.models,
            first.capacity,
            first.record,
            validate=False,
        )
        for index, (k, _) in enumerate(members):
            out[k] = result_to_json(result, index)
    return out


def run(args: argparse.Namespace) -> int:
    """Check the output, read, simulate, write; bad input exits with status 2 and names the field."""
    try:
        jsonio.check_destination(args.output)
        values = jsonio.read_values(args.input)
        requests = jsonio.answer_each(values, parse_request)
    except FieldError as err:
        return jsonio.fail("simulate", err)
    return jsonio.finish("simulate", args.output, values, run_requests(requests))
