"""`piramida demo`: a break on the default table, its event summary and a picture."""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from pathlib import Path
from typing import Any

import jax
import numpy as np
from rich.console import Console
from rich.table import Table as RichTable

import piramida.physics as ph
from piramida.cli.spec import result_to_json
from piramida.physics.layouts import break_positions


def add_parser(commands: Any) -> None:
    """Register the subcommand."""
    parser = commands.add_parser(
        "demo",
        help="simulate a break on the default table (the default command)",
        description="Rack the pyramid (G8.1), break from the house with ball 0, print the "
        "event summary and write the balls' paths as a PNG and the shot as JSON.",
    )
    parser.add_argument("--out", default="piramida-out", help="output folder (default: %(default)s)")
    parser.add_argument("--speed", type=float, default=8.0, help="cue speed, m/s (default: %(default)s)")
    parser.add_argument("--phi", type=float, default=90.0, help="aim, degrees (default: %(default)s)")
    parser.add_argument("--side", type=float, default=0.0, help="side tip offset a, in R (default: 0)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Simulate and report."""
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
    return 0
