"""`piramida demo`, the main job: a break with its event summary and picture, then learning to play.

After the break it trains a policy for a few thousand moves with the recommended recipe
(`RECIPE`: MaskablePPO on the assisted actions against `greedy`, Free pyramid, `pro`
noise, on `--tables` tables; docs/training.md says why) and evaluates it
against `random` and `greedy`, so that a newcomer sees the pot rate climb and the report
with its learning curves. `--train-steps 0` stops after the break.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

import jax
import numpy as np
from rich.console import Console
from rich.table import Table as RichTable

import piramida.physics as ph
from piramida.physics.contract import result_to_json
from piramida.physics.layouts import break_positions

HELP = "simulate a break on the default table (the default command)"
DESCRIPTION = (
    "Rack the pyramid (G8.1), break from the house with ball 0, print the "
    "event summary and write the balls' paths as a PNG and the shot as JSON."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's options (`cli.main` registers the command with `HELP` and `DESCRIPTION`)."""
    parser.add_argument("--out", default="piramida-out", help="output folder (default: %(default)s)")
    parser.add_argument("--speed", type=float, default=8.0, help="cue speed, m/s (default: %(default)s)")
    parser.add_argument("--phi", type=float, default=90.0, help="aim, degrees (default: %(default)s)")
    parser.add_argument("--side", type=float, default=0.0, help="side tip offset a, in R (default: 0)")
    parser.add_argument(
        "--train-steps",
        type=int,
        default=4096,
        help="learner moves of the short training run (default: %(default)s; 0: none)",
    )
    parser.add_argument(
        "--games", type=int, default=64, help="games per pair in the evaluation (default: %(default)s)"
    )
    parser.add_argument(
        "--tables",
        type=int,
        default=16,
        help="tables played at once while training (default: %(default)s; 8 or fewer share one "
        "compiled program with the evaluation)",
    )


# The recommended recipe (docs/training.md, "The recommended recipe"): what `--train-steps` runs.
RECIPE = {
    "algo": "maskable-ppo", "action_mode": "assisted", "opponent": "greedy",
    "variant": "free", "noise": "pro", "seed": 0,
}  # fmt: skip


def run(args: argparse.Namespace) -> int:
    """The break, then the short training run and its evaluation."""
    counts = (("--train-steps", args.train_steps), ("--games", args.games), ("--tables", args.tables))
    for flag, value in counts:
        if value < 0 or (flag != "--train-steps" and value < 1):
            print(f"piramida demo: error: {flag}: expected a positive integer, got {value}", file=sys.stderr)
            return 2
    break_shot(args)
    return learn(Path(args.out), args.train_steps, args.games, args.tables) if args.train_steps else 0


def learn(out: Path, steps: int, games: int, tables: int) -> int:
    """Train with `RECIPE` on `tables` tables for `steps` moves into out/train; evaluate it into out/eval."""
    from piramida.evaluation import curves
    from piramida.evaluation.campaign import evaluate
    from piramida.evaluation.tournament import Plan
    from piramida.physics import noise
    from piramida.rules import ids
    from piramida.training import config, train

    console = Console()
    console.rule("learning to play Free pyramid: MaskablePPO against greedy")
    every = max(1024, steps // 4)
    recipe = config.build(RECIPE | {"tables": tables, "steps": steps, "checkpoint_every": every})
    result = train(recipe, out / "train")
    console.print(f"trained {result.steps} learner moves in {result.seconds:.0f} s")
    pots = curves.read(out / "train").get("piramida/pot_rate", [])
    if pots:
        (first_step, first), (last_step, last) = pots[0], pots[-1]
        console.print(
            f"pot success rate while training: {100 * first:.0f} % (first {first_step} moves) -> "
            f"{100 * last:.0f} % (at {last_step}); see it with tensorboard --logdir {out / 'train'}"
        )
    agents = (str(result.final), "random", "greedy")
    plan = Plan(agents=agents, variants=(ids.FREE,), magnitude=noise.level("pro"), games=games)
    command = f"piramida eval --agents {','.join(agents)} --variants free --games {games} --noise pro"
    evaluate(plan, out / "eval", command)
    return 0


def break_shot(args: argparse.Namespace) -> None:
    """Simulate the break and report it."""
    from piramida.envs.render import draw_shot, shot_paths  # matplotlib: only this command needs it

    console = Console()
    table, params = ph.preset(), ph.PYRAMID_PARAMS
    positions = break_positions(float(table.width), float(table.length), float(params.R))
    balls = jax.tree_util.tree_map(lambda x: x[None], ph.at_rest(positions))
    strike = ph.Strike(
        ball=np.array([0]),
        speed=np.array([args.speed]),
        phi=np.array([args.phi]),
        theta=np.array([0.0]),
        a=np.array([args.side]),
        b=np.array([0.0]),
    )
    started = time.perf_counter()
    with console.status("compiling and simulating the break (the first run compiles, ~30 s)"):
        result = jax.block_until_ready(ph.simulate(table, balls, strike, params, capacity=1024, record=True))
    elapsed = time.perf_counter() - started
    shot = result_to_json(result, 0)
    shot.pop("history")
    kinds = Counter(e["kind"] for e in shot["events"])
    summary = RichTable(
        title=f"Break at {args.speed} m/s: {len(shot['events'])} events, "
        f"{shot['duration']:.2f} s of table time"
    )
    summary.add_column("event")
    summary.add_column("count", justify="right")
    for kind, count in kinds.most_common():
        summary.add_row(kind, str(count))
    console.print(summary)
    cushion_balls = {e["balls"][0] for e in shot["events"] if e["kind"] == "cushion" and e["balls"][0] > 0}
    crossed = {e["balls"][0] for e in shot["events"] if e["kind"] == "centre-line" and e["balls"][0] > 0}
    pocketed = [f"{b['id']} ({b['pocket']})" for b in shot["balls"] if b["pocket"]]
    console.print(
        f"rack balls that touched a cushion: {len(cushion_balls)}; crossed the centre line: "
        f"{len(crossed)}; pocketed: {', '.join(pocketed) or 'none'}; log overflow: {shot['overflow']}"
    )
    host = jax.tree_util.tree_map(lambda x: np.asarray(x)[0], result)
    out = Path(args.out)
    picture = draw_shot(
        table,
        shot_paths(host, params),
        np.asarray(host.final.s) != ph.motion.ABSENT,
        float(params.R),
        out / "break.png",
        f"pyramid-12ft break, {args.speed} m/s",
    )
    (out / "break.json").write_text(json.dumps(shot, indent=1) + "\n")
    console.print(f"wrote {picture} and {out / 'break.json'} (simulated in {elapsed:.1f} s)")
