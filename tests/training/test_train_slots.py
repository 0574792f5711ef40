"""`piramida train --algo jax-ppo --policy trained`: PPO fine-tuning of the trained bot's slot scorer.

A tiny run (8 tables, rounds of 4 moves per table, frames cut after 4 moves) from the
shipped policy, on the `menu` observation, in a league of greedy and `self` whose seed
draws `self` every round: the learner itself in the first, then its checkpoints (the
distilled policy improved with jax-ppo against a league with its own past checkpoints).
It writes a policy that plays as a `trained` bot, resumes exactly (the
pool of snapshots included), and leaves the search's decisions out of the policy loss.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax import traverse_util
from helpers.benchmark_scripts import load
from helpers.training_runs import logged, run_fixtures, tiny_jax_ppo, train

from piramida.agents import TrainedAgent, scorer
from piramida.agents.trained import SHIPPED
from piramida.envs import actions as act
from piramida.envs import core
from piramida.rules import state as st
from piramida.training import checkpoint, ppo, slot_policy
from piramida.training.config import config_from_json
from piramida.training.players import PolicyError, make_player
from piramida.training.prior import NEUTRAL

pytestmark = [pytest.mark.xdist_group("test_train_slots"), pytest.mark.slow]

TINY = tiny_jax_ppo('policy = "trained"\nleague = "greedy,self"\nnoise = "pro"', "learning_rate = 1e-3")
ROUND = 8 * 4
config, whole = run_fixtures(TINY, ROUND)


def flat(params: object) -> dict[str, np.ndarray]:
    return {"/".join(k): np.asarray(v) for k, v in traverse_util.flatten_dict(params).items()}


def test_fine_tuning_starts_from_the_shipped_policy_and_writes_a_trained_bot(whole: Path) -> None:
    shipped, _ = scorer.load(SHIPPED)
    tuned, meta = scorer.load(whole / "policy.npz")  # arrays and JSON: loaded without unpickling
    assert meta["made"]["trainer"] == "jax-ppo" and meta["steps"] == 3 * ROUND
    assert meta["made"]["config"]["policy"] == "trained"
    moved = [name for name, a in flat(shipped).items() if not np.array_equal(a, flat(tuned)[name])]
    assert "logit/kernel" in moved and "value_out/kernel" in moved  # actor and critic both learnt
    bot = TrainedAgent(whole / "policy.npz", 0.15)  # 8 tables: the trained bot's tests' program
    states = st.new_games(
        jnp.arange(8) % 4, jax.random.split(jax.random.PRNGKey(0), 8), jnp.zeros(8, jnp.int32)
    )
    assert bot.act(states, jax.random.split(jax.random.PRNGKey(1), 8)).ball.shape == (8,)
    meta_ck = checkpoint.read_meta(whole / "final.zip")
    assert meta_ck is not None and meta_ck["observation"] == "menu"
    run = config_from_json(meta_ck["config"])
    assert [ppo.drawn(run, steps)[0] for steps in (0, ROUND, 2 * ROUND)] == ["self"] * 3
    pool = checkpoint.part(checkpoint.read(whole / "final.zip"), "resume", "pool")
    assert [Path(p).name for p in pool] == [f"step-{k * ROUND:09d}.zip" for k in (1, 2, 3)]
    events = logged(whole)
    assert all(np.isfinite(e.value) for e in events.Scalars("train/approx_kl"))


def test_finetune_curve_plays_the_start_and_the_chosen_checkpoints_against_greedy(
    whole: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out, png = tmp_path / "curve.json", tmp_path / "curve.png"
    tiny = ["--every", "2", "--games", "8", "--json", str(out), "--png", str(png)]
    monkeypatch.setattr(sys, "argv", ["finetune_curve.py", str(whole), *tiny])
    load("finetune_curve").main()
    rows = json.loads(out.read_text())["rows"]
    assert [row["moves"] for row in rows] == [0, 2 * ROUND, 3 * ROUND]  # the start, every 2nd, the last
    assert all(row["wins"] + row["losses"] <= 8 and 0 <= row["low"] <= row["high"] <= 1 for row in rows)
    assert png.stat().st_size > 10_000


def test_a_resumed_fine_tuning_ends_with_the_uninterrupted_policy(
    config: Path, whole: Path, tmp_path: Path
) -> None:
    first = whole / "checkpoints" / f"step-{ROUND:09d}.zip"
    assert (
        train(
            config,
            tmp_path,
            "--resume",
            str(first),
            "--steps",
            str(3 * ROUND),
            "--checkpoint-every",
            str(ROUND),
        )
        == 0
    )
    again, _ = scorer.load(tmp_path / "policy.npz")
    tuned, _ = scorer.load(whole / "policy.npz")
    for name, array in flat(tuned).items():
        np.testing.assert_array_equal(flat(again)[name], array, err_msg=name)


def test_the_runs_checkpoint_is_not_a_player_but_its_policy_file_is(whole: Path) -> None:
    with pytest.raises(PolicyError, match=r"policy\.npz"):
        make_player(str(whole / "final.zip"), 0.15)
    assert make_player(str(whole / "policy.npz"), 0.15).name == "trained"
    # At a level of the trained bot's, named after a colon; an unknown level is no file.
    deep = make_player(f"{whole / 'policy.npz'}:deep", 0.15)
    assert isinstance(deep, TrainedAgent) and deep.lookahead is not None and deep.lookahead.finalists == 12
    assert make_player(f"{whole / 'policy.npz'}:policy", 0.15).lookahead is None
    with pytest.raises(PolicyError, match="no such file"):
        make_player(f"{whole / 'policy.npz'}:deepest", 0.15)


def test_decisions_are_the_searchs_and_left_out_of_the_policy_loss() -> None:
    """A pending decision gets the search's best (option, ball) slot, log-probability 0, not learnt."""
    keys = jax.random.split(jax.random.PRNGKey(2), 8)  # 8 tables: the envs' programs
    games = st.new_games(jnp.zeros(8, jnp.int32), keys, jnp.zeros(8, jnp.int32))
    deciding = games.replace(
        phase=jnp.asarray([st.DECISION, st.NORMAL] * 4), options=jnp.asarray([0b11, 0] * 4)
    )
    obs = core.observe_states(deciding, 200, 0.15, "menu")
    masks = core.legal_masks(deciding)
    params = slot_policy.init_params("trained", keys[0])
    actions, log_prob, learned = slot_policy.sample(params, obs, masks, keys[1], deciding, 0.15)
    assert list(np.asarray(learned)) == [False, True] * 4
    assert np.all(np.asarray(log_prob[::2]) == 0.0) and np.all(np.asarray(log_prob[1::2]) < 0.0)
    np.testing.assert_array_equal(actions[::2, 0], slot_policy.decision_slots(deciding, 0.15)[::2])
    np.testing.assert_array_equal(np.asarray(actions[:, 1:]), np.broadcast_to(NEUTRAL, (8, 4)))
    chosen = np.asarray(actions[1::2, 0])
    assert np.all(np.asarray(masks)[1::2][np.arange(4), chosen]) and np.all(chosen < act.K)


def test_an_opponent_first_built_while_tracing_holds_no_tracers() -> None:
    # The bot is cached for the run, so one first built inside a trace must hold none of
    # that trace's arrays.
    jax.eval_shape(lambda: ppo.opponent_bot("search:easy", 0.07) and jnp.zeros(()))
    bot = ppo.opponent_bot("search:easy", 0.07)
    leaves = jax.tree_util.tree_leaves(bot.__self__.setup.table)  # type: ignore[attr-defined]
    assert leaves and not any(isinstance(leaf, jax.core.Tracer) for leaf in leaves)
