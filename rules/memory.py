"""Whether a batch of tables can fit in this machine's memory, said before any array is made.

Every table of a batch (an evaluation's meeting, a training run's vector env) holds its
game state, its move and the shot's outcome as `game.play` returns them: `TABLE_BYTES`, a
floor under what a table costs (the bots' and the kernel's own work come on top; a test
measures the floor with `jax.eval_shape`). A count whose floor alone exceeds the machine's
memory is refused with the estimate, rather than failing in an allocation mid-run.
"""

from __future__ import annotations

import os

TABLE_BYTES = 3_641  # one table's state, move and outcome (`game.play`), in bytes


def machine_bytes() -> int:
    """The machine's physical memory in bytes."""
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def size(count: float) -> str:
    """Bytes in the largest unit (up to PB) that leaves a number of at least 1: `3.64 TB`."""
    for unit in ("bytes", "kB", "MB", "GB", "TB"):
        if count < 1000:
            return f"{count:.3g} {unit}"
        count /= 1000
    return f"{count:.3g} PB"


def too_many_tables(count: int) -> str | None:
    """Why `count` tables cannot fit in this machine's memory (the estimate and the memory), or None."""
    need, have = count * TABLE_BYTES, machine_bytes()
    if need <= have:
        return None
    return (
        f"{count} tables need at least {size(need)} of memory ({size(TABLE_BYTES)} a table), "
        f"more than this machine's {size(have)}"
    )
