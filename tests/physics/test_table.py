"""Table geometry, the G2/G10 markings, and the runtime settings."""

from __future__ import annotations

import math
import os
import subprocess
import sys
import tempfile

import jax.numpy as jnp
import numpy as np
import pytest
import warp

import piramida.physics as ph
from piramida.physics import markings
from piramida.physics.kernel import contact_distance
from piramida.physics.table import (
    MIDDLE_LEFT,
    POOLTOOL_POCKET_SPEC,
    PYRAMID_SPEC,
    pocket_table,
)


def nose_gaps(table: ph.Table) -> dict[int, float]:
    """Narrowest gap between the two jaw noses of each pocket, from the built arrays."""
    centres, radii, pockets = (np.asarray(x) for x in (table.arc_centre, table.arc_radius, table.arc_pocket))
    gaps = {}
    for pocket in range(6):
        (a, b) = np.flatnonzero(pockets == pocket)
        gaps[pocket] = float(np.linalg.norm(centres[a] - centres[b]) - radii[a] - radii[b])
    return gaps


def test_pyramid_mouths_are_the_rules_figures() -> None:
    # docs/rules/specification.md Part V: corner opening 72-73 mm, middle 82-83 mm (S14); we build 73 and 83.
    gaps = nose_gaps(ph.preset("pyramid-12ft"))
    for pocket, gap in gaps.items():
        expected = 0.083 if pocket in (MIDDLE_LEFT, MIDDLE_LEFT + 1) else 0.073
        assert gap == pytest.approx(expected, abs=1e-12), pocket
    assert PYRAMID_SPEC.corner_mouth() == pytest.approx(0.073)
    assert PYRAMID_SPEC.side_mouth() == pytest.approx(0.083)


def test_pyramid_playing_area_and_ball() -> None:
    table = ph.preset()
    assert float(table.width) == 1.775 and float(table.length) == 3.55  # S16
    assert ph.PYRAMID_PARAMS.R == 0.034 and ph.PYRAMID_PARAMS.m == 0.285  # S15, S14


def test_nose_contact_narrows_the_ball_at_the_nose_height() -> None:
    # sin(theta) = h/R - 1 with h = 0.64 D: the ball meets the nose at 0.96 R from its centre.
    table = ph.preset()
    nose = float(contact_distance(table, ph.PYRAMID_PARAMS, ph.Models(contact="nose")))
    equator = float(contact_distance(table, ph.PYRAMID_PARAMS, ph.Models(contact="equator")))
    assert nose == pytest.approx(0.034 * math.sqrt(1 - 0.28**2))
    assert nose / equator == pytest.approx(0.96)


def test_pooltool_table_is_built_like_pooltool() -> None:
    # Pocket centres of pooltool 0.6's default PocketTableSpecs (benchmarks/POOLTOOL_PHYSICS.md 6).
    table = pocket_table(POOLTOOL_POCKET_SPEC)
    expected = [
        (-0.029486, -0.029486),
        (1.020086, -0.029486),
        (-0.0685, 0.9906),
        (1.0591, 0.9906),
        (-0.029486, 2.010686),
        (1.020086, 2.010686),
    ]
    np.testing.assert_allclose(np.asarray(table.pocket_centre), expected, atol=1e-6)
    assert np.asarray(table.line_a).shape == (18, 2)
    assert np.asarray(table.arc_centre).shape == (12, 2)


def test_every_jaw_and_nose_belongs_to_the_nearest_pocket() -> None:
    table = ph.preset()
    centres = np.asarray(table.pocket_centre)
    mids = (np.asarray(table.line_a) + np.asarray(table.line_b)) / 2
    for mid, pocket in zip(mids, np.asarray(table.line_pocket), strict=True):
        if pocket >= 0:
            assert np.argmin(np.linalg.norm(centres - mid, axis=1)) == pocket
    for centre, pocket in zip(np.asarray(table.arc_centre), np.asarray(table.arc_pocket), strict=True):
        assert np.argmin(np.linalg.norm(centres - centre, axis=1)) == pocket


def test_rectangle_has_six_cushion_pieces_and_nothing_to_fall_into() -> None:
    table = ph.rectangle(2.0, 4.0)
    assert list(np.asarray(table.line_cushion)) == list(range(6))
    assert not table.has_pockets
    assert ph.preset().has_pockets


def test_g2_spots_and_lines() -> None:
    w, ln = 1.775, 3.55
    np.testing.assert_allclose(markings.centre_spot(w, ln), [w / 2, ln / 2])  # G2.1(1)
    assert float(markings.centre_line_y(ln)) == ln / 2  # G2.1(2)
    np.testing.assert_allclose(markings.front_spot(w, ln), [w / 2, 0.8875])  # G2.1(3)
    assert float(markings.house_line_y(ln)) == 0.8875  # G2.1(4)
    np.testing.assert_allclose(markings.back_spot(w, ln), [w / 2, 3 * 0.8875])  # G2.1(5)
    start, end = markings.spotting_line(w, ln)  # G2.1(6)
    np.testing.assert_allclose(start, [w / 2, 2.6625])
    np.testing.assert_allclose(end, [w / 2, ln])


def test_g10_a_centre_on_the_house_line_is_not_in_the_house() -> None:
    ln = 3.55
    inside = markings.in_house(jnp.array([[0.5, 0.8874], [0.5, 0.8875], [0.5, 0.8876]]), ln)
    assert list(np.asarray(inside)) == [True, False, False]


def test_centre_line_side_has_an_on_the_line_band() -> None:
    ln = 3.55
    sides = markings.centre_line_side(jnp.array([[0.5, 1.7], [0.5, 1.775 + 5e-5], [0.5, 1.9]]), ln)
    assert list(np.asarray(sides)) == [-1, 0, 1]


@pytest.mark.parametrize("setting", ["off", "custom"])
def test_compilation_caches_follow_piramida_cache_dir(setting: str, tmp_path: object) -> None:
    directory = "off" if setting == "off" else str(tmp_path)
    code = (
        "import jax, warp, piramida.physics; "
        "print(jax.config.jax_enable_x64, jax.config.jax_compilation_cache_dir, warp.config.kernel_cache_dir)"
        "; warp.init(); piramida.physics.runtime.configure(); print(warp.config.kernel_cache_dir)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, "PIRAMIDA_CACHE_DIR": directory},
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert out[0] == "False"  # importing piramida leaves the user's float64 setting alone
    assert out[1] == ("None" if setting == "off" else f"{directory}/jax")
    # Warp's kernel cache sits beside JAX's, or in a temporary directory when caching is off.
    assert out[2] == f"{directory}/warp" if setting != "off" else out[2].startswith(tempfile.gettempdir())
    # Warp starts in a folder of its version there; configuring again (the play server did)
    # once moved the kernels built after it out of that folder.
    assert out[3] == os.path.join(out[2], warp.config.version)
