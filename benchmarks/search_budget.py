"""The search bot by budget: decision time on one table, and strength against `greedy`.

For each level (`agents.search.LEVELS`, from `easy` to `strongest`; budget = simulations per
decision) the script

1. times `--decisions` single-table decisions (batch 1, as a bot deciding for one player)
   on positions from the break and from the first shots of greedy self-play, after one
   warm-up call that compiles; reports the median and the 90th percentile;
2. plays `--games` frames of the level against `greedy` (`evaluation.arena.head_to_head`,
   imperfect racks, both bots under the same noise) and reports the win rate with its
   95 % Wilson interval and the pot rate;

then draws both against the budget (`--plot`, PNG); `--games 0` only times the decisions.
The matches are played as `benchmarks/search_strength.py` plays them (same seed, racks,
noise keys and batch buckets), so a level's row there and here are the same frames.
Levels can be run in separate processes (one per core) and their JSONs drawn together with
`--replot a.json b.json`.

Usage::

    python benchmarks/search_budget.py                                  # 4 levels, 64 frames, Free, pro
    python benchmarks/search_budget.py --levels easy,strong --games 16 --decisions 8
    python benchmarks/search_budget.py --games 0 --decisions 16                 # decision time only
    python benchmarks/search_budget.py --json out.json --plot docs/search_budget.png
    python benchmarks/search_budget.py --replot out.json --plot docs/search_budget.png   # draw again
    python benchmarks/search_budget.py --replot a.json b.json --json all.json --plot all.png  # merge
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from rich.console import Console
from rich.table import Table as RichTable

from piramida.agents import GreedyAgent
from piramida.agents.search import LEVELS, SearchAgent
from piramida.evaluation.arena import head_to_head
from piramida.evaluation.report import match_progress, pct, setting_task
from piramida.evaluation.settings import parse_noise, parse_variants
from piramida.physics import runtime
from piramida.physics.files import write_atomic
from piramida.physics.provenance import machine, stamped
from piramida.rules import ids
from piramida.rules import state as st
from piramida.rules.game import play

runtime.use_float64()  # a piramida program: the games compute in float64 throughout

SNAPSHOT_STEPS = (0, 2, 4)  # greedy self-play moves before a timed position is taken


def positions(variant: int, count: int, magnitude: float, seed: int) -> list[st.GameState]:
    """`count` single-table positions: breaks and the tables after a few greedy shots."""
    per_step = -(-count // len(SNAPSHOT_STEPS))
    key = jax.random.PRNGKey(seed)
    states = st.new_games(
        jnp.full(per_step, variant, jnp.int32),
        jax.random.split(key, per_step),
        jnp.zeros(per_step, jnp.int32),
    )
    greedy = GreedyAgent()
    found: list[st.GameState] = []
    for step in range(max(SNAPSHOT_STEPS) + 1):
        if step in SNAPSHOT_STEPS:
            found += [jax.tree_util.tree_map(lambda x, k=k: x[k : k + 1], states) for k in range(per_step)]
        key, k_play = jax.random.split(key)
        shot_keys = jax.random.split(k_play, per_step)
        states, _ = play(states, greedy.act(states, shot_keys), shot_keys, magnitude)
    return found[:count]


def time_decisions(agent: SearchAgent, tables: list[st.GameState], seed: int) -> list[float]:
    """Seconds per single-table decision (after a warm-up call on the first table)."""
    keys = jax.random.split(jax.random.PRNGKey(seed), len(tables) + 1)
    jax.block_until_ready(agent.act(tables[0], keys[:1]))
    seconds = []
    for k, table in enumerate(tables):
        start = time.perf_counter()
        jax.block_until_ready(agent.act(table, keys[k + 1 : k + 2]))
        seconds.append(time.perf_counter() - start)
    return seconds


def plot(report: dict[str, Any], path: str) -> None:
    """Win rate and decision time against the budget, side by side (PNG)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    rows = report["levels"]
    budget = np.array([r["budget"] for r in rows])
    played = report["config"]["games"] > 0
    fig, axes_pair = plt.subplots(1, 2 if played else 1, figsize=(10 if played else 5, 4), squeeze=False)
    right = axes_pair[0, -1]
    if played:
        _plot_win_rates(axes_pair[0, 0], report)
    right.plot(budget, [r["decision_median_s"] for r in rows], marker="o", label="median")
    right.plot(budget, [r["decision_p90_s"] for r in rows], marker="s", ls="--", label="90th percentile")
    right.axhline(2.0, color="grey", lw=0.8, ls=":")
    right.set(xscale="log", yscale="log", xlabel="simulations per decision", ylabel="seconds per decision")
    right.set_title(f"one table, {report['machine'].split(',')[1].strip()}")
    right.legend()
    for axes in axes_pair[0]:
        axes.set_xticks(budget, [str(b) for b in budget])
        axes.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _plot_win_rates(left: Any, report: dict[str, Any]) -> None:
    """The left panel: win rate against greedy by budget, with 95 % intervals."""
    rows = report["levels"]
    budget = np.array([r["budget"] for r in rows])
    rate = np.array([r["win_rate"] for r in rows])
    low = np.array([r["win_rate_ci95"][0] for r in rows])
    high = np.array([r["win_rate_ci95"][1] for r in rows])
    left.errorbar(budget, 100 * rate, yerr=[100 * (rate - low), 100 * (high - rate)], marker="o", capsize=4)
    for r in rows:
        left.annotate(
            r["level"], (r["budget"], 100 * r["win_rate"]), textcoords="offset points", xytext=(6, -12)
        )
    left.axhline(50, color="grey", lw=0.8, ls=":")
    left.set(xscale="log", xlabel="simulations per decision", ylabel="win rate vs greedy (%)", ylim=(0, 100))
    left.set_title(
        f"{report['config']['variant']}, noise {report['config']['noise']:g}, "
        f"{report['config']['games']} frames per level"
    )


def main(argv: list[str] | None = None) -> None:
    """Time and play every level; print a table; write the JSON and the plot."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--levels", default=",".join(LEVELS), help="comma-separated levels (default: all)")
    parser.add_argument("--games", type=int, default=64, help="frames per level against greedy (64)")
    parser.add_argument(
        "--decisions", type=int, default=24, help="timed single-table decisions per level (24)"
    )
    parser.add_argument(
        "--variant", type=parse_variants, default=parse_variants("free"), help="one variant (free)"
    )
    parser.add_argument("--noise", type=parse_noise, default=parse_noise("pro"), help="one noise level (pro)")
    parser.add_argument("--cap", type=int, default=400, help="moves per frame before it counts as unfinished")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", help="write the results here (JSON)")
    parser.add_argument("--plot", help="draw the results here (PNG)")
    parser.add_argument(
        "--replot",
        metavar="JSON",
        nargs="+",
        help="only draw --plot (and write --json) from JSONs this script wrote, their levels merged",
    )
    args = parser.parse_args(argv)
    if args.replot:
        if not args.plot:
            parser.error("--replot needs --plot")
        try:
            drawn = merged([json.loads(Path(name).read_text()) for name in args.replot])
        except ValueError as error:
            parser.error(f"--replot: {error}")
        if args.json:
            write_atomic(args.json, json.dumps(drawn, indent=2, allow_nan=True) + "\n")
        plot(drawn, args.plot)
        return
    levels = [name.strip() for name in args.levels.split(",") if name.strip()]
    unknown = [name for name in levels if name not in LEVELS]
    if unknown or not levels:
        parser.error(f"--levels: unknown {unknown}; choose from {list(LEVELS)}")
    if len(args.variant) != 1 or len(args.noise) != 1:
        parser.error("--variant and --noise take one value each")
    if args.games == 1 or args.games < 0 or args.decisions < 1:
        parser.error("--games must be 0 (decision time only) or >= 2, and --decisions >= 1")
    variant, magnitude = args.variant[0], args.noise[0]

    console = Console() if sys.stdout.isatty() else Console(width=160)
    report: dict[str, Any] = {
        "command": " ".join(
            ["python", "benchmarks/search_budget.py", *(sys.argv[1:] if argv is None else argv)]
        ),
        "config": {
            "variant": ids.VARIANT_NAMES[variant],
            "noise": magnitude,
            "games": args.games,
            "decisions": args.decisions,
            "cap": args.cap,
            "seed": args.seed,
        },
        "machine": machine(),
        "levels": [],
    }
    tables = positions(variant, args.decisions, magnitude, args.seed)
    greedy = GreedyAgent()
    for level in levels:
        agent = SearchAgent(level, noise_level=magnitude)
        seconds = time_decisions(agent, tables, args.seed)
        row: dict[str, Any] = {
            "level": level,
            "budget": agent.budget,
            "decision_median_s": float(np.median(seconds)),
            "decision_p90_s": float(np.percentile(seconds, 90)),
            "decision_seconds": seconds,
        }
        line = (
            f"{level}: budget {row['budget']}, decision median {row['decision_median_s']:.3f} s "
            f"(p90 {row['decision_p90_s']:.3f} s)"
        )
        if args.games > 0:
            row.update(match_row(agent, greedy, variant, magnitude, args, console))
            line += (
                f", win rate {pct(row['win_rate'])} "
                f"[{pct(row['win_rate_ci95'][0])}-{pct(row['win_rate_ci95'][1])}], "
                f"pot rate {pct(row['pot_rate'])} (greedy {pct(row['greedy_pot_rate'])})"
            )
        report["levels"].append(row)
        console.print(line)
        if args.json:
            write_atomic(args.json, json.dumps(stamped(report), indent=2, allow_nan=True) + "\n")
        if args.plot:
            plot(report, args.plot)
    console.print(summary_table(report))


def merged(reports: list[dict[str, Any]]) -> dict[str, Any]:
    """One report from several runs of the same config (levels run apart), levels by budget.

    Raises ValueError when the configs differ or a level appears twice.
    """
    first = reports[0]
    for other in reports[1:]:
        if other["config"] != first["config"]:
            raise ValueError(f"configs differ: {first['config']} and {other['config']}")
    levels = [row for report in reports for row in report["levels"]]
    names = [row["level"] for row in levels]
    if len(set(names)) != len(names):
        raise ValueError(f"a level appears more than once: {names}")
    return {
        **first,
        "command": [report["command"] for report in reports] if len(reports) > 1 else first["command"],
        "levels": sorted(levels, key=lambda row: row["budget"]),
    }


def match_row(
    agent: SearchAgent, greedy: GreedyAgent, variant: int, magnitude: float, args: Any, console: Console
) -> dict[str, Any]:
    """A level's frames against greedy: its row's match fields."""
    with match_progress(console) as progress:
        task, on_step = setting_task(progress, f"budget {agent.budget}", args.cap, args.games)
        result = head_to_head(
            (("search", agent), ("greedy", greedy)),
            variant,
            magnitude,
            args.games,
            args.cap,
            args.seed,
            on_step=on_step,
            rack_jitter=True,
        )
        progress.update(task, total=result["steps"], completed=result["steps"])
    return {
        "win_rate": result["win_rate"],
        "win_rate_ci95": result["win_rate_ci95"],
        "wins": result["wins"],
        "unfinished": result["unfinished"],
        "pot_rate": result["bots"]["search"]["pot_rate"],
        "greedy_pot_rate": result["bots"]["greedy"]["pot_rate"],
        "match_seconds": result["seconds"],
    }


def summary_table(report: dict[str, Any]) -> RichTable:
    """Every level in one table (the match columns only when frames were played)."""
    played = report["config"]["games"] > 0
    table = RichTable(title=f"search by budget: {report['command']}", title_justify="left")
    columns = ["level", "budget", "median s", "p90 s"]
    columns += ["win rate", "95 % CI", "pot rate", "greedy pot rate"] if played else []
    for column in columns:
        table.add_column(column, justify="left" if column == "level" else "right")
    for r in report["levels"]:
        cells = [r["level"], str(r["budget"]), f"{r['decision_median_s']:.3f}", f"{r['decision_p90_s']:.3f}"]
        if played:
            cells += [
                pct(r["win_rate"]),
                f"{pct(r['win_rate_ci95'][0])}-{pct(r['win_rate_ci95'][1])}",
                pct(r["pot_rate"]),
                pct(r["greedy_pot_rate"]),
            ]
        table.add_row(*cells)
    return table


if __name__ == "__main__":
    main()
