"""Bridge from piramida's ``simulate`` JSON contract to pooltool-billiards 0.6.0.

Standalone: imports only pooltool, numpy and the standard library (never piramida), so it
can serve as an independent reference engine for cross-checks. pooltool is an optional
dependency (docs/physics.md, "Cross-checks"): import this module only where it is wanted.

Usage as a module::

    from piramida.physics.pooltool_bridge import run_pooltool
    result = run_pooltool(spec)

Usage as a filter (JSON Lines in, JSON Lines out)::

    python -m piramida.physics.pooltool_bridge < specs.jsonl > results.jsonl

Every physics model is chosen explicitly by name, so ``~/.config/pooltool`` (which
pooltool writes at import time and reads for its *default* engine) cannot change the
result. See benchmarks/POOLTOOL_PHYSICS.md for the equations behind the models.
"""

from __future__ import annotations

import json
import math
import sys
import time
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import pooltool as pt
import pooltool.constants as ptconst
from pooltool.events import EventType
from pooltool.objects import (
    BallParams,
    BallState,
    BilliardTableSpecs,
    Cue,
    PocketTableSpecs,
    Table,
)
from pooltool.objects.table.components import LinearCushionSegment
from pooltool.physics.engine import PhysicsEngine
from pooltool.physics.resolve.ball_ball.friction import (
    AlciatoreBallBallFriction,
    AverageBallBallFriction,
    BallBallFrictionStrategy,
)
from pooltool.physics.resolve.ball_ball.frictional_inelastic import FrictionalInelastic
from pooltool.physics.resolve.ball_cushion.core import (
    BallCCushionCollisionStrategy,
    BallLCushionCollisionStrategy,
)
from pooltool.physics.resolve.ball_cushion.han_2005.model import (
    Han2005Circular,
    Han2005Linear,
)
from pooltool.physics.resolve.ball_cushion.stronge_compliant.model import (
    StrongeCompliantCircular,
    StrongeCompliantLinear,
)
from pooltool.physics.resolve.ball_pocket import CanonicalBallPocket
from pooltool.physics.resolve.resolver import VERSION as RESOLVER_VERSION
from pooltool.physics.resolve.resolver import Resolver
from pooltool.physics.resolve.stick_ball.instantaneous_point import InstantaneousPoint
from pooltool.physics.resolve.transition import CanonicalTransition

JSON = dict[str, Any]

# pooltool's own defaults (pooltool/physics/resolve/resolver.py:default_resolver).
ALCIATORE_A = 0.009951
ALCIATORE_B = 0.108
ALCIATORE_C = 1.088
STRONGE_OMEGA_RATIO = 1.8  # default_resolver value; the class default is 1.7

# A ball whose cloth-contact slip speed is at most this is put in the rolling state.
ROLLING_TOL = 1e-9

POCKET_NAMES = {
    "lb": "front-left",
    "rb": "front-right",
    "lc": "middle-left",
    "rc": "middle-right",
    "lt": "back-left",
    "rt": "back-right",
}

_POCKET_TABLE_FIELDS = (
    "cushion_width",
    "cushion_height",
    "corner_pocket_width",
    "corner_pocket_angle",
    "corner_pocket_depth",
    "corner_pocket_radius",
    "corner_jaw_radius",
    "side_pocket_width",
    "side_pocket_angle",
    "side_pocket_depth",
    "side_pocket_radius",
    "side_jaw_radius",
)


# --------------------------------------------------------------------------- builders


def build_table(table: Mapping[str, Any]) -> Table:
    """Pooltool table from the spec's ``table`` object (x across 0..W, y along 0..L)."""
    kind = table.get("kind", "rectangle")
    width = float(table["width"])
    length = float(table["length"])
    if kind == "rectangle":
        height = float(table.get("cushion_height", BilliardTableSpecs().cushion_height))
        specs: BilliardTableSpecs | PocketTableSpecs = BilliardTableSpecs(
            l=length, w=width, cushion_height=height
        )
    elif kind == "pockets":
        extra: dict[str, Any] = {k: float(table[k]) for k in _POCKET_TABLE_FIELDS if k in table}
        unknown = set(table) - set(_POCKET_TABLE_FIELDS) - {"kind", "width", "length"}
        if unknown:
            raise ValueError(f"unknown pocket table fields: {sorted(unknown)}")
        specs = PocketTableSpecs(l=length, w=width, **extra)
    else:
        raise ValueError(f"unknown table kind {kind!r}")
    return Table.from_table_specs(specs)


def build_params(params: Mapping[str, Any]) -> BallParams:
    """BallParams from the spec's ``params`` (``u_sp`` is absolute: u_sp = prop * R)."""
    defaults = BallParams()
    R = float(params.get("R", defaults.R))
    u_sp = float(params.get("u_sp", defaults.u_sp))
    return BallParams(
        m=float(params.get("m", defaults.m)),
        R=R,
        u_s=float(params.get("u_s", defaults.u_s)),
        u_r=float(params.get("u_r", defaults.u_r)),
        u_sp_proportionality=u_sp / R,
        u_b=float(params.get("u_b", defaults.u_b)),
        e_b=float(params.get("e_b", defaults.e_b)),
        e_c=float(params.get("e_c", defaults.e_c)),
        f_c=float(params.get("f_c", defaults.f_c)),
        g=float(params.get("g", defaults.g)),
    )


def build_engine(models: Mapping[str, Any] | None) -> PhysicsEngine:
    """A PhysicsEngine whose every resolver component is picked explicitly by name.

    ``models`` keys: ``ball_ball`` (only ``frictional_inelastic``), ``cushion``
    (``stronge_compliant`` | ``han_2005``), optional ``ball_ball_friction``
    (``alciatore`` (default) | ``average``, the latter uses the balls' ``u_b``) and
    optional ``omega_ratio`` for stronge_compliant (default 1.8).
    """
    models = dict(models or {})
    bb_name = models.get("ball_ball", "frictional_inelastic")
    if bb_name != "frictional_inelastic":
        raise ValueError(f"unsupported ball_ball model {bb_name!r}")
    friction_name = models.get("ball_ball_friction", "alciatore")
    friction: BallBallFrictionStrategy
    if friction_name == "alciatore":
        friction = AlciatoreBallBallFriction(a=ALCIATORE_A, b=ALCIATORE_B, c=ALCIATORE_C)
    elif friction_name == "average":
        friction = AverageBallBallFriction()
    else:
        raise ValueError(f"unsupported ball_ball_friction {friction_name!r}")

    cushion_name = models.get("cushion", "stronge_compliant")
    linear: BallLCushionCollisionStrategy
    circular: BallCCushionCollisionStrategy
    if cushion_name == "stronge_compliant":
        omega = float(models.get("omega_ratio", STRONGE_OMEGA_RATIO))
        linear = StrongeCompliantLinear(omega_ratio=omega)
        circular = StrongeCompliantCircular(omega_ratio=omega)
    elif cushion_name == "han_2005":
        linear = Han2005Linear()
        circular = Han2005Circular()
    else:
        raise ValueError(f"unsupported cushion model {cushion_name!r}")

    resolver = Resolver(
        ball_ball=FrictionalInelastic(friction=friction),
        ball_linear_cushion=linear,
        ball_circular_cushion=circular,
        ball_pocket=CanonicalBallPocket(),
        stick_ball=InstantaneousPoint(english_throttle=1.0, squirt_throttle=1.0),
        transition=CanonicalTransition(),
        version=RESOLVER_VERSION,
    )
    return PhysicsEngine(resolver=resolver)


def initial_state(x: float, y: float, v: Iterable[float], w: Iterable[float], R: float) -> BallState:
    """BallState with the motion state implied by (v, w).

    sliding if the cloth contact point slips, rolling if it does not (w_x, w_y are then
    snapped to the exact rolling values -v_y/R, v_x/R), spinning if only w_z is
    non-zero, stationary if everything is zero.
    """
    vx, vy = (float(c) for c in v)
    wx, wy, wz = (float(c) for c in w)
    # contact-point velocity relative to the cloth: v + w x (0, 0, -R)
    ux, uy = vx - R * wy, vy + R * wx
    if vx == 0.0 and vy == 0.0 and wx == 0.0 and wy == 0.0:
        s = ptconst.stationary if wz == 0.0 else ptconst.spinning
    elif math.hypot(ux, uy) <= ROLLING_TOL and (vx != 0.0 or vy != 0.0):
        s = ptconst.rolling
        wx, wy = -vy / R, vx / R
    else:
        s = ptconst.sliding
    rvw = np.array([[x, y, R], [vx, vy, 0.0], [wx, wy, wz]], dtype=np.float64)
    return BallState(rvw=rvw, s=s, t=0.0)


def build_system(spec: Mapping[str, Any]) -> pt.System:
    table = build_table(spec["table"])
    params = build_params(spec.get("params", {}))
    balls: dict[str, pt.Ball] = {}
    for b in spec["balls"]:
        bid = str(int(b["id"]))
        if bid in balls:
            raise ValueError(f"duplicate ball id {bid}")
        state = initial_state(
            float(b["x"]),
            float(b["y"]),
            b.get("v", (0.0, 0.0)),
            b.get("w", (0.0, 0.0, 0.0)),
            params.R,
        )
        balls[bid] = pt.Ball(id=bid, state=state, params=params)
    if not balls:
        raise ValueError("spec has no balls")
    # V0 = 0: no stick-ball event; the cue only has to name an existing ball.
    cue = Cue(V0=0.0, cue_ball_id=next(iter(balls)))
    return pt.System(cue=cue, table=table, balls=balls)


# --------------------------------------------------------------------------- naming


class _Namer:
    """Maps pooltool segment / pocket ids to piramida names by geometry."""

    def __init__(self, table: Table, width: float, length: float) -> None:
        self.table = table
        self.W = width
        self.L = length
        self.tol = 1e-9 * max(1.0, width, length)

    def nearest_pocket(self, x: float, y: float) -> str | None:
        best: tuple[float, str] | None = None
        for pid, pocket in self.table.pockets.items():
            d = math.hypot(pocket.a - x, pocket.b - y)
            if best is None or d < best[0]:
                best = (d, POCKET_NAMES.get(pid, pid))
        return None if best is None else best[1]

    def rail(self, seg: LinearCushionSegment, bx: float, by: float) -> str | None:
        """Rail name if the straight segment lies along a rail line, else None."""
        (x1, y1), (x2, y2) = seg.p1[:2], seg.p2[:2]
        tol = self.tol
        half = "front" if by < self.L / 2 else "back"
        if abs(x1 - x2) <= tol and abs(x1) <= tol:
            return f"left-{half}"
        if abs(x1 - x2) <= tol and abs(x1 - self.W) <= tol:
            return f"right-{half}"
        if abs(y1 - y2) <= tol and abs(y1) <= tol:
            return "front"
        if abs(y1 - y2) <= tol and abs(y1 - self.L) <= tol:
            return "back"
        return None

    def linear(self, seg_id: str, bx: float, by: float) -> tuple[str, str]:
        """(kind, name) for a linear segment hit by a ball centred at (bx, by)."""
        seg = self.table.cushion_segments.linear[seg_id]
        name = self.rail(seg, bx, by)
        if name is not None:
            return "cushion", name
        mx, my = (seg.p1[:2] + seg.p2[:2]) / 2
        pocket = self.nearest_pocket(float(mx), float(my))
        if pocket is None:
            raise ValueError(f"segment {seg_id} is neither a rail nor near a pocket")
        return "jaw", pocket

    def circular(self, seg_id: str) -> str:
        seg = self.table.cushion_segments.circular[seg_id]
        pocket = self.nearest_pocket(float(seg.a), float(seg.b))
        if pocket is None:
            raise ValueError(f"circular segment {seg_id} without pockets")
        return pocket


def _event_ball_xy(event: pt.events.Event, ball_id: str) -> tuple[float, float]:
    ball = event.get_ball(ball_id, initial=False)
    return float(ball.state.rvw[0, 0]), float(ball.state.rvw[0, 1])


def _convert_events(shot: pt.System, namer: _Namer) -> list[JSON]:
    out: list[JSON] = []
    for ev in shot.events:
        et = ev.event_type
        ids = ev.ids
        if et == EventType.BALL_BALL:
            out.append({"t": ev.time, "kind": "ball-ball", "balls": [int(ids[0]), int(ids[1])]})
        elif et == EventType.BALL_LINEAR_CUSHION:
            bx, by = _event_ball_xy(ev, ids[0])
            kind, name = namer.linear(ids[1], bx, by)
            key = "cushion" if kind == "cushion" else "pocket"
            out.append({"t": ev.time, "kind": kind, "balls": [int(ids[0])], key: name})
        elif et == EventType.BALL_CIRCULAR_CUSHION:
            out.append(
                {
                    "t": ev.time,
                    "kind": "jaw",
                    "balls": [int(ids[0])],
                    "pocket": namer.circular(ids[1]),
                }
            )
        elif et == EventType.BALL_POCKET:
            out.append(
                {
                    "t": ev.time,
                    "kind": "pocket",
                    "balls": [int(ids[0])],
                    "pocket": POCKET_NAMES.get(ids[1], ids[1]),
                }
            )
    # pooltool already emits events in non-decreasing time; keep that order (stable).
    out.sort(key=lambda e: e["t"])
    return out


# --------------------------------------------------------------------------- public API


def run_pooltool(spec: dict[str, Any]) -> dict[str, Any]:
    """Simulate ``spec`` (piramida ``simulate`` contract) with pooltool 0.6.0."""
    shot = build_system(spec)
    engine = build_engine(spec.get("models"))
    max_events = int(spec.get("max_events", 0))
    namer = _Namer(shot.table, float(spec["table"]["width"]), float(spec["table"]["length"]))

    t0 = time.perf_counter()
    pt.simulate(shot, engine=engine, inplace=True, max_events=max_events)
    wall = time.perf_counter() - t0

    pocket_of: dict[str, str] = {}
    for pid, pocket in shot.table.pockets.items():
        for bid in pocket.contains:
            pocket_of[bid] = POCKET_NAMES.get(pid, pid)

    balls_out: list[JSON] = []
    for bid, ball in shot.balls.items():
        pocketed = ball.state.s == ptconst.pocketed
        balls_out.append(
            {
                "id": int(bid),
                "x": float(ball.state.rvw[0, 0]),
                "y": float(ball.state.rvw[0, 1]),
                "pocket": pocket_of.get(bid) if pocketed else None,
            }
        )
    balls_out.sort(key=lambda b: b["id"])

    return {
        "balls": balls_out,
        "events": _convert_events(shot, namer),
        "duration": float(shot.t),
        "wall_s": wall,
    }


def main() -> int:
    rc = 0
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            result: JSON = run_pooltool(json.loads(line))
        except Exception as exc:  # report per line, keep going
            result = {"error": f"{type(exc).__name__}: {exc}"}
            rc = 1
        sys.stdout.write(json.dumps(result) + "\n")
        sys.stdout.flush()
    return rc


if __name__ == "__main__":
    raise SystemExit(main())
