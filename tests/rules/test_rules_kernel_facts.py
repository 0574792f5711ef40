"""The kernel's notes of a shot's events against the referee's reading of the log, on recorded game shots.

The referee of the games (`rules.game.play`) rules on the facts the kernel noted as each
shot ran (`physics.engine.facts`, `rules.kernel_facts`); the log-reading `shot_facts`
stays the reference. Over the 5,475 recorded shots of `tests/data/game_shots.npz` (all
four variants, breaks and shots from hand included) both must give the same facts, field
by field, whether the kernel kept the log or not, and the referee the same verdicts and
next states. The hand-written logs of
`test_rules_legality` are read both ways too (its `facts` helper).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from helpers import game_shots

import piramida.physics as ph
from piramida.physics import noise
from piramida.rules import state as st
from piramida.rules.game import CAPACITY, prepare
from piramida.rules.kernel_facts import facts_of
from piramida.rules.referee import adjudicate, record_of
from piramida.rules.shot_facts import shot_facts

pytestmark = pytest.mark.xdist_group("kernel_facts")
DIMS = st.DEFAULT_DIMS
BALLS = jnp.arange(16)


@pytest.fixture(scope="module")
def shots() -> dict[str, Any]:
    """The recorded shots prepared and simulated as the games played them."""
    states, moves, keys = game_shots.load()
    magnitudes = jnp.full(keys.shape[0], noise.level("pro"))
    _, called, shot, balls, strikes = jax.vmap(lambda s, m, k, g: prepare(s, m, k, g, DIMS.R))(
        states, moves, keys, magnitudes
    )
    options = {"capacity": CAPACITY, "validate": False, "transitions": False}
    result = ph.simulate(ph.preset(), balls, strikes, **options)
    unlogged = ph.simulate(ph.preset(), balls, strikes, keep_log=False, **options)
    return {"states": called, "shot": shot, "result": result, "unlogged": unlogged}


@jax.jit
def _both_facts(states: st.GameState, shot: st.Shot, result: ph.ShotResult) -> tuple[Any, Any]:
    placing = (states.phase == st.BREAK) | (states.phase == st.IN_HAND)
    own_mask = shot.ball[:, None] == BALLS
    objects = (states.on_table | (placing[:, None] & own_mask)) & ~own_mask
    is_break = states.phase == st.BREAK
    from_log = jax.vmap(lambda log, start, own, ob, br: shot_facts(log, start, own, ob, ob & br, br))(
        result.log, result.start, shot.ball, objects, is_break
    )
    from_kernel = jax.vmap(facts_of)(
        result.facts, result.start, result.log.overflow, shot.ball, objects, is_break
    )
    return from_log, from_kernel


def differences(expected: Any, got: Any) -> dict[str, int]:
    """For each field of two pytrees of arrays with a leading shot axis: how many shots differ."""
    out = {}
    for name in vars(expected):
        a, b = np.asarray(getattr(expected, name)), np.asarray(getattr(got, name))
        count = int(np.sum(np.any((a != b).reshape(a.shape[0], -1), axis=1)))
        if count:
            out[name] = count
    return out


def test_the_recorded_shots_cover_every_variant_breaks_and_shots_from_hand(shots: dict[str, Any]) -> None:
    states = shots["states"]
    assert states.phase.shape[0] >= 5000
    for variant in range(4):
        mine = np.asarray(states.variant) == variant
        assert np.sum(mine & (np.asarray(states.phase) == st.BREAK)) >= 100
    assert np.sum(np.asarray(states.phase) == st.IN_HAND) >= 50


def test_g20_g12_facts_read_by_the_kernel_are_the_logs(shots: dict[str, Any]) -> None:
    from_log, from_kernel = _both_facts(shots["states"], shots["shot"], shots["result"])
    assert differences(from_log, from_kernel) == {}
    # The shots exercise the chains, not only the plain clauses.
    for name in ("g20_2_2", "g20_4_2", "g20_3_2", "g20_2_1", "g12_1_2", "frozen_partner_contact"):
        assert int(np.sum(np.asarray(getattr(from_log, name)))) >= 20, name


def test_a_shot_whose_log_is_not_kept_has_the_same_facts_and_balls(shots: dict[str, Any]) -> None:
    kept, unlogged = shots["result"], shots["unlogged"]
    assert unlogged.log.t.shape[-1] == 1 and kept.log.t.shape[-1] == CAPACITY
    for name in ("facts", "final", "pocket", "start"):
        assert differences(getattr(kept, name), getattr(unlogged, name)) == {}, name
    np.testing.assert_array_equal(np.asarray(kept.log.count), np.asarray(unlogged.log.count))
    np.testing.assert_array_equal(np.asarray(kept.log.overflow), np.asarray(unlogged.log.overflow))


def test_verdicts_and_next_states_from_the_kernels_facts_are_the_logs(shots: dict[str, Any]) -> None:
    record = record_of(shots["result"])
    assert record.facts is not None
    by_kernel = adjudicate(shots["states"], shots["shot"], record)
    by_log = adjudicate(shots["states"], shots["shot"], dataclasses.replace(record, facts=None))
    assert differences(by_log[0], by_kernel[0]) == {}
    assert differences(by_log[1], by_kernel[1]) == {}
