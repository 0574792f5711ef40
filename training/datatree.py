"""Nested training state as JSON plus named arrays: a checkpoint holds data, never code.

Pickle runs whatever a file tells it to, so a checkpoint someone hands you could run a
command when loaded. A training state is made of plain values (numbers, strings, lists,
dicts, tuples, deques) and arrays (numpy, torch, JAX), so `pack` writes it as a JSON
skeleton whose arrays are references into an `.npz` file, and `unpack` reads it back
with `allow_pickle=False`: nothing in the file can name a type to build. A node that is
not plain data is a programming error (`TypeError` at save); a file whose skeleton or
arrays do not follow this format is a `DataTreeError` naming the place.
"""

from __future__ import annotations

import collections
import io
import math
from collections.abc import Iterator
from typing import IO, Any

import numpy as np

from piramida.physics import jsontext
from piramida.physics.fields import FieldError, shown
from piramida.physics.files import npz_bytes

# Tags of the nodes JSON has no form for; a dict whose keys are all plain strings stays a dict.
ARRAY, TENSOR, SCALAR, TUPLE, DEQUE, ITEMS = (
    "__array__",
    "__tensor__",
    "__scalar__",
    "__tuple__",
    "__deque__",
    "__items__",
)
TAGS = (ARRAY, TENSOR, SCALAR, TUPLE, DEQUE, ITEMS)


class DataTreeError(ValueError):
    """Saved state that does not follow the format; the message names where."""


def pack(tree: Any) -> tuple[str, bytes]:
    """`tree` as JSON text and the bytes of an `.npz` holding its arrays."""
    arrays: dict[str, np.ndarray] = {}
    skeleton = _pack(tree, arrays, "state")
    return jsontext.dumps(skeleton), npz_bytes(arrays)


def _array_ref(value: np.ndarray, arrays: dict[str, np.ndarray], tag: str) -> dict[str, Any]:
    if value.dtype == object:
        raise TypeError("an object array is not data")
    name = f"a{len(arrays)}"
    arrays[name] = value
    return {tag: name}


def _pack(value: Any, arrays: dict[str, np.ndarray], where: str) -> Any:
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            return {SCALAR: _array_ref(np.asarray(value), arrays, ARRAY)[ARRAY]}
        return value
    if isinstance(value, np.generic):
        return {SCALAR: _array_ref(np.asarray(value), arrays, ARRAY)[ARRAY]}
    if isinstance(value, np.ndarray):
        return _array_ref(value, arrays, ARRAY)
    if type(value).__module__.startswith("torch") and hasattr(value, "detach"):
        return _array_ref(value.detach().cpu().numpy(), arrays, TENSOR)
    if hasattr(value, "__array__") and hasattr(value, "dtype"):  # a JAX array
        return _array_ref(np.asarray(value), arrays, ARRAY)
    if isinstance(value, collections.deque):
        return {
            DEQUE: [_pack(v, arrays, f"{where}[{i}]") for i, v in enumerate(value)],
            "maxlen": value.maxlen,
        }
    if type(value) is tuple:
        return {TUPLE: [_pack(v, arrays, f"{where}[{i}]") for i, v in enumerate(value)]}
    if type(value) is list:
        return [_pack(v, arrays, f"{where}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, dict):
        if all(isinstance(k, str) and k not in TAGS and k != "maxlen" for k in value):
            return {k: _pack(v, arrays, f"{where}.{k}") for k, v in value.items()}
        return {
            ITEMS: [[_pack(k, arrays, where), _pack(v, arrays, f"{where}[{k!r}]")] for k, v in value.items()]
        }
    raise TypeError(f"{where}: {type(value).__name__} is not data a checkpoint can hold")


def unpack(text: str | bytes, npz: bytes | IO[bytes]) -> Any:
    """The tree `pack` wrote; `DataTreeError` for anything that does not follow the format.

    `npz` is the `.npz` file's bytes, or the file itself (a seekable stream, such as a zip
    member). Arrays come back as numpy arrays, tensors as torch tensors (on the CPU).
    An array the state does not name is refused before any array is read: it could only
    cost the memory and time of decompressing it.
    """
    try:
        skeleton = jsontext.loads(text, "")
    except FieldError as error:
        raise DataTreeError(f"state: {error}") from error
    named = set(_array_names(skeleton))
    try:
        with np.load(io.BytesIO(npz) if isinstance(npz, bytes) else npz, allow_pickle=False) as saved:
            unnamed = sorted(set(saved.files) - named)
            if unnamed:
                raise DataTreeError(f"arrays: {shown(unnamed[0])} is named nowhere in the state")
            arrays = {name: saved[name] for name in saved.files}
    except DataTreeError:
        raise
    except Exception as error:  # numpy's reader raises many kinds for a damaged or foreign file
        raise DataTreeError(
            f"arrays: not an array file without pickles ({shown(str(error), 120)})"
        ) from error
    return _unpack(skeleton, arrays, "state")


def _array_names(node: Any) -> Iterator[Any]:
    """The array names a skeleton refers to (its `ARRAY`, `TENSOR` and `SCALAR` nodes' bodies)."""
    if isinstance(node, list):
        for item in node:
            yield from _array_names(item)
    elif isinstance(node, dict):
        for tag in (ARRAY, TENSOR, SCALAR):
            if isinstance(node.get(tag), str):
                yield node[tag]
        for value in node.values():
            yield from _array_names(value)


def _named_array(name: Any, arrays: dict[str, np.ndarray], where: str) -> np.ndarray:
    if not isinstance(name, str) or name not in arrays:
        raise DataTreeError(f"{where}: names no saved array ({shown(name)})")
    return arrays[name]


def _unpack(node: Any, arrays: dict[str, np.ndarray], where: str) -> Any:
    if node is None or isinstance(node, bool | int | float | str):
        return node
    if isinstance(node, list):
        return [_unpack(v, arrays, f"{where}[{i}]") for i, v in enumerate(node)]
    if not isinstance(node, dict):  # pragma: no cover (JSON has no other kinds)
        raise DataTreeError(f"{where}: not a saved value")
    tags = [tag for tag in TAGS if tag in node]
    if not tags:
        return {k: _unpack(v, arrays, f"{where}.{k}") for k, v in node.items()}
    tag = tags[0]
    if set(node) - {tag, "maxlen"} or (tag != DEQUE and "maxlen" in node) or len(tags) > 1:
        raise DataTreeError(f"{where}: a {tag} node with other fields ({shown(sorted(node))})")
    body = node[tag]
    if tag == ARRAY:
        return _named_array(body, arrays, where)
    if tag == SCALAR:
        array = _named_array(body, arrays, where)
        if array.shape != ():
            raise DataTreeError(f"{where}: a scalar of shape {array.shape}")
        return array[()]
    if tag == TENSOR:
        import torch

        return torch.from_numpy(np.array(_named_array(body, arrays, where)))
    if not isinstance(body, list):
        raise DataTreeError(f"{where}: {tag} holds {type(body).__name__}, not a list")
    items = [_unpack(v, arrays, f"{where}[{i}]") for i, v in enumerate(body)]
    if tag == TUPLE:
        return tuple(items)
    if tag == DEQUE:
        maxlen = node.get("maxlen")
        if maxlen is not None and (isinstance(maxlen, bool) or not isinstance(maxlen, int) or maxlen < 0):
            raise DataTreeError(f"{where}.maxlen: expected a count, got {shown(maxlen)}")
        return collections.deque(items, maxlen=maxlen)
    if not all(isinstance(pair, list) and len(pair) == 2 for pair in items):
        raise DataTreeError(f"{where}: {ITEMS} must hold [key, value] pairs")
    try:
        return {_hashable(k): v for k, v in items}
    except TypeError as error:
        raise DataTreeError(f"{where}: a key that cannot be a key ({error})") from error


def _hashable(key: Any) -> Any:
    """Dict keys come back as they went (ints, strings, tuples); arrays are not keys."""
    if isinstance(key, np.ndarray):
        raise TypeError("an array")
    return key


def is_data(value: Any) -> bool:
    """Whether `pack` can hold `value` (plain values, arrays, and containers of them); no copies made."""
    if value is None or isinstance(value, bool | int | float | str | np.generic):
        return True
    if isinstance(value, np.ndarray):
        return value.dtype != object
    if type(value).__module__.startswith("torch"):
        return hasattr(value, "detach")  # a tensor (not a device, a module or an optimizer)
    if isinstance(value, dict):
        return all(is_data(k) and is_data(v) for k, v in value.items())
    if isinstance(value, list | tuple | collections.deque):
        return type(value) in (list, tuple, collections.deque) and all(is_data(v) for v in value)
    return False
