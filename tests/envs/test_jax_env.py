"""The pure-JAX env (`piramida.envs.make_jax`): pure functions under `jit`, `lax.scan`, and a training loop.

The training loop is the documentation's example (docs/jax-env.md, "A training loop"), run
from that page itself: a linear Gaussian policy over the flat observation, a rollout as one `lax.scan`,
and a REINFORCE step with `optax`, the whole update in one `jit` (PureJaxRL's shape).
Eight tables, as the envs' other tests, so the compiled programs stay small.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from piramida.envs import core, make_jax

TABLES = 8
STEPS = 3
pytestmark = pytest.mark.xdist_group("jax-env")  # tests/envs/test_engine.py says why
PAGE = Path(__file__).resolve().parents[2] / "docs" / "jax-env.md"  # the pure-JAX API page


@pytest.fixture(scope="module")
def env() -> Any:
    """(env, params, jitted reset, jitted step): one compile of each for the module."""
    jax_env, params = make_jax("free", num_envs=TABLES, opponent="random")
    return jax_env, params, jax.jit(jax_env.reset), jax.jit(jax_env.step)


def random_actions(key: Any, num_envs: int) -> Any:
    """Uniform raw actions (B, 11) in [-1, 1]."""
    return jax.random.uniform(key, (num_envs, 11), minval=-1.0, maxval=1.0)


def test_reset_and_step_are_pure_functions_of_their_keys(env: Any) -> None:
    jax_env, params, reset, step = env
    obs, state = reset(jax.random.PRNGKey(0), params)
    again, _ = reset(jax.random.PRNGKey(0), params)
    other, _ = reset(jax.random.PRNGKey(1), params)
    assert obs.shape == (TABLES, *jax_env.observation_space.shape)
    np.testing.assert_array_equal(np.asarray(obs), np.asarray(again))
    assert not np.array_equal(np.asarray(obs), np.asarray(other))
    action = random_actions(jax.random.PRNGKey(2), TABLES)
    first = step(jax.random.PRNGKey(3), state, action, params)
    second = step(jax.random.PRNGKey(3), state, action, params)
    for a, b in zip(jax.tree_util.tree_leaves(first), jax.tree_util.tree_leaves(second), strict=True):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    obs, _, reward, terminated, truncated, info = first
    assert obs.shape[0] == reward.shape[0] == terminated.shape[0] == truncated.shape[0] == TABLES
    assert info.shot.shape == (TABLES,) and np.isfinite(np.asarray(reward)).all()
    # After a step no table waits for the opponent: each waits for the learner (or is over).
    assert not np.asarray(core.to_move(first[1].games, core.OPPONENT)).any()


def test_a_scan_of_steps_plays_the_same_moves_as_a_python_loop(env: Any) -> None:
    jax_env, params, reset, step = env
    _, state = reset(jax.random.PRNGKey(0), params)
    keys = jax.random.split(jax.random.PRNGKey(7), STEPS)
    actions = jnp.stack([random_actions(k, TABLES) for k in jax.random.split(jax.random.PRNGKey(8), STEPS)])

    def one(state: Any, xs: tuple[Any, Any]) -> tuple[Any, Any]:
        key, action = xs
        obs, state, reward, _, _, _ = jax_env.step(key, state, action, params)
        return state, (obs, reward)

    _, (scanned_obs, scanned_rewards) = jax.jit(lambda s: jax.lax.scan(one, s, (keys, actions)))(state)
    for k in range(STEPS):
        obs, state, reward, _, _, _ = step(keys[k], state, actions[k], params)
        np.testing.assert_array_equal(np.asarray(scanned_obs[k]), np.asarray(obs))
        np.testing.assert_array_equal(np.asarray(scanned_rewards[k]), np.asarray(reward))


def test_unknown_options_and_bad_table_counts_are_named() -> None:
    with pytest.raises(ValueError, match="num_envs"):
        make_jax("free", num_envs=0)
    with pytest.raises(ValueError, match="opponent"):
        make_jax("free", num_envs=TABLES, opponent="nobody")
    with pytest.raises(ValueError, match="colour"):
        make_jax("free", num_envs=TABLES, colour="red")


def docs_example() -> dict[str, Any]:
    """The docs page's training loop: its code block after the `jax-env-example` marker, run."""
    text = PAGE.read_text()
    block = text[text.index("<!-- jax-env-example -->") :]
    opening = block.index("```python") + len("```python")
    code = block[opening : block.index("```", opening)]
    scope: dict[str, Any] = {}
    exec(compile(code, "docs/jax-env.md (jax-env-example)", "exec"), scope)
    return scope


def test_the_docs_training_loop_runs_in_one_jitted_update_and_learns_something() -> None:
    weights, rewards = docs_example()["train"](num_envs=TABLES, updates=2, steps=2, seed=0)
    assert len(rewards) == 2 and all(np.isfinite(rewards))
    assert all(np.isfinite(np.asarray(x)).all() for x in jax.tree_util.tree_leaves(weights))
    assert float(jnp.abs(weights["w"]).sum()) > 0  # the gradient reached the policy
