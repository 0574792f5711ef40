"""piramida.physics: a batched, event-driven billiards kernel (one Warp kernel, called from JAX).

Importing it turns on the persistent compile caches, JAX's and Warp's; it leaves the
process's float64 setting alone (its entry points compute in float64 inside, `runtime`).
"""

from piramida.physics import runtime

runtime.configure()

from piramida.physics.events import KIND_NAMES, EventLog, to_records  # noqa: E402
from piramida.physics.kernel import ShotResult, Snapshot, simulate  # noqa: E402
from piramida.physics.layouts import at_rest, random_layout, triangle  # noqa: E402
from piramida.physics.motion import BallState  # noqa: E402
from piramida.physics.params import (  # noqa: E402
    POOLTOOL_MODELS,
    POOLTOOL_PARAMS,
    PYRAMID_PARAMS,
    Models,
    PhysicsParams,
)
from piramida.physics.strike import Strike  # noqa: E402
from piramida.physics.table import (  # noqa: E402
    CUSHION_NAMES,
    POCKET_NAMES,
    Table,
    TableSpec,
    pocket_table,
    preset,
    rectangle,
)

__all__ = [
    "CUSHION_NAMES",
    "KIND_NAMES",
    "POCKET_NAMES",
    "POOLTOOL_MODELS",
    "POOLTOOL_PARAMS",
    "PYRAMID_PARAMS",
    "BallState",
    "EventLog",
    "Models",
    "PhysicsParams",
    "ShotResult",
    "Snapshot",
    "Strike",
    "Table",
    "TableSpec",
    "at_rest",
    "pocket_table",
    "preset",
    "random_layout",
    "rectangle",
    "simulate",
    "to_records",
    "triangle",
]
