"""One decision at batch 1, side by side: the trained bot, greedy and the search bot (menu included).

Positions: every variant's break, then the tables of four greedy-against-random frames per
variant after 2 to 12 moves (ordinary shots, balls in hand, pending decisions). Each bot
is warmed up on every position once, then timed `--repeats` times per position, the bots
in turn on each position (so that the machine's slow spells slow them all alike):

    python benchmarks/trained_decision.py [--repeats 5] [--bots trained,greedy] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import time

import jax
import jax.numpy as jnp
import numpy as np

from piramida.agents import make_bot
from piramida.envs import core
from piramida.physics import runtime
from piramida.physics.files import write_atomic
from piramida.physics.provenance import stamped
from piramida.rules import state as st
from piramida.rules.game import where_tables

runtime.use_float64()  # a piramida program: the games compute in float64 throughout

BOTS = (
    "trained:policy",
    "trained",
    "trained:checked",
    "trained:deep",
    "greedy",
    "search:medium",
    "search:strong",
)
PHASE_NAMES = ("break", "normal", "in-hand", "decision")


def positions() -> list[st.GameState]:
    """Single-table states: 4 breaks, then tables of greedy-vs-random frames (every 2nd move)."""
    count = 16
    keys = jax.random.split(jax.random.PRNGKey(3), count)
    states = st.new_games(jnp.arange(count) % 4, keys, jnp.zeros(count, jnp.int32))
    greedy, walker = make_bot("greedy", 0.15), make_bot("random", 0.15)
    out = [jax.tree_util.tree_map(lambda x, i=i: x[i : i + 1], states) for i in range(4)]
    for move in range(12):
        mover = states.turn == 0
        moves = where_tables(mover, greedy.act(states, keys), walker.act(states, keys))
        states, _, keys = core.play_masked(states, moves, keys, states.phase != st.OVER, 0.15)
        if move % 2 == 1:
            out += [
                jax.tree_util.tree_map(lambda x, i=i: x[i : i + 1], states)
                for i in range(count)
                if int(states.phase[i]) != st.OVER
            ]
    return out


def main(argv: list[str] | None = None) -> None:
    """Time every bot on every position; print a table of milliseconds by phase."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--bots", default=",".join(BOTS), help="comma-separated bots (default: %(default)s)")
    parser.add_argument("--json", help="write the figures here")
    args = parser.parse_args(argv)
    names = args.bots.split(",")
    try:
        bots = {name: make_bot(name, 0.15) for name in names}
    except ValueError as error:
        parser.error(f"--bots: {error}")
    tables = positions()
    phases = [int(s.phase[0]) for s in tables]
    key = jax.random.PRNGKey(0)[None]
    report: dict[str, dict[str, float]] = {}
    for bot in bots.values():
        for s in tables:
            jax.block_until_ready(bot.act(s, key))
    times = np.zeros((len(names), len(tables), args.repeats))
    for r in range(args.repeats):
        for i, s in enumerate(tables):
            for b, bot in enumerate(bots.values()):
                started = time.perf_counter()
                jax.block_until_ready(bot.act(s, key))
                times[b, i, r] = time.perf_counter() - started
    for name, bot_times in zip(names, times, strict=True):
        per = np.median(bot_times, axis=1) * 1000.0
        row = {"all median ms": float(np.median(per)), "all p90 ms": float(np.percentile(per, 90))}
        for phase, label in enumerate(PHASE_NAMES):
            chosen = per[np.asarray(phases) == phase]
            if chosen.size:
                row[f"{label} median ms"] = float(np.median(chosen))
        report[name] = row
    columns = list(next(iter(report.values())))
    print(f"{len(tables)} positions ({', '.join(f'{PHASE_NAMES[p]} {phases.count(p)}' for p in range(4))})")
    print("| bot | " + " | ".join(columns) + " |")
    print("|---|" + "---|" * len(columns))
    for name, row in report.items():
        print(f"| {name} | " + " | ".join(f"{row.get(c, float('nan')):.2f}" for c in columns) + " |")
    if args.json:
        figures = {"positions": len(tables), "phases": phases, "bots": report}
        write_atomic(args.json, json.dumps(stamped(figures), indent=2) + "\n")


if __name__ == "__main__":
    main()
