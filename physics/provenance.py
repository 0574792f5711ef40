"""Where a measurement was made: the machine, the source's commit, the command line and the date.

Every benchmark's JSON carries these four (`stamped`), so that each figure the docs site
shows can say what measured it, on what, from which source and when.
"""

from __future__ import annotations

import os
import platform
import shlex
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import jax


def machine() -> str:
    """The machine in one line: architecture, CPUs, system, JAX and its backend."""
    return (
        f"{platform.machine()}, {os.cpu_count()} CPUs, {platform.system()}, "
        f"JAX {jax.__version__} on {jax.default_backend()}"
    )


def commit() -> str | None:
    """The source's git commit (`+changes` where the checkout differs from it); None outside a checkout."""
    here = Path(__file__).resolve().parent

    def git(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["git", *args], cwd=here, capture_output=True, text=True, timeout=10, check=False
        )

    try:
        head = git("rev-parse", "--short=12", "HEAD").stdout.strip()
        changed = git("status", "--porcelain", "--untracked-files=no").stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return None
    return (head + ("+changes" if changed else "")) or None


def command() -> str:
    """The command line that ran this process."""
    return shlex.join([Path(sys.executable).name, *sys.argv])


def stamped(figures: dict[str, Any]) -> dict[str, Any]:
    """`figures` with the machine, the commit, the command and the date (figures' own keys kept)."""
    facts = {"machine": machine(), "commit": commit(), "command": command()}
    facts["date"] = datetime.now(UTC).isoformat(timespec="seconds")
    return facts | figures
