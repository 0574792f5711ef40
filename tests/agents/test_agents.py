"""The bots: random, greedy and search moves the referee accepts, pots, candidates, throw correction.

Every shot goes through `rules.game.play` on batches of B = 8 tables with one capacity,
so the file compiles the kernel once. States are made by hand from `state.new_game`
with `replace(...)`: breaks, ordinary shots, shots from hand (house, anywhere), pending
decisions, in all four variants.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import piramida.physics as ph
from piramida.agents import CasualAgent, GreedyAgent, RandomAgent, SearchAgent, make_agent
from piramida.agents.candidates import PowerRule, aim, candidates, pocket_mouths, ranked_candidates
from piramida.agents.greedy import GREEDY_MENU
from piramida.agents.menu import Menu, shot_menu
from piramida.agents.search import (
    ILLEGAL,
    SearchConfig,
    outcome_value,
    stage_one_values,
    staged_values,
)
from piramida.envs import core
from piramida.rules import ids
from piramida.rules import state as st
from piramida.rules.game import CAPACITY as GAME_CAPACITY
from piramida.rules.game import move, play
from piramida.rules.setup import Setup

TABLE = ph.preset()
# The tests that compile the default search bot at batch B share one worker (`--dist
# loadgroup`), so two workers never compile its ~2-minute program at the same time.
SEARCH_GROUP = pytest.mark.xdist_group("search-bot")
SETUP = Setup.of(TABLE)
DIMS = SETUP.dims
W, L, R = DIMS.width, DIMS.length, DIMS.R
B = 8
MOUTHS = np.asarray(pocket_mouths(TABLE)[2])
AXES = {  # each pocket's axis, from the pocket into the table
    0: (1.0, 1.0),
    1: (-1.0, 1.0),
    2: (1.0, 0.0),
    3: (-1.0, 0.0),
    4: (1.0, -1.0),
    5: (-1.0, -1.0),
}


def axis(pocket: int, turn: float = 0.0) -> np.ndarray:
    u = np.asarray(AXES[pocket]) / np.linalg.norm(AXES[pocket])
    a = np.radians(turn)
    return np.array([np.cos(a) * u[0] - np.sin(a) * u[1], np.sin(a) * u[0] + np.cos(a) * u[1]])


def game(
    variant: int, xy: dict[int, Any] | None = None, phase: int = st.NORMAL, seed: int = 0, **changes: Any
) -> st.GameState:
    """A frame of `variant` with the given balls on the table (the rest on the shelves)."""
    g = st.new_game(variant, jax.random.PRNGKey(seed), 0, DIMS)
    if xy is not None:
        pos = np.full((ids.N_BALLS, 2), ids.OFF_TABLE_XY)
        on = np.zeros(ids.N_BALLS, bool)
        for ball, point in xy.items():
            pos[ball], on[ball] = point, True
        hand = phase in (st.BREAK, st.IN_HAND)
        off = [b for b in range(ids.N_BALLS) if not on[b] and not (hand and b == ids.COLOURED)]
        shelf = np.full(ids.N_BALLS, -1)
        shelf[off] = np.arange(len(off)) % 2
        score = [0, 0] if variant == ids.CLASSIC else [int((shelf == 0).sum()), int((shelf == 1).sum())]
        g = g.replace(
            positions=jnp.asarray(pos),
            on_table=jnp.asarray(on),
            shelf=jnp.asarray(shelf, jnp.int32),
            score=jnp.asarray(score, jnp.int32),
        )
    fields = {"phase": phase, **changes}
    return g.replace(**{k: jnp.asarray(v, jnp.asarray(getattr(g, k)).dtype) for k, v in fields.items()})


def scattered(n: int, seed: int, first: int = 0) -> dict[int, Any]:
    """Balls first .. first + n - 1 at random non-overlapping spots."""
    xy = np.asarray(ph.random_layout(jax.random.PRNGKey(seed), W, L, n, R))
    return {first + i: xy[i] for i in range(n)}


def varied_states() -> st.GameState:
    """Eight tables: every phase but OVER, every variant, from hand in and out of the house."""
    house = {1: (0.5, 0.5), 2: (1.2, 0.4), 3: (0.9, 1.6), 4: (0.4, 2.6), 5: (1.3, 3.0), 6: (0.9, 2.2)}
    rack = np.asarray(game(ids.CLASSIC, seed=1).positions)
    failed_break = {0: (0.9, 0.5), **{b: rack[b] for b in range(1, ids.N_BALLS)}}  # G12.2
    return st.stack(
        [
            game(ids.FREE, phase=st.BREAK),
            game(ids.CLASSIC, phase=st.BREAK, seed=1),
            game(ids.COMBINED, scattered(7, 2)),
            game(ids.DYNAMIC, scattered(6, 3, first=1), st.IN_HAND, region=ids.ANYWHERE, object_only=True),
            game(ids.CLASSIC, house, st.IN_HAND, region=ids.HOUSE),  # G21.2: balls 1, 2 in the house
            game(ids.FREE, scattered(9, 4)),
            game(ids.FREE, scattered(8, 5), st.DECISION, turn=1, decision=st.G6, options=0b11),
            game(ids.CLASSIC, failed_break, st.DECISION, seed=1, decision=st.G12_2, options=0b1111),
        ]
    )


def play_batch(states: st.GameState, moves: Any, seed: int = 0) -> Any:
    """The moves played with no noise, through the envs' program (`core.play_masked`: one compile)."""
    keys = jax.random.split(jax.random.PRNGKey(seed), B)
    after, outcome, _ = core.play_masked(states, moves, keys, jnp.ones(B, bool), 0.0)
    return after, outcome


@pytest.mark.parametrize(
    "name", ["random", "greedy", "casual", pytest.param("search", marks=[SEARCH_GROUP, pytest.mark.slow])]
)
def test_agents_make_only_moves_the_referee_accepts(name: str) -> None:
    agent = make_agent(name, setup=SETUP)
    states = varied_states()
    phases_seen: set[int] = set()
    for step in range(4):
        phases_seen |= set(np.asarray(states.phase).tolist())
        keys = jax.random.split(jax.random.PRNGKey(100 + step), B)
        states, outcome = play_batch(states, agent.act(states, keys), seed=step)
        assert np.asarray(outcome.verdict.invalid).tolist() == [0] * B, step
        assert np.asarray(outcome.decision_invalid).tolist() == [0] * B, step
    assert {st.BREAK, st.NORMAL, st.IN_HAND, st.DECISION} <= phases_seen


def test_agents_are_deterministic_for_given_keys() -> None:
    states = varied_states()
    keys = jax.random.split(jax.random.PRNGKey(3), B)
    agent = RandomAgent(SETUP)
    first, second = agent.act(states, keys), agent.act(states, keys)
    other = agent.act(states, jax.random.split(jax.random.PRNGKey(4), B))
    assert all(
        jax.tree_util.tree_leaves(jax.tree_util.tree_map(lambda a, b: bool(jnp.all(a == b)), first, second))
    )
    assert not bool(jnp.all(first.phi == other.phi))


def test_make_agent_names_an_unknown_agent() -> None:
    with pytest.raises(ValueError, match="'minimax'"):
        make_agent("minimax")


def same(a: Any, b: Any) -> Any:
    """(B,) whether two batches of moves agree on every field, table by table."""
    leaves = jax.tree_util.tree_leaves(jax.tree_util.tree_map(lambda x, y: x == y, a, b))
    return np.all([np.asarray(x).reshape(B, -1).all(axis=1) for x in leaves], axis=0)


def test_casual_with_one_pot_and_no_wild_shots_plays_as_greedy() -> None:
    states = varied_states()
    keys = jax.random.split(jax.random.PRNGKey(5), B)
    casual = CasualAgent(top=1, wild=0.0, setup=SETUP).act(states, keys)
    assert same(casual, GreedyAgent(setup=SETUP).act(states, keys)).all()


def test_casual_picks_at_random_among_greedy_top_pots_deterministically_for_a_key() -> None:
    states = st.stack([game(ids.FREE, scattered(12, 7))] * B)  # one table with many pots, eight keys
    menu = shot_menu(states, GREEDY_MENU, setup=SETUP)
    top = int(np.asarray(menu.valid[0, : GREEDY_MENU.pots]).sum())
    assert top >= 2
    keys = jax.random.split(jax.random.PRNGKey(6), B)
    agent = CasualAgent(wild=0.0, setup=SETUP)
    moves = agent.act(states, keys)
    slot_of = {round(float(phi), 9): k for k, phi in enumerate(np.asarray(menu.moves.phi[0, :top]))}
    picked = [slot_of.get(round(float(phi), 9)) for phi in np.asarray(moves.phi)]
    assert None not in picked and len(set(picked)) >= 2, picked  # each a top pot, not always the same
    assert same(moves, agent.act(states, keys)).all()
    assert not same(moves, agent.act(states, jax.random.split(jax.random.PRNGKey(7), B))).all()


def test_casual_wild_shots_are_random_shots_and_never_breaks_or_decisions() -> None:
    states = varied_states()
    keys = jax.random.split(jax.random.PRNGKey(8), B)
    wild = CasualAgent(wild=1.0, setup=SETUP).act(states, keys)
    tame = CasualAgent(wild=0.0, setup=SETUP).act(states, keys)
    shooting = np.isin(np.asarray(states.phase), [st.NORMAL, st.IN_HAND])
    assert shooting.sum() >= 3
    np.testing.assert_array_equal(same(wild, tame), ~shooting)


@pytest.mark.parametrize(
    ("kwargs", "word"), [({"top": 0}, "top"), ({"top": 4}, "top"), ({"wild": 1.5}, "wild")]
)
def test_casual_refuses_settings_out_of_range(kwargs: dict[str, Any], word: str) -> None:
    with pytest.raises(ValueError, match=f"casual: {word}"):
        CasualAgent(**kwargs)


def lone_pots() -> st.GameState:
    """Eight tables with one easy pot and nothing else.

    One object ball 0.4-0.7 m out from a pocket, the own ball further out on about the
    same line; in two tables the own ball is in hand (Dynamic anywhere; Combined house).
    """
    tables = []
    for k, (variant, pocket) in enumerate(
        [
            (ids.FREE, 0),
            (ids.COMBINED, 3),
            (ids.DYNAMIC, 5),
            (ids.CLASSIC, 2),
            (ids.CLASSIC, 1),
            (ids.FREE, 4),
        ]
    ):
        obj = MOUTHS[pocket] + (0.4 + 0.05 * k) * axis(pocket, 5.0 * (k % 3 - 1))
        own = obj + 0.8 * axis(pocket, 3.0)
        tables.append(game(variant, {0: own, 1: obj}))
    tables.append(
        game(ids.DYNAMIC, {1: MOUTHS[4] + 0.5 * axis(4)}, st.IN_HAND, region=ids.ANYWHERE, object_only=True)
    )
    tables.append(game(ids.COMBINED, {1: MOUTHS[2] + 0.45 * axis(2, -10.0)}, st.IN_HAND, region=ids.HOUSE))
    return st.stack(tables)


def test_greedy_pots_a_lone_object_ball_in_front_of_a_pocket() -> None:
    states = lone_pots()
    greedy = GreedyAgent(setup=SETUP)
    best = candidates(states, SETUP, k=1)
    assert np.asarray(best.valid[:, 0]).all()
    _, outcome = play_batch(states, greedy.act(states, jax.random.split(jax.random.PRNGKey(0), B)))
    v = outcome.verdict
    assert np.asarray(v.invalid).tolist() == [0] * B
    assert np.asarray(v.legal).all()
    potted = np.asarray(outcome.result.pocket)
    for k in range(B):
        target, pocket = int(best.target[k, 0]), int(best.pocket[k, 0])
        assert potted[k, target] == pocket, (k, target, pocket, potted[k])
        assert np.asarray(v.scored)[k, target]


def test_candidates_drop_a_pot_whose_path_a_ball_blocks() -> None:
    # Own ball 0 and object ball 1 straight on the front-left pocket; then a ball on the own
    # ball's path, then one on the object ball's path to the pocket.
    obj = MOUTHS[0] + 0.6 * axis(0)
    own = obj + 0.8 * axis(0)
    clear = {0: own, 1: obj, 2: (1.5, 2.0), 3: MOUTHS[5] + 0.5 * axis(5)}
    cue_blocked = {**clear, 2: obj + 0.4 * axis(0, 4.0)}
    pocket_blocked = {**clear, 2: MOUTHS[0] + 0.3 * axis(0, -3.0)}
    states = st.stack([game(ids.COMBINED, xy) for xy in (clear, cue_blocked, pocket_blocked)])
    c = candidates(states, SETUP, k=32)
    valid, own_, target, pocket = (np.asarray(x) for x in (c.valid, c.own, c.target, c.pocket))
    wanted = valid & (own_ == 0) & (target == 1) & (pocket == 0)
    assert wanted[0, 0]  # the straight pot is the best shot on the open table
    assert np.asarray(c.cut)[0, 0] == pytest.approx(0.0, abs=1e-6)
    assert not wanted[1].any() and not wanted[2].any()
    assert (valid[1:] & (target[1:] == 3)).any(axis=1).all()  # the pot of ball 3 is still on


def test_throw_correction_pots_a_30_degree_cut_the_plain_aim_misses() -> None:
    # A 30-degree cut into a corner over 1 m + 1 m, to either side, into two corners: the
    # plain ghost-ball aim is thrown ~0.9 degrees off the line, ~15 mm at the pocket
    # (the corner forgives ~4 mm); the corrected aim goes in.
    layouts = []
    for pocket in (0, 5):
        for side in (-1.0, 1.0):
            obj = MOUTHS[pocket] + 1.0 * axis(pocket)
            own = obj + 2 * R * axis(pocket) + 1.0 * axis(pocket, side * 30.0)
            layouts.append((pocket, own, obj))
    own = jnp.asarray(np.array([o for _, o, _ in layouts]))
    obj = jnp.asarray(np.array([x for _, _, x in layouts]))
    mouth = jnp.asarray(np.array([MOUTHS[p] for p, _, _ in layouts]))
    plans = [aim(own, obj, mouth, R, correct=correct) for correct in (True, False)]
    phi = jnp.concatenate([a.phi for a in plans])
    speed = jnp.concatenate([a.speed for a in plans])
    assert np.asarray(jnp.concatenate([a.cut for a in plans])) == pytest.approx(30.0, abs=2.0)
    own, obj = jnp.concatenate([own, own]), jnp.concatenate([obj, obj])
    corrected = np.arange(B) < len(layouts)
    states = st.stack([game(ids.COMBINED, {0: own[k], 1: obj[k]}) for k in range(B)])
    _, outcome = play_batch(states, move(ball=jnp.zeros(B, jnp.int32), speed=speed, phi=phi))
    potted = np.asarray(outcome.result.pocket)[:, 1]
    pockets = np.array([p for p, _, _ in layouts] * 2)
    assert (potted[corrected] == pockets[corrected]).all(), potted
    assert (potted[~corrected] != pockets[~corrected]).all(), potted


def test_candidates_correct_the_throw_of_the_shots_that_correcting_every_shot_would_keep() -> None:
    # Only the plainly aimed best (`preselection`) get the throw correction; correcting all
    # 16 x 16 x 6 shots instead must keep the same best k, aimed the same, on crowded
    # Free tables (every ball may be the own ball), from hand and at the break.
    crowded = [game(ids.FREE, scattered(14, seed)) for seed in range(10, 14)]
    in_hand = [
        game(variant, scattered(10, seed, first=1), st.IN_HAND, region=region)
        for variant, region, seed in ((ids.FREE, ids.HOUSE, 20), (ids.COMBINED, ids.ANYWHERE, 21))
    ]
    states = jax.tree_util.tree_map(
        lambda *x: jnp.concatenate(x), varied_states(), st.stack(crowded + in_hand)
    )
    fast = candidates(states, SETUP, k=8)
    every = ranked_candidates(states, SETUP, 8, ids.N_BALLS * ids.N_BALLS * 6, PowerRule())
    valid = np.asarray(every.valid)
    assert valid[:2, :3].all() and valid[8:].all(), valid.sum(axis=1)  # 3 break shots, full crowded menus
    np.testing.assert_array_equal(np.asarray(fast.valid), valid)
    for field in ("own", "target", "pocket", "phi", "speed", "place", "score"):
        a, b = np.asarray(getattr(fast, field)), np.asarray(getattr(every, field))
        np.testing.assert_allclose(a[valid], b[valid], rtol=0, atol=1e-6, err_msg=field)


@pytest.mark.slow
@SEARCH_GROUP
def test_search_is_deterministic_for_given_keys() -> None:
    states = varied_states()
    keys = jax.random.split(jax.random.PRNGKey(3), B)
    agent = SearchAgent(setup=SETUP)
    first, second = agent.act(states, keys), agent.act(states, keys)
    assert all(
        jax.tree_util.tree_leaves(jax.tree_util.tree_map(lambda a, b: bool(jnp.all(a == b)), first, second))
    )


@pytest.mark.slow
@SEARCH_GROUP
def test_search_takes_the_one_easy_pot() -> None:
    # The layouts of the greedy test above: one object ball, nothing else on the table.
    states = lone_pots()
    search = SearchAgent(setup=SETUP)
    _, outcome = play_batch(states, search.act(states, jax.random.split(jax.random.PRNGKey(0), B)))
    v = outcome.verdict
    assert np.asarray(v.invalid).tolist() == [0] * B
    assert np.asarray(v.legal).all()
    assert np.asarray(v.scored)[:, 1].all(), np.asarray(outcome.result.pocket)[:, 1]


def no_pot_states() -> st.GameState:
    """Eight Combined tables (the own ball and two object balls) on which `candidates` finds no pot.

    About one random layout in ten has none (the own ball is fixed, G4.2, so few pairs).
    """
    found: list[st.GameState] = []
    for seed in range(0, 400, B):
        batch = st.stack([game(ids.COMBINED, scattered(3, seed + k)) for k in range(B)])
        none = ~np.asarray(candidates(batch, SETUP, k=1).valid[:, 0])
        found += [st.to_host(batch, int(k)) for k in np.flatnonzero(none)]
        if len(found) >= B:
            return st.stack(found[:B])
    raise AssertionError(f"only {len(found)} layouts without a pot in 400")


@pytest.mark.slow
@SEARCH_GROUP
def test_search_fouls_no_more_than_greedy_when_nothing_pots() -> None:
    states = no_pot_states()
    keys = jax.random.split(jax.random.PRNGKey(5), B)
    fouls = {}
    for agent in (GreedyAgent(setup=SETUP), SearchAgent(setup=SETUP)):
        _, outcome = play_batch(states, agent.act(states, keys))
        assert np.asarray(outcome.verdict.invalid).tolist() == [0] * B
        fouls[agent.name] = int(np.sum(np.asarray(outcome.verdict.fouls) != 0))
    assert fouls["search"] <= fouls["greedy"], fouls


def test_search_stage_one_ranks_a_thin_long_cut_below_a_short_straight_pot_under_noise() -> None:
    # Two Combined tables, each with one pot and three balls out of the way: a short straight
    # pot (0.3 m + 0.3 m) and a thin long cut (1.2 m at 55 degrees, then 1.5 m). Struck as
    # intended both go in; at the amateur aim error (+-1 sigma) only the straight one does.
    far = {2: (1.6, 3.3), 3: (1.45, 3.4), 4: (1.6, 3.0)}
    easy_obj = MOUTHS[0] + 0.3 * axis(0)
    hard_obj = MOUTHS[0] + 1.5 * axis(0)
    layouts = [(easy_obj + 0.3 * axis(0), easy_obj), (hard_obj + 1.2 * axis(0, 55.0), hard_obj)]
    states = st.stack([game(ids.COMBINED, {0: own, 1: obj, **far}) for own, obj in layouts])
    own = jnp.asarray(np.array([own for own, _ in layouts]))
    obj = jnp.asarray(np.array([obj for _, obj in layouts]))
    planned = aim(own, obj, jnp.asarray(MOUTHS[0]), R)
    moves = jax.tree_util.tree_map(lambda x: x[:, None], move(ball=0, speed=planned.speed, phi=planned.phi))
    jitted = jax.jit(stage_one_values, static_argnames=("config",))
    config = SearchConfig(capacity=GAME_CAPACITY)  # quadrature on
    exact, noisy = (np.asarray(jitted(states, moves, magnitude, config, SETUP)) for magnitude in (0.0, 0.45))
    assert (exact[:, 0] > 1.0 / st.FREE_TARGET - 0.05).all(), exact  # both pot as intended
    assert abs(noisy[0, 0] - exact[0, 0]) < 0.05, (noisy, exact)
    assert noisy[1, 0] < exact[1, 0] - 0.05, (noisy, exact)
    assert noisy[1, 0] < noisy[0, 0], noisy


@pytest.mark.slow
@SEARCH_GROUP
def test_the_searchs_rounds_value_each_move_as_a_plain_play_of_it_would() -> None:
    # The search plays its two stages through one `play` in rounds of M moves a table, the
    # last round of stage 2 padded with moves struck by no one: 4 finalists x 5 samples
    # over M = 18 slots is two rounds with 16 spare moves. The reference strikes, in one
    # plain `play`, every stage-1 move at +-1 aim sigma with no noise and each of the
    # search's finalists 5 times under noise with the same 5 keys (common random numbers).
    config = SearchConfig(
        menu=Menu(pots=3, in_offs=0, doubles=0, kicks=0, safety_pairs=1), finalists=4, samples=5
    )
    size, finalists, samples = config.menu.size, config.finalists, config.samples
    states = jax.tree_util.tree_map(lambda x: x[jnp.asarray([2, 5])], varied_states())
    keys = jax.random.split(jax.random.PRNGKey(5), 2)
    magnitude = 0.3

    @jax.jit
    def searched_and_plain(states: st.GameState, keys: Any) -> tuple[Any, ...]:
        menu = shot_menu(states, config.menu, PowerRule(), SETUP)
        moves = menu.moves
        values, top, means = staged_values(states, moves, menu.valid, keys, magnitude, config, SETUP)
        turn = ph.noise.SIGMA_PHI_DEG * magnitude * jnp.repeat(jnp.asarray([1.0, -1.0]), size)
        aimed = jax.tree_util.tree_map(lambda x: jnp.concatenate([x, x], axis=1), moves)
        aimed = aimed.replace(phi=aimed.phi + turn)
        picked = jax.tree_util.tree_map(
            lambda x: jnp.take_along_axis(x, top.reshape(top.shape + (1,) * (x.ndim - 2)), axis=1), moves
        )
        sampled = jax.tree_util.tree_map(lambda x: jnp.repeat(x, samples, axis=1), picked)
        struck = jax.tree_util.tree_map(
            lambda x, y: jnp.concatenate([x, y], axis=1).reshape(-1, *x.shape[2:]), aimed, sampled
        )
        draws = jax.vmap(lambda k: jax.random.split(k, samples))(keys)
        noisy = jnp.concatenate(
            [jnp.zeros((2, 2 * size, 2), jnp.uint32), jnp.tile(draws, (1, finalists, 1))], 1
        )
        count = 2 * size + finalists * samples
        magnitudes = jnp.where(jnp.arange(count) < 2 * size, 0.0, magnitude)
        flat = jax.tree_util.tree_map(lambda x: jnp.repeat(x, count, axis=0), states)
        after, outcome = play(
            flat, struck, noisy.reshape(-1, 2), jnp.tile(magnitudes, 2), SETUP, config.capacity
        )
        plain = jax.vmap(lambda b, a, i, m: outcome_value(b, a, i, m, config, SETUP))(
            flat, after, outcome.verdict.invalid, jnp.tile(magnitudes, 2)
        ).reshape(2, count)
        one = plain[:, : 2 * size].reshape(2, 2, size).mean(axis=1)
        plain_top = jax.lax.top_k(jnp.where(menu.valid, one, 2.0 * ILLEGAL), finalists)[1]
        plain_means = plain[:, 2 * size :].reshape(2, finalists, samples).mean(axis=-1)
        return values, top, means, one, plain_top, plain_means

    values, top, means, one, plain_top, plain_means = (
        np.asarray(x) for x in searched_and_plain(states, keys)
    )
    assert (means > ILLEGAL).all(), means  # four legal finalists on each table
    np.testing.assert_allclose(values, one, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(top, plain_top)
    np.testing.assert_allclose(means, plain_means, rtol=0, atol=1e-12)
