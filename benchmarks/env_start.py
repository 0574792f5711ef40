"""How long a vector env takes to start: make, first reset, first step, then a second batch size.

Each run is a fresh Python process (`--cache` names its compile caches: a new folder is a
cold start, the same folder again a warm one): the import, `PyramidVectorEnv(num_envs=B)`,
its first `reset` and first `step` (random actions against `random`), and then a second
env of B / 2 tables, reset and stepped (what a second batch size adds), and a third of 2 B
(from `envs.tables.chunk_limit()` tables up, 1,024 on a CPU, a batch is played in chunks
of that size with the same programs: there, twice the batch compiles nothing). The process's
compiles run as a user's would: Warp's build of the kernel and XLA's of the programs
around it.

Usage::

    python benchmarks/env_start.py --tables 1024 --json docs/env_start.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from piramida.physics.files import write_atomic
from piramida.physics.provenance import stamped


def timings(tables: int) -> dict[str, float]:
    """In this process: seconds to import and make, reset, step, and a second and third batch size's."""
    started = time.perf_counter()
    from piramida.envs.vector_env import PyramidVectorEnv

    env = PyramidVectorEnv(num_envs=tables, variant="free", opponent="random")
    made = time.perf_counter()
    env.reset(seed=0)
    env.action_space.seed(0)
    reset = time.perf_counter()
    env.step(env.action_space.sample())
    stepped = time.perf_counter()

    def start(batch: int) -> float:
        other = PyramidVectorEnv(num_envs=batch, variant="free", opponent="random")
        other.reset(seed=0)
        other.action_space.seed(0)
        other.step(other.action_space.sample())
        return time.perf_counter()

    done = start(max(1, tables // 2))
    twice = start(2 * tables)
    return {
        "import_and_make_s": made - started,
        "first_reset_s": reset - made,
        "first_step_s": stepped - reset,
        "reset_and_first_step_s": stepped - made,
        "second_batch_size_s": done - stepped,
        "twice_the_batch_s": twice - done,
    }


def run(tables: int, cache: str) -> dict[str, float]:
    """`timings` in a fresh process whose compile caches are under `cache`."""
    code = f"import json, sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); "
    code += f"import env_start; print(json.dumps(env_start.timings({tables})))"
    env = {**os.environ, "PIRAMIDA_CACHE_DIR": cache}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    result: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    """A cold start in a new cache folder, then a warm one in the same folder."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=1024)
    parser.add_argument("--json", help="write the figures to this file")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="piramida-start-") as cache:
        rows: list[dict[str, Any]] = []
        for start in ("cold", "warm"):
            rows.append({"start": start, "tables": args.tables, **run(args.tables, cache)})
            print(
                " ".join(f"{k} {v:.1f}" if isinstance(v, float) else f"{k} {v}" for k, v in rows[-1].items())
            )
    if args.json:
        report = {
            "machine": platform.node(),
            "cpus": os.cpu_count(),
            "load": os.getloadavg()[0],
            "command": f"python benchmarks/env_start.py --tables {args.tables}",
            "rows": rows,
        }
        write_atomic(args.json, json.dumps(stamped(report), indent=1))


if __name__ == "__main__":
    main()
