"""The search bot's first move in a fresh process (its compile, or a load from the caches), then later moves.

Run it twice with the same empty cache folder to see a cold and a cached start:

    PIRAMIDA_CACHE_DIR=/tmp/fresh python benchmarks/search_first_move.py
    PIRAMIDA_CACHE_DIR=/tmp/fresh python benchmarks/search_first_move.py
"""

from __future__ import annotations

import time

import jax
import jax.numpy as jnp

from piramida.agents.search import SearchAgent
from piramida.physics import runtime
from piramida.rules import state as st

runtime.use_float64()  # a piramida program: the games compute in float64 throughout


def main() -> None:
    """Time one table's first move at the default level, then three more."""
    agent = SearchAgent()
    key = jax.random.PRNGKey(0)
    states = st.new_games(jnp.zeros(1, jnp.int32), jax.random.split(key, 1), jnp.zeros(1, jnp.int32))
    started = time.perf_counter()
    jax.block_until_ready(agent.act(states, jax.random.split(key, 1)))
    first = time.perf_counter() - started
    later = []
    for k in range(3):
        started = time.perf_counter()
        jax.block_until_ready(agent.act(states, jax.random.split(jax.random.PRNGKey(k + 1), 1)))
        later.append(time.perf_counter() - started)
    print(f"first move {first:.1f} s; later moves {min(later):.2f}-{max(later):.2f} s")


if __name__ == "__main__":
    main()
