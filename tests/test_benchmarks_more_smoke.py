"""The bots', kernel's and trainers' benchmarks still run: each at a tiny size, its figures sane.

`benchmarks/greedy_cut_angles.py`, `noise_levels.py`, `baselines.py`, `log_capacity.py`,
`search_strength.py`, `trained_decision.py`, `search_first_move.py`, `train_speed.py` and
`gpu_kernel.py`'s kernel section (its small plan, on the CPU). `distill_curves.py` and `finetune_curve.py`
draw the runs of the training tests (`tests/training/test_expert.py`,
`tests/training/test_train_slots.py`).
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.benchmark_scripts import BENCHMARKS, load

pytestmark = pytest.mark.slow


def test_greedy_cut_angles_pots_more_with_the_throw_correction(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    out = tmp_path / "cuts.json"
    monkeypatch.setattr(sys, "argv", ["greedy_cut_angles.py", "--json", str(out)])
    load("greedy_cut_angles").main()
    report = json.loads(out.read_text())
    assert {"machine", "commit", "command", "date"} <= report.keys()  # where it was measured
    rows = report["rows"]
    assert {(row["kind"], row["cut"]) for row in rows} == {
        (kind, cut) for kind in ("corner", "middle") for cut in range(0, 80, 10)
    }
    assert all(row["layouts"] > 0 and 0 <= row["plain"] <= 1 and 0 <= row["corrected"] <= 1 for row in rows)
    straight = [row for row in rows if row["cut"] == 0]
    assert all(row["corrected"] == 1.0 for row in straight), straight  # a straight pot, no noise
    assert sum(row["corrected"] for row in rows) > sum(row["plain"] for row in rows)


def test_noise_levels_pot_rate_falls_from_certain_as_the_noise_grows(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    out = tmp_path / "noise.json"
    monkeypatch.setattr(sys, "argv", ["noise_levels.py", "--repeats", "16", "--json", str(out)])
    load("noise_levels").main()
    report = json.loads(out.read_text())
    assert {"machine", "commit", "command", "date"} <= report.keys()
    rates = {row["magnitude"]: row["pot_rate"] for row in report["rows"]}
    assert rates[0.0] == 1.0  # a straight pot with no noise
    assert rates[3.0] < rates[0.15] <= 1.0  # FastFiz's noise three times over misses more
    assert report["levels"].keys() == {"pro", "amateur"}


def test_baselines_plays_greedy_against_random_and_counts_every_frame(tmp_path: Path) -> None:
    out, table = tmp_path / "baselines.json", tmp_path / "baselines.md"
    tiny = ["--games", "4", "--variants", "free", "--noise", "0.15", "--cap", "12"]
    load("baselines").main([*tiny, "--json", str(out), "--markdown", str(table)])
    report = json.loads(out.read_text())
    assert {"machine", "commit", "command", "date"} <= report.keys()
    (setting,) = report["settings"]
    assert (setting["variant"], setting["noise"], setting["games"]) == ("free", 0.15, 4)
    assert sum(setting["wins"].values()) + setting["draws"] + setting["unfinished"] == 4
    bots = setting["bots"]
    assert bots["greedy"]["pot_rate"] > bots["random"]["pot_rate"]
    assert "| free | 0.15 | 4 |" in table.read_text()


def test_log_capacity_counts_each_workloads_events_and_overflows(tmp_path: Path) -> None:
    out = tmp_path / "capacity.json"
    load("log_capacity").main(["--capacities", "256", "--batch", "8", "--repeats", "1", "--json", str(out)])
    rows = json.loads(out.read_text())["rows"]
    assert [(row["workload"], row["transitions"]) for row in rows] == [
        (workload, logged) for workload in ("break", "random16", "safety") for logged in (True, False)
    ]
    for row in rows:
        assert 0 <= row["overflow"] <= 8 and row["seconds"] > 0
        assert row["events_p50_p90_p99_max"][-1] <= 256  # the log holds what it counts
        assert row["overflow"] == 0 or row["events_p50_p90_p99_max"][-1] == 256


def test_search_strength_plays_and_counts_every_frame(tmp_path: Path) -> None:
    out = tmp_path / "strength.json"
    tiny = ["--games", "8", "--variants", "free", "--noise", "pro", "--cap", "6", "--level", "easy"]
    load("search_strength").main([*tiny, "--json", str(out)])
    figures = json.loads(out.read_text())
    [setting] = figures["settings"]
    assert figures["config"]["level"] == "easy" and setting["games"] == 8
    assert sum(setting["wins"].values()) + setting["draws"] + setting["unfinished"] == 8
    shots = sum(bot["shots"] for bot in setting["bots"].values())
    assert shots == setting["mean_shots_per_frame"] * 8 <= 6 * 8  # each frame cut after 6 moves
    assert all(bot["act_seconds"] > 0 for bot in setting["bots"].values())
    assert figures["commit"] and figures["date"].startswith("20") and "CPUs" in figures["machine"]


def test_trained_decision_times_each_bot_in_every_phase(tmp_path: Path) -> None:
    out = tmp_path / "decision.json"
    load("trained_decision").main(["--repeats", "1", "--bots", "trained:policy,greedy", "--json", str(out)])
    figures = json.loads(out.read_text())
    assert list(figures["bots"]) == ["trained:policy", "greedy"]
    assert figures["positions"] == len(figures["phases"]) > 4 and set(figures["phases"]) >= {0, 1}
    for row in figures["bots"].values():
        assert 0 < row["all median ms"] <= row["all p90 ms"] and row["break median ms"] > 0


def test_trained_decision_refuses_an_unknown_bot_in_one_line() -> None:
    script = BENCHMARKS / "trained_decision.py"
    done = subprocess.run(
        [sys.executable, str(script), "--bots", "greedy,search:hard"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "--bots: bot 'search:hard': unknown search level" in done.stderr


def test_search_first_move_times_the_first_and_later_moves() -> None:
    first, later = load("search_first_move").main(["--level", "easy"])
    assert len(later) == 3 and all(seconds > 0 for seconds in later) and first > 0


def test_train_speed_times_both_trainers_on_the_same_tables(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    out = tmp_path / "train.json"
    tiny = ["--tables", "8", "--rounds", "1", "--n-steps", "4", "--batch-size", "16", "--n-epochs", "1"]
    monkeypatch.setattr(sys, "argv", ["train_speed.py", *tiny, "--json", str(out)])
    monkeypatch.setenv("SB3_LOGDIR", str(tmp_path / "sb3-default"))  # where SB3 logs with no logger set
    load("train_speed").main()
    assert not (tmp_path / "sb3-default").exists()  # its logger writes nowhere
    rows = json.loads(out.read_text())["rows"]
    assert [row["algo"] for row in rows] == ["maskable-ppo", "jax-ppo"]
    for row in rows:
        assert row["tables"] == 8 and row["warmup_s"] > 0
        assert math.isclose(row["moves_per_s"], 8 * 4 / row["seconds"])


def test_gpu_kernels_small_plan_runs_on_the_cpu_and_writes_a_line_a_measurement(tmp_path: Path) -> None:
    out = tmp_path / "kernel.jsonl"
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "gpu_kernel.py"), "kernel", str(out)],
        env={**os.environ, "SMALL": "1"},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert lines[0]["devices"] and [(row["workload"], row["batch"]) for row in lines[1:]] == [
        ("random16", 1),
        ("random16", 64),
        ("break", 16),
    ]
    assert all(row["shots_per_s"] > 0 and row["overflow"] == 0 for row in lines[1:])
