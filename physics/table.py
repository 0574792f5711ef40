"""Table geometry: cushion segments, jaw faces, jaw noses and pocket capture circles.

Frame: metres, origin at a corner of the playing surface, x across the table
(0 to W), y along it (0 to L); the front (house) cushion is y = 0, the back cushion y = L;
left is x = 0. Pockets are built the way pooltool-billiards builds a `PocketTableSpecs`
table, from the same named fields, so that the two engines can be compared shot for
shot: straight cushions end in angled jaw faces, each face ends in a rounded nose (a
circle the ball can rattle against), and a ball is pocketed when its centre enters the
pocket's capture circle.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

import jax
import numpy as np

from piramida.physics.arrays import on_device
from piramida.physics.runtime import in_float64

POCKET_NAMES: tuple[str, ...] = (
    "front-left",
    "front-right",
    "middle-left",
    "middle-right",
    "back-left",
    "back-right",
)
CUSHION_NAMES: tuple[str, ...] = (
    "front",
    "back",
    "left-front",
    "left-back",
    "right-front",
    "right-back",
)
FRONT_LEFT, FRONT_RIGHT, MIDDLE_LEFT, MIDDLE_RIGHT, BACK_LEFT, BACK_RIGHT = range(6)
FRONT, BACK, LEFT_FRONT, LEFT_BACK, RIGHT_FRONT, RIGHT_BACK = range(6)
NO_ID = -1


@dataclass(frozen=True)
class TableSpec:
    """The named figures a pocket table is built from (pooltool's `PocketTableSpecs`).

    Lengths in metres, angles in degrees. `corner_pocket_width` and `side_pocket_width`
    are pooltool's construction widths; `corner_mouth()` and `side_mouth()` give the
    narrowest gap between the two jaw noses, the figure pyramid rules quote.
    """

    width: float
    length: float
    cushion_width: float
    cushion_height: float
    corner_pocket_width: float
    corner_pocket_angle: float
    corner_pocket_depth: float
    corner_pocket_radius: float
    corner_jaw_radius: float
    side_pocket_width: float
    side_pocket_angle: float
    side_pocket_depth: float
    side_pocket_radius: float
    side_jaw_radius: float

    def replace(self, **changes: float) -> TableSpec:
        """A copy with some figures changed."""
        return dataclasses.replace(self, **changes)

    def _corner_setback(self) -> float:
        # How far the nose's tangent point sits back along the jaw from the rail line.
        face_angle = math.radians(self.corner_pocket_angle + 45.0)
        return self.corner_jaw_radius / math.tan((math.pi / 2 + face_angle) / 2)

    def _side_setback(self) -> float:
        face_angle = math.radians(self.side_pocket_angle)
        return self.side_jaw_radius / math.tan((math.pi / 2 + face_angle) / 2)

    def corner_mouth(self) -> float:
        """Narrowest gap between the two noses of a corner pocket (m)."""
        reach = self.corner_pocket_width * math.cos(math.pi / 4) + self._corner_setback()
        rc = self.corner_jaw_radius
        return math.sqrt(2.0) * (reach + rc) - 2 * rc

    def side_mouth(self) -> float:
        """Narrowest gap between the two noses of a middle pocket (m)."""
        return self.side_pocket_width + 2 * self._side_setback() - 2 * self.side_jaw_radius


SPEC_FIELDS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(TableSpec))

# pooltool-billiards 0.6.0's PocketTableSpecs defaults (a 7 ft pool table).
POOLTOOL_POCKET_SPEC = TableSpec(
    width=1.9812 / 2,
    length=1.9812,
    cushion_width=2 * 2.54 / 100,
    cushion_height=0.64 * 2 * 0.028575,
    corner_pocket_width=0.118,
    corner_pocket_angle=5.3,
    corner_pocket_depth=0.0417,
    corner_pocket_radius=0.062,
    corner_jaw_radius=0.02095,
    side_pocket_width=0.137,
    side_pocket_angle=7.14,
    side_pocket_depth=0.0685,
    side_pocket_radius=0.0645,
    side_jaw_radius=0.00795,
)


def _pyramid_spec() -> TableSpec:
    """The 12 ft Russian pyramid table (docs/rules/specification.md, Part V)."""
    jaw_radius = 0.011  # middle-pocket rubber curve radius R2 "11 +- 1 mm" (S16); the
    # corner radius was not found, and the same figure is used for it.
    spec = TableSpec(
        width=1.775,  # playing area inside the cushion noses, 3550 x 1775 mm (S16)
        length=3.55,
        cushion_width=0.05,  # rail rubber width; only the jaw faces' far ends use it
        cushion_height=0.64 * 0.068,  # nose height 0.64 D (pooltool's ratio; the
        # pyramid figure is listed in S16 but its value is missing)
        corner_pocket_width=0.0,  # set below from the 73 mm mouth
        corner_pocket_angle=5.3,  # jaw-face angle: no pyramid figure found; pooltool's
        corner_pocket_depth=0.0,  # capture circle centred on the rail-line corner ...
        corner_pocket_radius=0.030,  # ... so a centre must pass ~6 mm beyond the mouth
        corner_jaw_radius=jaw_radius,
        side_pocket_width=0.0,  # set below from the 83 mm mouth
        side_pocket_angle=7.14,  # no pyramid figure found; pooltool's
        side_pocket_depth=0.02,  # capture circle: the centre must reach the nose line
        side_pocket_radius=0.025,
        side_jaw_radius=jaw_radius,
    )
    corner_mouth = 0.073  # corner opening 72-73 mm (S14), 4-5 mm wider than the ball (S15)
    side_mouth = 0.083  # middle opening 82-83 mm (S14)
    # Both mouths are linear in the construction widths: solve for them.
    corner_width = (corner_mouth - spec.corner_mouth()) / math.cos(math.pi / 4) / math.sqrt(2)
    side_width = side_mouth - spec.side_mouth()
    return spec.replace(corner_pocket_width=corner_width, side_pocket_width=side_width)


PYRAMID_SPEC = _pyramid_spec()


@jax.tree_util.register_dataclass
@dataclass(frozen=True)
class Table:
    """Everything the kernel collides with, as arrays (a pytree; shapes are static).

    Attributes:
        width, length: playing area inside the cushion noses (m).
        cushion_height: height of the cushion nose above the cloth (m).
        line_a, line_b: (S, 2) end points of the straight cushion pieces and jaw faces.
        line_cushion: (S,) cushion id (`CUSHION_NAMES`) or -1 for a jaw face.
        line_pocket: (S,) pocket id of a jaw face, -1 for a cushion.
        arc_centre: (A, 2) centres of the jaw noses; arc_radius: (A,) their radii.
        arc_pocket: (A,) pocket id of each nose.
        pocket_centre: (P, 2) capture-circle centres; pocket_radius: (P,) radii.

    """

    width: Any
    length: Any
    cushion_height: Any
    line_a: Any
    line_b: Any
    line_cushion: Any
    line_pocket: Any
    arc_centre: Any
    arc_radius: Any
    arc_pocket: Any
    pocket_centre: Any
    pocket_radius: Any

    @property
    def has_pockets(self) -> bool:
        """Whether the table has pockets (a rectangle has only an unreachable dummy)."""
        return bool(np.any(np.asarray(self.pocket_radius) > 0))


def _as_table(
    width: float,
    length: float,
    cushion_height: float,
    lines: list[tuple[tuple[float, float], tuple[float, float], int, int]],
    arcs: list[tuple[tuple[float, float], float, int]],
    pockets: list[tuple[tuple[float, float], float]],
) -> Table:
    # A table without jaws or pockets gets one unreachable entry of each, so that the
    # kernel's arrays never have a zero-length axis.
    arcs = arcs or [((-1e3, -1e3), 0.0, NO_ID)]
    pockets = pockets or [((-1e3, -1e3), 0.0)]
    f64 = np.float64

    def array(values: Any, dtype: Any, points: bool = False) -> Any:
        host = np.asarray(values, dtype)
        return on_device(host.reshape(-1, 2) if points else host, dtype)

    return Table(
        width=array(width, f64),
        length=array(length, f64),
        cushion_height=array(cushion_height, f64),
        line_a=array([a for a, _, _, _ in lines], f64, points=True),
        line_b=array([b for _, b, _, _ in lines], f64, points=True),
        line_cushion=array([c for _, _, c, _ in lines], np.int32),
        line_pocket=array([p for _, _, _, p in lines], np.int32),
        arc_centre=array([c for c, _, _ in arcs], f64, points=True),
        arc_radius=array([r for _, r, _ in arcs], f64),
        arc_pocket=array([p for _, _, p in arcs], np.int32),
        pocket_centre=array([c for c, _ in pockets], f64, points=True),
        pocket_radius=array([r for _, r in pockets], f64),
    )


@in_float64
def rectangle(width: float, length: float, cushion_height: float | None = None) -> Table:
    """A pocketless table (for validation and drills): four cushions, no jaws.

    The long cushions are split at the centre line into their front and back pieces, so
    cushion ids mean the same as on a pocket table.
    """
    h = 0.64 * 0.068 if cushion_height is None else cushion_height
    half = length / 2
    lines = [
        ((0.0, 0.0), (width, 0.0), FRONT, NO_ID),
        ((0.0, length), (width, length), BACK, NO_ID),
        ((0.0, 0.0), (0.0, half), LEFT_FRONT, NO_ID),
        ((0.0, half), (0.0, length), LEFT_BACK, NO_ID),
        ((width, 0.0), (width, half), RIGHT_FRONT, NO_ID),
        ((width, half), (width, length), RIGHT_BACK, NO_ID),
    ]
    return _as_table(width, length, h, lines, [], [])


@in_float64
def pocket_table(spec: TableSpec) -> Table:
    """A six-pocket table built from `spec` exactly as pooltool builds `PocketTableSpecs`.

    Each corner pocket: two jaw faces at `corner_pocket_angle` beyond 45 degrees, each
    ending in a nose of `corner_jaw_radius`; the rail ends where the nose begins. Each
    middle pocket likewise, with faces at `side_pocket_angle` from the rail normal.
    """
    w, ln, cw = spec.width, spec.length, spec.cushion_width
    ca = math.radians(spec.corner_pocket_angle + 45.0)
    sa = math.radians(spec.side_pocket_angle)
    rc, rs = spec.corner_jaw_radius, spec.side_jaw_radius
    dc, ds = spec._corner_setback(), spec._side_setback()
    reach = spec.corner_pocket_width * math.cos(math.pi / 4)  # corner to jaw, along a rail
    tip = reach + dc  # corner to where the straight rail ends
    side_lo = (ln - spec.side_pocket_width) / 2 - ds  # where the left/right rails end
    side_hi = (ln + spec.side_pocket_width) / 2 + ds
    face_far = reach - cw * math.tan(ca)  # jaw face's far end, behind the rail line
    nose_x, nose_y = reach - dc * math.sin(ca), dc * math.cos(ca)  # face's near end
    s_off, s_near_x, s_near_y = cw * math.sin(sa), ds * math.cos(sa), ds * math.sin(sa)

    def mirror_x(p: tuple[float, float]) -> tuple[float, float]:
        return (w - p[0], p[1])

    def mirror_y(p: tuple[float, float]) -> tuple[float, float]:
        return (p[0], ln - p[1])

    def mirror_xy(p: tuple[float, float]) -> tuple[float, float]:
        return mirror_x(mirror_y(p))

    # The front-left corner's two faces and two noses; the others are its mirror images.
    fl_faces = [((face_far, -cw), (nose_x, -nose_y)), ((-cw, face_far), (-nose_y, nose_x))]
    fl_noses = [((tip, -rc), rc), ((-rc, tip), rc)]
    corners = [
        (FRONT_LEFT, lambda p: p),
        (FRONT_RIGHT, mirror_x),
        (BACK_LEFT, mirror_y),
        (BACK_RIGHT, mirror_xy),
    ]
    lines: list[tuple[tuple[float, float], tuple[float, float], int, int]] = [
        ((tip, 0.0), (w - tip, 0.0), FRONT, NO_ID),
        ((tip, ln), (w - tip, ln), BACK, NO_ID),
        ((0.0, tip), (0.0, side_lo), LEFT_FRONT, NO_ID),
        ((0.0, side_hi), (0.0, ln - tip), LEFT_BACK, NO_ID),
        ((w, tip), (w, side_lo), RIGHT_FRONT, NO_ID),
        ((w, side_hi), (w, ln - tip), RIGHT_BACK, NO_ID),
    ]
    arcs: list[tuple[tuple[float, float], float, int]] = []
    for pocket, place in corners:
        lines += [(place(a), place(b), NO_ID, pocket) for a, b in fl_faces]
        arcs += [(place(c), r, pocket) for c, r in fl_noses]
    for pocket, x_rail, x_far, x_near, x_nose in (
        (MIDDLE_LEFT, 0.0, -cw, -s_near_x, -rs),
        (MIDDLE_RIGHT, w, w + cw, w + s_near_x, w + rs),
    ):
        del x_rail
        lines += [
            (
                (x_far, ln / 2 - spec.side_pocket_width / 2 + s_off),
                (x_near, ln / 2 - spec.side_pocket_width / 2 + s_near_y),
                NO_ID,
                pocket,
            ),
            (
                (x_far, ln / 2 + spec.side_pocket_width / 2 - s_off),
                (x_near, ln / 2 + spec.side_pocket_width / 2 - s_near_y),
                NO_ID,
                pocket,
            ),
        ]
        arcs += [((x_nose, side_lo), rs, pocket), ((x_nose, side_hi), rs, pocket)]
    corner_drop = spec.corner_pocket_depth / math.sqrt(2)
    pockets = [
        ((-corner_drop, -corner_drop), spec.corner_pocket_radius),
        ((w + corner_drop, -corner_drop), spec.corner_pocket_radius),
        ((-spec.side_pocket_depth, ln / 2), spec.side_pocket_radius),
        ((w + spec.side_pocket_depth, ln / 2), spec.side_pocket_radius),
        ((-corner_drop, ln + corner_drop), spec.corner_pocket_radius),
        ((w + corner_drop, ln + corner_drop), spec.corner_pocket_radius),
    ]
    return _as_table(w, ln, spec.cushion_height, lines, arcs, pockets)


PRESETS: dict[str, TableSpec] = {"pyramid-12ft": PYRAMID_SPEC, "pooltool-7ft": POOLTOOL_POCKET_SPEC}
DEFAULT_TABLE = "pyramid-12ft"


def preset(name: str = DEFAULT_TABLE) -> Table:
    """A named table: `pyramid-12ft` (the default) or `pooltool-7ft`."""
    if name not in PRESETS:
        raise ValueError(f"table: unknown preset {name!r}; choose from {sorted(PRESETS)}")
    return pocket_table(PRESETS[name])
