"""`piramida.cli.version.__version__`: the installed package's version, read from its metadata.

piramida is a namespace package (no top-level `__init__`), so the version lives here, beside
the command that prints it (`piramida --version`). It is read at run time, not written in a
second place, so it cannot drift from `pyproject.toml`'s.
"""

from __future__ import annotations

from importlib.metadata import version

__version__: str = version("piramida")
