"""Hostile settings: `piramida train`, `eval`, `play` and the envs refuse them in one line, never a traceback.

Every case here is refused before anything runs (no training, no env step): a bad value from
the command line, a TOML `--config` file or a checkpoint's `meta.json` raises `ConfigError`
(exit status 2 on the command line) naming the field; the envs raise a `ValueError` naming it
at construction. The property tests throw random TOML files and metadata configs at the
readers: each either becomes a config whose every number is finite and in range, or is
refused with one short line.
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import json
import math
import zipfile
from collections.abc import Callable, Iterator
from datetime import date, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from piramida.cli.main import main
from piramida.envs import core
from piramida.envs.pyramid_env import PyramidEnv
from piramida.envs.vector_env import PyramidVectorEnv
from piramida.evaluation.settings import parse_noise
from piramida.physics import noise
from piramida.training import checkpoint
from piramida.training.config import (
    DEFAULT_HYPERPARAMETERS,
    HYPERPARAMETERS,
    MAX_SEED,
    NAMES,
    ConfigError,
    TrainConfig,
    build,
    config_from_json,
    read_toml,
)

INF, NAN = math.inf, math.nan
# A valid config of each algorithm: the TOML file's settings.
VALID: dict[str, dict[str, Any]] = {
    "ppo": {"tables": 8, "shot-limit": 4, "noise": "pro", "hyperparameters": {"n_steps": 8, "n_epochs": 2}},
    "sac": {"algo": "sac", "tables": 2, "hyperparameters": {"learning_starts": 16, "buffer_size": 500}},
    "maskable-ppo": {"algo": "maskable-ppo", "action-mode": "assisted", "league": "random,self"},
    "jax-ppo": {
        "algo": "jax-ppo",
        "action_mode": "assisted",
        "opponent": "greedy",
        "hyperparameters": {"n_steps": 4, "batch_size": 16, "net_arch": [32, 32]},
    },
}


def by_field_name(values: dict[str, Any]) -> TrainConfig:
    """`build` of a TOML file's settings (dashes as underscores)."""
    return build({key.replace("-", "_"): value for key, value in values.items()})


# The command line --------------------------------------------------------------------------


def refused(argv: list[str], out: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """`piramida train ...` exits 2 with one line on stderr, and writes nothing; that line."""
    status = main(["train", "--out", str(out), "--no-progress", "--device", "cpu", *argv])
    err = capsys.readouterr().err
    assert status == 2, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert not out.exists()  # no output folder, so no checkpoint and no meta.json
    return err


def toml_file(folder: Path, text: str) -> Path:
    path = folder / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('[hyperparameters]\nbatch_size = "big"\n', "hyperparameters.batch_size: expected an integer"),
        ("[hyperparameters]\nn_steps = 0\n", "hyperparameters.n_steps: expected an integer 1.."),
        ("[hyperparameters]\nbatch_size = -32\n", "hyperparameters.batch_size: expected an integer 2.."),
        ("[hyperparameters]\nn_epochs = 0\n", "hyperparameters.n_epochs: expected an integer 1.."),
        ('[hyperparameters]\nlearning_rate = "3e-4"\n', "hyperparameters.learning_rate: expected a finite"),
        ("[hyperparameters]\nn_epochs = true\n", "hyperparameters.n_epochs: expected an integer"),
        ("[hyperparameters]\ngamma = false\n", "hyperparameters.gamma: expected a finite number, got False"),
        ("[hyperparameters]\nlearning_rate = nan\n", "hyperparameters.learning_rate: expected a finite"),
        ("[hyperparameters]\nlearning_rate = inf\n", "hyperparameters.learning_rate: expected a finite"),
        ("[hyperparameters]\nmax_grad_norm = -inf\n", "hyperparameters.max_grad_norm: expected a finite"),
        ("[hyperparameters]\ngamma = 1.5\n", "hyperparameters.gamma: expected a number in [0, 1], got 1.5"),
        ("[hyperparameters]\nlearning_rat = 1e-3\n", "hyperparameters: unknown setting 'learning_rat'"),
        ("[hyperparameters.policy_kwargs]\nnet_arch = [64, 0]\n", "policy_kwargs.net_arch[1]: expected"),
        ('algo = "jax-ppo"\nopponent = "greedy"\n[hyperparameters]\nnet_arch = [-8]\n', "net_arch[0]"),
        ('algo = "jax-ppo"\nopponent = "greedy"\n[hyperparameters]\nnet_arch = "64,64"\n', "net_arch"),
        ('algo = "jax-ppo"\nopponent = "greedy"\n[hyperparameters]\nbatch_size = 7\n', "must divide"),
        ('algo = "sac"\n[hyperparameters]\nbuffer_size = 0\n', "hyperparameters.buffer_size"),
        ('algo = "sac"\n[hyperparameters]\nn_epochs = 4\n', "unknown setting 'n_epochs'"),
        ("tables = 1\n[hyperparameters]\nn_steps = 1\n", "hyperparameters.n_steps: a rollout of"),
        # A minibatch of 1e9 moves out of a rollout of 512 trained on the whole rollout, silently.
        (
            "tables = 8\n[hyperparameters]\nn_steps = 64\nbatch_size = 1000000000\n",
            "hyperparameters.batch_size: 1000000000 is more than a rollout's n_steps x tables = 512 moves",
        ),
        ("tables = 2000000000\n", "--tables: 2000000000 tables need at least 7.28 TB of memory"),
        ("hyperparameters = 3\n", "hyperparameters: expected a table, got int"),
        ("hyperparameters = [1, 2]\n", "hyperparameters: expected a table, got list"),
        ('tables = "8"\n', "--tables: expected an integer 1.."),
        ("tables = 8.0\n", "--tables: expected an integer 1.."),
        ("tables = true\n", "--tables: expected an integer 1..2147483647, got True"),
        ("steps = 0\n", "--steps: expected an integer 1.."),
        ("shot-limit = -1\n", "--shot-limit: expected an integer 1.."),
        ("checkpoint-every = 0\n", "--checkpoint-every: expected an integer 1.."),
        ("assisted-prior = nan\n", "--assisted-prior: expected a finite number"),
        ("league = [1, 2]\n", "--league: expected comma-separated names or a list of names"),
        ("seed = 4294967296\n", "--seed: expected an integer 0..4294967295"),
        ("seed = 1.5\n", "--seed: expected an integer"),
        ("noise = true\n", "--noise: expected a level name or a magnitude, got bool"),
        ("noise = nan\n", "--noise: magnitude must be a number >= 0"),
        ("noise = inf\n", "--noise: magnitude must be a number >= 0"),
        ('noise = "inf"\n', "--noise: magnitude must be a number >= 0"),
        ("noise = -0.5\n", "--noise: magnitude must be a number >= 0"),
        ('noise = "loud"\n', "--noise: unknown level 'loud'"),
        ("out = 5\n", "--out: expected a folder's path, got 5"),
        ("tabels = 8\n", "--config: unknown setting 'tabels'"),
        ("shot-limit = 4\nshot_limit = 4\n", "'shot_limit' is set twice"),
        ("tables = 1" + "0" * 5000 + "\n", "is not a config file (Exceeds the limit"),
        ("a = " + "[" * 5000 + "]" * 5000 + "\n", "is not a config file (maximum recursion depth"),
    ],
)
def test_a_bad_config_file_exits_2_naming_the_setting(
    text: str, words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    err = refused(["--config", str(toml_file(tmp_path, text))], tmp_path / "out", capsys)
    assert words in err


@pytest.mark.parametrize(
    ("flags", "words"),
    [
        (["--seed", str(2**32)], "--seed: expected an integer 0..4294967295, got 4294967296"),
        (["--seed", "-1"], "--seed: expected an integer 0..4294967295, got -1"),
        (["--noise", "inf"], "--noise: magnitude must be a number >= 0 and <= 10, got 'inf'"),
        (["--noise", "nan"], "--noise: magnitude must be a number >= 0 and <= 10, got 'nan'"),
        (["--noise=-1"], "--noise: magnitude must be a number >= 0 and <= 10, got '-1'"),
        (["--noise", "1e400"], "--noise: magnitude must be a number >= 0"),
        (["--noise", "loud"], "--noise: unknown level 'loud'"),
        (["--assisted-prior", "inf"], "--assisted-prior: expected a finite number, got inf"),
        (["--tables", "0"], "--tables: expected an integer 1..2147483647, got 0"),
        # The help says a league replaces the opponent; given both, the run trained anyway.
        (["--league", "random,greedy", "--opponent", "greedy"], "--league: replaces --opponent"),
    ],
)
def test_bad_flags_exit_2_in_one_line(
    flags: list[str], words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert words in refused(flags, tmp_path / "out", capsys)


def test_a_config_file_that_is_binary_missing_or_a_folder_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    binary = tmp_path / "binary.toml"
    binary.write_bytes(bytes(range(256)))
    assert f"--config: {binary} is not valid TOML (not UTF-8 at byte 128)" in refused(
        ["--config", str(binary)], tmp_path / "out", capsys
    )
    nul = tmp_path / "nul.toml"
    nul.write_bytes(b"tables = 8\x00\n")
    assert f"--config: {nul} is not valid TOML" in refused(["--config", str(nul)], tmp_path / "out", capsys)
    missing = tmp_path / "missing.toml"
    assert f"--config: cannot read {missing} (No such file" in refused(
        ["--config", str(missing)], tmp_path / "out", capsys
    )
    assert f"--config: cannot read {tmp_path} (Is a directory)" in refused(
        ["--config", str(tmp_path)], tmp_path / "out", capsys
    )
    assert "is not a config file (over 1048576 bytes)" in refused(
        ["--config", "/dev/zero"], tmp_path / "out", capsys
    )


def test_a_resumed_checkpoint_with_a_mangled_config_exits_2_naming_the_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    meta = checkpoint.new_meta(TrainConfig(), 64, final=True)
    meta["config"]["tables"] = "eight"
    path = tmp_path / "mangled.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(checkpoint.META, json.dumps(meta))
    err = refused(["--resume", str(path)], tmp_path / "out", capsys)
    assert f"--resume: {path}: " in err and "config: tables: expected an integer" in err


@pytest.mark.parametrize("value", ["inf", "nan", "-1", "1e400", "loud", "true"])
def test_eval_and_play_refuse_a_bad_noise_before_running(
    value: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for argv in (
        ["eval", "--agents", "random,greedy", "--noise", value, "--out", str(tmp_path / "out")],
        ["play", "--noise", value, "--no-browser", "--state-dir", str(tmp_path / "out")],
    ):
        with pytest.raises(SystemExit) as exited:
            main(argv)
        err = capsys.readouterr().err
        assert exited.value.code == 2 and "Traceback" not in err
        assert "argument --noise" in err.strip().splitlines()[-1] and value in err
        assert not (tmp_path / "out").exists()


# One noise reader ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value", ["pro", " amateur ", "0.3", "0", 0.3, 7, "inf", "nan", "-0.0", -1e-9, INF, NAN, True, None, "x"]
)
def test_train_eval_and_the_envs_read_noise_alike(value: Any) -> None:
    def outcome(read: Callable[[], Any]) -> str:
        try:
            return repr(float(read()))
        except (ValueError, argparse.ArgumentTypeError) as error:
            return str(error)

    expected = outcome(lambda: noise.level(value))
    assert outcome(lambda: TrainConfig(noise=value).noise) == expected
    assert outcome(lambda: core.Settings(noise=value).noise) == expected
    if isinstance(value, str):
        assert outcome(lambda: parse_noise(value)[0]) == expected
    assert expected.startswith("noise: ") or 0 <= float(expected) <= noise.MAX_MAGNITUDE


# The envs ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"noise": INF}, "noise"),
        ({"noise": NAN}, "noise"),
        ({"noise": -0.1}, "noise"),
        ({"noise": True}, "noise"),
        ({"noise": "legend"}, "noise"),
        ({"point_reward": NAN}, "point_reward"),
        ({"point_reward": INF}, "point_reward"),
        ({"point_reward": "1"}, "point_reward"),
        ({"win_reward": -INF}, "win_reward"),
        ({"shot_limit": 0}, "shot_limit"),
        ({"shot_limit": -5}, "shot_limit"),
        ({"shot_limit": True}, "shot_limit"),
        ({"shot_limit": 2.5}, "shot_limit"),
        ({"shot_limit": "200"}, "shot_limit"),
        ({"shot_limit": 2**31}, "shot_limit"),
        ({"variant": True}, "variant"),
        ({"variant": 4}, "variant"),
    ],
)
def test_the_envs_refuse_bad_settings_at_construction(options: dict[str, Any], field: str) -> None:
    with pytest.raises(ValueError, match=f"^{field}: "):
        core.Settings(**options)
    with pytest.raises(ValueError, match=f"^{field}: "):
        PyramidEnv(**options)
    with pytest.raises(ValueError, match=f"^{field}: "):
        PyramidVectorEnv(2, **options)


@pytest.mark.parametrize("num_envs", [0, -1, True, 2.5, "4"])
def test_the_vector_env_refuses_a_bad_number_of_tables(num_envs: Any) -> None:
    with pytest.raises(ValueError, match=r"^num_envs: "):
        PyramidVectorEnv(num_envs)


def test_settings_keep_the_numbers_as_read() -> None:
    settings = core.settings_from("free", noise="pro", point_reward=2)
    assert settings == core.Settings(noise=noise.LEVELS["pro"], point_reward=2.0)
    assert type(settings.noise) is float and type(settings.point_reward) is float


# The library and the metadata ----------------------------------------------------------------


def test_each_algorithms_defaults_and_a_valid_config_are_read() -> None:
    assert issubclass(ConfigError, ValueError)
    for algo, values in VALID.items():
        config = by_field_name(values)
        assert config.algo == algo and config_from_json(config.to_json()) == config
        defaults = DEFAULT_HYPERPARAMETERS[algo]
        assert dataclasses.replace(config, hyperparameters=defaults).hyper() == defaults


GOOD = TrainConfig(tables=8, shot_limit=4, hyperparameters={"n_steps": 8, "batch_size": 32}).to_json()


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (None, "expected an object of settings, got nothing"),
        ([GOOD], "expected an object of settings, got list"),
        ("config", "expected an object of settings, got str"),
        ({k: v for k, v in GOOD.items() if k != "seed"}, "seed: missing"),
        (GOOD | {"colour": "red"}, "unknown setting 'colour'; known: algo, variant"),
        (GOOD | {"tables": "8"}, "tables: expected an integer 1..2147483647, got '8'"),
        (GOOD | {"tables": 8.0}, "tables: expected an integer 1..2147483647, got 8.0"),
        (GOOD | {"tables": None}, "tables: expected an integer 1..2147483647, got None"),
        (GOOD | {"noise": INF}, "noise: magnitude must be a number >= 0 and <= 10, got inf"),
        (GOOD | {"noise": True}, "noise: expected a level name or a magnitude, got bool"),
        (GOOD | {"seed": MAX_SEED + 1}, "seed: expected an integer 0..4294967295"),
        (GOOD | {"league": [1]}, "league: expected comma-separated names or a list of names, got [1]"),
        (GOOD | {"league": {"a": 1}}, "league: expected comma-separated names"),
        (GOOD | {"opponent": ""}, "opponent: expected a bot name or a saved policy's path, got ''"),
        (GOOD | {"hyperparameters": []}, "hyperparameters: expected a table, got list"),
        (GOOD | {"hyperparameters": {"n_steps": -1}}, "hyperparameters.n_steps: expected an integer 1.."),
        (GOOD | {"hyperparameters": {"pickle": "x"}}, "hyperparameters: unknown setting 'pickle'"),
        (GOOD | {"assisted_prior": None}, "assisted_prior: expected a finite number, got None"),
        (GOOD | {"algo": None}, "algo: expected one of ppo, sac, maskable-ppo, jax-ppo, got None"),
        (GOOD | {"algo": "sac"}, "hyperparameters: unknown setting 'n_steps'"),
    ],
)
def test_a_mangled_metadata_config_is_refused_naming_the_field(value: Any, message: str) -> None:
    with pytest.raises(ConfigError) as error:
        config_from_json(value, playing=True)
    assert str(error.value).startswith(message)


def test_a_checkpoint_from_before_the_policy_field_reads_as_the_mlp_it_trained() -> None:
    older = {k: v for k, v in GOOD.items() if k != "policy"}
    assert config_from_json(older, playing=True).policy == "mlp"
    tuned = GOOD | {"algo": "jax-ppo", "action_mode": "assisted", "policy": "trained"}
    assert config_from_json(tuned, playing=True).policy == "trained"
    with pytest.raises(ConfigError, match=r"^seed: missing"):  # only fields added later may be left out
        config_from_json({k: v for k, v in older.items() if k != "seed"}, playing=True)


def test_a_played_checkpoint_need_not_have_its_opponents_any_more(tmp_path: Path) -> None:
    saved = GOOD | {"opponent": str(tmp_path / "gone.zip")}
    assert config_from_json(saved, playing=True).opponent == saved["opponent"]
    with pytest.raises(ConfigError, match=r"^opponent: .* is neither a bot"):
        config_from_json(saved)


# Property tests ------------------------------------------------------------------------------

HYPER_NAMES = sorted({name for readers in HYPERPARAMETERS.values() for name in readers})
KEYS = (
    st.sampled_from(sorted({*NAMES, *(n.replace("_", "-") for n in NAMES), "out", *HYPER_NAMES}))
    | st.text(st.characters(codec="utf-8"), max_size=12)
    | st.sampled_from(["pi", "vf", "qf", "net_arch"])
)
PLAUSIBLE = st.sampled_from(["pro", "none", "sac", "jax-ppo", "assisted", "raw", "greedy", "self", "auto"])
NUMBERS = st.integers(-3, 300) | st.integers(-(2**70), 2**70) | st.floats() | st.floats(-2, 2)
TEXT = st.text(st.characters(codec="utf-8"), max_size=12) | PLAUSIBLE


def nested(leaves: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    def containers(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
        return st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=4)

    return st.recursive(leaves, containers, max_leaves=12)


TOML_VALUES = nested(st.booleans() | NUMBERS | TEXT | st.dates() | st.datetimes())
JSON_VALUES = nested(st.none() | st.booleans() | NUMBERS | TEXT)


def toml_text(value: Any) -> str:
    """`value` written as TOML (an inline table for a dict)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return "nan" if math.isnan(value) else {INF: "inf", -INF: "-inf"}.get(value, repr(value))
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")  # TOML escapes DEL too
    if isinstance(value, date | datetime):
        return value.isoformat()
    if isinstance(value, list):
        return "[" + ", ".join(map(toml_text, value)) + "]"
    return "{" + ", ".join(f"{toml_text(k)} = {toml_text(v)}" for k, v in value.items()) + "}"


@st.composite
def mutated(draw: st.DrawFn, values: st.SearchStrategy[Any], valid: list[dict[str, Any]]) -> Any:
    """A valid config with some settings (and hyperparameters) set to random values, some dropped."""
    out = copy.deepcopy(draw(st.sampled_from(valid)))
    for key in draw(st.lists(st.sampled_from([*NAMES, *HYPER_NAMES]), max_size=3)):
        target = out
        if key in HYPER_NAMES:
            target = out.setdefault("hyperparameters", {})
            if not isinstance(target, dict):
                continue
        if draw(st.booleans()) or key not in target:
            target[key] = draw(values)
        else:
            del target[key]
    return out


def numbers_in(value: Any) -> Iterator[float]:
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        for item in value:
            yield from numbers_in(item)
    elif isinstance(value, int | float) and not isinstance(value, bool):
        yield value


def finite_and_in_range_or_one_line(read: Callable[[], TrainConfig]) -> None:
    """`read()` gives a sane config or a ConfigError of one short line; anything else fails the test."""
    try:
        config = read()
    except ConfigError as error:
        message = str(error)
        assert message and "\n" not in message and len(message) < 300, message
        return
    assert all(math.isfinite(number) for number in numbers_in(config.to_json()))
    assert 0 <= config.noise <= noise.MAX_MAGNITUDE and 0 <= config.seed <= MAX_SEED
    assert min(config.tables, config.steps, config.checkpoint_every, config.shot_limit) >= 1
    assert 0 <= config.assisted_prior < 1 and config.league_every >= 0
    # What meta.json would hold (strict JSON: no NaN) reads back as the same config: every value in range.
    assert config_from_json(json.loads(json.dumps(config.to_json(), allow_nan=False)), playing=True) == config


HOSTILE = settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("hostile") / "config.toml"


def from_toml(path: Path, document: dict[str, Any]) -> Callable[[], TrainConfig]:
    """The command line's reading of a TOML file holding `document` (without training)."""
    path.write_text("".join(f"{toml_text(k)} = {toml_text(v)}\n" for k, v in document.items()), "utf-8")

    def read() -> TrainConfig:
        values = read_toml(path)
        values.pop("out", None)
        return build(values)

    return read


@HOSTILE
@given(document=st.dictionaries(KEYS, TOML_VALUES, max_size=6))
def test_random_toml_files_are_read_or_refused_in_one_line(scratch: Path, document: dict[str, Any]) -> None:
    finite_and_in_range_or_one_line(from_toml(scratch, document))


@HOSTILE
@given(document=mutated(TOML_VALUES, list(VALID.values())))
def test_mutated_toml_files_are_read_or_refused_in_one_line(scratch: Path, document: dict[str, Any]) -> None:
    finite_and_in_range_or_one_line(from_toml(scratch, document))


VALID_JSON = [by_field_name(values).to_json() for values in VALID.values()]


@settings(max_examples=800, deadline=None)
@given(value=mutated(JSON_VALUES, VALID_JSON) | JSON_VALUES, playing=st.booleans())
def test_hostile_metadata_configs_are_read_or_refused_in_one_line(value: Any, playing: bool) -> None:
    finite_and_in_range_or_one_line(lambda: config_from_json(value, playing=playing))
