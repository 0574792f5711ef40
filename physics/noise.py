"""The execution-noise model: a strike perturbed the way a real cue arm misses.

Agents are judged under realistic execution by adding independent zero-mean Gaussian
noise to each strike parameter. The unit is the Computer Olympiad's FastFiz default
(magnitude 1: sigma 0.125 degrees on the aim, 0.1 degrees on the elevation, 0.075 m/s on
the speed, 0.5 mm on each tip offset); a `magnitude` scales all of them together.
Pyramid pockets are barely wider than a ball, so the useful magnitudes are far below 1:
`LEVELS` names the ones calibrated on the pyramid table (see `benchmarks/noise_levels.py`).
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import jax
import jax.numpy as jnp

from piramida.physics.strike import MAX_ELEVATION, MAX_SPEED, MAX_TIP_OFFSET, Strike

# FastFiz's defaults (magnitude 1).
SIGMA_PHI_DEG = 0.125
SIGMA_THETA_DEG = 0.1
SIGMA_SPEED = 0.075  # m/s
SIGMA_TIP_M = 0.0005  # m, on each of the side and vertical offsets

# Named magnitudes, calibrated on the pyramid-12ft table with a straight corner pot over
# 1 m + 1 m (benchmarks/noise_levels.py): `pro` pots it about 95 % of the time,
# `amateur` about 50 %. The cues of the play page's bottom levels are set by what they pot
# in frames, where the shots greedy picks are easier than this one (docs/levels.md, Free):
# `improver` (1.0: greedy pots 56.8 % of its shots in frames) and `novice` (2.0: greedy
# 38.8 %, the casual bot 31.8 %; benchmarks/level_ladder.py). Measured pot rate of the
# calibration shot (2048 noisy repeats each, `--repeats 2048 --seed 1`, +-0.011 at most):
#   magnitude  0     0.05  0.1   0.15  0.2   0.25  0.3   0.4   0.5   0.6   0.7   0.8
#   pot rate   1.000 1.000 0.999 0.954 0.859 0.767 0.679 0.554 0.448 0.393 0.351 0.302
#   magnitude  1.0   1.25  1.5   2.0   3.0
#   pot rate   0.242 0.175 0.152 0.108 0.073
# (95 % falls at 0.152 and 50 % at 0.451 on this curve.)
LEVELS: dict[str, float] = {"none": 0.0, "pro": 0.15, "amateur": 0.45, "improver": 1.0, "novice": 2.0}


MAX_MAGNITUDE = 10.0  # aim sigma 1.25 degrees, speed 0.75 m/s: far past any player (pot rate ~0)


class NoiseError(ValueError):
    """A noise setting that is neither a level name nor a magnitude in range; the message names the field."""


def level(value: Any, field: str = "noise") -> float:
    """The magnitude of a noise setting: a `LEVELS` name, or a number (or its text) in [0, MAX_MAGNITUDE].

    The one reader of noise settings (train, eval, play, the envs), so that `inf`, `nan`, a
    negative number or a boolean is refused everywhere alike; NoiseError names `field`.
    """
    if isinstance(value, str):
        if value.strip() in LEVELS:
            return LEVELS[value.strip()]
        try:
            magnitude = float(value)
        except ValueError:
            raise NoiseError(
                f"{field}: unknown level {value!r:.40}; expected one of {sorted(LEVELS)} "
                f"or a magnitude 0..{MAX_MAGNITUDE:g}"
            ) from None
    elif isinstance(value, numbers.Real) and not isinstance(value, bool):
        try:
            magnitude = float(value)
        except OverflowError:  # an integer too large for a float
            magnitude = math.inf
    else:
        raise NoiseError(f"{field}: expected a level name or a magnitude, got {type(value).__name__}")
    if not 0.0 <= magnitude <= MAX_MAGNITUDE:  # NaN too
        raise NoiseError(
            f"{field}: magnitude must be a number >= 0 and <= {MAX_MAGNITUDE:g}, got {value!r:.40}"
        )
    return magnitude


def perturb(strike: Strike, key: Any, magnitude: Any, R: Any) -> Strike:
    """The strike as executed: each parameter plus Gaussian noise of sigma `magnitude` x FastFiz's.

    Works on one strike or, with `key` of shape (B, 2) and fields (B,), on a batch (each
    table draws from its own key, so a table's noise does not depend on the batch size).
    The result stays in the kernel's accepted ranges: speed in (0, MAX_SPEED], elevation in
    [0, MAX_ELEVATION], tip offsets inside MAX_TIP_OFFSET.

    Args:
      strike: the intended strike.
      key: PRNG key (2,) or one per table (B, 2).
      magnitude: noise magnitude (scalar or (B,)); 0 returns the strike unchanged.
      R: ball radius (m), to turn the tip sigma into fractions of R.

    """
    if jnp.ndim(key) == 2:
        return jax.vmap(lambda s, k, m: perturb(s, k, m, R))(
            strike, key, jnp.broadcast_to(magnitude, jnp.shape(key)[:1])
        )
    z = jax.random.normal(key, (5,))
    m = jnp.asarray(magnitude, jnp.float64)
    a = strike.a + m * z[3] * SIGMA_TIP_M / R
    b = strike.b + m * z[4] * SIGMA_TIP_M / R
    tip = jnp.sqrt(a * a + b * b)
    shrink = jnp.where(tip > MAX_TIP_OFFSET, MAX_TIP_OFFSET / jnp.maximum(tip, 1e-12), 1.0)
    return Strike(
        ball=strike.ball,
        speed=jnp.clip(strike.speed + m * z[0] * SIGMA_SPEED, 1e-3, MAX_SPEED),
        phi=strike.phi + m * z[1] * SIGMA_PHI_DEG,
        theta=jnp.clip(strike.theta + m * z[2] * SIGMA_THETA_DEG, 0.0, MAX_ELEVATION),
        a=a * shrink,
        b=b * shrink,
    )
