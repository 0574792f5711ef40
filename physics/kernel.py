"""The driver of the shot kernel: `simulate` runs whole shots on many tables in one call.

The event loop is one NVIDIA Warp kernel (`physics.engine.loop.shot`): one thread runs
one table's shot from the strike to the last ball at rest. JAX calls it through XLA's
FFI (`warp.jax_kernel` on CUDA; on the CPU `warp.jax_callable`, whose launcher spreads the
tables over the cores), inside `jit`, `vmap`, `lax.scan` and `shard_map`, so the referee,
the envs and the bots still call one jitted function per move, and no batch size compiles
the kernel again: the Warp module is compiled once per machine (and cached), and a new
batch shape traces only this thin wrapper. JAX keeps what is cheap here: the strike
impulse, the packing of constants and table, the outputs' pytrees.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, PartitionSpec

from piramida.physics import arrays
from piramida.physics import events as ev
from piramida.physics.engine import facts, loop
from piramida.physics.engine.detect import CONTACT_EPS_M
from piramida.physics.layouts import MAX_BALLS
from piramida.physics.motion import BallState
from piramida.physics.params import PYRAMID_PARAMS, Models, PhysicsParams
from piramida.physics.runtime import in_float64
from piramida.physics.strike import Strike, strike_ball
from piramida.physics.table import Table
from piramida.physics.validate import check_balls, check_capacity, check_motion, check_setup, check_strikes
from piramida.physics.warp_call import TableKernel

DEFAULT_CAPACITY = 256
# The kernel's outputs, in the order of `loop.shot`'s output arguments.
_OUTPUTS = (
    "r_out", "v_out", "w_out", "s_out", "pocket", "pocket_time",
    "log_t", "log_kind", "log_a", "log_b", "log_ta", "log_tb", "log_count", "log_overflow", "duration",
    "snap_cushion", "snap_touching", "snap_centre", "hist_r", "hist_v", "hist_w", "hist_s",
    "facts_shot", "facts_ball", "facts_pocket",
)  # fmt: skip


@jax.tree_util.register_dataclass
@dataclass(frozen=True)
class Snapshot:
    """Facts at shot start that the referee needs (docs/rules/specification.md III.2).

    Attributes:
      cushion: (N,) cushion piece each ball touches (cushion id, 6 + pocket for a jaw, -1).
      touching: (N, N) which balls touch each other (S-5).
      on_centre_line: (N,) centres on the centre line (S-2, G20 note 3).

    """

    cushion: Any
    touching: Any
    on_centre_line: Any


@jax.tree_util.register_dataclass
@dataclass(frozen=True)
class LogFacts:
    """The log read by the kernel's thread as the shot ended (`engine.facts`), per table.

    Attributes:
      shot: (5,) `engine.facts.SHOT_FIELDS`: the slot of the struck ball's first contact
        (the event limit if none), that ball (-1), the struck ball's cushion contacts
        before it, the `SHOT_BITS`, and the event limit (the log's capacity) itself. A
        slot is an event's index in the log, whether the log was kept or not.
      ball: (N,) per ball, the cushion pieces touched after the first contact (bits 0-11)
        and the `BALL_BITS` above them.
      pocket_slot: (N,) the slot of each ball's pocket event (the event limit if none).
      pocket: (N,) the pocket each ball fell into, -1 if none (`ShotResult.pocket`).

    """

    shot: Any
    ball: Any
    pocket_slot: Any
    pocket: Any


@jax.tree_util.register_dataclass
@dataclass(frozen=True)
class ShotResult:
    """Everything a shot produced, per table.

    Attributes:
      final: ball states when the last ball stopped.
      pocket: (N,) pocket id of each pocketed ball, -1 otherwise.
      pocket_time: (N,) when it was pocketed (inf if not).
      log: the event log.
      duration: time of the last event (s).
      start: the start snapshot.
      facts: what the referee reads of the log, read by the kernel (`LogFacts`).
      history: if recorded, the ball states right after each logged event, (C, N, ...);
        between events each ball follows `motion.advance` exactly.

    """

    final: BallState
    pocket: Any
    pocket_time: Any
    log: ev.EventLog
    duration: Any
    start: Snapshot
    facts: LogFacts
    history: BallState | None


def contact_distance(table: Table, p: PhysicsParams, models: Models) -> Any:
    """Distance from a cushion's nose line at which a ball centre touches it.

    `nose`: R cos(theta) with sin(theta) = h/R - 1; `equator`: R.
    """
    if models.contact == "equator":
        return p.R
    sin = table.cushion_height / p.R - 1.0
    return p.R * jnp.sqrt(1.0 - sin**2)


def table_arrays(table: Table) -> tuple[Any, Any, Any, Any, Any]:
    """The table as the kernel reads it (`engine.detect`): lines, line ids, arcs, arc pockets, holes."""
    d = table.line_b - table.line_a
    length = arrays.norm(d)
    along = d / length[:, None]
    normal = jnp.stack([-along[:, 1], along[:, 0]], axis=-1)
    lines = jnp.concatenate([table.line_a, along, normal, length[:, None]], axis=-1)
    line_ids = jnp.stack([table.line_cushion, table.line_pocket], axis=-1).astype(jnp.int32)
    arcs = jnp.concatenate([table.arc_centre, table.arc_radius[:, None]], axis=-1)
    holes = jnp.concatenate([table.pocket_centre, table.pocket_radius[:, None]], axis=-1)
    return lines, line_ids, arcs, table.arc_pocket.astype(jnp.int32), holes


def touching_cushion(r: Any, table: Table, c: Any) -> Any:
    """Which cushion piece a centre at r (2,) touches (within 0.1 mm): id or -1.

    Cushion ids 0-5; jaws (faces and noses) of pocket k are 6 + k. The same test as the
    kernel's start snapshot, in JAX for a referee that reads positions from outside.
    """
    lines, line_ids, arcs, arc_pocket, _ = table_arrays(table)
    rel = r - lines[:, 0:2]
    s = arrays.dot(rel, lines[:, 2:4])
    gap_line = jnp.abs(arrays.dot(rel, lines[:, 4:6])) - c
    on_line = (s >= 0) & (s <= lines[:, 6]) & (gap_line <= CONTACT_EPS_M)
    line_id = jnp.where(line_ids[:, 0] >= 0, line_ids[:, 0], ev.JAW_TOUCH_OFFSET + line_ids[:, 1])
    on_arc = arrays.norm(r - arcs[:, 0:2]) - arcs[:, 2] - c <= CONTACT_EPS_M
    ids = jnp.concatenate([line_id, ev.JAW_TOUCH_OFFSET + arc_pocket])
    hits = jnp.concatenate([on_line, on_arc])
    return jnp.where(jnp.any(hits), ids[jnp.argmax(hits)], -1)


# The kernel's arguments: first the inputs with a leading table axis (r, v, w, s, struck),
# then the inputs that all tables share (constants, options, the table), then the outputs
# (`_OUTPUTS`, a leading table axis each).
SHOT_KERNEL = TableKernel(loop.shot, loop, table_arguments=5, outputs=_OUTPUTS)


def preload_in_background() -> None:
    """On the CPU, build the shot kernel's module in a thread (elsewhere nothing).

    The module's build (3.5 s cold on this project's CPU) then overlaps the XLA compiles of
    the programs around the kernel, which need no kernel; the first launch waits for it.
    """
    SHOT_KERNEL.preload_in_background()


def _launch(
    r: Any, v: Any, w: Any, s: Any, struck: Any, *shared: Any, capacity: int, record: bool, keep_log: bool
) -> tuple[Any, ...]:
    """The kernel over the tables of `r` (B, N, 2) ... (a thread a table), under `vmap` too."""
    n = s.shape[1]
    slots = capacity if record else 1
    kept = capacity if keep_log else 1
    shapes = {
        "r_out": (n, 2), "v_out": (n, 2), "w_out": (n, 3), "s_out": (n,), "pocket": (n,), "pocket_time": (n,),
        **{name: (kept,) for name in ("log_t", "log_kind", "log_a", "log_b", "log_ta", "log_tb")},
        "log_count": (), "log_overflow": (), "duration": (),
        "snap_cushion": (n,), "snap_touching": (n, n), "snap_centre": (n,),
        "hist_r": (slots, n, 2), "hist_v": (slots, n, 2), "hist_w": (slots, n, 3), "hist_s": (slots, n),
        "facts_shot": (len(facts.SHOT_FIELDS),), "facts_ball": (n,), "facts_pocket": (n,),
    }  # fmt: skip
    return SHOT_KERNEL(r, v, w, s, struck, *shared, shapes=shapes)


@functools.partial(jax.jit, static_argnames=("models", "capacity", "record", "transitions", "keep_log"))
def _simulate_batch(
    balls: BallState,
    strikes: Strike | None,
    table: Table,
    p: PhysicsParams,
    models: Models,
    capacity: int,
    record: bool,
    transitions: bool,
    keep_log: bool,
) -> ShotResult:
    batch = balls.s.shape[0]
    struck = jnp.full(batch, -1, jnp.int32)
    if strikes is not None:  # a field may be one value for every table
        strikes = jax.tree_util.tree_map(lambda x: jnp.broadcast_to(x, (batch,)), strikes)
        balls = jax.vmap(lambda b, s: strike_ball(b, s, p))(balls, strikes)
        struck = jnp.broadcast_to(jnp.asarray(strikes.ball, jnp.int32), (batch,))
    c = contact_distance(table, p, models)
    # `loop.CONSTANTS`: the physical constants by name, then three of the table's.
    of_table = {"h": table.cushion_height, "c": c, "length": table.length}
    constants = jnp.stack(
        [jnp.asarray(of_table[f] if f in of_table else getattr(p, f), jnp.float64) for f in loop.CONSTANTS]
    )
    flags = {
        "frictionless": models.ball_ball == "frictionless_elastic",
        "alciatore": models.alciatore_friction,
        "han": models.cushion == "han_2005",
        "transitions": transitions,
        "record": record,
        "keep_log": keep_log,
        "limit": capacity,
    }
    options = jnp.asarray([int(flags[f]) for f in loop.OPTIONS], jnp.int32)
    inputs = (balls.r, balls.v, balls.w, balls.s.astype(jnp.int32), struck, constants, options)
    outputs = _launch(*inputs, *table_arrays(table), capacity=capacity, record=record, keep_log=keep_log)
    out = dict(zip(_OUTPUTS, outputs, strict=True))
    history = None
    if record:
        history = BallState(r=out["hist_r"], v=out["hist_v"], w=out["hist_w"], s=out["hist_s"])
    return ShotResult(
        final=BallState(r=out["r_out"], v=out["v_out"], w=out["w_out"], s=out["s_out"].astype(balls.s.dtype)),
        pocket=out["pocket"],
        pocket_time=out["pocket_time"],
        log=ev.EventLog(
            t=out["log_t"],
            kind=out["log_kind"],
            a=out["log_a"],
            b=out["log_b"],
            touch_a=out["log_ta"],
            touch_b=out["log_tb"],
            count=out["log_count"],
            overflow=out["log_overflow"].astype(bool),
        ),
        duration=out["duration"],
        start=Snapshot(
            cushion=out["snap_cushion"],
            touching=out["snap_touching"].astype(bool),
            on_centre_line=out["snap_centre"].astype(bool),
        ),
        facts=LogFacts(
            shot=out["facts_shot"],
            ball=out["facts_ball"],
            pocket_slot=out["facts_pocket"],
            pocket=out["pocket"],
        ),
        history=history,
    )


@in_float64
def simulate(
    table: Table,
    balls: BallState,
    strikes: Strike | None = None,
    params: PhysicsParams = PYRAMID_PARAMS,
    models: Models | None = None,
    capacity: int = DEFAULT_CAPACITY,
    record: bool = False,
    validate: bool = True,
    transitions: bool = True,
    keep_log: bool = True,
) -> ShotResult:
    """Simulate one shot on each of B tables (one `jit`, batched over the leading axis).

    A table's result is the same to the last bit alone and in a batch of any size: each
    table is one thread's own computation. With several devices (GPUs, CPU devices from
    `XLA_FLAGS=--xla_force_host_platform_device_count=N`, or the devices of several
    processes joined by `jax.distributed`, whose batch is then one global array) the batch
    is split over all of them when B divides evenly (`shard_map` on a one-axis `Mesh`);
    the result stays sharded. Validation reads the inputs on the host: pass
    `validate=False` for a global array that spans processes.

    Args:
      table: the table (shared by all B tables).
      balls: (B, N, ...) ball states before the shot, N <= 16; balls may carry motion.
      strikes: (B,) cue strikes (a field may be one value for all), applied before the shot, or None.
      params: physical constants (shared).
      models: model choices.
      capacity: event-log slots per table; a table that needs more is flagged (its shot
        stops there), whether the log is kept or not.
      record: keep every ball's state after each event (for `trajectory`).
      validate: check the inputs on the host first, against the JSON contract's ranges and
        in its words (`validate`: constants, table, layout, motion, state codes, strikes;
        `validate.InputError` if bad); skipped automatically when the inputs are traced,
        and to be turned off only for inputs already checked (the referee's own shots).
        The capacity is checked always.
      transitions: also log the motion transitions (sliding-rolling, ...). The referee
        reads none of them, and a slow push through a cluster logs about as many of them
        as contacts, so the game leaves them out; a recorded shot needs them (its
        history is the state at each logged event).
      keep_log: return the event log. Without it the log has one slot (its `count` and
        `overflow` still hold), and the referee reads the facts the kernel noted as
        the shot ran (`ShotResult.facts`): a game's move need not write 1,024 slots a table.

    Returns:
      A `ShotResult` with a leading (B,) axis.

    """
    if record and not transitions:
        raise ValueError("simulate: record=True needs transitions=True (the history holds every event)")
    if record and not keep_log:
        raise ValueError("simulate: record=True needs keep_log=True (the history follows the log)")
    if balls.s.shape[-1] > MAX_BALLS:
        raise ValueError(f"simulate: at most {MAX_BALLS} balls a table, got {balls.s.shape[-1]}")
    check_capacity(capacity)  # static: a bad one would fail inside XLA, traced or not
    inputs = (table, balls, strikes, params)
    traced = any(isinstance(x, jax.core.Tracer) for x in jax.tree_util.tree_leaves(inputs))
    if validate and not traced:
        check_setup(table, params)
        check_motion(balls)
        check_balls(table, balls, float(params.R), float(contact_distance(table, params, models or Models())))
        if strikes is not None:
            check_strikes(strikes, balls)
    options = {
        "models": models or Models(),
        "capacity": capacity,
        "record": record,
        "transitions": transitions,
        "keep_log": keep_log,
    }
    devices = jax.device_count()
    if not traced and devices > 1 and balls.s.shape[0] % devices == 0:
        return _simulate_sharded(balls, strikes, table, params, devices=devices, **options)
    return _simulate_batch(balls, strikes, table, params, **options)


@functools.partial(
    jax.jit, static_argnames=("models", "capacity", "record", "transitions", "keep_log", "devices")
)
def _simulate_sharded(
    balls: BallState,
    strikes: Strike | None,
    table: Table,
    p: PhysicsParams,
    models: Models,
    capacity: int,
    record: bool,
    transitions: bool,
    keep_log: bool,
    devices: int,
) -> ShotResult:
    """`_simulate_batch` on each device's share of the tables (the table axis split)."""
    mesh = Mesh(np.asarray(jax.devices()[:devices]), ("tables",))
    tables, shared = PartitionSpec("tables"), PartitionSpec()

    def local(balls: BallState, strikes: Strike | None, table: Table, p: PhysicsParams) -> ShotResult:
        return _simulate_batch(balls, strikes, table, p, models, capacity, record, transitions, keep_log)

    run = jax.shard_map(
        local, mesh=mesh, in_specs=(tables, tables, shared, shared), out_specs=tables, check_vma=False
    )
    return run(balls, strikes, table, p)
