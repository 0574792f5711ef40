"""Several processes training one jax-ppo run: joined by `jax.distributed`, one of them writing.

A run over hosts is one program: every process calls the same jitted round on a mesh of
every process's devices (`ppo.table_mesh`), holds its share of the tables, and takes part
in each collective. Host-side work needs the whole value, so the figures, the losses and
a checkpoint's runner are gathered from every process (`gathered`, a collective all of them
make); process 0 alone writes the logs, the checkpoints and the policy file (`writes`).
The others read what it wrote (a resumed run's checkpoint, `self`'s snapshots), so the
output folder must be one they all see, or the checkpoint given by path. Their first
collective comes right after they join (`connect`), while none is behind.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import multihost_utils
from jax.sharding import Mesh, NamedSharding, PartitionSpec

from piramida.training.config import ConfigError

AUTO = "auto"  # the coordinator JAX finds itself (SLURM, Open MPI, a TPU pod, Kubernetes...)


def join(coordinator: str | None, processes: int | None, process_id: int | None) -> None:
    """Join the run's other processes (`jax.distributed.initialize`); nothing to do without a coordinator.

    `coordinator`: `HOST:PORT` of process 0's coordination service (every process names the
    same), or `auto` for JAX's detection of a cluster manager, which also finds the count
    and the id where they are not given. ConfigError names the flag that is wrong, or says
    the join failed (the coordinator unreachable, JAX already started).
    """
    if coordinator is None:
        if processes is not None or process_id is not None:
            raise ConfigError("coordinator: --processes and --process-id join a run through --coordinator")
        return
    if coordinator != AUTO:
        host, _, port = coordinator.rpartition(":")
        if not host or not port.isdigit():
            raise ConfigError(f"coordinator: expected HOST:PORT or {AUTO}, got {coordinator!r}")
        if processes is None or process_id is None:
            raise ConfigError("coordinator: a HOST:PORT coordinator needs --processes and --process-id")
    if processes is not None and processes < 1:
        raise ConfigError(f"processes: expected a count >= 1, got {processes}")
    if process_id is not None and not 0 <= process_id < (processes or process_id + 1):
        raise ConfigError(f"process_id: expected 0 to {(processes or 1) - 1}, got {process_id}")
    try:
        jax.distributed.initialize(
            coordinator_address=None if coordinator == AUTO else coordinator,
            num_processes=processes,
            process_id=process_id,
        )
    except (RuntimeError, ValueError) as error:
        raise ConfigError(f"coordinator: could not join the run through {coordinator} ({error})") from error


def connect(mesh: Mesh) -> None:
    """Make the run's first collective over `mesh` now, while its processes are still in step.

    On the CPU, JAX's collectives (Gloo) connect a set of devices at their first collective
    and give the other processes 30 s to arrive there; later collectives wait as long as it
    takes. At the first round one process can be further behind than that: it compiles the
    round while another found it in the persistent compile cache (only process 0 writes
    entries, and the others' keys differ). Right after `join`, a meeting of every process,
    none is behind.
    """
    if jax.process_count() == 1:
        return
    (axis,) = mesh.axis_names
    ones = jax.make_array_from_process_local_data(
        NamedSharding(mesh, PartitionSpec(axis)), np.ones(len(mesh.local_devices), np.int32)
    )
    count = jax.jit(jnp.sum, out_shardings=NamedSharding(mesh, PartitionSpec()))(ones)
    jax.block_until_ready(count)


def writes() -> bool:
    """Whether this process writes the run's files: process 0 of a joined run, or a lone process."""
    return jax.process_index() == 0


def gathered(tree: Any) -> Any:
    """`tree`'s arrays whole, as numpy, in every process (a collective where the run spans processes)."""
    if jax.process_count() == 1:
        return jax.device_get(tree)
    return jax.tree_util.tree_map(np.asarray, multihost_utils.process_allgather(tree, tiled=True))


def barrier(name: str) -> None:
    """Wait until every process of the run reaches `name` (a file process 0 wrote is then complete)."""
    if jax.process_count() > 1:
        multihost_utils.sync_global_devices(name)
