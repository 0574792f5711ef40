"""What every piramida environment is made of: settings, new frames, observations, decoding, moves, rewards.

The engine that plays the moves (`envs.functional.advance`) and the host-side holder of
the Gymnasium envs' games (`envs.tables.Tables`) are built from these pieces. The batch
is padded to a multiple of `PAD` tables, so one compiled program (the referee, the bots
and the observation around the kernel, which itself compiles once for every size)
serves every env with up to `PAD` tables.

The learner is seat 0 on every table; who breaks first is drawn per frame, and the
breaks of a frame follow G13 only within an episode (one frame is one episode).
Rewards come from the referee's scores: the learner's points minus the opponent's, times
`point_reward`, plus `win_reward` for a won frame (minus it for a lost one).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from piramida.agents import RandomAgent
from piramida.agents.menu import shot_menu
from piramida.envs import actions as act
from piramida.envs import observation as obs
from piramida.physics import noise as noise_model
from piramida.physics.fields import read_int, read_number
from piramida.rules import ids
from piramida.rules import state as st
from piramida.rules.game import Move, Outcome, play, where_tables

LEARNER, OPPONENT = 0, 1
PAD = 8  # tables padded to a multiple of this: one batch shape, one compile of the programs
OPPONENT_MOVE_CAP = 400  # opponent moves in a row before a table is called stuck (a bug, not a rule)
MAX_COUNT = 2**31 - 1  # tables and moves are counted in int32 (the functional env, JAX's indices)

# An opponent plays the batch: (states, keys) -> moves. Bots are `agents.Agent.act`; a
# policy over observations is wrapped by `envs.opponents`.
Policy = Callable[[st.GameState, Any], Move]


@dataclass(frozen=True)
class Settings:
    """What an environment is: fixed for its life (hashable: part of the compiled programs).

    Attributes:
      variant: `ids.FREE` ... `ids.CLASSIC`.
      action_mode: `raw` or `assisted` (`envs.actions`).
      observation: `flat`, `dict` or `menu` (`envs.observation`).
      noise: execution-noise magnitude for both players (a level name is read as its magnitude,
        `physics.noise.level`).
      shot_limit: learner moves in a frame before it is truncated.
      point_reward: reward per point scored (minus per point conceded).
      win_reward: reward for winning the frame (minus for losing it).

    """

    variant: int = ids.FREE
    action_mode: str = "raw"
    observation: str = "flat"
    noise: float = 0.0
    shot_limit: int = 200
    point_reward: float = 1.0
    win_reward: float = 1.0

    def __post_init__(self) -> None:
        """Reject bad settings at construction, naming the field; keep the numbers in one type each.

        The numbers are stored as read (`noise` a float even from a level name), so equal
        settings hash alike and every one is finite: an env never trains on `inf` noise.
        """
        numbers = {
            "variant": read_int(self.variant, "variant", 0, len(ids.VARIANT_NAMES) - 1),
            "noise": noise_model.level(self.noise),
            "shot_limit": read_int(self.shot_limit, "shot_limit", 1, MAX_COUNT),
            "point_reward": read_number(self.point_reward, "point_reward"),
            "win_reward": read_number(self.win_reward, "win_reward"),
        }
        act.action_space(self.action_mode)
        obs.observation_space(self.observation)
        for name, value in numbers.items():
            object.__setattr__(self, name, value)


OPTION_NAMES = ("action_mode", "observation", "noise", "shot_limit", "point_reward", "win_reward")


def variant_id(name: str | int) -> int:
    """A variant's id from its name (`free`, `combined`, `dynamic`, `classic`) or id (checked by Settings)."""
    if isinstance(name, str):
        if name.lower() not in ids.VARIANT_NAMES:
            raise ValueError(f"variant: expected one of {ids.VARIANT_NAMES}, got {name!r:.40}")
        return ids.VARIANT_NAMES.index(name.lower())
    return name


def settings_from(variant: str | int, **options: Any) -> Settings:
    """`Settings` from an env's keyword arguments (`noise` may be a level name); unknown ones named."""
    unknown = sorted(set(options) - set(OPTION_NAMES))
    if unknown:
        raise ValueError(f"unknown option(s) {unknown}; the env options are {list(OPTION_NAMES)}")
    return Settings(variant=variant_id(variant), **options)


def check_reset_options(options: dict[str, Any] | None) -> None:
    """`reset(options=...)`: an env's settings are given when it is made, so any option here is refused.

    Gymnasium's `reset` takes options; ignoring them would leave a caller believing that,
    say, a variant changed.
    """
    if options:
        raise ValueError(
            f"reset: unknown option(s) {sorted(map(str, options))}; this env takes none at reset: "
            f"its settings ({', '.join(OPTION_NAMES)}) are given when it is made"
        )


def padded(batch: int) -> int:
    """The compiled batch size for `batch` tables."""
    return -(-batch // PAD) * PAD


# The compiled programs take only what shapes them as static arguments (the action mode,
# the observation kind): the variant, the noise and the shot limit are traced, so every
# variant and noise level shares one compile.


@jax.jit
def new_frames(keys: Any, variant: Any) -> tuple[st.GameState, Any]:
    """Fresh frames (one per key) with a random first breaker; and the next keys."""
    split = jax.vmap(lambda k: jax.random.split(k, 3))(keys)
    breakers = jax.vmap(lambda k: jax.random.bernoulli(k).astype(jnp.int32))(split[:, 1])
    variants = jnp.full(keys.shape[0], variant, jnp.int32)
    return st.new_games(variants, split[:, 2], breakers), split[:, 0]


@functools.partial(jax.jit, static_argnames=("kind",))
def observe_states(states: st.GameState, shot_limit: Any, noise: Any, kind: str) -> Any:
    """The observations of a batch, from each table's player to move (`envs.observation`)."""
    return obs.observe(states, st.DEFAULT_DIMS, shot_limit, noise, kind)


@jax.jit
def legal_masks(states: st.GameState) -> Any:
    """(B, sum(nvec)) the assisted mode's legal choices of a batch (`envs.actions`)."""
    found = shot_menu(states, act.MENU)
    return jax.vmap(act.assisted_mask_table)(states, found)


def decode(states: st.GameState, actions: Any, mode: str) -> Move:
    """A batch's actions in action mode `mode` as moves (traceable)."""
    dims = st.DEFAULT_DIMS
    if mode == "raw":
        return act.decode_raw(states, actions, dims)
    found = shot_menu(states, act.MENU)
    fallbacks = act.assisted_fallbacks(states, actions, found, dims)
    return jax.vmap(act.decode_assisted_table)(states, actions, found, fallbacks)


# `decode` compiled on its own, for callers outside a jitted step (policy opponents, the AEC env).
decode_moves = jax.jit(decode, static_argnames=("mode",))


def split_keys(keys: Any) -> tuple[Any, Any]:
    """(next keys, keys to use now), per table (traceable)."""
    both = jax.vmap(jax.random.split)(keys)
    return both[:, 0], both[:, 1]


split_keys_host = jax.jit(split_keys)


def play_masked(
    states: st.GameState, moves: Move, keys: Any, active: Any, noise: Any, keep_log: bool = False
) -> tuple[st.GameState, Outcome, Any]:
    """`play` where `active`, the states unchanged elsewhere (no kernel work there); and the next keys.

    The one compiled program of a move for the envs, the arena, the trainers and the tests:
    `noise` is made a float64 array first, so a Python float and an array do not compile
    it twice. With `keep_log` the outcome is one a record of the game needs: each shot's
    event log (`rules.game.play`) and the rule ids its verdict cites. Without, `cited` is
    None: an env's pass, a match and a trainer word no verdict, and leaving the ids out
    takes a third of the operations out of a pass's program (6,343 to 3,955), whose
    compile is most of an env's first reset.
    """
    return _play_masked(states, moves, keys, active, jnp.asarray(noise, jnp.float64), keep_log)


@functools.partial(jax.jit, static_argnames=("keep_log",))
def _play_masked(
    states: st.GameState, moves: Move, keys: Any, active: Any, noise: Any, keep_log: bool
) -> tuple[st.GameState, Outcome, Any]:
    keys, use = split_keys(keys)
    nxt, outcome = play(states, moves, use, noise, active=active, keep_log=keep_log)
    if not keep_log:
        outcome = dataclasses.replace(outcome, verdict=dataclasses.replace(outcome.verdict, cited=None))
    return where_tables(active, nxt, states), outcome, keys


def to_move(states: st.GameState, player: int) -> Any:
    """(B,) tables where `player` is to move in a game that goes on (traceable)."""
    return (states.turn == player) & (states.phase != st.OVER)


def refused(active: Any, outcome: Outcome) -> Any:
    """(B,) tables where a move was played and the referee refused it (traceable)."""
    return active & ((outcome.verdict.invalid != 0) | (outcome.decision_invalid != 0))


def with_fallback(moves: Move, states: st.GameState, keys: Any, where: Any) -> Move:
    """`moves`, but a random legal move where `where` (traceable).

    A deterministic bot would repeat a move the referee refused (a shot whose event log
    overflowed): where it did, a random legal move is played instead.
    """
    return where_tables(where, RandomAgent().act(states, keys), moves)


_where_tables_host = jax.jit(where_tables)


def with_fallback_host(moves: Move, states: st.GameState, keys: Any, where: Any) -> Move:
    """`with_fallback` from the host: the random bot's own program (the random opponent's) and a select."""
    return _where_tables_host(where, RandomAgent().act(states, keys), moves)


GATHER_FROM = 64  # tables: below this the opponent chooses on the whole batch (`replies`)


def reply_bucket(batch: int) -> int:
    """How many tables a pass gathers for the opponent's choice when few tables reply: an eighth.

    Below `GATHER_FROM` tables none: the whole batch. A bot's choice on a few tables costs
    little, and a gathered choice beside the whole batch's is a second copy of the bot's
    program to compile (on a 2-core CPU an 8-table step against greedy compiled and ran
    in 14.5 s against 18.5 s, a tiny jax-ppo run against greedy and itself in 128 s
    against 181 s).
    """
    return batch if batch < GATHER_FROM else batch // 8


def cheap_choice(policy: Policy) -> bool:
    """Whether a policy's choice costs less than gathering the tables that move (the random bot)."""
    return bool(getattr(getattr(policy, "__self__", policy), "cheap_choice", False))


def _gathered(states: st.GameState, keys: Any, index: Any) -> tuple[st.GameState, Any]:
    return jax.tree_util.tree_map(lambda x: x[index], states), keys[index]


def _spread(moves: Move, index: Any, batch: int) -> Move:
    """Moves of gathered tables put back at `index` in a batch of `batch`; zeros elsewhere (unplayed)."""
    return jax.tree_util.tree_map(lambda x: jnp.zeros((batch, *x.shape[1:]), x.dtype).at[index].set(x), moves)


_gather_host = jax.jit(_gathered)
_spread_host = jax.jit(_spread, static_argnames=("batch",))


def replies(policy: Policy, states: st.GameState, keys: Any, replying: Any) -> Move:
    """The policy's moves where `replying` (B,) (traceable); what it gives elsewhere is not played.

    A bot's choice costs as much on a table that waits as on one that moves (greedy's
    menu is most of a pass at 1,024 tables), and in most passes of an opponent's streak
    few tables still move. Where at most `reply_bucket` tables reply, those are gathered
    and the policy chooses on them alone; else on the whole batch. A bot's choice for a
    table depends only on that table's state and key, so the moves are the same either way.
    """
    batch = replying.shape[0]
    bucket = reply_bucket(batch)
    if cheap_choice(policy) or bucket == batch:
        return policy(states, keys)

    def few() -> Move:
        (index,) = jnp.nonzero(replying, size=bucket, fill_value=0)
        return _spread(policy(*_gathered(states, keys, index)), index, batch)

    return lax.cond(jnp.sum(replying) <= bucket, few, lambda: policy(states, keys))


def host_replies(policy: Policy, states: st.GameState, keys: Any, replying: np.ndarray) -> Move:
    """`replies` from the host, for any policy (a policy over observations too): the same gather."""
    batch = replying.shape[0]
    bucket = reply_bucket(batch)
    moving = np.flatnonzero(replying)
    if cheap_choice(policy) or moving.size > bucket or bucket == batch:
        return policy(states, keys)
    index = jnp.asarray(np.resize(moving, bucket) if moving.size else np.zeros(bucket, np.int64))
    return _spread_host(policy(*_gather_host(states, keys, index)), index, batch)


def rewards(before: st.GameState, after: st.GameState, point_reward: Any, win_reward: Any) -> Any:
    """(B,) points won minus points conceded, and the win reward where a frame just ended (traceable)."""
    gained = (after.score - before.score).astype(jnp.float64)
    points = (gained[:, LEARNER] - gained[:, OPPONENT]) * point_reward
    ended = (after.phase == st.OVER) & (before.phase != st.OVER)
    result = jnp.where(after.winner == LEARNER, 1.0, jnp.where(after.winner == OPPONENT, -1.0, 0.0))
    return points + jnp.where(ended, result * win_reward, 0.0)


def reward_of(before: st.GameState, after: st.GameState, settings: Settings) -> np.ndarray:
    """`rewards` between two batches of games, numpy."""
    return np.asarray(rewards(before, after, settings.point_reward, settings.win_reward), np.float64)


def seeds_from(rng: np.random.Generator, count: int) -> np.ndarray:
    """Per-table seeds drawn from a numpy generator (Gymnasium's `np_random`)."""
    return rng.integers(0, 2**31 - 1, size=count, dtype=np.int64)
