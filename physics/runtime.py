"""Runtime settings every piramida entry point shares (float64, the compile caches), and the versions.

The kernel needs float64 (a pyramid pocket's tolerance is a few milliradians, and event
times feed the referee's ordering). Two compilers run: Warp compiles the shot kernel
(`physics.engine`) once per machine, and XLA compiles each jitted program per batch
shape; both caches live under one project cache directory, so a second start compiles
nothing. ``PIRAMIDA_CACHE_DIR`` moves it (``<dir>/jax`` and ``<dir>/warp``);
``PIRAMIDA_CACHE_DIR=off`` turns the persistent caches off (Warp then compiles into a
temporary directory).
"""

from __future__ import annotations

import os
import platform
import tempfile
from importlib import metadata
from pathlib import Path

import jax
import warp as wp

DEFAULT_CACHE_DIR = Path.home() / ".cache" / "piramida"


def cache_dir() -> Path | None:
    """The project's cache directory, or None when the user turned the caches off."""
    configured = os.environ.get("PIRAMIDA_CACHE_DIR", "")
    if configured.lower() in {"off", "none", "0"}:
        return None
    return Path(configured) if configured else DEFAULT_CACHE_DIR


def configure() -> None:
    """Enable float64 and both persistent caches (idempotent; before Warp's first compile)."""
    jax.config.update("jax_enable_x64", True)
    wp.config.quiet = True  # type: ignore[attr-defined]
    wp.config.log_level = wp.LOG_WARNING  # no line per module load
    # Nothing differentiates the kernel: building its adjoint doubled a cold start's build.
    wp.config.enable_backward = False
    directory = cache_dir()
    if directory is None:
        wp.config.kernel_cache_dir = tempfile.mkdtemp(prefix="piramida-warp-")
        return
    (directory / "jax").mkdir(parents=True, exist_ok=True)
    (directory / "warp").mkdir(parents=True, exist_ok=True)
    wp.config.kernel_cache_dir = str(directory / "warp")
    jax.config.update("jax_compilation_cache_dir", str(directory / "jax"))
    # Cache every compiled program: the CLI's many small helpers add up to seconds on a
    # cold start too.
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)


def prefer_quick_compiles() -> None:
    """Ask XLA for programs that compile fast rather than run fast, from now on in this process.

    For a process that compiles many programs and runs each a few times, like the play
    page (one shot at a time, for a person): XLA's least optimisation compiles the page's
    programs in about a third less time and runs them in about twice the time, which
    costs a bot's move under 0.1 s (the kernel's Warp code is not affected). The compile
    cache keys on the options, so these programs never stand in for the other commands'.
    """
    jax.config.update("jax_disable_most_optimizations", True)


def library_versions(packages: tuple[str, ...]) -> dict[str, str]:
    """Python's version and each package's (or "not installed"): what a saved result depends on."""
    out = {"python": platform.python_version()}
    for package in packages:
        try:
            out[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            out[package] = "not installed"
    return out
