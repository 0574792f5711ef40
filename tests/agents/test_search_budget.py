"""`benchmarks/search_budget.py --replot`: levels run in separate processes drawn as one curve."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers.benchmark_scripts import load

search_budget = load("search_budget")

CONFIG = {"variant": "free", "noise": 0.15, "games": 4, "decisions": 1, "cap": 400, "seed": 0}


def _report(levels: list[tuple[str, int, float]], **config: Any) -> dict[str, Any]:
    rows = [
        {
            "level": name,
            "budget": budget,
            "decision_median_s": 0.1 * budget,
            "decision_p90_s": 0.2 * budget,
            "decision_seconds": [0.1 * budget],
            "win_rate": rate,
            "win_rate_ci95": [rate - 0.1, rate + 0.1],
            "wins": [round(4 * rate), 4 - round(4 * rate)],
            "unfinished": 0,
            "pot_rate": 0.5,
            "greedy_pot_rate": 0.4,
            "match_seconds": 1.0,
        }
        for name, budget, rate in levels
    ]
    return {
        "command": f"python benchmarks/search_budget.py --levels {','.join(n for n, _, _ in levels)}",
        "config": {**CONFIG, **config},
        "machine": "x86_64, 2 CPUs, test",
        "levels": rows,
    }


def test_merged_orders_the_levels_by_budget_and_keeps_both_commands() -> None:
    a = _report([("easy", 18, 0.5), ("strongest", 388, 0.75)])
    b = _report([("medium", 88, 0.5), ("strong", 176, 0.75)])
    report = search_budget.merged([a, b])
    assert [row["level"] for row in report["levels"]] == ["easy", "medium", "strong", "strongest"]
    assert report["command"] == [a["command"], b["command"]]
    assert report["config"] == a["config"]


@pytest.mark.parametrize(
    ("second", "message"),
    [
        (_report([("medium", 88, 0.5)], games=8), "configs differ"),
        (_report([("easy", 18, 0.25)]), "more than once"),
    ],
)
def test_merged_refuses_other_configs_and_repeated_levels(second: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        search_budget.merged([_report([("easy", 18, 0.5)]), second])


def test_replot_writes_the_merged_json_and_the_plot(tmp_path: Path) -> None:
    parts = [_report([("easy", 18, 0.5)]), _report([("strong", 176, 0.75)])]
    names = []
    for k, part in enumerate(parts):
        names.append(str(tmp_path / f"part{k}.json"))
        Path(names[-1]).write_text(json.dumps(part))
    out, png = tmp_path / "all.json", tmp_path / "all.png"
    search_budget.main(["--replot", *names, "--json", str(out), "--plot", str(png)])
    assert [row["budget"] for row in json.loads(out.read_text())["levels"]] == [18, 176]
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_replot_names_a_bad_merge(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    name = str(tmp_path / "part.json")
    Path(name).write_text(json.dumps(_report([("easy", 18, 0.5)])))
    with pytest.raises(SystemExit):
        search_budget.main(["--replot", name, name, "--plot", str(tmp_path / "x.png")])
    assert "--replot: a level appears more than once" in capsys.readouterr().err
