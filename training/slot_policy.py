"""jax-ppo's slot policy: the trained bot's network (`agents.scorer`) as PPO's actor and critic.

The `menu` observation (`envs.observation`) describes every slot of the assisted actions'
menu; the scorer's logits over the slots the env allows are the policy and its position
value is the critic, so PPO can start from a distilled policy (`training.distill`, the
shipped `trained` one) and improve it by play. It picks slots only: the corrections stay
at none (`prior.NEUTRAL`: aim 0, power x1, no added spin), as the trained bot plays its
slots, so a fine-tuned policy is again a `trained` bot's `.npz` (`export`). Decisions
(G6, G12.2, DYN-7, penalty and exchange balls) are not learnt: the learner takes the
search's closed-form best choice, as the trained bot does, and those moves are marked so
that PPO's policy loss leaves them out.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import astuple
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp

from piramida.agents import scorer
from piramida.agents.search import best_decisions
from piramida.agents.slots import SlotView
from piramida.agents.trained import SHIPPED, VALUE_CONFIG, trained_moves
from piramida.envs import actions as act
from piramida.physics import provenance
from piramida.rules import ids
from piramida.rules import state as st
from piramida.rules.setup import default_setup
from piramida.training.config import ConfigError, TrainConfig
from piramida.training.networks import MASKED
from piramida.training.prior import NEUTRAL

FRESH_WIDTH = 128  # a fresh scorer's width (the shipped policy's)


def init_params(policy: str, key: Any) -> Any:
    """The scorer's parameters to start from: fresh (`slots`), the shipped ones (`trained`) or a file's.

    ConfigError names a file that is not a policy, or one made for another menu.
    """
    if policy == "slots":
        return scorer.init_params(FRESH_WIDTH, act.MENU.size, key)
    path = SHIPPED if policy == "trained" else Path(policy)
    try:
        params, meta = scorer.load(path)
    except scorer.PolicyFileError as error:
        raise ConfigError(f"policy: {error}") from error
    if meta["menu"] != list(astuple(act.MENU)):
        raise ConfigError(
            f"policy: {path} scores another menu ({meta['menu']}) than the env's assisted actions"
        )
    return params


def _width(params: Any) -> int:
    """The scorer's width, from its parameters' shapes (static under `jit`)."""
    return int(params["ball_in"]["kernel"].shape[-1])


def _scores(params: Any, obs: dict[str, Any]) -> tuple[Any, Any]:
    """(logits (B, K), position value (B,)) of `menu` observations."""
    view = SlotView(slots=obs["slots"], balls=obs["balls"], context=obs["context"], legal=obs["legal"] > 0.5)
    logits, _, value = scorer.score(params, _width(params), view)
    return logits, value


def value(params: Any, obs: dict[str, Any]) -> Any:
    """The critic: the scorer's position value (B,)."""
    return _scores(params, obs)[1]


def _slot_log_probs(params: Any, obs: dict[str, Any], mask: Any) -> Any:
    """(B, K) log-probabilities of the slots the env allows (`mask`'s slot head).

    A slot the env allows but the menu does not hold (slot 0 of an empty menu, the safety
    shot) gets logit 0.
    """
    logits, _ = _scores(params, obs)
    allowed = mask[:, : act.K]
    logits = jnp.where(allowed, jnp.where(obs["legal"] > 0.5, logits, 0.0), MASKED)
    return jax.nn.log_softmax(logits, axis=-1)


def _actions(slots: Any) -> Any:
    """(B, 5) assisted actions: the slots with no corrections."""
    neutral = jnp.broadcast_to(jnp.asarray(NEUTRAL, jnp.int32), (slots.shape[0], len(NEUTRAL)))
    return jnp.concatenate([slots[:, None].astype(jnp.int32), neutral], axis=1)


def decision_slots(games: st.GameState, noise: Any) -> Any:
    """(B,) the assisted slot of the search's best decision on each table (option x 16 + ball).

    Computed only when some table has a decision pending (a `cond` on the batch).
    """

    def best() -> Any:
        decision = best_decisions(games, noise, VALUE_CONFIG, default_setup())
        return decision.option * ids.N_BALLS + jnp.maximum(decision.ball, 0)

    return jax.lax.cond(
        jnp.any(games.phase == st.DECISION), best, lambda: jnp.zeros(games.phase.shape, jnp.int32)
    )


def sample(
    params: Any, obs: dict[str, Any], mask: Any, key: Any, games: st.GameState, noise: Any
) -> tuple[Any, Any, Any]:
    """(actions (B, 5), log-probabilities (B,), learned (B,)): a drawn slot, or the search's decision."""
    log_probs = _slot_log_probs(params, obs, mask)
    drawn = jax.random.categorical(key, log_probs)
    deciding = games.phase == st.DECISION
    slots = jnp.where(deciding, decision_slots(games, noise), drawn)
    log_prob = jnp.where(deciding, 0.0, jnp.take_along_axis(log_probs, drawn[:, None], 1)[:, 0])
    return _actions(slots), log_prob, ~deciding


def log_prob(params: Any, obs: dict[str, Any], mask: Any, actions: Any) -> tuple[Any, Any]:
    """The log-probabilities (B,) of the actions' slots and the slot policy's entropy (B,)."""
    log_probs = _slot_log_probs(params, obs, mask)
    picked = jnp.take_along_axis(log_probs, actions[:, :1], 1)[:, 0]
    return picked, -jnp.sum(jnp.exp(log_probs) * log_probs, axis=-1)


def as_bot(params: Any, noise: Any) -> Callable[[st.GameState, Any], Any]:
    """The policy as a bot (the trained bot's `policy` level): `self` in a jax-ppo league."""
    width = _width(params)
    return lambda states, keys: trained_moves(params, states, keys, noise, width, act.MENU, None)


def export(path: Path, params: Any, config: TrainConfig, steps: int, seconds: float) -> None:
    """Write the policy as a `trained` bot's `.npz` and `.json` (`agents.scorer.save`), atomically."""
    meta = {
        "width": _width(params),
        "slots": act.MENU.size,
        "menu": list(astuple(act.MENU)),
        "steps": steps,
        "hours": round(seconds / 3600.0, 3),
        "made": {"trainer": "jax-ppo", "config": config.to_json(), "machine": provenance.machine()},
    }
    scorer.save(path, params, meta)
