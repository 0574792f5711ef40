"""The ghost-ball candidates with the throw correction on every shot or on the plainly preselected best only.

`agents.candidates` judges all 16 x 16 x 6 (own, object, pocket) shots with the plain
ghost-ball aim and corrects for throw only the best few (`preselection`). This script
measures what that costs and changes, side by side in one run:

- how many tables' candidates (k = 8, the default menu's pots) are identical, slot for
  slot, to those of correcting every shot, over game positions (greedy against random
  in all four variants, every move of 128 frames);
- the time of `candidates` and of the whole `shot_menu` at batch 1 (median over shot
  positions) and at batch 256, both ways;
- the time of XLA's `top_k` and of `agents.ranking.top_k` on the scores the menu ranks
  (a family's 6,144 shots, k = 6; the candidates' 1,536, k = 32).

    python benchmarks/menu_speed.py [--frames 128] [--moves 30] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from piramida.agents import make_bot
from piramida.agents.candidates import POCKETS, N, PowerRule, preselection, ranked_candidates
from piramida.agents.menu import Menu, hand_places, table_menu
from piramida.agents.ranking import top_k
from piramida.envs import core
from piramida.physics.files import write_atomic
from piramida.physics.params import PYRAMID_PARAMS, Models
from piramida.physics.table import preset
from piramida.rules import state as st
from piramida.rules.game import where_tables

K = Menu().pots
FIELDS = ("valid", "own", "target", "pocket", "phi", "speed", "place", "score")


def positions(frames: int, moves: int) -> st.GameState:
    """Every table of `frames` greedy-against-random frames (all variants) after each of `moves` moves."""
    keys = jax.random.split(jax.random.PRNGKey(11), frames)
    states = st.new_games(jnp.arange(frames) % 4, keys, jnp.zeros(frames, jnp.int32))
    greedy, walker = make_bot("greedy", 0.15), make_bot("random", 0.15)
    seen = [states]
    for _ in range(moves):
        greedy_moves = (states.turn == 0) ^ (jnp.arange(frames) % 2 == 0)
        chosen = where_tables(greedy_moves, greedy.act(states, keys), walker.act(states, keys))
        states, _, keys = core.play_masked(states, chosen, keys, states.phase != st.OVER, 0.15)
        seen.append(states)
    return jax.tree_util.tree_map(lambda *x: jnp.concatenate(x), *seen)


def programs(preselect: int) -> tuple[Any, Any]:
    """(candidates, shot menu) as jitted functions of (B,) states, `preselect` shots corrected per table."""
    table, params, models, dims, rule = preset(), PYRAMID_PARAMS, Models(), st.DEFAULT_DIMS, PowerRule()

    def ranked(states: st.GameState) -> Any:
        return ranked_candidates(states, dims, K, preselect, rule, table, params, models)

    def menu(states: st.GameState) -> Any:
        best, places = ranked(states), hand_places(states, dims)
        plan = lambda s, c, p: table_menu(s, c, p, Menu(), rule, dims, table, params, models)  # noqa: E731
        return jax.vmap(plan)(states, best, places)

    return jax.jit(ranked), jax.jit(menu)


def median_ms(program: Any, tables: list[st.GameState], repeats: int) -> float:
    """The median time of `program` over `tables` (each warmed up once), in ms."""
    for s in tables:
        jax.block_until_ready(program(s))
    times = []
    for _ in range(repeats):
        for s in tables:
            started = time.perf_counter()
            jax.block_until_ready(program(s))
            times.append(time.perf_counter() - started)
    return float(np.median(times) * 1000.0)


def main() -> None:
    """Count identical candidate lists, then time both ways; print and optionally write the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=128)
    parser.add_argument("--moves", type=int, default=30)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", help="write the figures here")
    args = parser.parse_args()
    states = positions(args.frames, args.moves)
    live = np.flatnonzero(np.asarray(states.phase) != st.OVER)
    states = jax.tree_util.tree_map(lambda x: x[live], states)
    count = int(live.size)
    preselected, exhaustive = programs(preselection(K)), programs(N * N * POCKETS)
    fast, every = preselected[0](states), exhaustive[0](states)
    valid = np.asarray(every.valid)
    same = np.asarray(fast.valid) == valid
    for field in FIELDS[1:]:
        a, b = np.asarray(getattr(fast, field)), np.asarray(getattr(every, field))
        close = np.isclose(a, b, rtol=0.0, atol=1e-6).reshape(count, K, -1).all(axis=-1)
        same &= close | ~valid
    identical = int(same.all(axis=1).sum())
    shooting = np.flatnonzero(np.asarray(states.phase) <= st.IN_HAND)[:: max(1, count // 64)]
    singles = [jax.tree_util.tree_map(lambda x, i=i: x[i : i + 1], states) for i in shooting]
    batch = jax.tree_util.tree_map(lambda x: x[:256], states)
    figures: dict[str, Any] = {"positions": count, "identical candidate lists": identical}
    for name, (ranked, menu) in (("preselected", preselected), ("every shot corrected", exhaustive)):
        figures[name] = {
            "candidates ms (batch 1)": median_ms(ranked, singles, args.repeats),
            "shot menu ms (batch 1)": median_ms(menu, singles, args.repeats),
            "candidates ms (batch 256)": median_ms(ranked, [batch], args.repeats),
            "shot menu ms (batch 256)": median_ms(menu, [batch], args.repeats),
        }
    for n, k in ((6144, 6), (1536, 32)):
        score = jax.random.normal(jax.random.PRNGKey(n), (n,))
        for name, rank in (("XLA top_k", jax.lax.top_k), ("ranking.top_k", top_k)):
            program = jax.jit(lambda x, rank=rank, k=k: rank(x, k))
            figures[f"{name} ms ({n} scores, k {k})"] = median_ms(program, [score], 50 * args.repeats)
    print(json.dumps(figures, indent=2))
    if args.json:
        write_atomic(args.json, json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
