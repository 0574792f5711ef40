"""Two processes of one run, joined on this machine: a late process at the first round.

JAX's CPU collectives (Gloo) connect a set of devices at their first collective and give
the other processes 30 s to arrive. A process that compiles the first round while the
other found it in the persistent compile cache arrives later than that; `hosts.connect`,
right after the join, makes the first collective while the processes are in step, and
then a collective waits for a late one as long as it takes.
"""

from __future__ import annotations

import sys
import textwrap

import pytest
from helpers.processes import free_port, run_together

pytestmark = pytest.mark.slow

LATE_S = 40  # process 1's delay before the round's first collective: past Gloo's 30 s

CHILD = textwrap.dedent(
    f"""
    import sys, time
    import jax
    import numpy as np
    from jax.sharding import Mesh
    from piramida.training import hosts
    process, port = int(sys.argv[1]), sys.argv[2]
    hosts.join(f"127.0.0.1:{{port}}", 2, process)
    hosts.connect(Mesh(np.asarray(jax.devices()), ("tables",)))
    if process == 1:
        time.sleep({LATE_S})  # as if compiling what process 0 read from its cache
    print("gathered", hosts.gathered(np.array([process])).tolist())
    """
)


def test_a_process_far_behind_at_the_first_round_is_waited_for() -> None:
    port = free_port()
    logs = run_together([[sys.executable, "-c", CHILD, str(k), str(port)] for k in range(2)], timeout=300)
    assert all("gathered [0, 1]" in log for log in logs), logs
