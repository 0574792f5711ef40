"""Checkpoints: a stable-baselines3 `.zip` with piramida's metadata and resume state inside.

A checkpoint is the zip that `model.save` writes (so `PPO.load` and friends, and
`piramida eval`, read it as they read any SB3 model) with three more members, which SB3's
loader ignores:

- `piramida/meta.json`: format, version, algorithm, variant, action mode, observation,
  noise, shot limit, steps, the run's config, library versions;
- `piramida/resume.pkl`: what the model's part lacks to continue exactly: torch, numpy and
  Python RNG states, the action space's RNG, the environments' game states and JAX keys,
  the metrics' windows, the league's snapshot pool;
- `piramida/replay_buffer.pkl` (SAC only): the replay buffer (SB3's pickle).

A `--algo jax-ppo` checkpoint has the same metadata but no SB3 model: its training state
is `piramida/jax_ppo.npz` (`training.jax_ppo`).

The model part holds the weights, the optimizer state, the step counters and the last
observations. Files are written to a temporary file in the same folder and moved into
place with `os.replace`, so a reader sees the old checkpoint or the new one, never half.
Reading a file that is not a piramida checkpoint raises `CheckpointError` naming the file
and what is wrong.
"""

from __future__ import annotations

import contextlib
import io
import json
import pickle
import random
import zipfile
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from piramida.physics.files import write_atomic
from piramida.physics.runtime import library_versions

FORMAT = "piramida-checkpoint"
VERSION = 1
META = "piramida/meta.json"
RESUME = "piramida/resume.pkl"
BUFFER = "piramida/replay_buffer.pkl"


class CheckpointError(ValueError):
    """A file that cannot be used as a checkpoint; the message names it and says why."""


def versions() -> dict[str, str]:
    """The versions of Python and of the libraries a checkpoint depends on."""
    return library_versions(
        ("piramida", "jax", "jaxlib", "numpy", "optax", "torch", "stable-baselines3", "sb3-contrib")
    )


def algorithm_class(algo: str) -> Any:
    """The stable-baselines3 (or sb3-contrib) class of `algo`."""
    if algo == "ppo":
        from stable_baselines3 import PPO

        return PPO
    if algo == "sac":
        from stable_baselines3 import SAC

        return SAC
    if algo == "maskable-ppo":
        from sb3_contrib import MaskablePPO

        return MaskablePPO
    raise ValueError(f"algo: unknown algorithm {algo!r}")


@contextlib.contextmanager
def rng_kept() -> Iterator[None]:
    """Restore torch's, numpy's and Python's global RNG states on exit.

    `Algorithm.load` reseeds them (`_setup_model` calls `set_random_seed`); loading an
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


def set_rng_states(states: dict[str, Any], model: Any) -> None:
    """Put back what `rng_states` took."""
    import torch

    torch.set_rng_state(states["torch"])
    np.random.set_state(states["numpy"])
    random.setstate(states["python"])
    if "cuda" in states and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(states["cuda"])
    model.action_space.np_random.bit_generator.state = states["action_space"]


def save(path: Path, model: Any, meta: dict[str, Any], resume: dict[str, Any]) -> None:
    """Write a checkpoint atomically: the model's zip plus metadata, resume state, SAC's buffer."""
    blob = io.BytesIO()
    model.save(blob)
    with zipfile.ZipFile(blob, "a", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(META, json.dumps(meta, indent=2))
        archive.writestr(RESUME, pickle.dumps(resume))
        if getattr(model, "replay_buffer", None) is not None:
            buffer = io.BytesIO()
            model.save_replay_buffer(buffer)
            archive.writestr(BUFFER, buffer.getvalue())
    write_atomic(path, blob.getvalue())


def new_meta(config: Any, steps: int, final: bool) -> dict[str, Any]:
    """The metadata of a checkpoint of `config` after `steps` learner moves."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "algo": config.algo,
        "variant": config.variant,
        "action_mode": config.action_mode,
        "observation": "flat",
        "noise": config.noise,
        "shot_limit": config.shot_limit,
        "steps": steps,
        "final": final,
        "config": config.to_json(),
        "versions": versions(),
        "written": datetime.now(UTC).isoformat(timespec="seconds"),
    }


def _open(path: Path) -> zipfile.ZipFile:
    if not path.is_file():
        raise CheckpointError(f"{path}: no such file")
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as error:
        raise CheckpointError(f"{path}: not a piramida checkpoint (not a zip file: {error})") from error
    return archive


def read_meta(path: str | Path, required: bool = True) -> dict[str, Any] | None:
    """A checkpoint's metadata; None for an SB3 zip without it when not `required`.

    CheckpointError names the file and says what is wrong: not a zip, corrupt, no
    metadata (a plain SB3 model, with `required`), metadata of another format or version.
    """
    path = Path(path)
    with _open(path) as archive:
        names = archive.namelist()
        if META not in names:
            if not required:
                return None
            kind = "a stable-baselines3 model without piramida metadata" if "data" in names else "a zip file"
            raise CheckpointError(f"{path}: not a piramida checkpoint ({kind}; no {META})")
        try:
            meta = json.loads(archive.read(META))
        except (zipfile.BadZipFile, ValueError, OSError) as error:
            raise CheckpointError(f"{path}: corrupt checkpoint ({META}: {error})") from error
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise CheckpointError(f"{path}: not a piramida checkpoint ({META} has no format {FORMAT!r})")
    if meta.get("version") != VERSION:
        raise CheckpointError(
            f"{path}: checkpoint format version {meta.get('version')!r}; "
            f"this piramida reads version {VERSION}"
        )
    return meta


def check_fits(path: Path, meta: dict[str, Any], config: Any, identity: tuple[str, ...]) -> None:
    """CheckpointError unless the checkpoint was trained by a run like `config` (the `identity` fields)."""
    saved = meta["config"]
    wrong = [
        f"{name.replace('_', '-')} {saved.get(name)!r} (this run: {value!r})"
        for name in identity
        if (value := config.to_json()[name]) != saved.get(name)
    ]
    if wrong:
        raise CheckpointError(f"{path}: checkpoint of another run: it has {'; '.join(wrong)}")


def load(path: Path, env: Any, device: str) -> tuple[Any, dict[str, Any]]:
    """The model of a checkpoint, on `env`, ready to continue; and its resume state.

    The checkpoint is read whole and checked first (CRCs), so a truncated or damaged
    file is reported as corrupt rather than failing half-way through SB3's loader.
    """
    meta = read_meta(path)
    assert meta is not None
    with _open(path) as archive:
        bad = _first_bad(archive)
        if bad is not None:
            raise CheckpointError(f"{path}: corrupt checkpoint (member {bad} fails its CRC check)")
        names = archive.namelist()
        if RESUME not in names:
            raise CheckpointError(f"{path}: checkpoint without resume state (no {RESUME})")
        resume = pickle.loads(archive.read(RESUME))
        buffer = archive.read(BUFFER) if BUFFER in names else None
        blob = io.BytesIO(path.read_bytes())
    try:
        model = algorithm_class(meta["algo"]).load(blob, env=env, device=device, force_reset=False)
    except Exception as error:
        raise CheckpointError(f"{path}: corrupt checkpoint (the model does not load: {error})") from error
    if buffer is not None:
        model.load_replay_buffer(io.BytesIO(buffer))
    return model, resume


def read_members(path: Path, names: tuple[str, ...]) -> dict[str, bytes]:
    """The members `names` of a checkpoint, after checking every member's CRC; CheckpointError if not."""
    with _open(path) as archive:
        bad = _first_bad(archive)
        if bad is not None:
            raise CheckpointError(f"{path}: corrupt checkpoint (member {bad} fails its CRC check)")
        missing = [name for name in names if name not in archive.namelist()]
        if missing:
            raise CheckpointError(f"{path}: checkpoint without {', '.join(missing)}")
        return {name: archive.read(name) for name in names}


def _first_bad(archive: zipfile.ZipFile) -> str | None:
    try:
        return archive.testzip()
    except (zipfile.BadZipFile, OSError, EOFError) as error:
        return f"? ({error})"


def policy_function(path: str | Path) -> tuple[Callable[[Any], Any], dict[str, Any] | None]:
    """A saved policy as observations -> actions (deterministic), and its metadata if it has some.

    A piramida checkpoint is loaded with its own algorithm's class (a jax-ppo one as
    `jax_ppo.SavedPolicy`, which also takes the legal slots); a plain SB3 zip is tried as
    PPO, SAC and MaskablePPO in turn. Global RNG states are kept (`rng_kept`).
    """
    meta = read_meta(path, required=False)
    if meta is not None and meta["algo"] == "jax-ppo":  # no SB3 model inside: its own arrays
        from piramida.training import jax_ppo

        return jax_ppo.load_policy(Path(path), meta), meta
    algos = [meta["algo"]] if meta else ["ppo", "sac", "maskable-ppo"]
    errors = []
    for algo in algos:
        try:
            with rng_kept():
                model = algorithm_class(algo).load(str(path), device="cpu")
        except Exception as error:  # try the next algorithm; report all if none loads
            errors.append(f"{algo}: {error}")
            continue
        return deterministic(model, algo), meta
    raise CheckpointError(f"{path}: not a loadable policy ({'; '.join(errors)})")


def deterministic(model: Any, algo: str) -> Callable[..., Any]:
    """The `algo` model's deterministic actions for a batch of observations (and masks, for MaskablePPO)."""
    from piramida.training.torch_policy import TorchPolicy

    return TorchPolicy(model, masked=algo == "maskable-ppo")
