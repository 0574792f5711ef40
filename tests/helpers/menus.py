"""Recorded shot menus: `shot_menu` on recorded game positions, for the menu kernel's equivalence test.

`tests/data/menus.npz` holds the default menu (`agents.menu.Menu()`, 64 slots: pots in
every style, in-offs, doubles, kicks, safeties, or the break variants) of every fourth
position of `tests/data/game_shots.npz` (1,369 states of all four variants), as the menu
with its families planned in XLA gave it, before `agents.menu_kernel` replaced them.
Slots that do not apply are zeroed. Regenerating writes the current menu's:

    python tests/helpers/menus.py
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import numpy as np

from tests.helpers import game_shots

DATA = Path(__file__).resolve().parents[1] / "data" / "menus.npz"
EVERY = 4
MOVE_FIELDS = (
    "ball",
    "speed",
    "phi",
    "theta",
    "a",
    "b",
    "place",
    "call_ball",
    "call_pocket",
    "option",
    "take",
)


def positions() -> Any:
    """The recorded positions the menus are of: every `EVERY`th recorded game state."""
    import jax

    states, _, _ = game_shots.load()
    return jax.tree_util.tree_map(lambda x: x[::EVERY], states)


def load() -> dict[str, np.ndarray]:
    """The recorded menus: `valid`, `target`, `pocket` and each move field, (positions, slots, ...)."""
    with np.load(DATA) as data:
        return {name: data[name] for name in data.files}


def save(menu: Any) -> None:
    """Write a `menu.Family` of fields (positions, slots, ...), compressed, empty slots zeroed."""
    from piramida.physics.files import write_atomic

    valid = np.asarray(menu.valid)
    fields = {"target": menu.target, "pocket": menu.pocket}
    fields.update({name: getattr(menu.moves, name) for name in MOVE_FIELDS})
    arrays = {"valid": valid}
    for name, value in fields.items():
        field = np.asarray(value)
        arrays[name] = np.where(valid.reshape(valid.shape + (1,) * (field.ndim - 2)), field, 0)
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)
    write_atomic(DATA, buffer.getvalue())


def main() -> None:
    """Plan the recorded positions' menus and write them."""
    from piramida.agents.menu import Menu, shot_menu

    save(shot_menu(positions(), Menu()))


if __name__ == "__main__":
    main()
