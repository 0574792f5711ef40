"""Baseline figures of the bundled bots: `greedy` against `random` in every variant and noise level.

For each setting (variant x execution-noise magnitude) the script plays `--games` frames of
`greedy` against `random` as ONE batch of that many tables, through `rules.game.play`: at
every step both bots compute their moves for the whole batch (`Agent.act`), each table takes
the move of the bot whose turn it is, and one `play` call advances every table (a shot, or a
decision in the DECISION phase; finished tables stand still). Greedy takes seat 0 on the
even tables and seat 1 on the odd ones, and seat 0 breaks, so greedy breaks first in half
of the frames. A frame stops when it is OVER or after `--cap` moves (shots and decisions),
or is set aside as stuck after `--stuck` consecutive refused shots (below).
Both bots shoot with the same execution noise (`physics.noise`; magnitude 1 is FastFiz's
default, `LEVELS` names pro = 0.15 and amateur = 0.45).

Figures (per bot, counted over that bot's shots in the head-to-head frames above):

- shots: shots the referee judged (`verdict.invalid == 0`), the break included.
- pot rate: the share of shots that pocketed at least one ball legally (`verdict.legal`
  and a ball scored or a point won).
- fouls/shot: the share of shots with a foul (`verdict.fouls != 0`).
- balls/turn: balls scored (`verdict.scored`) per visit to the table, a visit being a run
  of consecutive shots by the same player (decisions in between do not break it).
- own potted: the share of shots on which the struck (own) ball went into a pocket.
- top fouls: the most frequent foul kinds (`verdict.FOUL_NAMES`), as shares of shots.
- refused: shots the referee refused to judge (`verdict.invalid != 0`; in practice
  `overflow`: the kernel's event log, `--capacity` slots, filled up before the balls
  stopped). A refused shot leaves the state as it was and the same player shoots again;
  greedy is deterministic, so without execution noise it repeats the refused shot for
  ever. A table with `--stuck` refused shots in a row is set aside as stuck (counted as
  unfinished; the result is the same as playing it to the cap when the loop is
  deterministic), so that it no longer holds the batch to the cap.

Per setting: greedy's wins, random's wins, draws (OVER with no winner), unfinished
frames (still going at the cap, or stuck; how many of these were stuck, and in how many
greedy was ahead on score), and greedy's win rate over the decided frames (wins /
(wins + losses)) with its 95 % Wilson score interval.

Usage::

    python benchmarks/baselines.py                                   # 200 games, 4 variants x 4 noise levels
    python benchmarks/baselines.py --games 16 --noise 0              # a quick smoke test
    python benchmarks/baselines.py --games 200 --variants free,combined,dynamic,classic \\
        --noise 0,0.1,0.25,0.5 --seed 0 --cap 400 --stuck 10 --json out.json --markdown out.md

Compiled shapes depend on the batch size, so one run uses one batch size (`--games`); the
persistent compilation cache makes the second run with the same size start fast.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table as RichTable

import piramida.physics  # noqa: F401 (float64 and the persistent compilation cache)
from piramida.agents import make_agent
from piramida.agents.protocol import Agent
from piramida.rules import ids
from piramida.rules import state as st
from piramida.rules import verdict as vd
from piramida.rules.game import CAPACITY, Move, play

BOTS = ("random", "greedy")
DEFAULT_NOISE = (0.0, 0.1, 0.25, 0.5)
Z95 = 1.959963984540054  # the 97.5 % quantile of the standard normal


@dataclass
class Tally:
    """One bot's counts over its shots in one setting."""

    shots: int = 0
    pots: int = 0
    fouls: int = 0
    balls: int = 0
    points: int = 0
    visits: int = 0
    own_potted: int = 0
    invalid: int = 0
    invalid_kinds: dict[str, int] = field(default_factory=dict)
    decisions: int = 0
    decision_invalid: int = 0
    foul_kinds: dict[str, int] = field(default_factory=dict)

    def figures(self) -> dict[str, float]:
        """The per-shot and per-visit rates (NaN where there is nothing to divide by)."""
        shots, visits = self.shots or math.nan, self.visits or math.nan
        return {
            "pot_rate": self.pots / shots,
            "fouls_per_shot": self.fouls / shots,
            "balls_per_turn": self.balls / visits,
            "points_per_turn": self.points / visits,
            "own_potted_per_shot": self.own_potted / shots,
        }


def wilson(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion; (nan, nan) for no trials."""
    if trials == 0:
        return math.nan, math.nan
    p = successes / trials
    centre = (p + z * z / (2 * trials)) / (1 + z * z / trials)
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / (1 + z * z / trials)
    return max(0.0, centre - half), min(1.0, centre + half)


@jax.jit
def _select(use_first: jax.Array, first: Move, second: Move) -> Move:
    """Per table, `first`'s move where `use_first` holds, else `second`'s."""

    def pick(x: jax.Array, y: jax.Array) -> jax.Array:
        return jnp.where(use_first.reshape(use_first.shape + (1,) * (x.ndim - 1)), x, y)

    return jax.tree_util.tree_map(pick, first, second)


def _setting_key(seed: int, variant: int, magnitude: float) -> jax.Array:
    """The PRNG key of one setting: the seed, folded with the variant and the magnitude."""
    key = jax.random.fold_in(jax.random.PRNGKey(seed), variant)
    return jax.random.fold_in(key, round(magnitude * 10_000))


def run_setting(
    variant: int,
    magnitude: float,
    games: int,
    cap: int,
    seed: int,
    agents: dict[str, Agent],
    stuck_after: int = 10,
    capacity: int = CAPACITY,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Play `games` frames of greedy against random as one batch; the setting's figures.

    A table with `stuck_after` refused shots in a row (0: never) is set aside: its phase
    becomes OVER on the device so that `play` leaves it alone, and it counts as stuck
    (unfinished) here.
    """
    greedy_seat = np.arange(games) % 2
    seat_bot = np.where(np.arange(2)[None, :] == greedy_seat[:, None], "greedy", "random")  # (B, 2)
    key = _setting_key(seed, variant, magnitude)
    key, game_key = jax.random.split(key)
    states = st.new_games(
        jnp.full(games, variant, jnp.int32),
        jax.random.split(game_key, games),
        jnp.zeros(games, jnp.int32),
    )
    greedy_seat_j = jnp.asarray(greedy_seat, jnp.int32)
    tallies = {name: Tally() for name in BOTS}
    last_shooter = np.full(games, -1)
    refused_run = np.zeros(games, np.int64)  # consecutive refused shots per table
    stuck = np.zeros(games, bool)
    name = f"{ids.VARIANT_NAMES[variant]:8} noise {magnitude:<5g}"
    task = progress.add_task(name, total=cap, over=0, stuck=0, games=games) if progress is not None else None
    start = time.perf_counter()
    steps = 0
    for _ in range(cap):
        phase = np.asarray(states.phase)
        if np.all(phase == st.OVER):
            break
        key, k_random, k_greedy, k_play = jax.random.split(key, 4)
        moves = _select(
            states.turn == greedy_seat_j,
            agents["greedy"].act(states, jax.random.split(k_greedy, games)),
            agents["random"].act(states, jax.random.split(k_random, games)),
        )
        turn = np.asarray(states.turn)
        states, outcome = play(states, moves, jax.random.split(k_play, games), magnitude, capacity=capacity)
        steps += 1
        _count(tallies, seat_bot, turn, phase, outcome, last_shooter)
        refused = np.asarray(outcome.shot) & (np.asarray(outcome.verdict.invalid) != 0)
        refused_run = np.where(refused, refused_run + 1, 0)
        if stuck_after > 0 and np.any(~stuck & (refused_run >= stuck_after)):
            stuck |= refused_run >= stuck_after
            states = states.replace(phase=jnp.where(jnp.asarray(stuck), st.OVER, states.phase))
        if progress is not None and task is not None:
            done = np.asarray(states.phase) == st.OVER
            progress.update(task, advance=1, over=int(np.sum(done & ~stuck)), stuck=int(stuck.sum()))
    seconds = time.perf_counter() - start
    if progress is not None and task is not None:
        progress.update(task, total=steps, completed=steps)

    phase, winner = np.asarray(states.phase), np.asarray(states.winner)
    score = np.asarray(states.score)
    over = (phase == st.OVER) & ~stuck
    wins = int(np.sum(over & (winner == greedy_seat)))
    losses = int(np.sum(over & (winner == 1 - greedy_seat)))
    draws = int(np.sum(over & (winner < 0)))
    unfinished = int(np.sum(~over))
    greedy_score = score[np.arange(games), greedy_seat]
    random_score = score[np.arange(games), 1 - greedy_seat]
    low, high = wilson(wins, wins + losses)
    return {
        "variant": ids.VARIANT_NAMES[variant],
        "noise": magnitude,
        "games": games,
        "greedy_breaks_first": int(np.sum(greedy_seat == 0)),
        "steps": steps,
        "seconds": seconds,
        "greedy_wins": wins,
        "random_wins": losses,
        "draws": draws,
        "unfinished": unfinished,
        "stuck": int(stuck.sum()),
        "unfinished_greedy_ahead": int(np.sum(~over & (greedy_score > random_score))),
        "win_rate": wins / (wins + losses) if wins + losses else math.nan,
        "win_rate_ci95": [low, high],
        "mean_shots_per_frame": float(np.mean(np.asarray(states.shots))),
        "mean_score": {"greedy": float(np.mean(greedy_score)), "random": float(np.mean(random_score))},
        "bots": {bot: {**asdict(tallies[bot]), **tallies[bot].figures()} for bot in BOTS},
    }


def _count(
    tallies: dict[str, Tally],
    seat_bot: np.ndarray,
    turn: np.ndarray,
    phase: np.ndarray,
    outcome: Any,
    last_shooter: np.ndarray,
) -> None:
    """Add one step's shots and decisions to the bots' tallies (`last_shooter` is updated)."""
    v = outcome.verdict
    shot = np.asarray(outcome.shot)
    invalid = np.asarray(v.invalid)
    legal = np.asarray(v.legal)
    fouls = np.asarray(v.fouls)
    scored = np.asarray(v.scored)
    points = np.asarray(v.points)
    struck = np.asarray(outcome.strike.ball)
    pocket = np.asarray(outcome.result.pocket)
    decision_invalid = np.asarray(outcome.decision_invalid)
    rows = np.arange(len(turn))
    own_potted = pocket[rows, np.clip(struck, 0, ids.N_BALLS - 1)] >= 0
    gained = points[rows, turn]
    for t in np.flatnonzero(phase == st.DECISION):
        tally = tallies[str(seat_bot[t, turn[t]])]
        tally.decisions += 1
        tally.decision_invalid += int(decision_invalid[t] != 0)
    for t in np.flatnonzero(shot):
        tally = tallies[str(seat_bot[t, turn[t]])]
        if invalid[t] != 0:
            tally.invalid += 1
            for k, why in enumerate(vd.INVALID_NAMES):
                if invalid[t] >> k & 1:
                    tally.invalid_kinds[why] = tally.invalid_kinds.get(why, 0) + 1
            continue
        balls = int(scored[t].sum())
        tally.shots += 1
        tally.pots += int(bool(legal[t]) and (balls > 0 or gained[t] > 0))
        tally.fouls += int(fouls[t] != 0)
        tally.balls += balls
        tally.points += int(gained[t])
        tally.own_potted += int(own_potted[t])
        if last_shooter[t] != turn[t]:
            tally.visits += 1
            last_shooter[t] = turn[t]
        for k, foul in enumerate(vd.FOUL_NAMES):
            if foul and fouls[t] >> k & 1:
                tally.foul_kinds[foul] = tally.foul_kinds.get(foul, 0) + 1


def _pct(x: float) -> str:
    return "n/a" if math.isnan(x) else f"{100 * x:.1f} %"


def _top_fouls(bot: dict[str, Any], k: int = 3) -> str:
    shots = bot["shots"] or 1
    kinds = sorted(bot["foul_kinds"].items(), key=lambda item: -item[1])[:k]
    return ", ".join(f"{name} {100 * n / shots:.0f} %" for name, n in kinds) or "-"


def bot_rows(result: dict[str, Any]) -> list[list[str]]:
    """The per-bot rows of one setting: bot, shots, pot rate, fouls/shot, balls/turn, ..."""
    rows = []
    for name in BOTS:
        bot = result["bots"][name]
        rows.append(
            [
                name,
                str(bot["shots"]),
                _pct(bot["pot_rate"]),
                f"{bot['fouls_per_shot']:.3f}",
                f"{bot['balls_per_turn']:.3f}",
                _pct(bot["own_potted_per_shot"]),
                _top_fouls(bot),
                str(bot["invalid"]),
            ]
        )
    return rows


BOT_HEADER = ["bot", "shots", "pot rate", "fouls/shot", "balls/turn", "own potted", "top fouls", "refused"]
MATCH_HEADER = [
    "variant",
    "noise",
    "games",
    "greedy wins",
    "random wins",
    "draws",
    "unfinished (stuck)",
    "greedy win rate",
    "95 % CI",
    "shots/frame",
]


def match_row(result: dict[str, Any]) -> list[str]:
    """One setting's head-to-head row (`MATCH_HEADER`)."""
    low, high = result["win_rate_ci95"]
    ci = "n/a" if math.isnan(low) else f"{100 * low:.1f}-{100 * high:.1f} %"
    return [
        result["variant"],
        f"{result['noise']:g}",
        str(result["games"]),
        str(result["greedy_wins"]),
        str(result["random_wins"]),
        str(result["draws"]),
        f"{result['unfinished']} ({result['stuck']})",
        _pct(result["win_rate"]),
        ci,
        f"{result['mean_shots_per_frame']:.1f}",
    ]


def _md_table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def markdown(report: dict[str, Any]) -> str:
    """The report as markdown: the head-to-head table, then one per-bot table per setting."""
    cfg = report["config"]
    parts = [
        "# Baselines: greedy vs random",
        "",
        f"`{report['command']}`: {cfg['games']} frames per setting, cap {cfg['cap']} moves, "
        f"stuck after {cfg['stuck']} refused shots in a row, event log {cfg['capacity']} slots, "
        f"seed {cfg['seed']}; {report['wall_s']:.0f} s wall on {report['machine']}.",
        "",
        "## Greedy vs random",
        "",
        _md_table(MATCH_HEADER, [match_row(r) for r in report["settings"]]),
        "",
        "Win rate: greedy's wins over the decided frames, 95 % Wilson interval; draws and "
        "frames unfinished at the cap (or stuck on refused shots) are counted apart.",
        "",
        "## Per-bot figures",
    ]
    for result in report["settings"]:
        parts += [
            "",
            f"### {result['variant']}, noise {result['noise']:g}",
            "",
            _md_table(BOT_HEADER, bot_rows(result)),
        ]
    return "\n".join(parts) + "\n"


def write_atomic(path: str, text: str) -> None:
    """Write `text` to `path` through a temporary file in the same folder and `os.replace`."""
    target = Path(path)
    fd, tmp = tempfile.mkstemp(dir=target.parent or Path("."), prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def print_setting(console: Console, result: dict[str, Any]) -> None:
    """One setting's tables on the console."""
    title = (
        f"{result['variant']}, noise {result['noise']:g}: greedy {result['greedy_wins']} - "
        f"random {result['random_wins']} (draws {result['draws']}, unfinished {result['unfinished']}); "
        f"greedy win rate {' '.join(match_row(result)[7:9])}; {result['seconds']:.0f} s"
    )
    table = RichTable(title=title, title_justify="left")
    for column in BOT_HEADER:
        table.add_column(column, justify="left" if column in ("bot", "top fouls") else "right")
    for row in bot_rows(result):
        table.add_row(*row)
    console.print(table)


def _parse_list(text: str, kind: str) -> list[str]:
    items = [item.strip() for item in text.split(",") if item.strip()]
    if not items:
        raise argparse.ArgumentTypeError(f"empty {kind} list")
    return items


def parse_variants(text: str) -> list[int]:
    """Variant names (`ids.VARIANT_NAMES`), comma separated, to ids."""
    out = []
    for name in _parse_list(text, "variant"):
        if name not in ids.VARIANT_NAMES:
            raise argparse.ArgumentTypeError(f"unknown variant {name!r}; choose from {ids.VARIANT_NAMES}")
        out.append(ids.VARIANT_NAMES.index(name))
    return out


def parse_noise(text: str) -> list[float]:
    """Noise magnitudes (numbers >= 0), comma separated."""
    out = []
    for item in _parse_list(text, "noise"):
        try:
            value = float(item)
        except ValueError as error:
            raise argparse.ArgumentTypeError(f"noise magnitude {item!r} is not a number") from error
        if not value >= 0.0:
            raise argparse.ArgumentTypeError(f"noise magnitude must be >= 0, got {item!r}")
        out.append(value)
    return out


def main(argv: list[str] | None = None) -> None:
    """Run every (variant, noise) setting, print the tables, write the JSON and markdown."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="frames per setting = batch size (200)")
    parser.add_argument(
        "--variants",
        type=parse_variants,
        default=list(range(len(ids.VARIANT_NAMES))),
        help="comma-separated variants (default: free,combined,dynamic,classic)",
    )
    parser.add_argument(
        "--noise",
        type=parse_noise,
        default=list(DEFAULT_NOISE),
        help="comma-separated execution-noise magnitudes (default: 0,0.1,0.25,0.5)",
    )
    parser.add_argument("--cap", type=int, default=400, help="moves per frame before it counts as unfinished")
    parser.add_argument(
        "--stuck",
        type=int,
        default=10,
        help="set a table aside as stuck after this many refused shots in a row (0: never; default 10)",
    )
    parser.add_argument(
        "--capacity",
        type=int,
        default=CAPACITY,
        help=f"event-log slots per shot (default {CAPACITY}, `play`'s)",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", help="write the results here (JSON)")
    parser.add_argument("--markdown", help="write the results here (markdown)")
    args = parser.parse_args(argv)
    if args.games < 2 or args.cap < 1 or args.stuck < 0 or args.capacity < 1:
        parser.error("--games must be >= 2, --cap and --capacity >= 1, --stuck >= 0")

    console = Console() if sys.stdout.isatty() else Console(width=160)
    agents = {name: make_agent(name) for name in BOTS}
    report: dict[str, Any] = {
        "command": " ".join(["python", "benchmarks/baselines.py", *(sys.argv[1:] if argv is None else argv)]),
        "config": {
            "games": args.games,
            "variants": [ids.VARIANT_NAMES[v] for v in args.variants],
            "noise": args.noise,
            "cap": args.cap,
            "seed": args.seed,
            "stuck": args.stuck,
            "capacity": args.capacity,
        },
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, JAX {jax.__version__} on "
        f"{jax.default_backend()}",
        "settings": [],
        "wall_s": 0.0,
    }
    start = time.perf_counter()
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("moves, {task.fields[over]}/{task.fields[games]} over, {task.fields[stuck]} stuck"),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=console) as progress:
        for variant in args.variants:
            for magnitude in args.noise:
                result = run_setting(
                    variant,
                    magnitude,
                    args.games,
                    args.cap,
                    args.seed,
                    agents,
                    stuck_after=args.stuck,
                    capacity=args.capacity,
                    progress=progress,
                )
                report["settings"].append(result)
                report["wall_s"] = time.perf_counter() - start
                print_setting(progress.console, result)
                if args.json:
                    write_atomic(args.json, json.dumps(report, indent=2, allow_nan=True) + "\n")
                if args.markdown:
                    write_atomic(args.markdown, markdown(report))
    console.print(f"wall time {report['wall_s']:.0f} s")
    console.print(markdown(report))


if __name__ == "__main__":
    main()
