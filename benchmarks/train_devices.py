"""jax-ppo's throughput with its tables on one device and split over several, side by side in one run.

The same run (one action mode, variant and bot) times its round on the first device and
on every local device. On a CPU the devices are forced (`--devices`, XLA's host device
count, set before JAX starts); they share the machine's cores. Each first runs one round
as a warm-up (the reset and the compile: `warmup_s`), then `--rounds` timed rounds; the
figure is learner moves (all tables) per second, rollout and updates included.

Usage::

    python benchmarks/train_devices.py --tables 256 --opponent greedy --json out.json
"""

from __future__ import annotations

import argparse
import json
import os

PARSER = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
PARSER.add_argument("--devices", type=int, default=2, help="CPU devices to force (default: %(default)s)")
PARSER.add_argument("--tables", type=int, default=256)
PARSER.add_argument("--variant", default="free")
PARSER.add_argument("--opponent", default="random", choices=("random", "greedy"))
PARSER.add_argument("--action-mode", default="assisted", choices=("assisted", "raw"))
PARSER.add_argument("--net-arch", type=int, nargs="+", help="hidden layer sizes (default: jax-ppo's)")
PARSER.add_argument("--rounds", type=int, default=2, help="timed rounds after the warm-up")
PARSER.add_argument("--n-steps", type=int, default=16, help="moves per table in a round")
PARSER.add_argument("--batch-size", type=int, default=256)
PARSER.add_argument("--n-epochs", type=int, default=4)
PARSER.add_argument("--seed", type=int, default=0)
PARSER.add_argument("--json", help="write the figures to this file")
ARGS = PARSER.parse_args()
os.environ["XLA_FLAGS"] = f"--xla_force_host_platform_device_count={ARGS.devices}"

import jax  # noqa: E402 (after the device count)

from piramida.physics import runtime  # noqa: E402
from piramida.physics.files import write_atomic  # noqa: E402
from piramida.physics.provenance import stamped  # noqa: E402
from piramida.training import ppo  # noqa: E402
from piramida.training.config import TrainConfig  # noqa: E402

runtime.use_float64()  # a piramida program: the games compute in float64 throughout


def main() -> None:
    """Time the round on one device and on all of them; print a line each, optionally write JSON."""
    config = TrainConfig(
        algo="jax-ppo",
        variant=ARGS.variant,
        action_mode=ARGS.action_mode,
        tables=ARGS.tables,
        opponent=ARGS.opponent,
        seed=ARGS.seed,
        hyperparameters={
            "n_steps": ARGS.n_steps,
            "batch_size": ARGS.batch_size,
            "n_epochs": ARGS.n_epochs,
            **({"net_arch": ARGS.net_arch} if ARGS.net_arch else {}),
        },
    )
    devices = jax.local_devices()
    rows = []
    for count in sorted({1, len(devices)}):
        warmup, seconds = ppo.time_rounds(config, ARGS.rounds, devices[:count])
        moves = ARGS.rounds * config.round_moves()
        rows.append(
            {"devices": count, "warmup_s": warmup, "seconds": seconds, "moves_per_s": moves / seconds}
        )
        print(
            f"{ARGS.tables} tables against {ARGS.opponent}, {count} {devices[0].platform} device(s): "
            f"{moves / seconds:.1f} moves/s (warm-up {warmup:.1f} s, {moves} moves in {seconds:.2f} s)",
            flush=True,
        )
    if ARGS.json:
        payload = stamped({"args": vars(ARGS), "cpus": os.cpu_count(), "load": os.getloadavg(), "rows": rows})
        write_atomic(ARGS.json, json.dumps(payload, indent=2) + "\n")


if __name__ == "__main__":
    main()
