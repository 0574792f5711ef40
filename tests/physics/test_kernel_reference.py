"""The kernel against the original XLA kernel's recorded results (`tests/data/xla_reference.npz`).

The fixture was written by `benchmarks/kernel_agreement.py record --set small` with the
XLA event loop of commit 517b40b (before the kernel's port to Warp): 400 random16 shots,
64 breaks, 96 shots at the pocket jaws and 96 with frozen balls, for each cushion model
and contact convention. The current `simulate` replays the same inputs with the same
calls (one per combo) and must reproduce them:

- identical ball-ball, cushion, jaw, pocket and centre-line sequences on at least 99.5 %
  of the random shots and of the whole set, and on every jaw and frozen-ball shot;
- final positions within 1e-6 m wherever the sequences agree;
- the same start snapshots, and break statistics within one standard error.

Why these bounds hold for any faithful port: with the XLA kernel (stronge_compliant,
nose), a one-ulp change of the strike speed, aim or a ball's position changed no sequence
in 1024 random, 512 jaw and 512 frozen-ball shots, moved final positions at most 3e-9 m,
and changed 3 of 256 breaks (slow pushes through the rack, where contacts chatter 1e-4 s
apart), which is why breaks are judged by statistics only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers.benchmark_scripts import load

kernel_agreement = load("kernel_agreement")

REFERENCE = Path(__file__).resolve().parents[1] / "data" / "xla_reference.npz"
REQUIRED = 0.995
EXACT = ("jaw", "frozen")  # workloads that must agree on every shot


@pytest.fixture(scope="module")
def agreement() -> dict[str, Any]:
    reference = kernel_agreement.load(REFERENCE)
    return kernel_agreement.agreement(reference, kernel_agreement.replay(reference))


def workloads(agreement: dict[str, Any], names: tuple[str, ...]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(c, n, by[n]) for c, by in agreement.items() for n in names]


def test_fixture_holds_every_combo_and_workload(agreement: dict[str, Any]) -> None:
    assert set(agreement) == set(kernel_agreement.COMBOS)
    for combo, name, g in workloads(agreement, kernel_agreement.WORKLOADS):
        assert g["shots"] > 0, f"{combo} {name}"
        assert g["overflow_a"] == g["overflow_b"] == 0, f"{combo} {name}: a log overflowed"


def test_event_sequences(agreement: dict[str, Any]) -> None:
    for combo, name, g in workloads(agreement, ("random", "all")):
        assert g["same_sequence"] >= REQUIRED, f"{combo} {name}: {g}"
    for combo, name, g in workloads(agreement, EXACT):
        assert g["same_sequence"] == 1.0, f"{combo} {name}: {g}"


def test_final_positions_where_sequences_agree(agreement: dict[str, Any]) -> None:
    for combo, name, g in workloads(agreement, ("all",)):
        assert g["max_dr"] <= kernel_agreement.POSITION_TOL, f"{combo} {name}: {g}"


def test_start_snapshots(agreement: dict[str, Any]) -> None:
    for combo, name, g in workloads(agreement, ("all",)):
        assert g["same_start"] == 1.0, f"{combo} {name}: {g}"


def test_break_statistics(agreement: dict[str, Any]) -> None:
    for combo, _, g in workloads(agreement, ("break",)):
        for stat, s in g["statistics"].items():
            assert s["agree"], f"{combo} breaks, {stat}: {s}"
