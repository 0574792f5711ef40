"""Expert iteration: rounds of data from the network-guided search, a network fitted to it, its strength.

Round 0 judges the starting policy (the shipped one, or `IterationPlan.start`). Round k
then:

1. records `positions` positions (`training.expert`), labelled by the search guided by
   round k-1's network: its finalists drawn from the network's softmax, struck by the
   search's stage 2 (`samples` strikes of each of `finalists`), the best mean played; the labeller meets
   `greedy` and round k-1's network alone (`trained:policy`) on some tables;
2. fits round k's network (`training.distill`), starting from round k-1's, on the data of
   every round so far;
3. judges it: `frames` frames in each variant against each judge, at `pro` noise, the
   network playing at its `player` level (`piramida eval`'s files in `round-K/eval`).

`OUT/rounds.json` logs every round (positions, the recording's hours and the round's,
the fit's metrics, the win rates by judge and variant) and `OUT/rounds.png` draws them.
Every stage resumes where an interrupted run stopped (the chunks, the fit's checkpoint,
a round's judged results), and a round is a function of the plan and the round before it.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from piramida.agents import scorer
from piramida.agents.trained import SHIPPED
from piramida.evaluation import campaign, curves
from piramida.evaluation.tournament import Plan
from piramida.physics import jsontext, noise
from piramida.physics.files import write_atomic
from piramida.physics.provenance import stamped
from piramida.rules import ids
from piramida.training import distill, expert

LOG = "rounds.json"
PICTURE = "rounds.png"
FORMAT = 1


@dataclass(frozen=True)
class IterationPlan:
    """The rounds to run (every field has a default that a small run can shrink).

    Attributes:
      rounds: rounds after round 0.
      positions: positions recorded per round.
      finalists, samples: the guided search's finalists, and strikes of each (the
        labels' noise: a mean of few strikes flatters the luckiest finalist).
      tables, moves: the recording's batch and moves per chunk (`expert.RecordPlan`).
      epochs, learning_rate, batch: each round's fit (`distill.DistillPlan`).
      player: the trained level the judged network plays at.
      judges: the bots each round's network meets.
      variants: the variants it meets them in (`rules.ids` names).
      frames: frames per meeting (per judge and variant).
      start: the round-0 policy (`.npz`; "": the shipped trained bot's).
      seed: the seed of every round's recording, fit and meetings.

    """

    rounds: int = 3
    positions: int = 8_000
    finalists: int = 12
    samples: int = 24
    tables: int = 64
    moves: int = 32
    epochs: int = 6
    learning_rate: float = 3e-4
    batch: int = 256
    player: str = "quick"
    judges: tuple[str, ...] = ("greedy", "search:strong")
    variants: tuple[str, ...] = ids.VARIANT_NAMES
    frames: int = 50
    start: str = ""
    seed: int = 0


def round_folder(out: Path, number: int) -> Path:
    return out / f"round-{number}"


def policy_of(plan: IterationPlan, out: Path, number: int) -> Path:
    """The policy file of round `number` (round 0: the starting one)."""
    if number == 0:
        return Path(plan.start) if plan.start else SHIPPED
    return round_folder(out, number) / "policy" / "policy.npz"


def record_plan(plan: IterationPlan, number: int, guide: Path) -> expert.RecordPlan:
    """Round `number`'s recording, guided by the policy `guide` (module docstring)."""
    return expert.RecordPlan(
        positions=plan.positions,
        tables=plan.tables,
        moves=plan.moves,
        finalists=plan.finalists,
        samples=plan.samples,
        seed=plan.seed * 1_000 + number,
        policy=str(guide),
        rivals=("greedy", f"{guide}:policy"),
    )


def fit_plan(plan: IterationPlan, width: int) -> distill.DistillPlan:
    """Each round's fit: a short run at a low rate from the round before's network (of `width`)."""
    return distill.DistillPlan(
        epochs=plan.epochs,
        batch=plan.batch,
        learning_rate=plan.learning_rate,
        width=width,
        seed=plan.seed,
        validation_every=4,
    )


def judged(plan: IterationPlan, policy: Path, folder: Path, command: str) -> dict[str, dict[str, float]]:
    """The win rates of `policy` (at the plan's `player` level) by judge and variant (written once)."""
    done = folder / "judged.json"
    if done.is_file():
        saved = jsontext.loads(done.read_bytes())
        if isinstance(saved, dict):
            return saved
    player = f"{policy}:{plan.player}"
    tournament = Plan(
        agents=(player, *plan.judges),
        variants=tuple(ids.VARIANT_NAMES.index(v) for v in plan.variants),
        magnitude=noise.level("pro"),
        games=plan.frames,
        seed=plan.seed,
        focus=player,
    )
    results = campaign.evaluate(tournament, folder / "eval", command)
    rates: dict[str, dict[str, float]] = {}
    for meeting in results["meetings"]:
        judge = next(agent for agent in meeting["agents"] if agent != player)
        rates.setdefault(judge, {})[meeting["variant"]] = meeting["bots"][player]["win_rate"]
    write_atomic(done, (jsontext.dumps(rates, indent=1) + "\n").encode())
    return rates


def _read_log(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    log = jsontext.loads(path.read_bytes())
    if not isinstance(log, dict) or log.get("format") != FORMAT:
        raise expert.ExpertDataError(f"{path}: not an expert-iteration log (format {FORMAT})")
    return log


def _but_rounds(plan: Any) -> Any:
    """A logged plan without its number of rounds (which a run may raise to go on)."""
    return {k: v for k, v in plan.items() if k != "rounds"} if isinstance(plan, dict) else plan


def iterate(plan: IterationPlan, out: Path, command: str, progress: Any = None) -> dict[str, Any]:
    """Run (or resume) the rounds of the module docstring into `out`; the log (`rounds.json`).

    `progress(what, done, total)` is told of each recording and fit. A folder holding
    another plan's rounds is refused (ExpertDataError names the file); a plan that differs
    only in `rounds` goes on from the last round logged, so a flat curve can be told from
    a rising one by asking for more rounds.
    """
    out.mkdir(parents=True, exist_ok=True)
    log = _read_log(out / LOG)
    if log and _but_rounds(log.get("plan")) != _but_rounds(jsontext.loads(jsontext.dumps(asdict(plan)))):
        raise expert.ExpertDataError(f"{out / LOG}: the rounds of another plan; use a new folder")
    rounds: list[dict[str, Any]] = list(log.get("rounds", []))
    width = int(scorer.load(policy_of(plan, out, 0))[1]["width"])
    for number in range(plan.rounds + 1):
        if any(entry["round"] == number for entry in rounds):
            continue  # logged: the round is done
        folder = round_folder(out, number)
        policy = policy_of(plan, out, number)
        entry: dict[str, Any] = {"round": number, "policy": str(policy)}
        if number > 0:
            data = folder / "data"
            started = time.perf_counter()
            tell = None if progress is None else lambda d, t, n=number: progress(f"round {n}: data", d, t)
            entry["positions"] = expert.record(
                record_plan(plan, number, policy_of(plan, out, number - 1)), data, tell
            )
            entry["record_hours"] = expert.summary(data).get("hours")
            fitted = (
                None
                if progress is None
                else lambda what, d, t, n=number: progress(f"round {n}: {what}", d, t)
            )
            metrics = distill.distill(
                fit_plan(plan, width),
                [round_folder(out, k) / "data" for k in range(1, number + 1)],
                policy.parent,
                made={"command": command, "round": number, "plan": asdict(plan)},
                progress=fitted,
                start=policy_of(plan, out, number - 1),
            )
            entry["fit"] = {
                name: round(value, 4) for name, value in metrics.items() if name.startswith("validation/")
            }
            entry["hours"] = round((time.perf_counter() - started) / 3600.0, 3)  # recording and fit
        entry["win_rates"] = judged(plan, policy, folder, command)
        rounds.append(entry)
        log = stamped({"format": FORMAT, "plan": asdict(plan), "command": command, "rounds": rounds})
        write_atomic(out / LOG, (jsontext.dumps(log, indent=1) + "\n").encode())
        draw(log, out / PICTURE)
    return log


def draw(log: dict[str, Any], path: Path) -> Path:
    """Each round's win rate against each judge: a line per variant and their mean (bold)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    judges = list(log["plan"]["judges"])
    frames = log["plan"]["frames"]
    rounds = sorted(log["rounds"], key=lambda entry: entry["round"])
    numbers = [entry["round"] for entry in rounds]
    fig, axes = plt.subplots(1, len(judges), figsize=(3.6 * len(judges), 3.0), dpi=110, squeeze=False)
    for ax, judge in zip(axes[0], judges, strict=True):
        rates = {v: [entry["win_rates"][judge][v] for entry in rounds] for v in log["plan"]["variants"]}
        for variant, line in rates.items():
            ax.plot(numbers, line, lw=1.0, alpha=0.7, marker=".", label=variant)
        mean = [sum(column) / len(column) for column in zip(*rates.values(), strict=True)]
        ax.plot(numbers, mean, lw=2.4, color="black", marker="o", label="mean")
        ax.set_xticks(numbers)
        curves.finish_panel(
            ax, "win_rate", f"vs {judge} ({frames} frames a variant)", "expert-iteration round"
        )
    curves.save_panels(fig, axes, path)
    return path
