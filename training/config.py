"""What a training run is: `TrainConfig`, checked field by field, from flags, a TOML file or a checkpoint.

Every field has a default; a TOML file (`--config`) sets any of them by the same names
(dashes or underscores), plus a `[hyperparameters]` table for the algorithm (`HYPERPARAMETERS`:
what each algorithm takes, and in what range); flags override the file. A checkpoint keeps
the config as JSON (`TrainConfig.to_json`; `config_from_json` reads it back).

The three paths meet in `TrainConfig.__post_init__`, which reads every field with one
reader per kind of value (`rules.fields` for numbers, `physics.noise.level` for noise), so
a config that exists has every number finite and in range. A bad value raises `ConfigError`
naming the field in one line (the command line answers it with exit status 2).
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import tomllib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from piramida.agents import AGENTS, check_bot
from piramida.envs.core import MAX_COUNT
from piramida.physics import noise as noise_model
from piramida.physics.fields import FieldError, read_bool, read_int, read_number, shown
from piramida.rules import ids
from piramida.rules.memory import too_many_tables
from piramida.training import prior

ALGOS = ("ppo", "sac", "maskable-ppo", "jax-ppo")
POLICIES = ("mlp", "slots", "trained")  # jax-ppo's networks; a policy file's path starts from that file
DEVICES = ("cpu", "cuda", "auto")
# Fields that make two runs the same run: a checkpoint resumes only a run that agrees on them.
IDENTITY = (
    "algo",
    "variant",
    "action_mode",
    "tables",
    "noise",
    "opponent",
    "league",
    "seed",
    "shot_limit",
    "policy",
)
# Per algorithm, what the run uses unless `[hyperparameters]` says otherwise.
DEFAULT_HYPERPARAMETERS: dict[str, dict[str, Any]] = {
    "ppo": {"n_steps": 64, "batch_size": 256, "n_epochs": 4, "learning_rate": 3e-4},
    "maskable-ppo": {"n_steps": 64, "batch_size": 128, "n_epochs": 10, "learning_rate": 5e-4},  # the recipe
    "jax-ppo": {"n_steps": 64, "batch_size": 256, "n_epochs": 4, "learning_rate": 3e-4},
    "sac": {"buffer_size": 50_000, "learning_starts": 256, "batch_size": 256, "learning_rate": 3e-4},
}
SAC_BLOCK = 8  # vector steps in one SAC "round" (league draws, checkpoint and log intervals)
MAX_MOVES = 2**53  # learner moves: counted exactly in the float64 figures and logs
MAX_SEED = 2**32 - 1  # numpy's seeds (stable-baselines3 seeds numpy with the run's)
MAX_LAYERS, MAX_WIDTH = 16, 65_536  # a network's hidden layers: beyond these it does not fit anyway
MAX_CONFIG_BYTES = 1 << 20  # a config file is a few lines: more is the wrong file (or /dev/zero)


class ConfigError(ValueError):
    """A bad setting; the message names the flag or field, in one line."""


# A reader checks one value and returns it as kept: (value, field's name) -> value; ConfigError if bad.
Reader = Callable[[Any, str], Any]


def count(low: int, high: int = MAX_COUNT) -> Reader:
    """An integer in `low..high` (a boolean is not one)."""
    return lambda value, name: read_int(value, name, low, high)


def real(low: float, high: float = math.inf, *, open_low: bool = False, open_high: bool = False) -> Reader:
    """A finite number (a boolean is not one) in the interval from `low` to `high`, kept as a float."""
    interval = f"{'(' if open_low else '['}{low:g}, {high:g}{')' if open_high or high == math.inf else ']'}"

    def read(value: Any, name: str) -> float:
        number = read_number(value, name)
        if not (low < number if open_low else low <= number) or not (
            number < high if open_high else number <= high
        ):
            raise ConfigError(f"{name}: expected a number in {interval}, got {number!r}")
        return number

    return read


def choice(choices: tuple[str, ...]) -> Reader:
    """One of `choices`."""

    def read(value: Any, name: str) -> str:
        if not isinstance(value, str) or value not in choices:
            raise ConfigError(f"{name}: expected one of {', '.join(choices)}, got {shown(value)}")
        return value

    return read


def auto_or(reader: Reader) -> Reader:
    """`"auto"` (the algorithm chooses) or what `reader` reads."""
    return lambda value, name: value if value == "auto" else reader(value, name)


def read_table(value: Any, name: str, readers: Mapping[str, Reader]) -> dict[str, Any]:
    """A table (a JSON object) of settings, each read by its reader; an unknown one is named."""
    if not isinstance(value, dict):
        raise ConfigError(f"{name}: expected a table, got {type(value).__name__}")
    for key in value:
        if key not in readers:
            raise ConfigError(f"{name}: unknown setting {shown(key)}; known: {', '.join(readers)}")
    return {key: readers[key](item, f"{name}.{key}") for key, item in value.items()}


def layers(value: Any, name: str) -> list[int]:
    """Hidden layer sizes: a list of at most `MAX_LAYERS` integers in `1..MAX_WIDTH`."""
    if not isinstance(value, list | tuple) or len(value) > MAX_LAYERS:
        raise ConfigError(f"{name}: expected a list of at most {MAX_LAYERS} layer sizes, got {shown(value)}")
    return [read_int(size, f"{name}[{i}]", 1, MAX_WIDTH) for i, size in enumerate(value)]


def policy_kwargs(critic: str) -> Reader:
    """stable-baselines3's `policy_kwargs`: `net_arch`, shared layer sizes or a table of `pi` and `critic`."""
    heads = {"pi": layers, critic: layers}

    def net_arch(value: Any, name: str) -> Any:
        return read_table(value, name, heads) if isinstance(value, dict) else layers(value, name)

    return lambda value, name: read_table(value, name, {"net_arch": net_arch})


PPO_FAMILY: dict[str, Reader] = {
    "n_steps": count(1),
    "batch_size": count(2),  # stable-baselines3 normalises advantages over a minibatch
    "n_epochs": count(1),
    "learning_rate": real(0, 1, open_low=True),
    "gamma": real(0, 1),
    "gae_lambda": real(0, 1),
    "clip_range": real(0, 1, open_low=True),
    "ent_coef": real(0),
    "vf_coef": real(0),
    "max_grad_norm": real(0, open_low=True),
}
SB3_PPO = PPO_FAMILY | {
    "target_kl": real(0, open_low=True),
    "normalize_advantage": read_bool,
    "policy_kwargs": policy_kwargs("vf"),
}
# What `[hyperparameters]` may set, per algorithm (jax-ppo: `training.ppo.Hyper`'s fields).
HYPERPARAMETERS: dict[str, dict[str, Reader]] = {
    "ppo": SB3_PPO,
    "maskable-ppo": SB3_PPO,
    "jax-ppo": PPO_FAMILY | {"batch_size": count(1), "net_arch": layers},
    "sac": {
        "learning_rate": real(0, 1, open_low=True),
        "buffer_size": count(1),
        "learning_starts": count(0),
        "batch_size": count(1),
        "tau": real(0, 1, open_low=True),
        "gamma": real(0, 1),
        "train_freq": count(1),
        "gradient_steps": count(-1),  # -1: as many as the env steps taken
        "ent_coef": auto_or(real(0, open_low=True)),
        "target_update_interval": count(1),
        "target_entropy": auto_or(real(-math.inf)),
        "policy_kwargs": policy_kwargs("qf"),
    },
}


def opponent_name(value: Any, name: str) -> str:
    """A bot (`search:LEVEL`, `trained:LEVEL`) or maybe a saved policy's path (`build` checks the file)."""
    if not isinstance(value, str) or not value or "\0" in value:
        raise ConfigError(f"{name}: expected a bot name or a saved policy's path, got {shown(value)}")
    if value.partition(":")[0] in AGENTS:
        try:
            check_bot(value)
        except ValueError as error:
            raise ConfigError(f"{name}: {error}") from error
    return value


def policy_name(value: Any, name: str) -> str:
    """jax-ppo's network: `mlp`, `slots` (a fresh slot scorer), `trained` or a policy file to start from."""
    named = isinstance(value, str) and "\0" not in value and (value in POLICIES or value.endswith(".npz"))
    if not named:
        raise ConfigError(f"{name}: expected {', '.join(POLICIES)} or a policy .npz, got {shown(value)}")
    return value


def observation_of(policy: str) -> str:
    """The observation a `policy` network reads: `flat` for the MLPs, `menu` for the slot scorer."""
    return "flat" if policy == "mlp" else "menu"


SELF = "self"  # the league member that is the learner's own earlier policy


def league_names(value: Any, name: str) -> tuple[str, ...]:
    """Opponents drawn in turn: comma-separated names, or a list of them; `self` or an opponent each."""
    if isinstance(value, str):
        names = tuple(item.strip() for item in value.split(",") if item.strip())
        if value.strip() and not names:
            raise ConfigError(f"{name}: empty list")
    elif isinstance(value, list | tuple) and all(isinstance(item, str) for item in value):
        names = tuple(value)
    else:
        raise ConfigError(f"{name}: expected comma-separated names or a list of names, got {shown(value)}")
    return tuple(member if member == SELF else opponent_name(member, name) for member in names)


# Every field but `hyperparameters` (read per algorithm), in the order they are checked.
FIELDS: dict[str, Reader] = {
    "algo": choice(ALGOS),
    "variant": choice(ids.VARIANT_NAMES),
    "action_mode": choice(("raw", "assisted")),
    "noise": noise_model.level,
    "tables": count(1),
    "opponent": opponent_name,
    "league": league_names,
    "league_every": count(0, MAX_MOVES),
    "steps": count(1, MAX_MOVES),
    "seed": count(0, MAX_SEED),
    "device": choice(DEVICES),
    "checkpoint_every": count(1, MAX_MOVES),
    "shot_limit": count(1),
    "assisted_prior": real(0, 1, open_high=True),
    "policy": policy_name,
}
# Fields added after checkpoints were first written, with the value every older run used.
ADDED = {"policy": "mlp"}


@contextlib.contextmanager
def shared_readers() -> Iterator[None]:
    """Raise the shared readers' errors (`rules.fields`, `physics.noise`) as ConfigError, same message."""
    try:
        yield
    except (FieldError, noise_model.NoiseError) as error:
        raise ConfigError(str(error)) from error


@dataclass(frozen=True)
class TrainConfig:
    """One training run.

    Attributes:
      algo: `ppo`, `sac` (raw actions only), `maskable-ppo` (assisted actions only) or
        `jax-ppo` (`training.jax_driver`: its opponents are bots, which play inside its jitted
        loop).
      variant: `free`, `combined`, `dynamic` or `classic`.
      action_mode: `raw` or `assisted` (`envs.actions`).
      noise: execution-noise magnitude for both players (a level name is read as its magnitude).
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
        `training.ppo.Hyper`'s fields), over the defaults; `HYPERPARAMETERS` lists them.
      assisted_prior: in the assisted action mode, the starting policy's probability of each
        correction head choosing no correction (`training.prior`); 0 starts uniform.
      policy: jax-ppo's network: `mlp` (actor and critic MLPs on the flat observation),
        `slots` (the trained bot's slot scorer, `agents.scorer`, fresh, on the `menu`
        observation), `trained` (that scorer starting from the shipped policy) or a policy
        `.npz` to start from (`training.slot_policy`).

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
    policy: str = "mlp"

    def __post_init__(self) -> None:
        """Read every field, kept as read (a noise level as its magnitude); ConfigError names a bad one."""
        with shared_readers():
            for name, reader in FIELDS.items():
                object.__setattr__(self, name, reader(getattr(self, name), name))
            hyper = read_table(self.hyperparameters, "hyperparameters", HYPERPARAMETERS[self.algo])
            object.__setattr__(self, "hyperparameters", hyper)
        too_many = too_many_tables(self.tables)
        if too_many:
            raise ConfigError(f"tables: {too_many}")
        if self.algo == "sac" and self.action_mode != "raw":
            raise ConfigError("algo: sac needs continuous actions (--action-mode raw)")
        if self.algo == "maskable-ppo" and self.action_mode != "assisted":
            raise ConfigError("algo: maskable-ppo masks discrete choices (--action-mode assisted)")
        if self.algo == "jax-ppo":
            self._check_jax()
        elif self.policy != "mlp":
            raise ConfigError("policy: the slot scorer trains with --algo jax-ppo only")
        elif self.algo != "sac" and self.round_moves() < 2:
            raise ConfigError(
                f"hyperparameters.n_steps: a rollout of n_steps x tables = {self.round_moves()} move; "
                "stable-baselines3's PPO needs 2 or more"
            )
        elif self.algo != "sac" and self.hyperparameters.get("batch_size", 0) > self.round_moves():
            # A default larger than a small rollout is stable-baselines3's whole rollout; one
            # set on purpose would be trained on as something it is not.
            raise ConfigError(
                f"hyperparameters.batch_size: {self.hyperparameters['batch_size']} is more than a rollout's "
                f"n_steps x tables = {self.round_moves()} moves (a minibatch is part of one rollout)"
            )

    def _check_jax(self) -> None:
        """jax-ppo's opponents play inside its jitted loop: bots, or `self` for a slot policy."""
        if SELF in self.league and self.policy == "mlp":
            raise ConfigError(
                "league: jax-ppo plays `self` as the trained bot plays, so it needs a slot policy "
                "(--policy slots, trained or PATH.npz; or --algo ppo or maskable-ppo for the mlp's self-play)"
            )
        league = [member for member in self.league if member != SELF]
        for name, members in (("opponent", [self.opponent]), ("league", league)):
            for member in members:
                if member.partition(":")[0] not in AGENTS:
                    raise ConfigError(
                        f"{name}: jax-ppo's opponents play inside its jitted loop, so they are bots "
                        f"({', '.join(sorted(AGENTS))}); got {shown(member)} "
                        "(use --algo ppo or maskable-ppo for saved policies and self-play)"
                    )
        if self.policy != "mlp" and self.action_mode != "assisted":
            raise ConfigError("policy: the slot scorer picks menu slots (--action-mode assisted)")
        batch, moves = self.hyper()["batch_size"], self.round_moves()
        if moves % batch:
            raise ConfigError(
                f"hyperparameters.batch_size: {batch} must divide a round's n_steps x tables = {moves} moves"
            )

    def observation(self) -> str:
        """The observation the run's network reads (`observation_of`)."""
        return observation_of(self.policy)

    def hyper(self) -> dict[str, Any]:
        """The algorithm's keyword arguments: the defaults, then `hyperparameters`."""
        return DEFAULT_HYPERPARAMETERS[self.algo] | self.hyperparameters

    def round_moves(self) -> int:
        """Learner moves in one round: a PPO rollout (n_steps x tables), or `SAC_BLOCK` x tables."""
        steps = self.hyper()["n_steps"] if self.algo != "sac" else SAC_BLOCK
        return int(steps) * self.tables

    def to_json(self) -> dict[str, Any]:
        """The fields as JSON values (the league as a list); `config_from_json` reads them back."""
        out = dataclasses.asdict(self)
        out["league"] = list(self.league)
        return out


NAMES = tuple(f.name for f in dataclasses.fields(TrainConfig))


def read_config(values: Any, complete: bool) -> TrainConfig:
    """A `TrainConfig` from settings by field name (every field if `complete`); unknown names are refused."""
    if not isinstance(values, dict):
        got = "nothing" if values is None else type(values).__name__
        raise ConfigError(f"expected an object of settings, got {got}")
    unknown = [key for key in values if key not in NAMES]
    if unknown:
        raise ConfigError(f"unknown setting {shown(unknown[0])}; known: {', '.join(NAMES)}")
    if complete:
        values = ADDED | values  # a checkpoint written before the field existed
    missing = [name for name in NAMES if name not in values] if complete else []
    if missing:
        raise ConfigError(f"{missing[0]}: missing")
    return TrainConfig(**values)


def build(values: Mapping[str, Any]) -> TrainConfig:
    """A run to start, from settings by field name (flags, a TOML file)."""
    return _runnable(read_config(dict(values), complete=False))


def config_from_json(value: Any, playing: bool = False) -> TrainConfig:
    """The config `TrainConfig.to_json` wrote (a checkpoint's `meta.json` `config`), read as `build` reads.

    Every field must be there: a missing one would become a default the run did not use.
    `playing`: the checkpoint is only played, so the saved policies it trained against need
    not exist any more. ConfigError names the field (`tables: expected ...`).
    """
    config = read_config(value, complete=True)
    return config if playing else _runnable(config)


def _runnable(config: TrainConfig) -> TrainConfig:
    """`config`, its saved-policy opponents files (a run loads them); ConfigError names one that is not."""
    league = [member for member in config.league if member != SELF]
    for name, members in (("opponent", [config.opponent]), ("league", league)):
        for member in members:
            if member.partition(":")[0] not in AGENTS and not _is_file(member):
                raise ConfigError(
                    f"{name}: {shown(member)} is neither a bot ({', '.join(sorted(AGENTS))}, search:LEVEL) "
                    "nor a saved policy file"
                )
    return config


def read_out(value: Any) -> Path:
    """The output folder: a non-empty path."""
    if not isinstance(value, str) or not value or "\0" in value:
        raise ConfigError(f"out: expected a folder's path, got {shown(value)}")
    return Path(value)


def read_toml(path: str | Path) -> dict[str, Any]:
    """A config file's settings, by field name (and `out`); ConfigError names the file and the problem.

    Only the file and the names are checked here; `build` reads the values.
    """
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_CONFIG_BYTES + 1)
    except OSError as error:
        raise ConfigError(f"config: cannot read {path} ({error.strerror or error})") from error
    except ValueError as error:  # a NUL in the path
        raise ConfigError(f"config: cannot read {shown(str(path))} ({error})") from error
    if len(data) > MAX_CONFIG_BYTES:
        raise ConfigError(f"config: {path} is not a config file (over {MAX_CONFIG_BYTES} bytes)")
    try:
        raw = tomllib.loads(data.decode())
    except UnicodeDecodeError as error:
        raise ConfigError(f"config: {path} is not valid TOML (not UTF-8 at byte {error.start})") from error
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"config: {path} is not valid TOML ({error})") from error
    except (ValueError, RecursionError) as error:  # Python's limits: 4300-digit integers, nesting depth
        raise ConfigError(f"config: {path} is not a config file ({error!s:.80})") from error
    out: dict[str, Any] = {}
    for key, value in raw.items():
        name = key.replace("-", "_")
        if name not in (*NAMES, "out"):
            raise ConfigError(f"config: unknown setting {shown(key)}; known: {', '.join(NAMES)}, out")
        if name in out:
            raise ConfigError(f"config: {path}: {shown(key)} is set twice")
        if name == "out":
            read_out(value)
        out[name] = value
    return out


def _is_file(path: str) -> bool:
    try:
        return Path(path).is_file()
    except OSError:  # a name too long for the file system
        return False
