"""`check_balls`: a layout is valid exactly where the kernel sees no cushion or jaw overlap.

Also `check_table` (no cushion piece of zero length) and the messages of a hostile value.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pytest

import piramida.physics as ph
from piramida.physics.engine.kiss import MAX_SHIFT_M
from piramida.physics.kernel import contact_distance
from piramida.physics.motion import ABSENT, POCKETED, STATIONARY
from piramida.physics.table import MIDDLE_RIGHT, PYRAMID_SPEC, pocket_table, rectangle
from piramida.physics.validate import InputError, check_balls, check_strikes, check_table

PARAMS = ph.PYRAMID_PARAMS
PYRAMID = ph.preset("pyramid-12ft")
W, L = float(PYRAMID.width), float(PYRAMID.length)
REACH = float(contact_distance(PYRAMID, PARAMS, ph.Models()))


def layout(*tables: Sequence[tuple[int, tuple[float, float]]]) -> ph.BallState:
    """Stationary balls `(id, (x, y))` on each of B tables; every other ball absent."""
    r = np.zeros((len(tables), 16, 2))
    s = np.full((len(tables), 16), ABSENT, np.int32)
    for k, balls in enumerate(tables):
        for ball, (x, y) in balls:
            r[k, ball] = (x, y)
            s[k, ball] = STATIONARY
    return ph.BallState(r=r, v=np.zeros((len(tables), 16, 2)), w=np.zeros((len(tables), 16, 3)), s=s)


def check(table: ph.Table, *balls: tuple[int, tuple[float, float]], reach: float = REACH) -> None:
    check_balls(table, layout(balls), PARAMS.R, reach)


def nose(pocket: int, which: int, table: ph.Table = PYRAMID) -> tuple[np.ndarray, float]:
    """Centre and radius of one of a pocket's two jaw noses."""
    (index,) = np.flatnonzero(np.asarray(table.arc_pocket) == pocket)[[which]]
    return np.asarray(table.arc_centre)[index], float(np.asarray(table.arc_radius)[index])


@pytest.mark.parametrize(
    "centre",
    [
        (1.74253, 1.74815),  # 0.17 mm past the nose line x = W - reach, in the right middle mouth
        (1.75219, 0.02828),  # 9.8 mm past it, in the mouth of the (W, 0) corner pocket
    ],
)
def test_balls_the_kernel_left_in_a_pocket_mouth_are_valid(centre: tuple[float, float]) -> None:
    assert centre[0] > W - REACH
    check(PYRAMID, (3, centre))


def test_balls_a_shot_left_inside_each_other_by_the_kernels_slack_are_valid_and_more_is_named() -> None:
    # A break once ended with balls 1 and 12 0.3 um inside each other (the kernel's kiss step
    # leaves up to MAX_SHIFT_M at rest): the next shot must start from there.
    two_r = 2 * PARAMS.R
    check(PYRAMID, (1, (0.8875, 2.78)), (12, (0.8875 - two_r + 3e-7, 2.78)))
    with pytest.raises(InputError, match=r"^balls 1 and 12 overlap by 0\.006 mm"):
        check(PYRAMID, (1, (0.8875, 2.78)), (12, (0.8875 - two_r + MAX_SHIFT_M + 1e-6, 2.78)))


def test_frozen_balls_are_valid() -> None:
    check(PYRAMID, (0, (REACH, 1.0)), (1, (W - REACH, 2.5)), (2, (0.9, REACH)), (3, (0.9, L - REACH)))
    centre, radius = nose(MIDDLE_RIGHT, 0)
    into_mouth = np.array([-1.0, 1.0]) / math.sqrt(2)
    x, y = centre + (radius + REACH) * into_mouth
    check(PYRAMID, (4, (float(x), float(y))))


def test_a_ball_overlapping_a_cushion_by_a_millimetre_is_named() -> None:
    with pytest.raises(
        InputError,
        match=r"^ball 7: centre \(0\.0316, 1\.0000\) is off the cloth: "
        r"it overlaps the left-front cushion by 1\.000 mm",
    ):
        check(PYRAMID, (0, (0.5, 1.0)), (7, (REACH - 1e-3, 1.0)))
    with pytest.raises(InputError, match=r"^ball 2: .* overlaps the back cushion by 1\.000 mm"):
        check(PYRAMID, (2, (0.9, L - REACH + 1e-3)))


def test_a_ball_overlapping_a_jaw_nose_by_a_millimetre_is_named() -> None:
    centre, radius = nose(MIDDLE_RIGHT, 0)
    x, y = centre + (radius + REACH - 1e-3) * np.array([-1.0, 0.0])
    with pytest.raises(
        InputError, match=r"^ball 5: .* overlaps a jaw nose of the middle-right pocket by 1\.000 mm"
    ):
        check(PYRAMID, (5, (float(x), float(y))))


def test_a_ball_overlapping_a_jaw_face_is_named() -> None:
    # On the pooltool table, where the capture circle lies deep enough to stand beside a face.
    table = ph.preset("pooltool-7ft")
    reach = float(contact_distance(table, PARAMS, ph.Models()))
    a, b = (
        np.asarray(x)[np.asarray(table.line_pocket) == MIDDLE_RIGHT][0] for x in (table.line_a, table.line_b)
    )
    along = (b - a) / np.linalg.norm(b - a)
    inward = np.array([-along[1], along[0]])
    spot = a + 0.8 * (b - a)  # near the nose, short of the capture circle
    if inward[1] < 0:  # towards the pocket's centre line
        inward = -inward
    x, y = spot + (reach - 1e-3) * inward
    with pytest.raises(
        InputError, match=r"^ball 9: .* overlaps a jaw of the middle-right pocket by 1\.000 mm"
    ):
        check(table, (9, (float(x), float(y))), reach=reach)
    x, y = spot + reach * inward
    check(table, (9, (float(x), float(y))), reach=reach)  # frozen to the face


def test_a_centre_past_the_rail_line_is_valid_only_in_a_pocket_mouth() -> None:
    table = ph.preset("pooltool-7ft")
    reach = float(contact_distance(table, PARAMS, ph.Models()))
    w, half = float(table.width), float(table.length) / 2
    check(table, (1, (w + 0.002, half)), reach=reach)  # between the jaws, short of the capture circle
    with pytest.raises(
        InputError,
        match=r"^ball 1: centre \(0\.9926, 0\.5000\) is off the cloth: a centre must be on the bed",
    ):
        check(table, (1, (w + 0.002, 0.5)), reach=reach)


def test_a_ball_in_or_beyond_the_capture_circle_or_off_the_table_is_refused() -> None:
    with pytest.raises(InputError, match=r"^ball 4: .* inside the capture circle of the middle-right pocket"):
        check(PYRAMID, (4, (W + 0.003, L / 2)))
    with pytest.raises(InputError, match=r"^ball 4: .* inside the capture circle of the front-right pocket"):
        check(PYRAMID, (4, (W - 0.002, 0.002)))
    with pytest.raises(
        InputError,
        match=r"^ball 6: centre \(1\.8600, 1\.7750\) is off the cloth: a centre must be on the bed",
    ):
        check(PYRAMID, (6, (W + 0.085, L / 2)))  # past the capture circle, behind the pocket
    with pytest.raises(InputError, match=r"^ball 6: .* must be on the bed"):
        check(PYRAMID, (6, (-1.0, 1.0)))
    with pytest.raises(InputError, match=r"^ball 6: .* must be on the bed"):
        check(PYRAMID, (6, (0.9, L + 0.3)))


def test_batched_errors_name_the_table_and_skip_absent_and_pocketed_balls() -> None:
    balls = layout([(0, (0.5, 1.0))], [(0, (0.5, 1.0)), (3, (0.9, -0.5))])
    with pytest.raises(InputError, match=r"^table 1: ball 3: centre \(0\.9000, -0\.5000\)"):
        check_balls(PYRAMID, balls, PARAMS.R, REACH)
    s = np.asarray(balls.s).copy()
    s[1, 3] = POCKETED
    r = np.asarray(balls.r).copy()
    r[0, 8] = np.nan  # an absent ball may hold anything
    check_balls(PYRAMID, ph.BallState(r=r, v=balls.v, w=balls.w, s=s), PARAMS.R, REACH)


def test_on_the_rectangle_the_bound_is_the_nose_lines_less_the_reach() -> None:
    table = rectangle(W, L)
    rng = np.random.default_rng(3)
    points = np.concatenate(
        [
            rng.uniform([-0.1, -0.1], [W + 0.1, L + 0.1], (400, 2)),
            [[REACH, 1.0], [W - REACH, 2.0], [REACH, REACH], [0.5, L - REACH], [REACH - 1e-9, 1.0]],
        ]
    )
    for x, y in points:
        expected = min(x - REACH, W - REACH - x, y - REACH, L - REACH - y) >= -1e-12
        if expected:
            check(table, (0, (float(x), float(y))))
        else:
            with pytest.raises(InputError, match=r"^ball 0: .* is off the cloth"):
                check(table, (0, (float(x), float(y))))


def test_a_table_whose_jaw_face_has_no_length_is_refused() -> None:
    # Square jaw faces (angle 0) as wide as the rail rubber: each middle-pocket face has
    # both ends at one point, and the kernel would divide by its zero length.
    check_table(PYRAMID)
    check_table(rectangle(W, L))
    flat = PYRAMID_SPEC.replace(side_pocket_angle=0.0, cushion_width=0.03, side_jaw_radius=0.03)
    with pytest.raises(InputError, match=r"^table: a jaw of the middle-left pocket is 0\.000 mm long"):
        check_table(pocket_table(flat))


def test_a_hostile_value_is_named_in_a_short_message() -> None:
    with pytest.raises(
        InputError, match=r"^ball 0: centre \(1\.0000e\+300, 1\.0000\) is off the cloth"
    ) as err:
        check(PYRAMID, (0, (1e300, 1.0)))
    assert len(str(err.value)) < 300
    strike = ph.Strike(ball=np.zeros(1, np.int32), speed=np.ones(1), phi=np.zeros(1), a=np.full(1, 1e300))
    with pytest.raises(InputError, match=r"^strike\.a/b: tip offset 1e\+300 R is beyond 0\.6 R"):
        check_strikes(strike, layout([(0, (0.5, 1.0))]))
