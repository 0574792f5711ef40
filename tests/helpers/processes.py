"""Tests that join several processes with `jax.distributed` on this machine."""

from __future__ import annotations

import os
import socket
import subprocess

# Each child on the CPU alone, with one device, whatever else the machine has.
ONE_CPU_DEVICE = {
    **os.environ,
    "JAX_PLATFORMS": "cpu",
    "XLA_FLAGS": "--xla_force_host_platform_device_count=1",
}


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now: the coordinator's."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def run_together(commands: list[list[str]], timeout: float) -> list[str]:
    """Every command started at once (`ONE_CPU_DEVICE`), all awaited; their output (stderr in it).

    Fails with every process's exit status and last output where any fails: one that dies
    at `jax.distributed`'s shutdown barrier names another as late, whose log says why.
    """
    children = [
        subprocess.Popen(
            command, env=ONE_CPU_DEVICE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        for command in commands
    ]
    logs = [child.communicate(timeout=timeout)[0] for child in children]
    assert all(child.returncode == 0 for child in children), "\n\n".join(
        f"process {k} (exit status {child.returncode}):\n{log[-3000:]}"
        for k, (child, log) in enumerate(zip(children, logs, strict=True))
    )
    return logs
