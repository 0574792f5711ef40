"""Pictures of the table: a top view with the balls and a shot's paths (matplotlib, Agg).

Used by the environments' `render()` (an RGB array, or a window) and by `piramida demo`
(a PNG). A shot's paths are exact: `rules.game.play` replays the learner's last move as
it was struck, recorded, and `physics.trajectory` samples the positions between events.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import gymnasium as gym
import jax
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

import piramida.physics as ph
from piramida.physics import markings
from piramida.physics.motion import ABSENT
from piramida.physics.runtime import in_float64_methods
from piramida.physics.table import Table
from piramida.physics.trajectory import trajectory
from piramida.rules import ids
from piramida.rules import state as st
from piramida.rules.game import play

if TYPE_CHECKING:
    from piramida.envs.tables import Tables

RENDER_MODES = ("rgb_array", "ansi", "human")
CLOTH, CUSHION, BALL, COLOURED = "#1d6b3a", "#5b3a1a", "#f4f1e6", "#f2c12e"
PATH_SAMPLES = 400


def draw_table(ax: Any, table: Table) -> None:
    """Cloth, cushion noses, jaws, pocket capture circles, and the G2 markings."""
    w, ln = float(table.width), float(table.length)
    ax.add_patch(plt.Rectangle((-0.12, -0.12), w + 0.24, ln + 0.24, color=CUSHION, zorder=0))
    ax.add_patch(plt.Rectangle((0, 0), w, ln, color=CLOTH, zorder=0))
    for a, b in zip(np.asarray(table.line_a), np.asarray(table.line_b), strict=True):
        ax.plot([a[0], b[0]], [a[1], b[1]], color="#c9a96e", lw=1.2, zorder=1)
    for c, r in zip(np.asarray(table.arc_centre), np.asarray(table.arc_radius), strict=True):
        if r > 0:
            ax.add_patch(plt.Circle(c, r, fill=False, color="#c9a96e", lw=1.0, zorder=1))
    for c, r in zip(np.asarray(table.pocket_centre), np.asarray(table.pocket_radius), strict=True):
        if r > 0:
            ax.add_patch(plt.Circle(c, r, color="black", zorder=1))
    for y in (float(markings.house_line_y(ln)), float(markings.centre_line_y(ln))):
        ax.plot([0, w], [y, y], color="white", lw=0.6, alpha=0.5, zorder=1)
    for spot in (markings.front_spot(w, ln), markings.centre_spot(w, ln), markings.back_spot(w, ln)):
        ax.plot(*np.asarray(spot), marker="o", ms=2, color="white", zorder=1)
    ax.set_xlim(-0.15, w + 0.15)
    ax.set_ylim(-0.15, ln + 0.15)
    ax.set_aspect("equal")
    ax.axis("off")


def draw_balls(ax: Any, positions: np.ndarray, present: np.ndarray, R: float, labels: bool) -> None:
    """Balls at `positions` (N, 2) where `present`; the coloured ball (id 0) in yellow."""
    for ball in np.flatnonzero(present):
        colour = COLOURED if ball == ids.COLOURED else BALL
        ax.add_patch(plt.Circle(positions[ball], R, color=colour, ec="black", lw=0.4, zorder=3))
        if labels:
            ax.text(*positions[ball], str(ball), fontsize=4.5, ha="center", va="center", zorder=4)


def draw_paths(ax: Any, paths: np.ndarray, present: np.ndarray, R: float) -> None:
    """Ball paths (T, N, 2), with a dotted circle where each ball started."""
    for ball in np.flatnonzero(present):
        colour = COLOURED if ball == ids.COLOURED else BALL
        ax.plot(paths[:, ball, 0], paths[:, ball, 1], color=colour, lw=0.9, alpha=0.85, zorder=2)
        ax.add_patch(plt.Circle(paths[0, ball], R, fill=False, color=colour, lw=0.6, ls=":", zorder=3))


def shot_paths(result: ph.ShotResult, params: ph.PhysicsParams = ph.PYRAMID_PARAMS) -> np.ndarray:
    """(PATH_SAMPLES, N, 2) positions over one recorded table's shot."""
    times = np.linspace(0.0, float(result.duration), PATH_SAMPLES)
    return np.asarray(trajectory(result, times, params))


def draw_shot(
    table: Table, paths: np.ndarray, present: np.ndarray, R: float, out: Path, title: str = ""
) -> Path:
    """Ball paths (T, N, 2) from start to end, the balls where they stopped, saved as a PNG."""
    fig, ax = plt.subplots(figsize=(4.2, 7.6), dpi=110)
    draw_table(ax, table)
    draw_paths(ax, paths, present, R)
    draw_balls(ax, paths[-1], present, R, labels=True)
    if title:
        ax.set_title(title, fontsize=8)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, bbox_inches="tight")
    plt.close(fig)
    return out


@dataclass
class Scene:
    """What one table of an env looks like now: the game state and the learner's last shot."""

    state: st.GameState
    paths: np.ndarray | None
    path_present: np.ndarray | None

    @staticmethod
    def of(core: Tables, index: int) -> Scene:
        """Table `index` of an env's engine; the last shot is replayed recorded to draw its paths.

        The move as struck, with no noise, is the same shot bit for bit (`physics.noise`
        leaves a strike unchanged at magnitude 0).
        """
        state = core.table(index)
        last = core.last
        if last is None or not bool(np.asarray(last.shot)[index]):
            return Scene(state, None, None)
        before, as_struck = jax.tree_util.tree_map(
            lambda x: np.asarray(x)[index : index + 1], (last.before, last.as_struck)
        )
        _, outcome = play(before, as_struck, np.zeros((1, 2), np.uint32), 0.0, record=True)
        host = jax.tree_util.tree_map(lambda x: np.asarray(x)[0], outcome)
        return Scene(state, shot_paths(host.result), host.start.s != ABSENT)

    def image(self, dpi: int = 80) -> np.ndarray:
        """An RGB array (H, W, 3) uint8 of the top view."""
        table = ph.preset()
        fig, ax = plt.subplots(figsize=(3.2, 5.8), dpi=dpi)
        draw_table(ax, table)
        R = st.DEFAULT_DIMS.R
        if self.paths is not None and self.path_present is not None:
            draw_paths(ax, self.paths, self.path_present, R)
        draw_balls(
            ax,
            np.asarray(self.state.positions),
            np.asarray(self.state.on_table),
            R,
            labels=int(self.state.variant) == ids.CLASSIC,
        )
        ax.set_title(self.headline(), fontsize=6)
        fig.canvas.draw()
        image = np.asarray(fig.canvas.buffer_rgba())[..., :3].copy()  # type: ignore[attr-defined]
        plt.close(fig)
        return image

    def headline(self) -> str:
        """Variant, scores (the learner first), phase and the player to move."""
        s = self.state
        score = np.asarray(s.score)
        return (
            f"{ids.VARIANT_NAMES[int(s.variant)]}  {score[0]}:{score[1]}  "
            f"{st.PHASE_NAMES[int(s.phase)]}, player {int(s.turn)} to move"
        )

    def text(self) -> str:
        """The `ansi` rendering: the headline, then where every ball is."""
        s = self.state
        lines = [self.headline()]
        for ball in range(ids.N_BALLS):
            if bool(s.on_table[ball]):
                x, y = np.asarray(s.positions[ball])
                where = f"at ({x:.3f}, {y:.3f}) m"
            elif int(s.shelf[ball]) >= 0:
                where = f"on player {int(s.shelf[ball])}'s shelf"
            else:
                where = "in hand" if bool(st.in_hand(s)[ball]) else "off the table"
            lines.append(f"  ball {ball:2d}{' (coloured)' if ball == ids.COLOURED else ''}: {where}")
        return "\n".join(lines)


def human_unavailable() -> str | None:
    """Why `render_mode="human"` cannot open its Tk window here, or None where it can."""
    if importlib.util.find_spec("tkinter") is None:
        return "needs Tk (this Python has no tkinter)"
    if sys.platform.startswith("linux") and not os.environ.get("DISPLAY"):
        return "needs a display (DISPLAY is not set)"
    return None


def available_render_modes() -> list[str]:
    """The render modes that work here: an env's `metadata["render_modes"]`, so `check_env` passes."""
    return [mode for mode in RENDER_MODES if mode != "human" or human_unavailable() is None]


class Viewer:
    """A matplotlib window for `render_mode="human"` (`check_render_mode` made sure it can open)."""

    def __init__(self) -> None:
        """Open an interactive figure."""
        plt.switch_backend("TkAgg")
        self.fig, self.ax = plt.subplots()
        self.ax.axis("off")
        self.shown: Any = None

    def show(self, image: np.ndarray) -> None:
        """Draw the latest picture."""
        if self.shown is None:
            self.shown = self.ax.imshow(image)
        else:
            self.shown.set_data(image)
        plt.pause(0.001)

    def close(self) -> None:
        """Close the window."""
        plt.close(self.fig)


def check_render_mode(mode: str | None) -> str | None:
    """The render mode, or a ValueError naming it (or naming what `human` lacks here)."""
    if mode is not None and mode not in RENDER_MODES:
        raise ValueError(f"render_mode: expected one of {list(RENDER_MODES)}, got {mode!r}")
    problem = human_unavailable() if mode == "human" else None
    if problem:
        raise ValueError(f"render_mode='human' {problem}; use render_mode='rgb_array' and show the images")
    return mode


@in_float64_methods
class TableRendering:
    """`render()` and `close()` for an env that shows table 0 of its engine (`self.core`)."""

    core: Tables
    render_mode: str | None
    _viewer: Viewer | None = None

    def render(self) -> Any:
        """`rgb_array`: a top view (H, W, 3) with the last shot's paths; `ansi`: a text summary."""
        if self.render_mode is None:
            gym.logger.warn("render() called without a render_mode; pass render_mode= to the env")
            return None
        picture = Scene.of(self.core, 0)
        if self.render_mode == "ansi":
            return picture.text()
        image = picture.image()
        if self.render_mode == "human":
            self._viewer = self._viewer or Viewer()
            self._viewer.show(image)
            return None
        return image

    def close(self) -> None:
        """Close the viewer window, if any."""
        if self._viewer is not None:
            self._viewer.close()
            self._viewer = None
