"""Whole frames of all four variants played with the physics kernel and random legal strikes.

Four tables, one per variant, play frame after frame in one batch (one compiled shape
for the whole file: B = 4, capacity 256, record=False) until a budget of shots is spent.
Strikes are random but aimed: the own ball (any ball in Free) is sent at a ghost-ball
point for a random object ball and pocket, with a little angular noise, at 2-7 m/s (the
break at 7-9 m/s); Classic calls that ball and pocket. Decisions follow the default
policy. After every shot and decision the properties every verdict must keep are
checked: the ball count is conserved across table, shelves and hand; balls on the table
never overlap; scores change only by the verdict's points (and a penalty or exchange ball's
one point), and those points are what the variant's rules give; every frame ends under a
cap of shots. Table 0's first frame is also kept as a match record (the results in the
`piramida simulate` schema), saved, loaded and replayed to the same verdicts, and a few
of its shots go through `piramida referee`'s request handler.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from helpers.referee_helpers import check_invariants

import piramida.physics as ph
from piramida.cli.referee import answer
from piramida.physics.contract import result_to_json
from piramida.rules import codec, ids, match
from piramida.rules import state as st
from piramida.rules import verdict as vd
from piramida.rules.decisions import auto_decide, decide_one, default_decision
from piramida.rules.placement import default_placement
from piramida.rules.referee import adjudicate, adjudicate_one, record_of

TABLE = ph.preset()
PARAMS = ph.PYRAMID_PARAMS
DIMS = st.Dims.of(TABLE, PARAMS.R)
W, L, R = DIMS.width, DIMS.length, DIMS.R
VARIANTS = np.asarray([ids.FREE, ids.COMBINED, ids.DYNAMIC, ids.CLASSIC], np.int32)
B = len(VARIANTS)
CAPACITY = 256
SHOT_BUDGET = 1000  # batch steps in all (a run takes about 150-500)
FRAME_CAP = 800  # shots in one frame before it counts as never ending
POCKETS = np.asarray([[0, 0], [W, 0], [0, L / 2], [W, L / 2], [0, L], [W, L]])
CLASSIC_VALUES = np.asarray([0, 11, *range(2, 16)])


def host(tree: Any) -> Any:
    return jax.tree_util.tree_map(np.asarray, tree)


def table(tree: Any, k: int) -> Any:
    return jax.tree_util.tree_map(lambda x: jnp.asarray(x)[k], tree)


@jax.jit
def _placements(state: st.GameState, preferred: Any) -> Any:
    def one(s: st.GameState, p: Any) -> Any:
        region = st.hand_region(s, DIMS)
        return default_placement(region, s.positions, s.on_table, W, L, R, preferred=p)

    return jax.vmap(one)(state, preferred)


_start_balls = jax.jit(jax.vmap(st.start_balls))
_next_frames = jax.jit(jax.vmap(lambda s, k: st.next_frame(s, k, DIMS)))


def cut(xy: np.ndarray, own: int, target: int) -> tuple[float, int, int]:
    """(cosine of the cut angle, target, pocket) for the target's straightest pocket."""
    to_pockets = POCKETS - xy[target]
    to_target = xy[target] - xy[own]
    norms = np.linalg.norm(to_pockets, axis=1) * max(np.linalg.norm(to_target), 1e-9)
    cosines = to_pockets @ to_target / norms
    pocket = int(np.argmax(cosines))
    return float(cosines[pocket]), target, pocket


def plan_shots(state: st.GameState, rng: np.random.Generator) -> tuple[st.Shot, ph.Strike, st.GameState]:
    """Random aimed strikes for every table (and the Classic calls, set in the state)."""
    s = host(state)
    preferred = np.stack([rng.uniform(0.2, W - 0.2, B), rng.uniform(0.1, L / 4 - 0.1, B)], axis=-1)
    anywhere = s.region == ids.ANYWHERE
    preferred[anywhere] = np.stack([rng.uniform(0.2, W - 0.2), rng.uniform(0.3, L - 0.3)])
    places = np.asarray(_placements(state, jnp.asarray(preferred)))
    balls, phis, speeds, calls = [], [], [], []
    for k in range(B):
        placing = s.phase[k] in (st.BREAK, st.IN_HAND)
        on = s.on_table[k].copy()
        xy = s.positions[k].copy()
        if placing:
            own = ids.COLOURED
            on[own], xy[own] = True, places[k]
        elif s.variant[k] == ids.FREE:
            own = int(rng.choice(np.flatnonzero(on)))
        else:
            own = ids.COLOURED
        targets = np.flatnonzero(on & (np.arange(16) != own))
        if s.phase[k] == st.IN_HAND and s.region[k] == ids.HOUSE:  # G21.2: not a ball in the house
            outside = targets[xy[targets, 1] >= L / 4]
            targets = outside if outside.size else targets
        # Of three random object balls, the one with the smallest cut angle into some pocket.
        candidates = rng.choice(targets, size=min(3, targets.size), replace=False) if targets.size else [own]
        best = max((cut(xy, own, int(t)) for t in candidates), key=lambda c: c[0])
        _, target, pocket = best
        aim = POCKETS[pocket] - xy[target]
        ghost = xy[target] - 2 * R * aim / max(np.linalg.norm(aim), 1e-9)
        to = ghost - xy[own] if rng.uniform() < 0.9 else rng.normal(size=2)
        phi = np.degrees(np.arctan2(to[1], to[0])) + rng.normal(0, 0.2)
        speed = rng.uniform(7, 9) if s.phase[k] == st.BREAK else rng.uniform(2, 7)
        balls.append(own)
        phis.append(phi)
        speeds.append(speed)
        calls.append((target, pocket) if s.variant[k] == ids.CLASSIC and target != own else (-1, -1))
    shots = st.Shot(
        ball=jnp.asarray(balls, jnp.int32),
        place=jnp.asarray(
            np.where(np.isin(s.phase, (st.BREAK, st.IN_HAND))[:, None], places, ids.OFF_TABLE_XY)
        ),
        declared=jnp.zeros(B, jnp.int32),
        declared_late=jnp.zeros(B, jnp.int32),
        placement_warned=jnp.ones(B, bool),
        frozen_warned=jnp.ones(B, bool),
    )
    strikes = ph.Strike(
        ball=np.asarray(balls, np.int32),
        speed=np.asarray(speeds),
        phi=np.asarray(phis),
        theta=np.zeros(B),
        a=rng.uniform(-0.2, 0.2, B),
        b=rng.uniform(-0.3, 0.3, B),
    )
    called = state.replace(
        call_ball=jnp.asarray([c[0] for c in calls], jnp.int32),
        call_pocket=jnp.asarray([c[1] for c in calls], jnp.int32),
    )
    return shots, strikes, called


def check_points(before: Any, after: Any, v: Any, k: int) -> None:
    """Scores move by the verdict's points, and those are the variant's (one table)."""
    assert list(after.score[k] - before.score[k]) == list(v.points[k])
    shooter = int(before.turn[k])
    scored = np.flatnonzero(v.scored[k])
    points = v.points[k]
    if before.variant[k] == ids.CLASSIC:
        value = int(CLASSIC_VALUES[scored].sum())
        if v.legal[k]:  # CLS-5.1: the values, plus 10 for the last ball
            assert points[1 - shooter] == 0 and points[shooter] - value in (0, 10)
        else:  # CLS-5.6
            assert points[shooter] == -5 and points[1 - shooter] == 5 and scored.size == 0
    else:  # FREE-6, COMB-6, DYN-6: a ball a point; a foul scores nothing until the penalty ball
        assert points[shooter] == scored.size and points[1 - shooter] == 0
        assert v.legal[k] or scored.size == 0
    if v.legal[k] and before.variant[k] != ids.CLASSIC:
        assert not v.respot[k].any()  # G22.3, G25.1: only a foul respots (or CLS-5.4, CLS-5.7)


def test_whole_games_every_variant_with_the_physics_kernel(tmp_path: Path) -> None:
    rng = np.random.default_rng(7)
    key = jax.random.PRNGKey(7)
    state = st.new_games(jnp.asarray(VARIANTS), jax.random.split(key, B), jnp.zeros(B, jnp.int32), DIMS)
    frames_done = np.zeros(B, int)
    frame_shots = np.zeros(B, int)
    lengths: list[tuple[int, int]] = []
    overflows = 0
    record = match.MatchRecord(ids.FREE, DIMS)
    recording = True
    cli_checked = 0
    for step in range(SHOT_BUDGET):
        shots, strikes, state = plan_shots(state, rng)
        balls = _start_balls(state, shots)
        result = ph.simulate(TABLE, balls, strikes, PARAMS, capacity=CAPACITY)
        verdicts, after = adjudicate(state, shots, result, DIMS)
        before_h, after_h, v = host(state), host(after), host(verdicts)
        for k in range(B):
            if v.invalid[k]:
                assert v.invalid[k] == 1 << vd.BAD_OVERFLOW, (k, vd.ruling(verdicts, k).invalid)
                overflows += 1
                continue
            check_invariants(table(after, k))
            check_points(before_h, after_h, v, k)
        frame_shots += v.invalid == 0

        if recording:  # table 0's first frame: the single-table path agrees, and is recorded
            one_state, one_shot = table(state, 0), table(shots, 0)
            one_record = table(record_of(result), 0)
            ruling, one_after = adjudicate_one(one_state, one_shot, one_record, DIMS)
            batched = vd.ruling(verdicts, 0)
            assert (ruling.legal, ruling.fouls, ruling.scored, ruling.points, ruling.decision) == (
                batched.legal,
                batched.fouls,
                batched.scored,
                batched.points,
                batched.decision,
            )
            simulate_json = json.loads(json.dumps(result_to_json(result, 0)))
            if ruling.valid:
                record.add_shot(one_state, one_shot, one_record, ruling, one_after, simulate_json)
            if ruling.valid and cli_checked < 3 and (step == 0 or ruling.scored or not ruling.legal):
                request = {"variant": "free", "state": codec.state_to_json(one_state)}
                request.update(codec.shot_to_json(one_shot))
                request["result"] = simulate_json
                assert answer(request) == record.entries[-1]["verdict"]
                cli_checked += 1

        # Decisions by the default policy; a penalty or exchange ball is one point.
        pending = after_h.phase == st.DECISION
        decided = auto_decide(after, DIMS)
        decided_h = host(decided)
        if recording and pending[0]:
            one = table(after, 0)
            choice = default_decision(one, DIMS)
            _, nxt = decide_one(one, choice, DIMS)
            record.add_decision(one, choice, nxt)
        for k in np.flatnonzero(pending):
            check_invariants(table(decided, k))
            gained = decided_h.score[k] - after_h.score[k]
            if after_h.variant[k] == ids.CLASSIC:
                assert not gained.any()
            else:
                assert gained[int(after_h.turn[k])] == 1 and gained.sum() == 1
        state = decided

        # Finished frames: count them and start the next (G13: the other player breaks).
        over = decided_h.phase == st.OVER
        assert (frame_shots < FRAME_CAP).all(), f"a frame did not end in {FRAME_CAP} shots: {frame_shots}"
        if over.any():
            for k in np.flatnonzero(over):
                winner = int(decided_h.winner[k])
                assert winner in (0, 1)
                if decided_h.variant[k] == ids.CLASSIC:
                    assert decided_h.score[k, winner] >= st.CLASSIC_TARGET
                else:
                    assert int((decided_h.shelf[k] == winner).sum()) >= st.FREE_TARGET
                lengths.append((int(decided_h.variant[k]), int(frame_shots[k])))
                frames_done[k] += 1
                frame_shots[k] = 0
            if over[0] and recording:
                recording = False
            keys = jax.random.split(jax.random.fold_in(key, step), B)
            fresh = _next_frames(decided, keys)
            restart = jnp.asarray(over)
            state = jax.tree_util.tree_map(
                lambda new, old, restart=restart: jnp.where(
                    restart.reshape((B,) + (1,) * (old.ndim - 1)), new, old
                ),
                fresh,
                decided,
            )
        if frames_done.min() >= 1:
            break
    print(f"frames per variant {frames_done.tolist()}, (variant, shots): {lengths}, overflows {overflows}")
    assert frames_done.min() >= 1, f"some variant never finished a frame: {frames_done.tolist()}"
    assert overflows <= 5

    # The recorded frame replays to the same verdicts, through a file written atomically.
    assert not recording and len(record.entries) > 5
    path = tmp_path / "frame.jsonl"
    record.save(path)
    report = match.replay(match.load(path))
    assert report["reproduced"], report["mismatches"][:3]
    assert report["entries"] == len(record.entries)
    last = record.entries[-1]
    final = last["verdict"]["state"] if last["kind"] == "shot" else last["outcome"]["state"]
    assert final["phase"] == "over" and final["winner"] is not None
