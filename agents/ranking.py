"""The k largest of a long 1-D score, exactly as `jax.lax.top_k` gives them, without sorting it all.

XLA's CPU `top_k` sorts its whole input: for the 6,144 (own ball, object ball, cushion,
pocket) scores of a family of the shot menu that cost more than the family's geometry.
Here the scores are cut into blocks, the k blocks with the largest maxima are kept
(every one of the k largest lies in one of them), and only those are ranked: the same
values and indices, ties to the lowest index as `top_k` breaks them.
`benchmarks/menu_speed.py` times both.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

MAX_BLOCK = 64


def top_k(score: Any, k: int) -> tuple[Any, Any]:
    """(values (k,), indices (k,)) of the `k` largest of `score` (n,), largest first, as `lax.top_k`."""
    n = score.shape[0]
    block = 1
    while n // (2 * block) >= 4 * k and block < MAX_BLOCK:
        block *= 2
    if block == 1:
        return jax.lax.top_k(score, k)
    count = -(-n // block)
    padded = jnp.concatenate([score, jnp.full(count * block - n, -jnp.inf, score.dtype)])
    blocks = padded.reshape(count, block)
    # In index order, so that equal scores rank by index as in `top_k`.
    _, kept = jax.lax.top_k(jnp.max(blocks, axis=1), k)
    kept = jnp.sort(kept)
    values, at = jax.lax.top_k(blocks[kept].ravel(), k)
    return values, (kept[:, None] * block + jnp.arange(block)).ravel()[at]
