"""`piramida simulate`: JSON in, JSON out (DESIGN.md, "Command-line contracts")."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import jax
import numpy as np

import piramida.physics as ph
from piramida.cli.spec import Request, SpecError, parse_request, result_to_json


def add_parser(commands: Any) -> None:
    """Register the subcommand."""
    parser = commands.add_parser(
        "simulate",
        help="simulate shots given as JSON (one object, or JSON Lines for a batch)",
        description="Read one JSON object, or JSON Lines (one table a line, simulated as one "
        "batch), and write the final balls, pocketed balls and event log as JSON. "
        "The schema is in the README.",
    )
    parser.add_argument("input", nargs="?", default="-", help="JSON file (default: stdin)")
    parser.add_argument("-o", "--output", default="-", help="where to write (default: stdout)")
    parser.set_defaults(run=run)


def parse_text(text: str) -> tuple[list[Request], bool]:
    """Requests from one JSON object or JSON Lines; also whether the input was lines."""
    stripped = text.strip()
    if not stripped:
        raise SpecError("input: empty; expected a JSON object or JSON Lines")
    try:
        return [parse_request(json.loads(stripped))], False
    except json.JSONDecodeError:
        pass
    requests = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as err:
            raise SpecError(f"line {number}: not valid JSON ({err.msg}, column {err.colno})") from err
        try:
            requests.append(parse_request(value))
        except SpecError as err:
            raise SpecError(f"line {number}: {err}") from err
    return requests, True


def stack_strikes(strikes: list[Any]) -> ph.Strike:
    """One batched `Strike` from per-table strikes."""
    columns = {
        f: np.asarray([getattr(s, f) for s in strikes], dtype=np.float64)
        for f in ("speed", "phi", "theta", "a", "b")
    }
    return ph.Strike(ball=np.asarray([s.ball for s in strikes], dtype=np.int32), **columns)


def run_requests(requests: list[Request]) -> list[dict[str, Any]]:
    """Simulate requests in batches of equal table, params and models; keep their order."""
    out: list[dict[str, Any]] = [{} for _ in requests]
    groups: dict[str, list[int]] = {}
    for k, request in enumerate(requests):
        groups.setdefault(request.table_key, []).append(k)
    for members in groups.values():
        first = requests[members[0]]
        balls = jax.tree_util.tree_map(lambda *xs: np.stack(xs), *(requests[k].balls for k in members))
        strikes = None
        if first.strike is not None:  # then every member has one (see `Request.table_key`)
            strikes = stack_strikes([requests[k].strike for k in members])
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
        for index, k in enumerate(members):
            out[k] = result_to_json(result, index)
    return out


def run(args: argparse.Namespace) -> int:
    """Read, simulate, write; bad input exits with status 2 and names the field."""
    try:
        text = sys.stdin.read() if args.input == "-" else Path(args.input).read_text()
    except OSError as err:
        print(f"piramida simulate: error: input: {err.strerror}: {args.input}", file=sys.stderr)
        return 2
    try:
        requests, lines = parse_text(text)
    except SpecError as err:
        print(f"piramida simulate: error: {err}", file=sys.stderr)
        return 2
    results = run_requests(requests)
    body = (
        "\n".join(json.dumps(r) for r in results) + "\n" if lines else json.dumps(results[0], indent=1) + "\n"
    )
    if args.output == "-":
        sys.stdout.write(body)
    else:
        path = Path(args.output)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(body)
        tmp.replace(path)  # atomic: a reader never sees half a file
    return 0
