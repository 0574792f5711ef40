"""The menu's families planned by `agents.menu_kernel` against the menus recorded from the XLA families.

`tests/data/menus.npz` holds the default menu (64 slots) of 1,369 recorded game positions
as it was with its in-offs, doubles, kicks and safety pairs planned in XLA. The kernel
runs the same float64 arithmetic in another compiler: the same shots in the same slots,
aims within rounding (1e-9 degree), everything else equal.
"""

from __future__ import annotations

import numpy as np
import pytest

from piramida.agents.menu import Menu, shot_menu
from tests.helpers import menus

pytestmark = pytest.mark.xdist_group("pot-kernel")


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
        tolerance = 1e-9 if name in ("phi", "speed") else 0.0
        np.testing.assert_allclose(kept, expected[name], rtol=0, atol=tolerance, err_msg=name)
