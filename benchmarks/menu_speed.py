"""The shot menu's cost against a shot of the kernel, and the throw correction's preselection.

Side by side in one run, on game positions (greedy against random in all four variants,
every move of `--frames` frames):

- the whole shot menu (`agents.menu.shot_menu`, the default 64 slots), greedy's menu and
  the candidates alone (`agents.candidates`, k = 8) at batch `--batch` (1,024 by
  default), per table, in random16 shots of the kernel at the same batch (`piramida
  bench`'s workload): what a bot's choice or an assisted action's masks cost against the
  physics they plan for;
- the same three at batch 1 (median over shot positions);
- how many tables' candidates are identical, slot for slot, to those of correcting every
  shot for throw, not only the plainly preselected best (`candidates.preselection`),
  and the time of both at batch `--batch`.

    python benchmarks/menu_speed.py [--frames 128] [--moves 30] [--json docs/menu_speed.json]
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
from piramida.agents.greedy import GREEDY_MENU
from piramida.agents.menu import Menu, shot_menu
from piramida.envs import core
from piramida.physics import runtime
from piramida.physics.files import write_atomic
from piramida.physics.provenance import stamped
from piramida.physics.workloads import time_kernel
from piramida.rules import state as st
from piramida.rules.game import where_tables
from piramida.rules.setup import default_setup

runtime.use_float64()  # a piramida program: the games compute in float64 throughout

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


def candidates_with(preselect: int) -> Any:
    """The candidates (k = `K`) as a jitted function of (B,) states, `preselect` shots corrected per table."""
    setup, rule = default_setup(), PowerRule()
    return jax.jit(lambda s: ranked_candidates(s, setup, K, preselect, rule))


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
    """Time the menu against the kernel and count identical candidate lists; print, optionally write."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=128)
    parser.add_argument("--moves", type=int, default=30)
    parser.add_argument("--batch", type=int, default=1024)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", help="write the figures here")
    args = parser.parse_args()
    states = positions(args.frames, args.moves)
    live = np.flatnonzero(np.asarray(states.phase) != st.OVER)
    states = jax.tree_util.tree_map(lambda x: x[live], states)
    count = int(live.size)
    rows = np.resize(np.arange(count), args.batch)  # the positions, repeated up to the batch
    batch = jax.tree_util.tree_map(lambda x: x[rows], states)
    shooting = np.flatnonzero(np.asarray(states.phase) <= st.IN_HAND)[:: max(1, count // 64)]
    singles = [jax.tree_util.tree_map(lambda x, i=i: x[i : i + 1], states) for i in shooting]
    programs = {
        "shot menu": jax.jit(lambda s: shot_menu(s, Menu())),
        "greedy's menu": jax.jit(lambda s: shot_menu(s, GREEDY_MENU)),
        "candidates": candidates_with(preselection(K)),
    }
    kernel = time_kernel("random16", args.batch, 4 * args.batch)
    shot_ms = kernel["latency_ms"] / args.batch
    figures: dict[str, Any] = {
        "positions": count,
        "batch": args.batch,
        "random16 kernel ms per table": shot_ms,
    }
    for name, program in programs.items():
        per_table = median_ms(program, [batch], args.repeats) / args.batch
        figures[f"{name} ms per table (batch {args.batch})"] = per_table
        figures[f"{name} per table, in kernel shots"] = per_table / shot_ms
        figures[f"{name} ms (batch 1)"] = median_ms(program, singles, args.repeats)
    every = candidates_with(N * N * POCKETS)
    fast, exhaustive = programs["candidates"](states), every(states)
    valid = np.asarray(exhaustive.valid)
    same = np.asarray(fast.valid) == valid
    for field in FIELDS[1:]:
        a, b = np.asarray(getattr(fast, field)), np.asarray(getattr(exhaustive, field))
        close = np.isclose(a, b, rtol=0.0, atol=1e-6).reshape(count, K, -1).all(axis=-1)
        same &= close | ~valid
    figures["identical candidate lists"] = int(same.all(axis=1).sum())
    figures[f"candidates, every shot corrected, ms per table (batch {args.batch})"] = (
        median_ms(every, [batch], args.repeats) / args.batch
    )
    print(json.dumps(figures, indent=2))
    if args.json:
        write_atomic(args.json, json.dumps(stamped(figures), indent=2))


if __name__ == "__main__":
    main()
