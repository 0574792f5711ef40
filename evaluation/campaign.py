"""A whole evaluation: the tournament played, its results written as they come, the report and replays.

What `piramida eval` (and the demo) run once their settings are checked: results.json is
rewritten after every meeting, so an interrupted run keeps what it played; then
results.csv, report.md with its pictures, and the replays.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

import piramida.physics  # noqa: F401 (float64 and the persistent compilation cache)
from piramida.evaluation import results as res
from piramida.evaluation import summary
from piramida.evaluation.tournament import Meeting, Plan, play_meetings
from piramida.physics.provenance import machine
from piramida.rules import ids


def evaluate(plan: Plan, out: Path, command: str) -> dict[str, Any]:
    """Play `plan` with a progress bar, writing everything into `out`; the results (`results.json`)."""
    report: dict[str, Any] = {
        "format": res.FORMAT,
        "version": res.VERSION,
        "command": command,
        "seed": plan.seed,
        "machine": machine(),
        "versions": res.versions(),
        "started": datetime.now(UTC).isoformat(timespec="seconds"),
        "config": {
            "agents": list(plan.agents),
            "variants": [ids.VARIANT_NAMES[v] for v in plan.variants],
            "games": plan.games,
            "noise": plan.magnitude,
            "cap": plan.cap,
            "stuck": plan.stuck,
            "rack_jitter": True,
            "replays": plan.replays,
        },
        "wall_s": 0.0,
        "meetings": [],
        "ratings": {},
        "replays": [],
    }
    start = time.perf_counter()

    def on_meeting(meeting: Meeting) -> None:
        report["meetings"].append(res.meeting_summary(meeting.result))
        report["ratings"] = res.rate(
            report["meetings"], report["config"]["agents"], report["config"]["variants"]
        )
        report["wall_s"] = time.perf_counter() - start
        res.write(report, out)  # partial results survive an interrupted run

    console = Console(stderr=True)
    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("games"),
        TimeElapsedColumn(),
        TextColumn("left"),
        TimeRemainingColumn(),
        console=console,
    )
    with progress:
        task = progress.add_task("starting (the first meeting compiles)", total=plan.total_games)

        def on_games(done: int, label: str) -> None:
            progress.update(task, completed=done, description=label)

        meetings = play_meetings(plan, on_games, on_meeting)
    report["replays"] = save_replays(meetings, plan, out)
    report["wall_s"] = time.perf_counter() - start
    res.write(report, out)
    strict = res.no_nan(report)
    summary.write(strict, out)
    console.print(summary.strength_table(strict))
    console.print(f"wrote {out / 'results.json'}, results.csv, report.md in {report['wall_s']:.0f} s")
    return strict


def save_replays(meetings: list[Any], plan: Any, out: Path) -> list[dict[str, Any]]:
    """The recorded games as match records and GIFs under out/replays; their index."""
    from piramida.evaluation.replays import draw_gif

    index = []
    for meeting in meetings:
        if meeting.recorder is None:
            continue
        result = meeting.result
        first, second = result["agents"]
        for table in meeting.recorder.tables:
            record = meeting.recorder.record(table)
            players = (first, second) if table % 2 == 0 else (second, first)  # seat 0, seat 1
            stem = f"{result['variant']}-{first}-vs-{second}-game{table}".replace(":", "_").replace("/", "_")
            jsonl, gif = out / "replays" / f"{stem}.jsonl", out / "replays" / f"{stem}.gif"
            jsonl.parent.mkdir(exist_ok=True)
            record.save(jsonl)
            draw_gif(record, gif, players)
            index.append(
                {
                    "variant": result["variant"],
                    "players": list(players),
                    "table": table,
                    "entries": len(record.entries),
                    "record": str(jsonl.relative_to(out)),
                    "gif": str(gif.relative_to(out)),
                }
            )
    return index
