"""Elo ratings from game results: a Bradley-Terry model fit by maximum likelihood.

Under Bradley-Terry, player i beats player j with probability p_i / (p_i + p_j). On the Elo
scale, rating r_i = 400 log10(p_i) + const, so a difference of 400 points means odds of
10 to 1, as in chess Elo. The fit is Hunter's minorize-maximize iteration ("MM algorithms
for generalized Bradley-Terry models", Annals of Statistics 32, 2004), the same update
as Zermelo's 1929 one: p_i <- W_i / sum_j n_ij / (p_i + p_j), with W_i the wins of i and
n_ij the games between i and j. Each step raises the likelihood, and it converges to
the maximum whenever that maximum is finite.

Choices, so that ratings exist and do not depend on the order of the games (iterated Elo
updates do):

- A draw counts as half a win for each player.
- `prior` virtual draws between every pair that met (default 1: half a win each way)
  keep the ratings of an unbeaten or winless player finite; with `prior=0` the fit is
  the plain maximum-likelihood estimate, which is infinite for such a player.
- Ratings are centred on `MEAN` (1500) over the rated players.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

MEAN = 1500.0  # the mean rating of the rated players
SCALE = 400.0 / math.log(10.0)  # Elo points per natural-log unit of strength


@dataclass(frozen=True)
class Games:
    """The decided games between two players: wins of each and draws."""

    first: str
    second: str
    first_wins: int
    second_wins: int
    draws: int = 0


def expected_score(rating: float, opponent: float) -> float:
    """The probability that a player rated `rating` beats one rated `opponent` (Elo's formula)."""
    return 1.0 / (1.0 + 10.0 ** ((opponent - rating) / 400.0))


def fit(
    games: Iterable[Games],
    players: Sequence[str] | None = None,
    prior: float = 1.0,
    tolerance: float = 1e-10,
    max_iterations: int = 100_000,
) -> dict[str, float]:
    """Elo ratings (module docstring) of `players` (default: everyone in `games`, first seen first).

    A player in `players` with no games gets NaN. Raises ValueError for negative counts or a
    negative prior, and when the fit does not converge (with `prior=0`, an unbeaten player).
    """
    games = list(games)
    if prior < 0:
        raise ValueError(f"ratings: prior must be >= 0, got {prior}")
    names = list(players) if players is not None else []
    for g in games:
        if min(g.first_wins, g.second_wins, g.draws) < 0:
            raise ValueError(f"ratings: negative count in {g}")
        for name in (g.first, g.second):
            if name not in names:
                names.append(name)
    index = {name: k for k, name in enumerate(names)}
    n = len(names)
    wins = np.zeros((n, n))  # wins[i, j]: i's wins over j, draws as halves, plus the prior
    for g in games:
        i, j = index[g.first], index[g.second]
        if i == j or g.first_wins + g.second_wins + g.draws == 0:
            continue
        wins[i, j] += g.first_wins + 0.5 * g.draws
        wins[j, i] += g.second_wins + 0.5 * g.draws
    met = (wins + wins.T) > 0
    wins += 0.5 * prior * met
    played = wins + wins.T
    rated = played.sum(axis=1) > 0
    out = dict.fromkeys(names, math.nan)
    if not rated.any():
        return out
    w = wins[np.ix_(rated, rated)]
    n_ij = played[np.ix_(rated, rated)]
    total_wins = w.sum(axis=1)
    strength = np.ones(len(w))
    for _ in range(max_iterations):
        denominator = (n_ij / (strength[:, None] + strength[None, :])).sum(axis=1)
        new = total_wins / denominator
        if np.any(new <= 0) or not np.all(np.isfinite(new)):
            raise ValueError(
                "ratings: a player with no wins (or only wins) has no finite rating; use prior > 0"
            )
        new /= math.exp(np.mean(np.log(new)))  # the geometric mean stays 1: the scale is free
        change = np.max(np.abs(np.log(new) - np.log(strength)))
        strength = new
        if change < tolerance:
            break
    else:
        raise ValueError(f"ratings: no convergence in {max_iterations} iterations; use prior > 0")
    logs = np.log(strength)
    for k, name in enumerate(np.asarray(names)[rated]):
        out[str(name)] = MEAN + SCALE * float(logs[k] - logs.mean())
    return out
