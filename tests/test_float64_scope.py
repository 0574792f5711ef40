"""A user's JAX keeps its dtypes: importing piramida and using its envs flips no global setting.

The envs, `simulate`, the layouts and the tables compute in float64 inside a thread-local
scope (`physics.runtime.float64`). A user's process (float32, JAX's default) must get the
same bits from them as a process that turned float64 on everywhere, and keep float32 as its
own default; the pure-JAX env, traced inside the user's `jit` with float64 off, must say
how to fix that rather than fail inside XLA.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

SCRIPT = Path(__file__).resolve().parent / "helpers" / "float64_user.py"


def run(*args: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, check=False, timeout=900
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


@pytest.fixture(scope="module")
def runs() -> tuple[dict[str, Any], dict[str, Any]]:
    return run(), run("global")


def test_a_users_process_keeps_float32_as_its_default(runs: Any) -> None:
    user, everywhere = runs
    assert (user["x64_after"], user["default_float"]) == (False, "float32")
    assert (everywhere["x64_after"], everywhere["default_float"]) == (True, "float64")


def test_the_entry_points_give_the_bits_of_a_float64_process(runs: Any) -> None:
    user, everywhere = runs
    for entry in ("gym", "vector", "jax", "simulate"):
        assert user[entry] == everywhere[entry], entry


def test_the_pure_jax_env_returns_float32_and_int32_in_either_process(runs: Any) -> None:
    user, everywhere = runs
    assert user["jax_dtypes"] == everywhere["jax_dtypes"] == ["float32", "float32", "int32"]


def test_the_pure_jax_env_traced_without_float64_names_the_fix(runs: Any) -> None:
    user, everywhere = runs
    assert user["traced_without_float64"] == "Float64NeededError"
    assert everywhere["traced_without_float64"] == "ran"
