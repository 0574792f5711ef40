"""`benchmarks/level_ladder.py` still runs: the bottom levels at a tiny size, in two parts, merged.

The three bottom levels (casual and greedy bots, quick to compile) play 4 frames a pair;
the report counts every frame, anchors the first level, and its tables name the command.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pytest
from helpers.benchmark_scripts import load

from piramida.agents import ladder as levels

ladder = load("level_ladder")
NAMES = [level.name for level in levels.LEVELS[:3]]


def run(monkeypatch: pytest.MonkeyPatch, *flags: str) -> None:
    monkeypatch.setattr(sys, "argv", ["level_ladder.py", *flags])
    ladder.main()


def test_the_ladder_plays_every_pair_in_parts_and_merges_them(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    tiny = ["--levels", ",".join(NAMES), "--games", "4", "--casual-games", "4", "--cap", "24"]
    for k in (0, 1):
        out = str(tmp_path / f"part{k}.json")
        run(monkeypatch, *tiny, "--anchor", "900", "--part", f"{k}/2", "--json", out)
    parts = [json.loads((tmp_path / f"part{k}.json").read_text()) for k in (0, 1)]
    assert [len(p["meetings"]) for p in parts] == [2, 1]  # 3 pairs: every other one
    assert parts[0]["casual"] is not None and parts[1]["casual"] is None
    merged = tmp_path / "levels.json"
    run(monkeypatch, "--merge", *(str(tmp_path / f"part{k}.json") for k in (0, 1)), "--json", str(merged))
    report = json.loads(merged.read_text())
    pairs = sorted(tuple(sorted(m["pair"])) for m in report["meetings"])
    assert pairs == sorted(tuple(sorted(p)) for p in [NAMES[:2], NAMES[::2], NAMES[1:]])
    for m in [*report["meetings"], report["casual"]]:
        assert sum(m["wins"]) + m["draws"] + m["unfinished"] == 4
        assert all(0 <= pots <= shots for pots, shots in zip(m["pots"], m["shots"], strict=True))
    assert report["ratings"][NAMES[0]] == 900
    shots = sum(sum(m["shots"]) for m in report["meetings"])
    assert sum(report["pot_rates"][n]["shots"] for n in NAMES) == shots
    text = ladder.markdown(report)
    assert all(f"| {n} |" in text for n in NAMES) and "casual player" in text
    assert "--merge" in text and "--part 0/2" in text and f"anchored at {NAMES[0]} = 900" in text


def test_unknown_levels_and_parts_are_refused_naming_what_is_wrong() -> None:
    with pytest.raises(argparse.ArgumentTypeError, match="the levels are"):
        ladder.parse_levels("novice,grandmaster")
    with pytest.raises(argparse.ArgumentTypeError, match="0 <= K < N"):
        ladder.parse_part("2/2")
