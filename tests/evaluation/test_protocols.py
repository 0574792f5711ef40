"""Fixed-budget protocols: an entry trained for its budget, judged in its meetings only, recorded.

A tiny protocol (32 learner moves, 4 frames against `random`) and a tiny jax-ppo entry
run the real path: `piramida train`'s trainer, `piramida eval`'s campaign, the results file.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.training_runs import tiny_jax_ppo

from piramida.cli.main import main
from piramida.evaluation import protocols
from piramida.physics import jsontext
from piramida.training import CheckpointError, ConfigError, config

pytestmark = pytest.mark.slow

TINY = protocols.Protocol("tiny", "free", moves=32, frames=4, judges=("random",))


def entry(tmp_path: Path, settings: str = "") -> dict[str, object]:
    path = tmp_path / "entry.toml"
    path.write_text(tiny_jax_ppo(settings))
    return config.read_toml(path)


def test_a_run_trains_the_budget_plays_only_the_policys_meetings_and_is_recorded(tmp_path: Path) -> None:
    out = tmp_path / "run"
    result = protocols.run(TINY, entry(tmp_path), "tiny-entry", out, "a command", progress=False)
    assert (result["protocol"], result["entry"], result["algo"], result["moves"]) == (
        "tiny",
        "tiny-entry",
        "jax-ppo",
        32,
    )
    assert result["settings"]["variant"] == "free" and result["settings"]["noise"] == 0.15
    assert result["train_s"] is not None and result["commit"] and result["date"]
    judged = result["judges"]["random"]
    assert judged["frames"] == 4
    assert judged["wins"] + judged["losses"] + judged["draws"] + judged["unfinished"] >= 4
    assert 0.0 <= judged["win_rate"] <= 1.0 or judged["wins"] + judged["losses"] == 0
    meetings = jsontext.loads((out / "eval" / "results.json").read_bytes())["meetings"]
    assert len(meetings) == 1 and str(out / "train" / "final.zip") in meetings[0]["agents"]

    again = protocols.run(TINY, entry(tmp_path), "tiny-entry", out, "a command", progress=False)
    assert again["train_s"] is None and again["moves"] == 32  # a finished entry is not trained again
    with pytest.raises(CheckpointError, match="checkpoint of another run"):  # not judged as this one
        protocols.run(TINY, entry(tmp_path, "seed = 7"), "tiny-entry", out, "a command", progress=False)

    results = tmp_path / "protocols.json"
    protocols.record(results, result)
    protocols.record(results, again)  # the same protocol, entry and seed: replaced
    protocols.record(results, {**again, "seed": 1})
    held = jsontext.loads(results.read_bytes())
    assert held["format"] == protocols.FORMAT and [r["seed"] for r in held["results"]] == [0, 1]


def test_the_protocol_sets_the_variant_noise_and_budget(tmp_path: Path) -> None:
    for setting in ('variant = "classic"', 'noise = "none"', "steps = 5"):
        with pytest.raises(ConfigError, match="the protocol's run sets it"):
            protocols.settings(TINY, entry(tmp_path, setting))
    built = protocols.settings(protocols.PROTOCOLS["classic-1m"], entry(tmp_path))
    assert (built.variant, built.steps) == ("classic", 1_000_000)


def test_a_slot_scorers_entry_is_judged_by_the_policy_file_it_writes(tmp_path: Path) -> None:
    final = tmp_path / "train" / "final.zip"
    slots = protocols.settings(TINY, entry(tmp_path, 'policy = "slots"'))
    assert protocols.player(slots, final) == tmp_path / "train" / "policy.npz"
    assert protocols.player(protocols.settings(TINY, entry(tmp_path)), final) == final


def test_a_results_file_of_something_else_is_refused(tmp_path: Path) -> None:
    other = tmp_path / "other.json"
    other.write_text('{"rows": []}')
    with pytest.raises(ValueError, match="not a protocol results file"):
        protocols.record(other, {"protocol": "tiny", "entry": "e", "seed": 0})


def test_the_command_lists_the_protocols_and_names_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["protocol", "list"]) == 0
    listed = capsys.readouterr().out
    assert all(name in listed for name in protocols.PROTOCOLS) and "search:strong" in listed
    assert main(["protocol", "run", "free-2m", "--entry", "x.toml"]) == 2
    assert "unknown protocol 'free-2m'; choose from free-1m" in capsys.readouterr().err
    assert main(["protocol", "run", "free-1m", "--entry", str(tmp_path / "none.toml")]) == 2
    assert "--entry: config: cannot read" in capsys.readouterr().err
    (tmp_path / "steps.toml").write_text("steps = 5\n")
    assert main(["protocol", "run", "free-1m", "--entry", str(tmp_path / "steps.toml")]) == 2
    assert "--entry: steps: the protocol's run sets it" in capsys.readouterr().err
