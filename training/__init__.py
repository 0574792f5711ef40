"""piramida.training: SB3 or JAX-native training on the batched env, checkpoints, resume, leagues.

`train(config, out)` runs one training (`trainer`: `sb3_driver`, or `jax_driver` for
`--algo jax-ppo`, sharing `runs`); `TrainConfig` says what it is (`config`); checkpoints
are zips with piramida's metadata and resume state inside (`checkpoint`), played back by
`policies`.
"""

from piramida.training.checkpoint import CheckpointError, read_meta
from piramida.training.config import ConfigError, TrainConfig
from piramida.training.runs import Result
from piramida.training.trainer import train

__all__ = ["CheckpointError", "ConfigError", "Result", "TrainConfig", "read_meta", "train"]
