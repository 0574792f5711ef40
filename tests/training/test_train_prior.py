"""The assisted prior (training.prior): a fresh policy plays the menu slot's own shot with probability p."""

from __future__ import annotations

import types

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import torch

from piramida.agents.menu import shot_menu
from piramida.envs import actions as act
from piramida.rules import ids
from piramida.rules import state as st
from piramida.training import prior


def heads(logits: np.ndarray) -> list[np.ndarray]:
    """The softmax of each correction head."""
    cuts = np.cumsum(act.ASSISTED_NVEC)[:-1]
    return [np.exp(h) / np.exp(h).sum() for h in np.split(logits, cuts)[1:]]


@pytest.mark.parametrize("p", [0.5, 0.9, 0.99])
def test_each_correction_head_starts_with_p_on_no_correction_and_the_rest_even(p: float) -> None:
    logits = prior.logits(p)
    assert np.all(logits[: act.K] == 0)  # the slot head stays uniform: which pot to play is learned
    for probs, neutral in zip(heads(logits), prior.NEUTRAL, strict=True):
        assert probs[neutral] == pytest.approx(p, abs=1e-6)
        others = np.delete(probs, neutral)
        assert np.allclose(others, (1 - p) / len(others))


def test_p_zero_is_the_uniform_start() -> None:
    assert np.all(prior.logits(0.0) == 0)


def test_the_neutral_corrections_play_the_menu_slots_own_shot() -> None:
    states = st.new_games(jnp.asarray([ids.FREE]), jax.random.PRNGKey(3)[None], jnp.zeros(1, jnp.int32))
    found = shot_menu(states, act.MENU)
    state, table = (jax.tree_util.tree_map(lambda x: x[0], tree) for tree in (states, found))
    assert bool(jnp.any(table.valid))
    slot = int(np.argmax(np.asarray(table.valid)))
    action = jnp.asarray([slot, *prior.NEUTRAL])
    fallback = act.assisted_fallbacks(states, action[None], found, st.DEFAULT_DIMS)
    move = act.decode_assisted_table(state, action, table, jax.tree_util.tree_map(lambda x: x[0], fallback))
    pick = jax.tree_util.tree_map(lambda x: np.asarray(x)[slot], table.moves)
    assert float(move.phi) == pytest.approx(float(pick.phi))
    assert float(move.speed) == pytest.approx(float(pick.speed))
    assert float(move.a) == float(pick.a) and float(move.b) == float(pick.b)


def test_apply_sb3_sets_the_action_heads_bias() -> None:
    net = torch.nn.Linear(8, sum(act.ASSISTED_NVEC))
    torch.nn.init.zeros_(net.weight)
    model = types.SimpleNamespace(policy=types.SimpleNamespace(action_net=net))
    prior.apply_sb3(model, 0.9)
    out = net(torch.randn(3, 8)).detach().numpy()
    for row in out:
        assert heads(row)[0][prior.NEUTRAL[0]] == pytest.approx(0.9, abs=1e-5)
