"""Fixed-budget protocols: what a researcher trains for, against whom it is judged, and the record.

A protocol fixes what makes two results comparable: the variant, the budget of learner
moves, the execution noise, and the judges (frames against `greedy` and `search:strong`,
each breaking in half of them). The entry fixes the rest: the algorithm and its settings
(a `piramida train` TOML file: the action mode, the network, the tables, the training
opponents or league). `run` trains the entry for the protocol's budget (resuming an
interrupted run from its checkpoints), plays the final policy against each judge
(`campaign.evaluate`, only the policy's meetings), and returns the result; `record` keeps
results in one JSON file, one per (protocol, entry, seed), from which the docs' table is
generated.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from piramida.evaluation import campaign
from piramida.evaluation.tournament import Plan
from piramida.physics import jsontext, noise
from piramida.physics.files import write_atomic
from piramida.physics.provenance import stamped
from piramida.rules import ids
from piramida.training import ConfigError, TrainConfig, checkpoint, config, read_meta, train
from piramida.training.config import IDENTITY
from piramida.training.runs import latest_checkpoint

FORMAT = "piramida-protocol-results"
JUDGES = ("greedy", "search:strong")


@dataclass(frozen=True)
class Protocol:
    """A fixed budget: `moves` learner moves of `variant` at `noise`, then `frames` against each judge."""

    name: str
    variant: str
    moves: int
    noise: str = "pro"
    judges: tuple[str, ...] = JUDGES
    frames: int = 200

    def describe(self) -> str:
        """One line: the budget and the judges."""
        return (
            f"{self.variant}, {self.moves:,} learner moves at {self.noise} noise; "
            f"{self.frames} frames against each of {', '.join(self.judges)}"
        )


PROTOCOLS = {
    p.name: p
    for p in (
        Protocol("free-1m", "free", 1_000_000),
        Protocol("free-10m", "free", 10_000_000),
        Protocol("combined-1m", "combined", 1_000_000),
        Protocol("dynamic-1m", "dynamic", 1_000_000),
        Protocol("classic-1m", "classic", 1_000_000),
    )
}


def settings(protocol: Protocol, entry: dict[str, Any]) -> TrainConfig:
    """The entry's training settings under the protocol: its variant, noise and budget imposed.

    ConfigError names a setting the entry may not choose, or a bad one.
    """
    imposed = {"variant", "noise", "steps", "out"} & set(entry)
    if imposed:
        raise ConfigError(f"{sorted(imposed)[0]}: the protocol's run sets it; leave it out of the entry")
    return config.build(
        {**entry, "variant": protocol.variant, "noise": protocol.noise, "steps": protocol.moves}
    )


def trained(run: TrainConfig, out: Path, progress: bool) -> tuple[Path, float | None]:
    """The entry's final checkpoint after its budget, and this session's training seconds.

    A finished run is not trained again (None seconds); an interrupted one resumes from
    its latest checkpoint, ending with the uninterrupted run's parameters. CheckpointError
    where `out` holds another run's.
    """
    final = out / "final.zip"
    meta = read_meta(final) if final.is_file() else None
    if meta is not None and meta.get("steps", 0) >= run.steps:
        checkpoint.check_fits(final, meta, run, IDENTITY)
        return final, None
    resume = latest_checkpoint(out) if (out / "checkpoints").is_dir() else None
    result = train(run, out, resume, progress=progress)
    return result.final, result.seconds


def player(run: TrainConfig, final: Path) -> Path:
    """What plays for a run's final checkpoint: itself, or a slot scorer's `policy.npz` beside it.

    A slot scorer's run (`--policy`) writes its policy as a trained bot's file at every
    checkpoint; its checkpoints hold the PPO runner, which no player loads.
    """
    return final if run.policy == "mlp" else final.parent / "policy.npz"


def run(
    protocol: Protocol,
    entry: dict[str, Any],
    name: str,
    out: Path,
    command: str,
    progress: bool = True,
) -> dict[str, Any]:
    """Train the entry `name` (`piramida train` settings) for the protocol's budget, judge it; the result.

    `out/train` holds the run, `out/eval` the judges' games (`piramida eval`'s files).
    """
    run_config = settings(protocol, entry)
    final, seconds = trained(run_config, out / "train", progress)
    meta = read_meta(final) or {}
    policy = str(player(run_config, final))
    plan = Plan(
        agents=(policy, *protocol.judges),
        variants=(ids.VARIANT_NAMES.index(protocol.variant),),
        magnitude=noise.level(protocol.noise),
        games=protocol.frames,
        seed=run_config.seed,
        focus=policy,
    )
    results = campaign.evaluate(plan, out / "eval", command)
    judged = {}
    for meeting in results["meetings"]:
        judge = next(agent for agent in meeting["agents"] if agent != policy)
        mine = meeting["bots"][policy]
        judged[judge] = {
            key: mine[key] for key in ("wins", "losses", "win_rate", "win_rate_ci95", "points_per_game")
        } | {"frames": meeting["games"], "draws": meeting["draws"], "unfinished": meeting["unfinished"]}
    return stamped(
        {
            "protocol": protocol.name,
            "entry": name,
            "algo": run_config.algo,
            "settings": run_config.to_json(),
            "seed": run_config.seed,
            "moves": meta.get("steps"),
            "train_s": seconds,
            "judges": judged,
            "command": command,
        }
    )


def record(path: Path, result: dict[str, Any]) -> dict[str, Any]:
    """Add `result` to the results file at `path` (atomically), replacing one of the same key.

    The key: the protocol, the entry and the seed.
    """
    same = (result["protocol"], result["entry"], result["seed"])
    held: dict[str, Any] = {"format": FORMAT, "results": []}
    if path.is_file():
        held = jsontext.loads(path.read_bytes())
        if not isinstance(held, dict) or held.get("format") != FORMAT:
            raise ValueError(f"{path}: not a protocol results file (format {FORMAT!r})")
    kept = [r for r in held["results"] if (r.get("protocol"), r.get("entry"), r.get("seed")) != same]
    held["results"] = [*kept, result]
    held.update({key: result.get(key) for key in ("machine", "commit", "date", "command")})  # the last's
    write_atomic(path, (jsontext.dumps(held, indent=1) + "\n").encode())
    return held
