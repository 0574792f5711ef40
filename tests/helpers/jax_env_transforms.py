"""The pure-JAX env's step under `shard_map` (two forced CPU devices) and `vmap`, against plain calls.

Run in a fresh process (XLA reads the device count when JAX starts); prints one JSON line:
whether each transformed call gave the bits of the same tables stepped one group at a time.
"""

from __future__ import annotations

import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=2"

import json
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, PartitionSpec

import piramida.physics as ph
from piramida.envs import make_jax

try:
    from jax import shard_map  # type: ignore[attr-defined]
except ImportError:  # jax before shard_map left `experimental`
    from jax.experimental.shard_map import shard_map

LOCAL = 2  # tables per device (per vmapped group)


def same(a: Any, b: Any) -> bool:
    """Bitwise equality of two pytrees of arrays."""
    return all(
        np.array_equal(np.asarray(x), np.asarray(y))
        for x, y in zip(jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b), strict=True)
    )


def main() -> None:
    """Step 2 x LOCAL tables both ways; print whether the bits agree."""
    ph.runtime.use_float64()
    env, params = make_jax("free", num_envs=LOCAL, opponent="random")
    assert jax.device_count() == 2, jax.devices()
    mesh = Mesh(np.asarray(jax.devices()), ("tables",))
    tables = PartitionSpec("tables")

    def device_key(key: Any) -> Any:
        return jax.random.fold_in(key, jax.lax.axis_index("tables"))  # each device its own draws

    # The frames come from plain resets (a reset under either transform would be another
    # program as large as a step, compiled for no more than the step shows).
    key, action_key = jax.random.PRNGKey(0), jax.random.PRNGKey(1)
    actions = jax.random.uniform(action_key, (2 * LOCAL, 11), minval=-1, maxval=1)
    plain_reset, plain_step = jax.jit(env.reset), jax.jit(env.step)

    def groups_stepped(keys: list[Any]) -> tuple[list[Any], list[Any]]:
        """Each group's frames (reset from its key) and those frames stepped with its actions."""
        frames = [plain_reset(k, params)[1] for k in keys]
        rows = [actions[g * LOCAL : (g + 1) * LOCAL] for g in range(2)]
        return frames, [plain_step(k, f, r, params) for k, f, r in zip(keys, frames, rows, strict=True)]

    # check_vma=False: the env's `cond`s return arrays the type checker would call replicated.
    step = jax.jit(
        shard_map(
            lambda key, state, action: env.step(device_key(key), state, action, params),
            mesh=mesh,
            in_specs=(PartitionSpec(), tables, tables),
            out_specs=tables,
            check_vma=False,
        )
    )
    frames, groups = groups_stepped([jax.random.fold_in(key, device) for device in range(2)])
    sharded = step(key, jax.tree_util.tree_map(lambda *parts: jnp.concatenate(parts), *frames), actions)
    joined = jax.tree_util.tree_map(lambda *parts: np.concatenate(parts), *groups)

    keys = jax.random.split(key, 2)
    frames, one_by_one = groups_stepped(list(keys))
    vmapped = jax.jit(jax.vmap(lambda k, s, a: env.step(k, s, a, params)))(
        keys, jax.tree_util.tree_map(lambda *parts: jnp.stack(parts), *frames), actions.reshape(2, LOCAL, 11)
    )
    stacked = jax.tree_util.tree_map(lambda *parts: np.stack(parts), *one_by_one)

    print(
        json.dumps(
            {
                "sharded_shape": list(sharded[0].shape),
                "shard_map_same": same(sharded, joined),
                "vmap_shape": list(vmapped[0].shape),
                "vmap_same": same(vmapped, stacked),
            }
        )
    )


if __name__ == "__main__":
    main()
