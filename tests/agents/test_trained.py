"""The shipped `trained` bot: data, not code; a legal move in every variant and phase; clear refusals.

Games: the trained bot against `random` (whose fouls give balls in hand and pending
decisions) on 8 tables (the envs' batch: the programs the other tests compile), two per
variant, at its default `quick` level on tables 0-3 and its `policy` level on 4-7, each
seat breaking each variant at one of the levels, every move of the trained bot checked by
the referee (`rules.game.play` through `envs.core.play_masked`).
"""

from __future__ import annotations

import pickle
from dataclasses import replace
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax import traverse_util

from piramida.agents import TrainedAgent, make_agent, make_bot
from piramida.agents import scorer as sc
from piramida.agents.trained import SHIPPED, trained_moves
from piramida.envs import core
from piramida.rules import ids
from piramida.rules import state as st
from piramida.rules.game import where_tables

# One worker runs the module (`--dist loadgroup`): the quick level's test reuses the
# programs the games compiled.
pytestmark = pytest.mark.xdist_group("test_trained")
B = 8
MOVES = 40
QUICK = np.arange(B) < 4  # every variant at both levels (quick, policy)


def test_the_shipped_policy_loads_without_unpickling(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the policy file was unpickled")

    monkeypatch.setattr(pickle, "loads", refuse)
    monkeypatch.setattr(pickle, "load", refuse)
    monkeypatch.setattr(pickle, "Unpickler", refuse)
    agent = TrainedAgent()
    assert agent.path == SHIPPED and SHIPPED.stat().st_size < 2_000_000
    made = agent.meta["made"]
    for field in ("command", "data", "machine"):
        assert made[field], field
    assert made["data"]["hours"] > 0 and made["data"]["positions"] > 0
    assert make_agent("trained").name == "trained" and make_bot("trained", 0.15).name == "trained"


@pytest.fixture(scope="module")
def games() -> list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """Per trained-bot move: (phase, variant, mover is trained, invalid bits, call ball)."""
    quick, policy = make_bot("trained", 0.15), make_bot("trained:policy", 0.15)
    walker = make_bot("random", 0.15)
    keys = jax.random.split(jax.random.PRNGKey(5), B)
    breakers = (jnp.arange(B) + jnp.arange(B) // 4) % 2  # each seat breaks each variant once
    states = st.new_games(jnp.arange(B) % 4, keys, breakers)
    seen = []
    for _ in range(MOVES):
        mine = np.asarray(states.turn) == 0
        trained = where_tables(jnp.asarray(QUICK), quick.act(states, keys), policy.act(states, keys))
        moves = where_tables(jnp.asarray(mine), trained, walker.act(states, keys))
        phase, variant = np.asarray(states.phase), np.asarray(states.variant)
        states, outcome, keys = core.play_masked(states, moves, keys, states.phase != st.OVER, 0.15)
        invalid = np.asarray(outcome.verdict.invalid) | np.asarray(outcome.decision_invalid)
        seen.append((phase, variant, mine & (phase != st.OVER), invalid, np.asarray(moves.call_ball)))
    return seen


def test_every_move_of_the_trained_bot_is_legal_to_play(games: list) -> None:
    for phase, _, mine, invalid, _ in games:
        assert not np.any(invalid[mine]), (phase[mine], invalid[mine])


def test_the_games_reach_every_phase_and_classic_calls(games: list) -> None:
    for level in (QUICK, ~QUICK):
        phases = {int(p) for phase, _, mine, _, _ in games for p in phase[mine & level]}
        assert {st.BREAK, st.NORMAL, st.IN_HAND, st.DECISION} <= phases, level
    shots = [
        call[mine & (variant == ids.CLASSIC) & (phase != st.DECISION)]
        for phase, variant, mine, _, call in games
    ]
    calls = np.concatenate(shots)
    assert calls.size > 0 and np.all(calls != ids.NO_BALL)  # CLS-5.2: every Classic shot is called


def _past_the_break(seed: int) -> tuple[st.GameState, jax.Array]:
    """B tables (every variant) after greedy's first three moves, and their keys."""
    keys = jax.random.split(jax.random.PRNGKey(seed), B)
    states = st.new_games(jnp.arange(B) % 4, keys, jnp.zeros(B, jnp.int32))
    greedy = make_bot("greedy", 0.15)
    for _ in range(3):
        live = states.phase != st.OVER
        states, _, keys = core.play_masked(states, greedy.act(states, keys), keys, live, 0.15)
    return states, keys


def test_the_default_quick_level_plays_one_of_the_networks_best_slots() -> None:
    # With one finalist the check has nothing to choose: the network's own slot. With the
    # level's 6, the noise draws (the key) choose among them, the same for the same key.
    # B tables, as in `games`: the same compiled programs.
    states, keys = _past_the_break(2)
    agent = TrainedAgent(noise_level=0.15)
    assert agent.lookahead is not None and (agent.lookahead.finalists, agent.lookahead.samples) == (6, 3)
    network = trained_moves(agent.params, states, keys, agent.magnitude, agent.width, agent.menu, None)
    one = replace(agent.lookahead, finalists=1, samples=1)
    checked_once = trained_moves(agent.params, states, keys, agent.magnitude, agent.width, agent.menu, one)
    assert all(jax.tree_util.tree_leaves(jax.tree_util.tree_map(np.array_equal, checked_once, network)))
    first, again = agent.act(states, keys), agent.act(states, keys)
    assert all(jax.tree_util.tree_leaves(jax.tree_util.tree_map(np.array_equal, first, again)))
    with pytest.raises(ValueError, match="trained: unknown level 'deepest'; choose from"):
        TrainedAgent(level="deepest")


def test_the_gym_env_takes_trained_as_its_opponent() -> None:
    import gymnasium as gym

    env = gym.make("piramida/FreePyramid-v1", opponent="trained:policy", noise="pro", action_mode="assisted")
    env.reset(seed=0)
    mask = env.unwrapped.action_masks()
    slot = int(np.argmax(mask[: env.action_space.nvec[0]]))
    _, _, _, _, info = env.step(np.asarray([slot, 10, 4, 2, 2]))
    assert "invalid" in info


def _copy(tmp_path: Path) -> Path:
    target = tmp_path / "policy.npz"
    target.write_bytes(SHIPPED.read_bytes())
    target.with_suffix(".json").write_bytes(SHIPPED.with_suffix(".json").read_bytes())
    return target


def test_a_policy_file_with_pickles_is_refused_by_name(tmp_path: Path) -> None:
    path = _copy(tmp_path)
    params, _ = sc.load(path)
    flat = {"/".join(k): np.asarray(v) for k, v in traverse_util.flatten_dict(params).items()}
    flat[next(iter(flat))] = np.asarray([object()], dtype=object)
    np.savez(path, **flat)
    with pytest.raises(sc.PolicyFileError, match=r"policy\.npz"):
        TrainedAgent(path)


@pytest.mark.parametrize(
    "damage",
    ["shape", "nan", "meta-format", "meta-width", "meta-json"],
)
def test_a_damaged_policy_file_is_refused_with_what_is_wrong(tmp_path: Path, damage: str) -> None:
    path = _copy(tmp_path)
    with np.load(path) as data:
        flat = {name: data[name] for name in data.files}
    first = next(iter(flat))
    meta = path.with_suffix(".json")
    if damage == "shape":
        flat[first] = flat[first][:1]
    elif damage == "nan":
        flat[first] = np.full_like(flat[first], np.nan)
    elif damage == "meta-format":
        meta.write_text(meta.read_text().replace('"format": 1', '"format": 9'))
    elif damage == "meta-width":
        meta.write_text(meta.read_text().replace('"width": ', '"width": 1e9, "old_width": '))
    else:
        meta.write_text("{ not json")
    np.savez(path, **flat)
    with pytest.raises(sc.PolicyFileError) as caught:
        TrainedAgent(path)
    named = str(path.with_suffix(".json")) if damage.startswith("meta") else str(path)
    assert named in str(caught.value)
