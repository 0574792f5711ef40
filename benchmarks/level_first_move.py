"""How long the bot's first move takes at each of the page's levels, from a fresh `piramida play`.

The server is started on its own compile cache folder (empty: a cold start; reused: the
second start, the one a player usually has), waits until the page is usable
(`/api/ready`), then each level in turn starts a game that the bot breaks and times the
bot's first move through the API (`POST /api/games/{id}/bot`): the compile of that level's
bot where nothing warmed it, and the move.

    python benchmarks/level_first_move.py --cache /tmp/play-cache [--json docs/level_first_move.json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from piramida.agents.ladder import BY_NAME, LEVELS
from piramida.physics.files import write_atomic
from piramida.physics.provenance import stamped

PIRAMIDA = [sys.executable, "-m", "piramida.cli.main"]  # this interpreter's piramida, on PATH or not


def call(url: str, method: str = "GET", body: Any = None) -> Any:
    """One JSON request to the server; its JSON answer."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        url, data=data, method=method, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=1800) as answer:
        return json.loads(answer.read())


def measure(cache: Path, games: Path, names: list[str]) -> dict[str, Any]:
    """Seconds until the page is usable, then the first bot move of each level in `names`."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "PIRAMIDA_CACHE_DIR": str(cache)}
    command = [*PIRAMIDA, "play", "--no-browser", "--port", str(port), "--state-dir", str(games)]
    started = time.monotonic()
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        while True:
            try:
                if call(f"{url}/api/ready")["ready"]:
                    break
            except OSError:
                pass
            time.sleep(0.2)
        usable = time.monotonic() - started
        moves = {}
        for level in (BY_NAME[name] for name in names):
            created = call(
                f"{url}/api/games", "POST", {"settings": level.settings(), "breaker": 1, "seed": 1}
            )
            began = time.monotonic()
            call(f"{url}/api/games/{created['id']}/bot", "POST", {})
            moves[level.name] = time.monotonic() - began
        return {"usable_s": usable, "first_move_s": moves}
    finally:
        process.terminate()
        process.wait(timeout=60)


def main() -> None:
    """Measure and print (and write `--json`)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--cache", required=True, help="the server's compile cache folder (empty: a cold start)"
    )
    parser.add_argument("--levels", default=",".join(level.name for level in LEVELS), help="default: all")
    parser.add_argument("--json", help="write the figures to this file")
    args = parser.parse_args()
    names = args.levels.split(",")
    unknown = sorted(set(names) - set(BY_NAME))
    if unknown:
        parser.error(f"--levels: unknown {unknown}; the levels are {', '.join(BY_NAME)}")
    with tempfile.TemporaryDirectory() as games:
        result = measure(Path(args.cache), Path(games), names)
    result |= {
        "command": "python benchmarks/level_first_move.py --cache " + args.cache,
        "machine": {"platform": platform.platform(), "cpus": os.cpu_count(), "load": os.getloadavg()},
    }
    print(json.dumps(result, indent=1))
    if args.json:
        write_atomic(Path(args.json), json.dumps(stamped(result), indent=1) + "\n")


if __name__ == "__main__":
    main()
