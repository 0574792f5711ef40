"""The kernel's batching contract: a table's result does not depend on its batch.

A table simulated alone, inside a batch of 1024 random tables, or in a batch sharded over
two devices gives the same result to the last bit; the event log is in time order, and a
log that runs out of room says so. Each distinct batch size or capacity compiles the
kernel once (~25 s), so the module uses three: B = 1 (capacity 256 and 4) and B = 1024;
the sharded run compiles once more, in a subprocess started while the others compile.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import piramida.physics as ph
from piramida.physics import events as ev

P = ph.PYRAMID_PARAMS
R = float(P.R)
W, L = 1.775, 3.55
TABLE = ph.preset()
MODELS = ph.Models(cushion="han_2005")
CAPACITY = 256
BIG = 1024
PLACE = 517  # where the break sits inside the big batch
SHARDED = 8  # tables in the sharded run


def host(tree: Any) -> Any:
    return jax.tree_util.tree_map(np.asarray, tree)


def one(tree: Any, k: int) -> Any:
    """Table k of a batch, keeping a batch axis of one."""
    return jax.tree_util.tree_map(lambda x: jnp.asarray(x)[k : k + 1], tree)


def put(tree: Any, k: int, item: Any) -> Any:
    """The batch with table k replaced by `item` (a batch of one)."""
    return jax.tree_util.tree_map(
        lambda x, y: jnp.asarray(x).at[k].set(jnp.asarray(y)[0].astype(jnp.asarray(x).dtype)),
        tree,
        item,
    )


def simulate(balls: Any, strikes: Any, capacity: int = CAPACITY) -> Any:
    res = ph.simulate(TABLE, balls, strikes, params=P, models=MODELS, capacity=capacity)
    return host(res)


def break_shot(speed: float = 6.0) -> tuple[ph.BallState, ph.Strike]:
    """A full rack (G8.1) broken from the front spot: many events, a batch of one."""
    layout = np.concatenate([[(W / 2, L / 4)], ph.triangle((W / 2, 3 * L / 4), 5, R)])
    balls = jax.tree_util.tree_map(lambda x: x[None], ph.at_rest(layout))
    strike = ph.Strike(
        ball=jnp.array([0]), speed=jnp.array([speed]), phi=jnp.array([88.0]),
        theta=jnp.array([0.0]), a=jnp.array([0.1]), b=jnp.array([0.2]),
    )  # fmt: skip
    return balls, strike


def stun_shot() -> tuple[ph.BallState, ph.Strike]:
    """One ball stunned up the table: strike, sliding-rolling, centre line, stop (4 events)."""
    balls = jax.tree_util.tree_map(lambda x: x[None], ph.at_rest([(W / 2, 0.5)]))
    strike = ph.Strike(
        ball=jnp.array([0]), speed=jnp.array([0.65]), phi=jnp.array([90.0]),
        theta=jnp.array([0.0]), a=jnp.array([0.0]), b=jnp.array([0.0]),
    )  # fmt: skip
    return balls, strike


def assert_identical(a: Any, b: Any) -> None:
    """Every leaf equal to the last bit (NaN equal to NaN, inf to inf)."""
    leaves_a, tree_a = jax.tree_util.tree_flatten_with_path(a)
    leaves_b = jax.tree_util.tree_leaves(b)
    assert len(leaves_a) == len(leaves_b), tree_a
    for (path, x), y in zip(leaves_a, leaves_b, strict=True):
        x, y = np.asarray(x), np.asarray(y)
        assert x.shape == y.shape, jax.tree_util.keystr(path)
        assert np.array_equal(x, y, equal_nan=x.dtype.kind == "f"), (
            jax.tree_util.keystr(path),
            np.max(np.abs(x.astype(float) - y.astype(float))),
        )


@pytest.fixture(scope="module")
def alone() -> Any:
    """The break simulated on its own (B = 1)."""
    return simulate(*break_shot())


@pytest.fixture(scope="module")
def big(random_shots: Any) -> tuple[Any, Any, Any]:
    """1024 random tables with the break at PLACE: (inputs, strikes, result)."""
    balls, strikes = random_shots(7, BIG, TABLE)
    brk_balls, brk_strike = break_shot()
    balls, strikes = put(balls, PLACE, brk_balls), put(strikes, PLACE, brk_strike)
    strikes = ph.Strike(**{**vars(strikes), "ball": strikes.ball.astype(jnp.int32)})
    return balls, strikes, simulate(balls, strikes)


@pytest.mark.slow
def test_a_table_alone_and_inside_a_batch_of_1024_give_identical_results(
    alone: Any, big: Any
) -> None:
    # vmap must not couple tables: the while loop runs until the slowest of the 1024 tables
    # stops, and a finished table must stay exactly as it finished. Bitwise, not approx:
    # the referee compares event times, and any coupling shows up as a changed bit.
    assert alone.log.count[0] > 20 and not alone.log.overflow[0]
    assert_identical(alone, one(big[2], PLACE))


def test_event_log_is_in_time_order(big: Any) -> None:
    # Events are found earliest first, so the log's times never go back; unused slots
    # stay empty (t = inf, kind none), and no random shot needs more than the capacity.
    res = big[2]
    count = res.log.count
    assert not res.log.overflow.any() and (count <= CAPACITY).all()
    used = np.arange(CAPACITY)[None] < count[:, None]
    t = np.where(used, res.log.t, np.inf)
    assert (np.diff(t, axis=1)[used[:, 1:]] >= 0).all()
    assert np.isinf(res.log.t[~used]).all() and (res.log.kind[~used] == ev.NONE).all()
    assert (res.log.kind[:, 0] == ev.STRIKE).all() and (res.log.t[:, 0] == 0).all()
    # The shot ends with its last event.
    assert np.array_equal(res.duration, res.log.t[np.arange(BIG), count - 1])


def test_full_log_is_flagged_as_overflow(alone: Any) -> None:
    # A break needs far more than 4 log slots: the truncated log must say so, hold exactly
    # its capacity, and be the start of the whole log (never a silently shortened shot).
    res = simulate(*break_shot(), capacity=4)
    assert res.log.overflow[0]
    assert res.log.count[0] == 4
    for field in ("t", "kind", "a", "b"):
        np.testing.assert_array_equal(getattr(res.log, field)[0], getattr(alone.log, field)[0, :4])
    # A shot whose log fits exactly is not flagged.
    whole = simulate(*stun_shot())
    assert whole.log.count[0] == 4 and not whole.log.overflow[0]
    fits = simulate(*stun_shot(), capacity=4)
    assert fits.log.count[0] == 4 and not fits.log.overflow[0]
    assert_identical(fits.final, whole.final)


CHILD = textwrap.dedent(
    """
    import sys
    import jax, jax.numpy as jnp, numpy as np
    import piramida.physics as ph
    assert jax.device_count() == 2, jax.devices()
    data = np.load(sys.argv[1])
    balls = ph.BallState(*(jnp.asarray(data[k]) for k in ("r", "v", "w", "s")))
    strikes = ph.Strike(**{k: jnp.asarray(data["strike_" + k]) for k in
                           ("ball", "speed", "phi", "theta", "a", "b")})
    res = ph.simulate(ph.preset(), balls, strikes, models=ph.Models(cushion="han_2005"),
                      capacity=int(data["capacity"]))
    out = {"devices": len(res.final.r.sharding.device_set)}
    for i, leaf in enumerate(jax.tree_util.tree_leaves(res)):
        out[f"leaf{i}"] = np.asarray(leaf)
    np.savez(sys.argv[2], **out)
    """
)


@pytest.fixture(scope="module")
def sharded_run(random_shots: Any, tmp_path_factory: Any) -> tuple[Any, Any, Any]:
    """Start the two-device run in a subprocess (XLA reads the device count at import).

    Returns the inputs, the running process and where it writes its result.
    """
    folder = tmp_path_factory.mktemp("sharded")
    balls, strikes = random_shots(11, SHARDED, TABLE)
    brk_balls, brk_strike = break_shot()
    balls, strikes = put(balls, 0, brk_balls), put(strikes, 0, brk_strike)
    strikes = ph.Strike(**{**vars(strikes), "ball": strikes.ball.astype(jnp.int32)})
    inputs, outputs = folder / "inputs.npz", folder / "outputs.npz"
    np.savez(
        inputs,
        r=balls.r, v=balls.v, w=balls.w, s=balls.s, capacity=CAPACITY,
        **{f"strike_{k}": v for k, v in vars(strikes).items()},
    )  # fmt: skip
    env = {
        **os.environ,
        "XLA_FLAGS": "--xla_force_host_platform_device_count=2",
        "JAX_PLATFORMS": "cpu",
    }
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(inputs), str(outputs)],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    yield balls, strikes, (child, outputs)
    if child.poll() is None:
        child.kill()
        child.wait()


@pytest.fixture(scope="module", autouse=True)
def start_sharded_run_early(request: Any) -> None:
    # The subprocess compiles for ~25 s: start it before this module's other compiles so
    # the two overlap, but only when the sharding test is going to run.
    if any(item.name == "test_sharded_batch_matches_unsharded" for item in request.session.items):
        request.getfixturevalue("sharded_run")


@pytest.mark.slow
def test_sharded_batch_matches_unsharded(sharded_run: Any) -> None:
    # With two devices (forced CPU devices here, GPUs in production) simulate shards the
    # batch's table axis over a one-axis Mesh; each device runs its half, and every table
    # must come out exactly as it does unsharded (each table simulated on its own here,
    # which the batch-of-1024 test ties to any batch).
    if jax.default_backend() != "cpu":
        pytest.skip("the two-device run is on CPU; bitwise agreement needs the same platform")
    balls, strikes, (child, outputs) = sharded_run
    log, _ = child.communicate(timeout=600)
    assert child.returncode == 0, log
    data = np.load(outputs)
    assert int(data["devices"]) == 2, "the result is not sharded over both devices"
    sharded = [data[f"leaf{i}"] for i in range(len(data.files) - 1)]
    for k in range(SHARDED):
        alone = jax.tree_util.tree_leaves(simulate(one(balls, k), one(strikes, k)))
        assert_identical([x[k : k + 1] for x in sharded], alone)
