"""The version: `piramida --version` and `piramida.cli.version.__version__` are pyproject's."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from piramida.cli.main import main
from piramida.cli.version import __version__

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def test_the_version_is_the_installed_metadata_and_pyprojects() -> None:
    declared = tomllib.loads(PYPROJECT.read_text())["project"]["version"]
    assert __version__ == declared  # a stale install would give the version it was built with


def test_piramida_version_prints_the_version_and_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as leaving:
        main(["--version"])
    assert leaving.value.code == 0
    assert capsys.readouterr().out == f"piramida {__version__}\n"
