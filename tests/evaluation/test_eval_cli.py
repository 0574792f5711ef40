"""`piramida eval`: the files it writes agree with each other, bad flags exit 2, runs repeat, replays replay.

One small tournament (random against greedy, two variants, 4 games each, short caps) is
played once for the module; random and greedy compile fast.
"""

from __future__ import annotations

import csv
import errno
import json
import os
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from piramida.cli.main import main
from piramida.cli.referee import answer
from piramida.evaluation import results
from piramida.evaluation.results import TIMING_FIELDS
from piramida.physics.files import write_atomic
from piramida.rules import match
from piramida.training.players import check_name, names_a_file

# Its module-scoped fixtures are costly: one worker runs the whole module (`--dist loadgroup`).
pytestmark = pytest.mark.xdist_group("test_eval_cli")

GAMES = 4
BASE = ["eval", "--agents", "random,greedy", "--games", str(GAMES), "--cap", "24", "--noise", "pro"]


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("eval")
    assert main([*BASE, "--variants", "free,classic", "--replays", "2", "--out", str(out)]) == 0
    return out


def results_of(folder: Path) -> dict[str, Any]:
    return json.loads((folder / "results.json").read_text())


def untimed(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: untimed(v) for k, v in value.items() if k not in TIMING_FIELDS}
    if isinstance(value, list):
        return [untimed(v) for v in value]
    return value


def test_every_pair_and_variant_is_played_and_counted(run: Path) -> None:
    results = results_of(run)
    assert results["config"]["agents"] == ["random", "greedy"]
    assert results["config"]["variants"] == ["free", "classic"]
    assert results["command"].startswith("piramida eval --agents random,greedy --variants free,classic")
    assert {"python", "jax", "numpy"} <= set(results["versions"]) and results["machine"]
    meetings = results["meetings"]
    assert [m["variant"] for m in meetings] == ["free", "classic"]
    # The order of a pair alternates between variants, so breaks even out.
    assert meetings[0]["agents"] == ["random", "greedy"] and meetings[1]["agents"] == ["greedy", "random"]
    for m in meetings:
        assert m["games"] == GAMES and m["seed"] == 0
        assert sum(m["wins"].values()) + m["draws"] + m["unfinished"] == GAMES
        assert sum(b["breaks"] for b in m["bots"].values()) == GAMES
        for name, bot in m["bots"].items():
            assert bot["wins"] == m["wins"][name] and bot["wins"] + bot["losses"] == sum(m["wins"].values())
            low, high = bot["win_rate_ci95"]
            assert low <= bot["win_rate"] <= high
    # Greedy beats random by far; the ratings say so in each variant and overall.
    ratings = results["ratings"]
    for table in [*ratings["per_variant"].values(), ratings["overall"]]:
        assert table["greedy"] > table["random"]
        assert (table["greedy"] + table["random"]) / 2 == pytest.approx(1500.0)
    assert "Bradley-Terry" in ratings["method"]


def test_csv_and_report_hold_the_json_numbers(run: Path) -> None:
    results = results_of(run)
    with (run / "results.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 2 * 2  # variants x pairs x players
    report = (run / "report.md").read_text()
    for row in rows:
        meeting = next(m for m in results["meetings"] if m["variant"] == row["variant"])
        bot = meeting["bots"][row["agent"]]
        assert row["opponent"] in meeting["agents"] and row["opponent"] != row["agent"]
        for column in ("wins", "losses", "breaks"):
            assert int(row[column]) == bot[column]
        for column in ("win_rate", "points_per_game", "pot_rate", "fouls_per_shot", "balls_per_turn"):
            assert float(row[column]) == pytest.approx(bot[column])
        assert float(row["win_rate_low"]) == pytest.approx(bot["win_rate_ci95"][0])
        assert float(row["game_length_shots"]) == pytest.approx(meeting["mean_shots_per_frame"])
        per_variant = results["ratings"]["per_variant"][row["variant"]]
        assert float(row["elo_variant"]) == pytest.approx(per_variant[row["agent"]])
        assert float(row["elo_overall"]) == pytest.approx(results["ratings"]["overall"][row["agent"]])
        line = f"| {row['variant']} | {row['agent']} | {row['opponent']} | {bot['wins']}-{bot['losses']}-"
        assert line in report
        assert f"{float(row['points_per_game']):.2f}" in report
    overall = results["ratings"]["overall"]
    assert f"| greedy | {results['ratings']['per_variant']['free']['greedy']:.0f} (" in report
    assert f"{overall['greedy']:.0f} (" in report and f"{overall['random']:.0f} (" in report
    for picture in ("ratings.png", "win_rates.png"):
        assert f"]({picture})" in report
        with Image.open(run / picture) as image:
            assert image.format == "PNG" and image.size[0] > 100


def test_replays_re_adjudicate_and_animate(run: Path) -> None:
    results = results_of(run)
    replays = results["replays"]
    assert [r["variant"] for r in replays] == ["free", "classic"]  # spread over the meetings
    for r in replays:
        record = match.load(run / r["record"])
        assert len(record.entries) == r["entries"] > 2
        assert record.entries[0]["state"]["phase"] == "break"
        with Image.open(run / r["gif"]) as gif:
            assert gif.format == "GIF" and gif.n_frames == r["entries"] + 1  # the start, then each move
        report = match.replay(record)  # a Classic shot's call included
        assert report["reproduced"], report["mismatches"][:3]
        # Every shot is a `piramida referee` request (a Classic call included) with its answer.
        for entry in record.entries:
            if entry["kind"] == "shot":
                request = {k: v for k, v in entry.items() if k not in ("kind", "verdict", "_line")}
                assert answer({"variant": r["variant"], **request}) == entry["verdict"]


def test_the_same_seed_plays_the_same_games(run: Path, tmp_path: Path) -> None:
    # A meeting does not depend on the others: free alone replays the tournament's free meeting.
    assert main([*BASE, "--variants", "free", "--out", str(tmp_path)]) == 0
    again = results_of(tmp_path)["meetings"]
    assert len(again) == 1
    assert untimed(again[0]) == untimed(results_of(run)["meetings"][0])
    assert main([*BASE, "--variants", "free", "--seed", "1", "--out", str(tmp_path / "seed1")]) == 0
    other = results_of(tmp_path / "seed1")["meetings"][0]
    assert other["seed"] == 1 and untimed(other["bots"]) != untimed(again[0]["bots"])


@pytest.mark.parametrize(
    ("flags", "words"),
    [
        (["--agents", "random,snooker"], ["--agents", "unknown bot 'snooker'"]),
        (["--agents", "random,search:expert"], ["--agents", "unknown search level"]),
        (["--agents", "random,random"], ["--agents", "listed twice"]),
        (["--agents", "random,missing/model.zip"], ["--agents", "no such file"]),
        (["--agents", "random,greedy", "--variants", "pool"], ["--variants", "unknown variant 'pool'"]),
        (["--agents", "random,greedy", "--noise", "expert"], ["--noise", "expert"]),
        (["--agents", "random,greedy", "--games", "0"], ["--games", ">= 1"]),
        (["--agents", "random,greedy", "--games", "many"], ["--games", "invalid int"]),
        # numpy tried to allocate 7.28 TiB: now refused before any array, with the estimate.
        (
            ["--agents", "random,greedy", "--games", "1000000000000"],
            ["--games: 1000000000000 tables need at least 3.64 PB of memory (3.64 kB a table)"],
        ),
        (["--agents", "greedy"], ["--agents", "two or more"]),
        (["--agents", "random,greedy", "--replays", "-1"], ["--replays", ">= 0"]),
    ],
)
def test_bad_flags_exit_2_naming_the_flag(
    flags: list[str], words: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        status = main(["eval", *flags, "--out", str(tmp_path / "out")])
        raise SystemExit(status)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    for word in words:
        assert word in err
    assert "Traceback" not in err
    assert not (tmp_path / "out" / "results.json").exists()


def test_a_file_that_is_not_a_policy_and_an_unwritable_out_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fake = tmp_path / "model.zip"
    fake.write_text("not a model")
    assert main(["eval", "--agents", f"greedy,{fake}", "--out", str(tmp_path / "out")]) == 2
    assert f"--agents: agent '{fake}': cannot load it as a policy" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert main(["eval", "--agents", "random,greedy", "--out", str(blocker / "out")]) == 2
    err = capsys.readouterr().err
    assert "--out: cannot write to" in err and str(blocker / "out") in err


def test_a_disk_that_fills_mid_run_keeps_the_meetings_written_before_and_exits_2(
    run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # A full disk was a traceback (exit 1), and nothing of the games played was written.
    writes = []

    def fills_after_the_first_meeting(path: Path, data: str | bytes) -> None:
        writes.append(path)
        if len(writes) > 2:  # results.json and results.csv of the first meeting went through
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        write_atomic(path, data)

    monkeypatch.setattr(results, "write_atomic", fills_after_the_first_meeting)
    assert main([*BASE, "--variants", "free,classic", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    *progress, line = err.splitlines()  # the progress bar, then one line
    assert "Traceback" not in err and not any("error" in shown for shown in progress)
    assert line.startswith(f"piramida eval: error: --out: cannot write {tmp_path / 'results.json'} (No space")
    assert line.endswith("results.json keeps the 1 meeting written before")
    kept = results_of(tmp_path)["meetings"]
    assert len(kept) == 1 and untimed(kept[0]) == untimed(results_of(run)["meetings"][0])


def test_a_saved_policy_plays_through_the_encoding(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from stable_baselines3 import PPO

    from piramida.envs.sb3 import SB3VecEnv

    path = tmp_path / "policy.zip"
    PPO("MlpPolicy", SB3VecEnv(2, shot_limit=4), n_steps=8, batch_size=8, device="cpu", seed=0).save(path)
    out = tmp_path / "out"
    arguments = [*BASE, "--agents", f"greedy,{path}", "--variants", "free", "--out", str(out)]
    assert main(arguments) == 2  # a foreign SB3 zip loads by unpickling: only when trusted
    assert "--trust-pickle" in capsys.readouterr().err and not out.exists()
    assert main([*arguments, "--trust-pickle"]) == 0
    meeting = results_of(out)["meetings"][0]
    assert meeting["agents"] == ["greedy", str(path)]
    assert meeting["bots"][str(path)]["shots"] > 0


def test_a_folder_named_like_a_bot_does_not_hide_the_bot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `piramida eval --out greedy` makes a folder `greedy`; the next `--agents trained,greedy` means the bot.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "greedy").mkdir()
    (tmp_path / "mine").write_text("")
    assert not names_a_file("greedy") and check_name("greedy") == "greedy"
    assert names_a_file("./greedy") and names_a_file("mine")
