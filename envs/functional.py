"""The one engine of every env: B frames against a bot as pure functions over an `EnvState`.

A pass plays one move on every table that waits for one, whoever is to move there: the
learner's move where it is pending, else the opponent's where the opponent is to move;
a table that waits for nobody costs no kernel work, and the opponent chooses on the
tables that reply only (`core.replies`). `advance` repeats passes in one
`lax.while_loop` until every table waits for the learner again or has ended, so the
kernel appears once in the traced graph (its compile is the expensive part). An ended
frame (`terminated`), or one cut by the shot limit or by `core.OPPONENT_MOVE_CAP`
opponent moves in a row (`truncated`), restarts in the same pass where `restart` says
so, and the new frame's opening moves by the opponent are played in the same loop
(same-step auto-reset; the last observation is `StepInfo.final_obs`). Rewards are
`core.rewards` over the step. A reset is the same program with nothing pending.

Every env is a layer over it: `reset` and `step` here (a training loop can `jit` and
`scan` them whole: `training.ppo`, `envs.jax_env`), and the Gymnasium and PettingZoo
envs, whose games `envs.tables.Tables` holds between calls and whose passes are driven
from Python (`advance_on_host`: any opponent, an SB3 model too, and one compile of the
pass for every opponent). The opponent, the action mode and the observation kind
shape the program; the numbers of the settings are an argument (`EnvParams`), so every
variant, noise level and shot limit shares one compile.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from piramida.agents import AGENTS, make_agent
from piramida.envs import core
from piramida.physics.arrays import on_device
from piramida.rules import state as st
from piramida.rules.game import Move, Outcome, move, where_tables

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
            variant=on_device(settings.variant, np.int32),
            noise=on_device(settings.noise, np.float64),
            shot_limit=on_device(settings.shot_limit, np.int32),
            point_reward=on_device(settings.point_reward, np.float64),
            win_reward=on_device(settings.win_reward, np.float64),
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


@jax.tree_util.register_dataclass
@dataclass(frozen=True)
class Played:
    """The learner's move of a step, per table: what the infos report and the renderer redraws.

    Attributes:
      shot: a shot was played (not a decision).
      verdict: the referee's verdict of the shot (`rules.referee.Verdict`), without the
        rule ids (`cited` is None: `core.play_masked` keeps no log here).
      decision_invalid: `decide`'s invalid bits where a decision was made.
      before: the game the move was played from; as_struck: the move with its strike as
        executed (after the noise): `rules.game.play` replays the shot from the two.

    """

    shot: Any
    verdict: Any
    decision_invalid: Any
    before: Any
    as_struck: Any

    @classmethod
    def of(cls, before: st.GameState, m: Move, outcome: Outcome) -> Played:
        """What `Played` keeps of a move played from `before`."""
        struck = outcome.strike
        as_struck = m.replace(
            ball=struck.ball, speed=struck.speed, phi=struck.phi, theta=struck.theta, a=struck.a, b=struck.b
        )
        return cls(outcome.shot, outcome.verdict, outcome.decision_invalid, before, as_struck)


def _begin(state: EnvState, learner: Move, pending: Any, starting: Any) -> dict[str, Any]:
    """The carry of a step: the learner's moves to play where `pending`; at a reset (`starting`) none."""
    games = state.games
    batch = games.phase.shape[0]
    no = jnp.zeros(batch, bool)
    return {
        "games": games,
        "before": games,
        "keys": state.keys,
        "moves": state.moves,
        "learner": learner,
        "pending": pending,
        "finished": jnp.full(batch, starting),
        "restarting": no,
        "streak": jnp.zeros(batch, jnp.int32),
        "refusals": no,
        "reward": jnp.zeros(batch, jnp.float64),
        "terminated": no,
        "truncated": no,
        "stuck": no,
        "final": games,
        "played": _nothing_played(games, learner, state.keys),
        "passes": jnp.zeros((), jnp.int32),
        "moves_played": jnp.zeros((), jnp.int32),
    }


def _nothing_played(games: st.GameState, learner: Move, keys: Any) -> Played:
    """`Played` of no move: zeros of the shapes a pass records (traced once, with the pass's own program)."""
    batch = games.phase.shape[0]
    shapes = jax.eval_shape(core.play_masked, games, learner, keys, jnp.zeros(batch, bool), 0.0)
    return jax.tree_util.tree_map(lambda s: jnp.zeros(s.shape, s.dtype), Played.of(games, learner, shapes[1]))


def _waiting(c: dict[str, Any]) -> Any:
    """Tables with a move still to play in this step."""
    return c["pending"] | (core.to_move(c["games"], core.OPPONENT) & (c["streak"] < core.OPPONENT_MOVE_CAP))


def _replying(c: dict[str, Any]) -> Any:
    """Tables where the opponent moves in this pass."""
    return ~c["pending"] & _waiting(c)


def _pass(c: dict[str, Any], replies: Move, keys: Any, params: EnvParams, restart: Any) -> dict[str, Any]:
    """One pass: every waiting table plays one move (the learner's if pending, else the opponent's `replies`).

    `replies` already hold the fallback where the referee refused the last reply
    (`core.with_fallback`); `keys` are the tables' next keys. Ended frames restart where
    `restart`.
    """
    games, replying = c["games"], _replying(c)
    moves = where_tables(c["pending"], c["learner"], replies)
    active = c["pending"] | replying
    games, outcome, keys = core.play_masked(games, moves, keys, active, params.noise)
    counted = c["moves"] + c["pending"].astype(c["moves"].dtype)
    streak = jnp.where(replying, c["streak"] + 1, c["streak"])
    stuck = core.to_move(games, core.OPPONENT) & (streak >= core.OPPONENT_MOVE_CAP)
    ends = ~c["finished"] & ~(core.to_move(games, core.OPPONENT) & ~stuck)
    terminated = ends & (games.phase == st.OVER)
    truncated = ends & ~terminated & ((counted >= params.shot_limit) | stuck)
    gained = core.rewards(c["before"], games, params.point_reward, params.win_reward)
    return c | {
        "games": games,
        "keys": keys,
        "moves": counted,
        "pending": jnp.zeros_like(c["pending"]),
        "finished": c["finished"] | ends,
        "restarting": (terminated | truncated) & restart,
        "streak": streak,
        "refusals": core.refused(replying, outcome),
        "reward": jnp.where(ends, gained, c["reward"]),
        "terminated": c["terminated"] | terminated,
        "truncated": c["truncated"] | truncated,
        "stuck": c["stuck"] | stuck,
        "final": where_tables(ends, games, c["final"]),
        "played": where_tables(c["pending"], Played.of(c["games"], moves, outcome), c["played"]),
        "passes": c["passes"] + 1,
        "moves_played": c["moves_played"] + jnp.sum(active, dtype=jnp.int32),
    }


def _restart(c: dict[str, Any], params: EnvParams) -> dict[str, Any]:
    """New frames where a pass ended one that the step restarts (`restarting`); their keys and counts anew."""
    again = c["restarting"]
    fresh, keys = core.new_frames(c["keys"], params.variant)
    return c | {
        "games": where_tables(again, fresh, c["games"]),
        "keys": jnp.where(again[:, None], keys, c["keys"]),
        "moves": jnp.where(again, 0, c["moves"]),
        "streak": jnp.where(again, 0, c["streak"]),
        "restarting": jnp.zeros_like(again),
    }


PASS_LIMIT = 2 * core.OPPONENT_MOVE_CAP + 2  # passes of a step: a stuck table is cut long before


@functools.partial(jax.jit, static_argnames=("opponent",))
def advance(
    state: EnvState,
    learner: Move,
    pending: Any,
    starting: Any,
    params: EnvParams,
    opponent: Opponent,
    restart: Any,
) -> tuple[EnvState, dict[str, Any]]:
    """Play the learner's moves where `pending`, then the opponent's, until every table waits or has ended.

    The one program of a move for every env (module docstring): a reset is a call with
    nothing pending and `starting` true (the opponent's opening moves, nothing recorded).
    `restart` (traced) restarts ended frames in the same step. Returns the next state and
    the step's record (reward, terminated, truncated, stuck, final, played, passes, and
    moves_played: the moves of every table's learner and opponent the passes played).
    """
    bot = opponent_policy(opponent)

    def body(c: dict[str, Any]) -> dict[str, Any]:
        keys, use = core.split_keys(c["keys"])
        replies = core.replies(bot, c["games"], use, _replying(c))
        replies = lax.cond(
            jnp.any(c["refusals"]),
            lambda: core.with_fallback(replies, c["games"], use, c["refusals"]),
            lambda: replies,
        )
        c = _pass(c, replies, keys, params, restart)
        return lax.cond(jnp.any(c["restarting"]), lambda: _restart(c, params), lambda: c)

    carry = _begin(state, learner, pending, starting)
    done = lax.while_loop(lambda c: jnp.any(_waiting(c)) & (c["passes"] < PASS_LIMIT), body, carry)
    return EnvState(done["games"], done["keys"], done["moves"]), done


_begin_host = jax.jit(_begin)
_waiting_host = jax.jit(lambda c: (_waiting(c), _replying(c), c["passes"]))
_pass_host = jax.jit(_pass)
_restart_host = jax.jit(_restart)


def advance_on_host(
    state: EnvState,
    learner: Move,
    pending: Any,
    starting: Any,
    params: EnvParams,
    policy: core.Policy,
    restart: Any,
) -> tuple[EnvState, dict[str, Any]]:
    """`advance` driven from Python, for any opponent (a policy over observations, an SB3 model too).

    The same passes: the opponent chooses on the host between the jitted halves of a pass,
    so its moves, and every table's game, are those `advance` would play. The pass is one
    program whatever the opponent (the Gymnasium envs play through here: `envs.tables`).
    """
    # The tests of the loop read the flags on the host: `jnp.any` outside a `jit` would be a
    # program of its own to compile.
    c = _begin_host(state, learner, pending, starting)
    while True:
        waiting, replying, passes = _waiting_host(c)
        if not np.asarray(waiting).any() or int(passes) >= PASS_LIMIT:
            break
        keys, use = core.split_keys_host(c["keys"])
        replies = core.host_replies(policy, c["games"], use, np.asarray(replying))
        if np.asarray(c["refusals"]).any():  # rare: the random bot's own program, and a select
            replies = core.with_fallback_host(replies, c["games"], use, c["refusals"])
        c = _pass_host(c, replies, keys, params, restart)
        if np.asarray(c["restarting"]).any():  # its program compiles when a frame first ends
            c = _restart_host(c, params)
    return EnvState(c["games"], c["keys"], c["moves"]), c


@jax.jit
def fresh(keys: Any, variant: Any) -> tuple[EnvState, Move, Any]:
    """New frames, one per key (B, 2), as drawn (no openings played), with a reset's nothing to play.

    One program: made op by op outside a `jit`, these were a dozen small programs to
    compile at an env's first reset.
    """
    games, keys = core.new_frames(keys, variant)
    batch = keys.shape[0]
    nothing = move(ball=jnp.zeros(batch, jnp.int32))
    return EnvState(games, keys, jnp.zeros(batch, jnp.int32)), nothing, jnp.zeros(batch, bool)


@functools.partial(jax.jit, static_argnames=("opponent",))
def reset(keys: Any, params: EnvParams, opponent: Opponent) -> EnvState:
    """New frames, one per key (B, 2), with the opponent's opening moves played where it breaks."""
    state, nothing, pending = fresh(keys, params.variant)
    state, _ = advance(state, nothing, pending, jnp.array(True), params, opponent, jnp.array(True))
    return state


def reset_on_host(keys: Any, params: EnvParams, policy: core.Policy) -> EnvState:
    """`reset` driven from the host (`advance_on_host`): the same frames, without a program of its own.

    A traced `reset` holds a whole `advance` (a tiny jax-ppo run's, against greedy and its
    own network at 8 tables, compiled in 34.8 s on a 2-core CPU) for one call at a run's
    start; from the host it plays through the pass's program, which every env of the
    batch size shares, and the bot's own.
    """
    state, nothing, pending = fresh(keys, params.variant)
    state, _ = advance_on_host(state, nothing, pending, jnp.array(True), params, policy, jnp.array(True))
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
    pending = core.to_move(state.games, core.LEARNER)
    nxt, done = advance(state, learner, pending, jnp.array(False), params, opponent, jnp.array(True))
    info = step_info(done, params, observation)
    obs = observe(nxt.games, params, observation)
    return nxt, obs, done["reward"], done["terminated"], done["truncated"], info


def standing(done: dict[str, Any]) -> st.GameState:
    """The games as a step left them: an ended frame's last state (before any restart), else the game on."""
    return where_tables(done["terminated"] | done["truncated"], done["final"], done["games"])


def step_info(done: dict[str, Any], params: EnvParams, observation: str) -> StepInfo:
    """What a step did on each table (`StepInfo`), from `advance`'s record."""
    played: Played = done["played"]
    v, shot = played.verdict, played.shot
    scoring = jnp.any(v.scored, axis=-1) | (v.points[:, core.LEARNER] > 0)
    final: st.GameState = done["final"]
    return StepInfo(
        shot=shot,
        legal=shot & v.legal,
        fouls=jnp.where(shot, v.fouls, 0).astype(jnp.int32),
        pot=shot & v.legal & scoring,
        won=done["terminated"] & (final.winner == core.LEARNER),
        score=final.score[:, core.LEARNER],
        stuck=done["stuck"],
        final_obs=observe(final, params, observation),
    )


def observe(games: st.GameState, params: EnvParams, observation: str = "flat") -> Any:
    """The observations (`observation` kind) of a batch from each table's player to move (traceable)."""
    return core.observe_states(games, params.shot_limit, params.noise, observation)


def masks(state: EnvState) -> Any:
    """(B, sum(nvec)) the assisted mode's legal choices (traceable)."""
    return core.legal_masks(state.games)
