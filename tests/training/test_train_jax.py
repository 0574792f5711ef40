"""`piramida train --algo jax-ppo`: logs, checkpoints, exact resume, refusals, and the saved policy plays.

Tiny runs (8 tables, rounds of 4 moves per table = 32 learner moves, frames cut after 4
moves so that some end) in one process: the jitted round compiles once for the module
(minutes on a cold cache: the kernel is inside it; seconds from the persistent cache).
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import jax
import numpy as np
import pytest
from helpers.training_runs import damaged_copy, logged, resume_error, run_fixtures, tiny_jax_ppo, train

from piramida.training import checkpoint, jax_driver, networks, policies, prior
from piramida.training.players import load_policy

# Its module-scoped fixtures are costly: one worker runs the whole module (`--dist loadgroup`).
pytestmark = [pytest.mark.xdist_group("test_train_jax"), pytest.mark.slow]

TINY = tiny_jax_ppo()
ROUND = 8 * 4  # learner moves in one round
config, whole = run_fixtures(TINY, ROUND)


def arrays(path: Path) -> dict[str, np.ndarray]:
    """A jax-ppo checkpoint's training state, one array per leaf."""
    return dict(checkpoint.read(path).state["runner"])


def test_a_run_writes_tensorboard_figures_and_checkpoints_with_metadata(whole: Path) -> None:
    steps = [int(p.stem.split("-")[1]) for p in sorted((whole / "checkpoints").glob("step-*.zip"))]
    assert steps == [ROUND, 2 * ROUND, 3 * ROUND]
    meta = checkpoint.read_meta(whole / "final.zip")
    assert meta is not None
    assert (meta["algo"], meta["variant"], meta["action_mode"], meta["steps"], meta["final"]) == (
        "jax-ppo",
        "free",
        "assisted",
        3 * ROUND,
        True,
    )
    assert meta["config"]["seed"] == 3 and meta["shot_limit"] == 4 and "optax" in meta["versions"]
    assert not list(whole.rglob("*.tmp"))

    events = logged(whole)
    extra = {"train/policy_gradient_loss", "train/entropy_loss", "train/approx_kl"}
    assert extra <= set(events.Tags()["scalars"])
    assert [e.step for e in events.Scalars("time/total_timesteps")] == [ROUND, 2 * ROUND, 3 * ROUND]
    assert all(np.isfinite(e.value) for e in events.Scalars("train/loss"))


def test_training_moves_the_policy_away_from_its_start(whole: Path) -> None:
    saved = arrays(whole / "final.zip")
    start = networks.init_params(jax.random.split(jax.random.PRNGKey(3), 3)[0], "assisted", (64, 64), 0.9)
    # The start is the seed's initialisation with the assisted prior on the output bias ...
    np.testing.assert_allclose(start["actor"][-1]["b"], prior.logits(0.9))
    # ... and three rounds of updates moved every layer of both networks.
    for net in ("actor", "critic"):
        for i, layer in enumerate(start[net]):
            assert not np.array_equal(saved[f"['params']['{net}'][{i}]['w']"], layer["w"]), (net, i)
    first = arrays(whole / "checkpoints" / f"step-{ROUND:09d}.zip")
    assert not np.array_equal(first["['params']['actor'][0]['w']"], saved["['params']['actor'][0]['w']"])


def test_a_resumed_run_ends_with_the_uninterrupted_runs_state(
    config: Path, whole: Path, tmp_path: Path
) -> None:
    assert (
        train(config, tmp_path, "--steps", str(ROUND), "--checkpoint-every", str(ROUND), "--seed", "3") == 0
    )
    assert train(config, tmp_path, "--resume", "--steps", str(3 * ROUND)) == 0
    resumed, uninterrupted = arrays(tmp_path / "final.zip"), arrays(whole / "final.zip")
    assert resumed.keys() == uninterrupted.keys()
    different = [name for name in resumed if not np.array_equal(resumed[name], uninterrupted[name])]
    assert not different  # parameters, optimizer state, games and keys
    meta = checkpoint.read_meta(tmp_path / "final.zip")
    assert meta is not None and meta["steps"] == 3 * ROUND


def test_foreign_and_corrupt_checkpoints_are_refused(
    config: Path, whole: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = tmp_path / "notes.zip"
    text.write_text("not a checkpoint")
    assert f"{text}: not a piramida checkpoint (not a zip file" in resume_error(
        config, tmp_path, text, capsys
    )

    damaged = damaged_copy(whole / "final.zip", tmp_path)
    assert f"{damaged}: corrupt checkpoint" in resume_error(config, tmp_path, damaged, capsys)

    # A checkpoint of an SB3 run (its metadata says ppo) resumed as jax-ppo, and another variant.
    foreign = tmp_path / "ppo.zip"
    with zipfile.ZipFile(whole / "final.zip") as source, zipfile.ZipFile(foreign, "w") as target:
        for item in source.infolist():
            data = source.read(item)
            target.writestr(item, data.replace(b'"algo": "jax-ppo"', b'"algo": "ppo"'))
    err = resume_error(config, tmp_path, foreign, capsys, "--algo", "jax-ppo")
    assert "checkpoint of another run: it has algo 'ppo' (this run: 'jax-ppo')" in err
    err = resume_error(config, tmp_path, whole / "final.zip", capsys, "--variant", "classic")
    assert "checkpoint of another run: it has variant 'free' (this run: 'classic')" in err
    assert not list(tmp_path.glob("checkpoints/*"))


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--opponent", __file__], "--opponent: jax-ppo's opponents play inside its jitted loop"),
        (["--league", "random,self"], "--league: jax-ppo plays `self` as the trained bot plays"),
        (["--league", f"random,{__file__}"], "--league: jax-ppo's opponents play inside its jitted loop"),
        (["--action-mode", "raw", "--policy", "slots"], "--policy: the slot scorer picks menu slots"),
        (["--policy", "other.zip"], "--policy: expected mlp, slots, trained or a policy .npz"),
        (["--device", "cuda"], "--device: cuda asked for, but JAX has no gpu backend"),
    ],
)
def test_what_jax_ppo_cannot_do_exits_2_naming_the_flag(
    config: Path, flags: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if flags[0] == "--device" and jax.devices()[0].platform == "gpu":
        pytest.skip("a GPU is present")
    assert train(config, tmp_path, *flags) == 2
    assert message in capsys.readouterr().err


def test_the_saved_policy_plays_legal_slots_through_the_encoding(whole: Path) -> None:
    from piramida.envs import core
    from piramida.training import config as train_config

    agent = load_policy(str(whole / "final.zip"), 0.0)  # it has made a move on a fresh table
    opponent = agent._policy
    assert opponent.settings.action_mode == "assisted" and opponent.settings.shot_limit == 4
    assert isinstance(opponent.policy, policies.SavedPolicy)
    # The 8 games the run ended on, mid-frame: the policy's moves for all of them.
    saved = checkpoint.read(whole / "final.zip")
    runner = jax_driver.load(saved, train_config.config_from_json(saved.meta["config"]))
    states = runner.env.games
    moves = agent.act(states, jax.random.split(jax.random.PRNGKey(0), 8))
    assert moves.ball.shape == (8,)
    masks = np.asarray(core.legal_masks(states))
    slots = opponent.policy(np.asarray(core.observe_states(states, 4, 0.0, "flat")), masks)[:, 0]
    assert masks[np.arange(8), slots].all()  # the argmax is over legal slots only
