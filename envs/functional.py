"""The batched env as pure functions: `reset` and `step` over an `EnvState`, traceable end to end.

`Core` steps the games from Python (its opponent may be any policy, an SB3 model too);
here the opponent is a JAX bot, static (a name, or a bot's `act`), so one learner
move, the opponent's replies and the restart of ended frames fit in one traced function,
and a training loop can `jit` (and `scan`) it whole (`training.ppo`, `training.jax_driver`). As in `Core`,
only the action mode, the observation kind and the bot shape the program: the numbers of
the settings are an argument (`EnvParams`), so every variant, noise level and shot limit
shares one compile.

One `lax.while_loop` plays every move: in each pass a table plays the learner's move if
it is still pending, else the opponent's where the opponent is to move, so the kernel
appears once in the traced graph (its compile is the expensive part). A table's step
ends when it waits for the learner again or its frame is over; an ended frame
(`terminated`), or one cut by the shot limit or by `core.OPPONENT_MOVE_CAP` opponent
moves in a row (`truncated`), restarts in the same pass, and the new frame's opening
moves by the opponent are played in the same loop (auto-reset in the same step, as
SB3 and `PyramidVectorEnv`; the last observation is `StepInfo.final_obs`). Rewards are
`core.rewards` over the step, as in `Core`.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
from jax import lax

from piramida.agents import AGENTS, make_agent
from piramida.envs import core
from piramida.rules import state as st
from piramida.rules.game import Move, Outcome, where_tables

# A bot playing inside a traced step: a bare bot's name (`random`, `greedy`, ... at its
# defaults), or any bot's `act` (`agents.make_bot(name, noise).act`: a level, a noise to
# plan for), hashable, so `jit` takes it as static.
Opponent = str | core.Policy


@jax.tree_util.register_dataclass
@dataclass(frozen=True)
class EnvParams:
    """The numbers of an env's `core.Settings`, as traced scalars (see the module docstring)."""

    variant: Any
    noise: Any
    shot_limit: Any
    point_reward: Any
    win_reward: Any

    @classmethod
    def of(cls, settings: core.Settings) -> EnvParams:
        """The numbers of `settings`."""
        return cls(
            variant=jnp.asarray(settings.variant, jnp.int32),
            noise=jnp.asarray(settings.noise, jnp.float64),
            shot_limit=jnp.asarray(settings.shot_limit, jnp.int32),
            point_reward=jnp.asarray(settings.point_reward, jnp.float64),
            win_reward=jnp.asarray(settings.win_reward, jnp.float64),
        )


@jax.tree_util.register_dataclass
@dataclass(frozen=True)
class EnvState:
    """B frames against a bot.

    Attributes:
      games: (B,) the games.
      keys: (B, 2) each table's PRNG key (noise, the opponent's draws, new frames).
      moves: (B,) the learner's moves in the current frame (for the shot limit).

    """

    games: st.GameState
    keys: Any
    moves: Any


@jax.tree_util.register_dataclass
@dataclass(frozen=True)
class StepInfo:
    """What a step did on each table (leading axis B).

    Attributes:
      shot: the learner's move was a shot (not a decision).
      legal: the shot drew no penalty.
      fouls: the shot's foul bits (`rules.FOUL_NAMES`).
      pot: the shot was legal and scored.
      won: the frame ended this step and the learner won it.
      score: the learner's score when the step ended its frame (or now).
      stuck: the opponent moved `core.OPPONENT_MOVE_CAP` times in a row (a bug, not a rule).
      final_obs: the observation the step ended on, before a restart.

    """

    shot: Any
    legal: Any
    fouls: Any
    pot: Any
    won: Any
    score: Any
    stuck: Any
    final_obs: Any


def opponent_policy(opponent: Opponent) -> core.Policy:
    """The opponent's policy: a bot's `act` as it is, a bare bot's by its name (ValueError if unknown)."""
    if not isinstance(opponent, str):
        return opponent
    if opponent not in AGENTS:
        raise ValueError(
            f"opponent: expected one of {', '.join(sorted(AGENTS))} or a bot's act, got {opponent!r}"
        )
    return make_agent(opponent).act


def _summary(outcome: Outcome) -> dict[str, Any]:
    """What the metrics keep of a move: a shot, legal, its fouls, legal and scoring."""
    v, shot = outcome.verdict, outcome.shot
    scoring = jnp.any(v.scored, axis=-1) | (v.points[:, core.LEARNER] > 0)
    return {
        "shot": shot,
        "legal": shot & v.legal,
        "fouls": jnp.where(shot, v.fouls, 0).astype(jnp.int32),
        "pot": shot & v.legal & scoring,
    }


def _advance(
    state: EnvState, learner: Move | None, params: EnvParams, opponent: Opponent
) -> tuple[EnvState, dict[str, Any]]:
    """Play the learner's moves (where pending), then the opponent, restarting ended frames.

    With `learner` None (a reset) only the opponent moves and nothing is recorded.
    """
    bot = opponent_policy(opponent)
    before = state.games
    batch = before.phase.shape[0]
    no = jnp.zeros(batch, bool)
    pending = no if learner is None else core.to_move(before, core.LEARNER)
    carry = {
        "games": before,
        "keys": state.keys,
        "moves": state.moves,
        "pending": pending,
        "finished": jnp.ones(batch, bool) if learner is None else no,
        "streak": jnp.zeros(batch, jnp.int32),
        "refusals": no,
        "reward": jnp.zeros(batch, jnp.float64),
        "terminated": no,
        "truncated": no,
        "stuck": no,
        "final": before,
        "learner": {"shot": no, "legal": no, "fouls": jnp.zeros(batch, jnp.int32), "pot": no},
        "passes": jnp.zeros((), jnp.int32),
    }

    def waiting(c: dict[str, Any]) -> Any:
        """Tables with a move still to play in this step."""
        return c["pending"] | (
            core.to_move(c["games"], core.OPPONENT) & (c["streak"] < core.OPPONENT_MOVE_CAP)
        )

    def body(c: dict[str, Any]) -> dict[str, Any]:
        games = c["games"]
        replying = ~c["pending"] & waiting(c)
        keys, use = core.split_keys(c["keys"])
        moves = core.replies(bot, games, use, replying)
        moves = lax.cond(
            jnp.any(c["refusals"]),
            lambda: core.with_fallback(moves, games, use, c["refusals"]),
            lambda: moves,
        )
        if learner is not None:
            moves = where_tables(c["pending"], learner, moves)
        active = c["pending"] | replying
        games, outcome, keys = core.play_masked(games, moves, keys, active, params.noise)
        counted = c["moves"] + c["pending"].astype(c["moves"].dtype)
        streak = jnp.where(replying, c["streak"] + 1, c["streak"])
        stuck = core.to_move(games, core.OPPONENT) & (streak >= core.OPPONENT_MOVE_CAP)
        ends = ~c["finished"] & ~(core.to_move(games, core.OPPONENT) & ~stuck)
        terminated = ends & (games.phase == st.OVER)
        truncated = ends & ~terminated & ((counted >= params.shot_limit) | stuck)
        gained = core.rewards(before, games, params.point_reward, params.win_reward)
        restart = terminated | truncated
        fresh, fresh_keys = lax.cond(
            jnp.any(restart),
            lambda: core.new_frames(keys, params.variant),
            lambda: (games, keys),
        )
        return {
            "games": where_tables(restart, fresh, games),
            "keys": jnp.where(restart[:, None], fresh_keys, keys),
            "moves": jnp.where(restart, 0, counted),
            "pending": jnp.zeros_like(c["pending"]),
            "finished": c["finished"] | ends,
            "streak": jnp.where(restart, 0, streak),
            "refusals": core.refused(replying, outcome),
            "reward": jnp.where(ends, gained, c["reward"]),
            "terminated": c["terminated"] | terminated,
            "truncated": c["truncated"] | truncated,
            "stuck": c["stuck"] | stuck,
            "final": where_tables(ends, games, c["final"]),
            "learner": where_tables(c["pending"], _summary(outcome), c["learner"]),
            "passes": c["passes"] + 1,
        }

    limit = 2 * core.OPPONENT_MOVE_CAP + 2
    done = lax.while_loop(lambda c: jnp.any(waiting(c)) & (c["passes"] < limit), body, carry)
    out = EnvState(done["games"], done["keys"], done["moves"])
    return out, done


@functools.partial(jax.jit, static_argnames=("opponent",))
def reset(keys: Any, params: EnvParams, opponent: Opponent) -> EnvState:
    """New frames, one per key (B, 2), with the opponent's opening moves played where it breaks."""
    games, keys = core.new_frames(keys, params.variant)
    state, _ = _advance(EnvState(games, keys, jnp.zeros(keys.shape[0], jnp.int32)), None, params, opponent)
    return state


def step(
    state: EnvState, actions: Any, params: EnvParams, opponent: Opponent, mode: str, observation: str = "flat"
) -> tuple[EnvState, Any, Any, Any, Any, StepInfo]:
    """One learner move on every table, the opponent's replies, same-step restarts (traceable).

    Args:
      state: the frames, each waiting for the learner (or over).
      actions: (B, ...) the learner's actions in action mode `mode`.
      params: the env's numbers.
      opponent: a bot's name or `act` (`Opponent`; static under `jit`, as `mode` and `observation`).
      mode: `raw` or `assisted` (`envs.actions`).
      observation: `flat`, `dict` or `menu` (`envs.observation`).

    Returns:
      (state, obs (B, ...), reward (B,), terminated (B,), truncated (B,), info): the
      observation is of the next frame where one restarted.

    """
    learner = core.decode(state.games, actions, mode)
    nxt, done = _advance(state, learner, params, opponent)
    final: st.GameState = done["final"]
    info = StepInfo(
        **done["learner"],
        won=done["terminated"] & (final.winner == core.LEARNER),
        score=final.score[:, core.LEARNER],
        stuck=done["stuck"],
        final_obs=observe(final, params, observation),
    )
    obs = observe(nxt.games, params, observation)
    return nxt, obs, done["reward"], done["terminated"], done["truncated"], info


def observe(games: st.GameState, params: EnvParams, observation: str = "flat") -> Any:
    """The observations (`observation` kind) of a batch from each table's player to move (traceable)."""
    return core.observe_states(games, params.shot_limit, params.noise, observation)


def masks(state: EnvState) -> Any:
    """(B, sum(nvec)) the assisted mode's legal choices (traceable)."""
    return core.legal_masks(state.games)
