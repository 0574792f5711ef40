"""SAC and MaskablePPO (with a self-play league) train, checkpoint and resume to the same weights.

SAC resumes with its replay buffer; MaskablePPO plays the assisted mode against a league
of `random` and `self`, whose draws (seed 0: `self` in both rounds) put the learner against
its live policy first and then against its first checkpoint, loaded mid-run.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from helpers.training_runs import same_weights

from piramida.cli.main import main
from piramida.envs.actions import ASSISTED_NVEC, RAW_SIZE
from piramida.envs.observation import FLAT_SIZE
from piramida.envs.sb3 import SB3VecEnv
from piramida.training import checkpoint, policies, prior, sb3_driver

# Compile-heavy or long: left out of the quick lane (`pytest -m "not slow"`).
pytestmark = pytest.mark.slow

SAC = """
algo = "sac"
tables = 2
shot-limit = 4
[hyperparameters]
learning_starts = 16
batch_size = 16
buffer_size = 500
"""
MASKABLE = """
algo = "maskable-ppo"
action-mode = "assisted"
tables = 8
shot-limit = 4
league = "random,self"
[hyperparameters]
n_steps = 4
batch_size = 16
n_epochs = 2
"""


def whole_and_resumed(tmp_path: Path, text: str, round_: int) -> tuple[Path, Path]:
    """Two rounds in one go; and one round, then resumed to two."""
    config = tmp_path / "config.toml"
    config.write_text(text)
    common = ["train", "--config", str(config), "--no-progress", "--device", "cpu"]
    common += ["--checkpoint-every", str(round_), "--seed", "0"]
    whole, parts = tmp_path / "whole", tmp_path / "parts"
    assert main([*common, "--out", str(whole), "--steps", str(2 * round_)]) == 0
    assert main([*common, "--out", str(parts), "--steps", str(round_)]) == 0
    assert main(["train", "--resume", "--out", str(parts), "--steps", str(2 * round_), "--no-progress"]) == 0
    return whole / "final.zip", parts / "final.zip"


def resume_state(path: Path) -> dict:
    return checkpoint.read(path).state["resume"]


def test_sac_resumes_with_its_replay_buffer_to_the_same_weights(tmp_path: Path) -> None:
    whole, resumed = whole_and_resumed(tmp_path, SAC, 8 * 2)
    buffer = checkpoint.read(whole).state["model"]["replay_buffer"]
    assert buffer["pos"] == 32 // 2 and buffer["observations"].shape == (500 // 2, 2, FLAT_SIZE)
    assert same_weights(whole, resumed)
    meta = checkpoint.read_meta(resumed)
    assert meta is not None and (meta["algo"], meta["steps"]) == ("sac", 32)


def test_maskable_ppo_against_its_own_checkpoints_resumes_to_the_same_weights(tmp_path: Path) -> None:
    whole, resumed = whole_and_resumed(tmp_path, MASKABLE, 4 * 8)
    assert same_weights(whole, resumed)
    # The episodes in progress went on across the resume: the reported returns and lengths
    # (SB3's ep_rew_mean, ep_len_mean) count the moves before it too.
    for name in ("episode_returns", "episode_lengths"):
        np.testing.assert_array_equal(resume_state(resumed)["env"][name], resume_state(whole)["env"][name])
    for path in (whole, resumed):
        league = resume_state(path)["league"]
        assert league["round"] == 1
        assert league["playing"].endswith("checkpoints/step-000000032.zip")  # its first checkpoint
    meta = checkpoint.read_meta(whole)
    assert meta is not None and (meta["algo"], meta["action_mode"]) == ("maskable-ppo", "assisted")
    # Played back (eval, play, self-play) it chooses among the legal slots only, as it trained.
    policy, _ = policies.policy_function(whole)
    masks = np.ones((2, sum(ASSISTED_NVEC)), bool)
    masks[:, : ASSISTED_NVEC[0]] = False
    masks[:, 37] = True
    assert list(policy(np.zeros((2, FLAT_SIZE), np.float32), masks)[:, 0]) == [37, 37]
    # It started from the assisted prior (training.prior): the aim head still leans on "no correction".
    logits = checkpoint.read(whole).state["model"]["parameters"]["policy"]["action_net.bias"]
    aim = logits[64 : 64 + 21].numpy()
    assert aim.argmax() == prior.NEUTRAL[0] and aim.max() - np.delete(aim, prior.NEUTRAL[0]).max() > 4


@pytest.fixture(autouse=True)
def _no_leftovers(tmp_path: Path) -> None:
    yield
    assert not list(tmp_path.rglob("*.tmp"))


def test_the_episodes_in_progress_go_on_across_a_checkpoint(tmp_path: Path) -> None:
    """A resumed env reports an episode begun before the resume whole (SB3's Monitor forgot it)."""
    env = SB3VecEnv(4, variant="free", opponent="random", shot_limit=3)
    env.reset()
    rng = np.random.default_rng(0)
    for _ in range(2):  # two moves of every frame; the limit ends them at the third
        env.step(rng.uniform(-1, 1, (4, RAW_SIZE)).astype(np.float32))
    saved = checkpoint.Checkpoint(tmp_path / "ck.zip", {}, {"resume": {"env": sb3_driver.env_state(env)}})
    again = SB3VecEnv(4, variant="free", opponent="random", shot_limit=3)
    again.reset()
    sb3_driver.set_env_state(saved, again)
    _, _, done, infos = again.step(rng.uniform(-1, 1, (4, RAW_SIZE)).astype(np.float32))
    assert done.all() and [info["episode"]["l"] for info in infos] == [3, 3, 3, 3]
