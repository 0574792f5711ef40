"""Array helpers for the kernel's batched hot path."""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp


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
