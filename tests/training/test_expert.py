"""Expert iteration: recording the search bot's decisions, a network fitted to them, and rounds of both.

One small data set (8 frames, 4 moves, the `easy` search) is recorded once for the module;
the fits run on it for a few epochs with batches of 8. A small network fitted to it then
guides the search for a second data set, and for the rounds of `evaluation.iteration`.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import jax
import numpy as np
import pytest
from helpers.benchmark_scripts import load

from piramida.agents import scorer
from piramida.agents.menu import Menu
from piramida.agents.search import ILLEGAL, UNSEARCHED
from piramida.cli.main import main
from piramida.evaluation import curves, iteration
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
    data: Path, examples: distill.Examples, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
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
    # `benchmarks/distill_curves.py` draws the run's curves.
    png = tmp_path / "curves.png"
    monkeypatch.setattr(sys, "argv", ["distill_curves.py", str(tmp_path), "--out", str(png)])
    load("distill_curves").main()
    assert png.stat().st_size > 10_000


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


# Expert iteration: the search guided by a small network fitted to the data above.
GUIDED = {"finalists": 6, "samples": 3}  # 6 finalists of the 18 slots, 3 strikes each


@pytest.fixture(scope="module")
def guide(data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("guide")
    distill.distill(replace(FIT, epochs=2), data, folder)
    return folder / "policy.npz"


def guided_plan(guide: Path) -> expert.RecordPlan:
    return replace(PLAN, policy=str(guide), rivals=("greedy", f"{guide}:policy"), **GUIDED)


@pytest.fixture(scope="module")
def guided(guide: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("guided")
    expert.record(guided_plan(guide), folder)
    return folder


def test_a_guided_chunk_values_the_networks_explored_finalists_only(guide: Path, guided: Path) -> None:
    arrays = expert.read_chunk(expert.chunks(guided)[0])
    values, slot = arrays["values"], arrays["slot"]
    rows = np.arange(len(slot))
    struck = (values != UNSEARCHED) & (values != 2.0 * ILLEGAL)
    assert np.all(struck.sum(axis=1) >= 1) and np.all(struck.sum(axis=1) <= 6)
    assert np.any(values == UNSEARCHED)  # the network ranked some legal slots out
    # The slot played is the best finalist, and its mean is the position's value.
    assert np.all(struck[rows, slot])
    np.testing.assert_array_equal(values[rows, slot], arrays["value"])
    np.testing.assert_array_equal(arrays["value"], np.where(struck, values, -np.inf).max(axis=1))
    # The finalists are drawn from the network's softmax: not always its best six.
    params, meta = scorer.load(guide)
    view = distill.examples(arrays, expert.menu_of(arrays, guided)).view
    logits = np.asarray(scorer.score(params, int(meta["width"]), view)[0])
    legal = np.asarray(view.legal)
    assert np.all(legal[struck])
    best = np.argsort(-logits, axis=1)[:, :6]
    top = np.zeros_like(struck)
    top[rows[:, None], best] = True
    assert np.any((struck != (top & legal)).any(axis=1))
    again = expert.record_chunk(guided_plan(guide), 0)
    for name, value in arrays.items():
        np.testing.assert_array_equal(value, again[name], err_msg=name)


def test_a_guided_search_strikes_at_least_one_finalist(guide: Path) -> None:
    with pytest.raises(ValueError, match="at least one finalist"):
        expert.record_chunk(replace(guided_plan(guide), finalists=0), 0)


def test_the_regret_counts_only_the_slots_the_search_valued(guided: Path, guide: Path) -> None:
    train, _, _ = distill.load_examples(guided)
    rows = np.arange(len(train))
    only_choice = np.full_like(train.values, UNSEARCHED)
    only_choice[rows, train.slot] = train.values[rows, train.slot]
    params, meta = scorer.load(guide)
    plan = replace(FIT, width=int(meta["width"]))
    parts = distill.losses(params, replace(train, values=only_choice), plan)[1]
    assert float(parts["agreement"]) < 1.0  # the network disagrees somewhere: those picks are unvalued
    assert float(parts["regret"]) == 0.0


def test_a_fit_starts_from_a_saved_policy_on_several_data_sets(
    data: Path, guided: Path, guide: Path, tmp_path: Path
) -> None:
    train, held, _ = distill.load_examples([data, guided], validation_every=2)
    counts = [len(expert.read_chunk(path)["slot"]) for path in expert.chunks(data) + expert.chunks(guided)]
    assert len(train) + len(held) == sum(counts) and len(held) == counts[1]
    still = replace(FIT, epochs=1, learning_rate=1e-12, validation_every=2)
    distill.distill(still, [data, guided], tmp_path / "from-guide", start=guide)
    started, _ = scorer.load(guide)
    fitted, _ = scorer.load(tmp_path / "from-guide" / "policy.npz")
    for a, b in zip(jax.tree_util.tree_leaves(started), jax.tree_util.tree_leaves(fitted), strict=True):
        np.testing.assert_allclose(a, b, atol=1e-6)
    with pytest.raises(expert.ExpertDataError, match="width 32"):
        distill.distill(replace(still, width=64), data, tmp_path / "wide", start=guide)


def test_expert_iteration_logs_each_round_and_resumes(guide: Path, tmp_path: Path) -> None:
    plan = iteration.IterationPlan(
        rounds=1,
        positions=1,
        **GUIDED,
        tables=PLAN.tables,
        moves=PLAN.moves,
        epochs=1,
        batch=FIT.batch,
        player="policy",
        judges=("greedy",),
        variants=("free",),
        frames=2,
        start=str(guide),
    )
    log = iteration.iterate(plan, tmp_path, "test")
    assert [entry["round"] for entry in log["rounds"]] == [0, 1]
    assert log["rounds"][0]["policy"] == str(guide)
    assert log["rounds"][1]["positions"] >= PLAN.tables
    for entry in log["rounds"]:
        assert set(entry["win_rates"]) == {"greedy"} and 0.0 <= entry["win_rates"]["greedy"]["free"] <= 1.0
    assert (tmp_path / "round-1" / "policy" / "policy.npz").is_file() and (tmp_path / "rounds.png").is_file()
    chunk = expert.chunks(tmp_path / "round-1" / "data")[0]
    recorded = chunk.stat().st_mtime_ns
    assert iteration.iterate(plan, tmp_path, "test")["rounds"] == log["rounds"]
    assert chunk.stat().st_mtime_ns == recorded  # resumed: nothing recorded again
    with pytest.raises(expert.ExpertDataError, match="another plan"):
        iteration.iterate(replace(plan, frames=4), tmp_path, "test")
    # More rounds of the same plan go on from the last one (the rounds logged stay as they were).
    longer = iteration.iterate(replace(plan, rounds=2), tmp_path, "test")
    assert longer["rounds"][:2] == log["rounds"] and longer["rounds"][2]["round"] == 2
    assert longer["plan"]["rounds"] == 2


def test_the_iterate_command_refuses_an_unknown_judge(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["expert", "iterate", "--out", str(tmp_path), "--judges", "nobody"])
    assert status == 2 and "--judges" in capsys.readouterr().err


def test_the_target_keeps_the_guides_mass_on_the_slots_the_search_did_not_strike(
    data: Path, guided: Path
) -> None:
    searched, _, _ = distill.load_examples(data)
    np.testing.assert_array_equal(searched.prior, 0.0)  # the search bot's chunks carry no guide
    plain = np.asarray(distill.policy_target(searched, FIT))
    choice = np.eye(searched.values.shape[1])[searched.slot]
    assert np.all(plain >= (1.0 - FIT.ranking_weight) * choice - 1e-7)
    np.testing.assert_allclose(plain.sum(axis=1), 1.0, rtol=1e-6)
    train, _, _ = distill.load_examples(guided)
    target = np.asarray(distill.policy_target(train, FIT))
    unsearched = np.asarray(train.view.legal) & (train.values == UNSEARCHED)
    np.testing.assert_allclose(target.sum(axis=1), 1.0, rtol=1e-5)
    np.testing.assert_array_equal(target[unsearched], train.prior[unsearched])
    struck = (train.values != UNSEARCHED) & (train.values != 2.0 * ILLEGAL)
    # The struck slots share the guide's mass on them, the search's choice the most.
    np.testing.assert_allclose(
        np.where(struck, target, 0.0).sum(axis=1), np.where(struck, train.prior, 0.0).sum(axis=1), rtol=1e-4
    )
    rows = np.arange(len(train))
    assert np.all(target[rows, train.slot] >= np.where(struck, target, 0.0).max(axis=1) - 1e-7)


def test_the_iterate_command_passes_its_flags_to_the_plan_and_the_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    seen: dict[str, object] = {}

    def fake(plan: iteration.IterationPlan, out: Path, command: str, progress: object) -> dict[str, object]:
        seen.update(plan=plan, out=out, command=command)
        return {"rounds": [{"round": 0, "win_rates": {"greedy": {"free": 0.5}}}]}

    monkeypatch.setattr(iteration, "iterate", fake)
    flags = ["--rounds", "2", "--learning-rate", "0.002", "--judges", "greedy", "--variants", "free"]
    assert main(["expert", "iterate", "--out", str(tmp_path), *flags]) == 0
    plan = seen["plan"]
    assert isinstance(plan, iteration.IterationPlan)
    assert (plan.rounds, plan.learning_rate, plan.judges, plan.variants) == (2, 0.002, ("greedy",), ("free",))
    assert plan.positions == iteration.IterationPlan().positions
    command = str(seen["command"])
    assert "--rounds 2" in command and "--learning-rate 0.002" in command and f"--out {tmp_path}" in command
    assert "round 0: mean win rate over the variants vs greedy 50.0%" in capsys.readouterr().out
