"""Expert iteration: recording the search bot's decisions, and a network fitted to them.

One small data set (8 frames, 4 moves, the `easy` search) is recorded once for the module;
the fits run on it for a few epochs with batches of 8.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import jax
import numpy as np
import pytest

from piramida.agents import scorer
from piramida.agents.menu import Menu
from piramida.cli.main import main
from piramida.evaluation import curves
from piramida.training import distill, expert

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("search-bot")]
PLAN = expert.RecordPlan(positions=1, tables=8, moves=4, level="easy", noises=("pro",))
FIT = distill.DistillPlan(epochs=12, batch=8, width=32)
# Matches after epochs 6 and 12, on 8 tables: the shape of the tests' shared program (`play_masked`).
MATCHES = replace(FIT, match_every=6, match_games=8, opponents=("greedy",))


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("expert")
    assert expert.record(PLAN, folder) == len(expert.read_chunk(expert.chunks(folder)[0])["slot"])
    return folder


def test_a_chunk_holds_labelled_shot_positions_and_is_a_function_of_the_seed(data: Path) -> None:
    arrays = expert.read_chunk(expert.chunks(data)[0])
    count = len(arrays["slot"])
    assert count >= PLAN.tables  # at least the breaks
    assert arrays["values"].shape == (count, Menu(pots=3, in_offs=0, doubles=0, kicks=0, safety_pairs=1).size)
    legal = arrays["values"][np.arange(count), arrays["slot"]]
    assert np.all(legal > -2.0)  # the search never chose a slot it could not play
    states = expert.states_from_arrays(arrays)
    assert set(np.asarray(states.phase).tolist()) <= {0, 1, 2}
    again = expert.record_chunk(PLAN, 0)
    for name, value in arrays.items():
        np.testing.assert_array_equal(value, again[name], err_msg=name)
    assert expert.summary(data)["positions"] == count and expert.summary(data)["hours"] > 0


@pytest.fixture(scope="module")
def examples(data: Path) -> distill.Examples:
    train, _, _ = distill.load_examples(data)
    return train


def test_distillation_lowers_the_loss_and_raises_the_agreement(
    data: Path, examples: distill.Examples, tmp_path: Path
) -> None:
    fresh = scorer.init_params(FIT.width, examples.values.shape[1], jax.random.PRNGKey(FIT.seed))
    before = distill.losses(fresh, examples, FIT)[1]
    distill.distill(MATCHES, data, tmp_path)
    params, meta = scorer.load(tmp_path / "policy.npz")
    after = distill.losses(params, examples, FIT)[1]
    assert float(after["loss"]) < float(before["loss"])
    assert float(after["agreement"]) > float(before["agreement"])
    assert meta["width"] == FIT.width and (tmp_path / "tensorboard").is_dir()
    # The win-rate curve: the network's matches against greedy, by positions seen.
    logged = curves.read(tmp_path, curves.DISTILL_CURVES)
    steps_per_epoch = len(examples) // FIT.batch * FIT.batch
    points = logged["match/win_rate_greedy"]
    assert [step for step, _ in points] == [epoch * steps_per_epoch for epoch in (6, 12)]
    assert all(0.0 <= rate <= 1.0 for _, rate in points)


def test_an_interrupted_fit_resumes_to_the_same_parameters(data: Path, tmp_path: Path) -> None:
    short = replace(FIT, epochs=4)
    distill.distill(short, data, tmp_path / "straight")

    def interrupt(what: str, done: int, total: int) -> None:
        if what == "epochs" and done == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        distill.distill(short, data, tmp_path / "resumed", progress=interrupt)
    distill.distill(short, data, tmp_path / "resumed")
    with (
        np.load(tmp_path / "straight" / "distill-checkpoint.npz") as a,
        np.load(tmp_path / "resumed" / "distill-checkpoint.npz") as b,
    ):
        assert set(a.files) == set(b.files)
        for name in a.files:
            np.testing.assert_array_equal(a[name], b[name], err_msg=name)


def test_the_command_refuses_a_folder_without_chunks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["expert", "distill", "--data", str(tmp_path), "--out", str(tmp_path / "run")])
    assert status == 2 and "no data set chunks" in capsys.readouterr().err
    (tmp_path / "chunk-00000.npz").write_bytes(b"not an npz")
    status = main(["expert", "distill", "--data", str(tmp_path), "--out", str(tmp_path / "run")])
    assert status == 2 and "chunk-00000.npz" in capsys.readouterr().err
