"""The environment, referee and menu benchmarks still run: each at a tiny size, its figures sane.

A benchmark nobody runs stops working unnoticed; these run `piramida bench`,
`benchmarks/env_speed.py`, `benchmarks/env_start.py`, `benchmarks/referee_speed.py`,
`benchmarks/menu_speed.py` and `benchmarks/train_devices.py` at 8 tables (the envs' compiled
batch, shared with their tests) and check that what they report is what they measured;
`benchmarks/seed_curves.py` draws two tiny logged runs.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.benchmark_scripts import load

from piramida.cli.main import main as cli
from piramida.envs import tables
from piramida.physics import runtime

env_speed = load("env_speed")
env_start = load("env_start")
referee_speed = load("referee_speed")


@pytest.mark.xdist_group("jax-env")  # the pure-JAX env's 8-table program: tests/envs/test_engine.py
def test_env_speed_measures_both_envs_their_kernel_calls_and_the_ratio_to_random16() -> None:
    row = env_speed.measure(tables=8, steps=2, seed=0)
    assert row["kernel_calls"] >= 2 and row["env_s"] > 0 and row["jax_env_s"] > 0
    # Each step plays the learner's move on every table, and the opponent's replies on some.
    assert 1 <= row["moves_per_learner_move"] <= row["kernel_calls_per_step"]
    assert math.isclose(row["steps_per_s"], 2 * 8 / row["env_s"])
    assert math.isclose(row["jax_steps_per_s"], 2 * 8 / row["jax_env_s"])
    assert row["random16_shots_per_s"] > 0
    assert math.isclose(row["moves_per_kernel_shot"], row["steps_per_s"] / row["random16_shots_per_s"])


def test_referee_speed_times_both_referees_on_breaks_and_shots(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    out = tmp_path / "referee.json"
    tiny = ["--sizes", "8", "--repeats", "1"]
    monkeypatch.setattr(sys, "argv", ["referee_speed.py", *tiny, "--json", str(out)])
    referee_speed.main()
    figures = json.loads(out.read_text())
    rows = figures["rows"]
    assert [r["workload"] for r in rows] == ["break", "shot"]
    for r in rows:
        assert r["physics_s"] > 0 and r["referee_s"] > 0 and r["log_referee_s"] > 0
        assert r["events_mean"] > 1
    assert figures["commit"] and figures["date"].startswith("20") and "referee_speed.py" in figures["command"]


# pooltool's own warning (its quadratic root solver, on some of the shots): not piramida's code.
@pytest.mark.filterwarnings("ignore:invalid value encountered in scalar power:RuntimeWarning")
def test_bench_times_the_kernel_and_pooltool_side_by_side(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    tiny = ["--sizes", "8", "--min-shots", "8", "--vs-pooltool", "--pooltool-shots", "2"]
    assert cli(["bench", *tiny, "--json", str(out)]) == 0
    figures = json.loads(out.read_text())
    kernel = figures["kernel"]
    assert [(row["workload"], row["batch"]) for row in kernel] == [("random16", 8), ("break", 8)]
    assert all(row["shots_per_s"] > 0 and row["events_per_shot"] > 1 for row in kernel)
    ratio = kernel[0]["shots_per_s"] / figures["pooltool"]["shots_per_s"]
    assert math.isclose(figures["ratio_vs_pooltool"]["8"], ratio)
    assert figures["commit"] and figures["date"].startswith("20") and "CPUs" in figures["machine"]


def test_env_speed_times_every_stage_of_a_move() -> None:
    found = env_speed.stages(tables=8, seed=0, opponent="random", repeats=1)
    times = found["seconds_per_call"]
    assert len(times) == 9 and all(t > 0 for t in times.values())


def test_env_start_times_the_make_the_first_reset_and_step_and_other_batch_sizes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(tables, "chunk_limit", lambda: 8)  # twice the batch: two chunks of its programs
    times = env_start.timings(8)
    assert set(times) == {
        "import_and_make_s",
        "first_reset_s",
        "first_step_s",
        "reset_and_first_step_s",
        "second_batch_size_s",
        "twice_the_batch_s",
    }
    assert all(seconds > 0 for seconds in times.values())
    assert math.isclose(times["reset_and_first_step_s"], times["first_reset_s"] + times["first_step_s"])


def test_menu_speed_times_the_menu_against_the_kernel(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    out = tmp_path / "menu.json"
    tiny = ["--frames", "4", "--moves", "2", "--batch", "8", "--repeats", "1"]
    monkeypatch.setattr(sys, "argv", ["menu_speed.py", *tiny, "--json", str(out)])
    load("menu_speed").main()
    figures = json.loads(out.read_text())
    assert figures["positions"] > 0 and figures["identical candidate lists"] <= figures["positions"]
    assert figures["shot menu per table, in kernel shots"] > 0
    # where it was measured: the machine, the commit (this checkout), the command, the date
    assert figures["command"].endswith(f"menu_speed.py {' '.join(tiny)} --json {out}")
    assert figures["commit"] and "CPUs" in figures["machine"] and figures["date"].startswith("20")


# The round of tests/training/test_ppo_devices.py (raw, 8 tables, 4 moves each, an 8-unit
# network), on the same worker: its compiled programs come from the persistent cache.
@pytest.mark.xdist_group("ppo-devices")
def test_train_devices_times_jax_ppo_on_one_device_and_on_two(tmp_path: Path) -> None:
    out = tmp_path / "devices.json"
    flags = ["--devices", "2", "--tables", "8", "--rounds", "1", "--action-mode", "raw", "--net-arch", "8"]
    hyper = ["--n-steps", "4", "--batch-size", "16", "--n-epochs", "2"]
    script = Path(__file__).resolve().parents[1] / "benchmarks" / "train_devices.py"
    done = subprocess.run(
        [sys.executable, str(script), *flags, *hyper, "--json", str(out)],
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    rows = json.loads(out.read_text())["rows"]
    assert [row["devices"] for row in rows] == [1, 2]
    for row in rows:
        assert row["warmup_s"] > 0 and row["seconds"] > 0
        assert math.isclose(row["moves_per_s"], 8 * 4 / row["seconds"])


def test_level_first_move_times_a_levels_first_bot_move_from_a_fresh_server(tmp_path: Path) -> None:
    out = tmp_path / "first.json"
    script = Path(__file__).resolve().parents[1] / "benchmarks" / "level_first_move.py"
    cache = str(runtime.cache_dir() or tmp_path / "cache")  # the tests' shared caches: this checks it runs
    done = subprocess.run(
        [sys.executable, str(script), "--cache", cache, "--levels", "novice", "--json", str(out)],
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(out.read_text())
    assert result["usable_s"] > 0 and list(result["first_move_s"]) == ["novice"]
    assert result["first_move_s"]["novice"] > 0


def test_seed_curves_draws_the_seeds_mean_and_spread_and_reads_their_strength(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from torch.utils.tensorboard import SummaryWriter

    runs = []
    for seed, rates in enumerate(([0.1, 0.5, 0.7], [0.2, 0.4, 0.9])):
        train, judged = tmp_path / f"s{seed}", tmp_path / f"s{seed}-eval"
        with SummaryWriter(str(train / "tensorboard")) as writer:
            for step, rate in zip((100, 200, 300), rates, strict=True):
                writer.add_scalar("piramida/win_rate", rate, step)
        judged.mkdir()
        bots = {
            "p.npz": {
                "wins": 7 + seed,
                "losses": 3 - seed,
                "win_rate": (7 + seed) / 10,
                "win_rate_ci95": [0.4, 0.9],
            }
        }
        (judged / "results.json").write_text(
            json.dumps({"meetings": [{"agents": ["p.npz", "greedy"], "bots": bots}]})
        )
        runs += ["--run", f"{train}:{judged}"]
    png, out = tmp_path / "seeds.png", tmp_path / "seeds.json"
    monkeypatch.setattr(
        sys, "argv", ["seed_curves.py", *runs, "--steps", "200", "--png", str(png), "--json", str(out)]
    )
    load("seed_curves").main()
    figures = json.loads(out.read_text())
    assert [seed["wins"] for seed in figures["seeds"]] == [7, 8]
    assert math.isclose(figures["mean_win_rate"], 0.75) and figures["lowest_win_rate"] == 0.7
    assert png.stat().st_size > 10_000 and figures["commit"] and figures["date"]
