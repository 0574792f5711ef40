"""Tables of head-to-head results (`arena.head_to_head`), for the console and for markdown."""

from __future__ import annotations

import math
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table as RichTable

BOT_HEADER = [
    "bot",
    "shots",
    "pot rate",
    "fouls/shot",
    "balls/turn",
    "own potted",
    "clears",
    "top fouls",
    "refused",
]
MATCH_HEADER = [
    "variant",
    "noise",
    "games",
    "wins",
    "draws",
    "unfinished (stuck)",
    "win rate of the first",
    "95 % CI",
    "shots/frame",
]


def pct(x: float) -> str:
    """A share as a percentage, or n/a."""
    return "n/a" if math.isnan(x) else f"{100 * x:.1f} %"


def _top_fouls(bot: dict[str, Any], k: int = 3) -> str:
    shots = bot["shots"] or 1
    kinds = sorted(bot["foul_kinds"].items(), key=lambda item: -item[1])[:k]
    return ", ".join(f"{name} {100 * n / shots:.0f} %" for name, n in kinds) or "-"


def bot_rows(result: dict[str, Any]) -> list[list[str]]:
    """The per-bot rows of one setting (`BOT_HEADER`)."""
    rows = []
    for name in result["agents"]:
        bot = result["bots"][name]
        rows.append(
            [
                name,
                str(bot["shots"]),
                pct(bot["pot_rate"]),
                f"{bot['fouls_per_shot']:.3f}",
                f"{bot['balls_per_turn']:.3f}",
                pct(bot["own_potted_per_shot"]),
                str(bot["clears"]),
                _top_fouls(bot),
                str(bot["invalid"]),
            ]
        )
    return rows


def match_row(result: dict[str, Any]) -> list[str]:
    """One setting's head-to-head row (`MATCH_HEADER`)."""
    low, high = result["win_rate_ci95"]
    ci = "n/a" if math.isnan(low) else f"{100 * low:.1f}-{100 * high:.1f} %"
    first, second = result["agents"]
    return [
        result["variant"],
        f"{result['noise']:g}",
        str(result["games"]),
        f"{first} {result['wins'][first]} - {second} {result['wins'][second]}",
        str(result["draws"]),
        f"{result['unfinished']} ({result['stuck']})",
        pct(result["win_rate"]),
        ci,
        f"{result['mean_shots_per_frame']:.1f}",
    ]


def md_table(header: list[str], rows: list[list[str]]) -> str:
    """A markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def settings_markdown(settings: list[dict[str, Any]]) -> str:
    """The head-to-head table of all settings, then one per-bot table per setting."""
    parts = [
        md_table(MATCH_HEADER, [match_row(r) for r in settings]),
        "",
        "Win rate: the first bot's wins over the decided frames, 95 % Wilson interval; draws and "
        "frames unfinished at the cap (or stuck on refused shots) are counted apart.",
    ]
    for result in settings:
        parts += [
            "",
            f"### {result['variant']}, noise {result['noise']:g}",
            "",
            md_table(BOT_HEADER, bot_rows(result)),
        ]
    return "\n".join(parts) + "\n"


def print_setting(console: Console, result: dict[str, Any]) -> None:
    """One setting's per-bot table on the console, titled with the match result."""
    row = match_row(result)
    title = (
        f"{result['variant']}, noise {result['noise']:g}: {row[3]} (draws {row[4]}, unfinished {row[5]}); "
        f"win rate {row[6]} [{row[7]}]; {result['seconds']:.0f} s"
    )
    table = RichTable(title=title, title_justify="left")
    for column in BOT_HEADER:
        table.add_column(column, justify="left" if column in ("bot", "top fouls") else "right")
    for bot_row in bot_rows(result):
        table.add_row(*bot_row)
    console.print(table)


def match_progress(console: Console) -> Progress:
    """A progress display for settings played by `arena.head_to_head`: moves, frames over, stuck."""
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("moves, {task.fields[over]}/{task.fields[games]} over, {task.fields[stuck]} stuck"),
        TimeElapsedColumn(),
        console=console,
    )


def setting_task(progress: Progress, name: str, cap: int, games: int) -> Any:
    """A task for one setting, and the `on_step` callback for `head_to_head` that advances it."""
    task = progress.add_task(name, total=cap, over=0, stuck=0, games=games)

    def on_step(steps: int, over: int, stuck: int) -> None:
        progress.update(task, completed=steps, over=over, stuck=stuck)

    return task, on_step
