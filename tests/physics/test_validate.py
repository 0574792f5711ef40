"""`check_balls`: a layout is valid exactly where the kernel sees no cushion or jaw overlap.

Also `check_table` (no cushion piece of zero length), the messages of a hostile value, and
`simulate`'s own checks: the JSON contract's ranges, in its words.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

import piramida.physics as ph
from piramida.physics import contract
from piramida.physics.engine.kiss import MAX_SHIFT_M
from piramida.physics.fields import FieldError
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
    with pytest.raises(InputError, match=r"^strike\.a: expected a number in \[-0\.6, 0\.6\] R, got 1e\+300$"):
        check_strikes(strike, layout([(0, (0.5, 1.0))]))
    strike = ph.Strike(
        ball=np.zeros(1, np.int32), speed=np.ones(1), phi=np.zeros(1), a=np.full(1, 0.5), b=np.full(1, 0.5)
    )
    with pytest.raises(InputError, match=r"^strike\.a/b: tip offset 0\.707 R is beyond 0\.6 R"):
        check_strikes(strike, layout([(0, (0.5, 1.0))]))


# --- simulate's own checks: the JSON contract's ranges, in its words ---------------------------------

# One request of the contract, every number it may carry given: ball 0 struck, ball 1 moving.
REQUEST: dict[str, Any] = {
    "table": "pyramid-12ft",
    "params": {name: getattr(PARAMS, name) for name in contract.PARAM_NAMES},
    "balls": [
        {"id": 0, "x": 0.8875, "y": 1.0},
        {"id": 1, "x": 0.4, "y": 2.5, "v": [0.5, -0.2], "w": [1.0, -2.0, 3.0]},
    ],
    "strike": {"ball": 0, "speed": 2.0, "phi": 90.0, "theta": 5.0, "a": 0.1, "b": -0.2},
}
NUMBERS = (
    [("params", name) for name in contract.PARAM_NAMES]
    + [("balls", 1, name) for name in ("x", "y")]
    + [("balls", 1, name, axis) for name, size in (("v", 2), ("w", 3)) for axis in range(size)]
    + [("strike", name) for name in contract.STRIKE_FIELDS[1:]]
)
HOSTILE = st.sampled_from(
    [0.0, -0.0, 5e-324, 1e-300, -1e-300, 1e6, -1e6, 1e300, -1e300, math.inf, -math.inf, math.nan]
)


def api_inputs(request: dict[str, Any]) -> tuple[ph.PhysicsParams, ph.BallState, ph.Strike]:
    """The request's params, balls and strike as a Python caller builds them: no JSON reader on the way."""
    balls = layout([(ball["id"], (ball["x"], ball["y"])) for ball in request["balls"]])
    for ball in request["balls"]:
        balls.v[0, ball["id"]] = ball.get("v", (0.0, 0.0))
        balls.w[0, ball["id"]] = ball.get("w", (0.0, 0.0, 0.0))
    strike = ph.Strike(**{name: np.asarray([value]) for name, value in request["strike"].items()})
    return PARAMS.replace(**request["params"]), balls, strike


def first_problem(check: Any) -> str | None:
    try:
        check()
    except (InputError, FieldError) as err:
        return str(err)
    return None


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (("balls", 1, "w", 2, 1e300), "balls[1].w[2]: expected a number in [-1000, 1000] rad/s, got 1e+300"),
        (("balls", 1, "v", 0, 1e6), "balls[1].v[0]: expected a number in [-30, 30] m/s, got 1000000.0"),
        (("params", "R", 0.0), "params.R: expected a number in [0.02, 0.05] m, got 0.0"),
        (("params", "g", math.nan), "params.g: expected a finite number, got nan"),
        (("params", "u_r", -0.5), "params.u_r: expected a number in [0.001, 0.1], got -0.5"),
        (("strike", "phi", 1e9), "strike.phi: expected a number in [-360, 360] degrees, got 1000000000.0"),
    ],
)
def test_simulate_refuses_what_the_json_contract_refuses_in_its_words(
    change: tuple[Any, ...], words: str
) -> None:
    # A spin of 1e300 gave NaN positions, a speed of 1e6 m/s meaningless ones, R = 0 or g = NaN
    # ignored the strike, u_r = -0.5 ran: no range was checked by the Python API.
    request = copy.deepcopy(REQUEST)
    *path, key, value = change
    parent: Any = request
    for step in path:
        parent = parent[step]
    parent[key] = value
    params, balls, strike = api_inputs(request)
    with pytest.raises(InputError) as err:
        ph.simulate(PYRAMID, balls, strike, params)
    assert str(err.value) == words == first_problem(lambda: contract.parse_request(request))


@pytest.mark.parametrize("code", [99, -5])
def test_simulate_refuses_a_state_code_that_is_not_motions(code: int) -> None:
    # State codes 99 and -5 were accepted, and the strike then did nothing.
    params, balls, strike = api_inputs(REQUEST)
    balls.s[0, 1] = code
    with pytest.raises(InputError, match=rf"^balls\[1\]\.s: expected a state code 0\.\.5 .*, got {code}$"):
        ph.simulate(PYRAMID, balls, strike, params)


@pytest.mark.parametrize("validate", [True, False])
@pytest.mark.parametrize("capacity", [0, -1, 1, 100_001, 2.5])
def test_a_capacity_the_kernel_cannot_take_is_refused_before_it_runs(capacity: Any, validate: bool) -> None:
    # A capacity of 0 failed inside the kernel's FFI call (JaxRuntimeError), -1 in MLIR (MLIRError).
    params, balls, strike = api_inputs(REQUEST)
    with pytest.raises(InputError, match=rf"^capacity: expected an integer 2\.\.100000, got {capacity}$"):
        ph.simulate(PYRAMID, balls, strike, params, capacity=capacity, validate=validate)


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_simulate_and_the_json_contract_accept_the_same_numbers_and_name_the_same_problem(
    data: st.DataObject,
) -> None:
    path = data.draw(st.sampled_from(NUMBERS))
    key = "balls." + path[2] if path[0] == "balls" else ".".join(path[:2])
    within = contract.RANGES[key]
    request = copy.deepcopy(REQUEST)
    parent: Any = request
    for step in path[:-1]:
        parent = parent[step]
    parent[path[-1]] = data.draw(
        HOSTILE | st.floats(within.lo, within.hi) | st.floats(-2 * abs(within.hi) - 1, 2 * abs(within.hi) + 1)
    )
    params, balls, strike = api_inputs(request)
    expected = first_problem(lambda: contract.parse_request(request))
    result: list[Any] = []
    problem = first_problem(lambda: result.append(ph.simulate(PYRAMID, balls, strike, params)))
    assert problem == expected
    event("refused" if problem else "simulated")
    if problem is None:  # in range: the kernel's answer is finite
        final = result[0].final
        assert np.isfinite(np.asarray(final.r)).all() and np.isfinite(np.asarray(result[0].duration)).all()
