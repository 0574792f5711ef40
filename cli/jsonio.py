"""JSON in and out for the commands that speak JSON (`simulate`, `referee`).

Both read one JSON object or JSON Lines from a file or stdin and write one compact JSON
line per request, in order, so the two contracts read and fail alike (docs/cli.md, "The JSON
contracts"). Bad input is reported on stderr as one line naming the field
(exit status 2): a lone request then gets no answer; a bad line of JSON Lines is answered
in its place by `{"error": message, "line": N}` and every other line as it would be alone.
The output is checked before any work and written atomically; an answer that would hold
NaN or an infinity (never JSON) fails like bad input.
"""

from __future__ import annotations

import math
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from piramida.physics import jsontext
from piramida.physics.fields import FieldError, shown
from piramida.physics.files import write_atomic

T = TypeVar("T")
Numbered = Sequence[tuple[int | None, Any]]  # (line number, or None for a lone object; value)
PATH_LIMIT = 200  # a path is quoted whole up to this many characters


@dataclass(frozen=True)
class Failure:
    """The answer of a line of JSON Lines that failed: its error, written in its place."""

    line: int
    message: str


def add_io_arguments(parser: Any) -> None:
    """The input file and `-o/--output` (both `-` for stdin and stdout)."""
    parser.add_argument("input", nargs="?", default="-", help="JSON file (default: stdin)")
    parser.add_argument("-o", "--output", default="-", help="where to write (default: stdout)")


def _path(path: str | Path) -> str:
    return shown(str(path), PATH_LIMIT)


def read_text(source: str) -> str:
    """The text of `source` (`-`: stdin); unreadable or not UTF-8 is a `FieldError` on `input`."""
    try:
        return sys.stdin.read() if source == "-" else Path(source).read_text(encoding="utf-8")
    except OSError as err:
        raise FieldError(f"input: {err.strerror}: {_path(source)}") from err
    except UnicodeDecodeError as err:
        raise FieldError(f"input: not UTF-8 text (byte {err.start}): {_path(source)}") from err


def check_destination(destination: str) -> None:
    """Refuse an output file that cannot be written (a `FieldError` on `output`), before any work is done."""
    if destination == "-":
        return
    path = Path(destination)
    if not path.parent.is_dir():
        raise FieldError(f"output: no such folder: {_path(path.parent)}")
    if path.is_dir():
        raise FieldError(f"output: is a folder: {_path(path)}")
    try:
        with tempfile.TemporaryFile(dir=path.parent):  # what `write_atomic` will do there
            pass
    except OSError as err:
        raise FieldError(f"output: cannot write in {_path(path.parent)}: {err.strerror}") from err


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
        return [(number, _decode(line)) for number, line in enumerate(text.splitlines(), 1) if line.strip()]


def _decode(line: str) -> Any:
    try:
        return jsontext.loads(line, "")
    except FieldError as err:
        return err


def _failure(number: int | None, err: FieldError) -> Failure:
    """`err` as the answer of line `number`; raised again for a lone request, which has no line."""
    if number is None:
        raise err
    return Failure(number, str(err))


def answer_each(values: Numbered, read: Callable[[Any], T]) -> list[T | Failure]:
    """`read` applied to every value; a line's `FieldError` is its `Failure`, a lone object's is raised."""
    out: list[T | Failure] = []
    for number, value in values:
        try:
            if isinstance(value, FieldError):
                raise value
            out.append(read(value))
        except FieldError as err:
            out.append(_failure(number, err))
    return out


def fail(command: str, err: Exception | str) -> int:
    """Report bad input as one line on stderr; the exit status for it."""
    print(f"piramida {command}: error: {err}", file=sys.stderr)
    return 2


def _non_finite(value: Any, path: str) -> tuple[str, float] | None:
    """The path and value of the first NaN or infinity in `value`, if any."""
    if isinstance(value, float):
        return None if math.isfinite(value) else (path, value)
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        found = _non_finite(item, f"{path}.{key}" if isinstance(value, dict) else f"{path}[{key}]")
        if found:
            return found
    return None


def _text(answer: Any) -> str:
    """`answer` as one JSON line; a `FieldError` naming its first NaN or infinity (never written)."""
    found = _non_finite(answer, "answer")
    if found:
        raise FieldError(f"{found[0]}: {found[1]} cannot be written as JSON: this request has no answer")
    return jsontext.dumps(answer)


def finish(command: str, destination: str, values: Numbered, answers: Sequence[Any]) -> int:
    """Write one line per answer, in order, and report each failed line on stderr (then exit status 2).

    `answers` are those of `values`; a `Failure`, or an answer holding NaN or an infinity,
    is answered by its error (a lone request's error is reported alone).
    """
    lines, failures = [], []
    try:
        for (number, _), answer in zip(values, answers, strict=True):
            if not isinstance(answer, Failure):
                try:
                    lines.append(_text(answer))
                    continue
                except FieldError as err:
                    answer = _failure(number, err)
            lines.append(jsontext.dumps({"error": answer.message, "line": answer.line}))
            failures.append(answer)
        write(destination, lines)
    except FieldError as err:
        return fail(command, err)
    for failure in failures:
        fail(command, f"line {failure.line}: {failure.message}")
    return 2 if failures else 0


def write(destination: str, lines: list[str]) -> None:
    """The lines to stdout, or to a file replaced atomically; a `FieldError` on `output` if that fails."""
    body = "".join(line + "\n" for line in lines)
    try:
        if destination == "-":
            sys.stdout.write(body)
        else:
            write_atomic(destination, body)
    except OSError as err:
        raise FieldError(f"output: {err.strerror or err}: {_path(destination)}") from err
