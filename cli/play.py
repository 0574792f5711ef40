"""`piramida play`: a local web page to play a frame against a bot (`piramida.play`)."""

from __future__ import annotations

import argparse
import os
import socket
import sys
import threading
import webbrowser

from piramida.cli import options
from piramida.rules import ids

LEVELS = ("easy", "medium", "strong", "strongest")


HELP = "play against the bot in the browser"
DESCRIPTION = (
    "Start a local web server with a page to play Russian pyramid against a bot (six levels, "
    "from novice to the strongest search): aim with the mouse, the keys or a finger, the kernel's "
    "aiming line, a cue to pull back, spin, the referee's verdict when the balls stop, decisions "
    "after fouls, the match record to download and replay. Games are saved under --state-dir."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's options (`cli.main` registers the command with `HELP` and `DESCRIPTION`)."""
    parser.add_argument("--variant", choices=ids.VARIANT_NAMES, default="free", help="default: %(default)s")
    parser.add_argument(
        "--bot",
        default="search",
        help="search, greedy, trained, trained:policy, random, or a saved policy: a `piramida train` "
        "checkpoint, or an SB3 .zip with --trust-pickle (default: %(default)s; with the default --level "
        "and --noise, the page's `club` level)",
    )
    options.add_trust_pickle(parser)
    parser.add_argument(
        "--level", choices=LEVELS, default="medium", help="the search bot's level (default: %(default)s)"
    )
    parser.add_argument(
        "--noise",
        choices=("none", "pro", "amateur"),
        default="amateur",
        help="the bot's execution noise (default: %(default)s)",
    )
    parser.add_argument(
        "--shot-clock", action="store_true", help="new games start with the 45 s clock of G26"
    )
    parser.add_argument("--host", default="127.0.0.1", help="default: %(default)s")
    parser.add_argument("--port", type=int, default=0, help="default: a free port")
    parser.add_argument("--no-browser", action="store_true", help="print the address, do not open a browser")
    parser.add_argument(
        "--state-dir", default=None, help="where games are saved (default: ~/.cache/piramida/games)"
    )


def check_bot(name: str, noise_level: str) -> str | None:
    """None if `name` is a bot this app can play (a bot, or a saved policy that loads); else why not."""
    from piramida.physics import noise
    from piramida.play.games import BOTS
    from piramida.training.players import PolicyError, make_player, names_a_file

    if name in BOTS:
        return None
    if not names_a_file(name):
        return f"--bot: unknown bot {name!r}; choose one of {', '.join(BOTS)} or a saved policy (.zip)"
    try:
        make_player(name, noise.level(noise_level))
    except PolicyError as error:
        return f"--bot {error}"
    return None


def free_port(host: str) -> int:
    """A port the OS says is free now."""
    with socket.socket() as s:
        s.bind((host, 0))
        port: int = s.getsockname()[1]
        return port


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted; exit status 2 for a bad option."""
    options.apply_trust_pickle(args)
    problem = check_bot(args.bot, args.noise)
    if problem:
        print(f"piramida play: {problem}", file=sys.stderr)
        return 2
    import uvicorn

    from piramida.physics.runtime import prefer_quick_compiles
    from piramida.play.games import Settings
    from piramida.play.limits import Limits, deadline_protocol
    from piramida.play.server import create_app, local_hosts

    defaults = Settings(
        variant=args.variant, bot=args.bot, level=args.level, noise=args.noise, shot_clock=args.shot_clock
    )
    port = args.port or free_port(args.host)
    prefer_quick_compiles()
    app = create_app(args.state_dir, defaults, allowed_hosts=local_hosts(args.host, port), warm=True)
    url = f"http://{args.host}:{port}/"
    print(
        f"piramida play: {url} (games saved in {app.state.games.store.directory}; Ctrl+C stops)", flush=True
    )
    if not args.no_browser:
        threading.Timer(1.0, webbrowser.open, (url,)).start()
    # The page's event streams end within `EVENTS_STREAM_S`; Ctrl+C need not wait for them.
    # A request head not sent whole in time closes its connection (`limits.deadline_protocol`).
    uvicorn.run(
        app,
        host=args.host,
        port=port,
        http=deadline_protocol(Limits()),
        log_level="warning",
        timeout_graceful_shutdown=1,
    )
    leave_during_compiles()
    return 0


def leave_during_compiles() -> None:
    """End the process at once if a daemon thread is still at work (a warm-up's compile, a bot's move).

    At exit Python stops a daemon thread with `pthread_exit` when it next takes the GIL,
    and one inside an XLA compile aborts the process on the way out ("FATAL: exception not
    rethrown", exit status -6): a Ctrl+C in the first minute of a fresh server did. Every
    game is on disk already (each move is written atomically), so nothing waits for them.
    """
    if any(t.daemon and t.is_alive() for t in threading.enumerate()):
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)
