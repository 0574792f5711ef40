"""JSON in and out for the commands that speak JSON (`simulate`, `referee`).

Both read one JSON object or JSON Lines from a file or stdin and write one compact JSON
line per request, in order, so the two contracts read and fail alike (DESIGN.md,
"Command-line contracts"). Bad input is reported on stderr as one line naming the field
(exit status 2): a lone request then gets no answer; a bad line of JSON Lines is answered
in its place by `{"error": message, "line": N}` and every other line as it would be alone.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from piramida.rules import jsontext
from piramida.rules.fields import FieldError, shown

T = TypeVar("T")
Numbered = Iterable[tuple[int | None, Any]]  # (line number, or None for a lone object; value)


def add_io_arguments(parser: Any) -> None:
    """The input file and `-o/--output` (both `-` for stdin and stdout)."""
    parser.add_argument("input", nargs="?", default="-", help="JSON file (default: stdin)")
    parser.add_argument("-o", "--output", default="-", help="where to write (default: stdout)")


def read_text(source: str) -> str:
    """The text of `source` (`-`: stdin); unreadable or not UTF-8 is a `FieldError` on `input`."""
    try:
        return sys.stdin.read() if source == "-" else Path(source).read_text(encoding="utf-8")
    except OSError as err:
        raise FieldError(f"input: {err.strerror}: {shown(source)}") from err
    except UnicodeDecodeError as err:
        raise FieldError(f"input: not UTF-8 text (byte {err.start}): {shown(source)}") from err


def read_values(source: str) -> Numbered:
    """The JSON values of `source`: one object (numbered None), or JSON Lines numbered by line.

    A line that is not valid JSON comes as a `FieldError` in its place, so that every
    other line is still answered (`answer_each`).
    """
    text = read_text(source)
    stripped = text.strip()
    if not stripped:
        raise FieldError("input: empty; expected a JSON object or JSON Lines")
    try:
        return [(None, jsontext.loads(stripped))]
    except FieldError:  # not one JSON value: JSON Lines, each line decoded alone
        return list(_lines(text))


def _lines(text: str) -> Iterator[tuple[int | None, Any]]:
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            yield number, jsontext.loads(line, "")
        except FieldError as err:
            yield number, err


def answer_each(values: Numbered, read: Callable[[Any], T]) -> tuple[list[T | dict[str, Any]], list[str]]:
    """`read` applied to every value, and the messages of the lines that failed.

    A bad line of JSON Lines is answered in its place by `{"error": message, "line": N}`
    and does not stop the others; a lone object's `FieldError` is raised.
    """
    out: list[T | dict[str, Any]] = []
    failures = []
    for number, value in values:
        try:
            if isinstance(value, FieldError):
                raise value
            out.append(read(value))
        except FieldError as err:
            if number is None:
                raise
            out.append({"error": str(err), "line": number})
            failures.append(f"line {number}: {err}")
    return out, failures


def fail(command: str, err: Exception | str) -> int:
    """Report bad input as one line on stderr; the exit status for it."""
    print(f"piramida {command}: error: {err}", file=sys.stderr)
    return 2


def finish(command: str, destination: str, answers: list[Any], failures: list[str]) -> int:
    """Write every answer, report each failed line on stderr; exit status 2 if any failed."""
    write(destination, answers)
    for failure in failures:
        fail(command, failure)
    return 2 if failures else 0


def write(destination: str, values: list[Any]) -> None:
    """One compact JSON line per answer, in the order of the requests; a file is replaced atomically.

    One request or many, the answers have the same shape (JSON Lines): a lone request
    gets one line.
    """
    body = "".join(jsontext.dumps(v) + "\n" for v in values)
    if destination == "-":
        sys.stdout.write(body)
    else:
        path = Path(destination)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(body)
        tmp.replace(path)  # atomic: a reader never sees half a file
