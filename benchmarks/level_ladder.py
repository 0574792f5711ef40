"""Rate the play page's levels: a round robin between them in Free pyramid, Elo ratings, and a casual player.

Every pair of levels (`agents.ladder.LEVELS`, or `--levels`) plays `--games` frames of Free
pyramid through `evaluation.tournament` (one batch a pair, each level breaking in half of
the frames, every level with its own cue: `piramida eval --agents level:NAME,...` plays
the same games). The ratings are `evaluation.ratings.fit` (Bradley-Terry, one virtual
draw a pair) shifted so that the weakest level listed first is `--anchor` (1000).

The casual player is a script of a person new to the game: the `novice` cue and the
easiest pot first (`greedy` at `novice` noise). It plays `--casual-games` frames against
the first level, with the round robin's seed.

Writes `--json` (every meeting, the ratings, pot rates, timings, the command) and
`--markdown` (the tables of docs/levels.md). `--part K/N` plays only every N-th pair from
the K-th (to spread the pairs over processes) and `--merge A.json B.json ...` joins such
parts into one report.

Usage::

    python benchmarks/level_ladder.py --games 200 --json docs/levels.json --markdown docs/levels.md
    python benchmarks/level_ladder.py --levels novice,beginner --games 8 --casual-games 8
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from pathlib import Path
from typing import Any

from piramida.agents import ladder as levels
from piramida.evaluation import ratings, roster
from piramida.evaluation.arena import head_to_head, wilson
from piramida.evaluation.tournament import Plan, play_meetings
from piramida.physics import noise, runtime
from piramida.physics.files import write_atomic
from piramida.physics.provenance import stamped
from piramida.rules import ids

runtime.use_float64()  # a piramida program: the games compute in float64 throughout

CASUAL = "casual player"
CASUAL_BOT = ("greedy", "novice")  # the scripted casual player: the easiest pot, a novice's cue


def parse_levels(text: str) -> list[str]:
    """Level names, comma separated, each a `agents.ladder` level, two or more."""
    names = [item.strip() for item in text.split(",") if item.strip()]
    for name in names:
        try:
            levels.find(name)
        except levels.LevelError as error:
            raise argparse.ArgumentTypeError(str(error)) from None
    if len(names) < 2 or len(set(names)) < len(names):
        raise argparse.ArgumentTypeError(f"need two or more different levels, got {text!r:.60}")
    return names


def parse_part(text: str) -> tuple[int, int]:
    """`K/N`: the K-th of N parts (0 <= K < N)."""
    k, _, n = text.partition("/")
    try:
        part = int(k), int(n)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected K/N such as 0/2, got {text!r:.40}") from None
    if not 0 <= part[0] < part[1]:
        raise argparse.ArgumentTypeError(f"expected 0 <= K < N, got {text!r:.40}")
    return part


def meeting_row(result: dict[str, Any], names: tuple[str, str]) -> dict[str, Any]:
    """One meeting as the report keeps it: wins, draws, unfinished, pot rates, seconds."""
    a, b = result["agents"]
    return {
        "pair": list(names),
        "games": result["games"],
        "wins": [result["wins"][a], result["wins"][b]],
        "draws": result["draws"],
        "unfinished": result["unfinished"],
        "shots": [result["bots"][a]["shots"], result["bots"][b]["shots"]],
        "pots": [result["bots"][a]["pots"], result["bots"][b]["pots"]],
        "seconds": result["seconds"],
    }


def round_robin(
    names: list[str], games: int, cap: int, seed: int, part: tuple[int, int]
) -> list[dict[str, Any]]:
    """Play this part's pairs of `names`; one row (`meeting_row`) per pair, first-listed level first."""
    players = tuple(roster.LEVEL + name for name in names)
    plan = Plan(agents=players, variants=(ids.FREE,), magnitude=0.0, games=games, cap=cap, seed=seed)
    meetings = plan.meetings()[part[0] :: part[1]]
    rows = []
    for _, pair in meetings:
        one = Plan(agents=pair, variants=plan.variants, magnitude=0.0, games=games, cap=cap, seed=seed)
        result = play_meetings(one)[0].result
        named = (pair[0].removeprefix(roster.LEVEL), pair[1].removeprefix(roster.LEVEL))
        rows.append(meeting_row(result, named))
        print(f"  {rows[-1]['pair']}: {rows[-1]['wins']} in {result['seconds']:.0f} s", flush=True)
    return rows


def casual_match(bottom: str, games: int, cap: int, seed: int) -> dict[str, Any]:
    """The casual player (`CASUAL_BOT`) against the level `bottom`, Free, the round robin's racks."""
    from piramida.agents import make_bot

    cue = noise.level(CASUAL_BOT[1])
    level = roster.LEVEL + bottom
    result = head_to_head(
        ((CASUAL, make_bot(CASUAL_BOT[0], cue)), (level, roster.build(level, 0.0))),
        ids.FREE,
        0.0,
        games,
        cap,
        seed,
        rack_jitter=True,
        noises=(cue, roster.magnitude_of(level, 0.0)),
    )
    return meeting_row(result, (CASUAL, bottom))


def fit(names: list[str], rows: list[dict[str, Any]], anchor: float) -> dict[str, float]:
    """Elo ratings of `names` from the meetings, the first name at `anchor`."""
    games = [ratings.Games(r["pair"][0], r["pair"][1], r["wins"][0], r["wins"][1], r["draws"]) for r in rows]
    elo = ratings.fit(games, names)
    return {name: round(elo[name] - elo[names[0]] + anchor, 1) for name in names}


def pot_rates(names: list[str], rows: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Each level's pots and shots over all its meetings in the round robin."""
    out = {name: {"pots": 0, "shots": 0} for name in names}
    for r in rows:
        for k, name in enumerate(r["pair"]):
            out[name]["pots"] += r["pots"][k]
            out[name]["shots"] += r["shots"][k]
    return out


def rate(wins: int, losses: int) -> str:
    """A win rate with its count and 95 % interval, as the tables show it."""
    if wins + losses == 0:
        return "-"
    low, high = wilson(wins, wins + losses)
    return f"{wins / (wins + losses):.1%} ({wins}-{losses}; {low:.0%}-{high:.0%})"


def markdown(report: dict[str, Any]) -> str:
    """The report's tables: the levels (ratings, pot rates), the neighbours, every pair, the casual player."""
    names, elo, pots = report["levels"], report["ratings"], report["pot_rates"]
    by_pair = {tuple(r["pair"]): r for r in report["meetings"]}
    lines = [
        "# The play page's levels, measured",
        "",
        f"Every pair of levels played {report['games']} frames of Free pyramid (one batch a pair, each "
        "level breaking in half of them, each with its own cue; `piramida eval --agents "
        "level:NAME,...` plays the same games). Ratings: Elo from a Bradley-Terry fit "
        "(`evaluation/ratings.py`, one virtual draw a pair), anchored at "
        f"{names[0]} = {report['anchor']:g}. Pot rate: the shots that legally pocketed a ball, "
        "over all the level's frames here. Written by `benchmarks/level_ladder.py`; between "
        "bots, not against people.",
        "",
        "| level | bot | search level | cue (noise) | rating | pot rate (pots / shots) |",
        "|---|---|---|---|---|---|",
    ]
    for name in names:
        lv = levels.find(name)
        search = lv.level if lv.bot == "search" else "-"
        p = pots[name]
        share = f"{p['pots'] / p['shots']:.1%} ({p['pots']} / {p['shots']})" if p["shots"] else "-"
        cue = f"{lv.noise} ({noise.level(lv.noise):g})"
        lines.append(f"| {name} | {lv.bot} | {search} | {cue} | {elo[name]:.0f} | {share} |")
    lines += ["", "Each level against the one below it (wins-losses of the stronger; 95 % interval):", ""]
    lines += ["| pair | frames | stronger wins | draws | unfinished |", "|---|---|---|---|---|"]
    for low, high in itertools.pairwise(names):
        r = by_pair.get((low, high)) or by_pair.get((high, low))
        if r is None:
            continue
        k = r["pair"].index(high)
        lines.append(
            f"| {high} vs {low} | {r['games']} | {rate(r['wins'][k], r['wins'][1 - k])} | "
            f"{r['draws']} | {r['unfinished']} |"
        )
    lines += ["", "Every pair (row's win rate against the column, wins-losses):", ""]
    lines += ["| | " + " | ".join(names) + " |", "|---" * (len(names) + 1) + "|"]
    for a in names:
        cells = []
        for b in names:
            r = by_pair.get((a, b)) or by_pair.get((b, a))
            if a == b or r is None:
                cells.append("-")
                continue
            k = r["pair"].index(a)
            won, lost = r["wins"][k], r["wins"][1 - k]
            cells.append(f"{won / (won + lost):.0%} ({won}-{lost})" if won + lost else "-")
        lines.append(f"| {a} | " + " | ".join(cells) + " |")
    casual = report.get("casual")
    if casual is not None:
        shots, pots_made = casual["shots"], casual["pots"]
        lines += [
            "",
            f"The casual player ({CASUAL_BOT[0]} at `{CASUAL_BOT[1]}` noise) against {casual['pair'][1]}:",
            "",
            "| frames | casual player wins | draws | unfinished | casual pot rate | "
            f"{casual['pair'][1]} pot rate |",
            "|---|---|---|---|---|---|",
            f"| {casual['games']} | {rate(casual['wins'][0], casual['wins'][1])} | {casual['draws']} | "
            f"{casual['unfinished']} | {pots_made[0] / max(shots[0], 1):.1%} ({pots_made[0]} / {shots[0]}) | "
            f"{pots_made[1] / max(shots[1], 1):.1%} ({pots_made[1]} / {shots[1]}) |",
        ]
    seconds = [r["seconds"] for r in report["meetings"]]
    side_by_side = bool(report.get("merged"))
    lines += [
        "",
        f"{len(seconds)} pairs, {report['games']} frames each (Free, seed {report['seed']}, "
        f"cap {report['cap']} moves); ratings anchored at {names[0]} = {report['anchor']:g}. "
        f"A pair took {min(seconds):.0f}-{max(seconds):.0f} s (a bot's first meeting in a process "
        f"includes its compile), {sum(seconds) / 60:.1f} min in all; the run took "
        f"{report['seconds'] / 60:.1f} min of wall time{' (its parts side by side)' * side_by_side}.",
        "",
        f"Command: `{report['command']}`",
    ]
    return "\n".join(lines) + "\n"


def finish(report: dict[str, Any], args: argparse.Namespace) -> None:
    """Fit, print and write the report."""
    report["ratings"] = fit(report["levels"], report["meetings"], report["anchor"])
    report["pot_rates"] = pot_rates(report["levels"], report["meetings"])
    if args.json:  # first: the games are kept even if the tables cannot be made
        write_atomic(args.json, json.dumps(stamped(report), indent=2) + "\n")
    text = markdown(report)
    print(text)
    if args.markdown:
        write_atomic(args.markdown, text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", type=parse_levels, default=[lv.name for lv in levels.LEVELS])
    parser.add_argument("--games", type=int, default=200, help="frames a pair (200)")
    parser.add_argument("--casual-games", type=int, default=100, help="casual player's frames (100; 0: none)")
    parser.add_argument("--cap", type=int, default=400, help="moves per frame before it counts as unfinished")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--anchor", type=float, default=1000.0, help="the first level's rating (1000)")
    parser.add_argument("--part", type=parse_part, default=(0, 1), help="K/N: every N-th pair from the K-th")
    parser.add_argument("--merge", nargs="+", help="join these parts' --json files instead of playing")
    parser.add_argument("--json", help="write the report here")
    parser.add_argument("--markdown", help="write the tables here")
    args = parser.parse_args()
    if args.games < 2 or args.casual_games < 0 or args.cap < 1:
        parser.error("--games must be >= 2, --casual-games >= 0, --cap >= 1")
    if args.merge:
        parts = [json.loads(Path(p).read_text()) for p in args.merge]
        report = parts[0] | {"meetings": [m for p in parts for m in p["meetings"]]}
        report["casual"] = next((p["casual"] for p in parts if p.get("casual")), None)
        report["seconds"] = max(p["seconds"] for p in parts)
        report["merged"] = len(parts)
        commands = [*(p["command"] for p in parts), " ".join(["python", *sys.argv])]
        report["command"] = " && ".join(commands)
        finish(report, args)
        return
    start = time.perf_counter()
    report: dict[str, Any] = {
        "levels": args.levels,
        "games": args.games,
        "cap": args.cap,
        "seed": args.seed,
        "anchor": args.anchor,
        "part": list(args.part),
        "settings": {name: levels.find(name).settings() for name in args.levels},
        "command": " ".join(["python", *sys.argv]),
    }
    report["meetings"] = round_robin(args.levels, args.games, args.cap, args.seed, args.part)
    play_casual = args.casual_games > 0 and args.part[0] == 0
    report["casual"] = (
        casual_match(args.levels[0], args.casual_games, args.cap, args.seed) if play_casual else None
    )
    report["seconds"] = time.perf_counter() - start
    finish(report, args)


if __name__ == "__main__":
    main()
