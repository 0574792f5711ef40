"""The ladder of opponents, weakest first, each a bot, a search level and a cue (execution noise).

The play page offers them and `piramida eval` plays them by name (`level:NAME`); both
rooms read them from here. A level is only a name for a triple (bot, level, noise), the
play page's game settings, so a saved game keeps the triple and a level can be renamed
without touching games. The noise levels are
`physics.noise`'s: `amateur` pots half of a 1 m + 1 m corner pot, `pro` 95 % of them, and
`improver` and `novice` are set by what greedy pots with them in Free frames.

The ladder starts where a person new to the game can win: `novice` is the casual bot
(`agents.casual`: any of the three easiest pots, not always the easiest) with a novice's
cue, so it pots about a third of its shots; a scripted casual player (greedy with the same
cue) beats it in most frames. Each level above it was chosen to beat the one below in
60-80 % of frames, up to the strongest search with a pro's cue. `rating` is each level's
Elo from a round robin between them (`benchmarks/level_ladder.py`, docs/levels.md, anchored
at `novice` = 1000): measured between bots, not against people.

The default is `club`: the search bot at `medium` with an amateur's cue, which plans one
shot ahead and moves within the page's 1 s (a median decision of 0.13 s).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Level:
    """One opponent: its name, the line the page shows, and the bot it plays."""

    name: str
    bot: str
    level: str
    noise: str
    line: str
    rating: int | None = None  # Elo from `benchmarks/level_ladder.py` (docs/levels.md); None: unmeasured

    def json(self) -> dict[str, Any]:
        """As the page reads it: the name, the line, the rating, and the settings to start a game with."""
        return {"name": self.name, "line": self.line, "rating": self.rating, "settings": self.settings()}

    def settings(self) -> dict[str, str]:
        """The `games.Settings` fields this level sets."""
        return {"bot": self.bot, "level": self.level, "noise": self.noise}

    def player(self) -> str:
        """The player name (`training.players`) of this level's bot: the search bot takes its level."""
        return f"search:{self.level}" if self.bot == "search" else self.bot


# Ratings, pot rates and every pair's record: docs/levels.md (200 Free frames a pair).
LEVELS = (
    Level(
        "novice",
        "casual",
        "easy",
        "novice",
        "Picks any of the easy pots and misses most of them.",
        rating=1000,
    ),
    Level(
        "beginner",
        "greedy",
        "easy",
        "novice",
        "Goes for the easiest pot and makes about four in ten.",
        rating=1112,
    ),
    Level(
        "improver",
        "greedy",
        "easy",
        "improver",
        "The easiest pot, with a steadier cue: makes over half.",
        rating=1366,
    ),
    Level("amateur", "greedy", "easy", "amateur", "The easiest pot, and makes three in four.", rating=1564),
    Level("club", "search", "medium", "amateur", "Plays for position; an amateur's cue.", rating=1780),
    Level("strongest", "search", "strongest", "pro", "The deepest search, with a pro's cue.", rating=1958),
)
DEFAULT = "club"
BY_NAME = {level.name: level for level in LEVELS}


class LevelError(ValueError):
    """A level name the page does not offer; the message names the ones it does."""


def find(name: str) -> Level:
    """The level called `name`; LevelError naming the known levels otherwise."""
    if name not in BY_NAME:
        raise LevelError(f"unknown level {name!r:.40}; the levels are {', '.join(BY_NAME)}")
    return BY_NAME[name]


def level_of(settings: dict[str, Any]) -> str | None:
    """The name of the level a game's settings are, or None (a custom bot, a level from the command line)."""
    for level in LEVELS:
        if all(settings.get(k) == v for k, v in level.settings().items()):
            return level.name
    return None
