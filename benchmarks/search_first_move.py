"""The search bot's first move in a fresh process (its compile, or a load from the caches), then later moves.

Run it twice with the same empty cache folder to see a cold and a cached start:

    PIRAMIDA_CACHE_DIR=/tmp/fresh python benchmarks/search_first_move.py [--level strong]
    PIRAMIDA_CACHE_DIR=/tmp/fresh python benchmarks/search_first_move.py [--level strong]
"""

from __future__ import annotations

import argparse
import time

import jax
import jax.numpy as jnp

from piramida.agents.search import DEFAULT_LEVEL, LEVELS, SearchAgent
from piramida.physics import runtime
from piramida.rules import state as st

runtime.use_float64()  # a piramida program: the games compute in float64 throughout


def main(argv: list[str] | None = None) -> tuple[float, list[float]]:
    """Time one table's first move at `--level`, then three more: (first, later) seconds."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--level", choices=list(LEVELS), default=DEFAULT_LEVEL)
    args = parser.parse_args(argv)
    agent = SearchAgent(args.level)
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
    return first, later


if __name__ == "__main__":
    main()
