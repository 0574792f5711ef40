"""The kernel's notes of a shot's events (`physics.engine.facts`) taken from a hand-written log.

The kernel notes each event as it logs it; here a Warp kernel of a few lines notes the
events of any log with the same functions, so that each hand-written log of the referee's
tests is read both ways (the JAX reader `rules.shot_facts` and the kernel's notes) and the
two compared.
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
import numpy as np
import warp as wp

from piramida.physics import events as ev
from piramida.physics.engine import facts
from piramida.physics.kernel import LogFacts, Snapshot
from piramida.physics.layouts import MAX_BALLS
from piramida.physics.motion import ABSENT, STATIONARY
from piramida.rules.kernel_facts import facts_of
from piramida.rules.shot_facts import ShotFacts

_BALLS = wp.constant(MAX_BALLS)
_PAIRS = wp.constant(MAX_BALLS * MAX_BALLS)


@wp.kernel
def _read(
    own: wp.array(dtype=wp.int32),
    count: wp.array(dtype=wp.int32),
    s_in: wp.array2d(dtype=wp.int32),
    log_t: wp.array2d(dtype=wp.float64),
    log_kind: wp.array2d(dtype=wp.int32),
    log_a: wp.array2d(dtype=wp.int32),
    log_b: wp.array2d(dtype=wp.int32),
    log_ta: wp.array2d(dtype=wp.int32),
    log_tb: wp.array2d(dtype=wp.int32),
    snap_cushion: wp.array2d(dtype=wp.int32),
    snap_touching: wp.array3d(dtype=wp.int32),
    facts_shot: wp.array2d(dtype=wp.int32),
    facts_ball: wp.array2d(dtype=wp.int32),
    facts_pocket: wp.array2d(dtype=wp.int32),
):
    tid = wp.tid()
    n = s_in.shape[1]
    last_contact = wp.zeros(shape=(_PAIRS,), dtype=wp.float64)
    carried = wp.zeros(shape=(_BALLS,), dtype=wp.int32)
    met = wp.zeros(shape=(_BALLS,), dtype=wp.int32)
    facts.begin(tid, n, log_t.shape[1], last_contact, carried, met, facts_shot, facts_ball, facts_pocket)
    for k in range(count[tid]):
        facts.note(
            tid,
            k,
            log_t[tid, k],
            log_kind[tid, k],
            log_a[tid, k],
            log_b[tid, k],
            log_ta[tid, k],
            log_tb[tid, k],
            n,
            own[tid],
            s_in,
            snap_cushion,
            snap_touching,
            last_contact,
            carried,
            met,
            facts_shot,
            facts_ball,
            facts_pocket,
        )


def kernel_facts(log: ev.EventLog, start: Snapshot, own: int, objects: Any, is_break: bool) -> ShotFacts:
    """One table's facts as the kernel reads them: the object balls stand, the rest are absent."""
    n = len(np.asarray(objects))
    present = np.asarray(objects, bool) | (np.arange(n) == own)
    s_in = np.where(present, STATIONARY, ABSENT).astype(np.int32)[None]

    def arr(x: Any, dtype: Any) -> Any:
        return wp.array(np.ascontiguousarray(np.asarray(x)[None]), dtype=dtype, device="cpu")

    pocket_ids = np.full(n, -1, np.int32)
    for kind, a, b in zip(np.asarray(log.kind), np.asarray(log.a), np.asarray(log.b), strict=True):
        if kind == ev.POCKET and 0 <= a < n and pocket_ids[a] < 0:
            pocket_ids[a] = b
    outputs = (
        wp.zeros((1, len(facts.SHOT_FIELDS)), dtype=wp.int32, device="cpu"),
        wp.zeros((1, n), dtype=wp.int32, device="cpu"),
        wp.zeros((1, n), dtype=wp.int32, device="cpu"),
    )
    inputs = [
        wp.array(np.asarray([own], np.int32), dtype=wp.int32, device="cpu"),
        wp.array(np.asarray([int(log.count)], np.int32), dtype=wp.int32, device="cpu"),
        wp.array(s_in, dtype=wp.int32, device="cpu"),
        arr(np.asarray(log.t, np.float64), wp.float64),
        *(arr(np.asarray(x, np.int32), wp.int32) for x in (log.kind, log.a, log.b, log.touch_a, log.touch_b)),
        arr(np.asarray(start.cushion, np.int32), wp.int32),
        arr(np.asarray(start.touching, np.int32), wp.int32),
    ]
    wp.launch(_read, dim=1, inputs=[*inputs, *outputs], device="cpu")
    shot, ball, pocket_slot = (o.numpy()[0] for o in outputs)
    read = LogFacts(shot=jnp.asarray(shot), ball=jnp.asarray(ball), pocket_slot=jnp.asarray(pocket_slot),
                    pocket=jnp.asarray(pocket_ids))  # fmt: skip
    return facts_of(read, start, log.overflow, own, objects, is_break)


def assert_same_facts(expected: ShotFacts, got: ShotFacts) -> None:
    """Every field equal (the names of those that differ in the message)."""
    differ = [
        name
        for name in vars(expected)
        if not np.array_equal(np.asarray(getattr(expected, name)), np.asarray(getattr(got, name)))
    ]
    assert not differ, f"the kernel's reading differs from the log's in {differ}"
