"""`agents.ranking.top_k` against `jax.lax.top_k`, and `candidates.near_segment` against plain distances."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from piramida.agents.candidates import near_segment
from piramida.agents.ranking import top_k


@pytest.mark.parametrize(
    ("n", "k", "empty"), [(6144, 6, 0.99), (6144, 4, 0.0), (1536, 32, 0.9), (3072, 4, 1.0), (96, 3, 0.5)]
)
def test_top_k_gives_what_lax_top_k_gives_ties_included(n: int, k: int, empty: float) -> None:
    # Scores as the menu's families make them: mostly -inf (no such shot), a few finite,
    # and some finite ties (rounded), so the order among equals is tested too.
    keys = jax.random.split(jax.random.PRNGKey(n + k), 2)
    score = jnp.round(jax.random.normal(keys[0], (n,)) * 4.0) / 4.0
    score = jnp.where(jax.random.uniform(keys[1], (n,)) < empty, -jnp.inf, score)
    values, index = jax.jit(top_k, static_argnums=1)(score, k)
    expected_values, expected_index = jax.lax.top_k(score, k)
    np.testing.assert_array_equal(np.asarray(values), np.asarray(expected_values))
    np.testing.assert_array_equal(np.asarray(index), np.asarray(expected_index))


def test_near_segment_agrees_with_the_distance_to_the_segment() -> None:
    rng = np.random.default_rng(0)
    p, a, b = (rng.uniform(0.0, 1.0, (4000, 2)) for _ in range(3))
    b[:50] = a[:50]  # degenerate segments: the distance to the point a
    ab = b - a
    t = np.clip(np.sum((p - a) * ab, axis=1) / np.maximum(np.sum(ab * ab, axis=1), 1e-18), 0.0, 1.0)
    distance = np.linalg.norm(p - (a + t[:, None] * ab), axis=1)
    reach = 0.2
    far_from_the_edge = np.abs(distance - reach) > 1e-9
    near = np.asarray(near_segment(jnp.asarray(p), jnp.asarray(a), jnp.asarray(b), reach))
    np.testing.assert_array_equal(near[far_from_the_edge], (distance < reach)[far_from_the_edge])
    assert 0.1 < near.mean() < 0.9
