"""Positions near the end of a Free pyramid frame, for the play app's tests (API and browser).

The human is player 0. Ball 13 stands at the lip of the front-left pocket on the diagonal
from the coloured ball, so `WINNING_SHOT` (aim 225 degrees, 1 m/s, a little draw) pots it.
"""

from __future__ import annotations

from typing import Any

NEAR_END: dict[str, Any] = {
    "variant": "free",
    "balls": [
        {"id": 0, "x": 0.40, "y": 0.40},
        {"id": 13, "x": 0.13, "y": 0.13},
        {"id": 14, "x": 1.2, "y": 3.0},
        {"id": 15, "x": 1.5, "y": 2.5},
    ],
    "shelves": [[1, 2, 3, 4, 5, 6, 7], [8, 9, 10, 11, 12]],  # 7 balls: ball 13 is the eighth (FREE-1)
    "turn": 0,
    "phase": "normal",
}
WINNING_SHOT = {"ball": 0, "speed": 1.0, "phi": 225.0, "b": -0.3}
# The bot (player 1) fouled: the human, with 6 balls, decides (G6) and takes a penalty ball
# (FREE-7, the seventh), then WINNING_SHOT pots the eighth.
HUMAN_DECIDES: dict[str, Any] = NEAR_END | {
    "shelves": [[1, 2, 3, 4, 5, 6], [7, 8, 9, 10, 11, 12]],
    "phase": "decision",
    "decision": {"kind": "G6", "options": ["shoot", "hand-back"]},
}
