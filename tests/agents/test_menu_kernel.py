"""The menu's families planned by `agents.menu_kernel` against the menus recorded from the XLA families.

`tests/data/menus.npz` holds the default menu (64 slots) of 1,369 recorded game positions
as it was with its in-offs, doubles, kicks and safety pairs planned in XLA, and its pots
aimed in every style by XLA (`candidates.aim`). The kernels run the same float64
arithmetic in another compiler: the same shots in the same slots, aims within rounding
(1e-9 degree; 1e-5 degree for the pots, whose throw correction takes the arccos of a dot
product within an ulp of 1 near a straight shot, as `test_pot_kernel` says; measured: at
most 7.1e-8 degree), speeds within 1e-9 m/s, everything else equal.
"""

from __future__ import annotations

import numpy as np
import pytest

from piramida.agents.menu import Menu, shot_menu
from tests.helpers import menus

pytestmark = pytest.mark.xdist_group("pot-kernel")

POT_ANGLE_TOLERANCE_DEG = 1e-5


def test_the_menu_is_the_recorded_menu() -> None:
    expected = menus.load()
    got = shot_menu(menus.positions(), Menu())
    valid = expected["valid"]
    kinds = Menu().kinds()
    for kind in range(5):  # every family has shots to compare
        assert valid[:, kinds == kind].sum() > 500, kind
    np.testing.assert_array_equal(np.asarray(got.valid), valid)
    fields = {"target": got.target, "pocket": got.pocket} | {
        name: getattr(got.moves, name) for name in menus.MOVE_FIELDS
    }
    for name, value in fields.items():
        field = np.asarray(value)
        kept = np.where(valid.reshape(valid.shape + (1,) * (field.ndim - 2)), field, 0)
        tolerance = {"phi": np.where(kinds == 0, POT_ANGLE_TOLERANCE_DEG, 1e-9), "speed": 1e-9}.get(name, 0.0)
        within = np.abs(kept - expected[name]) <= np.broadcast_to(tolerance, valid.shape).reshape(
            valid.shape + (1,) * (field.ndim - 2)
        )
        assert within.all(), f"{name}: {np.argwhere(~within)[:5]}"
