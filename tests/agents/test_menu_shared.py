"""One shot menu: greedy, the search bot and the environments' `assisted` actions all play its slots.

Positions: fresh racks (the break), and tables after a few random moves in all four
variants (ordinary shots, balls in hand after fouls, Classic calls), B = 8 tables (the envs' batch:
the same compiled programs as the other tests).
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from piramida.agents import GreedyAgent, RandomAgent
from piramida.agents.greedy import GREEDY_MENU, PLAIN_SAFETY
from piramida.agents.menu import Menu, moves_at, shot_menu
from piramida.agents.search import LEVELS, analysed_moves
from piramida.envs import actions as act
from piramida.envs import core
from piramida.rules import state as st
from piramida.rules.game import Move
from piramida.rules.setup import default_setup
from piramida.training import prior

B = 8
SHOT_FIELDS = ("ball", "speed", "phi", "a", "b", "place", "call_ball", "call_pocket")


@pytest.fixture(scope="module")
def positions() -> list[st.GameState]:
    """Racks, then the tables after 2, 5 and 8 random moves (fouls leave balls in hand)."""
    keys = jax.random.split(jax.random.PRNGKey(11), B)
    states = st.new_games(jnp.arange(B) % 4, keys, jnp.arange(B) % 2)
    out = [states]
    walker = RandomAgent()
    for step in range(10):
        states, _, keys = core.play_masked(
            states, walker.act(states, keys), keys, states.phase != st.OVER, 0.15
        )
        if step % 3 == 1:
            out.append(states)
    return out


def same_shot(a: Move, b: Move, rows: np.ndarray) -> None:
    """The same shot on `rows`: integer fields equal, the others to 1e-7 (m, m/s, degrees, R).

    Two compiled programs may round the menu's float64 aim differently (seen: 1.5e-8 degree).
    """
    for name in SHOT_FIELDS:
        x, y = np.asarray(getattr(a, name))[rows], np.asarray(getattr(b, name))[rows]
        np.testing.assert_allclose(x, y, rtol=0, atol=1e-7 if x.dtype.kind == "f" else 0, err_msg=name)


def test_the_positions_cover_every_shot_phase(positions: list[st.GameState]) -> None:
    phases = {int(p) for states in positions for p in np.asarray(states.phase)}
    assert {st.BREAK, st.NORMAL, st.IN_HAND} <= phases


def test_greedy_plays_the_first_slot_or_the_plain_safety_of_the_menu(positions: list[st.GameState]) -> None:
    greedy = GreedyAgent()
    for states in positions:
        menu = shot_menu(states, Menu())  # the search's menu: its first slot is greedy's too
        small = shot_menu(states, GREEDY_MENU)
        moves = greedy.act(states, None)
        shooting = np.asarray(states.phase) <= st.IN_HAND
        first = np.asarray(menu.valid[:, 0]) & shooting
        same_shot(moves, moves_at(menu.moves, jnp.zeros(B, jnp.int32)), first)
        safe = ~np.asarray(small.valid[:, 0]) & np.asarray(small.valid[:, PLAIN_SAFETY]) & shooting
        speed = jnp.full(B, greedy.rule.safety_speed)  # the plain safety at greedy's own speed
        same_shot(moves, moves_at(small.moves, jnp.full(B, PLAIN_SAFETY)).replace(speed=speed), safe)
        assert first.any() and safe.any() if states is positions[-1] else True


def test_each_assisted_slot_with_neutral_corrections_is_exactly_the_menu_shot(
    positions: list[st.GameState],
) -> None:
    for states in positions:
        menu = shot_menu(states, act.MENU)
        shooting = np.asarray(states.phase) <= st.IN_HAND
        for slot in range(0, act.K, 5):
            actions = jnp.tile(jnp.asarray([slot, *prior.NEUTRAL]), (B, 1))
            decoded = core.decode_moves(states, actions, "assisted")
            rows = shooting & np.asarray(menu.valid[:, slot])
            same_shot(decoded, moves_at(menu.moves, jnp.full(B, slot)), rows)


def test_the_assisted_mask_is_the_menus_legal_slots(positions: list[st.GameState]) -> None:
    for states in positions:
        menu = np.asarray(shot_menu(states, act.MENU).valid)
        masks = np.asarray(core.legal_masks(states))[:, : act.K]
        rows = (np.asarray(states.phase) <= st.IN_HAND) & menu.any(axis=1)
        np.testing.assert_array_equal(masks[rows], menu[rows])


@pytest.mark.slow
@pytest.mark.xdist_group("search-bot")
def test_the_search_plays_a_slot_of_the_same_menu(positions: list[st.GameState]) -> None:
    config = LEVELS["easy"]
    states = positions[1]
    args: tuple[Any, ...] = (config, default_setup(), GreedyAgent().rule)
    moves, found = analysed_moves(states, jax.random.split(jax.random.PRNGKey(0), B), 0.15, *args)
    menu = shot_menu(states, config.menu)
    np.testing.assert_array_equal(np.asarray(found.menu.valid), np.asarray(menu.valid))
    rows = np.asarray(states.phase) <= st.IN_HAND
    same_shot(moves, moves_at(menu.moves, found.slot), rows)
