"""piramida.training: SB3 or JAX-native training on the batched env, checkpoints, resume, leagues.

`train(config, out)` runs one training (`loop`; `jax_ppo` for `--algo jax-ppo`);
`TrainConfig` says what it is (`config`); checkpoints are zips with piramida's metadata
and resume state inside (`checkpoint`).
"""

from piramida.training.checkpoint import CheckpointError, read_meta
from piramida.training.config import ConfigError, TrainConfig
from piramida.training.loop import Result, train

__all__ = ["CheckpointError", "ConfigError", "Result", "TrainConfig", "read_meta", "train"]
