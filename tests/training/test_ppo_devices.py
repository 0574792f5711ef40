"""jax-ppo over two CPU devices, and over two processes: replicated networks, exact resume.

One tiny raw-mode round (8 tables, 4 moves each, an 8-unit network) in a fresh process
with two forced CPU devices (`tests/helpers/ppo_devices.py`). A one-device mesh gives the
plain single-device round's bits. Two devices do not give one device's parameters: each
device draws its own actions and shuffles its own moves, so the runs part after the
first draw; both stay within one round's Adam steps of each other. Two processes of one
CPU device each, joined by `jax.distributed` on 127.0.0.1 (`piramida train
--coordinator`), resume that two-device run half-way and end with its final bits; only
process 0 writes.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from helpers.processes import free_port, run_together

from piramida.training import checkpoint

SCRIPT = Path(__file__).resolve().parents[1] / "helpers" / "ppo_devices.py"


def two_processes_resume(folder: Path) -> list[str]:
    """`piramida train` in two joined processes, resuming `whole/`'s first checkpoint; their output."""
    port = free_port()
    first = sorted((folder / "whole" / "checkpoints").glob("step-*.zip"))[0]

    def command(process: int) -> list[str]:
        return [
            sys.executable, "-m", "piramida.cli.main", "train", "--config", str(folder / "tiny.toml"),
            "--out", str(folder / f"process{process}"), "--resume", str(first), "--no-progress",
            "--device", "cpu", "--coordinator", f"127.0.0.1:{port}", "--processes", "2",
            "--process-id", str(process),
        ]  # fmt: skip

    return run_together([command(k) for k in range(2)], timeout=600)


@pytest.mark.xdist_group("ppo-devices")  # benchmarks/train_devices.py's smoke test times this round
def test_a_round_splits_its_tables_over_two_devices_and_keeps_the_networks_replicated(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), str(tmp_path)], capture_output=True, text=True, timeout=1200
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["devices"] == [2, 1] and result["env_sharded"] == 2
    assert result["params_replicated"] and result["losses_finite"]
    assert result["one_device_same_as_plain"]
    assert not result["two_devices_same_as_one"]
    assert 0 < result["two_vs_one_largest"] <= 2 * result["one_round_largest"] + 1e-6
    assert result["refusal"] == "tables: 3 tables do not split over 2 devices (use a multiple of 2)"
    assert "trained 64 learner moves on 2 devices in" in result["summary"]
    assert result["resumed_same"]  # parameters, optimizer state, games and keys

    logs = two_processes_resume(tmp_path)
    assert "trained 32 learner moves on 2 devices" in logs[0] and "final checkpoint" in logs[0]
    assert "process 0 wrote the checkpoints" in logs[1]
    assert not (tmp_path / "process1").exists()  # process 1 writes nothing
    whole, joined = (
        dict(checkpoint.read(tmp_path / run / "final.zip").state["runner"]) for run in ("whole", "process0")
    )
    assert whole.keys() == joined.keys()
    assert all(np.array_equal(whole[name], joined[name]) for name in whole), "two processes != two devices"
