"""The numbers of a tournament: one summary per meeting, Elo ratings, and results.json / results.csv.

Per meeting (a variant and a pair of players): games, each player's wins, draws, frames
unfinished at the move cap (or set aside as stuck), and the first player's win rate over
the decided frames with its 95 % Wilson interval. Per player in a meeting:

- wins, losses, win rate (its wins over the decided frames) and its Wilson interval;
- breaks: the frames in which it broke;
- points per game: its mean score at the end of the frame (unfinished frames included);
- pot rate, fouls per shot, balls per turn (`arena.Tally`);
- game length: the mean number of shots in the meeting's frames (both players' shots).

Ratings (`ratings.fit`) use the decided frames and the draws; unfinished frames are left out.
JSON has no NaN: a rate with nothing to divide by is written as null.
"""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path
from typing import Any

from piramida.evaluation import ratings
from piramida.evaluation.arena import wilson
from piramida.physics.files import write_atomic
from piramida.physics.runtime import library_versions

FORMAT = "piramida-eval"
VERSION = 1
CSV_COLUMNS = [
    "variant",
    "noise",
    "agent",
    "opponent",
    "seed",
    "games",
    "breaks",
    "wins",
    "losses",
    "draws",
    "unfinished",
    "win_rate",
    "win_rate_low",
    "win_rate_high",
    "points_per_game",
    "pot_rate",
    "fouls_per_shot",
    "balls_per_turn",
    "game_length_shots",
    "elo_variant",
    "elo_overall",
]
TIMING_FIELDS = ("seconds", "wall_s", "act_seconds", "act_calls", "started")  # differ from run to run
RATING_METHOD = (
    "Bradley-Terry maximum likelihood (Hunter's MM iteration) on the Elo scale "
    "(400 log10 odds), mean 1500; a draw is half a win each; one virtual draw per pair that met"
)


def meeting_summary(result: dict[str, Any]) -> dict[str, Any]:
    """The summary of one `arena.head_to_head` result (module docstring)."""
    first, second = result["agents"]
    games = result["games"]
    bots = {}
    for k, name in enumerate((first, second)):
        other = second if k == 0 else first
        tally = result["bots"][name]
        wins, losses = result["wins"][name], result["wins"][other]
        decided = wins + losses
        low, high = wilson(wins, decided)
        bots[name] = {
            "breaks": (games + 1) // 2 if k == 0 else games // 2,
            "wins": wins,
            "losses": losses,
            "win_rate": wins / decided if decided else math.nan,
            "win_rate_ci95": [low, high],
            "points_per_game": result["mean_score"][name],
            "pot_rate": tally["pot_rate"],
            "fouls_per_shot": tally["fouls_per_shot"],
            "balls_per_turn": tally["balls_per_turn"],
            "game_length_shots": result["mean_shots_per_frame"],
            "shots": tally["shots"],
            "clears": tally["clears"],
            "refused": tally["invalid"],
            "foul_kinds": tally["foul_kinds"],
            "act_seconds": tally["act_seconds"],
        }
    return {
        "variant": result["variant"],
        "noise": result["noise"],
        "noises": result["noises"],  # each player's own cue: a page level's, else `noise`
        "agents": [first, second],
        "seed": result["seed"],
        "games": games,
        "wins": result["wins"],
        "draws": result["draws"],
        "unfinished": result["unfinished"],
        "stuck": result["stuck"],
        "win_rate": result["win_rate"],
        "win_rate_ci95": result["win_rate_ci95"],
        "mean_shots_per_frame": result["mean_shots_per_frame"],
        "steps": result["steps"],
        "seconds": result["seconds"],
        "bots": bots,
    }


def games_of(meetings: list[dict[str, Any]]) -> list[ratings.Games]:
    """The decided frames and draws of meeting summaries, for `ratings.fit`."""
    out = []
    for m in meetings:
        first, second = m["agents"]
        out.append(ratings.Games(first, second, m["wins"][first], m["wins"][second], m["draws"]))
    return out


def rate(meetings: list[dict[str, Any]], agents: list[str], variants: list[str]) -> dict[str, Any]:
    """Elo ratings per variant and over all variants together."""
    return {
        "method": RATING_METHOD,
        "prior_draws_per_pair": 1.0,
        "per_variant": {
            v: ratings.fit(games_of([m for m in meetings if m["variant"] == v]), agents) for v in variants
        },
        "overall": ratings.fit(games_of(meetings), agents),
    }


def versions() -> dict[str, str]:
    """The versions of Python and of the packages whose behaviour the numbers depend on."""
    return library_versions(("piramida", "jax", "jaxlib", "numpy", "matplotlib"))


def no_nan(value: Any) -> Any:
    """`value` with every NaN float replaced by None (strict JSON)."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: no_nan(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [no_nan(v) for v in value]
    return value


def csv_rows(results: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per variant x pair x player (`CSV_COLUMNS`)."""
    rows = []
    elo = results["ratings"]
    for m in results["meetings"]:
        for k, name in enumerate(m["agents"]):
            bot = m["bots"][name]
            low, high = bot["win_rate_ci95"]
            rows.append(
                {
                    "variant": m["variant"],
                    "noise": m["noise"],
                    "agent": name,
                    "opponent": m["agents"][1 - k],
                    "seed": m["seed"],
                    "games": m["games"],
                    "breaks": bot["breaks"],
                    "wins": bot["wins"],
                    "losses": bot["losses"],
                    "draws": m["draws"],
                    "unfinished": m["unfinished"],
                    "win_rate": bot["win_rate"],
                    "win_rate_low": low,
                    "win_rate_high": high,
                    "points_per_game": bot["points_per_game"],
                    "pot_rate": bot["pot_rate"],
                    "fouls_per_shot": bot["fouls_per_shot"],
                    "balls_per_turn": bot["balls_per_turn"],
                    "game_length_shots": bot["game_length_shots"],
                    "elo_variant": elo["per_variant"][m["variant"]][name],
                    "elo_overall": elo["overall"][name],
                }
            )
    return rows


def csv_text(results: dict[str, Any]) -> str:
    """`csv_rows` as CSV text (empty cells where the JSON has null)."""
    out = io.StringIO()
    writer = csv.DictWriter(out, CSV_COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in csv_rows(results):
        writer.writerow(
            {k: "" if v is None else repr(v) if isinstance(v, float) else v for k, v in row.items()}
        )
    return out.getvalue()


def write(results: dict[str, Any], folder: str | Path) -> None:
    """results.json and results.csv in `folder`, each written atomically."""
    folder = Path(folder)
    strict = no_nan(results)
    write_atomic(folder / "results.json", json.dumps(strict, indent=2, allow_nan=False) + "\n")
    write_atomic(folder / "results.csv", csv_text(strict))


def meetings_written(folder: str | Path) -> int:
    """How many meetings `folder`'s results.json holds (0 if it holds none, or cannot be read)."""
    try:
        meetings = json.loads((Path(folder) / "results.json").read_text()).get("meetings")
    except (OSError, ValueError, AttributeError):
        return 0
    return len(meetings) if isinstance(meetings, list) else 0
