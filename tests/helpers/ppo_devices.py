"""jax-ppo's round over two forced CPU devices, against one device and the plain round.

Run in a fresh process (XLA reads the device count when JAX starts); prints one JSON line:
what a tiny raw-mode round does on two devices (replicas, losses), whether a one-device
mesh gives the plain round's bits, how far two devices land from one, the refusal of
tables that do not split, and a `piramida train` run on both devices resumed exactly.
Its runs are left in the folder named by its argument (`whole/`: two rounds,
`tiny.toml`: their settings), for runs over two processes to be checked against.
"""

from __future__ import annotations

import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=2"

import contextlib
import dataclasses
import io
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import jax
import numpy as np
from jax.sharding import Mesh

import piramida.physics as ph
from piramida.cli.main import main as cli
from piramida.envs import functional
from piramida.training import checkpoint, ppo, runs
from piramida.training.config import ConfigError, TrainConfig, build, read_toml

TOML = """
algo = "jax-ppo"
action-mode = "raw"
opponent = "random"
tables = 8
shot-limit = 4
seed = 3
[hyperparameters]
n_steps = 4
batch_size = 16
n_epochs = 2
net_arch = [8]
"""
ROUND = 8 * 4  # learner moves in one round


def leaves(tree: Any) -> list[np.ndarray]:
    """A pytree's arrays on the host (a sharded array gathered)."""
    return [np.asarray(leaf) for leaf in jax.tree_util.tree_leaves(tree)]


def same(a: Any, b: Any) -> bool:
    """Bitwise equality of two pytrees of arrays."""
    return all(np.array_equal(x, y) for x, y in zip(leaves(a), leaves(b), strict=True))


def one_round(config: TrainConfig, mesh: Mesh | None) -> tuple[ppo.Runner, ppo.Runner, dict[str, Any]]:
    """The run's start, and the runner and losses after its first round on `mesh` (None: the plain round)."""
    hyper, settings = ppo.Hyper.of(config), runs.settings_of(config)
    start = ppo.new_runner(config, settings, hyper)
    update = ppo.make_update(
        settings.action_mode, ppo.opponent_bot(config.opponent, config.noise), hyper, config.policy, mesh
    )
    runner, _, losses = update(
        start if mesh is None else ppo.placed(start, mesh), functional.EnvParams.of(settings)
    )
    return start, runner, losses


def replicated(tree: Any) -> bool:
    """Every device holds the same bits of every array of `tree`."""
    return all(
        all(
            np.array_equal(np.asarray(shard.data), np.asarray(leaf.addressable_shards[0].data))
            for shard in leaf.addressable_shards
        )
        for leaf in jax.tree_util.tree_leaves(tree)
    )


def largest(a: Any, b: Any) -> float:
    """The largest absolute difference between two pytrees' arrays."""
    return max(float(np.max(np.abs(x - y))) for x, y in zip(leaves(a), leaves(b), strict=True))


def trained(config: Path, out: Path, *flags: str) -> str:
    """`piramida train` on the tiny config; its printed summary (the exit status checked)."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        status = cli(
            ["train", "--config", str(config), "--out", str(out), "--no-progress", "--device", "cpu", *flags]
        )
    assert status == 0, printed.getvalue()
    return printed.getvalue()


def main() -> None:
    """Everything above, as one JSON line."""
    ph.runtime.use_float64()
    assert jax.device_count() == 2, jax.devices()
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp())  # the runs stay there
    (folder / "tiny.toml").write_text(TOML)
    config = build(read_toml(folder / "tiny.toml"))
    hyper = ppo.Hyper.of(config)
    both, first = ppo.table_mesh(config, hyper), ppo.table_mesh(config, hyper, jax.devices()[:1])

    start, two, losses = one_round(config, both)
    _, one, _ = one_round(config, first)
    _, plain, _ = one_round(config, None)
    try:
        odd = dataclasses.replace(config, tables=3, hyperparameters={**config.hyperparameters, "n_steps": 16})
        ppo.table_mesh(odd, ppo.Hyper.of(odd))
        refusal = ""
    except ConfigError as error:
        refusal = str(error)

    summary = trained(
        folder / "tiny.toml", folder / "whole", "--steps", str(2 * ROUND), "--checkpoint-every", str(ROUND)
    )
    trained(folder / "tiny.toml", folder / "cut", "--steps", str(ROUND))
    trained(folder / "tiny.toml", folder / "cut", "--resume", "--steps", str(2 * ROUND))
    whole, resumed = (
        dict(checkpoint.read(folder / run / "final.zip").state["runner"]) for run in ("whole", "cut")
    )

    print(
        json.dumps(
            {
                "devices": [len(both.devices), len(first.devices)],
                "env_sharded": len(two.env.moves.addressable_shards),
                "params_replicated": replicated((two.params, two.opt_state)),
                "losses_finite": all(bool(np.isfinite(value)) for value in losses.values()),
                "one_device_same_as_plain": same(one, plain),
                "two_devices_same_as_one": same(two.params, one.params),
                "two_vs_one_largest": largest(two.params, one.params),
                "one_round_largest": largest(one.params, start.params),
                "refusal": refusal,
                "summary": summary,
                "resumed_same": whole.keys() == resumed.keys()
                and all(np.array_equal(whole[k], resumed[k]) for k in whole),
            }
        )
    )


if __name__ == "__main__":
    main()
