"""Whole frames of an evaluation kept as match records (`rules.match`) and drawn as animated GIFs.

`Recorder` rides along `arena.head_to_head` (its `on_play` hook): after every batched move it
copies the chosen tables' states before and after, the move and its outcome (with the
shot's event log) to the host. Afterwards each table becomes a `rules.match.MatchRecord`,
one entry per move the referee accepted, as `rules.game.play` ruled it: a shot's verdict
is worded with its rule ids (`referee.explained`), a decision is recorded with the state
it led to. A refused shot or an invalid decision leaves the state as it was, so it is
left out and the chain of states stays whole; `replay` then checks the record against
the arena's own states.

A Classic shot's call is written as the entry's top-level `call` (as in a `piramida
referee` request), and the entry's `state` is the state before the call was made, so
that each state is the previous entry's next state.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jax
import numpy as np

from piramida.rules import codec, ids
from piramida.rules import state as st
from piramida.rules.decisions import Decision
from piramida.rules.game import Move, Outcome
from piramida.rules.match import MatchRecord
from piramida.rules.referee import explained, record_of


@dataclass
class Step:
    """One table's move as `rules.game.play` made it (host arrays)."""

    before: st.GameState
    move: Move
    after: st.GameState
    outcome: Outcome


@dataclass
class Recorder:
    """The moves of some tables of a batch (`tables`), for `head_to_head(on_play=...)`."""

    tables: list[int]
    steps: dict[int, list[Step]] = field(default_factory=dict)

    def __call__(self, before: st.GameState, moves: Move, after: st.GameState, outcome: Outcome) -> None:
        """Keep the moves made on the recorded tables that were still being played."""
        live = [t for t in self.tables if np.asarray(before.phase)[t] != st.OVER]
        if not live:
            return
        rows = np.asarray(live)
        host = jax.tree_util.tree_map(lambda x: np.asarray(x)[rows], (before, moves, after, outcome))
        for k, t in enumerate(live):
            one = jax.tree_util.tree_map(lambda x, k=k: x[k], host)
            self.steps.setdefault(t, []).append(Step(*one))

    def record(self, table: int, dims: st.Dims = st.DEFAULT_DIMS) -> MatchRecord:
        """Table `table`'s frame as a match record (module docstring)."""
        steps = self.steps.get(table, [])
        variant = int(steps[0].before.variant) if steps else ids.FREE
        out = MatchRecord(variant, dims)
        for step in steps:
            add_step(out, step, dims)
        return out


def add_step(record: MatchRecord, step: Step, dims: st.Dims) -> None:
    """Append one move to `record`, unless the referee refused it (module docstring)."""
    before, m, outcome = step.before, step.move, step.outcome
    phase = int(before.phase)
    if phase == st.DECISION:
        if int(outcome.decision_invalid) != 0:
            return
        decision = Decision(option=np.int32(m.option), ball=np.int32(m.take))
        record.add_decision(before, decision, step.after)
        return
    if not bool(outcome.shot) or int(outcome.verdict.invalid) != 0:
        return
    classic = int(before.variant) == ids.CLASSIC
    called = st.with_call(before, m.call_ball, m.call_pocket) if classic else before
    placing = phase in (st.BREAK, st.IN_HAND)
    shot = st.shot(m.ball, m.place if placing else None)
    ruling = explained(called, shot, outcome.verdict, outcome.result, dims)
    record.add_shot(before, shot, record_of(outcome.result), ruling, step.after)
    if classic and int(m.call_ball) >= 0:
        record.entries[-1]["call"] = {
            "ball": int(m.call_ball),
            "pocket": codec.POCKET_NAMES[int(m.call_pocket)],
        }


def frames_of(
    record: MatchRecord, players: tuple[str, str] = ("player 0", "player 1")
) -> list[dict[str, Any]]:
    """The table after every entry of a record (the start first): `state_to_json` dicts with a title.

    `players` names seat 0 and seat 1.
    """
    if not record.entries:
        return []
    first = record.entries[0]["state"]
    out = [{**first, "title": "start"}]
    for k, entry in enumerate(record.entries, start=1):
        after = entry["verdict"]["state"] if entry["kind"] == "shot" else entry["outcome"]["state"]
        if entry["kind"] == "shot":
            verdict = entry["verdict"]
            what = (
                "foul"
                if verdict["foul"]
                else f"scored {verdict['scored']}"
                if verdict["scored"]
                else "no pot"
            )
            title = f"{k}: {players[entry['state']['turn']]} shoots ball {entry['strike']['ball']}: {what}"
        else:
            title = f"{k}: {players[entry['state']['turn']]} decides {entry['decision']}"
        out.append({**after, "title": title})
    return out


def draw_gif(record: MatchRecord, path: Path, players: tuple[str, str], fps: int = 2) -> Path:
    """An animated GIF of a record: the table after every move (matplotlib animation, Pillow writer)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.animation import FuncAnimation, PillowWriter

    import piramida.physics as ph
    from piramida.envs.render import BALL, COLOURED, draw_table

    frames = frames_of(record, players)
    fig, ax = plt.subplots(figsize=(3.2, 5.8), dpi=96)
    draw_table(ax, ph.preset())
    R = record.dims.R
    drawn: list[Any] = []
    title = ax.set_title("", fontsize=6)
    labels = record.variant == ids.CLASSIC

    def show(k: int) -> list[Any]:
        for artist in drawn:
            artist.remove()
        drawn.clear()
        frame = frames[k]
        for ball in frame["balls"]:
            colour = COLOURED if ball["id"] == ids.COLOURED else BALL
            drawn.append(
                ax.add_patch(plt.Circle((ball["x"], ball["y"]), R, color=colour, ec="black", lw=0.4))
            )
            if labels:
                drawn.append(
                    ax.text(ball["x"], ball["y"], str(ball["id"]), fontsize=4, ha="center", va="center")
                )
        scores = frame["scores"]
        title.set_text(
            f"{ids.VARIANT_NAMES[record.variant]}: {players[0]} {scores[0]} - {scores[1]} {players[1]}\n"
            f"{frame['title']}"
        )
        return [*drawn, title]

    animation = FuncAnimation(fig, show, frames=len(frames), blit=False)
    path.parent.mkdir(parents=True, exist_ok=True)
    animation.save(str(path), writer=PillowWriter(fps=fps))
    plt.close(fig)
    return path
