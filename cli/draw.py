"""Pictures of the table and of a shot's ball paths (matplotlib, top view)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from piramida.physics import markings
from piramida.physics.table import Table

CLOTH, CUSHION, BALL, COLOURED = "#1d6b3a", "#5b3a1a", "#f4f1e6", "#f2c12e"


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


def draw_shot(
    table: Table,
    paths: np.ndarray,
    start: np.ndarray,
    present: np.ndarray,
    R: float,
    out: Path,
    title: str = "",
) -> Path:
    """Ball paths (T, N, 2) from their start (N, 2) to their end, saved as a PNG."""
    fig, ax = plt.subplots(figsize=(4.2, 7.6), dpi=110)
    draw_table(ax, table)
    for ball in np.flatnonzero(present):
        colour = COLOURED if ball == 0 else BALL
        ax.plot(paths[:, ball, 0], paths[:, ball, 1], color=colour, lw=0.9, alpha=0.85, zorder=2)
        ax.add_patch(plt.Circle(start[ball], R, fill=False, color=colour, lw=0.6, ls=":", zorder=3))
        ax.add_patch(plt.Circle(paths[-1, ball], R, color=colour, ec="black", lw=0.4, zorder=3))
        end_x, end_y = paths[-1, ball]
        ax.text(end_x, end_y, str(ball), fontsize=4.5, ha="center", va="center", zorder=4)
    if title:
        ax.set_title(title, fontsize=8)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, bbox_inches="tight")
    plt.close(fig)
    return out
