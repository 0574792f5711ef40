"""JSON in and out for the commands that speak JSON (`simulate`, `referee`).

Both read one JSON object or JSON Lines from a file or stdin, report bad input as one
line on stderr naming the field (exit status 2), and write one indented object or one
line per answer, so the two contracts read and fail alike (DESIGN.md, "Command-line
contracts").
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from piramida.rules.fields import FieldError

T = TypeVar("T")
Numbered = Iterable[tuple[int | None, Any]]  # (line number, or None for a lone object; value)


def add_io_arguments(parser: Any) -> None:
    """The input file and `-o/--output` (both `-` for stdin and stdout)."""
    parser.add_argument("input", nargs="?", default="-", help="JSON file (default: stdin)")
    parser.add_argument("-o", "--output", default="-", help="where to write (default: stdout)")


def read_text(source: str) -> str:
    """The text of `source` (`-`: stdin); an unreadable file is a `FieldError` on `input`."""
    try:
        return sys.stdin.read() if source == "-" else Path(source).read_text()
    except OSError as err:
        raise FieldError(f"input: {err.strerror}: {source}") from err


def read_values(source: str) -> tuple[Numbered, bool]:
    """The JSON values of `source`, numbered by line; also whether it was JSON Lines.

    The lines are decoded as they are iterated, so a caller that checks each value on
    the way reports the first bad line, whether its JSON or its fields are at fault.
    """
    text = read_text(source)
    stripped = text.strip()
    if not stripped:
        raise FieldError("input: empty; expected a JSON object or JSON Lines")
    try:
        return [(None, json.loads(stripped))], False
    except json.JSONDecodeError:
        return _lines(text), True


def _lines(text: str) -> Iterator[tuple[int | None, Any]]:
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            yield number, json.loads(line)
        except json.JSONDecodeError as err:
            raise FieldError(f"line {number}: not valid JSON ({err.msg}, column {err.colno})") from err


def each(values: Numbered, read: Callable[[Any], T]) -> list[T]:
    """`read` applied to every value; its `FieldError` gains the value's line number."""
    out = []
    for number, value in values:
        try:
            out.append(read(value))
        except FieldError as err:
            if number is None:
                raise
            raise FieldError(f"line {number}: {err}") from err
    return out


def fail(command: str, err: Exception) -> int:
    """Report bad input as one line on stderr; the exit status for it."""
    print(f"piramida {command}: error: {err}", file=sys.stderr)
    return 2


def write(destination: str, values: list[Any], lines: bool) -> None:
    """One indented object, or one line per value; a file is replaced atomically."""
    body = "".join(json.dumps(v) + "\n" for v in values) if lines else json.dumps(values[0], indent=1) + "\n"
    if destination == "-":
        sys.stdout.write(body)
    else:
        path = Path(destination)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(body)
        tmp.replace(path)  # atomic: a reader never sees half a file
