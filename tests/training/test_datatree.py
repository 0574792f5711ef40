"""`training.datatree`: training state round-trips as JSON plus arrays, and nothing in a file is unpickled."""

from __future__ import annotations

import collections
import io
import pickle
from pathlib import Path

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from piramida.physics.files import npz_bytes
from piramida.training import datatree

LEAVES = (
    st.none()
    | st.booleans()
    | st.integers(-(2**80), 2**80)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
    | st.builds(lambda v: np.asarray(v, np.float32), st.lists(st.floats(-1e6, 1e6, width=32), max_size=4))
    | st.builds(np.int64, st.integers(-(2**60), 2**60))
)
TREES = st.recursive(
    LEAVES,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.builds(tuple, st.lists(inner, max_size=3))
        | st.builds(lambda v: collections.deque(v, maxlen=5), st.lists(inner, max_size=5))
        | st.dictionaries(st.text(max_size=6), inner, max_size=4)
        | st.dictionaries(st.integers(0, 9), inner, max_size=3)
    ),
    max_leaves=20,
)


def same(a: object, b: object) -> bool:
    if isinstance(a, np.ndarray | np.generic):
        return type(a) is type(b) and a.dtype == b.dtype and np.array_equal(a, b)  # type: ignore[union-attr]
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple | collections.deque):
        return type(a) is type(b) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


@settings(max_examples=300, deadline=None)
@given(TREES)
def test_any_tree_of_data_comes_back_as_it_went(tree: object) -> None:
    assert datatree.is_data(tree)
    assert same(datatree.unpack(*datatree.pack(tree)), tree)


def test_tensors_and_non_finite_floats_come_back() -> None:
    tree = {"w": torch.arange(6, dtype=torch.float32).reshape(2, 3), "x": float("nan"), 3: (1, "a")}
    back = datatree.unpack(*datatree.pack(tree))
    assert torch.equal(back["w"], tree["w"]) and np.isnan(back["x"]) and back[3] == (1, "a")


class Creates:
    """Unpickled, it creates a file: what a hostile checkpoint would do."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self) -> tuple[object, tuple[str, str]]:
        return (open, (str(self.path), "w"))


def test_a_pickle_anywhere_is_refused_and_never_run(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    text, arrays = datatree.pack({"a": np.zeros(3)})
    hostile = io.BytesIO()
    np.savez(hostile, a0=np.array([Creates(marker)], dtype=object))
    for state, npz in [
        (pickle.dumps(Creates(marker)), arrays),
        (text, hostile.getvalue()),
        (text, pickle.dumps(Creates(marker))),
    ]:
        with pytest.raises(datatree.DataTreeError):
            datatree.unpack(state, npz)
    assert not marker.exists()
    with pytest.raises(TypeError, match="not data"):
        datatree.pack({"model": Creates(marker)})


@pytest.mark.parametrize(
    ("skeleton", "message"),
    [
        ('{"__array__": "a9"}', "names no saved array"),
        ('{"__tuple__": 3}', "not a list"),
        ('{"__array__": "a0", "x": 1}', "with other fields"),
        ('{"__deque__": [], "maxlen": -1}', "maxlen"),
        ('{"__items__": [[[1], 2]]}', "cannot be a key"),
        ('{"__scalar__": "a0"}', "a scalar of shape"),
        ("[" * 100 + "]" * 100, "nested too deeply"),
    ],
)
def test_a_skeleton_that_breaks_the_format_is_named(skeleton: str, message: str) -> None:
    _, arrays = datatree.pack({"a": np.zeros(3)} if '"a0"' in skeleton else {})  # every array named
    with pytest.raises(datatree.DataTreeError, match=message):
        datatree.unpack(skeleton, arrays)


def test_an_array_the_state_does_not_name_is_refused() -> None:
    # A checkpoint could carry an unused array of 1.5 GB, decompressed whole before any check.
    text, _ = datatree.pack({"a": np.zeros(3)})
    with pytest.raises(datatree.DataTreeError, match=r"^arrays: 'a1' is named nowhere in the state$"):
        datatree.unpack(text, npz_bytes({"a0": np.zeros(3), "a1": np.zeros(10)}))
