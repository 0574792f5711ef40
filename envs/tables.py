"""`Tables`: B frames against an opponent, held on the host, for the Gymnasium and PettingZoo envs.

The envs keep their games here between calls; the moves are played by the engine all
envs share (`envs.functional.advance`). Up to `chunk_limit()` tables are one batch,
padded to a multiple of `core.PAD` (one compiled program serves every env with up to
`PAD` tables: the single env, small vector envs, the tests). More are played in chunks
of `chunk_limit()` tables, one after the other, by the same programs: every batch size
above the limit shares one compile, so a second one costs none.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import jax
import numpy as np

from piramida.envs import functional
from piramida.envs.core import (
    LEARNER,
    MAX_COUNT,
    Policy,
    Settings,
    decode_moves,
    legal_masks,
    observe_states,
    padded,
    to_move,
)
from piramida.physics.kernel import preload_in_background
from piramida.rules import state as st
from piramida.rules.game import Move


@jax.jit
def _fresh(seeds: Any, variant: Any) -> tuple[functional.EnvState, Move, Any]:
    """`functional.fresh` from each table's seed (B,) instead of its key."""
    return functional.fresh(jax.vmap(jax.random.PRNGKey)(seeds), variant)


_learner_to_move = jax.jit(lambda games: to_move(games, LEARNER))
_standing = jax.jit(functional.standing)


@functools.cache
def chunk_limit() -> int:
    """Tables a chunk holds: 1,024 on a CPU; on an accelerator no limit (the whole batch is one chunk).

    Measured on a 2-core CPU against `random`: 2,048 tables as two chunks of 1,024 step as
    fast as in one batch, but 1,024 as four chunks of 256 step 20 % slower (30 % against
    `greedy`): a chunk's passes end with its own longest streak, which is hardly shorter
    than the whole batch's, so smaller chunks only add passes. An accelerator fills with
    the whole batch. Read on first use, not at import: a process may set its devices up
    (`jax.distributed`) after importing piramida.
    """
    return 1024 if jax.default_backend() == "cpu" else MAX_COUNT


def chunking(batch: int) -> tuple[int, int]:
    """(tables a chunk, chunks) that play `batch` tables: one padded chunk up to the limit."""
    limit = chunk_limit()
    if batch <= limit:
        return padded(batch), 1
    return limit, -(-batch // limit)


def _joined(parts: list[Any]) -> Any:
    """The chunks' trees as one batch: as it is for one chunk, else numpy arrays joined on the host."""
    if len(parts) == 1:
        return parts[0]
    return jax.tree_util.tree_map(lambda *xs: np.concatenate([np.asarray(x) for x in xs]), *parts)


class Tables:
    """B games against an opponent, held on the host for the Gymnasium and PettingZoo envs.

    Moves are played by the passes of the engine every env shares (`envs.functional`),
    driven from Python (`advance_on_host`), one chunk of tables after another (module
    docstring): the pass compiles once for every opponent (each bot's choice is a
    program of its own, shared by every env it plays in), and any policy can reply (an
    SB3 model too). With `restart` an ended frame restarts in the same step (the vector
    env's same-step auto-reset), else it waits for `reset`.

    The whole batch's views (`states`, `keys`, `last`) are the one chunk's device arrays,
    or numpy arrays joined from the chunks; setting one splits it.

    Args:
      batch: tables.
      settings: the environment's `Settings`.
      opponent: the opponent's policy (`Policy`).
      restart: restart ended frames within the step.

    """

    def __init__(self, batch: int, settings: Settings, opponent: Policy, restart: bool = False) -> None:
        """Hold the settings; `reset` starts the games."""
        if batch < 1:
            raise ValueError(f"num_envs: expected a positive number of tables, got {batch}")
        preload_in_background()  # the kernel's build beside the first reset's compiles
        self.batch, self.settings, self.opponent = batch, settings, opponent
        self.chunk, chunks = chunking(batch)
        self.size = self.chunk * chunks  # the padded batch
        self.params = functional.EnvParams.of(settings)
        self.restart = restart
        self.parts: list[functional.EnvState] | None = None  # each chunk's frames
        self.records: list[dict[str, Any]] | None = None  # each chunk's last step (`functional.advance`)
        self._played: list[functional.Played] | None = None  # the learner's last move (for rendering)
        self.kernel_calls = 0  # passes played, each one kernel call (benchmarks read it)
        self.moves_played = 0  # moves those passes played, the learner's and the opponent's

    def _split(self, tree: Any) -> list[Any]:
        """A whole (padded) batch's tree as the chunks' device arrays."""
        if self.size == self.chunk:
            return [tree]
        c = self.chunk
        return [
            jax.tree_util.tree_map(lambda x, k=k: jax.device_put(np.asarray(x)[k * c : (k + 1) * c]), tree)
            for k in range(self.size // c)
        ]

    def _chunks(self) -> list[functional.EnvState]:
        assert self.parts is not None, "call reset() first"
        return self.parts

    @property
    def states(self) -> st.GameState:
        """The games (padded batch)."""
        return _joined([part.games for part in self._chunks()])

    @states.setter
    def states(self, games: st.GameState) -> None:
        keys = self.keys if self.parts is not None else np.zeros((self.size, 2), np.uint32)
        moves = np.zeros(self.size, np.int32)
        self.parts = [
            functional.EnvState(*part)
            for part in zip(self._split(games), self._split(keys), self._split(moves), strict=True)
        ]
        self.records = None

    @property
    def keys(self) -> Any:
        """(padded B, 2) each table's PRNG key."""
        return _joined([part.keys for part in self._chunks()])

    @keys.setter
    def keys(self, keys: Any) -> None:
        parts = self._chunks()
        self.parts = [dataclasses.replace(p, keys=k) for p, k in zip(parts, self._split(keys), strict=True)]

    @property
    def learner_moves(self) -> np.ndarray:
        """(B,) the learner's moves in each table's frame (a copy)."""
        moves = np.concatenate([np.asarray(part.moves) for part in self._chunks()])
        return moves[: self.batch].astype(np.int64)

    @learner_moves.setter
    def learner_moves(self, moves: np.ndarray) -> None:
        padded_moves = self._pad(np.asarray(moves)).astype(np.int32)
        parts = self._chunks()
        self.parts = [
            dataclasses.replace(p, moves=m) for p, m in zip(parts, self._split(padded_moves), strict=True)
        ]

    @property
    def last(self) -> functional.Played | None:
        """The learner's last move on every table (None before the first step)."""
        return None if self._played is None else _joined(self._played)

    @last.setter
    def last(self, played: functional.Played | None) -> None:
        self._played = None if played is None else self._split(played)

    def _pad(self, x: np.ndarray) -> np.ndarray:
        extra = self.size - self.batch
        return np.concatenate([x, np.repeat(x[:1], extra, axis=0)]) if extra else x

    def _advance(self, moves: list[tuple[Move, Any]], starting: bool) -> None:
        """Play each chunk's learner moves (and where they are pending), then the opponent's replies."""
        parts, records = [], []
        for state, (learner, pending) in zip(self._chunks(), moves, strict=True):
            state, done = functional.advance_on_host(
                state,
                learner,
                pending,
                np.asarray(starting),
                self.params,
                self.opponent,
                np.asarray(self.restart),
            )
            parts.append(state)
            records.append(done)
            self.kernel_calls += int(done["passes"])
            self.moves_played += int(done["moves_played"])
        self.parts, self.records = parts, None if starting else records

    def reset(self, seeds: np.ndarray) -> None:
        """New frames on every table, seeded per table, the opponent's opening moves played."""
        seeds = self._pad(np.asarray(seeds, np.int64) % 2**32)
        fresh = [_fresh(chunk, self.settings.variant) for chunk in self._split(seeds)]
        self.parts = [state for state, _, _ in fresh]
        self._advance([(nothing, pending) for _, nothing, pending in fresh], True)
        self._played = None

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The learner's actions (B, ...) and the opponent's replies: (reward, terminated, truncated)."""
        actions = self._split(jax.tree_util.tree_map(lambda a: self._pad(np.asarray(a)), actions))
        mode = self.settings.action_mode
        moves = [
            (decode_moves(part.games, chunk, mode), _learner_to_move(part.games))
            for part, chunk in zip(self._chunks(), actions, strict=True)
        ]
        self._advance(moves, False)
        records = self.records
        assert records is not None
        self._played = [done["played"] for done in records]

        def joined(name: str, dtype: Any = None) -> np.ndarray:
            return np.concatenate([np.asarray(done[name], dtype) for done in records])[: self.batch]

        return joined("reward", np.float64), joined("terminated"), joined("truncated")

    def _host(self, parts: list[Any]) -> Any:
        """The chunks' trees as one numpy batch of the B tables."""
        return jax.tree_util.tree_map(lambda x: np.asarray(x)[: self.batch], _joined(parts))

    def observe(self) -> Any:
        """The learner's observations (B, ...), numpy: of the next frame where one restarted."""
        return self._observe([part.games for part in self._chunks()])

    def final_observations(self) -> Any:
        """The observations the last step ended on, before any restart (B, ...), numpy."""
        assert self.records is not None, "no step played since the last reset"
        return self._observe([done["final"] for done in self.records])

    def _observe(self, games: list[st.GameState]) -> Any:
        settings = self.settings
        return self._host(
            [observe_states(g, settings.shot_limit, settings.noise, settings.observation) for g in games]
        )

    def action_masks(self) -> np.ndarray:
        """The assisted mode's masks (B, sum(nvec)) bool."""
        masks: np.ndarray = self._host([legal_masks(part.games) for part in self._chunks()])
        return masks

    def info(self, played: functional.Played | None) -> dict[str, np.ndarray]:
        """The verdict of the learner's last move (`played`; None: the standing only) and the standing.

        The standing is the games as the last step left them (an ended frame's last state,
        before any restart).
        """
        records = self.records
        games = (
            [part.games for part in self._chunks()] if records is None else [_standing(d) for d in records]
        )
        s = self._host(games)
        out: dict[str, np.ndarray] = {
            "score": s.score,
            "phase": s.phase,
            "winner": s.winner,
            "to_move": s.turn,
        }
        if played is not None:
            v = self._host([played.verdict])
            out |= {
                "shot": np.asarray(played.shot)[: self.batch],
                "legal": v.legal,
                "fouls": v.fouls,
                "invalid": v.invalid,
                "points": v.points,
                "scored": v.scored,
                "decision_invalid": np.asarray(played.decision_invalid)[: self.batch],
            }
        return out

    def table(self, index: int) -> st.GameState:
        """One table's state (numpy), e.g. for rendering."""
        return st.to_host(self.states, index)
