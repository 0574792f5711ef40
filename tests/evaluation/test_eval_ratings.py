"""Elo ratings by maximum likelihood (`evaluation.ratings`): known orderings, known gaps, edge cases."""

from __future__ import annotations

import math

import numpy as np
import pytest

from piramida.evaluation.ratings import MEAN, Games, expected_score, fit


def test_a_75_percent_score_is_400_log10_3_points() -> None:
    # Bradley-Terry with two players: the fit reproduces the observed odds exactly (no prior).
    ratings = fit([Games("a", "b", 750, 250)], prior=0.0)
    assert ratings["a"] - ratings["b"] == pytest.approx(400 * math.log10(3), abs=1e-6)
    assert (ratings["a"] + ratings["b"]) / 2 == pytest.approx(MEAN)
    assert expected_score(ratings["a"], ratings["b"]) == pytest.approx(0.75)


def test_draws_count_half_and_an_even_record_rates_equal() -> None:
    ratings = fit([Games("a", "b", 10, 10, draws=7), Games("b", "c", 5, 5), Games("a", "c", 3, 3, 2)])
    assert ratings["a"] == pytest.approx(ratings["b"]) == pytest.approx(ratings["c"]) == pytest.approx(MEAN)
    # 3 wins + 2 draws against 1 win + 2 draws is 4 to 2: odds of 2.
    two = fit([Games("a", "b", 3, 1, draws=2)], prior=0.0)
    assert two["a"] - two["b"] == pytest.approx(400 * math.log10(2), abs=1e-6)


def test_the_fit_recovers_a_known_ordering_from_sampled_round_robin_games() -> None:
    true = {"w": 1800.0, "x": 1650.0, "y": 1500.0, "z": 1200.0}
    rng = np.random.default_rng(3)
    games = []
    names = list(true)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            n = 400
            a_wins = int(rng.binomial(n, expected_score(true[a], true[b])))
            games.append(Games(b, a, n - a_wins, a_wins))  # either order of a pair
    ratings = fit(games)
    assert sorted(ratings, key=ratings.get, reverse=True) == names
    centred = {k: v - np.mean(list(true.values())) + MEAN for k, v in true.items()}
    for name in names:
        assert ratings[name] == pytest.approx(centred[name], abs=40)  # ~2 sigma at 400 games a pair


def test_an_unbeaten_player_is_finite_with_the_prior_and_rejected_without() -> None:
    games = [Games("a", "b", 8, 0), Games("b", "c", 6, 2), Games("a", "c", 8, 0)]
    ratings = fit(games)
    assert ratings["a"] > ratings["b"] > ratings["c"]
    assert all(math.isfinite(r) for r in ratings.values())
    with pytest.raises(ValueError, match=r"finite rating|convergence"):
        fit(games, prior=0.0, max_iterations=2000)


def test_players_without_games_get_nan_and_order_does_not_matter() -> None:
    games = [Games("a", "b", 5, 3), Games("b", "c", 4, 4, 1), Games("c", "a", 2, 6)]
    ratings = fit(games, players=["c", "b", "a", "idle"])
    assert list(ratings) == ["c", "b", "a", "idle"] and math.isnan(ratings["idle"])
    again = fit(list(reversed(games)))
    for name in "abc":
        assert again[name] == pytest.approx(ratings[name], abs=1e-6)
    with pytest.raises(ValueError, match="negative"):
        fit([Games("a", "b", -1, 2)])
