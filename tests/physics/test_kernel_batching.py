"""The kernel's batching contract: a table's result does not depend on its batch.

A table simulated alone, inside a batch of 1024 random tables, or in a batch sharded over
two devices gives the same result to the last bit; the event log is in time order, and a
log that runs out of room says so. The module uses B = 1 and B = 1024, both with a log of
64 events (a break overflows it, which the overflow test needs and which still leaves 64
events to compare bit for bit); the sharded run and its unsharded twin run in two
subprocesses started first (XLA reads the device count when jax is imported).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import piramida.physics as ph
from piramida.physics import events as ev

# Its module-scoped fixtures are costly: one worker runs the whole module (`--dist loadgroup`).
pytestmark = pytest.mark.xdist_group("test_kernel_batching")

P = ph.PYRAMID_PARAMS
R = float(P.R)
W, L = 1.775, 3.55
TABLE = ph.preset()
MODELS = ph.Models()  # the defaults: frictional_inelastic, stronge_compliant
CAPACITY = 64  # a break needs about 180 events: it overflows
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


def simulate(balls: Any, strikes: Any) -> Any:
    res = ph.simulate(TABLE, balls, strikes, params=P, models=MODELS, capacity=CAPACITY)
    return host(res)


def break_shot(speed: float = 6.0) -> tuple[ph.BallState, ph.Strike]:
    """A full rack (G8.1) broken from the front spot: more events than CAPACITY, B = 1."""
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
        differ = (x != y) & ~(np.isnan(x) & np.isnan(y) if x.dtype.kind == "f" else False)
        with np.errstate(invalid="ignore"):
            size = np.nanmax(np.abs(x.astype(float) - y.astype(float))[differ], initial=0.0)
        assert not differ.any(), (
            f"{jax.tree_util.keystr(path)} differs at {np.argwhere(differ)[:3].tolist()} "
            f"(first indices), by up to {size:.3g}"
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
    return balls, strikes, simulate(balls, strikes)


@pytest.mark.slow
def test_a_table_alone_and_inside_a_batch_of_1024_give_identical_results(alone: Any, big: Any) -> None:
    # Tables must not couple: each is one thread of the kernel, which runs until its own
    # table stops, whatever the others do, and the same code computes it in a batch of
    # any size. Bitwise, not approx:
    # the referee compares event times, and any coupling shows up as a changed bit. The
    # break fills its 64-event log, so the 64 events up to there are compared.
    inside = one(big[2], PLACE)
    for field in ("t", "kind", "a", "b", "touch_a", "touch_b"):
        mine, theirs = getattr(alone.log, field)[0], getattr(inside.log, field)[0]
        differ = np.flatnonzero(mine != theirs)
        assert not differ.size, (
            f"log.{field} first differs at event {differ[0]}: {mine[differ[0]].item()!r} alone, "
            f"{theirs[differ[0]].item()!r} in the batch; {ph.to_records(alone.log, 0)[differ[0]]}"
        )
    assert_identical(alone, inside)


@pytest.mark.slow
def test_event_log_is_in_time_order(big: Any) -> None:
    # Events are found earliest first, so the log's times never go back; unused slots
    # stay empty (t = inf, kind none); the first entry is the strike at t = 0; a log that
    # overflowed is full.
    res = big[2]
    count = res.log.count
    used = np.arange(CAPACITY)[None] < count[:, None]
    t = np.where(used, res.log.t, 0.0)
    assert (np.diff(t, axis=1)[used[:, 1:]] >= 0).all()
    assert np.isinf(res.log.t[~used]).all() and (res.log.kind[~used] == ev.NONE).all()
    assert (res.log.kind[:, 0] == ev.STRIKE).all() and (res.log.t[:, 0] == 0).all()
    assert (count[res.log.overflow] == CAPACITY).all() and res.log.overflow[PLACE]
    # A shot that ended in time ends with its last event.
    ended = ~res.log.overflow
    last = res.log.t[np.arange(BIG), count - 1]
    assert np.array_equal(res.duration[ended], last[ended])


def test_full_log_is_flagged_as_overflow(alone: Any) -> None:
    # A break needs far more than 64 log slots: the truncated log must say so and hold
    # exactly its capacity (never a silently shortened shot).
    assert alone.log.overflow[0] and alone.log.count[0] == CAPACITY
    # A shot that fits is not flagged, and its log ends with the last ball stopping.
    fits = simulate(*stun_shot())
    assert not fits.log.overflow[0] and fits.log.count[0] == 4
    assert fits.log.kind[0, 3] == ev.ROLLING_STATIONARY


def test_a_log_without_transitions_holds_the_same_contacts_in_the_same_order(alone: Any) -> None:
    # The game leaves the motion transitions out (the referee reads none): the break's log
    # is then the full log with its transitions taken out, slot for slot. The full log
    # overflows its 64 slots; the lean one holds the whole break.
    balls, strike = break_shot()
    lean = host(ph.simulate(TABLE, balls, strike, P, MODELS, capacity=CAPACITY, transitions=False))
    full = np.flatnonzero(~np.isin(alone.log.kind[0], ev.TRANSITIONS))
    assert alone.log.overflow[0] and not lean.log.overflow[0] and lean.log.count[0] > len(full)
    for column in ("t", "kind", "a", "b", "touch_a", "touch_b"):
        assert np.array_equal(getattr(lean.log, column)[0, : len(full)], getattr(alone.log, column)[0, full])
    with pytest.raises(ValueError, match="record=True needs transitions=True"):
        ph.simulate(TABLE, *stun_shot(), record=True, transitions=False)


def test_a_push_through_an_unbroken_rack_fits_the_games_log() -> None:
    # Greedy's safety (a 3 m/s full hit) into a fresh rack: the cue ball pushes a row of
    # rack balls that it keeps catching up (about 2,000 slots with the transitions). The
    # game's log (`rules.game.CAPACITY`, transitions left out) holds it, so the referee
    # does not refuse the shot as it did with 256 slots.
    from piramida.physics.layouts import break_positions
    from piramida.rules.game import CAPACITY as GAME_CAPACITY

    layout = break_positions(W, L, R)
    layout[0] = (0.20407993, 1.47050407)
    aim = layout[1 + np.argmin(np.linalg.norm(layout[1:] - layout[0], axis=1))] - layout[0]
    balls = jax.tree_util.tree_map(lambda x: x[None], ph.at_rest(layout))
    strike = ph.Strike(
        ball=jnp.array([0]), speed=jnp.array([3.0]), phi=jnp.array([np.degrees(np.arctan2(aim[1], aim[0]))]),
        theta=jnp.array([0.0]), a=jnp.array([0.0]), b=jnp.array([0.0]),
    )  # fmt: skip
    res = host(ph.simulate(TABLE, balls, strike, params=P, capacity=GAME_CAPACITY, transitions=False))
    assert not res.log.overflow[0] and 256 < res.log.count[0] < GAME_CAPACITY


CHILD = textwrap.dedent(
    """
    import sys
    import jax, jax.numpy as jnp, numpy as np
    import piramida.physics as ph
    ph.runtime.use_float64()
    devices, inputs, outputs = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    assert jax.device_count() == devices, jax.devices()
    data = np.load(inputs)
    balls = ph.BallState(*(jnp.asarray(data[k]) for k in ("r", "v", "w", "s")))
    strikes = ph.Strike(**{k: jnp.asarray(data["strike_" + k]) for k in
                           ("ball", "speed", "phi", "theta", "a", "b")})
    res = ph.simulate(ph.preset(), balls, strikes, capacity=int(data["capacity"]))
    out = {"devices": len(res.final.r.sharding.device_set)}
    for path, leaf in jax.tree_util.tree_flatten_with_path(res)[0]:
        out[jax.tree_util.keystr(path)] = np.asarray(leaf)
    np.savez(outputs, **out)
    """
)


@pytest.fixture(scope="module")
def sharded_runs(random_shots: Any, tmp_path_factory: Any) -> Iterator[dict[int, Any]]:
    """The same batch of 8 run on one and on two CPU devices, each in a subprocess (XLA reads
    the device count when jax is imported). Yields {devices: (process, outputs, log)}."""
    folder = tmp_path_factory.mktemp("sharded")
    balls, strikes = random_shots(11, SHARDED, TABLE)
    brk_balls, brk_strike = break_shot()
    balls, strikes = put(balls, 0, brk_balls), put(strikes, 0, brk_strike)
    inputs = folder / "inputs.npz"
    np.savez(
        inputs,
        r=balls.r, v=balls.v, w=balls.w, s=balls.s, capacity=CAPACITY,
        **{f"strike_{k}": v for k, v in vars(strikes).items()},
    )  # fmt: skip
    runs = {}
    for devices in (1, 2):
        env = {
            **os.environ,
            "XLA_FLAGS": f"--xla_force_host_platform_device_count={devices}",
            "JAX_PLATFORMS": "cpu",
        }
        outputs, log = folder / f"outputs{devices}.npz", folder / f"log{devices}.txt"
        with log.open("w") as sink:
            child = subprocess.Popen(
                [sys.executable, "-c", CHILD, str(devices), str(inputs), str(outputs)],
                env=env, stdout=sink, stderr=subprocess.STDOUT,
            )  # fmt: skip
        runs[devices] = (child, outputs, log)
    yield runs
    for child, _, _ in runs.values():
        if child.poll() is None:
            child.kill()
            child.wait()


@pytest.fixture(scope="module", autouse=True)
def start_sharded_runs_early(request: Any) -> None:
    # Each subprocess imports JAX and runs its batch: start them before this module's other work so
    # that they overlap, but only when the sharding test is going to run here (under
    # pytest-xdist every worker sees every test, so there the test starts them itself).
    test = "test_sharded_batch_matches_unsharded"
    here = "PYTEST_XDIST_WORKER" not in os.environ
    if here and any(item.name == test for item in request.session.items):
        request.getfixturevalue("sharded_runs")


@pytest.mark.slow
def test_sharded_batch_matches_unsharded(sharded_runs: Any) -> None:
    # With two devices (forced CPU devices here, GPUs in production) simulate splits the
    # batch's table axis over a one-axis Mesh and each device runs its own event loop on
    # its half: every table must come out as in the same batch run on one device, to the
    # last bit (a table is one thread's computation, the same code on either device), and
    # the result must stay spread over both devices.
    results = {}
    for devices, (child, outputs, log) in sharded_runs.items():
        child.wait(timeout=600)
        assert child.returncode == 0, log.read_text()
        results[devices] = np.load(outputs)
    assert int(results[1]["devices"]) == 1
    assert int(results[2]["devices"]) == 2, "the result is not sharded over both devices"
    leaves = [name for name in results[1].files if name != "devices"]
    for name in leaves:
        np.testing.assert_array_equal(results[2][name], results[1][name], err_msg=name)


def test_simulate_under_vmap_and_scan(random_shots: Any) -> None:
    # The kernel is called from JAX: a vmap over tables (merged into one launch), a vmap
    # over a constant (a launch per value) and a lax.scan must each give the plain call's
    # results, bit for bit.
    balls, strikes = random_shots(29, 6, TABLE)
    plain = host(ph.simulate(TABLE, balls, strikes, P, MODELS, capacity=CAPACITY))
    halves = jax.tree_util.tree_map(
        lambda x: jnp.asarray(x).reshape(2, 3, *jnp.shape(x)[1:]), (balls, strikes)
    )
    split = host(
        jax.vmap(lambda b, s: ph.simulate(TABLE, b, s, P, MODELS, capacity=CAPACITY, validate=False))(*halves)
    )
    for mine, theirs in zip(jax.tree_util.tree_leaves(split), jax.tree_util.tree_leaves(plain), strict=True):
        np.testing.assert_array_equal(mine.reshape(theirs.shape), theirs)
    rolling = jnp.array([float(P.u_r), 2 * float(P.u_r)])
    per_value = host(
        jax.vmap(
            lambda u: ph.simulate(TABLE, balls, strikes, P.replace(u_r=u), MODELS, CAPACITY, validate=False)
        )(rolling)
    )
    np.testing.assert_array_equal(per_value.log.t[0], plain.log.t)
    assert np.all(per_value.duration[1] < per_value.duration[0])  # more rolling resistance stops sooner

    def step(total: Any, _: Any) -> tuple[Any, None]:
        result = ph.simulate(TABLE, balls, strikes, P, MODELS, capacity=CAPACITY, validate=False)
        return total + result.log.count, None

    counts, _ = jax.jit(lambda: jax.lax.scan(step, jnp.zeros(6, jnp.int32), None, length=3))()
    np.testing.assert_array_equal(np.asarray(counts), 3 * plain.log.count)


def test_a_program_traced_again_has_the_same_text() -> None:
    # The persistent compile cache keys on a program's text. Warp numbered each traced call
    # of a kernel and each kernel by the order a process first called it, so the same
    # program traced after another history (a new process, `jax.clear_caches`) was new text.
    balls = jax.tree_util.tree_map(lambda x: x[None], ph.at_rest([[0.5, 0.5], [1.0, 2.0]]))
    strike = ph.Strike(ball=0, speed=5.0, phi=80.0, theta=0.0, a=0.0, b=0.0)
    texts = []
    for _ in range(2):
        jax.clear_caches()  # as a new process, or the tests between modules (conftest)
        texts.append(jax.jit(lambda b: ph.simulate(TABLE, b, strike, validate=False)).lower(balls).as_text())
    assert texts[0] == texts[1]
    assert "@shot_on_cpu_threads_0(" in texts[0]  # named for its kernel, whichever came first
