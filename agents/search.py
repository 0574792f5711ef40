"""The search bot: plans every shot by simulating its candidates with the batched kernel.

The method of the computational-pool champions (CueCard, PickPocket), on piramida's
kernel: generate candidate shots by geometry (`agents.menu`), simulate each, let the
referee judge every outcome (`rules.game.play`: fouls and penalties included), add the
value of the position left (`agents.position`), and play the best. All of it, for a
whole batch of tables, is one `jit`.

Two stages spend the budget where it matters:

1. every menu move is simulated with no random noise: with no execution noise once, as
   intended (the kernel is deterministic, so this is the shot's exact outcome); under
   noise twice, aimed `SIGMA_PHI_DEG x magnitude` either side of the intended line (the
   two-point Gauss-Hermite rule for the mean over the Gaussian aim error), so that a
   thin cut to a far pocket, perfect only when struck perfectly, ranks below a pot that
   forgives the miss. Stage 1 weeds out what cannot work (kisses, blocked paths, the own
   ball following in) and ranks the rest;
2. the `finalists` best are simulated `samples` times under the execution noise the bot
   plans for, with the same noise draws for every finalist (common random numbers, so
   their comparison is not blurred by luck), and the best mean value wins.

The value of an outcome, from the shooter's side, in fractions of a frame:
`(points gained - points conceded + w * s * p) / target + win`, where `p` is the
expected points of the best next pot (`position.pot_chances`) for whoever moves next,
`s` +1 if that is the shooter and -1 if the opponent, `w` the position weight, `target`
the points that win the frame (8, or 71 in Classic, FREE-1/CLS-1) and `win` +-1 when the
shot ends the frame. In Free pyramid, a pure race to 8 balls, the value is the chance of
winning the race instead, `2 W - 1` (`position.race_value`), which weighs keeping the turn
as a race does. A decision the outcome leaves pending (after a foul) is resolved by
the default policy before it is valued. Decisions at the root (G6, G12.2, DYN-7, the
penalty and exchange balls) are chosen by the same value over every allowed (option,
ball) pair, not by the default policy.

`budget` = menu size (x 2 under noise) + finalists x samples simulations per decision; `LEVELS` names
presets from `easy` to `strongest`. Deterministic for a given key.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from typing import Any

import jax
import jax.numpy as jnp
from jax import Array

from piramida.agents.candidates import PowerRule
from piramida.agents.menu import Family, Menu, moves_at, shot_menu
from piramida.agents.position import pot_chances, race_value
from piramida.physics import noise
from piramida.rules import ids
from piramida.rules import state as st
from piramida.rules import verdict as vd
from piramida.rules.decisions import Decision, decide, default_decision
from piramida.rules.game import Move, play
from piramida.rules.setup import Setup, default_setup

# Event-log slots of each simulated outcome: fewer than the game's (`rules.game.CAPACITY`),
# to keep the many simulations of a decision cheap; the rare longer shot (a slow push
# through a cluster) counts as a foul, so the bot only shies away from it.
SEARCH_CAPACITY = 256
ILLEGAL = -1e3  # the value of a move the referee refuses before the shot (never chosen if any other is legal)
UNSEARCHED = 3.0 * ILLEGAL  # a legal slot a search guided by a network did not strike (`agents.trained`)
AIM_NODES = (1.0, -1.0)  # the two-point Gauss-Hermite nodes, in aim sigmas (equal weights)
BEFORE_SHOT = (
    (1 << vd.BAD_PHASE) | (1 << vd.BAD_OVER) | (1 << vd.BAD_OWN) | (1 << vd.BAD_PLACE) | (1 << vd.BAD_CALL)
)


@dataclass(frozen=True)
class SearchConfig:
    """How the search spends its simulations (static: hashable).

    Attributes:
      menu: the candidate families and their slots (`agents.menu.Menu`).
      finalists: stage-2 candidates (0: stage 1 decides).
      samples: noisy simulations per finalist.
      quadrature: stage 1 aims each move at +-1 aim sigma (module docstring; off with no noise).
      position_weight: w, the weight of the next pot's expected points (not in Free pyramid,
        valued as a race).
      capacity: event-log slots of each simulation (an overflowing outcome counts as a foul).

    """

    menu: Menu = Menu()  # noqa: RUF009 (frozen, hashable)
    finalists: int = 6
    samples: int = 8
    quadrature: bool = True
    position_weight: float = 0.8
    capacity: int = SEARCH_CAPACITY

    @property
    def budget(self) -> int:
        """Simulations per decision."""
        nodes = len(AIM_NODES) if self.quadrature else 1
        return self.menu.size * nodes + self.finalists * self.samples


LEVELS: dict[str, SearchConfig] = {
    "easy": SearchConfig(
        menu=Menu(pots=3, in_offs=0, doubles=0, kicks=0, safety_pairs=1), finalists=0, quadrature=False
    ),
    "medium": SearchConfig(
        menu=Menu(pots=5, in_offs=2, doubles=2, kicks=2, safety_pairs=2), finalists=3, samples=4
    ),
    "strong": SearchConfig(),
    "strongest": SearchConfig(
        menu=Menu(pots=12, in_offs=8, doubles=10, kicks=8, safety_pairs=4), finalists=12, samples=16
    ),
}
DEFAULT_LEVEL = "strong"


def outcome_value(
    before: st.GameState,
    after: st.GameState,
    invalid: Any,
    magnitude: Any,
    config: SearchConfig,
    setup: Setup,
) -> Any:
    """One table: the value of going from `before` to `after` for `before`'s mover (module docstring).

    `invalid` is the referee's `verdict.invalid` (0 for a decision): a move refused before
    the shot is worth `ILLEGAL`; an overflowing log (the outcome unknown) counts as a
    conceded point.
    """
    me, opponent = before.turn, 1 - before.turn
    decided = jnp.where(after.phase == st.DECISION, 1, 0)
    resolved_invalid, resolved = decide(after, default_decision(after, setup.dims), setup.dims)
    after = jax.tree_util.tree_map(lambda x, y: jnp.where(decided == 1, x, y), resolved, after)
    del resolved_invalid
    target = jnp.where(before.variant == ids.CLASSIC, st.CLASSIC_TARGET, st.FREE_TARGET)
    gain = (after.score[me] - after.score[opponent]) - (before.score[me] - before.score[opponent])
    over = after.phase == st.OVER
    result = jnp.where(
        over & (after.winner == me), 1.0, jnp.where(over & (after.winner == opponent), -1.0, 0.0)
    )
    chance, points = pot_chances(after, magnitude, setup)
    side = jnp.where(after.turn == me, 1.0, -1.0)
    value = (gain + jnp.where(over, 0.0, side * config.position_weight * points)) / target + result
    # Free pyramid is a pure race to 8 balls, any ball for any ball (FREE-1, FREE-5): the
    # chance of winning it, not the points, which undervalue keeping the turn.
    need = jnp.clip(st.FREE_TARGET - after.score[jnp.stack([me, opponent])], 1, st.FREE_TARGET)
    race = 2.0 * race_value(need, chance, after.turn == me, magnitude, st.FREE_TARGET) - 1.0
    value = jnp.where((before.variant == ids.FREE) & ~over, race, value)
    overflow = (invalid & (1 << vd.BAD_OVERFLOW)) != 0
    value = jnp.where(overflow, -1.0 / target, value)
    return jnp.where((invalid & BEFORE_SHOT) != 0, ILLEGAL, value)


def _repeat(tree: Any, times: int) -> Any:
    """Each table's row repeated `times` times in a row (B -> B * times)."""
    return jax.tree_util.tree_map(lambda x: jnp.repeat(x, times, axis=0), tree)


def _simulate_values(
    states: st.GameState,
    moves: Move,
    keys: Array,
    magnitude: Any,
    config: SearchConfig,
    setup: Setup,
    active: Any = None,
) -> Any:
    """The values of B x M moves (`moves` fields (B, M), keys (B, M, 2)): one batched `play`.

    `active` (B, M), where given, marks the moves to strike; the others cost the kernel
    nothing and their values are to be thrown away.
    """
    batch, count = moves.ball.shape
    flat_states = _repeat(states, count)
    flat_moves = jax.tree_util.tree_map(lambda x: x.reshape(batch * count, *x.shape[2:]), moves)
    after, outcome = play(
        flat_states,
        flat_moves,
        keys.reshape(-1, 2),
        magnitude,
        setup,
        config.capacity,
        active=None if active is None else active.reshape(-1),
    )
    values = jax.vmap(lambda b, a, i: outcome_value(b, a, i, magnitude, config, setup))(
        flat_states, after, outcome.verdict.invalid
    )
    return values.reshape(batch, count)


def staged_values(
    states: st.GameState,
    moves: Move,
    valid: Any,
    keys: Array,
    magnitude: Any,
    config: SearchConfig,
    setup: Setup,
) -> tuple[Any, Any, Any]:
    """Both stages on B tables' M moves: stage-1 values (B, M), finalists (B, F), their means (B, F).

    The stages' simulations run M per table at a time through one `play` in a loop:
    stage 1 is one round per aim node, stage 2 as many rounds as its `finalists x samples`
    need (the last one's spare moves struck by no one). The program then holds one copy of
    the kernel, the referee and the valuation, not one per stage, and compiles in less
    time; the spare moves cost the referee and the valuation but not the kernel. `valid`
    (B, M) marks the slots that hold a move; stage 2 picks among them.
    """
    batch, size = moves.ball.shape
    nodes = AIM_NODES if config.quadrature else (0.0,)
    finalists, samples = config.finalists, config.samples
    sims = finalists * samples
    rounds_two = -(-sims // size)  # ceil
    spare = rounds_two * size - sims
    sample_active = jnp.arange(rounds_two * size) < sims
    exact = jnp.zeros((batch, size, 2), jnp.uint32)  # no random noise: keys unused

    def finalists_of(values_one: Any) -> tuple[Any, Any]:
        stage_one = jnp.where(valid, values_one.mean(axis=0), 2.0 * ILLEGAL)
        return jax.lax.top_k(stage_one, max(finalists, 1))

    def one_round(index: Any, values: Any) -> Any:
        node = jnp.asarray(nodes)[jnp.minimum(index, len(nodes) - 1)]
        aimed = moves.replace(phi=moves.phi + noise.SIGMA_PHI_DEG * magnitude * node)
        if rounds_two == 0:
            return values.at[index].set(_simulate_values(states, aimed, exact, 0.0, config, setup))
        _, top = finalists_of(values[: len(nodes)])
        noisy, sample_keys = _finalist_samples(moves, top, keys, samples)
        noisy, sample_keys = jax.tree_util.tree_map(
            lambda x: jnp.pad(x, ((0, 0), (0, spare)) + ((0, 0),) * (x.ndim - 2)), (noisy, sample_keys)
        )
        start = jnp.maximum(index - len(nodes), 0) * size
        chunk, chunk_keys = jax.tree_util.tree_map(
            lambda x: jax.lax.dynamic_slice_in_dim(x, start, size, axis=1), (noisy, sample_keys)
        )
        first = index < len(nodes)
        struck = jax.tree_util.tree_map(lambda x, y: jnp.where(first, x, y), aimed, chunk)
        round_keys = jnp.where(first, exact, chunk_keys)
        active = first | jax.lax.dynamic_slice_in_dim(sample_active, start, size)
        active = jnp.broadcast_to(active, (batch, size))
        value = _simulate_values(
            states, struck, round_keys, jnp.where(first, 0.0, magnitude), config, setup, active
        )
        return values.at[index].set(value)

    rounds = len(nodes) + rounds_two
    values = jax.lax.fori_loop(0, rounds, one_round, jnp.zeros((rounds, batch, size)))
    top_values, top = finalists_of(values[: len(nodes)])
    top_values, top = top_values[:, :finalists], top[:, :finalists]
    means = values[len(nodes) :].transpose(1, 0, 2).reshape(batch, -1)[:, :sims]
    means = means.reshape(batch, finalists, samples).mean(axis=-1)
    means = jnp.where(top_values <= ILLEGAL, top_values, means)  # an illegal finalist stays illegal
    return values[: len(nodes)].mean(axis=0), top, means


def stage_one_values(
    states: st.GameState,
    moves: Move,
    magnitude: Any,
    config: SearchConfig,
    setup: Setup,
) -> Any:
    """Stage 1 (module docstring): the values of B x M moves struck with no random noise, (B, M).

    With `config.quadrature`, each move's value is the mean over `AIM_NODES` aim errors of
    `SIGMA_PHI_DEG x magnitude` degrees; otherwise the value of the move as intended.
    """
    batch = moves.ball.shape[0]
    keys = jnp.zeros((batch, 2), jnp.uint32)
    valid = jnp.ones(moves.ball.shape, bool)
    values, _, _ = staged_values(states, moves, valid, keys, magnitude, replace(config, finalists=0), setup)
    return values


def _best_decision(
    state: st.GameState,
    magnitude: Any,
    config: SearchConfig,
    setup: Setup,
) -> Decision:
    """One table's decision: the allowed (option, ball) pair whose resulting position is worth most."""
    options = jnp.repeat(jnp.arange(4, dtype=jnp.int32), ids.N_BALLS + 1)
    balls = jnp.tile(jnp.arange(-1, ids.N_BALLS, dtype=jnp.int32), 4)

    def value_of(option: Any, ball: Any) -> Any:
        invalid, after = decide(state, Decision(option, ball), setup.dims)
        value = outcome_value(state, after, jnp.int32(0), magnitude, config, setup)
        return jnp.where(invalid != 0, -jnp.inf, value)

    values = jax.vmap(value_of)(options, balls)
    best = jnp.argmax(values)
    fallback = default_decision(state, setup.dims)
    found = jnp.isfinite(values[best])
    return Decision(
        option=jnp.where(found, options[best], fallback.option),
        ball=jnp.where(found, balls[best], fallback.ball),
    )


@jax.tree_util.register_dataclass
@dataclass(frozen=True)
class Analysis:
    """What a search saw on a batch of tables: the menu, its values and its choice.

    Attributes:
      menu: the shot menu (`agents.menu.shot_menu`, fields (B, M)).
      values: (B, M) stage-1 values; `2 ILLEGAL` where a slot is empty (a search guided by
        a network, `agents.trained.network_search`: the stage-2 means of its finalists,
        `UNSEARCHED` at the other legal slots).
      slot: (B,) the slot played.
      value: (B,) its value (the stage-2 mean where stage 2 ran).
      prior: (B, M) the guiding network's policy (its softmax over the legal slots) where a
        network guided the search; None for the search bot's own stage 1.

    """

    menu: Family
    values: Any
    slot: Any
    value: Any
    prior: Any = None


def analyse(
    states: st.GameState,
    keys: Array,
    magnitude: Any,
    config: SearchConfig,
    setup: Setup,
    rule: PowerRule,
) -> Analysis:
    """The two stages of the module docstring on (B,) states with (B, 2) keys (traceable)."""
    menu = shot_menu(states, config.menu, rule, setup)
    values, top, means = staged_values(states, menu.moves, menu.valid, keys, magnitude, config, setup)
    values = jnp.where(menu.valid, values, 2.0 * ILLEGAL)
    if config.finalists == 0:
        slot = jnp.argmax(values, axis=1)
        return Analysis(menu=menu, values=values, slot=slot, value=jnp.max(values, axis=1))
    best = jnp.argmax(means, axis=1)
    slot = jnp.take_along_axis(top, best[:, None], axis=1)[:, 0]
    return Analysis(menu=menu, values=values, slot=slot, value=jnp.max(means, axis=1))


def finalist_values(
    states: st.GameState,
    moves: Move,
    top: Any,
    keys: Array,
    magnitude: Any,
    config: SearchConfig,
    setup: Setup,
) -> Any:
    """Stage 2 (module docstring): the mean values (B, F) of the menu slots `top` (B, F) of `moves` (B, M).

    Each finalist is struck `config.samples` times under the execution noise, with the same
    draws for every finalist of a table (common random numbers).
    """
    batch, finalists = top.shape
    noisy, sample_keys = _finalist_samples(moves, top, keys, config.samples)
    means = _simulate_values(states, noisy, sample_keys, magnitude, config, setup)
    return means.reshape(batch, finalists, config.samples).mean(axis=-1)


def _finalist_samples(moves: Move, top: Any, keys: Array, samples: int) -> tuple[Move, Array]:
    """Stage 2's strikes, (B, F x S): each finalist `top` (B, F) of `moves` `samples` times in a row.

    And their keys: every finalist of a table gets the same `samples` draws of its key
    (common random numbers).
    """
    draws = jax.vmap(lambda k: jax.random.split(k, samples))(keys)  # (B, S, 2)
    noisy = jax.tree_util.tree_map(lambda x: jnp.repeat(x, samples, axis=1), _pick(moves, top))
    return noisy, jnp.tile(draws, (1, top.shape[1], 1))


def _pick(moves: Move, index: Any) -> Move:
    """The moves (B, M) at `index` (B, F): (B, F)."""
    return jax.tree_util.tree_map(
        lambda x: jnp.take_along_axis(x, index.reshape(index.shape + (1,) * (x.ndim - 2)), axis=1), moves
    )


def best_decisions(
    states: st.GameState,
    magnitude: Any,
    config: SearchConfig,
    setup: Setup,
) -> Decision:
    """(B,) the decisions the search's value prefers (`_best_decision` per table)."""
    return jax.vmap(lambda s: _best_decision(s, magnitude, config, setup))(states)


@functools.partial(jax.jit, static_argnames=("config", "rule"))
def analysed_moves(
    states: st.GameState,
    keys: Array,
    magnitude: Any,
    config: SearchConfig,
    setup: Setup,
    rule: PowerRule,
) -> tuple[Move, Analysis]:
    """`SearchAgent.act` as a function, (B,) states and (B, 2) keys -> (B,) moves, and what the search saw.

    The analysis is the labels a policy learning from the search bot takes (`training.expert`).
    """
    found = analyse(states, keys, magnitude, config, setup, rule)
    shot = moves_at(found.menu.moves, found.slot)
    decision = best_decisions(states, magnitude, config, setup)
    return shot.replace(option=decision.option, take=decision.ball), found


class SearchAgent:
    """The search bot (module docstring): simulate the menu, judge, value the position, play the best.

    Args:
      level: a preset of `LEVELS` (`easy`, `medium`, `strong`, `strongest`).
      noise: the execution-noise magnitude the bot plans for (a `physics.noise.LEVELS` name
        or a number): match it to the noise of the games it plays.
      config: a `SearchConfig` instead of a level.
      rule: the power rule.
      setup: the table and its physics (`rules.setup.Setup`; default: `default_setup()`).

    """

    name = "search"

    def __init__(
        self,
        level: str = DEFAULT_LEVEL,
        noise_level: str | float = "pro",
        config: SearchConfig | None = None,
        rule: PowerRule = PowerRule(),  # noqa: B008 (frozen, hashable)
        setup: Setup | None = None,
    ) -> None:
        """A search bot at `level` (or with `config`), planning for `noise_level`."""
        if config is None:
            if level not in LEVELS:
                raise ValueError(f"search: unknown level {level!r}; choose from {list(LEVELS)}")
            config = LEVELS[level]
        if config.menu.pots < 3:
            raise ValueError("search: the menu needs at least 3 pots (the break placements use their slots)")
        self.magnitude = noise.level(noise_level)
        if self.magnitude == 0.0:
            # No noise: stage 1's exact simulation says all; noisy samples would repeat it.
            config = replace(config, finalists=0, quadrature=False)
        self.config = config
        self.rule = rule
        self.setup = default_setup() if setup is None else setup

    @property
    def budget(self) -> int:
        """Simulations per decision."""
        return self.config.budget

    def act(self, states: st.GameState, keys: Array) -> Move:
        """The search's moves: states (B,), keys (B, 2)."""
        moves, _ = analysed_moves(
            states,
            keys,
            self.magnitude,
            self.config,
            self.setup,
            self.rule,
        )
        return moves
