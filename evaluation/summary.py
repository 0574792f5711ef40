"""report.md of a tournament: the cross-variant strength table, win rates, per-player figures, pictures.

The pictures are PNG files beside the report, drawn with matplotlib (Agg): `ratings.png`,
Elo per player in each variant and overall, `win_rates.png`, one matrix per variant of
the row player's win rate against the column player, and, when a player is a saved policy
with its training logs beside it, `learning_curves.png` (`curves.py`). Every number comes from the results
dict (`results.py`), so the report, results.json and results.csv cannot disagree.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from piramida.evaluation import curves
from piramida.evaluation.report import md_table, pct
from piramida.physics.files import write_atomic
from piramida.training.players import names_a_file

RATINGS_PNG = "ratings.png"
WIN_RATES_PNG = "win_rates.png"
LEARNING_PNG = "learning_curves.png"


def label(name: str) -> str:
    """A player's name for a picture: a saved policy by its file name only."""
    return name.rsplit("/", 1)[-1]


def elo(x: float | None) -> str:
    """A rating rounded to a point, or n/a."""
    return "n/a" if x is None or math.isnan(x) else f"{x:.0f}"


def record_of(meetings: list[dict[str, Any]], name: str) -> tuple[int, int, int]:
    """(wins, losses, draws) of a player over some meetings."""
    wins = losses = draws = 0
    for m in meetings:
        if name in m["agents"]:
            bot = m["bots"][name]
            wins, losses, draws = wins + bot["wins"], losses + bot["losses"], draws + m["draws"]
    return wins, losses, draws


def _share(wins: int, losses: int) -> str:
    return pct(wins / (wins + losses)) if wins + losses else "n/a"


def strength_table(results: dict[str, Any]) -> str:
    """Players by overall rating: per variant the Elo and the win share, then overall."""
    variants = results["config"]["variants"]
    elo_of = results["ratings"]
    agents = sorted(results["config"]["agents"], key=lambda a: -(elo_of["overall"][a] or -math.inf))
    header = ["agent", *(f"{v}: Elo (wins)" for v in variants), "overall: Elo (wins)", "W-L-D"]
    rows = []
    for name in agents:
        row = [name]
        for v in variants:
            w, lost, _ = record_of([m for m in results["meetings"] if m["variant"] == v], name)
            row.append(f"{elo(elo_of['per_variant'][v][name])} ({_share(w, lost)})")
        w, lost, d = record_of(results["meetings"], name)
        row += [f"{elo(elo_of['overall'][name])} ({_share(w, lost)})", f"{w}-{lost}-{d}"]
        rows.append(row)
    return md_table(header, rows)


def _ci(bot: dict[str, Any]) -> str:
    low, high = bot["win_rate_ci95"]
    return "n/a" if low is None or math.isnan(low) else f"{100 * low:.0f}-{100 * high:.0f} %"


def _number(x: float | None, digits: int) -> str:
    return "n/a" if x is None or math.isnan(x) else f"{x:.{digits}f}"


def meetings_table(results: dict[str, Any]) -> str:
    """One row per variant x pair x player: the same numbers as results.csv."""
    header = [
        "variant",
        "agent",
        "opponent",
        "W-L-D",
        "unfinished",
        "win rate",
        "95 % CI",
        "points/game",
        "pot rate",
        "fouls/shot",
        "balls/turn",
        "shots/frame",
    ]
    rows = []
    for m in results["meetings"]:
        for k, name in enumerate(m["agents"]):
            bot = m["bots"][name]
            rows.append(
                [
                    m["variant"],
                    name,
                    m["agents"][1 - k],
                    f"{bot['wins']}-{bot['losses']}-{m['draws']}",
                    str(m["unfinished"]),
                    pct(bot["win_rate"] if bot["win_rate"] is not None else math.nan),
                    _ci(bot),
                    _number(bot["points_per_game"], 2),
                    pct(bot["pot_rate"] if bot["pot_rate"] is not None else math.nan),
                    _number(bot["fouls_per_shot"], 3),
                    _number(bot["balls_per_turn"], 3),
                    _number(bot["game_length_shots"], 1),
                ]
            )
    return md_table(header, rows)


def plot_ratings(results: dict[str, Any], path: Path) -> Path:
    """Bars of each player's Elo in each variant and overall."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    agents = results["config"]["agents"]
    groups = [*results["config"]["variants"], "overall"]
    table = {**results["ratings"]["per_variant"], "overall": results["ratings"]["overall"]}
    fig, ax = plt.subplots(figsize=(1.6 + 1.1 * len(groups) * max(1, len(agents)) / 2, 3.6), dpi=110)
    width = 0.8 / len(agents)
    x = np.arange(len(groups))
    for k, name in enumerate(agents):
        values = [table[g][name] if table[g][name] is not None else np.nan for g in groups]
        offset = (k - (len(agents) - 1) / 2) * width
        ax.bar(x + offset, np.asarray(values, float) - 1500.0, width, label=label(name))
    ax.axhline(0.0, color="black", lw=0.6)
    ax.set_xticks(x, groups)
    ax.set_ylabel("Elo - 1500")
    ax.set_title(f"Ratings, noise {results['config']['noise']:g}, {results['config']['games']} games a pair")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def win_matrix(results: dict[str, Any], variant: str) -> list[list[float]]:
    """[row][column]: the row player's win rate against the column player (NaN on the diagonal)."""
    agents = results["config"]["agents"]
    out = [[math.nan] * len(agents) for _ in agents]
    for m in results["meetings"]:
        if m["variant"] != variant:
            continue
        for name in m["agents"]:
            other = m["agents"][1] if name == m["agents"][0] else m["agents"][0]
            rate = m["bots"][name]["win_rate"]
            out[agents.index(name)][agents.index(other)] = math.nan if rate is None else rate
    return out


def plot_win_rates(results: dict[str, Any], path: Path) -> Path:
    """One matrix per variant: the row player's win rate (%) against the column player."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    agents = results["config"]["agents"]
    variants = results["config"]["variants"]
    size = 1.0 + 0.7 * len(agents)
    fig, axes = plt.subplots(1, len(variants), figsize=(size * len(variants), size), dpi=110, squeeze=False)
    for ax, variant in zip(axes[0], variants, strict=True):
        matrix = np.asarray(win_matrix(results, variant), float)
        ax.imshow(matrix, vmin=0.0, vmax=1.0, cmap="RdYlGn")
        for (i, j), value in np.ndenumerate(matrix):
            if not np.isnan(value):
                ax.text(j, i, f"{100 * value:.0f}", ha="center", va="center", fontsize=7)
        names = [label(a) for a in agents]
        ax.set_xticks(range(len(agents)), names, rotation=45, ha="right", fontsize=7)
        ax.set_yticks(range(len(agents)), names, fontsize=7)
        ax.set_title(variant, fontsize=8)
    fig.suptitle("win rate of the row against the column, %", fontsize=8)
    fig.savefig(path, bbox_inches="tight")
    plt.close(fig)
    return path


def markdown(results: dict[str, Any], learning: bool = False) -> str:
    """The report's text (pictures by their file names, in the same folder); `learning`: with the curves."""
    cfg = results["config"]
    parts = [
        "# Evaluation",
        "",
        f"`{results['command']}`",
        "",
        f"{cfg['games']} games per pair and variant, noise {cfg['noise']:g}, cap {cfg['cap']} moves, "
        f"seed {results['seed']}; {results['wall_s']:.0f} s on {results['machine']}.",
        "",
        "## Strength",
        "",
        strength_table(results),
        "",
        f"Ratings: {results['ratings']['method']}. Wins: the share of decided games won; "
        "unfinished games (at the cap, or stuck) are left out of both.",
        "",
        f"![ratings]({RATINGS_PNG})",
        "",
        f"![win rates]({WIN_RATES_PNG})",
        "",
        "## Meetings",
        "",
        meetings_table(results),
    ]
    if learning:
        parts += [
            "",
            "## Learning curves",
            "",
            "The saved policies' training runs, from their TensorBoard logs (`piramida train`).",
            "",
            f"![learning curves]({LEARNING_PNG})",
        ]
    if results.get("replays"):
        parts += ["", "## Replays", ""]
        for r in results["replays"]:
            parts.append(
                f"- {r['variant']}, {r['players'][0]} (breaks) vs {r['players'][1]}, game {r['table']}: "
                f"[record]({r['record']}) ({r['entries']} moves), ![replay]({r['gif']})"
            )
    return "\n".join(parts) + "\n"


def write(results: dict[str, Any], folder: str | Path) -> Path:
    """report.md and its pictures in `folder`."""
    folder = Path(folder)
    plot_ratings(results, folder / RATINGS_PNG)
    plot_win_rates(results, folder / WIN_RATES_PNG)
    runs = training_runs(results["config"]["agents"])
    if runs:
        curves.plot(runs, folder / LEARNING_PNG)
    path = folder / "report.md"
    write_atomic(path, markdown(results, learning=bool(runs)))
    return path


def training_runs(agents: list[str]) -> dict[str, curves.Scalars]:
    """The learning curves of the players that are saved policies with their training logs beside them."""
    runs = {}
    for name in agents:
        folder = curves.run_folder(name) if names_a_file(name) else None
        scalars = curves.read(folder) if folder is not None else {}
        if scalars:
            runs[label(name) if folder is None else f"{folder.name}/{label(name)}"] = scalars
    return runs
