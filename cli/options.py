"""Options several commands share, defined once so that they read and behave alike."""

from __future__ import annotations

import argparse


def add_trust_pickle(parser: argparse.ArgumentParser) -> None:
    """`--trust-pickle`: allow stable-baselines3 zips saved elsewhere, which load by unpickling."""
    parser.add_argument(
        "--trust-pickle",
        action="store_true",
        help="also load stable-baselines3 .zip files saved outside piramida; loading one unpickles it, "
        "which runs any code inside, so only for files you trust (piramida's own checkpoints are data)",
    )


def apply_trust_pickle(args: argparse.Namespace) -> None:
    """Let this command load foreign zips if, and only if, the user said `--trust-pickle`."""
    from piramida.training.checkpoint import set_pickle_trusted

    set_pickle_trusted(args.trust_pickle)
