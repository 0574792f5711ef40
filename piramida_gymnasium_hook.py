"""Registers piramida's Gymnasium ids when Gymnasium is imported, with no import of piramida.

Gymnasium 1.x dropped entry-point plugins, so `gymnasium.make("piramida/FreePyramid-v1")`
would need `import piramida.envs` first. `piramida-gymnasium.pth` (installed beside the
package) imports this module at interpreter start: it only puts a finder on `sys.meta_path`
that waits for `gymnasium.envs.registration` and, once that module has run, registers the
four ids (lazy entry points: nothing of JAX is imported until an env is made).
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Any

TARGET = "gymnasium.envs.registration"


class _RegisterAfterGymnasium(importlib.abc.MetaPathFinder):
    """Wraps the loader of Gymnasium's registry module so piramida registers right after it."""

    def find_spec(self, name: str, path: Sequence[str] | None, target: ModuleType | None = None) -> Any:
        """Only for `TARGET`: the normal spec, with the registration added to its loading."""
        if name != TARGET:
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return spec
        loader = spec.loader
        load = loader.exec_module

        def exec_module(module: ModuleType) -> None:
            load(module)
            try:
                from piramida.envs import register_envs
            except ImportError:  # piramida was uninstalled but this hook stayed behind
                return
            register_envs()

        loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


def install() -> None:
    """Put the finder on `sys.meta_path` (once, and only if Gymnasium is not imported yet)."""
    if TARGET in sys.modules or any(isinstance(f, _RegisterAfterGymnasium) for f in sys.meta_path):
        return
    sys.meta_path.insert(0, _RegisterAfterGymnasium())


install()
