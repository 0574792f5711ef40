"""A stable-baselines3 policy that plays on JAX arrays, handed over by DLPack.

`model.predict` takes numpy: every move of a saved or live policy (eval, play, self-play,
a league opponent) would copy the observations from the JAX device to the host, and the
actions back. `TorchPolicy` hands the JAX observations to torch with `torch.from_dlpack`
(no copy when both sit on the same device: the CPU here, one GPU there), runs the
policy's own `_predict` and bounds the actions as `predict` does. Arrays on another
device than the policy's are copied, as they must be.

The actions (a few numbers a table) go back through the host, so that they reach JAX
uncommitted to a device, like every other bot's moves: JAX compiles a program once per
pattern of committed and uncommitted arguments, and a DLPack array is committed, so a
game mixing a policy's moves with another bot's compiled its programs three times over
(50 s each for `play` on this CPU, `piramida eval` with a saved policy).
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import torch
from gymnasium import spaces

# JAX's platform name for each torch device type whose memory it can share.
_PLATFORMS = {"cpu": "cpu", "cuda": "gpu"}


def shares_memory(array: Any, device: torch.device) -> bool:
    """Whether `array` (a JAX array) lives where torch's `device` is, so DLPack needs no copy."""
    if not isinstance(array, jax.Array) or len(array.devices()) != 1:  # numpy, or sharded: copied
        return False
    (where,) = array.devices()
    return where.platform == _PLATFORMS.get(device.type) and (device.index or 0) == where.id


def to_torch(array: Any, device: torch.device) -> torch.Tensor:
    """`array` (JAX or numpy) as a tensor on `device`: shared by DLPack where it can be, else copied."""
    if shares_memory(array, device):
        return torch.from_dlpack(array)
    return torch.as_tensor(np.array(array), device=device)  # a writable copy, as torch wants


def to_jax(tensor: torch.Tensor) -> jax.Array:
    """`tensor` as an uncommitted JAX array on JAX's default device, through the host (module docstring)."""
    return jnp.asarray(tensor.detach().cpu().numpy())


class TorchPolicy:
    """A loaded SB3 model's deterministic actions for a batch of JAX (or numpy) observations.

    A MaskablePPO model (`masked`) takes the legal choices too, as it trained: unmasked, its
    argmax may name a slot that is not legal, and a decision is then refused again and again.
    """

    on_device = True  # `envs.opponents.ObservationOpponent` passes JAX arrays, not numpy

    def __init__(self, model: Any, masked: bool = False) -> None:
        """Wrap `model` (PPO, SAC or MaskablePPO); `masked` for MaskablePPO."""
        self.policy, self.takes_masks = model.policy, masked
        self.device = torch.device(model.device)
        space = self.policy.action_space
        self._bounds = None
        if isinstance(space, spaces.Box):
            self._bounds = tuple(torch.as_tensor(b, device=self.device) for b in (space.low, space.high))

    def __call__(self, observations: Any, masks: Any = None) -> jax.Array:
        """Actions (B, ...) for observations (B, ...) (an array or a dict) and masks (B, sum(nvec))."""
        obs = jax.tree_util.tree_map(lambda x: to_torch(x, self.device), observations)
        self.policy.set_training_mode(False)
        with torch.no_grad():
            if self.takes_masks:
                mask = None if masks is None else to_torch(masks, self.device)
                actions = self.policy._predict(obs, deterministic=True, action_masks=mask)
            else:
                actions = self.policy._predict(obs, deterministic=True)
        return to_jax(self._bounded(actions))

    def _bounded(self, actions: torch.Tensor) -> torch.Tensor:
        """As SB3's `predict`: a squashed Box rescaled to its bounds, another clipped; ints as int32."""
        if self._bounds is None:
            return actions.to(torch.int32)  # JAX's default integer width
        low, high = self._bounds
        if self.policy.squash_output:
            return low + 0.5 * (actions + 1.0) * (high - low)
        return torch.clamp(actions, low, high)
