"""How much the referee costs next to the physics: `adjudicate` vs `simulate` on the same batch.

For each batch size, B tables (the four variants in turn) are set up for a break, the
kernel simulates the break, and the referee adjudicates it; then, from the positions the
break left, one ordinary aimed shot per table is simulated and adjudicated. Each timing
is the median of a few repeats after a warm-up (compiles excluded; both sides run under
`jit`, the clock stops at `block_until_ready`). The target is adjudication under 10
percent of the physics time. The referee of the games rules on the facts the kernel read
from its own log as the shot ended (`rules.kernel_facts`); the same referee reading the
log in JAX instead (`shot_facts`: G5.3, G12.1, G20, G22, G24, the tests' reference, and
the path of a log from JSON) is timed beside it, and `shot_facts` alone too.

Usage::

    python benchmarks/referee_speed.py                  # batch 64 and 1024, 3 repeats
    python benchmarks/referee_speed.py --sizes 64,1024,8192 --repeats 5 --json out.json
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import platform
import statistics
import time
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

import piramida.physics as ph
from piramida.physics import runtime
from piramida.physics.files import write_atomic
from piramida.physics.motion import STATIONARY
from piramida.physics.provenance import stamped
from piramida.rules import ids
from piramida.rules import state as st
from piramida.rules.decisions import auto_decide
from piramida.rules.placement import default_placement
from piramida.rules.referee import adjudicate, record_of
from piramida.rules.shot_facts import shot_facts

runtime.use_float64()  # a piramida program: the games compute in float64 throughout

TABLE = ph.preset()
PARAMS = ph.PYRAMID_PARAMS
DIMS = st.Dims.of(TABLE, PARAMS.R)
CAPACITY = 256


def timed(fn: Callable[[], Any], repeats: int) -> tuple[float, Any]:
    """Median wall time of `fn()` over `repeats` runs after one warm-up, and its last result."""
    out = jax.block_until_ready(fn())
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        out = jax.block_until_ready(fn())
        times.append(time.perf_counter() - start)
    return statistics.median(times), out


@jax.jit
def _placements(state: st.GameState) -> Any:
    def one(s: st.GameState) -> Any:
        region = st.hand_region(s, DIMS)
        return default_placement(region, s.positions, s.on_table, DIMS.width, DIMS.length, DIMS.R)

    return jax.vmap(one)(state)


_start_balls = jax.jit(jax.vmap(st.start_balls))


@jax.jit
def _facts(log: Any, start: Any, own: Any, start_on: Any, is_break: Any) -> Any:
    def one(log: Any, start: Any, own: Any, on: Any, is_break: Any) -> Any:
        objects = on & (jnp.arange(ids.N_BALLS) != own)
        return shot_facts(log, start, own, objects, objects & is_break, is_break, DIMS.length)

    return jax.vmap(one)(log, start, own, start_on, is_break)


def break_batch(batch: int, rng: np.random.Generator) -> tuple[st.GameState, st.Shot, ph.Strike]:
    variants = jnp.asarray(np.arange(batch) % 4, jnp.int32)
    keys = jax.random.split(jax.random.PRNGKey(0), batch)
    state = st.new_games(variants, keys, jnp.zeros(batch, jnp.int32), DIMS)
    place = _placements(state)
    shot = st.Shot(
        ball=jnp.zeros(batch, jnp.int32),
        place=place,
        declared=jnp.zeros(batch, jnp.int32),
        declared_late=jnp.zeros(batch, jnp.int32),
        placement_warned=jnp.ones(batch, bool),
        frozen_warned=jnp.ones(batch, bool),
    )
    apex = np.asarray([DIMS.width / 2, 3 * DIMS.length / 4])
    to = apex - np.asarray(place)
    phi = np.degrees(np.arctan2(to[:, 1], to[:, 0])) + rng.normal(0, 0.5, batch)
    strike = ph.Strike(
        ball=np.zeros(batch, np.int32),
        speed=rng.uniform(7, 9, batch),
        phi=phi,
        theta=np.zeros(batch),
        a=np.zeros(batch),
        b=rng.uniform(-0.2, 0.2, batch),
    )
    return state, shot, strike


def next_batch(state: st.GameState, rng: np.random.Generator) -> tuple[st.GameState, st.Shot, ph.Strike]:
    """After the break: every table's player strikes his own ball at a random object ball."""
    state = auto_decide(state, DIMS)
    batch = int(state.turn.shape[0])
    place = np.asarray(_placements(state))
    s = jax.tree_util.tree_map(np.asarray, state)
    balls, phis = [], []
    for k in range(batch):
        placing = s.phase[k] in (st.BREAK, st.IN_HAND)
        xy = s.positions[k].copy()
        on = s.on_table[k].copy()
        own = 0 if placing or s.variant[k] != ids.FREE else int(rng.choice(np.flatnonzero(on)))
        if placing:
            xy[own], on[own] = place[k], True
        others = np.flatnonzero(on & (np.arange(16) != own))
        target = xy[int(rng.choice(others))] if others.size else xy[own] + 1
        to = target - xy[own]
        balls.append(own)
        phis.append(np.degrees(np.arctan2(to[1], to[0])))
    shot = st.Shot(
        ball=jnp.asarray(balls, jnp.int32),
        place=jnp.asarray(place),
        declared=jnp.zeros(batch, jnp.int32),
        declared_late=jnp.zeros(batch, jnp.int32),
        placement_warned=jnp.ones(batch, bool),
        frozen_warned=jnp.ones(batch, bool),
    )
    strike = ph.Strike(
        ball=np.asarray(balls, np.int32),
        speed=rng.uniform(2, 6, batch),
        phi=np.asarray(phis),
        theta=np.zeros(batch),
        a=np.zeros(batch),
        b=np.zeros(batch),
    )
    return state, shot, strike


def measure(batch: int, repeats: int) -> list[dict[str, Any]]:
    rng = np.random.default_rng(batch)
    rows = []
    state, shot, strike = break_batch(batch, rng)
    for workload in ("break", "shot"):
        balls = _start_balls(state, shot)

        def physics(balls: Any = balls, strike: Any = strike) -> Any:
            return ph.simulate(TABLE, balls, strike, PARAMS, capacity=CAPACITY, validate=False)

        physics_s, result = timed(physics, repeats)

        def referee(state: Any = state, shot: Any = shot, result: Any = result) -> Any:
            return adjudicate(state, shot, result, DIMS)

        referee_s, (verdict, after) = timed(referee, repeats)
        record = record_of(result)
        from_log = dataclasses.replace(record, facts=None)

        def log_referee(state: Any = state, shot: Any = shot, record: Any = from_log) -> Any:
            return adjudicate(state, shot, record, DIMS)

        log_referee_s, _ = timed(log_referee, repeats)
        start_on = jax.vmap(lambda s, x: st.start_balls(s, x).s == STATIONARY)(state, shot)

        is_break = state.phase == st.BREAK

        def facts(record: Any = record, shot: Any = shot, on: Any = start_on, brk: Any = is_break) -> Any:
            return _facts(record.log, record.start, shot.ball, on, brk)

        facts_s, _ = timed(facts, repeats)
        rows.append(
            {
                "batch": batch,
                "workload": workload,
                "physics_s": physics_s,
                "referee_s": referee_s,
                "log_referee_s": log_referee_s,
                "facts_s": facts_s,
                "ratio": referee_s / physics_s,
                "events_mean": float(np.mean(np.asarray(result.log.count))),
                "fouls": int(np.sum(~np.asarray(verdict.legal))),
            }
        )
        print(
            f"B={batch:5d} {workload:5s}  physics {physics_s * 1e3:9.1f} ms  "
            f"referee {referee_s * 1e3:8.2f} ms (reading the log {log_referee_s * 1e3:8.2f} ms, "
            f"its facts {facts_s * 1e3:7.2f} ms)  "
            f"ratio {100 * referee_s / physics_s:6.2f} %  (mean {rows[-1]['events_mean']:.0f} events/table)",
            flush=True,
        )
        state, shot, strike = next_batch(after, rng)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="64,1024", help="batch sizes (default: %(default)s)")
    parser.add_argument("--repeats", type=int, default=3, help="timed repeats after a warm-up")
    parser.add_argument("--json", default=None, help="also write the rows, stamped, to this file")
    args = parser.parse_args()
    machine = platform.processor() or platform.machine()
    print(f"jax {jax.__version__} on {jax.devices()[0].platform} ({machine})")
    rows = []
    for size in (int(s) for s in args.sizes.split(",")):
        rows += measure(size, args.repeats)
    worst = max(r["ratio"] for r in rows)
    print(f"worst ratio: adjudication costs {100 * worst:.2f} % of the physics time (target < 10 %)")
    if args.json:
        write_atomic(args.json, json.dumps(stamped({"rows": rows}), indent=1))


if __name__ == "__main__":
    main()
