"""What a training run is: `TrainConfig`, checked field by field, from flags and a TOML file.

Every field has a default; a TOML file (`--config`) sets any of them by the same names
(dashes or underscores), plus a `[hyperparameters]` table passed to the stable-baselines3
constructor; flags override the file. A bad value raises `ConfigError` naming the field
(the command line answers it with exit status 2).
"""

from __future__ import annotations

import dataclasses
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from piramida.agents import AGENTS
from piramida.agents.search import LEVELS
from piramida.physics import noise as noise_model
from piramida.rules import ids
from piramida.training import prior

ALGOS = ("ppo", "sac", "maskable-ppo", "jax-ppo")
JAX_OPPONENTS = ("random", "greedy")  # bots jax-ppo can play inside its jitted loop
DEVICES = ("cpu", "cuda", "auto")
# Fields that make two runs the same run: a checkpoint resumes only a run that agrees on them.
IDENTITY = ("algo", "variant", "action_mode", "tables", "noise", "opponent", "league", "seed", "shot_limit")
# Per algorithm, what the run uses unless `[hyperparameters]` says otherwise.
DEFAULT_HYPERPARAMETERS: dict[str, dict[str, Any]] = {
    "ppo": {"n_steps": 64, "batch_size": 256, "n_epochs": 4, "learning_rate": 3e-4},
    "maskable-ppo": {"n_steps": 64, "batch_size": 128, "n_epochs": 10, "learning_rate": 5e-4},  # the recipe
    "jax-ppo": {"n_steps": 64, "batch_size": 256, "n_epochs": 4, "learning_rate": 3e-4},
    "sac": {"buffer_size": 50_000, "learning_starts": 256, "batch_size": 256, "learning_rate": 3e-4},
}
SAC_BLOCK = 8  # vector steps in one SAC "round" (league draws, checkpoint and log intervals)


class ConfigError(ValueError):
    """A bad setting; the message names the flag or field."""


@dataclass(frozen=True)
class TrainConfig:
    """One training run.

    Attributes:
      algo: `ppo`, `sac` (raw actions only), `maskable-ppo` (assisted actions only) or
        `jax-ppo` (`training.jax_ppo`: against `random` or `greedy`, no league).
      variant: `free`, `combined`, `dynamic` or `classic`.
      action_mode: `raw` or `assisted` (`envs.actions`).
      noise: execution-noise magnitude for both players (a level name is converted).
      tables: tables stepped together (the vector env's batch).
      opponent: `random`, `greedy`, `search[:level]`, or a saved policy's path; unused with a league.
      league: opponents drawn in turn (`random`, `greedy`, `search[:level]`, `self`, paths); empty: none.
      league_every: learner moves between league draws; 0 means one round (PPO: n_steps x tables).
      steps: learner moves to train for (rounded up to whole rounds).
      seed: seeds torch, numpy, the environments and the league.
      device: torch's device (jax-ppo: JAX's platform): `cpu`, `cuda` or `auto`.
      checkpoint_every: learner moves between checkpoints (rounded up to whole rounds).
      shot_limit: learner moves in a frame before it is truncated.
      hyperparameters: keyword arguments of the stable-baselines3 algorithm (jax-ppo:
        `training.jax_ppo.Hyper`'s fields), over the defaults.
      assisted_prior: in the assisted action mode, the starting policy's probability of each
        correction head choosing no correction (`training.prior`); 0 starts uniform.

    """

    algo: str = "ppo"
    variant: str = "free"
    action_mode: str = "raw"
    noise: float = 0.0
    tables: int = 8
    opponent: str = "random"
    league: tuple[str, ...] = ()
    league_every: int = 0
    steps: int = 100_000
    seed: int = 0
    device: str = "auto"
    checkpoint_every: int = 10_000
    shot_limit: int = 200
    hyperparameters: dict[str, Any] = field(default_factory=dict)
    assisted_prior: float = prior.DEFAULT

    def __post_init__(self) -> None:
        """Check every field; `ConfigError` names the first bad one."""
        check_choice("algo", self.algo, ALGOS)
        check_choice("variant", self.variant, ids.VARIANT_NAMES)
        check_choice("action-mode", self.action_mode, ("raw", "assisted"))
        check_choice("device", self.device, DEVICES)
        if self.algo == "sac" and self.action_mode != "raw":
            raise ConfigError("algo: sac needs continuous actions (--action-mode raw)")
        if self.algo == "maskable-ppo" and self.action_mode != "assisted":
            raise ConfigError("algo: maskable-ppo masks discrete choices (--action-mode assisted)")
        if self.algo == "jax-ppo":
            self._check_jax()
        for name, low in (("tables", 1), ("steps", 1), ("checkpoint_every", 1), ("shot_limit", 1)):
            check_int(name, getattr(self, name), low)
        check_int("league_every", self.league_every, 0)
        check_int("seed", self.seed, 0)
        if not (isinstance(self.noise, int | float) and self.noise >= 0):
            raise ConfigError(f"noise: expected a magnitude >= 0, got {self.noise!r}")
        check_opponent("opponent", self.opponent)
        for member in self.league:
            if member != "self":
                check_opponent("league", member)
        if not (isinstance(self.assisted_prior, int | float) and 0 <= self.assisted_prior < 1):
            raise ConfigError(
                f"assisted-prior: expected a probability in [0, 1), got {self.assisted_prior!r}"
            )
        if not isinstance(self.hyperparameters, dict):
            raise ConfigError("hyperparameters: expected a table of keyword arguments")

    def _check_jax(self) -> None:
        """jax-ppo's opponent plays inside the jitted loop: a JAX bot, never a league or a saved policy."""
        if self.league:
            raise ConfigError("league: jax-ppo has no league (its opponent plays inside the jitted loop)")
        if self.opponent not in JAX_OPPONENTS:
            raise ConfigError(
                f"opponent: jax-ppo plays {' or '.join(JAX_OPPONENTS)} inside its jitted loop, "
                f"got {self.opponent!r} (use --algo ppo or maskable-ppo for other opponents)"
            )

    def hyper(self) -> dict[str, Any]:
        """The algorithm's keyword arguments: the defaults, then `hyperparameters`."""
        return DEFAULT_HYPERPARAMETERS[self.algo] | self.hyperparameters

    def round_moves(self) -> int:
        """Learner moves in one round: a PPO rollout (n_steps x tables), or `SAC_BLOCK` x tables."""
        steps = self.hyper()["n_steps"] if self.algo != "sac" else SAC_BLOCK
        return int(steps) * self.tables

    def to_json(self) -> dict[str, Any]:
        """The fields as JSON values (the league as a list)."""
        out = dataclasses.asdict(self)
        out["league"] = list(self.league)
        return out


def check_choice(name: str, value: Any, choices: tuple[str, ...]) -> None:
    """ConfigError unless `value` is one of `choices`."""
    if value not in choices:
        raise ConfigError(f"{name}: expected one of {', '.join(choices)}, got {value!r}")


def check_int(name: str, value: Any, low: int) -> None:
    """ConfigError unless `value` is an int >= `low`."""
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ConfigError(f"{name.replace('_', '-')}: expected an integer >= {low}, got {value!r}")


def check_opponent(name: str, value: Any) -> None:
    """ConfigError unless `value` names a bot (`search:level` included) or an existing file."""
    if not isinstance(value, str) or not value:
        raise ConfigError(f"{name}: expected a bot name or a saved policy's path, got {value!r}")
    bot, _, level = value.partition(":")
    if bot in AGENTS:
        if level and bot != "search":
            raise ConfigError(f"{name}: {value!r}: only search takes a level")
        if level and level not in LEVELS:
            raise ConfigError(f"{name}: {value!r}: search levels are {', '.join(LEVELS)}")
        return
    if not Path(value).is_file():
        raise ConfigError(
            f"{name}: {value!r} is neither a bot ({', '.join(sorted(AGENTS))}, search:LEVEL) "
            "nor a saved policy file"
        )


def parse_noise(value: Any) -> float:
    """A magnitude from a level name (`none`, `pro`, `amateur`) or a number; ConfigError if neither."""
    if isinstance(value, str) and _is_number(value):
        value = float(value)
    try:
        return noise_model.level(value)
    except (TypeError, ValueError) as error:
        raise ConfigError(f"noise: {error}") from error


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def parse_league(value: Any) -> tuple[str, ...]:
    """A league from comma-separated names (or a TOML list)."""
    items = value.split(",") if isinstance(value, str) else list(value)
    league = tuple(str(item).strip() for item in items if str(item).strip())
    if isinstance(value, str) and value.strip() and not league:
        raise ConfigError("league: empty list")
    return league


def read_toml(path: str | Path) -> dict[str, Any]:
    """A config file's settings, by field name; ConfigError names the file and the problem."""
    try:
        with open(path, "rb") as f:
            raw = tomllib.load(f)
    except OSError as error:
        raise ConfigError(f"config: cannot read {path} ({error.strerror or error})") from error
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"config: {path} is not valid TOML ({error})") from error
    names = {f.name for f in dataclasses.fields(TrainConfig)} | {"out"}
    out: dict[str, Any] = {}
    for key, value in raw.items():
        name = key.replace("-", "_")
        if name not in names:
            raise ConfigError(f"config: {path}: unknown setting {key!r}; known: {', '.join(sorted(names))}")
        out[name] = value
    return out


def build(values: dict[str, Any]) -> TrainConfig:
    """A `TrainConfig` from settings by field name (noise and league in any accepted spelling)."""
    values = dict(values)
    if "noise" in values:
        values["noise"] = parse_noise(values["noise"])
    if "league" in values:
        values["league"] = parse_league(values["league"])
    try:
        return TrainConfig(**values)
    except TypeError as error:  # a TOML value of the wrong kind reaching a comparison
        raise ConfigError(f"config: {error}") from error
