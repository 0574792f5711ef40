"""`candidates.near_segment`, the path test of the menu and the position value, against plain distances."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from piramida.agents.candidates import near_segment


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
