"""Training throughput: sb3-contrib's MaskablePPO on the vector env against `--algo jax-ppo`, side by side.

Both train the assisted mode of one variant against the same bot, with the same PPO
settings (`n_steps` moves per table per round, `batch_size`, `n_epochs`), on the same
table counts. Each first runs one round as a warm-up (JAX compiles, or loads from the
persistent cache: reported apart as `warmup_s`), then `--rounds` timed rounds; the
figure is learner moves (all tables) per second of training, rollout and updates included.

Usage::

    python benchmarks/train_speed.py                            # 8 and 64 tables
    python benchmarks/train_speed.py --tables 8 --rounds 2 --json out.json
"""

from __future__ import annotations

import argparse
import json
import os
import time
from typing import Any

from rich.console import Console
from rich.table import Table

from piramida.physics import runtime
from piramida.physics.files import write_atomic
from piramida.physics.provenance import stamped
from piramida.training import ppo
from piramida.training.config import TrainConfig

runtime.use_float64()  # a piramida program: the games compute in float64 throughout


def config_of(algo: str, args: argparse.Namespace, tables: int) -> TrainConfig:
    hyper = {"n_steps": args.n_steps, "batch_size": args.batch_size, "n_epochs": args.n_epochs}
    return TrainConfig(
        algo=algo,
        variant=args.variant,
        action_mode="assisted",
        tables=tables,
        opponent=args.opponent,
        seed=args.seed,
        hyperparameters=hyper,
    )


def sb3_speed(args: argparse.Namespace, tables: int) -> dict[str, Any]:
    """MaskablePPO on `SB3VecEnv`: one warm-up round, then timed rounds."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import Logger

    from piramida.envs.sb3 import SB3VecEnv

    config = config_of("maskable-ppo", args, tables)
    env = SB3VecEnv(tables, variant=args.variant, action_mode="assisted", opponent=args.opponent)
    started = time.perf_counter()
    model = MaskablePPO("MlpPolicy", env, seed=args.seed, device="cpu", verbose=0, **config.hyper())
    model.set_logger(Logger(None, []))  # no output: SB3 would make an empty folder in /tmp for its default
    model.learn(config.round_moves())
    warmup = time.perf_counter() - started
    started = time.perf_counter()
    model.learn(args.rounds * config.round_moves(), reset_num_timesteps=False)
    seconds = time.perf_counter() - started
    return {"warmup_s": warmup, "seconds": seconds, "moves": args.rounds * config.round_moves()}


def jax_speed(args: argparse.Namespace, tables: int) -> dict[str, Any]:
    """jax-ppo's jitted round: one warm-up round (the reset and the round compile), then timed rounds."""
    config = config_of("jax-ppo", args, tables)
    warmup, seconds = ppo.time_rounds(config, args.rounds)
    return {"warmup_s": warmup, "seconds": seconds, "moves": args.rounds * config.round_moves()}


def main() -> None:
    """Measure both trainers at every table count, print a table, optionally write JSON (atomically)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", default="8,64", help="table counts (default: %(default)s)")
    parser.add_argument("--variant", default="free")
    parser.add_argument("--opponent", default="random", choices=("random", "greedy"))
    parser.add_argument("--rounds", type=int, default=3, help="timed rounds after the warm-up")
    parser.add_argument("--n-steps", type=int, default=16, help="moves per table in a round")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--n-epochs", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", help="write the figures to this file")
    args = parser.parse_args()
    console = Console()
    rows: list[dict[str, Any]] = []
    for tables in (int(t) for t in args.tables.split(",")):
        for algo, measure in (("maskable-ppo", sb3_speed), ("jax-ppo", jax_speed)):
            with console.status(f"{algo}, {tables} tables"):
                row: dict[str, Any] = {"algo": algo, "tables": tables} | measure(args, tables)
            row["moves_per_s"] = row["moves"] / row["seconds"]
            rows.append(row)
    table = Table(title=f"training speed: {args.variant}, assisted, against {args.opponent}")
    for column in ("tables", "algo", "warm-up s", "timed moves", "timed s", "moves/s", "x SB3"):
        table.add_column(column, justify="right")
    sb3 = {row["tables"]: row["moves_per_s"] for row in rows if row["algo"] == "maskable-ppo"}
    for row in rows:
        table.add_row(
            str(row["tables"]),
            row["algo"],
            f"{row['warmup_s']:.1f}",
            str(row["moves"]),
            f"{row['seconds']:.2f}",
            f"{row['moves_per_s']:.1f}",
            f"{row['moves_per_s'] / sb3[row['tables']]:.2f}",
        )
    console.print(table)
    if args.json:
        payload = stamped({"args": vars(args), "cpus": os.cpu_count(), "load": os.getloadavg(), "rows": rows})
        write_atomic(args.json, json.dumps(payload, indent=2) + "\n")


if __name__ == "__main__":
    main()
