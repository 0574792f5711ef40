"""`train`: one entry point for every algorithm, which hands the run to its driver.

Each driver is imported only when its algorithm runs: `jax_driver` (`--algo jax-ppo`, no
stable-baselines3 model) or `sb3_driver` (PPO, SAC, MaskablePPO).
"""

from __future__ import annotations

from pathlib import Path

from piramida.training.config import TrainConfig
from piramida.training.runs import Result, remove_stray_writes


def train(config: TrainConfig, out: Path, resume: Path | None = None, progress: bool = True) -> Result:
    """Train (or continue training) as `config` says, writing TensorBoard logs and checkpoints into `out`.

    Raises `checkpoint.CheckpointError` for a resume file that is not a checkpoint of this
    run, and `ConfigError` for settings that cannot run here. The temporary files of a
    checkpoint whose writing was killed are removed first (`runs.remove_stray_writes`).
    """
    remove_stray_writes(out)
    if config.algo == "jax-ppo":
        from piramida.training import jax_driver

        return jax_driver.train(config, out, resume, progress)
    from piramida.training import sb3_driver

    return sb3_driver.train(config, out, resume, progress)
