"""Names the whole referee shares: variants, ball ids, placement regions, tolerances.

Ball ids follow the physics kernel and docs/rules/specification.md III: 0 is the coloured ball, 1-15
the white balls (their numbers in Classic, CLS-3). Pocket and cushion ids are the
kernel's (`piramida.physics.table`): pockets 0 FL, 1 FR, 2 ML, 3 MR, 4 BL, 5 BR;
cushions 0 front, 1 back, 2 left-front, 3 left-back, 4 right-front, 5 right-back.
The table frame: x across (0 to width), y along (0 at the front cushion, the house
end; length at the back cushion).
"""

from __future__ import annotations

from piramida.physics.table import MIDDLE_LEFT, MIDDLE_RIGHT

FREE, COMBINED, DYNAMIC, CLASSIC = range(4)
VARIANT_NAMES: tuple[str, ...] = ("free", "combined", "dynamic", "classic")

N_BALLS = 16
COLOURED = 0  # the coloured ball: the own ball on every break, and always in COMB/DYN/CLS (G4)
NO_BALL = -1

# Where a ball in hand may be placed (G11, G21.2, DYN-5.2 / DYN-7(2)).
HOUSE, TEMPORARY_HOUSE, ANYWHERE = range(3)
REGION_NAMES: tuple[str, ...] = ("house", "temporary-house", "anywhere")

MIDDLE_POCKETS = (MIDDLE_LEFT, MIDDLE_RIGHT)  # their jaws count as a centre-line crossing (G20 note 4)

# docs/rules/specification.md III.6: epsilon for frozen/touching and on-the-line tests (0.1 mm).
CONTACT_TOLERANCE = 1e-4

# Parking spot for balls not on the bed (shelf, pocket, hand): far outside any table, so
# that geometry code can treat every slot alike and never mistake it for a real ball.
OFF_TABLE_XY = (-10.0, -10.0)
