"""The measured pages of the documentation site, generated from the benchmarks' `docs/*.json`.

A mkdocs hook (`hooks:` in mkdocs.yml). Each benchmark writes its figures to a JSON file in
`docs/` (JSON Lines for `gpu_kernel.jsonl`); this module turns each file listed in
`CATALOGUE` into a section of a page, with a table per group of figures and, where the
file has them, the machine, the commit, the command and the date it was measured on. What
a file lacks of those four is listed under its tables. A figure that no file holds is not
shown. The pages also list the files in `docs/` that no entry names, so that none is
forgotten.

`pages(docs_dir)` is the whole job, as text, for the tests; `on_files` hands its pages and
the changelog to mkdocs.
"""

from __future__ import annotations

import datetime
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

Json = Any  # what `json.loads` returns

# The page a file's section goes on, by the `Source.page` key.
PAGES: dict[str, tuple[str, str, str]] = {
    "performance": (
        "benchmarks/performance.md",
        "Performance, measured",
        "How fast the kernel, the envs, the bots, the trainers and the play page run.",
    ),
    "strength": (
        "benchmarks/strength.md",
        "Strength, measured",
        "How strong the bots and the play page's levels are, from matches between them.",
    ),
}

# Where each of the four facts may sit in a file, by key, at its top level.
META_KEYS: dict[str, tuple[str, ...]] = {
    "machine": ("machine", "device", "devices", "cpus", "platform", "jax", "load"),
    "commit": ("commit", "git", "revision"),
    "command": ("command", "args"),
    "date": ("date", "time", "timestamp", "measured"),
}

MAX_COLUMNS = 12  # a table wider than this shows its first columns and says how many it left out


@dataclass(frozen=True)
class Source:
    """One benchmark file: where its section goes and what it measures.

    `columns` picks the columns of a table by the dotted path of its group (`""` for the
    file itself, `"settings"` for its `settings` list, ...), each column a dotted path into
    a row; without it every scalar of the rows is a column.
    """

    page: str
    title: str
    about: str
    script: str
    columns: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


STRENGTH_COLUMNS = (
    "variant",
    "noise",
    "games",
    "wins.search",
    "wins.greedy",
    "win_rate",
    "win_rate_ci95",
    "bots.search.pot_rate",
    "bots.greedy.pot_rate",
    "bots.search.fouls_per_shot",
    "seconds",
)

CATALOGUE: dict[str, Source] = {
    "bench_cpu.json": Source(
        "performance",
        "The shot kernel on the CPU",
        "Shots and events a second by batch size for random 16-ball shots (`random16`) and "
        "breaks, pooltool-billiards 0.6 on the same random shots in the same process, and the "
        "start-up times with empty and with filled compile caches.",
        "piramida bench",
    ),
    "gpu_kernel.jsonl": Source(
        "performance",
        "The shot kernel and jax-ppo on a GPU",
        "The kernel by workload, batch and CUDA block size, and jax-ppo's learner moves a "
        "second; one JSON line per measurement.",
        "benchmarks/gpu_kernel.py",
        {
            "": (
                "section",
                "block_dim",
                "workload",
                "batch",
                "shots_per_s",
                "events_per_s",
                "ms_per_call",
                "first_call_s",
                "tables",
                "learner_moves_per_s",
                "seconds_per_round",
                "first_round_s",
            )
        },
    ),
    "kernel_agreement.json": Source(
        "performance",
        "The Warp kernel against the JAX event loop it replaced",
        "Per cushion model and contact convention: the share of identical ordered event "
        "sequences and the largest final-position difference (m) on random shots and "
        "breaks, and the shots a second of the old loop (a) and the Warp kernel (b).",
        "benchmarks/kernel_agreement.py",
        {
            "": (
                "random.shots",
                "random.same_sequence",
                "random.max_dr",
                "break.shots",
                "break.same_sequence",
                "break.max_dr",
                "speed.random.a",
                "speed.random.b",
                "speed.random.ratio",
                "speed.break.ratio",
            )
        },
    ),
    "referee_speed.json": Source(
        "performance",
        "The referee",
        "Seconds per batch of the kernel (`physics_s`), the referee on the kernel's facts "
        "(`referee_s`) and the referee reading the event log (`log_referee_s`); `ratio` is "
        "the referee's share of the kernel's time.",
        "benchmarks/referee_speed.py",
    ),
    "env_speed.json": Source(
        "performance",
        "Environment throughput against random",
        "A vector env of Free pyramid stepped with random raw actions, and the pure-JAX env "
        "on the same actions: learner moves a second, the kernel calls a step, the moves "
        "played (the learner's and the opponent's) per learner move, and each env's moves a "
        "second per random16 shot a second of the bare kernel.",
        "benchmarks/env_speed.py",
    ),
    "env_speed_greedy.json": Source(
        "performance",
        "Environment throughput against greedy",
        "As above, with `greedy` replying.",
        "benchmarks/env_speed.py",
    ),
    "env_stages.json": Source(
        "performance",
        "Where an env step's time goes, against random",
        "Each stage of a move timed alone on the env's own mid-game states (seconds a call, "
        "the best of five).",
        "benchmarks/env_speed.py",
    ),
    "env_stages_greedy.json": Source(
        "performance",
        "Where an env step's time goes, against greedy",
        "As above, with `greedy` replying.",
        "benchmarks/env_speed.py",
    ),
    "env_start.json": Source(
        "performance",
        "Starting an env",
        "The first reset and step of an env in a fresh process, with empty (cold) and with "
        "filled (warm) compile caches, and the cost of a second batch size.",
        "benchmarks/env_start.py",
    ),
    "menu_speed.json": Source(
        "performance",
        "The shot menu",
        "The bots' shot planners per table, against the kernel's random 16-ball shot at the same batch.",
        "benchmarks/menu_speed.py",
    ),
    "trained_decision.json": Source(
        "performance",
        "One decision at batch 1",
        "Each bot's decision time, menu included, on positions of greedy-against-random "
        "frames (milliseconds).",
        "benchmarks/trained_decision.py",
    ),
    "train_speed.json": Source(
        "performance",
        "Training throughput",
        "SB3's MaskablePPO against jax-ppo, side by side: compile and first round "
        "(`warmup_s`), learner moves a second.",
        "benchmarks/train_speed.py",
    ),
    "play_timings.json": Source(
        "performance",
        "The play page's waits",
        "From `piramida play` with empty caches, in the browser: when the page is playable, "
        "the warm-up's steps, the bot's first move and its later moves (seconds), and the "
        "aiming line's wait after a change of aim (ms).",
        "benchmarks/play_timings.py",
    ),
    "level_first_move.json": Source(
        "performance",
        "The bot's first move at each level",
        "From a fresh `piramida play` whose compile caches hold the page's programs (seconds).",
        "benchmarks/level_first_move.py",
    ),
    "scratch_seeds.json": Source(
        "strength",
        "Learning from scratch, over seeds",
        "jax-ppo training the slot scorer from a fresh network against greedy "
        "(`benchmarks/entries/jax-ppo-slots.toml`), each seed's policy at the same budget of "
        "learner moves, 200 Free frames against greedy at `pro` noise; the mean and the spread.",
        "benchmarks/seed_curves.py",
        {"seeds": ("run", "wins", "losses", "win_rate", "win_rate_ci95")},
    ),
    "expert_iteration.json": Source(
        "strength",
        "Expert iteration's rounds",
        "Each round's network (round 0: the shipped one) at the trained bot's `quick` level, "
        "against `greedy` and `search:strong` in each variant at `pro` (50 frames a cell); "
        "positions recorded by the network-guided search, the hours of the recording and of the whole "
        "round (recording and fit) "
        "(`docs/expert_iteration.png` draws them).",
        "piramida expert iterate --out runs/iterate --rounds 6",
        {
            "rounds": (
                "round",
                "positions",
                "record_hours",
                "hours",
                *(
                    f"win_rates.{judge}.{variant}"
                    for judge in ("greedy", "search:strong")
                    for variant in ("free", "combined", "dynamic", "classic")
                ),
            )
        },
    ),
    "protocols.json": Source(
        "strength",
        "Fixed-budget protocols",
        "Each entry trained for its protocol's budget of learner moves, then played against the "
        "judges at `pro` noise (`piramida protocol list`); the top-level facts are the last "
        "result's, each row keeps its own.",
        "piramida protocol run PROTOCOL --entry FILE --record docs/protocols.json",
        {
            "results": (
                "protocol",
                "entry",
                "algo",
                "seed",
                "moves",
                "train_s",
                "judges.greedy.win_rate",
                "judges.greedy.win_rate_ci95",
                "judges.search:strong.win_rate",
                "judges.search:strong.win_rate_ci95",
                "commit",
                "date",
            )
        },
    ),
    "levels.json": Source(
        "strength",
        "The play page's levels",
        "A round robin of the levels in Free pyramid: every pair's record, the Elo ratings "
        "(anchored at novice = 1000) and the pot rates.",
        "benchmarks/level_ladder.py",
        {"meetings": ("pair", "games", "wins", "draws", "unfinished", "pots", "shots", "seconds")},
    ),
    "search_budget.json": Source(
        "strength",
        "The search bot's strength and decision time by budget",
        "Free pyramid at `pro` noise against greedy, and single-table decision times, per search level.",
        "benchmarks/search_budget.py",
        {
            "levels": (
                "level",
                "budget",
                "decision_median_s",
                "decision_p90_s",
                "wins.search",
                "wins.greedy",
                "win_rate",
                "win_rate_ci95",
                "pot_rate",
                "greedy_pot_rate",
                "match_seconds",
            )
        },
    ),
    "search_strength.json": Source(
        "strength",
        "The search bot against greedy",
        "The default level, 200 frames a setting, each bot breaking in half of them.",
        "benchmarks/search_strength.py",
        {"settings": STRENGTH_COLUMNS},
    ),
    "search_strength_points.json": Source(
        "strength",
        "The search bot against greedy, valuing points in Free pyramid",
        "As above, with Free pyramid valued by points instead of as a race, and a 256-slot game log.",
        "benchmarks/search_strength.py",
        {"settings": STRENGTH_COLUMNS},
    ),
    "search_strength_free_pro_points.json": Source(
        "strength",
        "Free pyramid at `pro`, points value, the strong level",
        "The default level with the points value, on the frames of the race value's run.",
        "benchmarks/search_strength.py",
        {"settings": STRENGTH_COLUMNS},
    ),
    "search_strength_free_pro_points_strongest.json": Source(
        "strength",
        "Free pyramid at `pro`, points value, the strongest level",
        "The strongest level with the points value, on the same frames.",
        "benchmarks/search_strength.py",
        {"settings": STRENGTH_COLUMNS},
    ),
    "search_strength_previous.json": Source(
        "strength",
        "The search bot against greedy, a stage 1 without the aim quadrature",
        "An earlier search that judged every candidate by its perfect stroke alone.",
        "benchmarks/search_strength.py",
        {"settings": STRENGTH_COLUMNS},
    ),
    "finetune_curve.json": Source(
        "strength",
        "Fine-tuning the trained network with jax-ppo",
        "The network alone, at each checkpoint of a fine-tuning run, against greedy on the "
        "same 200 Free frames at `pro` (`low` and `high`: the 95 % interval of its win rate).",
        "benchmarks/finetune_curve.py",
    ),
}


def load(path: Path) -> Json:
    """A benchmark file's data: the JSON value, or the list of a JSON Lines file's values."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    return json.loads(text)


def cell(value: Json) -> str:
    """A value as a table cell: numbers to 4 significant figures, short lists joined."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}" if abs(value) >= 10_000 else str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            return str(value)
        if value != 0 and (abs(value) >= 1e6 or abs(value) < 1e-3):
            return f"{value:.3g}"
        if abs(value) >= 10_000:
            return f"{value:,.0f}"
        return f"{value:.4g}"
    if isinstance(value, list):
        if all(not isinstance(v, dict | list) for v in value) and len(value) <= 8:
            return ", ".join(cell(v) for v in value)
        return f"({len(value)} values)"
    if isinstance(value, dict):
        return f"({len(value)} entries)"
    return str(value).replace("|", "\\|").replace("\n", " ")


def flatten(row: Mapping[str, Json], prefix: str = "", depth: int = 2) -> dict[str, Json]:
    """A row's values by dotted path, nested objects opened `depth` levels deep."""
    out: dict[str, Json] = {}
    for key, value in row.items():
        path = f"{prefix}{key}"
        if isinstance(value, dict) and depth > 0:
            out.update(flatten(value, f"{path}.", depth - 1))
        else:
            out[path] = value
    return out


def pick(row: Mapping[str, Json], path: str) -> Json:
    """The value at a dotted path of a row, or None."""
    value: Json = row
    for part in path.split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


def table(rows: Sequence[Mapping[str, Json]], columns: Sequence[str] | None, first: str = "") -> list[str]:
    """A markdown table of rows; `first` names a leading column of row names (the rows' `_name`)."""
    if columns is None:
        seen: dict[str, None] = {}
        for row in rows:
            for key, value in flatten({k: v for k, v in row.items() if k != "_name"}).items():
                if not (isinstance(value, list) and any(isinstance(v, dict | list) for v in value)):
                    seen.setdefault(key, None)
        columns = list(seen)
    lines: list[str] = []
    left = len(columns) - MAX_COLUMNS
    shown = list(columns[:MAX_COLUMNS])
    header = ([first] if first else []) + shown
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|" + "---|" * len(header))
    for row in rows:
        values = [cell(pick(row, c)) for c in shown]
        if first:
            values.insert(0, f"**{row['_name']}**")
        lines.append("| " + " | ".join(values) + " |")
    if left > 0:
        lines.append("")
        lines.append(f"({left} more columns in the file: {', '.join(columns[MAX_COLUMNS:])}.)")
    return lines


def quantities(values: Mapping[str, Json]) -> list[str]:
    """A two-column markdown table: each quantity and its value."""
    rows = [f"| {key} | {cell(value)} |" for key, value in values.items()]
    return ["| quantity | value |", "|---|---|", *rows]


def is_rows(value: Json) -> bool:
    """Whether a value is a list of objects (a table's rows)."""
    return isinstance(value, list) and bool(value) and all(isinstance(v, dict) for v in value)


def is_keyed_rows(value: Json) -> bool:
    """Whether a value is an object of objects (rows by name)."""
    return isinstance(value, dict) and bool(value) and all(isinstance(v, dict) for v in value.values())


def groups(data: Json, source: Source, path: str = "") -> list[str]:
    """The tables of a value, each under a caption naming its path in the file."""
    lines: list[str] = []
    caption = [f"`{path}`:", ""] if path else []
    columns = source.columns.get(path)
    if is_rows(data) and len(data) == 1 and columns is None:  # one row: a column of quantities
        return [*caption, *quantities(flatten(data[0])), ""]
    if is_rows(data):
        return [*caption, *table(data, columns), ""]
    if is_keyed_rows(data):
        rows = [{"_name": name, **value} for name, value in data.items()]
        return [*caption, *table(rows, columns, first="name"), ""]
    if not isinstance(data, dict):
        return [*caption, cell(data), ""]
    scalars = {
        k: v
        for k, v in data.items()
        if not (is_rows(v) or is_keyed_rows(v) or (isinstance(v, dict) and v))
        and not (isinstance(v, list) and len(v) > 8)
    }
    if scalars:
        lines += [*caption, *quantities(scalars), ""]
    for key, value in data.items():
        if key in scalars:
            continue
        if isinstance(value, list) and not is_rows(value):
            lines += [f"`{path + '.' if path else ''}{key}`: {len(value)} values (in the file).", ""]
            continue
        lines += groups(value, source, f"{path}.{key}" if path else key)
    return lines


def describe_machine(found: Mapping[str, Json]) -> str:
    """The machine's entries of a file, as one line."""
    parts = []
    for key, value in found.items():
        if isinstance(value, dict):
            parts.append(", ".join(f"{k} {cell(v)}" for k, v in value.items()))
        elif key == "machine":
            parts.append(cell(value))
        else:
            parts.append(f"{key} {cell(value)}")
    return "; ".join(parts)


def describe_date(value: Json) -> str:
    """A date entry: a Unix time as UTC, anything else as written."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return datetime.datetime.fromtimestamp(value, tz=datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    return cell(value)


def meta(data: Json) -> tuple[dict[str, str], list[str], set[str]]:
    """(the facts a file states, the facts it lacks, the top-level keys they were read from).

    A JSON Lines file states a fact if any of its lines does (the first that does is shown).
    """
    records: list[Mapping[str, Json]]
    if isinstance(data, dict):
        records = [data]
    elif isinstance(data, list):
        records = [r for r in data if isinstance(r, dict)]
    else:
        records = []
    facts: dict[str, str] = {}
    used: set[str] = set()
    for fact, keys in META_KEYS.items():
        for record in records:
            found = {k: record[k] for k in keys if k in record}
            if not found:
                continue
            used |= set(found)
            if fact == "machine":
                facts[fact] = describe_machine(found)
            elif fact == "date":
                facts[fact] = describe_date(next(iter(found.values())))
            elif fact == "command":
                value = next(iter(found.values()))
                if isinstance(value, dict):
                    facts[fact] = "arguments: " + ", ".join(f"{k}={cell(v)}" for k, v in value.items())
                elif isinstance(value, list):
                    facts[fact] = "; ".join(f"`{v}`" for v in value)
                else:
                    facts[fact] = f"`{value}`"
            else:
                facts[fact] = cell(next(iter(found.values())))
            break
    runs: Json = data.get("runs", []) if isinstance(data, dict) else []
    if "command" not in facts and is_rows(runs) and all("command" in run for run in runs):
        facts["command"] = "; ".join(f"`{run['command']}`" for run in runs)  # a file merged from runs
    missing = [fact for fact in META_KEYS if fact not in facts]
    return facts, missing, used


def strip(data: Json, keys: Iterable[str]) -> Json:
    """The data without its top-level fact keys (in each line of a JSON Lines file's rows)."""
    keys = set(keys)
    if isinstance(data, dict):
        return {k: v for k, v in data.items() if k not in keys}
    if is_rows(data):
        rows = [{k: v for k, v in row.items() if k not in keys} for row in data]
        return [row for row in rows if any(isinstance(v, float) for v in row.values())]  # not a header line
    return data


def section(name: str, data: Json, source: Source) -> tuple[list[str], list[str]]:
    """(a file's section of its page, the facts it lacks)."""
    facts, missing, used = meta(data)
    lines = [f"## {source.title}", "", source.about, ""]
    lines.append(f"- **File**: `docs/{name}`, written by `{source.script}`")
    labels = {"machine": "Machine", "commit": "Commit", "command": "Command", "date": "Date"}
    lines += [f"- **{labels[fact]}**: {value}" for fact, value in facts.items()]
    if missing:
        lines.append(f"- **Not in the file**: {', '.join(missing)}")
    lines.append("")
    lines += groups(strip(data, used), source)
    return lines, missing


def pages(docs_dir: Path) -> dict[str, str]:
    """Every generated page's text by its path in the site (`benchmarks/performance.md`, ...)."""
    bodies: dict[str, list[str]] = {key: [] for key in PAGES}
    lacking: dict[str, list[tuple[str, list[str]]]] = {key: [] for key in PAGES}
    for name, source in CATALOGUE.items():
        path = docs_dir / name
        if not path.exists():
            continue  # a figure without its file is not shown
        lines, missing = section(name, load(path), source)
        bodies[source.page] += lines
        if missing:
            lacking[source.page].append((name, missing))
    unlisted = sorted(
        p.name for p in docs_dir.iterdir() if p.suffix in {".json", ".jsonl"} and p.name not in CATALOGUE
    )
    out: dict[str, str] = {}
    for key, (target, title, intro) in PAGES.items():
        head = [
            f"# {title}",
            "",
            intro,
            "Every figure on this page is read from a file in `docs/` that a benchmark wrote; "
            "this page is generated from those files when the site is built "
            "(`docs/_hooks/benchmark_pages.py`), so it shows what the files hold and nothing "
            "else. Rerun a benchmark to update its section. Times depend on the machine and on "
            "what else it was running.",
            "",
        ]
        tail: list[str] = []
        if lacking[key]:
            tail += ["## What the files do not say", "", "| file | missing |", "|---|---|"]
            tail += [f"| `docs/{n}` | {', '.join(m)} |" for n, m in lacking[key]]
            tail.append("")
        if unlisted and key == "performance":
            tail += ["Files in `docs/` not shown here: " + ", ".join(f"`{n}`" for n in unlisted) + ".", ""]
        out[target] = "\n".join(head + bodies[key] + tail)
    return out


def changelog(docs_dir: Path) -> str:
    """The repository's CHANGELOG.md, as a page of the site."""
    return (docs_dir.parent / "CHANGELOG.md").read_text(encoding="utf-8")


def on_files(files: Any, config: Any) -> Any:
    """Add the generated pages and the changelog to the site's files (mkdocs' hook)."""
    from mkdocs.structure.files import File

    docs_dir = Path(config["docs_dir"])
    generated = {**pages(docs_dir), "changelog.md": changelog(docs_dir)}
    for src_uri, text in generated.items():
        files.append(File.generated(config, src_uri, content=text))
    return files
