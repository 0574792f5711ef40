"""Command-line lists of variants and noise levels, checked, for the match scripts and commands."""

from __future__ import annotations

import argparse

from piramida.physics import noise
from piramida.rules import ids


def _items(text: str, kind: str) -> list[str]:
    items = [item.strip() for item in text.split(",") if item.strip()]
    if not items:
        raise argparse.ArgumentTypeError(f"empty {kind} list")
    return items


def parse_variants(text: str) -> list[int]:
    """Variant names (`ids.VARIANT_NAMES`, or `all`), comma separated, to ids."""
    if text.strip() == "all":
        return list(range(len(ids.VARIANT_NAMES)))
    out = []
    for name in _items(text, "variant"):
        if name not in ids.VARIANT_NAMES:
            raise argparse.ArgumentTypeError(f"unknown variant {name!r}; choose from {', '.join(ids.VARIANT_NAMES)}")
        out.append(ids.VARIANT_NAMES.index(name))
    return out


def parse_noise(text: str) -> list[float]:
    """Noise levels, comma separated: names of `physics.noise.LEVELS` or magnitudes >= 0."""
    out = []
    for item in _items(text, "noise"):
        level: str | float
        try:
            level = float(item)
        except ValueError:
            level = item
        try:
            out.append(noise.level(level))
        except ValueError as error:
            raise argparse.ArgumentTypeError(str(error)) from error
    return out
