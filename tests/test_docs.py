"""The README and the documentation pages: their size, their test command, their code, their links.

The README is a front page of at most 250 lines that keeps the test command `.ci/run` reads.
Every Python block of the README and of `docs/` either runs here, is the pure-JAX page's
training loop (`tests/envs/test_jax_env.py` runs it), or is marked `<!-- not run: REASON -->`
right before it. The measured pages are generated from the benchmarks' `docs/*.json`
(`docs/_hooks/benchmark_pages.py`): every such file is listed there, each shows the facts
its file holds and lists those it lacks, and a figure without its file is not shown.
`mkdocs build --strict` itself runs in the test command.
"""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
MAX_README_LINES = 250
MARKER = "<!-- test-command -->"
NOT_RUN = re.compile(r"<!-- not run: (?P<reason>\S.*?) -->\s*$")
RUN_ELSEWHERE = "<!-- jax-env-example -->"  # tests/envs/test_jax_env.py runs the block after it
BLOCK = re.compile(r"^```python\n(?P<code>.*?)^```$", re.MULTILINE | re.DOTALL)


def pages() -> list[Path]:
    """The README and every markdown page under docs/."""
    return [README, *sorted(DOCS.rglob("*.md"))]


def python_blocks(path: Path) -> list[tuple[int, str, str]]:
    """(line, the line before the block, code) of each ```python block of a page."""
    text = path.read_text(encoding="utf-8")
    out = []
    for found in BLOCK.finditer(text):
        line = text.count("\n", 0, found.start()) + 1
        before = text[: found.start()].rstrip("\n").rsplit("\n", 1)[-1]
        out.append((line, before, found.group("code")))
    return out


def runnable() -> list[Any]:
    """The blocks this module runs, as pytest params named `page:line`."""
    params = []
    for path in pages():
        for line, before, code in python_blocks(path):
            if NOT_RUN.search(before) or before.strip() == RUN_ELSEWHERE:
                continue
            params.append(pytest.param(path, code, id=f"{path.relative_to(ROOT)}:{line}"))
    return params


def hook() -> ModuleType:
    """The mkdocs hook that writes the measured pages, imported from its file."""
    path = DOCS / "_hooks" / "benchmark_pages.py"
    spec = importlib.util.spec_from_file_location("benchmark_pages", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)  # its dataclasses look their module up there
    spec.loader.exec_module(sys.modules[spec.name])
    return sys.modules[spec.name]


def test_the_readme_is_a_front_page_of_at_most_250_lines() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MAX_README_LINES, f"README.md has {len(lines)} lines (at most {MAX_README_LINES})"


def test_the_readme_keeps_the_test_command_that_ci_reads() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert lines.count(MARKER) == 1
    at = lines.index(MARKER)
    assert lines[at + 1] == "```bash" and lines[at + 3] == "```", lines[at : at + 4]
    command = lines[at + 2]
    assert command.startswith('pip install -e ".[dev,docs]" --config-settings editable_mode=strict && ')
    assert "ruff check . && mypy && python -m pytest" in command
    assert command.endswith(" && mkdocs build --strict")
    # `.ci/run`'s own reading of the README gives that one line.
    read = subprocess.run(
        [
            "bash",
            "-c",
            f"sed -n '/{MARKER}/,/^```$/p' README.md | sed -n '/^```bash$/,/^```$/p' | sed '1d;$d'",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert read == command + "\n"
    assert MARKER in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_the_readme_keeps_the_install_line_and_the_quickstarts() -> None:
    text = README.read_text(encoding="utf-8")
    assert "python3 -m venv .venv && . .venv/bin/activate && pip install . && piramida\n" in text
    assert "![A break on the default table](docs/break.png)" in text
    needles = ("make_jax", "float64()", "piramida eval", "piramida simulate", "piramida play", "## Licence")
    for needle in needles:
        assert needle in text, needle


@pytest.mark.parametrize("path", pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_python_block_runs_or_says_why_not(path: Path) -> None:
    for line, before, _ in python_blocks(path):
        if "not run" in before:
            assert NOT_RUN.search(before), f"{path.name}:{line}: `<!-- not run: REASON -->` needs a reason"
    if RUN_ELSEWHERE in path.read_text(encoding="utf-8"):
        assert path == DOCS / "jax-env.md", f"{path.name}: the training loop's marker is docs/jax-env.md's"
        assert 'docs" / "jax-env.md"' in (ROOT / "tests" / "envs" / "test_jax_env.py").read_text()


@pytest.mark.slow  # the pure-JAX quickstart traces the env (about 20 s)
@pytest.mark.parametrize(("path", "code"), runnable())
def test_the_python_blocks_run(path: Path, code: str, capsys: pytest.CaptureFixture[str]) -> None:
    scope: dict[str, Any] = {"__name__": "__docs__"}
    exec(compile(code, str(path.relative_to(ROOT)), "exec"), scope)
    assert capsys.readouterr().out.strip(), "a quickstart block prints what it made"


def test_no_page_points_outside_the_repository() -> None:
    outside = re.compile(r"\.\./shared|DESIGN\.md|RULES\.en\.md|\b[Ii]ssues? #?\d+|(?<![\w&])#\d+\b")
    for path in [*pages(), ROOT / "CHANGELOG.md", ROOT / "mkdocs.yml"]:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            assert not outside.search(line), f"{path.relative_to(ROOT)}:{number}: {line}"


def test_the_readme_links_resolve() -> None:
    text = README.read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)
    assert targets
    for target in targets:
        if "://" not in target:
            assert (ROOT / target).exists(), target


def test_every_benchmark_file_has_its_section_with_its_facts() -> None:
    module = hook()
    files = sorted(p.name for p in DOCS.iterdir() if p.suffix in {".json", ".jsonl"})
    assert set(files) == set(module.CATALOGUE), "list a new docs/*.json in the hook's CATALOGUE"
    generated = module.pages(DOCS)
    text = "\n".join(generated.values())
    for name in files:
        assert f"`docs/{name}`, written by" in text, name
    # A file that states its command shows it; one that lacks facts has them listed.
    performance = generated["benchmarks/performance.md"]
    assert "`python benchmarks/env_start.py --tables 1024`" in performance
    assert "| `docs/env_stages.json` | commit, command, date |" in performance


def test_a_figure_without_its_file_is_not_shown_and_missing_facts_are_listed(tmp_path: Path) -> None:
    module = hook()
    (tmp_path / "menu_speed.json").write_text(json.dumps({"batch": 1024, "shot menu ms (batch 1)": 1.25}))
    (tmp_path / "env_start.json").write_text(
        json.dumps({"machine": "vm", "commit": "abc1234", "command": "python x.py", "date": "2026-12-01"})
    )
    generated = module.pages(tmp_path)
    performance = generated["benchmarks/performance.md"]
    assert "| shot menu ms (batch 1) | 1.25 |" in performance
    assert "| `docs/menu_speed.json` | machine, commit, command, date |" in performance
    assert "- **Commit**: abc1234" in performance and "`docs/env_start.json` |" not in performance
    assert "bench_cpu" not in performance  # no file, no section
    assert "## " not in generated["benchmarks/strength.md"]  # no strength file: no section at all
