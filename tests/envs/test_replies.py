"""The opponent's choice on the tables that reply only: the same moves as on the whole batch."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from piramida.agents import make_bot
from piramida.envs import core
from tests.helpers import game_shots

pytestmark = pytest.mark.xdist_group("replies")


@pytest.mark.parametrize("count", [5, 9])
def test_a_gathered_choice_is_the_choice_on_the_whole_batch(count: int) -> None:
    states, _, keys = game_shots.load()
    states = jax.tree_util.tree_map(lambda x: x[100:164], states)  # 64 tables: a bucket of 8
    keys = keys[100:164]
    greedy = make_bot("greedy", 0.15).act
    replying = np.zeros(64, bool)
    replying[np.random.default_rng(count).choice(64, count, replace=False)] = True
    whole = greedy(states, keys)
    for moves in (
        jax.jit(lambda s, k, r: core.replies(greedy, s, k, r))(states, keys, jnp.asarray(replying)),
        core.host_replies(greedy, states, keys, replying),
    ):
        for name, field in vars(moves).items():
            np.testing.assert_array_equal(
                np.asarray(field)[replying], np.asarray(getattr(whole, name))[replying], name
            )


def test_the_random_bot_chooses_on_the_whole_batch() -> None:
    assert core.cheap_choice(make_bot("random", 0.0).act)
    assert not core.cheap_choice(make_bot("greedy", 0.0).act)


@pytest.mark.parametrize(
    ("batch", "shapes"), [(8, [8]), (core.GATHER_FROM, [core.GATHER_FROM // 8, core.GATHER_FROM])]
)
def test_below_gather_from_the_bot_is_traced_once_on_the_whole_batch(batch: int, shapes: list[int]) -> None:
    # Each trace of the bot is a copy of its program to compile inside a pass.
    states, _, keys = game_shots.load()
    states = jax.tree_util.tree_map(lambda x: x[:batch], states)
    greedy = make_bot("greedy", 0.15).act
    traced: list[int] = []

    def bot(s: object, k: jax.Array) -> object:
        traced.append(k.shape[0])
        return greedy(s, k)

    jax.eval_shape(lambda s, k, r: core.replies(bot, s, k, r), states, keys[:batch], jnp.ones(batch, bool))
    assert sorted(traced) == shapes
