"""The network that scores shot-menu slots, and its parameters as data (arrays and JSON).

One encoder is shared by every slot, so the network learns what makes a shot good once,
not once per slot position: the balls go through a shared encoder and are pooled (mean and
max over the balls on the table) into the table's context with the phase, variant, scores
and noise; each slot's features (`agents.slots`) are encoded with that context; a linear
head gives the slot's logit (a softmax over the legal slots is the policy) and its value
(the search's stage-1 value of the slot), and the pooled slots give the position's value.

Parameters are saved as an `.npz` of named float32 arrays plus a JSON file of metadata
(the width, the feature sizes, how the policy was made): loading never unpickles, and
each array is checked against a freshly built network's shapes.
"""

from __future__ import annotations

from dataclasses import astuple
from pathlib import Path
from typing import Any, cast

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
from flax import traverse_util

from piramida.agents.menu import Menu
from piramida.agents.slots import BALL_SIZE, CONTEXT_SIZE, SLOT_SIZE, SlotView
from piramida.physics import jsontext
from piramida.physics.files import npz_bytes, write_atomic
from piramida.rules import ids

FORMAT = 1
NEG = -1e9  # the logit of an illegal slot


class PolicyFileError(ValueError):
    """A policy file that cannot be loaded; the message names the file and what is wrong."""


class SlotScorer(nn.Module):
    """Slots -> (logits (..., M), slot values (..., M), position value (...)); module docstring."""

    width: int = 128

    @nn.compact
    def __call__(self, view: SlotView) -> tuple[Any, Any, Any]:
        """Score the slots of a batch of views (leading axes broadcast)."""
        on = view.balls[..., :1]
        balls = nn.relu(nn.Dense(self.width, name="ball_in")(view.balls))
        balls = nn.relu(nn.Dense(self.width, name="ball_hidden")(balls))
        count = jnp.maximum(jnp.sum(on, axis=-2), 1.0)
        pooled = jnp.concatenate(
            [jnp.sum(balls * on, axis=-2) / count, jnp.max(jnp.where(on > 0, balls, 0.0), axis=-2)], axis=-1
        )
        context = nn.relu(nn.Dense(self.width, name="context")(jnp.concatenate([pooled, view.context], -1)))
        slots = nn.relu(nn.Dense(self.width, name="slot_in")(view.slots))
        context_per_slot = jnp.broadcast_to(context[..., None, :], slots.shape)
        slots = nn.relu(
            nn.Dense(self.width, name="slot_context")(jnp.concatenate([slots, context_per_slot], -1))
        )
        slots = nn.relu(nn.Dense(self.width, name="slot_hidden")(slots))
        logits = jnp.where(view.legal, nn.Dense(1, name="logit")(slots)[..., 0], NEG)
        slot_values = nn.Dense(1, name="slot_value")(slots)[..., 0]
        best = jnp.max(jnp.where(view.legal[..., None], slots, 0.0), axis=-2)
        value = nn.Dense(1, name="value_out")(
            nn.relu(nn.Dense(self.width, name="value_hidden")(jnp.concatenate([context, best], -1)))
        )[..., 0]
        return logits, slot_values, value


def score(params: Any, width: int, view: SlotView) -> tuple[Any, Any, Any]:
    """`SlotScorer(width)` with `params` on `view`: (logits, slot values, position value)."""
    return cast(tuple[Any, Any, Any], SlotScorer(width).apply({"params": params}, view))


def dummy_view(slots: int) -> SlotView:
    """A one-table view of zeros with `slots` slots (to build a network's parameters)."""
    return SlotView(
        slots=jnp.zeros((1, slots, SLOT_SIZE), jnp.float32),
        balls=jnp.zeros((1, ids.N_BALLS, BALL_SIZE), jnp.float32),
        context=jnp.zeros((1, CONTEXT_SIZE), jnp.float32),
        legal=jnp.ones((1, slots), bool),
    )


def init_params(width: int, slots: int, key: Any) -> Any:
    """Fresh parameters of a `SlotScorer(width)`."""
    return SlotScorer(width).init(key, dummy_view(slots))["params"]


def save(path: Path, params: Any, meta: dict[str, Any]) -> None:
    """Write `path` (.npz arrays) and its `.json` metadata beside it, each atomically."""
    flat = {"/".join(k): np.asarray(v, np.float32) for k, v in traverse_util.flatten_dict(params).items()}
    write_atomic(path, npz_bytes(flat))
    info = {"format": FORMAT, "slot_features": SLOT_SIZE, "ball_features": BALL_SIZE, **meta}
    write_atomic(path.with_suffix(".json"), jsontext.dumps(info, indent=2) + "\n")


def load(path: Path) -> tuple[Any, dict[str, Any]]:
    """(params, metadata) of a saved policy; PolicyFileError names a file that is not one."""
    meta_path = path.with_suffix(".json")
    try:
        meta = jsontext.loads(meta_path.read_bytes())
    except (OSError, ValueError) as error:
        raise PolicyFileError(f"{meta_path}: cannot read the policy's metadata ({error})") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise PolicyFileError(f"{meta_path}: not a piramida policy of format {FORMAT}")
    if meta.get("slot_features") != SLOT_SIZE or meta.get("ball_features") != BALL_SIZE:
        raise PolicyFileError(f"{meta_path}: made for other features than this version's")
    width, slots, menu = meta.get("width"), meta.get("slots"), meta.get("menu")
    if not (isinstance(width, int) and 0 < width <= 4096 and isinstance(slots, int) and 0 < slots <= 1024):
        raise PolicyFileError(f"{meta_path}: 'width' and 'slots' must be small positive integers")
    fields = len(astuple(Menu()))
    if not (
        isinstance(menu, list)
        and len(menu) == fields
        and all(isinstance(x, int) and 0 <= x <= 64 for x in menu)
    ):
        raise PolicyFileError(
            f"{meta_path}: 'menu' must be {fields} small integers (agents.menu.Menu's fields)"
        )
    if Menu(*menu).size != slots:
        raise PolicyFileError(f"{meta_path}: its menu has {Menu(*menu).size} slots, not {slots}")
    expected = traverse_util.flatten_dict(
        jax.eval_shape(lambda: init_params(width, slots, jax.random.PRNGKey(0)))
    )
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {name: data[name] for name in data.files}
    except (OSError, ValueError) as error:
        raise PolicyFileError(f"{path}: cannot read the policy's arrays ({error})") from None
    flat = {}
    for key, shape in expected.items():
        name = "/".join(key)
        if name not in arrays or arrays[name].shape != shape.shape or arrays[name].dtype != np.float32:
            raise PolicyFileError(f"{path}: array {name!r} missing or not float32 {shape.shape}")
        if not np.all(np.isfinite(arrays[name])):
            raise PolicyFileError(f"{path}: array {name!r} holds NaN or infinity")
        flat[key] = jnp.asarray(arrays[name])
    return traverse_util.unflatten_dict(flat), meta
