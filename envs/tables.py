"""`Tables`: B frames against an opponent, held on the host, for the Gymnasium and PettingZoo envs.

The envs keep their games here between calls; the moves are played by the engine all
envs share (`envs.functional.advance`). The batch is padded to a multiple of
`core.PAD` tables, so one compiled program serves every env with up to `PAD` tables
(the single env, small vector envs, the tests).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from piramida.envs import functional
from piramida.envs.core import (
    LEARNER,
    Policy,
    Settings,
    decode_moves,
    legal_masks,
    new_frames,
    observe_states,
    padded,
    to_move,
)
from piramida.physics.kernel import preload_in_background
from piramida.rules import state as st
from piramida.rules.game import Move, move


@jax.jit
def _fresh(seeds: Any, variant: Any) -> tuple[functional.EnvState, Move, Any]:
    """New frames from each table's seed (B,), and a reset's moves: none to play.

    One program: made op by op outside a `jit`, these were a dozen small programs to
    compile at an env's first reset.
    """
    games, keys = new_frames(jax.vmap(jax.random.PRNGKey)(seeds), variant)
    batch = seeds.shape[0]
    nothing = move(ball=jnp.zeros(batch, jnp.int32))
    return functional.EnvState(games, keys, jnp.zeros(batch, jnp.int32)), nothing, jnp.zeros(batch, bool)


_learner_to_move = jax.jit(lambda games: to_move(games, LEARNER))
_standing = jax.jit(functional.standing)


class Tables:
    """B games against an opponent, held on the host for the Gymnasium and PettingZoo envs.

    Moves are played by the passes of the engine every env shares (`envs.functional`),
    driven from Python (`advance_on_host`): the pass compiles once for every opponent
    (each bot's choice is a program of its own, shared by every env it plays in), any
    policy can reply (an SB3 model too), and the throughput is that of the one-call
    `lax.while_loop` within noise (1,024 tables: 10,024 against 10,114 learner moves/s
    against random, 1,505 against 1,536 against greedy). With `restart` an ended frame
    restarts in the same step (the vector env's same-step auto-reset), else it waits for
    `reset`.

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
        self.batch, self.size, self.settings, self.opponent = batch, padded(batch), settings, opponent
        self.params = functional.EnvParams.of(settings)
        self.restart = restart
        self.state: functional.EnvState | None = None
        self.done: dict[str, Any] | None = None  # the last step's record (`functional.advance`)
        self.last: functional.Played | None = None  # the learner's last move (for rendering)
        self.kernel_calls = 0  # passes played, each one kernel call (benchmarks read it)
        self.moves_played = 0  # moves those passes played, the learner's and the opponent's

    @property
    def states(self) -> st.GameState:
        """The games (padded batch)."""
        assert self.state is not None, "call reset() first"
        return self.state.games

    @states.setter
    def states(self, games: st.GameState) -> None:
        keys = self.state.keys if self.state is not None else jnp.zeros((self.size, 2), jnp.uint32)
        self.state = functional.EnvState(games, keys, jnp.zeros(self.size, jnp.int32))
        self.done = None

    @property
    def keys(self) -> Any:
        """(padded B, 2) each table's PRNG key."""
        assert self.state is not None, "call reset() first"
        return self.state.keys

    @keys.setter
    def keys(self, keys: Any) -> None:
        assert self.state is not None, "set the games first"
        self.state = dataclasses.replace(self.state, keys=keys)

    @property
    def learner_moves(self) -> np.ndarray:
        """(B,) the learner's moves in each table's frame (a copy)."""
        assert self.state is not None, "call reset() first"
        return np.asarray(self.state.moves)[: self.batch].astype(np.int64)

    @learner_moves.setter
    def learner_moves(self, moves: np.ndarray) -> None:
        assert self.state is not None, "call reset() first"
        self.state = dataclasses.replace(
            self.state, moves=jnp.asarray(self._pad(np.asarray(moves)), jnp.int32)
        )

    def _pad(self, x: np.ndarray) -> np.ndarray:
        extra = self.size - self.batch
        return np.concatenate([x, np.repeat(x[:1], extra, axis=0)]) if extra else x

    def _advance(self, state: functional.EnvState, learner: Move, pending: Any, starting: bool) -> None:
        self.state, done = functional.advance_on_host(
            state,
            learner,
            pending,
            np.asarray(starting),
            self.params,
            self.opponent,
            np.asarray(self.restart),
        )
        self.kernel_calls += int(done["passes"])
        self.moves_played += int(done["moves_played"])
        self.done = None if starting else done

    def reset(self, seeds: np.ndarray) -> None:
        """New frames on every table, seeded per table, the opponent's opening moves played."""
        seeds = self._pad(np.asarray(seeds, np.int64) % 2**32)
        state, nothing, pending = _fresh(seeds, self.settings.variant)
        self._advance(state, nothing, pending, True)
        self.last = None

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The learner's actions (B, ...) and the opponent's replies: (reward, terminated, truncated)."""
        assert self.state is not None, "call reset() first"
        actions = jax.tree_util.tree_map(lambda a: self._pad(np.asarray(a)), actions)
        games = self.state.games
        learner = decode_moves(games, actions, self.settings.action_mode)
        self._advance(self.state, learner, _learner_to_move(games), False)
        done = self.done
        assert done is not None
        self.last = done["played"]
        return (
            np.asarray(done["reward"], np.float64)[: self.batch],
            np.asarray(done["terminated"])[: self.batch],
            np.asarray(done["truncated"])[: self.batch],
        )

    def _host(self, tree: Any) -> Any:
        return jax.tree_util.tree_map(lambda x: np.asarray(x)[: self.batch], tree)

    def observe(self) -> Any:
        """The learner's observations (B, ...), numpy: of the next frame where one restarted."""
        return self._observe(self.states)

    def final_observations(self) -> Any:
        """The observations the last step ended on, before any restart (B, ...), numpy."""
        assert self.done is not None, "no step played since the last reset"
        return self._observe(self.done["final"])

    def _observe(self, games: st.GameState) -> Any:
        settings = self.settings
        return self._host(observe_states(games, settings.shot_limit, settings.noise, settings.observation))

    def action_masks(self) -> np.ndarray:
        """The assisted mode's masks (B, sum(nvec)) bool."""
        return np.asarray(legal_masks(self.states))[: self.batch]

    def info(self, played: functional.Played | None) -> dict[str, np.ndarray]:
        """The verdict of the learner's last move (`played`; None: the standing only) and the standing.

        The standing is the games as the last step left them (an ended frame's last state,
        before any restart).
        """
        games = self.states if self.done is None else _standing(self.done)
        s = self._host(games)
        out: dict[str, np.ndarray] = {
            "score": s.score,
            "phase": s.phase,
            "winner": s.winner,
            "to_move": s.turn,
        }
        if played is not None:
            v = self._host(played.verdict)
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
