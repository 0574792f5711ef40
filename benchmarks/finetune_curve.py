"""The strength of a jax-ppo slot-policy fine-tuning run (`--policy trained`) by learner moves.

Every `--every`-th checkpoint's network (and the start, the run's `--policy`) plays
`--games` frames against greedy at its `policy` level (the network alone, deterministic)
on the same frames (`evaluation.arena.head_to_head`, seed 0, racks jittered as in
`piramida eval`), so the curve shows the network's change, not the frames' luck:

    python benchmarks/finetune_curve.py RUN [--every 4] [--games 200] [--variant free]
                                        [--json out.json] [--png out.png]
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from piramida.agents import TrainedAgent, make_bot
from piramida.evaluation.arena import head_to_head
from piramida.physics import runtime
from piramida.physics.files import write_atomic
from piramida.physics.noise import LEVELS
from piramida.physics.provenance import stamped
from piramida.rules import ids
from piramida.training import checkpoint, jax_driver, slot_policy
from piramida.training.config import config_from_json

runtime.use_float64()  # a piramida program: the games compute in float64 throughout

CAP, STUCK = 400, 10  # `piramida eval`'s defaults


def plot(rows: list[dict[str, float]], path: Path, variant: str) -> None:
    """The win rate by learner moves, with the 95 % intervals as a band."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    moves = [row["moves"] for row in rows]
    rates = [row["wins"] / (row["wins"] + row["losses"]) for row in rows]
    figure, axes = plt.subplots(figsize=(6, 3.5))
    axes.fill_between(moves, [row["low"] for row in rows], [row["high"] for row in rows], alpha=0.25)
    axes.plot(moves, rates, marker="o")
    axes.axhline(0.75, linestyle="--", color="grey", linewidth=1)
    axes.set(
        xlabel="learner moves",
        ylabel="win rate against greedy",
        ylim=(0, 1),
        title=f"jax-ppo fine-tuning: the network alone, {variant}, 95 % intervals",
    )
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


def main() -> None:
    """Play each chosen checkpoint's policy against greedy; print a table, optionally write JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path, help="a `piramida train --algo jax-ppo --policy ...` run folder")
    parser.add_argument("--every", type=int, default=4, help="every N-th checkpoint (and the last)")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--variant", default="free", choices=ids.VARIANT_NAMES)
    parser.add_argument("--json", type=Path, help="write the figures here")
    parser.add_argument("--png", type=Path, help="draw the curve here, with its 95 % intervals")
    args = parser.parse_args()
    paths = sorted((args.run / "checkpoints").glob("step-*.zip"))
    chosen = paths[args.every - 1 :: args.every]
    if paths and paths[-1] not in chosen:
        chosen.append(paths[-1])
    magnitude = LEVELS["pro"]
    greedy = make_bot("greedy", magnitude)
    first = checkpoint.read(paths[0])
    config = config_from_json(first.meta["config"], playing=True)
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        # The start: the policy file the run began from (a fresh `slots` start has none).
        players: list[tuple[int, Path | None]] = []
        if config.policy != "slots":
            players.append((0, None if config.policy == "trained" else Path(config.policy)))
        for path in chosen:
            ck = checkpoint.read(path)
            exported = Path(folder) / f"{path.stem}.npz"
            params = jax_driver.load(ck, config).params
            slot_policy.export(exported, params, config, ck.meta["steps"], 0.0)
            players.append((ck.meta["steps"], exported))
        for moves, agent_path in players:
            bot = TrainedAgent(agent_path, magnitude, level="policy")
            result = head_to_head(
                (("trained", bot), ("greedy", greedy)),
                ids.VARIANT_NAMES.index(args.variant),
                magnitude,
                args.games,
                CAP,
                0,
                STUCK,
                rack_jitter=True,
            )
            wins, (low, high) = result["wins"], result["win_rate_ci95"]
            rows.append(
                {"moves": moves, "wins": wins["trained"], "losses": wins["greedy"], "low": low, "high": high}
            )
            print(
                f"{moves:>8} moves: {wins['trained']}-{wins['greedy']} "
                f"({100 * result['win_rate']:.1f} %, 95 % {100 * low:.0f}-{100 * high:.0f} %)",
                flush=True,
            )
    if args.png:
        plot(rows, args.png, args.variant)
    if args.json:
        figures = stamped({"run": str(args.run), "variant": args.variant, "rows": rows})
        write_atomic(args.json, json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
