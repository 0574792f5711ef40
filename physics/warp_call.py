"""Warp kernels of one thread a table, as JAX functions that run inside `jit` and `vmap`.

Both of the project's table kernels (the shot, `engine.loop.shot`, and the bots' pot
planner, `agents.pot_kernel`) take the same shape of arguments: first the inputs with a
leading table axis, then inputs every table shares, then the outputs, each with a
leading table axis. `TableKernel` turns such a kernel into a JAX function through XLA's
FFI: `warp.jax_kernel` on CUDA; on the CPU `warp.jax_callable` around a launcher that
splits the tables into one slice per core (Warp runs a CPU launch on one thread, and its
FFI handler serializes concurrent calls, so two launches in one program ran no faster
than one; launches from a thread pool inside one call do, since a launch releases the
GIL). Under `vmap`, the vmapped axis merges into the table axis: one launch still.
"""

from __future__ import annotations

import inspect
import itertools
import os
import threading
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from types import ModuleType
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import warp as wp

# Threads per CUDA block. Measured on one H200 (docs/gpu_kernel.jsonl): 64 ran random
# 16-ball shots at 552,527 shots/s at batch 65,536 against 307,697 with Warp's 256 (a
# thread's local arrays are large, and fewer threads a block spread them over more
# multiprocessors). A CPU launch ignores it.
CUDA_BLOCK_DIM = 64
# Tables a CPU launch gives each thread at least. A second thread costs about 0.6 ms to
# join in (measured at batch 18 on this project's 2-core CPU: one thread 1.53 ms, two
# 2.17 ms; at 36 tables the two were even, at 72 two threads won 3.59 ms to 4.69 ms).
MIN_TABLES_PER_THREAD = 24

_POOL: ThreadPoolExecutor | None = None  # the CPU launchers' threads, made on first use
_POOL_MADE = threading.Lock()


def cpu_threads() -> int:
    """Threads a CPU launch runs on: every core, or `PIRAMIDA_CPU_THREADS`."""
    return int(os.environ.get("PIRAMIDA_CPU_THREADS", "0")) or os.cpu_count() or 1


def _pool() -> ThreadPoolExecutor:
    global _POOL
    with _POOL_MADE:
        if _POOL is None:
            _POOL = ThreadPoolExecutor(max_workers=cpu_threads(), thread_name_prefix="piramida-kernel")
        return _POOL


class TableKernel:
    """A Warp kernel of one thread a table, callable from JAX (`__call__`) on the CPU and on CUDA.

    `table_arguments` counts the leading inputs that carry the table axis and `outputs`
    names the trailing output arguments; the arguments between are shared by all tables.
    """

    def __init__(
        self, kernel: Any, module: ModuleType, table_arguments: int, outputs: tuple[str, ...]
    ) -> None:
        """Wrap `kernel`, defined in `module` (the Warp module the CPU build compiles)."""
        self.kernel = kernel
        self.module = module
        self.table_arguments = table_arguments
        self.outputs = outputs
        self.parameters = tuple(inspect.signature(kernel.func).parameters)
        self.shared = frozenset(self.parameters[table_arguments : len(self.parameters) - len(outputs)])
        self._calls: dict[str, Any] = {}
        self._module_lock = threading.Lock()
        self._trace_lock = threading.Lock()  # `launch`: a call's number and its trace, together
        self._module_ready = False
        self._batched: dict[tuple[tuple[int, ...], ...], Any] = {}

    def preload_cpu(self) -> None:
        """Build (or load from Warp's cache) the kernel's CPU module now, once per process.

        A launch otherwise builds it at its first call, after XLA has compiled the program
        around it; a caller with time to spare runs this in a thread beside those compiles,
        so that the two overlap. Launches wait for it.
        """
        with self._module_lock:
            if not self._module_ready:
                wp.load_module(self.module, device="cpu")
                self._module_ready = True

    def preload_in_background(self) -> None:
        """On the CPU, start `preload_cpu` in a thread (elsewhere nothing)."""
        if jax.default_backend() == "cpu" and not self._module_ready:
            threading.Thread(target=self.preload_cpu, name="piramida-warp-build", daemon=True).start()

    def _launch_on_cpu_threads(self, *arguments: Any) -> None:
        """The kernel over the batch, one slice of tables per CPU thread."""
        self.preload_cpu()
        batch = arguments[0].shape[0]
        threads = min(cpu_threads(), batch // MIN_TABLES_PER_THREAD)
        if threads <= 1:
            # One slice, the whole batch: no views. Each `wp.array` view costs about 4 us in
            # Python, a third of a small batch's launch (measured at batch 1, 26 arrays).
            wp.launch(self.kernel, dim=batch, inputs=list(arguments), device="cpu")
            return
        bounds = np.linspace(0, batch, threads + 1).astype(int)

        def launch(lo: int, hi: int) -> None:
            sliced = [
                a if n in self.shared else a[lo:hi] for n, a in zip(self.parameters, arguments, strict=True)
            ]
            wp.launch(self.kernel, dim=hi - lo, inputs=sliced, device="cpu")

        slices = list(itertools.pairwise(bounds))
        pool = _pool()
        others = [pool.submit(launch, lo, hi) for lo, hi in slices[1:]]
        launch(*slices[0])  # this thread takes the first slice itself
        for done in others:
            done.result()

    def _jax_function(self, platform: str) -> Any:
        """The kernel as a JAX function for `platform` (built once, on first use)."""
        if platform not in self._calls:
            if platform == "cpu":

                def launcher(*arguments: Any) -> None:
                    self._launch_on_cpu_threads(*arguments)

                # `jax_callable` reads the argument types from the function: the kernel's.
                launcher.__signature__ = inspect.signature(self.kernel.func)  # type: ignore[attr-defined]
                launcher.__annotations__ = inspect.get_annotations(self.kernel.func, eval_str=True)
                # Warp names the FFI target after the qualified name, numbered by a process-wide
                # counter: one name per kernel keeps the number 0, so a program's text (and the
                # persistent compile cache's key) does not depend on which kernel a process
                # happened to call first. `launcher` alone made every kernel `launcher_<n>`.
                launcher.__name__ = launcher.__qualname__ = f"{self.kernel.key}_on_cpu_threads"
                # No preload: it would build a Warp module of this file, which holds no kernel.
                self._calls[platform] = wp.jax_callable(
                    launcher, num_outputs=len(self.outputs), module_preload_mode=wp.JaxModulePreloadMode.NONE
                )
            else:
                block = int(os.environ.get("PIRAMIDA_BLOCK_DIM", "0")) or CUDA_BLOCK_DIM
                count = len(self.outputs)
                self._calls[platform] = wp.jax_kernel(self.kernel, num_outputs=count, block_dim=block)
        return self._calls[platform]

    def launch(self, *arguments: Any, output_dims: dict[str, tuple[int, ...]]) -> tuple[Any, ...]:
        """One launch over the tables of the arguments' leading axis: the outputs, in order.

        Warp numbers every traced call of a kernel (0, 1, 2 ... in the process) and writes
        the number into the program, as the key of what the call needs at run time. The
        persistent compile cache keys on the program's text, so the same program traced
        after a different history (another process, another command, after
        `jax.clear_caches`) missed the cache and compiled again. The number is pinned to
        what the call's record holds instead: 0 on the CPU (the kernels take arrays only,
        so every record is the same empty one), the launch's size on CUDA (its record's one
        entry). The lock keeps a concurrent trace from taking another's number.
        """
        platform = jax.default_backend()
        batch = arguments[0].shape[0]
        function = self._jax_function(platform)
        with self._trace_lock:
            if platform == "cpu":
                function.call_id = 0
                return tuple(function(*arguments, output_dims=output_dims))
            function.launch_id = batch
            return tuple(function(*arguments, output_dims=output_dims, launch_dims=(batch,)))

    def _with_vmap(self, shapes: tuple[tuple[int, ...], ...]) -> Any:
        """`launch` for outputs of these shapes (after the table axis), under `vmap` too.

        The kernel takes its tables on one leading axis; a `vmap` adds another. Where only
        the tables' arrays carry it, the two axes are merged into one launch; where the
        shared inputs carry it too, each vmapped item is its own launch.
        """

        @jax.custom_batching.custom_vmap
        def call(*arguments: Any) -> tuple[Any, ...]:
            batch = arguments[0].shape[0]
            dims = {name: (batch, *shape) for name, shape in zip(self.outputs, shapes, strict=True)}
            return self.launch(*arguments, output_dims=dims)

        @call.def_vmap
        def _(size: int, batched: list[bool], *arguments: Any) -> tuple[tuple[Any, ...], tuple[bool, ...]]:
            spread = [
                x if b else jnp.broadcast_to(x, (size, *jnp.shape(x)))
                for x, b in zip(arguments, batched, strict=True)
            ]
            if any(batched[self.table_arguments :]):
                outputs = jax.lax.map(lambda items: call(*items), tuple(spread))
            else:
                merged = [x.reshape(-1, *x.shape[2:]) for x in spread[: self.table_arguments]]
                flat = call(*merged, *arguments[self.table_arguments :])
                outputs = tuple(x.reshape(size, -1, *x.shape[1:]) for x in flat)
            return outputs, (True,) * len(outputs)

        return call

    def __call__(self, *arguments: Any, shapes: Mapping[str, tuple[int, ...]]) -> tuple[Any, ...]:
        """The kernel on the tables of `arguments` (leading axis), under `jit` and `vmap` alike.

        `shapes` gives each output's shape after its table axis (every output named).
        """
        key = tuple(tuple(shapes[name]) for name in self.outputs)
        if key not in self._batched:
            self._batched[key] = self._with_vmap(key)
        return tuple(self._batched[key](*arguments))
