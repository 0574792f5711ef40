"""JAX runtime settings every piramida entry point shares (float64, the compile cache), and the versions.

The kernel needs float64 (a pyramid pocket's tolerance is a few milliradians, and event
times feed the referee's ordering), and its first compile takes tens of seconds, so the
persistent compilation cache is on by default. ``PIRAMIDA_CACHE_DIR`` moves the cache;
``PIRAMIDA_CACHE_DIR=off`` disables it.
"""

from __future__ import annotations

import os
import platform
from importlib import metadata
from pathlib import Path

import jax

DEFAULT_CACHE_DIR = Path.home() / ".cache" / "piramida" / "jax"


def cache_dir() -> Path | None:
    """The persistent compilation cache directory, or None when the user turned it off."""
    configured = os.environ.get("PIRAMIDA_CACHE_DIR", "")
    if configured.lower() in {"off", "none", "0"}:
        return None
    return Path(configured) if configured else DEFAULT_CACHE_DIR


def configure() -> None:
    """Enable float64 and the persistent compilation cache (idempotent)."""
    jax.config.update("jax_enable_x64", True)
    directory = cache_dir()
    if directory is None:
        return
    directory.mkdir(parents=True, exist_ok=True)
    jax.config.update("jax_compilation_cache_dir", str(directory))
    # Cache every compiled program: the kernel's are the slow ones, but the CLI's many
    # small helpers add up to seconds on a cold start too.
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)


def library_versions(packages: tuple[str, ...]) -> dict[str, str]:
    """Python's version and each package's (or "not installed"): what a saved result depends on."""
    out = {"python": platform.python_version()}
    for package in packages:
        try:
            out[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            out[package] = "not installed"
    return out
