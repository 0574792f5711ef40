"""Checkpoints: piramida's own zip of metadata, JSON and arrays, loaded without unpickling.

A checkpoint is a zip of three members, all data (`training.datatree`):

- `piramida/meta.json`: format, version, algorithm, variant, action mode, observation,
  noise, shot limit, steps, the run's config, library versions;
- `piramida/state.json`: the training state's structure, its numbers and strings, with
  references to the arrays below;
- `piramida/arrays.npz`: every array of it (read with `allow_pickle=False`).

The state holds what continuing exactly needs: for stable-baselines3 runs the model's
parameter and optimizer state dicts, its torch variables, its plain attributes (step
counters, last observations, episode buffers) and SAC's replay buffer; for jax-ppo the
runner's arrays; and for both the torch, numpy and Python RNG states, the environments'
games and keys, the metrics' windows and the league's pool. A model is rebuilt from the
config in the metadata and its state set from the arrays, so nothing in the file can run
code. Each value read back is checked against the freshly built model's (type, shape,
dtype): a file that does not fit is a `CheckpointError` naming it and what is wrong.

A stable-baselines3 zip written elsewhere can only be loaded by unpickling, which runs any
code inside it; `training.policies` refuses it unless the user trusts it (`--trust-pickle`,
`set_pickle_trusted`). Files are written atomically (`physics.files.write_atomic`).
"""

from __future__ import annotations

import collections
import contextlib
import io
import random
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import jax
import numpy as np

from piramida.physics import jsontext
from piramida.physics.fields import FieldError, shown
from piramida.physics.files import write_atomic
from piramida.physics.runtime import library_versions
from piramida.training import datatree

FORMAT = "piramida-checkpoint"
VERSION = 3
# Version 2 is version 3's format, but its `assisted` slots were the ghost-ball candidate list's,
# which the shot menu replaced: a raw-mode version 2 checkpoint still plays as trained.
RAW_ONLY_VERSION = 2
META = "piramida/meta.json"
STATE = "piramida/state.json"
ARRAYS = "piramida/arrays.npz"
MEMBERS = (META, STATE, ARRAYS)
RUNNER_WEIGHTS = ("['params']", "['opt_state']")  # jax-ppo's runner arrays that are weights (`_weights`)
ALGOS = ("ppo", "sac", "maskable-ppo", "jax-ppo")
_PICKLE_TRUSTED = [False]  # set once per process by the commands' --trust-pickle


class CheckpointError(ValueError):
    """A file that cannot be used as a checkpoint; the message names it and says why."""


def set_pickle_trusted(trusted: bool) -> None:
    """Allow (or forbid) loading foreign stable-baselines3 zips, which unpickling may run code from."""
    _PICKLE_TRUSTED[0] = trusted


def pickle_trusted() -> bool:
    """Whether foreign stable-baselines3 zips may be loaded (`set_pickle_trusted`)."""
    return _PICKLE_TRUSTED[0]


def versions() -> dict[str, str]:
    """The versions of Python and of the libraries a checkpoint depends on."""
    return library_versions(
        ("piramida", "jax", "jaxlib", "numpy", "optax", "torch", "stable-baselines3", "sb3-contrib")
    )


def write(path: Path, meta: dict[str, Any], state: dict[str, Any]) -> None:
    """Write a checkpoint atomically: metadata, and the state as JSON plus arrays (`datatree.pack`)."""
    text, arrays = datatree.pack(state)
    blob = io.BytesIO()
    with zipfile.ZipFile(blob, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(META, jsontext.dumps(meta, indent=2))
        archive.writestr(STATE, text)
        archive.writestr(ARRAYS, arrays)
    write_atomic(path, blob.getvalue())


def new_meta(config: Any, steps: int, final: bool) -> dict[str, Any]:
    """The metadata of a checkpoint of `config` after `steps` learner moves."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "algo": config.algo,
        "variant": config.variant,
        "action_mode": config.action_mode,
        "observation": config.observation(),
        "noise": config.noise,
        "shot_limit": config.shot_limit,
        "steps": steps,
        "final": final,
        "config": config.to_json(),
        "versions": versions(),
        "written": datetime.now(UTC).isoformat(timespec="seconds"),
    }


@dataclass(frozen=True)
class Checkpoint:
    """A checkpoint read whole once: its file, metadata and training state (plain data and arrays)."""

    path: Path
    meta: dict[str, Any]
    state: dict[str, Any]

    def error(self, what: str) -> CheckpointError:
        """A `CheckpointError` saying that this file's `what` is wrong."""
        return CheckpointError(f"{self.path}: corrupt checkpoint ({what})")


def _open(path: Path) -> zipfile.ZipFile:
    if not path.is_file():
        raise CheckpointError(f"{path}: no such file")
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as error:
        raise CheckpointError(f"{path}: not a piramida checkpoint (not a zip file: {error})") from error
    return archive


def _first_bad(archive: zipfile.ZipFile) -> str | None:
    try:
        return archive.testzip()
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as error:
        return f"? ({error})"


@contextlib.contextmanager
def _checked(path: Path, names: tuple[str, ...]) -> Iterator[zipfile.ZipFile]:
    """The checkpoint's zip, open, once its members are checked: `names` there, every CRC right.

    A plain SB3 zip is named as such. A member that is not one of `MEMBERS` is refused
    before anything is decompressed: it would only cost the memory and time of reading it.
    """
    with _open(path) as archive:
        listed = archive.namelist()
        if META not in listed:
            kind = "a stable-baselines3 model without piramida metadata" if "data" in listed else "a zip file"
            raise CheckpointError(f"{path}: not a piramida checkpoint ({kind}; no {META})")
        unknown = [name for name in listed if name not in MEMBERS]
        if unknown:
            raise CheckpointError(
                f"{path}: corrupt checkpoint (unknown member {shown(unknown[0])}; a checkpoint holds "
                f"{', '.join(MEMBERS)})"
            )
        bad = _first_bad(archive)
        if bad is not None:
            raise CheckpointError(f"{path}: corrupt checkpoint (member {bad} fails its CRC check)")
        missing = [name for name in names if name not in listed]
        if missing:
            raise CheckpointError(f"{path}: checkpoint without {', '.join(missing)}")
        yield archive


def read_meta(path: str | Path, required: bool = True) -> dict[str, Any] | None:
    """A checkpoint's metadata, checked; None for a foreign SB3 zip (no metadata) when not `required`."""
    path = Path(path)
    if not required:
        with _open(path) as archive:
            if META not in archive.namelist():
                return None
    with _checked(path, (META,)) as archive:
        return _checked_meta(path, archive.read(META))


def _checked_meta(path: Path, raw: bytes) -> dict[str, Any]:
    """The metadata, each field a player or a resumed run reads checked; CheckpointError if not."""
    try:
        meta = jsontext.loads(raw, META)
    except FieldError as error:
        raise CheckpointError(f"{path}: corrupt checkpoint ({error})") from error
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise CheckpointError(f"{path}: not a piramida checkpoint ({META} has no format {FORMAT!r})")
    if meta.get("version") == RAW_ONLY_VERSION and meta.get("action_mode") == "assisted":
        raise CheckpointError(
            f"{path}: an assisted-mode checkpoint of version 2, whose slots were the candidate list's; "
            "the assisted actions are now shot-menu slots, so it would play other shots: retrain it"
        )
    if meta.get("version") not in (VERSION, RAW_ONLY_VERSION):
        raise CheckpointError(
            f"{path}: checkpoint format version {shown(meta.get('version'))}; this piramida reads version "
            f"{VERSION} (version 1 held pickles: retrain, or load it as a foreign model with --trust-pickle)"
        )
    from piramida.training.config import ConfigError, config_from_json

    expected: dict[str, tuple[type, ...]] = {
        "algo": (str,),
        "action_mode": (str,),
        "observation": (str,),
        "shot_limit": (int,),
        "steps": (int,),
        "final": (bool,),
        "config": (dict,),
    }
    for name, kinds in expected.items():
        value = meta.get(name)
        if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
            raise CheckpointError(f"{path}: corrupt checkpoint ({META}: {name} is {shown(value)})")
    if meta["algo"] not in ALGOS or meta["observation"] not in ("flat", "dict", "menu"):
        raise CheckpointError(f"{path}: corrupt checkpoint ({META}: algo {shown(meta['algo'])})")
    try:
        config = config_from_json(meta["config"], playing=True)
    except ConfigError as error:
        raise CheckpointError(f"{path}: corrupt checkpoint ({META}: config: {error})") from error
    for name in ("algo", "action_mode", "shot_limit"):
        if getattr(config, name) != meta[name]:
            raise CheckpointError(f"{path}: corrupt checkpoint ({META}: {name} differs from its config's)")
    return meta


def read(path: str | Path) -> Checkpoint:
    """The checkpoint at `path`, opened once: metadata checked, state decoded (no unpickling)."""
    path = Path(path)
    with _checked(path, (META, STATE, ARRAYS)) as archive:
        meta = _checked_meta(path, archive.read(META))
        # The arrays are read from the zip as a stream: an array the state does not name is
        # refused before it is read, and none is ever held twice.
        with archive.open(ARRAYS) as arrays:
            try:
                state = datatree.unpack(archive.read(STATE), arrays)
            except datatree.DataTreeError as error:
                raise CheckpointError(f"{path}: corrupt checkpoint ({error})") from error
    if not isinstance(state, dict):
        raise CheckpointError(f"{path}: corrupt checkpoint (state: not an object)")
    ck = Checkpoint(path, meta, state)
    for name, weights in _weights(state):
        bad = int(np.count_nonzero(~np.isfinite(weights)))
        if bad:
            raise ck.error(f"{name}: {bad} of its {weights.size} values are NaN or infinite")
    return ck


def _weights(state: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    """The float arrays of the networks and their optimizers, by name: a NaN in one is a run that diverged.

    stable-baselines3's `model.parameters` (state dicts: networks and optimizer moments)
    and jax-ppo's `runner` params and optimizer state. Found here, such a file is refused
    naming the array; found later, it is an error deep inside torch or JAX.
    """
    model = state.get("model")
    runner = state.get("runner")
    trees: list[tuple[str, Any]] = []
    if isinstance(model, dict):
        trees.append(("model.parameters", model.get("parameters")))
    if isinstance(runner, dict):
        trees += [(f"runner{key}", value) for key, value in runner.items() if key.startswith(RUNNER_WEIGHTS)]
    while trees:
        name, value = trees.pop()
        if isinstance(value, dict):
            trees += [(f"{name}.{key}", item) for key, item in value.items()]
        elif isinstance(value, list | tuple):
            trees += [(f"{name}[{k}]", item) for k, item in enumerate(value)]
        elif hasattr(value, "dtype") and hasattr(value, "shape"):  # a numpy array or a (CPU) torch tensor
            array = np.asarray(value)
            if array.dtype.kind == "f":
                yield name, array


def check_fits(path: Path, meta: dict[str, Any], config: Any, identity: tuple[str, ...]) -> None:
    """CheckpointError unless the checkpoint was trained by a run like `config` (the `identity` fields)."""
    saved = meta["config"]
    wrong = [
        f"{name.replace('_', '-')} {shown(saved.get(name))} (this run: {value!r})"
        for name in identity
        if (value := config.to_json()[name]) != saved.get(name)
    ]
    if wrong:
        raise CheckpointError(f"{path}: checkpoint of another run: it has {'; '.join(wrong)}")


def part(ck: Checkpoint, *keys: str) -> Any:
    """`ck.state[keys[0]][keys[1]]...`; a CheckpointError naming the path where it is missing."""
    value: Any = ck.state
    for depth, key in enumerate(keys):
        if not isinstance(value, dict) or key not in value:
            raise ck.error(f"state: no {'.'.join(keys[: depth + 1])}")
        value = value[key]
    return value


# JAX pytrees: arrays named by their paths, filled back into a template of the same structure.


def flat_arrays(tree: Any) -> dict[str, np.ndarray]:
    """A pytree's leaves as numpy arrays, named by their paths."""
    leaves, _ = jax.tree_util.tree_flatten_with_path(tree)
    return {jax.tree_util.keystr(path): np.asarray(leaf) for path, leaf in leaves}


def filled(ck: Checkpoint, template: Any, arrays: Any, what: str) -> Any:
    """`template`'s structure with the saved `arrays`; CheckpointError where one is missing or misshapen."""
    import jax.numpy as jnp

    if not isinstance(arrays, dict):
        raise ck.error(f"{what}: not a table of arrays")
    leaves, structure = jax.tree_util.tree_flatten_with_path(template)
    out = []
    for where, leaf in leaves:
        name = jax.tree_util.keystr(where)
        saved = arrays.get(name)
        if not isinstance(saved, np.ndarray) or saved.shape != leaf.shape or saved.dtype != leaf.dtype:
            found = f"{saved.dtype}{list(saved.shape)}" if isinstance(saved, np.ndarray) else "missing"
            raise ck.error(f"{what}: {name} is {found}, not {leaf.dtype}{list(leaf.shape)}")
        out.append(jnp.asarray(saved))
    return jax.tree_util.tree_unflatten(structure, out)


# stable-baselines3 models: state dicts, torch variables and plain attributes, set into a fresh model.


def _torch_names(model: Any) -> tuple[list[str], list[str]]:
    """The model's state-dict names (networks, optimizers) and torch variables (SAC's entropy coefficient)."""
    state_dicts, variables = model._get_torch_save_params()
    return list(state_dicts), list(variables)


def _attributes(owner: Any, skip: set[str]) -> dict[str, Any]:
    """`owner`'s attributes that are plain data (`datatree.is_data`), except `skip`."""
    return {k: v for k, v in vars(owner).items() if k not in skip and datatree.is_data(v)}


def model_state(model: Any) -> dict[str, Any]:
    """What a stable-baselines3 model needs to continue exactly, as data."""
    state_dicts, variables = _torch_names(model)
    skip = set(model._excluded_save_params()) | set(state_dicts) | set(variables)
    buffer = getattr(model, "replay_buffer", None)
    return {
        "parameters": model.get_parameters(),
        "variables": {name: _dotted(model, name) for name in variables},
        "attributes": _attributes(model, skip),
        "replay_buffer": None if buffer is None else _attributes(buffer, set()),
    }


def _dotted(owner: Any, name: str) -> Any:
    for part_name in name.split("."):
        owner = getattr(owner, part_name)
    return owner


def restore_model(ck: Checkpoint, model: Any) -> None:
    """Set a freshly built model to the saved one: weights, optimizers, variables, attributes, buffer."""
    import torch

    saved = part(ck, "model")
    state_dicts, variables = _torch_names(model)
    parameters = part(ck, "model", "parameters")
    if not isinstance(parameters, dict) or sorted(parameters) != sorted(state_dicts):
        raise ck.error(f"model.parameters: expected {', '.join(state_dicts)}")
    try:
        model.set_parameters(parameters, exact_match=True, device=model.device)
    except Exception as error:  # torch names the mismatch: a key, a shape, a group
        raise ck.error(f"model.parameters do not fit the model: {shown(str(error), 200)}") from error
    values = part(ck, "model", "variables")
    if not isinstance(values, dict) or sorted(values) != sorted(variables):
        raise ck.error(f"model.variables: expected {', '.join(variables) or 'none'}")
    for name in variables:
        target = _dotted(model, name)
        _conform(ck, values[name], target, f"model.variables.{name}")
        with torch.no_grad():
            target.copy_(values[name])
    _set_attributes(ck, model, saved.get("attributes"), "model.attributes", _unfilled_checks(model))
    buffer = getattr(model, "replay_buffer", None)
    if (buffer is None) != (saved.get("replay_buffer") is None):
        raise ck.error("model.replay_buffer: present in only one of the file and the model")
    if buffer is not None:
        _set_attributes(ck, buffer, saved["replay_buffer"], "model.replay_buffer", {})


def _unfilled_checks(model: Any) -> dict[str, Callable[[Any], bool]]:
    """Checks for the attributes a fresh model leaves None until `learn` (so it has no template)."""
    n, shape = model.n_envs, tuple(model.observation_space.shape)

    def observations(value: Any) -> bool:
        return isinstance(value, np.ndarray) and value.shape == (n, *shape)

    def episodes(value: Any) -> bool:
        return isinstance(value, collections.deque) and all(
            isinstance(e, dict) and all(type(v) in (int, float, bool) for v in e.values()) for e in value
        )

    return {
        "_last_obs": observations,
        "_last_original_obs": observations,
        "_last_episode_starts": lambda v: isinstance(v, np.ndarray) and v.shape == (n,),
        "ep_info_buffer": episodes,
        "ep_success_buffer": episodes,
    }


def _set_attributes(
    ck: Checkpoint, owner: Any, values: Any, what: str, unfilled: dict[str, Callable[[Any], bool]]
) -> None:
    if not isinstance(values, dict):
        raise ck.error(f"{what}: not a table")
    for name, value in values.items():
        if not hasattr(owner, name) or not datatree.is_data(getattr(owner, name)):
            raise ck.error(f"{what}: {shown(name)} is no data attribute of the model")
        current = getattr(owner, name)
        if current is None and value is not None:
            if name not in unfilled or not unfilled[name](value):
                raise ck.error(f"{what}.{name}: not what the model holds there")
        elif current is not None or value is not None:
            _conform(ck, value, current, f"{what}.{name}")
        setattr(owner, name, value)


def _conform(ck: Checkpoint, value: Any, template: Any, what: str) -> None:
    """CheckpointError unless `value` is of `template`'s kind: type, and for arrays shape and dtype."""
    import torch

    if isinstance(template, np.ndarray | np.generic | torch.Tensor):
        same = (
            type(value) is type(template) and value.shape == template.shape and value.dtype == template.dtype
        )
        if not same:
            raise ck.error(
                f"{what}: expected {type(template).__name__} {template.dtype}{list(template.shape)}"
            )
        return
    if isinstance(template, float) and type(value) is int:
        return  # a number SB3 starts as a float and later keeps as an int (`start_time`: 0.0, then ns)
    if type(value) is not type(template):
        raise ck.error(f"{what}: expected {type(template).__name__}, got {type(value).__name__}")
    if isinstance(template, dict):
        if sorted(map(str, value)) != sorted(map(str, template)):
            raise ck.error(f"{what}: expected the keys {shown(sorted(map(str, template)), 120)}")
        for key in template:
            if key in value:
                _conform(ck, value[key], template[key], f"{what}.{key}")


# Random number generators: a run's draws continue where they stopped.


@contextlib.contextmanager
def rng_kept() -> Iterator[None]:
    """Restore torch's, numpy's and Python's global RNG states on exit.

    Building a model reseeds them (`_setup_model` calls `set_random_seed`); loading an
    opponent's snapshot in the middle of a run must not change the learner's random draws.
    """
    import torch

    saved = rng_states()
    try:
        yield
    finally:
        torch.set_rng_state(saved["torch"])
        np.random.set_state(saved["numpy"])
        random.setstate(saved["python"])


def rng_states(model: Any = None) -> dict[str, Any]:
    """The global RNG states (and the model's action space's, which SAC samples at first)."""
    import torch

    out: dict[str, Any] = {
        "torch": torch.get_rng_state(),
        "numpy": np.random.get_state(),
        "python": random.getstate(),
    }
    if torch.cuda.is_available():
        out["cuda"] = torch.cuda.get_rng_state_all()
    if model is not None:
        out["action_space"] = model.action_space.np_random.bit_generator.state
    return out


def set_rng_states(ck: Checkpoint, states: Any, model: Any) -> None:
    """Put back what `rng_states` took; CheckpointError if a state is not one."""
    import torch

    try:
        torch.set_rng_state(states["torch"])
        np.random.set_state(states["numpy"])
        random.setstate(states["python"])
        if "cuda" in states and torch.cuda.is_available():
            torch.cuda.set_rng_state_all(states["cuda"])
        model.action_space.np_random.bit_generator.state = states["action_space"]
    except Exception as error:  # each library checks its own state and raises its own kind
        raise ck.error(f"rng: not a generator state ({shown(str(error), 120)})") from error
