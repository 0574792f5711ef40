"""Head-to-head frames between two bots, played as one batch of tables, and their figures.

`head_to_head` plays `games` frames of one variant at once through `rules.game.play`: at
every step each bot computes its moves for the tables where it is to move (gathered into a
batch of a few fixed sizes, so a slow bot such as `search` does not spend its budget on
the other bot's tables and compiles at most `BUCKETS` shapes), and one `play` call advances
every table. The first bot takes seat 0 on the even tables and seat 1 on the odd ones, and
seat 0 breaks, so each bot breaks first in half of the frames. Both bots shoot with the
same execution noise (`physics.noise`), or each with its own (`noises`: the play page's
levels are a bot and a cue). Each bot has its own key stream and each table its
own keys, so a table's game does not depend on the others.

A frame stops when it is OVER or after `cap` moves (shots and decisions), or is set aside
as stuck after `stuck_after` consecutive refused shots (`verdict.invalid`, in practice an
event-log overflow; a deterministic bot would repeat the refused shot for ever). With no
execution noise two deterministic bots play the same frame on every table that shares a
breaker, so `rack_jitter` starts each frame from a slightly imperfect rack.

Figures per bot (`Tally`), over its shots in these frames:

- shots: shots the referee judged, the break included; pot rate: the share that pocketed
  at least one ball legally (or won a point); fouls/shot; balls/turn: balls scored per
  visit (a run of consecutive shots by the same player); own potted: the share of shots
  on which the struck ball went into a pocket; refused: shots the referee refused.
- clears: frames the bot won from its own break without the opponent ever shooting
  (a clearance from the break).
"""

from __future__ import annotations

import functools
import math
import time
from dataclasses import asdict, dataclass, field
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from piramida.agents.protocol import Agent
from piramida.envs import core
from piramida.rules import ids
from piramida.rules import state as st
from piramida.rules import verdict as vd
from piramida.rules.game import CAPACITY, Move, Outcome, move, play

Z95 = 1.959963984540054  # the 97.5 % quantile of the standard normal
BUCKETS = 4  # a bot's tables are padded to k/BUCKETS of the batch, k = 1..BUCKETS
RACK_JITTER = (0.05, 1e-3, 5e-4)  # degrees, relative spread, m (`jitter_racks`)


@dataclass
class Tally:
    """One bot's counts over its shots in one setting."""

    shots: int = 0
    pots: int = 0
    fouls: int = 0
    balls: int = 0
    points: int = 0
    visits: int = 0
    own_potted: int = 0
    invalid: int = 0
    invalid_kinds: dict[str, int] = field(default_factory=dict)
    decisions: int = 0
    decision_invalid: int = 0
    foul_kinds: dict[str, int] = field(default_factory=dict)
    clears: int = 0
    act_calls: int = 0
    act_seconds: float = 0.0

    def figures(self) -> dict[str, float]:
        """The per-shot and per-visit rates (NaN where there is nothing to divide by)."""
        shots, visits = self.shots or math.nan, self.visits or math.nan
        return {
            "pot_rate": self.pots / shots,
            "fouls_per_shot": self.fouls / shots,
            "balls_per_turn": self.balls / visits,
            "points_per_turn": self.points / visits,
            "own_potted_per_shot": self.own_potted / shots,
        }


def wilson(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion; (nan, nan) for no trials."""
    if trials == 0:
        return math.nan, math.nan
    p = successes / trials
    centre = (p + z * z / (2 * trials)) / (1 + z * z / trials)
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / (1 + z * z / trials)
    # The interval holds p; at p = 0 or 1 rounding could leave it a hair outside.
    return max(0.0, min(p, centre - half)), min(1.0, max(p, centre + half))


def setting_key(seed: int, variant: int, magnitude: float) -> jax.Array:
    """The PRNG key of one setting: the seed, folded with the variant and the magnitude."""
    key = jax.random.fold_in(jax.random.PRNGKey(seed), variant)
    return jax.random.fold_in(key, round(magnitude * 10_000))


def bucket(count: int, batch: int, buckets: int = BUCKETS) -> int:
    """The padded size of `count` tables out of `batch`: the next multiple of batch / buckets.

    Sizes are multiples of `core.PAD`, the envs' batch, so a bot playing up to `PAD`
    tables here runs the program it runs as an env's opponent (one compile for both).
    """
    step = core.padded(math.ceil(core.padded(batch) / buckets))
    return min(core.padded(batch), step * math.ceil(count / step))


@jax.jit
def _gather(tree: Any, index: jax.Array) -> Any:
    return jax.tree_util.tree_map(lambda x: x[index], tree)


@functools.partial(jax.jit, static_argnames=("count",))
def _head(tree: Any, count: int) -> Any:
    return jax.tree_util.tree_map(lambda x: x[:count], tree)


def play_padded(
    states: st.GameState,
    moves: Move,
    keys: jax.Array,
    magnitude: float | np.ndarray,
    capacity: int,
    keep_log: bool = False,
) -> tuple[st.GameState, Outcome]:
    """`play` on B tables, padded to a multiple of `core.PAD` through the envs' `core.play_masked`.

    The padding repeats table 0 and is dropped after the move; a frame's shot draws its
    noise from `keys` split once (as in an env). Another `capacity` than the game's plays
    unpadded, as its own program. `keep_log`: the outcome carries the event logs and the
    rule ids its verdicts cite (what a record needs; `core.play_masked`).
    `magnitude` is one noise for every table or one per table (B,).
    """
    games = len(keys)
    if capacity != CAPACITY:
        return play(states, moves, keys, magnitude, capacity=capacity, keep_log=keep_log)
    rows = np.arange(core.padded(games))
    index = jnp.asarray(np.where(rows < games, rows, 0), jnp.int32)
    active = jnp.asarray(rows < games)
    noise = np.asarray(magnitude, np.float64)
    after, outcome, _ = core.play_masked(
        _gather(states, index),
        _gather(moves, index),
        keys[index],
        active,
        noise[np.asarray(index)] if noise.ndim else noise,
        keep_log,
    )
    return _head((after, outcome), games)


@jax.jit
def _scatter(full: Any, index: jax.Array, part: Any) -> Any:
    return jax.tree_util.tree_map(lambda f, p: f.at[index].set(p), full, part)


@jax.jit
def jitter_racks(states: st.GameState, key: jax.Array) -> st.GameState:
    """Each table's rack as a real one stands: turned, spread and shifted by a hair (`RACK_JITTER`).

    A perfect rack and a perfect cue make every frame of a deterministic pair of bots the
    same frame; real racks differ by fractions of a millimetre, and the break amplifies
    that. The balls on the table are turned about the apex (the ball nearest the house) by
    up to `RACK_JITTER[0]` degrees, spread from it by a factor 1 + up to `RACK_JITTER[1]`
    (touching balls get gaps, never overlaps), and shifted by up to `RACK_JITTER[2]` m.
    """
    turn_deg, spread, shift = RACK_JITTER

    def one(state: st.GameState, k: jax.Array) -> st.GameState:
        k_turn, k_spread, k_shift = jax.random.split(k, 3)
        pos, on = state.positions, state.on_table
        apex = pos[jnp.argmin(jnp.where(on, pos[:, 1], jnp.inf))]
        angle = jnp.radians(jax.random.uniform(k_turn, minval=-turn_deg, maxval=turn_deg))
        scale = 1.0 + jax.random.uniform(k_spread, maxval=spread)
        c, s = jnp.cos(angle), jnp.sin(angle)
        d = pos - apex
        moved = apex + scale * jnp.stack([c * d[:, 0] - s * d[:, 1], s * d[:, 0] + c * d[:, 1]], axis=-1)
        moved = moved + jax.random.uniform(k_shift, (2,), minval=-shift, maxval=shift)
        return state.replace(positions=jnp.where(on[:, None], moved, pos))

    return jax.vmap(one)(states, jax.random.split(key, states.phase.shape[0]))


def moves_of(
    agent: Agent,
    states: st.GameState,
    keys: jax.Array,
    tables: np.ndarray,
    into: Move,
    buckets: int = BUCKETS,
) -> Move:
    """`into` with `agent`'s moves on `tables` (host indices), computed on a padded subset only."""
    if len(tables) == 0:
        return into
    size = bucket(len(tables), len(keys), buckets)
    index = jnp.asarray(np.concatenate([tables, np.full(size - len(tables), tables[0])]), jnp.int32)
    part = agent.act(_gather(states, index), keys[index])
    return _scatter(into, index, part)


def count_step(
    tallies: list[Tally],
    seat_bot: np.ndarray,
    turn: np.ndarray,
    phase: np.ndarray,
    outcome: Outcome,
    last_shooter: np.ndarray,
) -> None:
    """Add one step's shots and decisions to the bots' tallies (`last_shooter` is updated).

    `seat_bot[t, seat]` is the index into `tallies` of the bot in that seat of table t.
    """
    v = outcome.verdict
    shot = np.asarray(outcome.shot)
    invalid = np.asarray(v.invalid)
    legal = np.asarray(v.legal)
    fouls = np.asarray(v.fouls)
    scored = np.asarray(v.scored)
    points = np.asarray(v.points)
    struck = np.asarray(outcome.strike.ball)
    pocket = np.asarray(outcome.result.pocket)
    decision_invalid = np.asarray(outcome.decision_invalid)
    rows = np.arange(len(turn))
    own_potted = pocket[rows, np.clip(struck, 0, ids.N_BALLS - 1)] >= 0
    gained = points[rows, turn]
    for t in np.flatnonzero(phase == st.DECISION):
        tally = tallies[seat_bot[t, turn[t]]]
        tally.decisions += 1
        tally.decision_invalid += int(decision_invalid[t] != 0)
    for t in np.flatnonzero(shot):
        tally = tallies[seat_bot[t, turn[t]]]
        if invalid[t] != 0:
            tally.invalid += 1
            for k, why in enumerate(vd.INVALID_NAMES):
                if invalid[t] >> k & 1:
                    tally.invalid_kinds[why] = tally.invalid_kinds.get(why, 0) + 1
            continue
        balls = int(scored[t].sum())
        tally.shots += 1
        tally.pots += int(bool(legal[t]) and (balls > 0 or gained[t] > 0))
        tally.fouls += int(fouls[t] != 0)
        tally.balls += balls
        tally.points += int(gained[t])
        tally.own_potted += int(own_potted[t])
        if last_shooter[t] != turn[t]:
            tally.visits += 1
            last_shooter[t] = turn[t]
        for k, foul in enumerate(vd.FOUL_NAMES):
            if foul and fouls[t] >> k & 1:
                tally.foul_kinds[foul] = tally.foul_kinds.get(foul, 0) + 1


def head_to_head(
    agents: tuple[tuple[str, Agent], tuple[str, Agent]],
    variant: int,
    magnitude: float,
    games: int,
    cap: int,
    seed: int,
    stuck_after: int = 10,
    capacity: int = CAPACITY,
    on_step: Any = None,
    rack_jitter: bool = False,
    buckets: int = BUCKETS,
    on_play: Any = None,
    noises: tuple[float, float] | None = None,
) -> dict[str, Any]:
    """Play `games` frames between two named bots as one batch; the setting's figures (module docstring).

    Args:
      agents: ((name, agent), (name, agent)): the first takes seat 0 on even tables.
      variant, magnitude: the variant (`ids`) and the execution-noise magnitude (it seeds
        the setting's key, `setting_key`, also where `noises` sets the bots' own).
      games, cap, seed: batch size, moves per frame before it counts as unfinished, seed.
      stuck_after: refused shots in a row before a table is set aside (0: never).
      capacity: event-log slots per shot.
      on_step: called after every step with (steps, tables over, tables stuck), for progress.
      rack_jitter: start from imperfect racks (`jitter_racks`), so that frames differ even
        between deterministic bots with no execution noise.
      buckets: a bot's tables are padded to k / buckets of the batch (k = 1..buckets): more
        buckets waste less work on padding and compile more shapes.
      on_play: called after every `play` with (states before, moves, states after, outcome),
        all (B,), for whoever keeps more than the tallies (match records, `replays`): the
        outcome then carries the shots' event logs.
      noises: each bot's own execution-noise magnitude, in the order of `agents` (default:
        both `magnitude`); a shot takes the noise of the bot that plays it.

    """
    names = [agents[0][0], agents[1][0]]
    own = (magnitude, magnitude) if noises is None else noises
    bots = [agents[0][1], agents[1][1]]
    first_seat = np.arange(games) % 2  # the seat of the first bot on each table
    seat_bot = np.where(np.arange(2)[None, :] == first_seat[:, None], 0, 1)  # (B, 2): bot index per seat
    key = setting_key(seed, variant, magnitude)
    key, game_key = jax.random.split(key)
    states = st.new_games(
        jnp.full(games, variant, jnp.int32), jax.random.split(game_key, games), jnp.zeros(games, jnp.int32)
    )
    if rack_jitter:
        states = jitter_racks(states, jax.random.fold_in(game_key, 1))
    tallies = [Tally(), Tally()]
    last_shooter = np.full(games, -1)
    shots_by_seat = np.zeros((games, 2), np.int64)
    refused_run = np.zeros(games, np.int64)
    stuck = np.zeros(games, bool)
    start = time.perf_counter()
    steps = 0
    for _ in range(cap):
        phase, turn = np.asarray(states.phase), np.asarray(states.turn)
        live = phase != st.OVER
        if not np.any(live):
            break
        key, k_second, k_first, k_play = jax.random.split(key, 4)
        moves = move(ball=jnp.zeros(games, jnp.int32))
        for b, bot_key in enumerate((k_first, k_second)):
            mine = np.flatnonzero(live & (seat_bot[np.arange(games), turn] == b))
            tick = time.perf_counter()
            moves = moves_of(bots[b], states, jax.random.split(bot_key, games), mine, moves, buckets)
            jax.block_until_ready(moves)
            if len(mine):
                tallies[b].act_calls += 1
                tallies[b].act_seconds += time.perf_counter() - tick
        before = states
        noise = own[0] if own[0] == own[1] else np.asarray(own)[seat_bot[np.arange(games), turn]]
        states, outcome = play_padded(
            states, moves, jax.random.split(k_play, games), noise, capacity, keep_log=on_play is not None
        )
        if on_play is not None:
            on_play(before, moves, states, outcome)
        steps += 1
        count_step(tallies, seat_bot, turn, phase, outcome, last_shooter)
        judged = np.asarray(outcome.shot) & (np.asarray(outcome.verdict.invalid) == 0)
        shots_by_seat[np.arange(games), turn] += judged
        refused = np.asarray(outcome.shot) & (np.asarray(outcome.verdict.invalid) != 0)
        refused_run = np.where(refused, refused_run + 1, 0)
        if stuck_after > 0 and np.any(~stuck & (refused_run >= stuck_after)):
            stuck |= refused_run >= stuck_after
            states = states.replace(phase=jnp.where(jnp.asarray(stuck), st.OVER, states.phase))
        if on_step is not None:
            over = np.asarray(states.phase) == st.OVER
            on_step(steps, int(np.sum(over & ~stuck)), int(stuck.sum()))
    seconds = time.perf_counter() - start

    phase, winner = np.asarray(states.phase), np.asarray(states.winner)
    breaker, score = np.asarray(states.breaker), np.asarray(states.score)
    over = (phase == st.OVER) & ~stuck
    rows = np.arange(games)
    won = [over & (winner == first_seat), over & (winner == 1 - first_seat)]
    cleared = (
        over & (winner >= 0) & (winner == breaker) & (shots_by_seat[rows, 1 - np.maximum(winner, 0)] == 0)
    )
    for b in range(2):
        tallies[b].clears = int(np.sum(cleared & won[b]))
    scores = [score[rows, first_seat], score[rows, 1 - first_seat]]
    wins = [int(w.sum()) for w in won]
    low, high = wilson(wins[0], wins[0] + wins[1])
    return {
        "variant": ids.VARIANT_NAMES[variant],
        "noise": magnitude,
        "noises": dict(zip(names, [float(m) for m in own], strict=True)),
        "games": games,
        "agents": names,
        "steps": steps,
        "seconds": seconds,
        "wins": dict(zip(names, wins, strict=True)),
        "draws": int(np.sum(over & (winner < 0))),
        "unfinished": int(np.sum(~over)),
        "stuck": int(stuck.sum()),
        "unfinished_first_ahead": int(np.sum(~over & (scores[0] > scores[1]))),
        "win_rate": wins[0] / (wins[0] + wins[1]) if wins[0] + wins[1] else math.nan,
        "win_rate_ci95": [low, high],
        "mean_shots_per_frame": float(np.mean(np.asarray(states.shots))),
        "mean_score": {names[b]: float(np.mean(scores[b])) for b in range(2)},
        "bots": {names[b]: {**asdict(tallies[b]), **tallies[b].figures()} for b in range(2)},
    }
