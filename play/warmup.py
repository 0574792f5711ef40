"""Compile the page's programs when the server starts, so that no move waits on a compiler.

JAX and Warp compile each program on its first call: on a fresh server the first shot took
25 s and the search bot's first move minutes, with nothing on the page. A
background thread runs every program the page will need once, in the order the page needs
them: the shot (kernel, referee, paths) and the aiming line first, which is all the human's
first shot needs (`ready`), then the default bot, the decisions after a foul, the longer
animations and the other variants' racks. The page polls `status` and shows "preparing the
table... (k of n)" until `ready`. The persistent compile caches (`physics.runtime`) make a
second start load these programs instead of compiling them.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import jax

import piramida.physics as ph
from piramida.physics.kernel import preload_in_background
from piramida.play import engine
from piramida.rules import codec, ids
from piramida.rules import state as st

log = logging.getLogger(__name__)
BREAK = ph.Strike(ball=0, speed=8.0, phi=90.0, theta=0.0, a=0.0, b=0.0)  # from the house's natural point
# A G6 decision (FREE-7's penalty ball): the decisions' programs, compiled before a foul needs them.
AFTER_A_FOUL: dict[str, Any] = {
    "variant": "free",
    "balls": [{"id": 0, "x": 0.4, "y": 0.4}, {"id": 13, "x": 1.2, "y": 3.0}, {"id": 14, "x": 1.5, "y": 2.5}],
    "shelves": [[1, 2, 3, 4, 5, 6], [7, 8, 9, 10, 11, 12, 15]],
    "turn": 0,
    "phase": "decision",
    "decision": {"kind": "G6", "options": ["shoot", "hand-back"]},
}


@dataclass
class Step:
    """One program (or a few) to compile: what the page calls it, and whether the page waits for it."""

    name: str
    run: Callable[[], None]
    needed: bool
    seconds: float | None = field(default=None)


class Warmup:
    """The steps, run once in order in a daemon thread; `status` says how far they are."""

    def __init__(self, steps: list[Step]) -> None:
        """Steps in the order they run; the `needed` ones must come first."""
        self.steps = steps
        self.error: str | None = None
        self._now: str | None = None
        self._started = time.monotonic()
        self._thread = threading.Thread(target=self._run, name="piramida-warmup", daemon=True)

    def start(self, beside: Callable[[], None] | None = None) -> Warmup:
        """Start the thread (once); returns self.

        On the CPU the shot kernel's Warp module is built in a second thread meanwhile, and
        `beside` (compiles that need no kernel) runs in a third: a shot would otherwise build
        the module only after XLA has compiled the program around it, and the referee after
        that, so a cold start waited for the sum of the three rather than the longest.
        """
        self._started = time.monotonic()
        preload_in_background()
        if beside is not None:
            threading.Thread(
                target=self._quietly, args=(beside,), name="piramida-warmup-beside", daemon=True
            ).start()
        self._thread.start()
        return self

    def _quietly(self, run: Callable[[], None]) -> None:
        """Run `run`; a failure only costs the time it would have saved (logged)."""
        try:
            run()
        except Exception:
            log.exception("warm-up beside the shot failed")

    def join(self, timeout: float | None = None) -> None:
        """Wait for every step (tests, benchmarks)."""
        self._thread.join(timeout)

    def _run(self) -> None:
        for step in self.steps:
            self._now = step.name
            started = time.monotonic()
            try:
                step.run()
            except Exception as err:  # a failed warm-up costs time later, never the game: say so and go on
                log.exception("warm-up step %r failed", step.name)
                self.error = f"{step.name}: {type(err).__name__}: {err}"
            step.seconds = round(time.monotonic() - started, 2)
            log.info("warm-up: %s in %.1f s", step.name, step.seconds)
        self._now = None

    def status(self) -> dict[str, Any]:
        """For the page: `ready` (the human can shoot), `done`/`total`, the step under way, its seconds."""
        needed = [s for s in self.steps if s.needed]
        return {
            "ready": all(s.seconds is not None for s in needed),
            "done": sum(s.seconds is not None for s in self.steps),
            "total": len(self.steps),
            "needed": len(needed),
            "now": self._now,
            "elapsed_s": round(time.monotonic() - self._started, 2),
            "steps": [{"name": s.name, "seconds": s.seconds, "needed": s.needed} for s in self.steps],
            "error": self.error,
        }


def referee_beside(variant: str) -> Callable[[], None]:
    """The referee's program for the page's shots, compiled on a stand-in result (`Warmup.start`)."""
    number = ids.VARIANT_NAMES.index(variant)

    def run() -> None:
        state = engine.new_game(number, jax.random.PRNGKey(0), 0, engine.DIMS)
        engine.compile_referee(state, BREAK, (engine.DIMS.width / 2, 0.6))

    return run


def after_break(variant: int) -> st.GameState:
    """A rack of `variant` broken from the house: a position for a bot's first move (`first_move`)."""
    place = (engine.DIMS.width / 2, 0.6)
    state = engine.new_game(variant, jax.random.PRNGKey(0), 0, engine.DIMS)
    engine.check_shot(state, BREAK, place, None)
    played = engine.simulate_shot(state, BREAK, place, None)
    codec.pending_json(played.state, engine.DIMS)
    return played.state


def page_steps(variant: str, first_move: Callable[[st.GameState], None], bot: str) -> list[Step]:
    """The page's programs for games of `variant`; `first_move` plays the default bot's move once."""
    number = ids.VARIANT_NAMES.index(variant)
    place = (engine.DIMS.width / 2, 0.6)
    broken: list[st.GameState] = []

    def shot() -> None:
        broken.append(after_break(number))

    def aim() -> None:
        state = engine.new_game(number, jax.random.PRNGKey(0), 0, engine.DIMS)
        engine.aim_paths(state, BREAK, place)

    def decisions() -> None:
        state = codec.state_from_json(AFTER_A_FOUL, ids.FREE, engine.DIMS)
        pending = codec.pending_json(state, engine.DIMS)
        assert pending is not None
        engine.apply_decision(state, codec.decision_from_json(pending["default"], state))

    def animations() -> None:
        engine.warm_animations(engine.new_game(number, jax.random.PRNGKey(0), 0, engine.DIMS), BREAK, place)

    def variants() -> None:
        for other in range(len(ids.VARIANT_NAMES)):
            engine.new_game(other, jax.random.PRNGKey(0), 1, engine.DIMS)

    return [
        Step("the shot: kernel, referee, paths", shot, needed=True),
        Step("the aiming line", aim, needed=True),
        Step(f"the bot ({bot})", lambda: first_move(broken[0]), needed=False),
        Step("decisions after a foul", decisions, needed=False),
        Step("longer shots' animations", animations, needed=False),
        Step("the other variants", variants, needed=False),
    ]
