"""The one engine (`envs.functional`): its passes driven from Python play the games its `while_loop` plays.

The Gymnasium envs drive the passes from the host (`advance_on_host`, any opponent); the
pure-JAX env and jax-ppo run them in one traced `lax.while_loop` (`advance`). Both must
leave every table in the same game, bit for bit, with the same record of the step.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from piramida.agents import make_bot
from piramida.envs import core, functional, make_jax

TABLES = 8
# One worker for the pure-JAX env's tests (tests/envs/test_jax_env.py, the env_speed
# smoke test): the first compiles its 8-table program, the others load it from the cache.
pytestmark = pytest.mark.xdist_group("jax-env")


def assert_same(a: object, b: object) -> None:
    leaves_a, tree_a = jax.tree_util.tree_flatten(a)
    leaves_b, tree_b = jax.tree_util.tree_flatten(b)
    assert tree_a == tree_b
    for x, y in zip(leaves_a, leaves_b, strict=True):
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y))


def test_host_driven_passes_play_what_the_traced_loop_plays() -> None:
    """The pure-JAX env's jitted step (the traced loop) against the same step driven from the host.

    The pure-JAX env at 8 tables against `random` is the program its own tests compile,
    so this comparison adds no compile of its own.
    """
    env, params = make_jax("free", num_envs=TABLES, opponent="random", noise="pro", shot_limit=6)
    reset, step = jax.jit(env.reset), jax.jit(env.step)
    bot = functional.opponent_policy("random")
    _, state = reset(jax.random.PRNGKey(3), params)
    restarts = 0
    for n in range(8):
        key = jax.random.PRNGKey(100 + n)
        actions = jax.random.uniform(jax.random.PRNGKey(n), (TABLES, 11), minval=-1.0, maxval=1.0)
        obs, traced, reward, terminated, truncated, _ = step(key, state, actions, params)
        keyed = functional.EnvState(state.games, jax.random.split(key, TABLES), state.moves)
        learner = core.decode_moves(keyed.games, actions, "raw")
        pending = core.to_move(keyed.games, core.LEARNER)
        host, done = functional.advance_on_host(
            keyed, learner, pending, jnp.array(False), params, bot, jnp.array(True)
        )
        assert_same(traced, host)
        assert_same(obs, functional.observe(host.games, params))
        np.testing.assert_array_equal(np.asarray(reward), np.asarray(done["reward"], np.float32))
        np.testing.assert_array_equal(np.asarray(terminated), np.asarray(done["terminated"]))
        np.testing.assert_array_equal(np.asarray(truncated), np.asarray(done["truncated"]))
        state = traced
        restarts += int(np.sum(np.asarray(terminated | truncated)))
    assert restarts > 0  # frames cut by the shot limit restarted inside the step


def test_a_reset_from_the_host_is_the_traced_reset() -> None:
    # jax-ppo starts its runs from the host (no program of a reset's own to compile).
    env, params = make_jax("free", num_envs=TABLES, opponent="random", noise="pro", shot_limit=6)
    _, traced = jax.jit(env.reset)(jax.random.PRNGKey(5), params)
    keys = jax.random.split(jax.random.PRNGKey(5), TABLES)
    host = functional.reset_on_host(keys, params, functional.opponent_policy("random"))
    assert_same(traced, host)
    drawn, *_ = functional.fresh(keys, params.variant)
    opened = [
        not np.array_equal(a, b) for a, b in zip(*map(jax.tree_util.tree_leaves, (host, drawn)), strict=True)
    ]
    assert any(opened)  # the opponent broke on some tables: its opening moves were played


def test_a_host_policy_replies_where_a_traced_bot_cannot() -> None:
    """A policy that only runs on the host (numpy) still plays: it is asked between the passes."""
    settings = core.Settings()
    params = functional.EnvParams.of(settings)
    random_bot = make_bot("random", 0.0).act
    asked: list[int] = []

    def host_policy(states: object, keys: object) -> object:
        asked.append(int(np.asarray(keys).shape[0]))
        return random_bot(states, keys)

    keys = jax.random.split(jax.random.PRNGKey(0), TABLES)
    games, keys = core.new_frames(keys, settings.variant)
    state = functional.EnvState(games, keys, jnp.zeros(TABLES, jnp.int32))
    nothing = core.decode_moves(games, jnp.zeros((TABLES, 11)), "raw")
    state, done = functional.advance_on_host(
        state, nothing, jnp.zeros(TABLES, bool), jnp.array(True), params, host_policy, jnp.array(True)
    )
    assert asked  # the opponent broke somewhere and was asked
    assert not np.asarray(core.to_move(state.games, core.OPPONENT)).any()
    assert int(done["passes"]) == len(asked)
