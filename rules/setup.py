"""`Setup`: the table and the physics a game is played on, as one argument.

A move needs four things that must agree: the kernel's table (`physics.Table`, arrays),
its constants (`PhysicsParams`), its model choices (`Models`), and the table's figures
that the referee and the bots' planners read as plain numbers (`state.Dims`: width,
length, ball radius). `Setup.of` makes them from one table and one set of constants, so
the figures always are those of the table, and every function from a move
(`rules.game.play`) to the bots' planners takes the one value.

`Setup` is a pytree: under `jit` the arrays (table, params) are traced and the figures
and models are static (its metadata), so a program compiles once per table geometry and
model choice, and a `Setup` passes through `jit`, `vmap` and `lax.scan` like any argument.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import jax

from piramida.physics.params import PYRAMID_PARAMS, Models, PhysicsParams
from piramida.physics.table import DEFAULT_TABLE, Table, preset
from piramida.rules.state import Dims


@functools.partial(
    jax.tree_util.register_dataclass, data_fields=["table", "params"], meta_fields=["dims", "models"]
)
@dataclass(frozen=True)
class Setup:
    """The table and the physics of a game (module docstring); make one with `Setup.of`.

    Attributes:
      table: the kernel's table (arrays).
      params: the physical constants.
      dims: the table's figures (width, length, ball radius), static.
      models: the kernel's model choices, static.

    """

    table: Table
    params: PhysicsParams
    dims: Dims
    models: Models

    @staticmethod
    def of(
        table: str | Table = DEFAULT_TABLE,
        params: PhysicsParams = PYRAMID_PARAMS,
        models: Models = Models(),  # noqa: B008 (frozen, hashable)
    ) -> Setup:
        """The setup of a table (a preset's name or a `Table`), its figures read from it and `params.R`."""
        kernel_table = preset(table) if isinstance(table, str) else table
        return Setup(kernel_table, params, Dims.of(kernel_table, params.R), models)


@functools.cache
def default_setup() -> Setup:
    """The `pyramid-12ft` preset with `PYRAMID_PARAMS` and the default models (made once).

    Its table's arrays are made eagerly even where the first call is inside a `jit` trace,
    so that the cached value never holds a tracer.
    """
    with jax.ensure_compile_time_eval():
        return Setup.of()
