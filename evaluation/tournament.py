"""Round-robin tournaments: every pair of players meets in every variant, one batch per meeting.

Each meeting (a variant and a pair) is one `arena.head_to_head` call: `games` frames played
as one batch, each player in seat 0 (which breaks) on half of the tables, both shooting
with the plan's execution noise (a play-page level with its own, `roster.magnitude_of`),
every frame from a slightly imperfect rack (`arena.jitter_racks`) so that even
deterministic bots with no noise play different frames.
With an odd number of games the first-named player of a meeting breaks one frame more; the
order of a pair alternates from one variant to the next, so that over an even number of
variants the breaks even out.

Seeds: every meeting uses the tournament's seed, and `arena.setting_key` folds in the variant
and the noise, so all pairs of one variant play from the same racks and the same noise keys
(common random numbers: the pairs differ in their players only). A tournament is
deterministic for a seed, and a meeting's result does not depend on the other meetings.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from piramida.evaluation.arena import head_to_head
from piramida.evaluation.replays import Recorder
from piramida.evaluation.roster import build, magnitude_of


@dataclass(frozen=True)
class Plan:
    """What a tournament plays (all checked by the caller).

    Attributes:
      agents: player names (`roster`), two or more.
      variants: variant ids (`rules.ids`).
      magnitude: the execution-noise magnitude of every game (`physics.noise`).
      games: frames per meeting (the batch size).
      cap: moves per frame before it counts as unfinished.
      stuck: refused shots in a row before a table is set aside (0: never).
      seed: the seed of every meeting (module docstring).
      replays: frames to keep as match records, spread over the meetings.
      focus: play only this agent's meetings (a protocol's policy against its judges);
        None: every pair.

    """

    agents: tuple[str, ...]
    variants: tuple[int, ...]
    magnitude: float
    games: int
    cap: int = 400
    stuck: int = 10
    seed: int = 0
    replays: int = 0
    focus: str | None = None

    def meetings(self) -> list[tuple[int, tuple[str, str]]]:
        """(variant, (first, second)) for every variant and pair (`focus`'s pairs only), in playing order."""
        out = []
        for k, variant in enumerate(self.variants):
            for a, b in itertools.combinations(self.agents, 2):
                if self.focus is None or self.focus in (a, b):
                    out.append((variant, (a, b) if k % 2 == 0 else (b, a)))
        return out

    def replay_tables(self) -> list[list[int]]:
        """The tables recorded in each meeting: replay i is table i // M of meeting i % M."""
        count = len(self.meetings())
        tables: list[list[int]] = [[] for _ in range(count)]
        for i in range(min(self.replays, count * self.games)):
            tables[i % count].append(i // count)
        return tables

    @property
    def total_games(self) -> int:
        """Frames in the whole tournament."""
        return len(self.meetings()) * self.games


@dataclass
class Meeting:
    """One meeting's result (`head_to_head`'s dict) and its recorded frames, if any."""

    result: dict[str, Any]
    recorder: Recorder | None


def play_meetings(
    plan: Plan,
    on_games: Callable[[int, str], None] | None = None,
    on_meeting: Callable[[Meeting], None] | None = None,
) -> list[Meeting]:
    """Play every meeting of `plan` (module docstring).

    Args:
      plan: the tournament.
      on_games: called as frames finish with (frames done in the tournament, what is playing).
      on_meeting: called with each meeting as soon as it is over (to write partial results).

    """
    bots = {name: build(name, plan.magnitude) for name in plan.agents}
    meetings = []
    done = 0
    for (variant, (a, b)), tables in zip(plan.meetings(), plan.replay_tables(), strict=True):
        recorder = Recorder(tables) if tables else None
        label = f"{a} vs {b}"

        def on_step(steps: int, over: int, stuck: int, done: int = done, label: str = label) -> None:
            del steps
            if on_games is not None:
                on_games(done + over + stuck, label)

        result = head_to_head(
            ((a, bots[a]), (b, bots[b])),
            variant,
            plan.magnitude,
            plan.games,
            plan.cap,
            plan.seed,
            plan.stuck,
            on_step=on_step,
            rack_jitter=True,
            on_play=recorder,
            noises=(magnitude_of(a, plan.magnitude), magnitude_of(b, plan.magnitude)),
        )
        result["seed"] = plan.seed
        done += plan.games
        if on_games is not None:
            on_games(done, label)
        meeting = Meeting(result, recorder)
        meetings.append(meeting)
        if on_meeting is not None:
            on_meeting(meeting)
    return meetings
