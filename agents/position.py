"""The value of a position: how likely the player to move is to pot next, and what a state is worth.

A search bot simulates its candidate shots and must then judge the table each one leaves:
a pot that leaves nothing is worth less than one that leaves an easy next ball, and a
miss that leaves the opponent a sitter is worse than one that leaves him nothing. This
module judges a table in closed form, cheaply enough to run on every simulated outcome
(about a hundred per decision): the best direct pot's chance under the execution noise.

The chance of a pot: a ghost-ball pot forgives an aim error of
`room / to_pocket * 2R cos(cut) / travel` radians (the pocket's half-room seen from the
object ball, scaled by the collision's lever; the same geometry `candidates` ranks by),
and the cue's aim error is Gaussian, so the chance is `erf(tolerance / (sqrt 2 sigma))`.
Sigma grows linearly with the noise magnitude, calibrated so that the shot
`benchmarks/noise_levels.py` calibrates `physics.noise.LEVELS` on (straight, 1 m + 1 m)
goes in half the time at the `amateur` magnitude, as measured there; at magnitude 0 a
floor (`PLAN_SIGMA_MAGNITUDE`) stands for what the closed-form geometry does not know
(throw, kisses, the jaws). Paths are checked more coarsely than in `candidates` (the own
ball's path to the object ball's centre, not to the ghost), which is what makes it cheap.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from piramida.agents.candidates import (
    MAX_CUT_DEG,
    N,
    near_segment,
    object_balls,
    own_balls,
    pocket_mouths,
    pocket_room,
    unit,
)
from piramida.physics.kernel import contact_distance
from piramida.physics.noise import LEVELS
from piramida.rules import ids
from piramida.rules import state as st
from piramida.rules.setup import Setup, default_setup
from piramida.rules.variants import CLASSIC_VALUES

HAND_TRAVEL = 0.5  # m: a ball in hand is placed for a straight shot about this far from the ghost
PLAN_SIGMA_MAGNITUDE = 0.05  # the model's own error, as a noise magnitude (applies at magnitude 0)
CALIBRATION_DISTANCE = 1.0  # m: the calibration shot's object-to-pocket and own-to-object distances
HALF = 0.4769362762044699  # erfinv(0.5): the chance is one half where tolerance = HALF sqrt(2) sigma


def tolerance(room: Any, to_pocket: Any, cut_cos: Any, travel: Any, R: Any) -> Any:
    """The aim error (radians) a ghost-ball pot forgives (elementwise)."""
    return (
        jnp.maximum(room, 0.0) / jnp.maximum(to_pocket, 0.05) * 2.0 * R * cut_cos / jnp.maximum(travel, 0.05)
    )


def sigma_per_magnitude(
    setup: Setup | None = None,
) -> Any:
    """The aim sigma (radians) of magnitude 1 that makes the calibration shot a 50 % pot at `amateur`.

    The calibration shot is `benchmarks/noise_levels.py`'s: straight into the front-left
    corner along its axis, object ball 1 m from the aim point, own ball 1 m behind it.
    """
    setup = default_setup() if setup is None else setup
    noses, nose_radius, _ = pocket_mouths(setup.table)
    axis = jnp.asarray([[-1.0, -1.0]]) / np.sqrt(2.0)  # from the table into pocket 0
    heading = jnp.broadcast_to(axis, (6, 2))
    room = pocket_room(
        heading, noses, nose_radius, contact_distance(setup.table, setup.params, setup.models)
    )[0]
    tol = tolerance(room, CALIBRATION_DISTANCE, 1.0, CALIBRATION_DISTANCE, setup.params.R)
    return tol / (HALF * np.sqrt(2.0) * LEVELS["amateur"])


@dataclass(frozen=True)
class PotGeometry:
    """One table's direct pots seen from the pocket end (fields (16, 6) per object ball and pocket).

    Attributes:
      ghost: (16, 6, 2) where the own ball's centre must be at contact.
      to_target: (16, 6, 2) the object ball's direction to the pocket's aim point.
      to_pocket: the object ball's distance to it (m).
      room: the aim error the pocket's mouth forgives from that direction (m).
      clear: no other ball within 2R of the object ball's path.

    """

    ghost: Any
    to_target: Any
    to_pocket: Any
    room: Any
    clear: Any


def pot_geometry(
    state: st.GameState,
    setup: Setup | None = None,
) -> PotGeometry:
    """The pocket end of every direct pot on one table (`PotGeometry`)."""
    setup = default_setup() if setup is None else setup
    R = setup.dims.R
    pos, on = state.positions, state.on_table
    balls = jnp.arange(N)
    noses, nose_radius, mouth_aim = pocket_mouths(setup.table)
    reach = contact_distance(setup.table, setup.params, setup.models)
    to_target, to_pocket = unit(mouth_aim[None] - pos[:, None])  # (T, P, 2), (T, P)
    kiss = near_segment(pos[None, None], pos[:, None, None], mouth_aim[None, :, None], 2.0 * R)  # (T, P, 16)
    return PotGeometry(
        ghost=pos[:, None] - 2.0 * R * to_target,
        to_target=to_target,
        to_pocket=to_pocket,
        room=pocket_room(to_target, noses, nose_radius, reach),
        clear=~jnp.any(on & (balls != balls[:, None, None]) & kiss, axis=-1),
    )


def aim_sigma(
    magnitude: Any,
    setup: Setup | None = None,
) -> Any:
    """The aim sigma (radians) a plan expects at noise `magnitude` (never below the model's own error)."""
    setup = default_setup() if setup is None else setup
    return sigma_per_magnitude(setup) * jnp.maximum(magnitude, PLAN_SIGMA_MAGNITUDE)


def _tolerance_of(geometry: PotGeometry, cut_cos: Any, travel: Any, R: float) -> Any:
    """The aim error a direct pot forgives, 0 where it is not on (shapes (..., 16, 6))."""
    tol = tolerance(geometry.room, geometry.to_pocket, cut_cos, travel, R)
    ok = geometry.clear & (geometry.room > 0.0) & (cut_cos > np.cos(np.radians(MAX_CUT_DEG)))
    return jnp.where(ok, tol, 0.0)


def _chance(tol: Any, sigma: Any) -> Any:
    """The chance that a Gaussian aim error of `sigma` stays within `tol` (0 for 0)."""
    return jax.scipy.special.erf(tol / (np.sqrt(2.0) * sigma))


def chance_of(geometry: PotGeometry, cut_cos: Any, travel: Any, sigma: Any, R: float) -> Any:
    """The chance a direct pot goes in, from the own ball's cut and travel (shapes (..., 16, 6))."""
    return _chance(_tolerance_of(geometry, cut_cos, travel, R), sigma)


def pot_chance_table(
    state: st.GameState,
    magnitude: Any,
    setup: Setup | None = None,
    geometry: PotGeometry | None = None,
) -> Any:
    """One table: (own ball, object ball, pocket) -> the chance the direct pot goes in, (16, 16, 6).

    Own balls and object balls as the rules allow them (`own_balls`, `object_balls`: G4,
    G21.2); a ball in hand (BREAK aside) counts as placed for a straight shot
    `HAND_TRAVEL` from the ghost. Zero where the pot is not on, and in the BREAK phase
    (nobody's advantage there). `geometry` is `pot_geometry`'s, for a caller that has it.
    """
    setup = default_setup() if setup is None else setup
    tol = _tolerance_table(state, setup, geometry)
    return _chance(tol, aim_sigma(magnitude, setup))


def _tolerance_table(
    state: st.GameState,
    setup: Setup,
    geometry: PotGeometry | None,
) -> Any:
    """(16, 16, 6) the aim error each direct pot forgives, 0 where it is not on (`pot_chance_table`)."""
    R = setup.dims.R
    pos, on = state.positions, state.on_table
    balls = jnp.arange(N)
    geometry = pot_geometry(state, setup) if geometry is None else geometry
    # The own ball's path to the object ball, clear of every third ball.
    kiss = near_segment(pos[None, None], pos[:, None, None], pos[None, :, None], 2.0 * R)  # (O, T, 16)
    thirds = on & (balls != balls[:, None, None]) & (balls != balls[None, :, None])
    own_clear = ~jnp.any(thirds & kiss, axis=-1)
    # The own ball's travel to each ghost and the cosine of the cut, by coordinates (O, T, P).
    dx = geometry.ghost[None, ..., 0] - pos[:, None, None, 0]
    dy = geometry.ghost[None, ..., 1] - pos[:, None, None, 1]
    travel = jnp.sqrt(dx * dx + dy * dy)
    along = dx * geometry.to_target[None, ..., 0] + dy * geometry.to_target[None, ..., 1]
    cut_cos = along / jnp.maximum(travel, 1e-12)
    in_hand = st.in_hand(state)
    fixed = jnp.where(state.own_ball >= 0, state.own_ball, ids.COLOURED)
    from_hand = (in_hand & (balls == fixed))[:, None, None]
    cut_cos = jnp.where(from_hand, 1.0, cut_cos)
    travel = jnp.where(from_hand, HAND_TRAVEL, travel)
    valid = (
        own_balls(state)[:, None, None]
        & object_balls(state, setup.dims)[None, :, None]
        & (balls[:, None, None] != balls[None, :, None])
        & (own_clear[..., None] | from_hand)
        & (state.phase != st.BREAK)
    )
    return jnp.where(valid, _tolerance_of(geometry, cut_cos, travel, R), 0.0)


def pot_chances(
    state: st.GameState,
    magnitude: Any,
    setup: Setup | None = None,
) -> tuple[Any, Any]:
    """One table: the best direct pot's chance for the player to move, and its best expected points.

    In Classic a pot is worth its ball's value (CLS-5.1), elsewhere one point; (0, 0) where
    no pot is on (`pot_chance_table`). The chance grows with the aim error a pot forgives,
    so only each object ball's most forgiving pot needs one (16 `erf`s, not 1,536).
    """
    setup = default_setup() if setup is None else setup
    best = jnp.max(_tolerance_table(state, setup, None), axis=(0, 2))  # (16,)
    chance = _chance(best, aim_sigma(magnitude, setup))
    worth = jnp.where(state.variant == ids.CLASSIC, CLASSIC_VALUES, 1).astype(chance.dtype)
    return jnp.max(chance), jnp.max(chance * worth)


# The search bot's own pot rate in Free pyramid by noise magnitude (docs/search_strength.json,
# against greedy: 96.3 % with no noise, 88.6 % at `pro`, 83.7 % at `amateur`): how often a visit goes on.
RUN_RATE_MAGNITUDES = (0.0, 0.15, 0.45)
RUN_RATES = (0.963, 0.886, 0.837)


def run_rate(magnitude: Any) -> Any:
    """The chance that a shot keeps the visit going at this noise magnitude (`RUN_RATES`)."""
    return jnp.interp(magnitude, jnp.asarray(RUN_RATE_MAGNITUDES), jnp.asarray(RUN_RATES))


def race_table(rate: Any, target: int) -> Any:
    """(target + 1, target + 1): the chance that the player to move wins a race, by balls needed.

    `P[i, j]`: the mover needs `i` balls, the other `j`, and every shot of either player
    pots one ball with chance `rate` (the visit goes on) or passes the turn. From
    `P[i, j] = rate P[i-1, j] + (1 - rate)(1 - P[j, i])` and its mirror,
    `P[i, j] = (P[i-1, j] - (1 - rate) P[j-1, i] + 1 - rate) / (2 - rate)`, filled by
    increasing `i + j` (a few dozen scalars, traced once).
    """
    miss = 1.0 - rate
    # P[0, j] = 1: the mover has won; P[i, 0] = 0: the other has.
    rows = [[jnp.asarray(float(i == 0 < j)) for j in range(target + 1)] for i in range(target + 1)]
    for total in range(2, 2 * target + 1):
        for i in range(max(1, total - target), min(target, total - 1) + 1):
            j = total - i
            rows[i][j] = (rows[i - 1][j] - miss * rows[j - 1][i] + miss) / (2.0 - rate)
    return jnp.stack([jnp.stack(row) for row in rows])


def race_value(need: Any, chance: Any, mover_is_me: Any, magnitude: Any, target: int) -> Any:
    """The chance that I win a race to `target` balls, in [0, 1] (`race_table`).

    `need`: (mine, the opponent's) balls still needed (>= 1 each); `chance`: the mover's
    first shot's pot chance (`pot_chances`), the shots after it potting at `run_rate`.
    """
    table = race_table(run_rate(magnitude), target)
    mine, theirs = need[0], need[1]
    mover, other = jnp.where(mover_is_me, mine, theirs), jnp.where(mover_is_me, theirs, mine)
    mover_wins = chance * table[mover - 1, other] + (1.0 - chance) * (1.0 - table[other, mover])
    return jnp.where(mover_is_me, mover_wins, 1.0 - mover_wins)
