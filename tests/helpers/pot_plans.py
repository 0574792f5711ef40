"""Recorded pot plans: `candidates`' lists on the recorded game positions, for the planner's equivalence test.

`tests/data/pot_plans.npz` holds, for every position of `tests/data/game_shots.npz`
(5,475 states of all four variants, breaks and balls in hand included), the 8 best pots
(`candidates(states, k=8)`, the default menu's pots) as the planner in XLA gave them
before `agents.pot_kernel` replaced it. Regenerating writes the current planner's lists:

    python tests/helpers/pot_plans.py
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import numpy as np

from tests.helpers import game_shots

DATA = Path(__file__).resolve().parents[1] / "data" / "pot_plans.npz"
K = 8
FIELDS = ("valid", "own", "target", "pocket", "phi", "cut", "distance", "place", "speed", "score")


def load() -> dict[str, np.ndarray]:
    """The recorded lists, each field (positions, K, ...)."""
    with np.load(DATA) as data:
        return {name: data[name] for name in FIELDS}


def save(plans: Any) -> None:
    """Write `Candidates` (fields (positions, K, ...)), compressed, empty slots zeroed."""
    from piramida.physics.files import write_atomic

    valid = np.asarray(plans.valid)
    arrays = {}
    for name in FIELDS:
        field = np.asarray(getattr(plans, name))
        arrays[name] = np.where(valid.reshape(valid.shape + (1,) * (field.ndim - 2)), field, 0)
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)
    write_atomic(DATA, buffer.getvalue())


def main() -> None:
    """Plan the recorded positions and write the lists."""
    from piramida.agents.candidates import candidates

    states, _, _ = game_shots.load()
    save(candidates(states, k=K))


if __name__ == "__main__":
    main()
