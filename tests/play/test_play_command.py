"""`piramida play` as a player runs it: Ctrl+C ends the server cleanly, even while it compiles."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path


def test_ctrl_c_while_the_server_warms_up_ends_it_cleanly(tmp_path: Path) -> None:
    # Empty caches: the warm-up's threads compile for a minute, and are at it when Ctrl+C comes.
    env = {**os.environ, "PIRAMIDA_CACHE_DIR": str(tmp_path / "cache")}
    command = [sys.executable, "-m", "piramida.cli.main", "play", "--no-browser", "--state-dir"]
    command.append(str(tmp_path))
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert server.stdout is not None
        assert server.stdout.readline().startswith("piramida play: http://127.0.0.1:")
        time.sleep(3)
        server.send_signal(signal.SIGINT)
        _, err = server.communicate(timeout=60)
    finally:
        server.kill()
    assert server.returncode == 0 and "FATAL" not in err, err[-2000:]
