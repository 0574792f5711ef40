"""Readers of JSON fields whose errors name the field (`balls[2].x: expected ...`).

One set for every JSON reader (the shot contract, the referee's states, the play API,
training configs), so that every entry point words the same mistake the same way. It
lives in physics/, the bottom of the house, so that every room may use it. A value from
the input appears in a message only through `shown`, cut short: a hostile value is named,
never echoed whole.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

# Longest object key written into a field's path as it is (`params.g`); longer keys, and
# keys that would break the message's one line, are quoted cut short (`member`).
KEY_LIMIT = 40


class FieldError(ValueError):
    """Input that does not follow a JSON contract; the message starts with the field's path."""


@dataclass(frozen=True)
class Range:
    """The values a physical field accepts: [lo, hi] in `unit`, or (lo, hi] when `above`."""

    lo: float
    hi: float
    unit: str = ""
    above: bool = False  # lo itself is refused (a strike of speed 0 is no strike)

    def holds(self, value: Any) -> Any:
        """Whether `value` is in the range: a bool, or elementwise for an array (NaN is in no range)."""
        return (value > self.lo if self.above else value >= self.lo) & (value <= self.hi)

    def __contains__(self, value: float) -> bool:
        return bool(self.holds(value))

    def __str__(self) -> str:
        unit = f" {self.unit}" if self.unit else ""
        return f"{'(' if self.above else '['}{self.lo:g}, {self.hi:g}]{unit}"


def shown(value: Any, limit: int = 40) -> str:
    """`repr(value)`, cut to `limit` characters: a hostile value is named, not echoed whole."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


def member(path: str, key: str) -> str:
    """`path.key` (`key` where path is ""), or `path[<key cut short>]` for a long or line-breaking key."""
    if len(key) > KEY_LIMIT or not key.isprintable():
        return f"{path}[{shown(key)}]"
    return f"{path}.{key}" if path else key


def read_object(value: Any, path: str, allowed: tuple[str, ...]) -> dict[str, Any]:
    """An object whose keys are all in `allowed`."""
    if not isinstance(value, dict):
        raise FieldError(f"{path}: expected an object, got {type(value).__name__}")
    unknown = sorted(set(value) - set(allowed))
    if unknown:
        raise FieldError(f"{member(path, unknown[0])}: unknown field; allowed: {', '.join(allowed)}")
    return value


def _finite(value: int | float) -> bool:
    try:
        return math.isfinite(float(value))
    except OverflowError:  # an integer too large for a float
        return False


def not_finite(value: Any, path: str) -> str:
    """What every reader says of a value that is no finite number."""
    return f"{path}: expected a finite number, got {shown(value)}"


def out_of_range(value: Any, path: str, within: Range) -> str:
    """What every reader (the JSON contract's, `simulate`'s own) says of a number outside `within`."""
    return f"{path}: expected a number in {within}, got {shown(value)}"


def read_number(value: Any, path: str, positive: bool = False, within: Range | None = None) -> float:
    """A finite number (JSON true and false are not numbers), above zero when `positive`, in `within`."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not _finite(value):
        raise FieldError(not_finite(value, path))
    if positive and value <= 0:
        raise FieldError(f"{path}: must be positive, got {shown(value)}")
    if within is not None and float(value) not in within:
        raise FieldError(out_of_range(value, path, within))
    return float(value)


def read_int(value: Any, path: str, lo: int, hi: int) -> int:
    """An integer in `lo..hi` (JSON true and false are not integers)."""
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise FieldError(f"{path}: expected an integer {lo}..{hi}, got {shown(value)}")
    return value


def read_bool(value: Any, path: str) -> bool:
    """JSON true or false."""
    if not isinstance(value, bool):
        raise FieldError(f"{path}: expected true or false, got {shown(value)}")
    return value


def read_name(value: Any, path: str, names: tuple[str, ...]) -> int:
    """The index of a name in `names`."""
    if not isinstance(value, str) or value not in names:
        raise FieldError(f"{path}: expected one of {', '.join(n for n in names if n)}, got {shown(value)}")
    return names.index(value)
