"""Command-line lists of variants and noise levels, checked, for the match scripts and commands."""

from __future__ import annotations

import argparse

from piramida.physics import noise
from piramida.rules import ids

NOISE_NAMES = ", ".join(noise.LEVELS)


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
            raise argparse.ArgumentTypeError(
                f"unknown variant {name!r}; choose from {', '.join(ids.VARIANT_NAMES)}"
            )
        out.append(ids.VARIANT_NAMES.index(name))
    return out


def parse_noise(text: str) -> list[float]:
    """Noise levels, comma separated, each read by `physics.noise.level` (a name or a magnitude)."""
    try:
        return [noise.level(item) for item in _items(text, "noise")]
    except noise.NoiseError as error:
        raise argparse.ArgumentTypeError(str(error)) from error


def add_match_arguments(parser: argparse.ArgumentParser, noise: str) -> None:
    """The options every match script shares: games, variants, noise, cap, stuck, seed, outputs."""
    add_game_arguments(parser, noise)
    parser.add_argument("--json", help="write the results here (JSON)")
    parser.add_argument("--markdown", help="write the results here (markdown)")


def add_game_arguments(parser: argparse.ArgumentParser, noise: str) -> None:
    """How the games of a match are played: games, variants, noise, cap, stuck, seed."""
    parser.add_argument("--games", type=int, default=200, help="frames per setting = batch size (200)")
    parser.add_argument(
        "--variants",
        type=parse_variants,
        default=parse_variants("all"),
        help="comma-separated variants or all",
    )
    parser.add_argument(
        "--noise",
        type=parse_noise,
        default=parse_noise(noise),
        help=f"comma-separated noise levels: names ({NOISE_NAMES}) or magnitudes ({noise})",
    )
    parser.add_argument("--cap", type=int, default=400, help="moves per frame before it counts as unfinished")
    parser.add_argument(
        "--stuck",
        type=int,
        default=10,
        help="set a table aside as stuck after this many refused shots in a row (0: never; default 10)",
    )
    parser.add_argument("--seed", type=int, default=0)


def check_match_arguments(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Exit with a usage error where `add_match_arguments`' numbers are out of range."""
    if args.games < 2 or args.cap < 1 or args.stuck < 0:
        parser.error("--games must be >= 2, --cap >= 1, --stuck >= 0")
