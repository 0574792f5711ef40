"""Tiny training runs the training tests share: a config file, three rounds, their logs and weights."""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from piramida.cli.main import main
from piramida.training import checkpoint


def tiny_jax_ppo(settings: str = "", hyperparameters: str = "") -> str:
    """A tiny jax-ppo run's TOML: 8 tables, rounds of 4 moves per table, frames cut after 4 moves."""
    return f"""
algo = "jax-ppo"
action-mode = "assisted"
tables = 8
shot-limit = 4
{settings}
[hyperparameters]
n_steps = 4
batch_size = 16
n_epochs = 2
{hyperparameters}
"""


def config_file(tmp_path_factory: pytest.TempPathFactory, text: str) -> Path:
    """A TOML config holding `text` (shared with the jax-ppo tests)."""
    path = tmp_path_factory.mktemp("config") / "tiny.toml"
    path.write_text(text)
    return path


def train(config: Path, out: Path, *flags: str) -> int:
    return main(
        ["train", "--config", str(config), "--out", str(out), "--no-progress", "--device", "cpu", *flags]
    )


def three_rounds(config: Path, tmp_path_factory: pytest.TempPathFactory, round_: int) -> Path:
    """An uninterrupted run of three rounds, a checkpoint after each."""
    out = tmp_path_factory.mktemp("whole")
    flags = ("--steps", str(3 * round_), "--checkpoint-every", str(round_), "--seed", "3")
    assert train(config, out, *flags) == 0
    return out


LOGGED = {
    "rollout/ep_rew_mean",
    "rollout/ep_len_mean",
    "piramida/win_rate",
    "piramida/points_per_game",
    "piramida/pot_rate",
    "piramida/fouls_per_shot",
    "time/shots_per_second",
    "train/loss",
    "train/value_loss",
}


def logged(run: Path) -> EventAccumulator:
    """A tiny run's TensorBoard scalars, checked: every figure is there, and frames cut after 4 moves."""
    events = EventAccumulator(str(run / "tensorboard"))
    events.Reload()
    missing = LOGGED - set(events.Tags()["scalars"])
    assert not missing, missing
    lengths = [e.value for e in events.Scalars("rollout/ep_len_mean")]
    assert lengths and all(1 <= v <= 4 for v in lengths)
    return events


def run_fixtures(text: str, round_: int) -> tuple[Any, Any]:
    """A module's `config` (a TOML file of `text`) and `whole` (its three-round run) fixtures."""

    @pytest.fixture(scope="module")
    def config(tmp_path_factory: pytest.TempPathFactory) -> Path:
        return config_file(tmp_path_factory, text)

    @pytest.fixture(scope="module")
    def whole(config: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
        return three_rounds(config, tmp_path_factory, round_)

    return config, whole


def weights(path: Path) -> dict[str, np.ndarray]:
    """Every array of a checkpoint's state (networks, optimizers, games), by a path of keys."""
    out: dict[str, np.ndarray] = {}

    def collect(prefix: str, value: object) -> None:
        if isinstance(value, torch.Tensor):
            out[prefix] = value.numpy()
        elif isinstance(value, np.ndarray):
            out[prefix] = value
        elif isinstance(value, dict):
            for key, item in value.items():
                collect(f"{prefix}.{key}", item)
        elif isinstance(value, list | tuple):
            for key, item in enumerate(value):
                collect(f"{prefix}.{key}", item)

    state = checkpoint.read(path).state
    collect("model", state.get("model", {}).get("parameters", state.get("runner")))
    return out


def same_weights(a: Path, b: Path) -> bool:
    wa, wb = weights(a), weights(b)
    return wa.keys() == wb.keys() and all(np.array_equal(wa[k], wb[k]) for k in wa)


def resume_error(config: Path, out: Path, path: Path, capsys: pytest.CaptureFixture[str], *flags: str) -> str:
    """What a run resumed from `path` prints on stderr; it must exit with status 2."""
    assert train(config, out, "--resume", str(path), *flags) == 2
    return capsys.readouterr().err


def damaged_copy(good: Path, folder: Path) -> Path:
    """A copy of checkpoint `good` with one byte flipped in the middle of its arrays (a CRC mismatch)."""
    data = good.read_bytes()
    with zipfile.ZipFile(good) as archive:
        info = archive.getinfo(checkpoint.ARRAYS)
    damaged = folder / "damaged.zip"
    middle = info.header_offset + 100 + info.compress_size // 2
    damaged.write_bytes(data[:middle] + bytes([data[middle] ^ 0xFF]) + data[middle + 1 :])
    return damaged
