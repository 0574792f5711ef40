"""`piramida train`: logs and checkpoints are written, a resumed run ends where an uninterrupted one does.

Tiny runs (8 tables, PPO rollouts of 8 moves per table = 64 learner moves, frames cut after
4 moves so that some end) in one process, so the env compiles once for the module.
"""

from __future__ import annotations

import base64
import io
import json
import pickle
import tracemalloc
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch
from helpers.training_runs import damaged_copy, logged, resume_error, run_fixtures, same_weights, train
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hst

from piramida.cli.main import main
from piramida.training import checkpoint

# Its module-scoped fixtures are costly: one worker runs the whole module (`--dist loadgroup`).
pytestmark = [pytest.mark.xdist_group("test_train_cli"), pytest.mark.slow]

TINY = """
tables = 8
shot-limit = 4
[hyperparameters]
n_steps = 8
batch_size = 32
n_epochs = 2
"""
ROUND = 8 * 8  # learner moves in one PPO rollout
JOINED = ["--algo", "jax-ppo", "--coordinator", "h:1"]  # a run over processes (refused before joining)
config, whole = run_fixtures(TINY, ROUND)


def test_a_run_writes_tensorboard_figures_and_checkpoints_with_metadata(whole: Path) -> None:
    steps = [int(p.stem.split("-")[1]) for p in sorted((whole / "checkpoints").glob("step-*.zip"))]
    assert steps == [ROUND, 2 * ROUND, 3 * ROUND]
    meta = checkpoint.read_meta(whole / "final.zip")
    assert meta is not None
    assert (meta["format"], meta["algo"], meta["variant"], meta["action_mode"]) == (
        "piramida-checkpoint",
        "ppo",
        "free",
        "raw",
    )
    assert meta["steps"] == 3 * ROUND and meta["final"] is True
    assert meta["config"]["tables"] == 8 and meta["config"]["seed"] == 3 and meta["shot_limit"] == 4
    assert {"piramida", "jax", "torch", "stable-baselines3"} <= set(meta["versions"])
    assert not list(whole.rglob("*.tmp"))  # atomic writes leave no temporary files

    events = logged(whole)
    assert all(0.0 <= e.value <= 1.0 for e in events.Scalars("piramida/win_rate"))
    assert [e.step for e in events.Scalars("time/total_timesteps")][-1] == 3 * ROUND


def test_a_resumed_run_ends_with_the_uninterrupted_runs_weights(
    config: Path, whole: Path, tmp_path: Path
) -> None:
    # "Killed" after its first checkpoint: a run of one rollout, then resumed to three.
    assert (
        train(config, tmp_path, "--steps", str(ROUND), "--checkpoint-every", str(ROUND), "--seed", "3") == 0
    )
    assert not same_weights(tmp_path / "final.zip", whole / "final.zip")
    assert train(config, tmp_path, "--resume", "--steps", str(3 * ROUND)) == 0
    assert same_weights(tmp_path / "final.zip", whole / "final.zip")
    meta = checkpoint.read_meta(tmp_path / "final.zip")
    assert meta is not None and meta["steps"] == 3 * ROUND


def test_a_checkpoint_plays_in_eval(whole: Path) -> None:
    from piramida.evaluation.roster import build, check_name

    assert check_name(str(whole / "final.zip")) == str(whole / "final.zip")
    agent = build(str(whole / "final.zip"), 0.0)
    assert agent._policy.settings.shot_limit == 4  # played through the encoding it was trained with


def test_a_runs_learning_curves_are_read_from_its_logs_and_drawn(whole: Path, tmp_path: Path) -> None:
    from piramida.evaluation import curves, summary

    assert curves.run_folder(whole / "final.zip") == whole.resolve()
    runs = summary.training_runs([str(whole / "final.zip"), "random"])
    assert list(runs) == [f"{whole.name}/final.zip"]  # random has no training run
    for tag, _ in curves.CURVES:
        steps = [step for step, _ in runs[f"{whole.name}/final.zip"][tag]]
        assert steps == sorted(steps) and steps[-1] == 3 * ROUND
    picture = curves.plot(runs, tmp_path / "curves.png")
    assert picture.stat().st_size > 10_000


def test_foreign_and_corrupt_checkpoints_are_named_and_refused(
    config: Path, whole: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = tmp_path / "notes.zip"
    text.write_text("not a checkpoint")
    err = resume_error(config, tmp_path, text, capsys)
    assert f"--resume: {text}: not a piramida checkpoint (not a zip file" in err

    from stable_baselines3 import PPO

    plain = tmp_path / "plain.zip"
    PPO("MlpPolicy", "CartPole-v1", n_steps=8, batch_size=8).save(plain)
    err = resume_error(config, tmp_path, plain, capsys)
    assert f"{plain}: not a piramida checkpoint (a stable-baselines3 model without piramida metadata" in err

    good = (whole / "final.zip").read_bytes()
    truncated = tmp_path / "truncated.zip"
    truncated.write_bytes(good[: len(good) // 2])
    assert f"{truncated}: not a piramida checkpoint (" in resume_error(config, tmp_path, truncated, capsys)
    damaged = damaged_copy(whole / "final.zip", tmp_path)
    assert f"{damaged}: corrupt checkpoint" in resume_error(config, tmp_path, damaged, capsys)

    err = resume_error(config, tmp_path, whole / "final.zip", capsys, "--variant", "classic")
    assert "checkpoint of another run: it has variant 'free' (this run: 'classic')" in err
    err = resume_error(config, tmp_path, whole / "final.zip", capsys, "--action-mode", "assisted")
    assert "action-mode 'raw' (this run: 'assisted')" in err
    assert not list(tmp_path.glob("checkpoints/*"))  # nothing was trained


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--tables", "0"], "--tables: expected an integer 1..2147483647, got 0"),
        (["--algo", "a2c"], "--algo: expected one of ppo, sac, maskable-ppo, jax-ppo, got 'a2c'"),
        (["--algo", "sac", "--action-mode", "assisted"], "--algo: sac needs continuous actions"),
        (["--variant", "snooker"], "--variant: expected one of free, combined, dynamic, classic"),
        (["--noise", "loud"], "--noise: unknown level 'loud'"),
        (["--opponent", "nobody"], "--opponent: 'nobody' is neither a bot"),
        (
            ["--league", "random,search:hard"],
            "--league: bot 'search:hard': unknown search level",
        ),
        (["--device", "tpu"], "--device: expected one of cpu, cuda, auto"),
        (["--assisted-prior", "1"], "--assisted-prior: expected a number in [0, 1), got 1.0"),
        (["--resume"], "--resume: no checkpoint in"),
        (["--coordinator", "127.0.0.1:1", "--processes", "2", "--process-id", "0"], "--coordinator: only"),
        (["--algo", "jax-ppo", "--coordinator", "nowhere"], "--coordinator: expected HOST:PORT or auto"),
        ([*JOINED, "--processes", "2"], "needs --processes and --process-id"),
        (["--algo", "jax-ppo", "--processes", "2"], "--coordinator: --processes and --process-id join a run"),
        ([*JOINED, "--processes", "0", "--process-id", "0"], "--processes: expected a count >= 1"),
        ([*JOINED, "--processes", "2", "--process-id", "2"], "--process-id: expected 0 to 1, got 2"),
    ],
)
def test_bad_flags_exit_2_naming_the_flag(
    flags: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["train", "--out", str(tmp_path), *flags]) == 2
    assert message in capsys.readouterr().err


def test_bad_config_files_and_unparsable_flags_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("tables = [")
    assert main(["train", "--config", str(bad), "--out", str(tmp_path)]) == 2
    assert f"--config: {bad} is not valid TOML" in capsys.readouterr().err
    bad.write_text("tabels = 4\n")
    assert main(["train", "--config", str(bad), "--out", str(tmp_path)]) == 2
    assert "unknown setting 'tabels'" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:
        main(["train", "--tables", "many"])
    assert exit_.value.code == 2
    assert "--tables: invalid int value: 'many'" in capsys.readouterr().err


def test_help_explains_every_flag(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["train", "--help"])
    text = capsys.readouterr().out
    for flag in ("--algo", "--action-mode", "--variant", "--noise", "--tables", "--opponent", "--league"):
        assert flag in text
    for flag in ("--steps", "--seed", "--device", "--out", "--checkpoint-every", "--resume", "--config"):
        assert flag in text
    for flag in ("--shot-limit", "--assisted-prior", "--league-every", "--no-progress"):
        assert flag in text


def hostile_copies(good: Path, folder: Path, marker: Path) -> list[Path]:
    """Copies of `good` with each member that could hold a pickle holding one that creates `marker`."""
    from test_datatree import Creates

    payload = pickle.dumps(Creates(marker))
    objects = io.BytesIO()
    np.savez(objects, a0=np.array([Creates(marker)], dtype=object))
    out = []
    with zipfile.ZipFile(good) as source:
        for name in source.namelist():
            for k, body in enumerate((payload, objects.getvalue())):
                path = folder / f"{name.replace('/', '-')}-{k}.zip"
                with zipfile.ZipFile(path, "w") as target:
                    for item in source.namelist():
                        target.writestr(item, body if item == name else source.read(item))
                out.append(path)
    # A stable-baselines3 zip from elsewhere: pickles in its data and its torch files.
    from stable_baselines3 import PPO

    foreign = folder / "foreign.zip"
    PPO("MlpPolicy", "CartPole-v1", n_steps=8, batch_size=8).save(foreign)
    with zipfile.ZipFile(foreign) as source:
        members = {name: source.read(name) for name in source.namelist()}
    data = json.loads(members["data"])
    data["policy_class"][":serialized:"] = base64.b64encode(payload).decode()
    members["data"] = json.dumps(data).encode()
    hostile_torch = io.BytesIO()
    torch.save(Creates(marker), hostile_torch)
    members["policy.pth"] = hostile_torch.getvalue()
    with zipfile.ZipFile(foreign, "w") as target:
        for name, body in members.items():
            target.writestr(name, body)
    return [*out, foreign]


def test_a_checkpoint_holding_pickles_is_refused_by_every_command_and_never_run(
    config: Path, whole: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    marker = tmp_path / "created-by-a-pickle"
    for path in hostile_copies(whole / "final.zip", tmp_path, marker):
        commands = [
            ["train", "--config", str(config), "--out", str(tmp_path / "run"), "--resume", str(path)],
            ["eval", "--agents", f"{path},random", "--out", str(tmp_path / "eval")],
            ["play", "--bot", str(path), "--port", "0"],
            ["train", "--config", str(config), "--out", str(tmp_path / "run"), "--opponent", str(path)],
        ]
        for command in commands:
            status = main([*command, "--no-progress"] if command[0] == "train" else command)
            err = capsys.readouterr().err
            assert status == 2 and "Traceback" not in err, (path.name, command[0], err)
            assert str(path) in err
        if path.name == "foreign.zip":
            assert "--trust-pickle" in err
    assert not marker.exists()
    assert not (tmp_path / "run").exists() and not (tmp_path / "eval").exists()


def rewritten(good: Path, path: Path, members: dict[str, bytes]) -> Path:
    """A copy of checkpoint `good` at `path` with `members` written over, or beside, its own."""
    with zipfile.ZipFile(good) as source, zipfile.ZipFile(path, "w") as target:
        for name in source.namelist():
            if name not in members:
                target.writestr(name, source.read(name))
        for name, body in members.items():
            target.writestr(name, body)
    return path


def unreadable(data: bytes, pattern: bytes) -> bytes:
    """`data` with the stored bytes `pattern` changed (its zip CRC no longer holds): reading it fails."""
    assert data.count(pattern) == 1
    return data.replace(pattern, bytes(len(pattern)))


MARK = np.full(4096, 7.25).tobytes()  # 32 kB of a value no checkpoint holds, easy to find


def test_a_checkpoint_whose_weights_are_nan_is_refused_naming_the_array(
    config: Path, whole: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # `train --resume` of such a file ended in a torch error raised inside the policy.
    ck = checkpoint.read(whole / "final.zip")
    policy = ck.state["model"]["parameters"]["policy"]
    name = next(iter(policy))
    policy[name] = torch.full_like(policy[name], float("nan"))
    diverged = tmp_path / "diverged.zip"
    checkpoint.write(diverged, ck.meta, ck.state)
    size = policy[name].numel()
    words = (
        f"{diverged}: corrupt checkpoint (model.parameters.policy.{name}: {size} of its {size} values are NaN"
    )
    assert words in resume_error(config, tmp_path / "run", diverged, capsys)
    assert main(["eval", "--agents", f"{diverged},random", "--out", str(tmp_path / "eval")]) == 2
    assert words in capsys.readouterr().err
    assert not (tmp_path / "run" / "checkpoints").exists()


def test_a_checkpoint_carrying_data_it_does_not_use_is_refused_before_reading_it(
    config: Path, whole: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # An unused 1.5 GB array of zeros was decompressed whole before any check (peak memory
    # doubled), and an extra 1 GiB member doubled the load time. Here the unused data is
    # unreadable: refusing it for what it is, not for a failed read, shows it was never read.
    good = whole / "final.zip"
    extra = rewritten(good, tmp_path / "extra.zip", {"piramida/extra.bin": MARK})
    extra.write_bytes(unreadable(extra.read_bytes(), MARK))
    err = resume_error(config, tmp_path / "run", extra, capsys)
    assert f"{extra}: corrupt checkpoint (unknown member 'piramida/extra.bin'; a checkpoint holds" in err
    with zipfile.ZipFile(good) as source:
        saved = dict(np.load(io.BytesIO(source.read(checkpoint.ARRAYS))))
    arrays = io.BytesIO()
    np.savez(arrays, **saved, unused=np.full(4096, 7.25))
    unused = rewritten(
        good, tmp_path / "unused.zip", {checkpoint.ARRAYS: unreadable(arrays.getvalue(), MARK)}
    )
    err = resume_error(config, tmp_path / "run", unused, capsys)
    assert f"{unused}: corrupt checkpoint (arrays: 'unused' is named nowhere in the state)" in err


def test_an_unused_array_is_refused_without_being_held_in_memory(whole: Path, tmp_path: Path) -> None:
    # The arrays are read from the zip as a stream: a 64 MB unused array is refused by its
    # name, and neither it nor the arrays' file is ever held whole (the zip module's seek
    # reads in chunks of 16 MB).
    good = whole / "final.zip"
    with zipfile.ZipFile(good) as source:
        saved = dict(np.load(io.BytesIO(source.read(checkpoint.ARRAYS))))
    arrays = io.BytesIO()
    np.savez(arrays, **saved, unused=np.zeros(8 * 2**20))
    unused = rewritten(good, tmp_path / "unused.zip", {checkpoint.ARRAYS: arrays.getvalue()})
    del arrays
    tracemalloc.start()
    try:
        with pytest.raises(checkpoint.CheckpointError, match="'unused' is named nowhere in the state"):
            checkpoint.read(unused)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 48 * 2**20, peak  # reading the file whole held at least 64 MB


def test_a_killed_checkpoint_writes_temporary_file_is_removed_by_the_next_run(
    config: Path, whole: Path, tmp_path: Path
) -> None:
    # A kill -9 while a checkpoint was written left its `.step-*.zip.*.tmp`, still there after a resume.
    stray = tmp_path / "checkpoints" / ".step-000000128.zip.k1ll3d.tmp"
    stray.parent.mkdir(parents=True)
    stray.write_bytes(b"half a checkpoint")
    resume_from = stray.parent / "step-000000064.zip"
    resume_from.write_bytes((whole / "checkpoints" / "step-000000064.zip").read_bytes())
    assert train(config, tmp_path, "--resume", "--steps", str(2 * ROUND)) == 0
    assert not stray.exists() and not list(tmp_path.rglob("*.tmp"))
    assert checkpoint.read_meta(tmp_path / "final.zip")["steps"] == 2 * ROUND  # type: ignore[index]


JSON_VALUES = hst.recursive(
    hst.none()
    | hst.booleans()
    | hst.integers(-(2**70), 2**70)
    | hst.floats(allow_nan=False)
    | hst.text(max_size=6),
    lambda inner: hst.lists(inner, max_size=3) | hst.dictionaries(hst.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)


def mutated(document: object, data: hst.DataObject) -> object:
    """`document` with one value somewhere inside replaced by any JSON value, or one key dropped."""
    if isinstance(document, dict | list) and document and data.draw(hst.booleans()):
        keys = list(document) if isinstance(document, dict) else list(range(len(document)))
        key = data.draw(hst.sampled_from(keys))
        copy = dict(document) if isinstance(document, dict) else list(document)
        if isinstance(copy, dict) and data.draw(hst.integers(0, 4)) == 0:
            del copy[key]
        else:
            copy[key] = mutated(document[key], data)  # type: ignore[index]
        return copy
    return data.draw(JSON_VALUES)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=hst.data(), member=hst.sampled_from([checkpoint.META, checkpoint.STATE]))
def test_a_checkpoint_with_hostile_metadata_or_state_resumes_or_is_refused_in_one_line(
    config: Path,
    whole: Path,
    tmp_path_factory: pytest.TempPathFactory,
    capsys: pytest.CaptureFixture[str],
    data: hst.DataObject,
    member: str,
) -> None:
    folder = tmp_path_factory.mktemp("hostile")
    path = folder / "final.zip"
    with zipfile.ZipFile(whole / "final.zip") as source, zipfile.ZipFile(path, "w") as target:
        for name in source.namelist():
            body = source.read(name)
            if name == member:
                body = json.dumps(mutated(json.loads(body), data)).encode()
            target.writestr(name, body)
    # As many steps as the checkpoint holds: a resume that fits only writes the final checkpoint.
    status = train(config, folder, "--resume", str(path), "--steps", str(3 * ROUND), "--seed", "3")
    err = capsys.readouterr().err
    assert status in (0, 2) and "Traceback" not in err
    if status == 2:
        assert len(err.strip().splitlines()) == 1 and len(err) < 600, err
