"""JSON text from outside, decoded one way by every reader; JSON written that is always JSON.

Every entry point that reads a JSON document a user or a page supplies (`simulate`,
`referee`, match records, the play API, stored games, checkpoint metadata) decodes it
here, so one rule covers them all: bytes that are not UTF-8, text that is not JSON,
nesting deeper than `MAX_DEPTH`, integers longer than `MAX_DIGITS` digits, `NaN` and
`Infinity` literals, and numbers that overflow a float all become one `FieldError`
naming the problem, never a traceback. Everything written goes through `dumps`, which
refuses NaN and infinities rather than emit text that is not JSON.
"""

from __future__ import annotations

import json
import math
from typing import Any

from piramida.physics.fields import FieldError, shown

# Deeper than any document of the contracts (a state is 4 levels deep); far below the
# recursion limit, so that readers walking a value never overflow the stack.
MAX_DEPTH = 64
# Longer integers are no ball id, key or count; Python refuses to convert past 4,300.
MAX_DIGITS = 100


def _parse_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise FieldError(f"a number of {len(text)} digits (at most {MAX_DIGITS})")
    return int(text)


def _parse_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise FieldError(f"the number {shown(text)} is too large for a float")
    return value


def _parse_constant(name: str) -> Any:
    raise FieldError(f"{name} is not a JSON number")


def _depth(value: Any) -> int:
    """How deeply `value` nests arrays and objects (without recursion: it may be hostile)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, level)
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, level + 1) for child in children if isinstance(child, dict | list))
    return deepest


def loads(data: str | bytes, what: str = "input") -> Any:
    """The JSON value of `data`; a `FieldError` starting with `what` (if any) for anything else."""
    where = f"{what}: " if what else ""
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as err:
            raise FieldError(f"{where}not UTF-8 text (byte {err.start})") from err
    try:
        value = json.loads(
            data, parse_int=_parse_int, parse_float=_parse_float, parse_constant=_parse_constant
        )
    except FieldError as err:
        raise FieldError(f"{where}not valid JSON: {err}") from err
    except json.JSONDecodeError as err:
        raise FieldError(f"{where}not valid JSON ({err.msg}, line {err.lineno} column {err.colno})") from err
    except RecursionError as err:
        raise FieldError(f"{where}not valid JSON: nested too deeply (at most {MAX_DEPTH} levels)") from err
    if _depth(value) > MAX_DEPTH:
        raise FieldError(f"{where}nested too deeply (at most {MAX_DEPTH} levels)")
    return value


def dumps(value: Any, indent: int | None = None) -> str:
    """`value` as JSON text; ValueError for NaN or an infinity (never written as non-JSON)."""
    return json.dumps(value, indent=indent, allow_nan=False)
