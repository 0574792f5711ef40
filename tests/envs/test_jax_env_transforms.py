"""The pure-JAX env under `shard_map` over two CPU devices and under `vmap`: the bits of plain calls.

Each device (each vmapped group) steps its own tables with its own key; the transformed
step must give exactly what stepping each group alone gives. Run in a fresh process with
two forced CPU devices (`tests/helpers/jax_env_transforms.py`).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "helpers" / "jax_env_transforms.py"


def test_shard_map_and_vmap_step_each_group_as_a_plain_call_would() -> None:
    done = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["sharded_shape"] == [4, 141] and result["vmap_shape"] == [2, 2, 141]
    assert result["shard_map_same"] and result["vmap_same"]
