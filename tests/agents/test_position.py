"""The race model behind the search bot's value in Free pyramid (`agents.position.race_value`)."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pytest

from piramida.agents.position import RUN_RATES, race_table, race_value, run_rate


def simulated_race(mover_needs: int, other_needs: int, rate: float, races: int, seed: int) -> float:
    """The share of `races` that the player to move wins, played out shot by shot."""
    rng = np.random.default_rng(seed)
    needs = np.tile([mover_needs, other_needs], (races, 1))
    shooter = np.zeros(races, int)  # 0: the first mover
    winner = np.full(races, -1)
    while np.any(winner < 0):
        live = winner < 0
        pots = live & (rng.uniform(size=races) < rate)
        rows = np.flatnonzero(pots)
        needs[rows, shooter[rows]] -= 1
        done = pots & (needs[np.arange(races), shooter] == 0)
        winner[done] = shooter[done]
        shooter = np.where(live & ~pots, 1 - shooter, shooter)
    return float(np.mean(winner == 0))


@pytest.mark.parametrize(("mover", "other", "rate"), [(3, 5, 0.8), (5, 3, 0.8), (8, 8, 0.886), (2, 1, 0.6)])
def test_the_race_table_is_the_chance_that_the_mover_wins_a_played_out_race(
    mover: int, other: int, rate: float
) -> None:
    races = 40_000
    played = simulated_race(mover, other, rate, races, seed=mover * 10 + other)
    table = np.asarray(race_table(jnp.float64(rate), 8))
    assert abs(table[mover, other] - played) < 4 * np.sqrt(0.25 / races), (table[mover, other], played)


def test_the_race_table_favours_the_mover_and_fewer_balls_needed() -> None:
    table = np.asarray(race_table(jnp.float64(0.886), 8))
    assert (table[0, 1:] == 1).all() and (table[1:, 0] == 0).all()
    inner = table[1:, 1:]
    assert (np.diff(inner, axis=0) < 0).all()  # needing one more ball: a smaller chance
    assert (np.diff(inner, axis=1) > 0).all()  # the other needing one more: a larger one
    assert (np.diag(inner) > 0.5).all()  # level needs: the table is the mover's advantage
    weaker = np.asarray(race_table(jnp.float64(0.6), 8))
    assert table[8, 8] > weaker[8, 8] > 0.5  # the better the run rate, the more the turn is worth


def test_the_race_value_reads_the_same_from_either_side() -> None:
    magnitude = 0.15
    for need, chance in [((3, 5), 0.7), ((1, 8), 0.2), ((8, 1), 0.95)]:
        mine = race_value(jnp.asarray(need), chance, jnp.asarray(True), magnitude, 8)
        theirs = race_value(jnp.asarray(need[::-1]), chance, jnp.asarray(False), magnitude, 8)
        assert float(mine) == pytest.approx(1.0 - float(theirs), abs=1e-12)
    # A sure pot of my last ball wins; the opponent's sure pot of his last ball loses.
    assert float(race_value(jnp.asarray((1, 4)), 1.0, jnp.asarray(True), magnitude, 8)) == 1.0
    assert float(race_value(jnp.asarray((4, 1)), 1.0, jnp.asarray(False), magnitude, 8)) == 0.0
    # Keeping the turn with a sitter beats leaving the opponent one.
    keep = race_value(jnp.asarray((5, 5)), 0.9, jnp.asarray(True), magnitude, 8)
    leave = race_value(jnp.asarray((5, 5)), 0.9, jnp.asarray(False), magnitude, 8)
    assert float(keep) > 0.5 > float(leave)


def test_the_run_rate_follows_the_measured_pot_rates_between_the_noise_levels() -> None:
    assert [float(run_rate(m)) for m in (0.0, 0.15, 0.45)] == list(RUN_RATES)
    assert RUN_RATES[1] > float(run_rate(0.3)) > RUN_RATES[2]
