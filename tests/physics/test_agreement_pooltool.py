"""Shot-for-shot agreement with pooltool-billiards 0.6.0 (the physics' acceptance check).

On pooltool's pocketless rectangle and its default pocket table, with pooltool's ball
constants and explicit initial velocities and spins (no cue model), for both cushion
models: 50 random shots with 2-16 balls (1-3 of them moving) on each table, plus the
straight pocket and jaw probes on the pocket table. On each table, at least 90 % of the
shots must produce the same ordered sequence of ball-ball, cushion, jaw and pocket events,
every one of those must end with every ball within 5 mm, and every probe must agree.
(The method and the thresholds: docs/physics.md, "Cross-checks against pooltool-billiards 0.6".)

The generators and the comparison are `benchmarks/agreement.py`'s (which also sweeps the
pyramid-geometry pocket table and the break statistics). Every piramida run has the same
batch size: one compile per table shape and model.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pooltool  # noqa: F401  (CI installs it; a missing pooltool should fail loudly)
import pytest
from helpers.benchmark_scripts import load

agreement = load("agreement")

# Its module-scoped fixtures are costly: one worker runs the whole module (`--dist loadgroup`).
pytestmark = [
    pytest.mark.pooltool,
    pytest.mark.xdist_group("test_agreement_pooltool"),
    # pooltool's quadratic root takes the square root of a negative discriminant and keeps
    # the NaN; interpreted (tests/conftest.py) numpy says so, compiled numba does not.
    pytest.mark.filterwarnings("ignore:invalid value encountered in scalar power:RuntimeWarning"),
]

SEED = 2024
RANDOM_SHOTS = 50
TABLES = ("rect-7ft", "pockets-7ft")
REQUIRED = 0.90


@pytest.fixture(scope="module")
def report() -> dict[str, Any]:
    specs = agreement.table_specs()
    cases = []
    for model in agreement.MODELS:
        for k, name in enumerate(TABLES):
            rng = np.random.default_rng([SEED, k])  # the same layouts for both models
            shots = agreement.random_shots(rng, specs[name], model, RANDOM_SHOTS)
            cases.append(agreement.Case(name, model, "random", shots))
            probes = agreement.pocket_probes(specs[name], model, quick=True)
            if probes:
                cases.append(agreement.Case(name, model, "probe", probes))
    result: dict[str, Any] = agreement.run_cases(cases, workers=0, show_progress=False)
    print(agreement.markdown(result))  # the distribution, with `pytest -s` or on failure
    return result


def _records(report: dict[str, Any], model: str, table: str | None = None) -> list[dict[str, Any]]:
    return [r for r in report["shots"] if r["model"] == model and table in (None, r["table"])]


def test_shots_cover_the_issue(report: dict[str, Any]) -> None:
    for model in agreement.MODELS:
        for table in TABLES:
            shots = [r for r in _records(report, model, table) if r["kind"] == "random"]
            assert len(shots) >= 50
            sizes = {r["n_balls"] for r in shots}
            assert min(sizes) == 2 and max(sizes) >= 14, sizes
        probes = [r for r in _records(report, model) if r["kind"] == "probe"]
        assert len(probes) >= 12


@pytest.mark.parametrize("table", TABLES)
@pytest.mark.parametrize("model", agreement.MODELS)
def test_event_sequences_and_final_positions_agree(report: dict[str, Any], model: str, table: str) -> None:
    records = _records(report, model, table)
    summary = agreement.summarise(records)
    agree = [r for r in records if r["match"] and r["max_position_diff"] <= agreement.POSITION_TOL]
    detail = json.dumps(
        {
            k: summary[k]
            for k in (
                "identical_fraction",
                "agree_fraction",
                "position_diff_on_matches_m",
                "divergence_kinds",
                "reference_errors",
                "overflows",
            )
        },
        indent=1,
    )
    assert summary["overflows"] == 0, detail
    assert summary["identical_sequences"] >= REQUIRED * len(records), detail
    # "final positions within 5 mm on those shots": on every shot whose sequence matched.
    matched = [r for r in records if r["match"]]
    assert len(agree) == len(matched), detail


@pytest.mark.parametrize("model", agreement.MODELS)
def test_every_pocket_probe_agrees(report: dict[str, Any], model: str) -> None:
    probes = [r for r in _records(report, model) if r["kind"] == "probe"]
    bad = [r for r in probes if not r["match"] or r["max_position_diff"] > agreement.POSITION_TOL]
    assert not bad, json.dumps(bad, indent=1)
    # One ball and its own cushions only: the engines may differ by pooltool's 1e-6 m
    # contact spacer, not by a modelling difference.
    assert max(r["max_position_diff"] for r in probes) < 1e-3
