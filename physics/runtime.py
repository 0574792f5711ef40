"""Runtime settings every piramida entry point shares (float64, the compile caches), and the versions.

The kernel needs float64 (a pyramid pocket's tolerance is a few milliradians, and event
times feed the referee's ordering), and the games, bots and envs above it keep their
states in float64 too. A library must not change its user's JAX: importing piramida
leaves `jax_enable_x64` as it was, and each public entry point (the envs, `simulate`,
the layouts and tables) computes inside `float64()`, a thread-local scope that JAX
keys its compiled programs on. A user's own `jit` around one must itself be traced in
that scope (JAX lowers a program at one setting): `in_float64` says so where it is not.
piramida's own processes (the command, its tests and benchmarks) call `use_float64()`
once instead. Two compilers run: Warp compiles the shot kernel (`physics.engine`) once
per machine, and XLA compiles each jitted program per batch
shape; both caches live under one project cache directory, so a second start compiles
nothing. ``PIRAMIDA_CACHE_DIR`` moves it (``<dir>/jax`` and ``<dir>/warp``);
``PIRAMIDA_CACHE_DIR=off`` turns the persistent caches off (Warp then compiles into a
temporary directory).
"""

from __future__ import annotations

import functools
import inspect
import os
import platform
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from importlib import metadata
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

import jax
import warp as wp

DEFAULT_CACHE_DIR = Path.home() / ".cache" / "piramida"
P = ParamSpec("P")
R = TypeVar("R")


def cache_dir() -> Path | None:
    """The project's cache directory, or None when the user turned the caches off."""
    configured = os.environ.get("PIRAMIDA_CACHE_DIR", "")
    if configured.lower() in {"off", "none", "0"}:
        return None
    return Path(configured) if configured else DEFAULT_CACHE_DIR


@contextmanager
def float64() -> Iterator[None]:
    """Compute in float64 within this block (this thread only), whatever the process's setting."""
    with jax.enable_x64(True):
        yield


class Float64NeededError(RuntimeError):
    """A piramida function traced inside a caller's `jit` (or `vmap`, `scan`) while float64 is off."""


def in_float64(function: Callable[P, R]) -> Callable[P, R]:
    """`function`, run inside `float64()`: how a public entry point keeps its user's dtypes.

    Called with traced arguments, inside a caller's transformation, it cannot: JAX lowers
    a whole program at one float64 setting (an `argmax` traced in float64 and lowered in
    float32 fails to compile), so the caller's transformation must run where float64 is on.
    Float64NeededError says so and how, where JAX would fail later with a dtype mismatch.
    """

    @functools.wraps(function)
    def wrapped(*args: P.args, **kwargs: P.kwargs) -> R:
        if not jax.enable_x64.value and any(
            isinstance(leaf, jax.core.Tracer) for leaf in jax.tree_util.tree_leaves((args, kwargs))
        ):
            raise Float64NeededError(
                f"{function.__qualname__} was traced inside your jit/vmap/scan while float64 is off. "
                "piramida computes in float64, and JAX compiles a program at one setting: run your "
                "transformation inside `with piramida.physics.runtime.float64():` (this thread only), "
                'or call jax.config.update("jax_enable_x64", True) first'
            )
        with float64():
            return function(*args, **kwargs)

    return wrapped


def in_float64_methods(cls: type[Any]) -> type[Any]:
    """The class with each public method it defines run inside `float64()` (an env's surface)."""
    for name, member in list(vars(cls).items()):
        if inspect.isfunction(member) and (not name.startswith("_") or name in {"__init__", "__call__"}):
            setattr(cls, name, in_float64(member))
    return cls


def use_float64() -> None:
    """Compute in float64 everywhere in this process: for piramida's own programs, not a library's user."""
    jax.config.update("jax_enable_x64", True)


@functools.cache
def configure() -> None:
    """Both persistent caches and Warp's settings, once a process (`piramida.physics` does it on import).

    Once: Warp moves its cache into a folder of its version when it starts, and a second
    setting after that would put the kernels built later beside that folder, outside the
    cache other processes read, and every later start would warn about them.
    """
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
