"""Env throughput, as a share of the bare physics kernel's speed.

For each table count, a `PyramidVectorEnv` (Free pyramid, raw actions, `--opponent`,
random by default) is stepped with random actions after a warm-up, counting the kernel
calls it makes (the passes of its steps: `envs.functional.advance`) and the moves they
play per learner move (the learner's and the opponent's: a learner that misses hands
the table to a bot that may pot ball after ball); the pure-JAX env
(`envs.jax_env`, its `step` jitted) plays the same actions. Each env's learner moves/s is
divided by the bare kernel's random16 shots/s at the same batch size (`piramida bench`'s
workload, timed in the same run): the share of the kernel's speed a learner gets.

With `--stages`, where an env step's time goes: each jitted stage of a move timed alone
on the env's own mid-game states (decoding the learner's actions, the opponent's choice
(`--opponent`, random by default), the whole move as `play_masked` plays it, the bare
kernel on the same shots with and without keeping the log, the referee on the kernel's
facts and reading the log, the shot menu, and the observation), per call.

Usage::

    python benchmarks/env_speed.py                          # 1, 64, 1024, 4096 tables
    python benchmarks/env_speed.py --sizes 64 --steps 8 --json out.json
    python benchmarks/env_speed.py --sizes 1024 --stages [--opponent greedy]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import platform
import time
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from rich.console import Console
from rich.table import Table

import piramida.physics as ph
from piramida.envs import core, jax_env
from piramida.envs.vector_env import PyramidVectorEnv
from piramida.physics import runtime
from piramida.physics.files import write_atomic
from piramida.physics.provenance import stamped
from piramida.physics.workloads import time_kernel
from piramida.rules import state as st
from piramida.rules.game import CAPACITY, prepare
from piramida.rules.referee import adjudicate, record_of

runtime.use_float64()  # a piramida program: the games compute in float64 throughout

DIMS = st.DEFAULT_DIMS


def measure(tables: int, steps: int, seed: int, opponent: str = "random") -> dict[str, Any]:
    """Learner moves/s of the vector env and the pure-JAX env, and random16's shots/s, at `tables`."""
    env = PyramidVectorEnv(num_envs=tables, variant="free", opponent=opponent)
    env.reset(seed=seed)
    env.action_space.seed(seed)
    actions = [env.action_space.sample() for _ in range(steps + 1)]
    env.step(actions[0])  # compiles (or loads from the cache)
    calls, played = env.core.kernel_calls, env.core.moves_played
    started = time.perf_counter()
    for action in actions[1:]:
        env.step(action)
    env_s = time.perf_counter() - started
    calls, played = env.core.kernel_calls - calls, env.core.moves_played - played
    pure, params = jax_env.make("free", num_envs=tables, opponent=opponent)
    step = jax.jit(pure.step)
    state = jax.jit(pure.reset)(jax.random.PRNGKey(seed), params)[1]
    keys = jax.random.split(jax.random.PRNGKey(seed + 1), steps + 1)
    jax.block_until_ready(step(keys[0], state, actions[0], params))  # compiles
    started = time.perf_counter()
    for key, action in zip(keys[1:], actions[1:], strict=True):
        state = step(key, state, action, params)[1]
    jax.block_until_ready(state)
    jax_s = time.perf_counter() - started
    # The best of three runs of at least 8 calls: one short run swung by 2x on a loaded machine.
    random16 = max(time_kernel("random16", tables, min_shots=8 * tables)["shots_per_s"] for _ in range(3))
    return {
        "tables": tables,
        "opponent": opponent,
        "compiled_batch": env.core.chunk,
        "env_steps": steps,
        "kernel_calls": calls,
        "env_s": env_s,
        "jax_env_s": jax_s,
        "steps_per_s": steps * tables / env_s,
        "jax_steps_per_s": steps * tables / jax_s,
        "kernel_calls_per_step": calls / steps,
        "moves_per_learner_move": played / (steps * env.core.size),
        "random16_shots_per_s": random16,
        "moves_per_kernel_shot": steps * tables / env_s / random16,
        "jax_moves_per_kernel_shot": steps * tables / jax_s / random16,
    }


def best_of(repeats: int, run: Any) -> float:
    """The shortest of `repeats` timed calls of `run` (after one warm-up call), in seconds."""
    jax.block_until_ready(run())
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        jax.block_until_ready(run())
        times.append(time.perf_counter() - started)
    return min(times)


def stages(tables: int, seed: int, opponent: str, repeats: int = 5) -> dict[str, Any]:
    """Seconds per call of each stage of a move, on `tables` mid-game tables."""
    env = PyramidVectorEnv(num_envs=tables, variant="free", opponent=opponent)
    env.reset(seed=seed)
    env.action_space.seed(seed)
    for _ in range(3):
        env.step(env.action_space.sample())
    c = env.core
    states, keys = c.states, core.split_keys(c.keys)[1]
    actions = jax.tree_util.tree_map(lambda a: jnp.asarray(c._pad(np.asarray(a))), env.action_space.sample())
    moves = core.decode_moves(states, actions, "raw")
    active = core.to_move(states, core.LEARNER)
    _, outcome, _ = core.play_masked(states, moves, c.keys, active, c.settings.noise)
    settings = c.settings
    # The referee's inputs as `rules.game.play` makes them, and the shots with their log kept.
    noise = jnp.full(states.phase.shape[0], settings.noise)
    _, called, shots, balls, strikes = jax.vmap(lambda s, m, k, g: prepare(s, m, k, g, DIMS.R))(
        states, moves, keys, noise
    )
    game_shot = {"capacity": CAPACITY, "validate": False, "transitions": False}
    logged = ph.simulate(ph.preset(), balls, strikes, **game_shot)
    record = record_of(logged)
    times = {
        "decode (learner's actions)": best_of(repeats, lambda: core.decode_moves(states, actions, "raw")),
        f"opponent's choice ({opponent})": best_of(repeats, lambda: c.opponent(states, keys)),
        "move (kernel + referee)": best_of(
            repeats, lambda: core.play_masked(states, moves, c.keys, active, settings.noise)
        ),
        "kernel alone (as a move: no log kept)": best_of(
            repeats,
            lambda: ph.simulate(ph.preset(), outcome.start, outcome.strike, keep_log=False, **game_shot),
        ),
        "kernel keeping the log": best_of(
            repeats, lambda: ph.simulate(ph.preset(), outcome.start, outcome.strike, **game_shot)
        ),
        "referee on the kernel's facts": best_of(repeats, lambda: adjudicate(called, shots, record, DIMS)),
        "referee reading the log": best_of(
            repeats, lambda: adjudicate(called, shots, dataclasses.replace(record, facts=None), DIMS)
        ),
        "shot menu (assisted actions' masks)": best_of(repeats, lambda: core.legal_masks(states)),
        "observation": best_of(
            repeats,
            lambda: core.observe_states(states, settings.shot_limit, settings.noise, settings.observation),
        ),
    }
    return {"tables": tables, "opponent": opponent, "seconds_per_call": times}


def main() -> None:
    """Measure every size, print a table, optionally write JSON (atomically)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1,64,1024,4096", help="table counts (default: %(default)s)")
    parser.add_argument("--steps", type=int, default=16, help="timed env steps per size")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", help="write the figures to this file")
    parser.add_argument("--stages", action="store_true", help="time each stage of a move instead")
    parser.add_argument("--opponent", default="random", help="the env's opponent (default: %(default)s)")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    console = Console()
    if args.stages:
        found = [stages(tables, args.seed, args.opponent) for tables in sizes]
        for entry in found:
            out = Table(title=f"a move's stages, {entry['tables']} tables (load {os.getloadavg()[0]:.1f})")
            out.add_column("stage")
            out.add_column("ms per call", justify="right")
            for stage, seconds in entry["seconds_per_call"].items():
                out.add_row(stage, f"{1e3 * seconds:.1f}")
            console.print(out)
        if args.json:
            write_atomic(args.json, json.dumps(stamped({"stages": found}), indent=1))
        return
    rows = []
    for tables in sizes:
        with console.status(f"{tables} tables"):
            rows.append(measure(tables, args.steps, args.seed, args.opponent))
    load = os.getloadavg()[0]
    out = Table(title=f"envs vs {args.opponent}, and the bare kernel ({platform.node()}, load {load:.1f})")
    columns = (
        "tables",
        "vector env moves/s",
        "kernel calls/step",
        "moves/learner move",
        "per kernel shot",
        "pure-JAX env moves/s",
        "per kernel shot ",
    )
    for column in columns:
        out.add_column(column, justify="right")
    for r in rows:
        out.add_row(
            str(r["tables"]),
            f"{r['steps_per_s']:.1f}",
            f"{r['kernel_calls_per_step']:.2f}",
            f"{r['moves_per_learner_move']:.2f}",
            f"{r['moves_per_kernel_shot']:.3f}",
            f"{r['jax_steps_per_s']:.1f}",
            f"{r['jax_moves_per_kernel_shot']:.3f}",
        )
    console.print(out)
    if args.json:
        report = {"machine": platform.node(), "cpus": os.cpu_count(), "rows": rows}
        write_atomic(args.json, json.dumps(stamped(report), indent=1))


if __name__ == "__main__":
    main()
