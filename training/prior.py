"""Where an assisted-mode policy starts: on the menu slot's own shot, not on a random correction.

In the `assisted` action mode (`envs.actions`) a move is a shot-menu slot plus four
corrections: aim (-1 to +1 degree), power (x0.6 to x1.6) and side and vertical spin. A
pot slot's aim is already the throw-corrected ghost-ball line, and a pyramid pocket is
barely wider than a ball, so a random aim correction of half a degree misses most pots: a
policy whose heads start uniform pots about 7 % of its shots against greedy's 73 % (Free,
`pro` noise; measured in docs/training.md) and spends its first rollouts
learning to stop correcting. Starting each correction head with probability `p` on "no
correction" (the rest spread evenly over the other choices) keeps the exploration but
starts from the slot's own shot; the slot head stays uniform over the legal slots, so
which pot to play is still learned from nothing. `p = 0` gives the uniform start.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from piramida.envs import actions as act

DEFAULT = 0.9
# The "no correction" choice of each correction head: aim 0 degrees, power x1.0, no spin.
NEUTRAL = (
    (act.AIM_STEPS - 1) // 2,
    round((1.0 - act.POWER_RANGE[0]) / (act.POWER_RANGE[1] - act.POWER_RANGE[0]) * (act.POWER_STEPS - 1)),
    (act.SPIN_STEPS - 1) // 2,
    (act.SPIN_STEPS - 1) // 2,
)


def logits(p: float) -> np.ndarray:
    """The starting logits of the assisted heads, (sum(ASSISTED_NVEC),): 0 but for the neutral corrections."""
    out = np.zeros(sum(act.ASSISTED_NVEC), np.float32)
    if p <= 0:
        return out
    start = act.ASSISTED_NVEC[0]
    for size, neutral in zip(act.ASSISTED_NVEC[1:], NEUTRAL, strict=True):
        out[start + neutral] = math.log(p * (size - 1) / (1 - p))
        start += size
    return out


def apply_sb3(model: Any, p: float) -> None:
    """Set a fresh stable-baselines3 policy's action-head bias to `logits(p)` (assisted mode only).

    SB3 initialises the action head's weights near zero (orthogonal, gain 0.01), so its
    starting logits are close to this bias whatever the observation.
    """
    import torch

    head = model.policy.action_net
    with torch.no_grad():
        head.bias.copy_(torch.as_tensor(logits(p), dtype=head.bias.dtype, device=head.bias.device))
