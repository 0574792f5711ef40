"""Array helpers for the kernel's batched hot path, and for making device arrays from host values."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np


def on_device(values: Any, dtype: Any) -> Any:
    """`values` as a device array of `dtype`, converted in numpy and copied as they are.

    A JAX conversion of a host value (`jnp.asarray(x, dtype)`, and `jnp.asarray` of a numpy
    array too) is a small program of its own to compile; made at start-up, dozens of
    them added seconds to an env's first reset.
    """
    return jax.device_put(np.asarray(values, dtype))


def put(x: Any, index: Any, value: Any, axis: int = 0) -> Any:
    """`x` with entry `index` along `axis` replaced by `value`, as a masked select.

    Under `vmap` a traced index turns `x.at[index].set(value)` into a scatter, which XLA
    runs serially on the CPU; a one-hot select vectorises.
    """
    n = x.shape[axis]
    shape = [1] * x.ndim
    shape[axis] = n
    mask = (jnp.arange(n) == index).reshape(shape)
    return jnp.where(mask, jnp.expand_dims(value, axis) if jnp.ndim(value) else value, x)


def dot(a: Any, b: Any) -> Any:
    """Sum of a * b over the last axis, added left to right in plain element-wise ops.

    A `dot` or a `reduce` lets XLA pick the summation order and instructions per compiled
    shape, so the same table could get different last bits alone and inside a batch;
    written out, every shape computes the same sums.
    """
    products = jnp.asarray(a) * jnp.asarray(b)
    total = products[..., 0]
    for k in range(1, products.shape[-1]):
        total = total + products[..., k]
    return total


def norm(a: Any) -> Any:
    """Euclidean length over the last axis, with `dot`'s fixed summation order."""
    return jnp.sqrt(dot(a, a))
