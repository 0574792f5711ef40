"""One move of a played game on one table: a shot (kernel, referee, sampled paths) or a decision.

The app plays every shot, the human's and the bot's alike, through `play_shot`, which is
`rules.game.play` on a batch of one table, recorded: the own ball placed, the Classic
call, the bot's execution noise, the kernel, the referee. `referee.explained` words its
verdict (the rule ids and facts that `piramida referee` and the match record give), and
`physics.trajectory` samples the exact ball paths at fixed time steps for the page to
animate. One program (batch 1, `CAPACITY` events, recorded) for both players and for the
page's aiming line (`aim_paths`) means one compile, paid once thanks to the persistent
cache.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

import piramida.physics as ph
from piramida.agents.protocol import Agent
from piramida.physics.contract import STRIKE_FIELDS
from piramida.physics.fields import FieldError
from piramida.physics.kernel import contact_distance
from piramida.physics.motion import ABSENT, STATIONARY
from piramida.physics.trajectory import trajectory
from piramida.physics.validate import InputError, check_balls, check_strikes
from piramida.rules import codec, ids, match, placement
from piramida.rules import state as st
from piramida.rules.decisions import Decision, decide_one
from piramida.rules.game import CAPACITY, Move, Outcome, move, play
from piramida.rules.referee import explained, record_of
from piramida.rules.setup import default_setup

FRAME_DT = 1.0 / 30.0  # s between sampled frames; the page interpolates between them
MIN_FRAMES = 64  # sample counts are padded to a power of two at least this: few compiles
ANIMATION_SIZES = tuple(MIN_FRAMES << k for k in range(5))  # warmed up: shots up to 34 s
SETUP = default_setup()  # the table and physics of every game the app plays
DIMS = SETUP.dims
# The aiming line's default: the struck ball to its second contact, the ball it hits to its first.
AIM_CONTACTS = 2
AIM_MAX_CONTACTS = 6  # a training view's longest line
AIM_SAMPLES = 64  # points per aiming path (and the contacts' own instants): one sampling program
CONTACTS = (ph.events.BALL_BALL, ph.events.CUSHION, ph.events.JAW, ph.events.POCKET)
SOUNDS = {
    ph.events.BALL_BALL: "ball",
    ph.events.CUSHION: "cushion",
    ph.events.JAW: "cushion",
    ph.events.POCKET: "pocket",
}
MAX_SOUNDS = 80  # a break's first clicks; the page would not make more heard

new_game = jax.jit(st.new_game, static_argnames=("variant", "dims"))  # eager JAX compiles op by op
_placement_ok = jax.jit(placement.placement_ok)


def strike_json(strike: ph.Strike) -> dict[str, Any]:
    """A strike of host scalars as the referee schema's `strike` object, every field."""
    return {"ball": int(strike.ball), **{name: float(getattr(strike, name)) for name in STRIKE_FIELDS[1:]}}


def read_state(value: Any, variant: int, path: str = "state") -> st.GameState:
    """A game state from its JSON (`codec.state_from_json`), its balls where the kernel could start a shot.

    The codec checks what the rules count (shelves, scores, phases); here the balls on the
    table are checked as `simulate` checks a layout: on the cloth, in no pocket, no two
    overlapping. A position from the page or a saved file must be one a shot can start from.
    """
    state = codec.state_from_json(value, variant, DIMS, path)
    on_table = np.asarray(state.on_table)[None]
    balls = ph.BallState(
        r=np.asarray(state.positions)[None],
        v=np.zeros((1, ids.N_BALLS, 2)),
        w=np.zeros((1, ids.N_BALLS, 3)),
        s=np.where(on_table, STATIONARY, ABSENT),
    )
    try:
        check_balls(
            SETUP.table,
            balls,
            SETUP.params.R,
            float(contact_distance(SETUP.table, SETUP.params, SETUP.models)),
        )
    except InputError as err:
        raise FieldError(f"{path}.balls: {err}") from err
    return state


@dataclass
class ShotPlayed:
    """What one shot did: the record entry (None when refused), the verdict, the next state, the paths."""

    entry: dict[str, Any] | None
    verdict: dict[str, Any]
    state: st.GameState
    animation: dict[str, Any]
    refused: list[str]


def check_shot(
    state: st.GameState, strike: ph.Strike, place: tuple[float, float] | None, call: tuple[int, int] | None
) -> None:
    """Raise `FieldError` naming the field for a shot the referee would refuse before simulating it.

    The referee refuses the same shots (`verdict.INVALID`); checking first keeps the table
    still and words the mistake for the page.
    """
    phase = int(state.phase)
    if phase == st.DECISION:
        raise FieldError("phase: a decision is pending (G6, G12.2, DYN-7, ...): send a decision")
    if phase == st.OVER:
        raise FieldError("phase: the frame is over")
    request: dict[str, Any] = {"strike": {"ball": int(strike.ball)}}
    if place is not None:
        request["place"] = {"x": place[0], "y": place[1]}
    shot = codec.shot_from_json(request, state)  # own ball (G4), place present when in hand
    placing = phase in (st.BREAK, st.IN_HAND)
    if placing:
        region = int(codec.hand_region(state, DIMS))
        ok = _placement_ok(
            jnp.asarray(shot.place), region, state.positions, state.on_table, DIMS.width, DIMS.length, DIMS.R
        )
        if not bool(ok):
            raise FieldError(
                f"place: the ball in hand must lie in the {ids.REGION_NAMES[region]} region, wholly on the "
                "cloth and clear of every ball (G10, G11.3, G21.2, DYN-5.2)"
            )
    if call is not None:
        if int(state.variant) != ids.CLASSIC:
            raise FieldError("call: only Classic has calls (CLS-5.2)")
        if call[0] == ids.COLOURED or not bool(state.on_table[call[0]]):
            raise FieldError(f"call.ball: ball {call[0]} is not an object ball on the table (CLS-5.2)")
    balls = codec.start_balls(state, shot)
    try:
        check_strikes(_one_table(strike), _one_table(balls))
    except InputError as err:
        raise FieldError(str(err)) from err


def _one_table(tree: Any) -> Any:
    """A batch of one table, built on the host (`st.stack` runs an XLA op a field)."""
    return jax.tree_util.tree_map(lambda x: np.asarray(x)[None], tree)


def human_move(strike: ph.Strike, place: tuple[float, float] | None, call: tuple[int, int] | None) -> Move:
    """The human's shot as a `Move` (host scalars): the strike, the place from hand, the Classic call."""
    return jax.tree_util.tree_map(
        np.asarray,
        move(
            ball=int(strike.ball),
            **{name: float(getattr(strike, name)) for name in STRIKE_FIELDS[1:]},
            place=ids.OFF_TABLE_XY if place is None else place,
            call_ball=ids.NO_BALL if call is None else call[0],
            call_pocket=-1 if call is None else call[1],
        ),
    )


def simulate_shot(
    state: st.GameState,
    strike: ph.Strike,
    place: tuple[float, float] | None = None,
    call: tuple[int, int] | None = None,
    declared: int = 0,
    frozen_warned: bool = True,
) -> ShotPlayed:
    """Play a checked shot (`check_shot`) exactly as struck: `play_shot` with no execution noise."""
    return play_shot(
        state, human_move(strike, place, call), np.zeros(2, np.uint32), 0.0, declared, frozen_warned
    )


def play_shot(
    state: st.GameState,
    m: Move,
    key: Any,
    magnitude: float = 0.0,
    declared: int = 0,
    frozen_warned: bool = True,
) -> ShotPlayed:
    """Play one shot through `rules.game.play`, recorded, and word its verdict (`referee.explained`).

    `m` is the move (host scalars); `key` and `magnitude` its execution noise (a bot's).
    `declared` is a bit mask of fouls declared by the human referee (`verdict.DECLARED`),
    here only the shot clock's G26. `frozen_warned`: the opponent warned the shooter that
    each ball found against a cushion will touch it (G20-N2). A shot the referee refuses
    (an event-log overflow) leaves the state as it was: `refused` names why and `entry`
    is None. The record's strike is the strike as executed, so that a replay re-runs it.
    """
    placing = int(state.phase) in (st.BREAK, st.IN_HAND)
    if not placing:
        m = m.replace(place=np.asarray(ids.OFF_TABLE_XY, np.float64))
    calling = int(state.variant) == ids.CLASSIC and int(m.call_ball) >= 0
    called = st.with_call(state, m.call_ball, m.call_pocket) if calling else state
    nxt, outcome = _play_one(state, m, key, magnitude, declared, frozen_warned)
    strike = ph.Strike(**{name: getattr(outcome.strike, name).item() for name in STRIKE_FIELDS})
    shot = st.shot(int(m.ball), m.place if placing else None, declared, frozen_warned=frozen_warned)
    ruling = explained(called, shot, outcome.verdict, outcome.result, DIMS)
    verdict = codec.verdict_to_json(ruling, nxt if ruling.valid else called, DIMS)
    animation = animate(outcome.result, np.asarray(outcome.start.s) != ph.motion.ABSENT, strike)
    if not ruling.valid:
        return ShotPlayed(None, verdict, called, animation, ruling.invalid)
    log = match.MatchRecord(int(state.variant), DIMS)
    log.add_shot(called, shot, record_of(outcome.result), ruling, nxt)
    entry = log.entries[0]
    entry["strike"] = strike_json(strike)  # the whole strike, so that a replay can re-run the shot
    return ShotPlayed(entry, verdict, nxt, animation, [])


def _play_one(
    state: st.GameState,
    m: Move,
    key: Any,
    magnitude: float = 0.0,
    declared: int = 0,
    frozen_warned: bool = True,
) -> tuple[st.GameState, Outcome]:
    """`rules.game.play` on one table, recorded: (next state, that table's outcome), host arrays."""
    played = play(
        *map(_one_table, (state, m, key)),
        magnitude,
        SETUP,
        CAPACITY,
        record=True,
        declared=declared,
        frozen_warned=frozen_warned,
    )
    # On the host first: indexing 79 device arrays one by one cost 4.8 ms, the copy 0.2 ms.
    return jax.tree_util.tree_map(lambda x: np.asarray(x)[0], played)


def compile_referee(state: st.GameState, strike: ph.Strike, place: tuple[float, float] | None) -> None:
    """Compile the program that words a verdict (`referee.explained`) on a stand-in result (zeros).

    It only needs the shapes of a shot's outcome, which `jax.eval_shape` gives without
    building the kernel, so the warm-up compiles it while the kernel's Warp module is still
    being built; the ruling on the zeros is thrown away.
    """
    m = human_move(strike, place, None)
    inputs = tuple(map(_one_table, (state, m, np.zeros(2, np.uint32))))
    shapes = jax.eval_shape(lambda: play(*inputs, 0.0, SETUP, CAPACITY, record=True))
    _, outcome = jax.tree_util.tree_map(lambda s: np.zeros(s.shape[1:], s.dtype), shapes)
    explained(state, st.shot(int(strike.ball), place), outcome.verdict, outcome.result, DIMS)


def aim_paths(
    state: st.GameState, strike: ph.Strike, place: tuple[float, float] | None, contacts: int = AIM_CONTACTS
) -> list[dict[str, Any]]:
    """The aimed shot's true paths (throw, spin, cushions, jaws) up to its first contacts, for the page.

    The struck ball's path up to its `contacts`-th contact (a ball, a cushion, a jaw, a pocket),
    and the ball it hits first up to that ball's own `contacts - 1`-th contact after being
    hit (at least one); a path ends early where its ball drops or stops:
    `[{"ball", "points": [[x, y], ...], "end": event kind or "stop"}]`.
    No noise, and the shot is not played: the same program as a shot's, its verdict unused.
    """
    one = _play_one(state, human_move(strike, place, None), np.zeros(2, np.uint32))[1].result
    log = one.log
    count = int(log.count)
    t, kind = np.asarray(log.t)[:count], np.asarray(log.kind)[:count]
    a, b = np.asarray(log.a)[:count], np.asarray(log.b)[:count]
    touching = np.isin(kind, CONTACTS)
    cue = int(strike.ball)
    windows = [(cue, 0.0, contacts)]
    first = np.flatnonzero(touching & (kind == ph.events.BALL_BALL) & ((a == cue) | (b == cue)))
    if first.size:
        k = first[0]
        hit = int(b[k] if a[k] == cue else a[k])
        windows.append((hit, float(t[k]), max(contacts - 1, 1) + 1))  # its first contact is the hit
    duration = float(one.duration)
    times, spans = [], []
    for ball, start, n in windows:
        mine = np.flatnonzero(touching & ((a == ball) | ((kind == ph.events.BALL_BALL) & (b == ball))))
        mine = mine[t[mine] >= start]
        ends = [i for j, i in enumerate(mine) if j == n - 1 or kind[i] == ph.events.POCKET]  # or it drops
        stop = ends[0] if ends else None
        end = float(t[stop]) if stop is not None else duration
        corners = [float(x) for x in t[mine] if start < x < end]
        samples = np.linspace(start, end, AIM_SAMPLES - len(corners))
        times.append(np.sort(np.concatenate([samples, corners])))
        spans.append((ball, "stop" if stop is None else ph.events.KIND_NAMES[int(kind[stop])]))
    padded = np.zeros(2 * AIM_SAMPLES)
    flat = np.concatenate(times)
    padded[: flat.size] = flat
    paths = np.asarray(trajectory(one, padded, SETUP.params))
    out: list[dict[str, Any]] = []
    offset = 0
    for (ball, ending), ts in zip(spans, times, strict=True):
        points = np.round(paths[offset : offset + ts.size, ball, :], 4).tolist()
        out.append({"ball": ball, "points": points, "end": ending})
        offset += ts.size
    return out


def animate(result: ph.ShotResult, present: np.ndarray, strike: ph.Strike | None = None) -> dict[str, Any]:
    """One table's shot as frames every `FRAME_DT` s: positions of the balls present at the start.

    Returns `{"dt", "duration", "balls": [ids], "frames": [[x, y, x, y, ...], ...],
    "pocketed": {id: [t, pocket name]}, "sounds": [[t, kind], ...], "strike"}`; positions in
    mm-rounded metres. `sounds` are the contacts the page makes heard (`SOUNDS`), `strike`
    the cue's stroke it draws before the balls move.
    """
    duration = float(result.duration)
    count = math.ceil(duration / FRAME_DT) + 1
    padded = max(MIN_FRAMES, 1 << (count - 1).bit_length())
    times = np.minimum(np.arange(padded) * FRAME_DT, duration)
    paths = np.asarray(trajectory(result, times, SETUP.params))[:count]
    balls = [int(b) for b in np.flatnonzero(present)]
    frames = np.round(paths[:, balls, :], 4).reshape(count, -1).tolist()
    pocket = np.asarray(result.pocket)
    pocket_time = np.asarray(result.pocket_time)
    pocketed = {
        str(b): [round(float(pocket_time[b]), 4), ph.POCKET_NAMES[int(pocket[b])]]
        for b in balls
        if pocket[b] >= 0
    }
    log = result.log
    count_events = int(log.count)
    sounds = [
        [round(float(t), 4), SOUNDS[int(k)]]
        for t, k in zip(np.asarray(log.t)[:count_events], np.asarray(log.kind)[:count_events], strict=True)
        if int(k) in SOUNDS
    ][:MAX_SOUNDS]
    return {
        "dt": FRAME_DT,
        "duration": duration,
        "balls": balls,
        "frames": frames,
        "pocketed": pocketed,
        "sounds": sounds,
        "strike": None if strike is None else strike_json(strike),
    }


def warm_animations(state: st.GameState, strike: ph.Strike, place: tuple[float, float] | None) -> None:
    """Compile `animate`'s sampling for every padded frame count up to `ANIMATION_SIZES[-1]`."""
    one = _play_one(state, human_move(strike, place, None), np.zeros(2, np.uint32))[1].result
    for size in ANIMATION_SIZES:
        jax.block_until_ready(trajectory(one, np.zeros(size), SETUP.params))


def still(state: st.GameState) -> dict[str, Any]:
    """An animation of no motion: the balls where they stand (after a decision)."""
    on = np.asarray(state.on_table)
    pos = np.asarray(state.positions)
    balls = [int(b) for b in np.flatnonzero(on)]
    frames = [np.round(pos[balls], 4).ravel().tolist()]
    return {
        "dt": FRAME_DT,
        "duration": 0.0,
        "balls": balls,
        "frames": frames,
        "pocketed": {},
        "sounds": [],
        "strike": None,
    }


def apply_decision(
    state: st.GameState, decision: Decision
) -> tuple[dict[str, Any], dict[str, Any], st.GameState]:
    """A checked decision (`codec.decision_from_json`): (record entry, outcome JSON, next state)."""
    invalid, nxt = decide_one(state, decision, DIMS)
    if int(invalid):
        raise FieldError("decision: not allowed in this state")
    log = match.MatchRecord(int(state.variant), DIMS)
    log.add_decision(state, decision, nxt)
    entry = log.entries[0]
    return entry, entry["outcome"], nxt


def bot_move(agent: Agent, state: st.GameState, key: Any) -> Move:
    """The bot's move on one table (its `act` on a batch of one), fields as host scalars."""
    move = agent.act(st.stack([state]), jnp.asarray(key)[None])
    return jax.tree_util.tree_map(lambda x: np.asarray(x)[0], move)
