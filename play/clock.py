"""The shot clock of G26 for the human's shots: 45 s from the end of the previous shot, and extensions.

The clock is a JSON dict inside the saved game, `{"started", "extended", "extensions"}`:
the epoch second the time started (None when the human has no shot to play), whether
this shot has its extra 45 s, and the extensions left to each player. The rules' own
figures and readings come from `rules.decisions` (`slow_play`, A-35).
"""

from __future__ import annotations

import time
from typing import Any

from piramida.physics.fields import FieldError, read_bool, read_int, read_number, read_object
from piramida.rules.decisions import SHOT_CLOCK_S, SHOT_CLOCK_WARNING_S, extensions_for_match, slow_play


def new_clock() -> dict[str, Any]:
    """A stopped clock; A-35: a game here is a one-frame match, so a deciding frame at a level score."""
    return {"started": None, "extended": False, "extensions": [extensions_for_match(True)] * 2}


def read_clock(value: Any, path: str) -> dict[str, Any]:
    """A saved clock (`new_clock`'s fields), each checked; `FieldError` naming the one that is not."""
    fields = read_object(value, path, ("started", "extended", "extensions"))
    for name in ("started", "extended", "extensions"):
        if name not in fields:
            raise FieldError(f"{path}.{name}: missing")
    if fields["started"] is not None:
        read_number(fields["started"], f"{path}.started")
    read_bool(fields["extended"], f"{path}.extended")
    extensions = fields["extensions"]
    if not isinstance(extensions, list) or len(extensions) != 2:
        raise FieldError(f"{path}.extensions: expected two integers, one per player")
    for player, left in enumerate(extensions):
        read_int(left, f"{path}.extensions[{player}]", 0, extensions_for_match(True))
    return fields


def restart(clock: dict[str, Any], running: bool, delay: float) -> None:
    """Start the time `delay` s from now (when the previous shot ends: G14.1, A-35), or stop it."""
    clock["extended"] = False
    clock["started"] = time.time() + delay if running else None


def extend(clock: dict[str, Any], player: int) -> str | None:
    """Give `player` the extra 45 s for this shot (G26); None, or why it cannot be given."""
    if clock["started"] is None:
        return "extension: no shot clock is running for you (G26)"
    if clock["extended"]:
        return "extension: this shot already has its extension (G26)"
    if clock["extensions"][player] <= 0:
        return "extension: none left in this match (G26, A-35)"
    clock["extended"] = True
    clock["extensions"][player] -= 1
    return None


def timed_out(clock: dict[str, Any]) -> bool:
    """Whether a shot played now is a G26 foul."""
    if clock["started"] is None:
        return False
    elapsed = max(0.0, time.time() - clock["started"])
    foul, _ = slow_play(elapsed, 1 if clock["extended"] else 0, clock["extended"])
    return foul


def view(clock: dict[str, Any], on: bool, player: int) -> dict[str, Any]:
    """What the page shows: the deadline (epoch s), the warning time, the extensions left."""
    started = clock["started"]
    allowed = SHOT_CLOCK_S * (2 if clock["extended"] else 1)
    return {
        "on": on,
        "deadline": None if started is None else started + allowed,
        "warning_s": SHOT_CLOCK_WARNING_S,
        "extended": clock["extended"],
        "extensions_left": clock["extensions"][player],
    }
