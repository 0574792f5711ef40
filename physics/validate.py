"""Input checks for `simulate`: clear errors before a bad layout, strike or constant is run.

The kernel itself never raises (it runs under `jit`); these run on the host, on the
arrays the caller is about to pass, and name the table, ball and field that is wrong.
The physical ranges (`RANGES`) are the JSON contract's (`contract` reads each number
against them): `simulate` checks the same ranges with the same words, so the command
line and the Python API accept the same inputs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from typing import Any

import numpy as np

from piramida.physics.engine.kiss import MAX_SHIFT_M
from piramida.physics.fields import Range, not_finite, out_of_range
from piramida.physics.layouts import MAX_BALLS
from piramida.physics.motion import ABSENT, POCKETED, BallState
from piramida.physics.params import PhysicsParams
from piramida.physics.strike import MAX_ELEVATION, MAX_SPEED, MAX_TIP_OFFSET, Strike
from piramida.physics.table import CUSHION_NAMES, POCKET_NAMES, Table

# The physical range of every number a request gives, by the field's path (a list's items
# share their list's entry). Wide enough for any real ball, cloth, cushion, cue and table;
# narrow enough that the kernel never divides by zero or overflows: a friction or gravity
# of 0 (or 1e-300) never stops a ball, a spin of 1e300 overflows the first step.
RANGES: dict[str, Range] = {
    # Balls from 40 to 100 mm across (snooker 52.5, pool 57, carom 61.5, pyramid 68).
    "params.R": Range(0.02, 0.05, "m"),
    # 50 g to 1 kg (snooker 142 g, pool 170 g, pyramid 285 g).
    "params.m": Range(0.05, 1.0, "kg"),
    # Cloth: sliding friction measured 0.1-0.3 (Han 2005), rolling resistance 0.005-0.015
    # (Leckie & Greenspan 2005), spinning friction about 0.015; each must stop the ball in
    # a finite time, so none may be 0.
    "params.u_s": Range(0.01, 1.0),
    "params.u_r": Range(0.001, 0.1),
    "params.u_sp": Range(0.001, 0.1),
    # Restitutions: phenolic balls 0.92-0.98 (Alciatore), cushion rubber 0.6-0.95 (the
    # pyramid's 0.74); a dead ball or cushion below these is no billiards any more.
    "params.e_b": Range(0.5, 1.0),
    "params.e_c": Range(0.3, 1.0),
    # Ball-ball friction 0.03-0.08 (Alciatore TP A-14), ball-cushion friction about 0.2
    # (Han 2005); both may be 0 (frictionless contacts).
    "params.u_b": Range(0.0, 0.5),
    "params.f_c": Range(0.0, 1.0),
    # Earth's 9.81; from 1 to 100 m/s^2 for scaled experiments, never 0 (no friction force).
    "params.g": Range(1.0, 100.0, "m/s^2"),
    # Cues weigh 0.5-0.75 kg (pyramid 0.68-0.75 kg).
    "params.cue_mass": Range(0.1, 2.0, "kg"),
    # Playing areas from a 6 ft bar table to beyond a 12 ft pyramid table (1.775 x 3.55 m);
    # the smallest still leaves rails between the pockets at every figure allowed below.
    "table.width": Range(0.5, 2.5, "m"),
    "table.length": Range(1.0, 5.0, "m"),
    # Pocket figures around the presets' (pooltool's 7 ft table and the pyramid's): rubber
    # 2-10 cm wide, construction widths 4-20 cm, faces 0-30 degrees off square, capture
    # circles 1-10 cm across and up to 10 cm deep, jaw noses of 2 mm to 5 cm radius.
    "table.cushion_width": Range(0.02, 0.1, "m"),
    "table.cushion_height": Range(0.02, 0.09, "m"),  # and within NOSE_HEIGHT of the ball
    "table.corner_pocket_width": Range(0.04, 0.2, "m"),
    "table.corner_pocket_angle": Range(0.0, 30.0, "degrees"),
    "table.corner_pocket_depth": Range(0.0, 0.1, "m"),
    "table.corner_pocket_radius": Range(0.01, 0.1, "m"),
    "table.corner_jaw_radius": Range(0.002, 0.05, "m"),
    "table.side_pocket_width": Range(0.04, 0.2, "m"),
    "table.side_pocket_angle": Range(0.0, 30.0, "degrees"),
    "table.side_pocket_depth": Range(0.0, 0.1, "m"),
    "table.side_pocket_radius": Range(0.01, 0.1, "m"),
    "table.side_jaw_radius": Range(0.002, 0.05, "m"),
    # Centres anywhere near a table (check_balls then places them exactly on the cloth).
    "balls.x": Range(-10.0, 10.0, "m"),
    "balls.y": Range(-10.0, 10.0, "m"),
    # A hard break sends the struck ball off at about 10-14 m/s, and a 12 m/s strike at
    # the tip-offset limit spins it at about 460 rad/s: each component of a ball's own
    # motion may be twice that (a surface speed of at most 1000 R, 50 m/s).
    "balls.v": Range(-30.0, 30.0, "m/s"),
    "balls.w": Range(-1000.0, 1000.0, "rad/s"),
    # The strike (`physics.strike`): a cue up to MAX_SPEED, aimed any way round, raised up
    # to MAX_ELEVATION, its tip within MAX_TIP_OFFSET of the centre (`check_strikes`
    # also bounds sqrt(a^2 + b^2)).
    "strike.speed": Range(0.0, MAX_SPEED, "m/s", above=True),
    "strike.phi": Range(-360.0, 360.0, "degrees"),
    "strike.theta": Range(0.0, MAX_ELEVATION, "degrees"),
    "strike.a": Range(-MAX_TIP_OFFSET, MAX_TIP_OFFSET, "R"),
    "strike.b": Range(-MAX_TIP_OFFSET, MAX_TIP_OFFSET, "R"),
}
# The cushion nose's height in ball radii: above the equator (below it a ball would ride
# up the rubber) and below the top, where the contact angle asin(h/R - 1) has no value.
NOSE_HEIGHT = Range(1.0, 1.8, "R")
# Event-log slots a table: two hold a strike and one contact; beyond 100,000 a batch of
# tables is gigabytes of log.
CAPACITY = (2, 100_000)
STATE_CODES = range(ABSENT + 1)  # `motion`'s codes, STATIONARY ... ABSENT
STRIKE_RANGES = ("speed", "phi", "theta", "a", "b")  # each in `RANGES`, then the tip offset (a, b) as a whole

# Balls may touch (a rack, frozen balls), and overlap by as much as the kernel leaves two
# balls at rest (its kiss step's slack, 5 um), so that a shot's end is always a valid
# start for the next; a break once ended with two balls 0.3 um inside each other.
OVERLAP_TOLERANCE = MAX_SHIFT_M
# A centre may come this much closer than the contact distance to a cushion, jaw or
# capture circle (m): rounding, so that a ball frozen to a cushion is valid.
CUSHION_TOLERANCE = 1e-12
# Cushion pieces and jaw faces shorter than this (m) come only from pocket figures that
# contradict each other (a jaw face whose ends meet); the kernel divides by their length.
MIN_PIECE = 1e-3


class InputError(ValueError):
    """Bad input to the kernel; the message names the table, ball and field."""


def _where(table_index: int, batch: bool) -> str:
    return f"table {table_index}: " if batch else ""


def _fixed(value: float, digits: int) -> str:
    """`value` with `digits` decimals, in exponent form from 1e6 on: a hostile value stays short."""
    return f"{value:.{digits}f}" if abs(value) < 1e6 else f"{value:.{digits}e}"


def _line_name(table: Table, line: int) -> str:
    """The cushion piece or jaw face that is straight piece `line` of `table`."""
    cushion, pocket = int(np.asarray(table.line_cushion)[line]), int(np.asarray(table.line_pocket)[line])
    return (
        f"the {CUSHION_NAMES[cushion]} cushion"
        if cushion >= 0
        else f"a jaw of the {POCKET_NAMES[pocket]} pocket"
    )


def check_table(table: Table) -> None:
    """Raise `InputError` for a cushion piece or jaw face shorter than `MIN_PIECE`."""
    a, b = np.asarray(table.line_a, np.float64), np.asarray(table.line_b, np.float64)
    lengths = np.linalg.norm(b - a, axis=-1)
    short = np.flatnonzero(~(lengths >= MIN_PIECE))  # NaN too
    if short.size:
        line = int(short[0])
        raise InputError(
            f"table: {_line_name(table, line)} is {lengths[line] * 1e3:.3f} mm long (at least "
            f"{MIN_PIECE * 1e3:g} mm): the pocket figures contradict each other"
        )


def _pocket_mouths(table: Table, width: float, length: float) -> list[np.ndarray]:
    """Each pocket's mouth as a polygon (6, 2): the ground between its jaws, off the bed.

    From each nose's tangent point on the nose line (the nose centre brought onto the
    bed's edge) along the chord to the near end of its jaw face, down the face to its far
    end, across to the other face's far end, and back the same way. The chords lie inside
    the noses, where no centre may be anyway; the bed and these polygons are all the ground
    a centre may stand on.
    """
    line_a, line_b = np.asarray(table.line_a, np.float64), np.asarray(table.line_b, np.float64)
    arc_centre = np.asarray(table.arc_centre, np.float64)
    line_pocket, arc_pocket = np.asarray(table.line_pocket), np.asarray(table.arc_pocket)
    mouths = []
    for pocket in np.unique(arc_pocket[arc_pocket >= 0]):
        noses, faces = np.flatnonzero(arc_pocket == pocket), np.flatnonzero(line_pocket == pocket)
        if len(noses) != 2 or len(faces) != 2:
            raise ValueError(f"table: pocket {pocket} needs two jaw noses and two jaw faces")
        sides = []
        for nose in noses:
            centre = arc_centre[nose]
            ends = np.stack([line_a[faces], line_b[faces]], axis=1)  # (face, end, xy)
            face, end = np.unravel_index(np.argmin(np.linalg.norm(ends - centre, axis=-1)), (2, 2))
            rail = np.array([np.clip(centre[0], 0.0, width), np.clip(centre[1], 0.0, length)])
            sides.append([rail, ends[face, end], ends[face, 1 - end]])
        mouths.append(np.array(sides[0] + sides[1][::-1]))
    return mouths


def _inside_polygon(x: np.ndarray, y: np.ndarray, polygon: np.ndarray) -> np.ndarray:
    """Whether each point (x, y) is inside `polygon` (V, 2) (crossing-number test)."""
    inside = np.zeros(x.shape, dtype=bool)
    for (x0, y0), (x1, y1) in zip(polygon, np.roll(polygon, -1, axis=0), strict=True):
        if y0 == y1:
            continue
        crosses = ((y0 > y) != (y1 > y)) & (x < x0 + (y - y0) * (x1 - x0) / (y1 - y0))
        inside ^= crosses
    return inside


def _check_cushions(table: Table, r: np.ndarray, on_table: np.ndarray, reach: float) -> None:
    """Raise `InputError` for the first ball on a table that is not on the cloth (see `check_balls`)."""
    width, length = float(table.width), float(table.length)
    batch = len(r) > 1
    r = np.where(on_table[..., None], r, 0.0).astype(np.float64)  # absent balls may hold anything
    x, y = r[..., 0], r[..., 1]
    # Straight cushion pieces and jaw faces, (B, N, S): square distance within the length.
    a, b = np.asarray(table.line_a, np.float64), np.asarray(table.line_b, np.float64)
    seg = b - a
    seg_len = np.linalg.norm(seg, axis=-1)
    along = seg / seg_len[:, None]
    rel = r[..., None, :] - a
    s_along = np.einsum("bnsk,sk->bns", rel, along)
    offset = np.abs(rel[..., 0] * along[:, 1] - rel[..., 1] * along[:, 0])
    line_gap = np.where((s_along >= 0) & (s_along <= seg_len), offset - reach, np.inf)
    # Jaw noses, (B, N, A): distance to the centre, less the nose radius and the reach.
    centres, radii = np.asarray(table.arc_centre, np.float64), np.asarray(table.arc_radius, np.float64)
    arc_pocket = np.asarray(table.arc_pocket)
    arc_gap = np.linalg.norm(r[..., None, :] - centres, axis=-1) - radii - reach
    arc_gap = np.where(arc_pocket >= 0, arc_gap, np.inf)
    # Pocket capture circles, (B, N, P): a centre inside one has dropped.
    holes, hole_r = np.asarray(table.pocket_centre, np.float64), np.asarray(table.pocket_radius, np.float64)
    hole_gap = np.linalg.norm(r[..., None, :] - holes, axis=-1) - hole_r
    hole_gap = np.where(hole_r > 0, hole_gap, np.inf)
    # On the bed (inside the nose lines) or in a pocket mouth.
    tol = CUSHION_TOLERANCE
    grounded = (x >= -tol) & (x <= width + tol) & (y >= -tol) & (y <= length + tol)
    mouths = _pocket_mouths(table, width, length)
    for polygon in mouths:
        grounded |= _inside_polygon(x, y, polygon)
    outside = ~grounded
    on_line = line_gap.min(axis=-1, initial=np.inf) < -tol
    on_arc = arc_gap.min(axis=-1, initial=np.inf) < -tol
    dropped = hole_gap.min(axis=-1, initial=np.inf) < -tol
    off = on_table & (outside | on_line | on_arc | dropped)
    if not off.any():
        return
    k, ball = np.argwhere(off)[0]
    centre = f"({_fixed(x[k, ball], 4)}, {_fixed(y[k, ball], 4)})"
    head = f"{_where(k, batch)}ball {ball}: centre {centre} is off the cloth: "
    if dropped[k, ball]:
        hole = int(np.argmin(hole_gap[k, ball]))
        raise InputError(
            head
            + f"it is inside the capture circle of the {POCKET_NAMES[hole]} pocket (the ball has dropped)"
        )
    if outside[k, ball]:
        mouth = " or in a pocket mouth between the jaws" if mouths else ""
        raise InputError(
            head + f"a centre must be on the bed, x in [0, {width:.4f}], y in [0, {length:.4f}]{mouth}"
        )
    line = int(np.argmin(line_gap[k, ball]))
    arc = int(np.argmin(arc_gap[k, ball]))
    if line_gap[k, ball, line] <= arc_gap[k, ball, arc]:
        piece = _line_name(table, line)
        depth, rule = -line_gap[k, ball, line], f"at least {reach:.5f} m from a cushion nose line"
    else:
        piece = f"a jaw nose of the {POCKET_NAMES[int(arc_pocket[arc])]} pocket"
        depth = -arc_gap[k, ball, arc]
        cx, cy = centres[arc]
        rule = f"at least {radii[arc] + reach:.5f} m from the nose's centre ({cx:.4f}, {cy:.4f})"
    raise InputError(head + f"it overlaps {piece} by {depth * 1e3:.3f} mm; a centre must be {rule}")


def _arrays(balls: BallState) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The host arrays r, v, w, s of batched balls; `InputError` if their shapes do not fit together."""
    r, v, w, s = (np.asarray(x) for x in (balls.r, balls.v, balls.w, balls.s))
    if r.ndim != 3 or r.shape[-1] != 2 or r.shape[1] > MAX_BALLS:
        raise InputError(f"balls: expected positions of shape (tables, <= {MAX_BALLS}, 2), got {r.shape}")
    tables, n = r.shape[:2]
    for name, values, shape in (("v", v, (tables, n, 2)), ("w", w, (tables, n, 3)), ("s", s, (tables, n))):
        if values.shape != shape:
            raise InputError(f"balls.{name}: expected shape {shape} (as the positions'), got {values.shape}")
    return r, v, w, s


@np.errstate(over="ignore")  # a centre near 1e300 m has an infinite distance to each piece: far, as it is
def check_balls(table: Table, balls: BallState, R: float, reach: float | None = None) -> None:
    """Raise `InputError` for NaN, off-cloth or overlapping balls, and bad shapes.

    A ball on the table is valid where the kernel would see no overlap at t = 0: its
    centre is at least `reach` from every straight cushion piece and jaw face (measured
    square to the piece, within its length, from either side, as the kernel does), at
    least `reach` plus the nose radius from every jaw nose's centre, outside every pocket
    capture circle (a centre inside one is pocketed), and on the bed (inside the cushion
    nose lines) or in a pocket mouth between the jaws. A ball frozen to a cushion or jaw
    (exactly at the contact distance) is valid; so is one resting past a nose line in a
    pocket's mouth, where there is no cushion. On a rectangle this is the old bound: a
    centre at least `reach` inside each nose line.

    Args:
      balls: (B, N, ...) batched ball states.
      R: ball radius (balls may not overlap).
      reach: the contact distance of the cushion model (R cos(theta) where the nose meets
        the ball above its equator; `kernel.contact_distance`), R if None.

    """
    reach = R if reach is None else reach
    r, v, w, s = _arrays(balls)
    for name, values in (("x/y", r), ("v", v), ("w", w)):
        bad = ~np.isfinite(values).all(axis=-1) & (s != ABSENT)
        if bad.any():
            k, ball = np.argwhere(bad)[0]
            raise InputError(f"{_where(k, len(r) > 1)}ball {ball}: {name} is not a finite number")
    on_table = (s != ABSENT) & (s != POCKETED)
    _check_cushions(table, r, on_table, reach)
    gaps = np.linalg.norm(r[:, :, None] - r[:, None], axis=-1) - 2 * R
    both = on_table[:, :, None] & on_table[:, None]
    n = r.shape[1]
    overlap = both & (gaps < -OVERLAP_TOLERANCE) & ~np.eye(n, dtype=bool)[None]
    if overlap.any():
        k, i, j = np.argwhere(overlap)[0]
        raise InputError(f"{_where(k, len(r) > 1)}balls {i} and {j} overlap by {-gaps[k, i, j] * 1e3:.3f} mm")


def _check_ranges(values: Any, key: str, name: Callable[[tuple[int, ...]], str] | None = None) -> None:
    """Raise `InputError` for the first of `values` outside `RANGES[key]`, named by `name(its index)`.

    By default the name is `key` with the index (`params.R`, or `params.R[3]` for an array).
    """
    within = RANGES[key]
    values = np.asarray(values, np.float64)
    bad = ~within.holds(values)
    if bad.any():
        index = tuple(int(i) for i in np.argwhere(bad)[0])
        value = float(values[index])
        path = name(index) if name else key + "".join(f"[{i}]" for i in index)
        raise InputError(out_of_range(value, path, within) if np.isfinite(value) else not_finite(value, path))


def check_capacity(capacity: Any) -> None:
    """Raise `InputError` for an event-log capacity that is not an integer in `CAPACITY`."""
    lo, hi = CAPACITY
    if isinstance(capacity, bool) or not isinstance(capacity, int | np.integer) or not lo <= capacity <= hi:
        raise InputError(f"capacity: expected an integer {lo}..{hi}, got {capacity!r:.40}")


def check_setup(table: Table, params: PhysicsParams) -> None:
    """Raise `InputError` for a constant or table figure outside `RANGES`, or a nose out of `NOSE_HEIGHT`."""
    for field in fields(PhysicsParams):
        _check_ranges(getattr(params, field.name), f"params.{field.name}")
    for name in ("width", "length", "cushion_height"):
        _check_ranges(getattr(table, name), f"table.{name}")
    h, R = float(np.max(table.cushion_height)), float(np.min(params.R))
    if h / R not in NOSE_HEIGHT:
        raise InputError(
            f"table.cushion_height: a nose {h:g} m high is {h / R:.3g} R for params.R = {R:g} m; "
            f"expected {NOSE_HEIGHT} (change the two together)"
        )


def check_motion(balls: BallState) -> None:
    """Raise `InputError` for bad shapes, an unknown state code, or a centre, speed or spin outside `RANGES`.

    Balls are named as the contract names them (`balls[3].v[0]`), by id, with the table in a batch.
    """
    r, v, w, s = _arrays(balls)
    batch = len(s) > 1
    unknown = ~np.isin(s, STATE_CODES)
    if unknown.any():
        k, ball = np.argwhere(unknown)[0]
        raise InputError(
            f"{_where(k, batch)}balls[{ball}].s: expected a state code {STATE_CODES[0]}..{STATE_CODES[-1]} "
            f"(motion.STATIONARY ... ABSENT), got {int(s[k, ball])}"
        )
    present = (s != ABSENT)[..., None]  # an absent ball may hold anything
    columns = {"x": r[..., :1], "y": r[..., 1:], "v": v, "w": w}
    for name, values in columns.items():

        def path(index: tuple[int, ...], name: str = name) -> str:
            k, ball, axis = index
            return f"{_where(k, batch)}balls[{ball}].{name}" + (f"[{axis}]" if name in ("v", "w") else "")

        _check_ranges(np.where(present, np.asarray(values, np.float64), 0.0), f"balls.{name}", path)


def check_strikes(strikes: Strike, balls: BallState) -> None:
    """Raise `InputError` for a strike on a missing ball or outside the accepted ranges.

    Vectorised over the batch: the first bad table is reported.
    """
    s = np.asarray(balls.s)
    batch = len(s) > 1
    f = {}
    for name in ("ball", "speed", "phi", "theta", "a", "b"):
        values = np.asarray(getattr(strikes, name), dtype=np.float64)
        if values.shape not in ((), (len(s),)):
            raise InputError(f"strike.{name}: expected shape () or ({len(s)},), got {values.shape}")
        f[name] = np.broadcast_to(values, (len(s),))
        if not np.isfinite(f[name]).all():
            k = int(np.argmin(np.isfinite(f[name])))
            raise InputError(_where(k, batch) + not_finite(float(f[name][k]), f"strike.{name}"))

    def fail(bad: np.ndarray, message: str) -> None:
        if bad.any():
            k = int(np.argmax(bad))
            raise InputError(_where(k, batch) + message.format(**{n: v[k] for n, v in f.items()}))

    ball = f["ball"]
    fail(
        (ball != np.round(ball)) | (ball < 0) | (ball >= s.shape[1]),
        f"strike.ball: unknown ball id {{ball}}; ids are 0..{s.shape[1] - 1}",
    )
    state = s[np.arange(len(s)), ball.astype(np.int64)]
    fail((state == ABSENT) | (state == POCKETED), "strike.ball: ball {ball:.0f} is not on the table")
    for name in STRIKE_RANGES:

        def path(index: tuple[int, ...], name: str = name) -> str:
            return f"{_where(index[0], batch)}strike.{name}"

        _check_ranges(f[name], f"strike.{name}", path)
    offset = np.hypot(f["a"], f["b"])
    f["offset"] = offset
    fail(
        offset > MAX_TIP_OFFSET,
        f"strike.a/b: tip offset {{offset:.3g}} R is beyond {MAX_TIP_OFFSET} R (a miscue)",
    )
