"""The learner's opponents: one bot or saved policy, or a league drawn from in turn.

A league is a list of members (players by name, `training.players`: `random`, `greedy`,
`search[:level]`, a saved policy's path; and `self`). Every `every` learner moves (by
default one round: a PPO rollout) one member is drawn, uniformly, from a generator seeded
by (run seed, round number), at the start of a round (before its first move): so the draws
depend on nothing but the step count, and a resumed run draws exactly what an
uninterrupted run draws. The drawn member plays every table until the next draw (a frame
in progress continues against the new member). `self` is a past checkpoint of this run,
drawn uniformly from the pool of periodic checkpoints written so far; before the first one
it is the learner's current policy.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from piramida.envs import core
from piramida.envs.opponents import ObservationOpponent
from piramida.rules import state as st
from piramida.rules.game import Move
from piramida.training import players, runs
from piramida.training.config import SELF, ConfigError

SNAPSHOTS_KEPT = 4  # loaded `self` snapshots kept in memory


class League:
    """The opponent of every table: the member drawn for the current round (see the module docstring).

    Args:
      members: opponent names; one member means a fixed opponent.
      settings: the environment's settings (policies play through its encoding).
      seed: the run's seed (the draws' generator).
      every: learner moves between draws.

    """

    name = "league"

    def __init__(self, members: tuple[str, ...], settings: core.Settings, seed: int, every: int) -> None:
        """Build the bots and load the saved policies now (a bad member fails before training)."""
        self.members, self.settings, self.seed, self.every = members, settings, seed, every
        try:
            self._fixed = {
                m: players.make_player(m, settings.noise).act for m in dict.fromkeys(members) if m != SELF
            }
        except players.PolicyError as error:
            raise ConfigError(f"{'league' if len(members) > 1 else 'opponent'}: {error}") from error
        self.live: Callable[[Any], Any] | None = None  # the learner's policy, set once it exists
        self.pool: list[str] = []  # periodic checkpoints of this run, oldest first
        self._snapshots: dict[str, core.Policy] = {}
        self.round = -1
        self.current: core.Policy | None = None
        self.current_name = ""

    def act(self, states: st.GameState, keys: Any) -> Move:
        """The current member's moves (the env calls this for every opponent move)."""
        if self.current is None:
            self.draw(0)
        assert self.current is not None
        return self.current(states, keys)

    def follow(self, moves: int) -> None:
        """Draw anew if `moves` (learner moves so far) starts a new round."""
        if moves // self.every != self.round:
            self.draw(moves // self.every)

    def draw(self, round_: int) -> None:
        """The member for round `round_`, from a generator seeded by (seed, round)."""
        self.round = round_
        name, rng = runs.league_draw(self.members, self.seed, round_)
        if name != SELF:
            self.current, self.current_name = self._fixed[name], name
        elif self.pool:
            self.current_name = self.pool[int(rng.integers(len(self.pool)))]
            self.current = self._snapshot(self.current_name)
        else:
            if self.live is None:
                raise RuntimeError("league: 'self' drawn before the learner's policy was set")
            self.current, self.current_name = ObservationOpponent(self.settings, self.live, SELF), SELF

    def _snapshot(self, path: str) -> core.Policy:
        if path not in self._snapshots:
            if len(self._snapshots) >= SNAPSHOTS_KEPT:
                self._snapshots.pop(next(iter(self._snapshots)))
            # This run's own checkpoint: loaded as it is, without `make_player`'s trial move on a
            # fresh table (a batch shape of its own, compiled in the middle of the run).
            self._snapshots[path] = players.PolicyAgent(path, self.settings.noise).act
        return self._snapshots[path]
