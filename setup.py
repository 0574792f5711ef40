"""Installs `piramida-gymnasium.pth` beside the package (see `piramida_gymnasium_hook.py`).

Everything else is in pyproject.toml; a wheel can only carry a .pth file at the top of
site-packages through the build step, so `build_py` copies it there.
"""

import os

from setuptools import setup
from setuptools.command.build_py import build_py

HOOK = "piramida-gymnasium.pth"


class BuildWithHook(build_py):
    """`build_py` that also ships the .pth file."""

    def run(self) -> None:
        """Build the packages, then copy the hook."""
        super().run()
        self.copy_file(HOOK, os.path.join(self.build_lib, HOOK))

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        """The package files and the hook."""
        return [*super().get_outputs(include_bytecode), os.path.join(self.build_lib, HOOK)]


setup(cmdclass={"build_py": BuildWithHook})
