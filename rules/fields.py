"""Readers of JSON fields whose errors name the field (`balls[2].x: expected ...`).

One set for both JSON contracts, `piramida simulate` (`cli.spec`) and the referee
(`rules.codec`), so that the two commands word the same mistake the same way. It lives
in rules/ because cli/ may import rules/ but rules/ never imports cli/.
"""

from __future__ import annotations

import math
from typing import Any


class FieldError(ValueError):
    """Input that does not follow a JSON contract; the message starts with the field's path."""


def read_object(value: Any, path: str, allowed: tuple[str, ...]) -> dict[str, Any]:
    """An object whose keys are all in `allowed`."""
    if not isinstance(value, dict):
        raise FieldError(f"{path}: expected an object, got {type(value).__name__}")
    unknown = sorted(set(value) - set(allowed))
    if unknown:
        raise FieldError(f"{path}.{unknown[0]}: unknown field; allowed: {', '.join(allowed)}")
    return value


def shown(value: Any, limit: int = 40) -> str:
    """`repr(value)`, cut to `limit` characters: a hostile value is named, not echoed whole."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


def _finite(value: int | float) -> bool:
    try:
        return math.isfinite(float(value))
    except OverflowError:  # an integer too large for a float
        return False


def read_number(value: Any, path: str, positive: bool = False) -> float:
    """A finite number (JSON true and false are not numbers), above zero when `positive`."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not _finite(value):
        raise FieldError(f"{path}: expected a finite number, got {shown(value)}")
    if positive and value <= 0:
        raise FieldError(f"{path}: must be positive, got {value!r}")
    return float(value)


def read_int(value: Any, path: str, lo: int, hi: int) -> int:
    """An integer in `lo..hi` (JSON true and false are not integers)."""
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise FieldError(f"{path}: expected an integer {lo}..{hi}, got {shown(value)}")
    return value


def read_bool(value: Any, path: str) -> bool:
    """JSON true or false."""
    if not isinstance(value, bool):
        raise FieldError(f"{path}: expected true or false, got {value!r}")
    return value
