"""jax-ppo over two CPU devices: replicated networks, finite losses, exact resume; against one device.

One tiny raw-mode round (8 tables, 4 moves each, an 8-unit network) in a fresh process
with two forced CPU devices (`tests/helpers/ppo_devices.py`). A one-device mesh gives the
plain single-device round's bits. Two devices do not give one device's parameters: each
device draws its own actions and shuffles its own moves, so the runs part after the
first draw; both stay within one round's Adam steps of each other.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "helpers" / "ppo_devices.py"


@pytest.mark.xdist_group("alone")  # a fresh two-device process: never beside the timed browser test
def test_a_round_splits_its_tables_over_two_devices_and_keeps_the_networks_replicated() -> None:
    done = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True, timeout=1200)
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
