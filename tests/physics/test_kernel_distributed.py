"""Several hosts: `simulate` over `jax.distributed`, two processes on this machine.

Each process holds half of a batch of 8 tables (one CPU device each); together they make
one global array, and `simulate` splits the table axis over both processes' devices
(`shard_map` on a one-axis `Mesh` of the global devices). Every table must come out
exactly as the same batch simulated in one process: a table is one thread's computation.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path
from typing import Any

import jax
import numpy as np
import pytest
from helpers.processes import free_port, run_together

import piramida.physics as ph

pytestmark = pytest.mark.slow

TABLES = 8
CAPACITY = 256

CHILD = textwrap.dedent(
    """
    import sys
    import jax
    process, port, inputs, outputs = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
    jax.distributed.initialize(coordinator_address=f"127.0.0.1:{port}", num_processes=2, process_id=process)
    import numpy as np
    from jax.sharding import Mesh, NamedSharding, PartitionSpec
    import piramida.physics as ph
    ph.runtime.use_float64()
    assert jax.process_count() == 2 and jax.device_count() == 2, jax.devices()
    data = np.load(inputs)
    half = data["r"].shape[0] // 2
    mine = slice(process * half, (process + 1) * half)
    tables = NamedSharding(Mesh(np.asarray(jax.devices()), ("tables",)), PartitionSpec("tables"))
    def global_array(name):
        return jax.make_array_from_process_local_data(tables, data[name][mine])
    balls = ph.BallState(*(global_array(k) for k in ("r", "v", "w", "s")))
    fields = ("ball", "speed", "phi", "theta", "a", "b")
    strikes = ph.Strike(**{k: global_array("strike_" + k) for k in fields})
    res = ph.simulate(ph.preset(), balls, strikes, capacity=int(data["capacity"]), validate=False)
    out = {}
    for path, leaf in jax.tree_util.tree_flatten_with_path(res)[0]:
        shards = sorted(leaf.addressable_shards, key=lambda s: s.index[0].start)
        out[jax.tree_util.keystr(path)] = np.concatenate([np.asarray(s.data) for s in shards])
    np.savez(outputs, **out)
    """
)


def test_two_processes_give_the_single_process_results(random_shots: Any, tmp_path: Path) -> None:
    balls, strikes = random_shots(23, TABLES, ph.preset())
    inputs = tmp_path / "inputs.npz"
    np.savez(
        inputs,
        r=balls.r, v=balls.v, w=balls.w, s=balls.s, capacity=CAPACITY,
        **{f"strike_{k}": np.asarray(v) for k, v in vars(strikes).items()},
    )  # fmt: skip
    port = free_port()
    commands = [
        [sys.executable, "-c", CHILD, str(k), str(port), str(inputs), str(tmp_path / f"out{k}.npz")]
        for k in range(2)
    ]
    run_together(commands, timeout=300)
    single = ph.simulate(ph.preset(), balls, strikes, capacity=CAPACITY)
    leaves = jax.tree_util.tree_flatten_with_path(single)[0]
    expected = {jax.tree_util.keystr(path): np.asarray(leaf) for path, leaf in leaves}
    half = TABLES // 2
    for k in range(2):
        got = np.load(tmp_path / f"out{k}.npz")
        assert set(got.files) == set(expected)
        for name, value in expected.items():
            mine = value[k * half : (k + 1) * half]
            np.testing.assert_array_equal(got[name], mine, err_msg=f"process {k}: {name}")
