"""The general rules as the game referee applies them, from hand-written event logs.

Each test is named after the rule it checks and pairs a case where the rule applies
with one where it just fails to. No physics kernel runs here (see `rules_logs` and
`referee_helpers`); the facts of a shot (G5.3, G12.1, G20 clause by clause) have their
own tests in `test_rules_legality.py`. Ball 0 is the own ball; positions come from
`referee_helpers.grid_xy` unless a test places balls itself.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from helpers.referee_helpers import (
    CLASSIC,
    COMBINED,
    DIMS,
    DYNAMIC,
    FAILS_G20,
    FREE,
    HOUSE_XY,
    LEGAL_NO_POT,
    VARIANTS,
    L,
    R,
    W,
    check_invariants,
    choose,
    judge,
    table_state,
)
from helpers.rules_logs import log_of, snapshot_of, stack

from piramida.rules import ids, memory
from piramida.rules import state as st
from piramida.rules import verdict as vd
from piramida.rules.decisions import (
    Decision,
    auto_decide,
    decide,
    default_decision,
    eligible_balls,
    extensions_for_match,
    slow_play,
)
from piramida.rules.game import move, play
from piramida.rules.referee import ShotRecord, adjudicate, adjudicate_one
from piramida.rules.respot import SPOT_GAP

BACK_SPOT = (W / 2, 3 * L / 4)
PYRAMID_HIT = [("ball-ball", 0, 1)]


def new(variant: int, breaker: int = 0, seed: int = 0) -> st.GameState:
    return st.new_game(variant, jax.random.PRNGKey(seed), breaker, DIMS)


# --- G8, CLS-3, G11: a new frame ----------------------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS)
def test_G8_1_new_game_racks_fifteen_balls_and_the_coloured_ball_is_in_hand(variant: int) -> None:
    game = new(variant, breaker=1)
    check_invariants(game)
    on = np.asarray(game.on_table)
    assert on[1:].all() and not on[0]  # G8.2: the coloured ball is the breaker's, in hand
    assert int(game.phase) == st.BREAK and int(game.turn) == 1 and int(game.breaker) == 1
    xy = np.asarray(game.positions)[1:]
    apex = xy[np.argmin(xy[:, 1])]
    assert apex == pytest.approx(BACK_SPOT, abs=1e-9)  # G8.1: the apex on the back spot
    assert int(st.hand_region(game, DIMS)) == ids.HOUSE


def test_CLS_3_classic_rack_is_numbered_and_the_others_need_not_be() -> None:
    xy = np.asarray(new(CLASSIC).positions)
    assert np.argmin(np.where(xy[:, 1] < 0, np.inf, xy[:, 1])) == 4  # CLS-3: ball 4 at the apex
    assert int(new(FREE).own_ball) == ids.NO_BALL  # G4.3: any ball after the break
    assert int(new(COMBINED).own_ball) == ids.COLOURED  # G4.2


def test_G13_next_frame_is_broken_by_the_other_player() -> None:
    game = new(FREE, breaker=0)
    again = st.next_frame(game, jax.random.PRNGKey(1), DIMS)
    assert int(again.breaker) == 1 and int(again.turn) == 1 and int(again.phase) == st.BREAK


def test_G11_3_own_ball_placed_in_the_house_and_not_on_the_house_line() -> None:
    game = new(FREE)
    ruling, _ = judge(game, [*PYRAMID_HIT, ("pocket", 3, "BL")], place=HOUSE_XY)
    assert ruling.valid and "G11.3" in ruling.rules
    on_line = (W / 2, L / 4)  # G10.2: a ball on the house line is not in the house
    ruling, after = judge(game, [*PYRAMID_HIT, ("pocket", 3, "BL")], place=on_line)
    assert not ruling.valid and ruling.invalid == ["placement"]
    assert jax.tree_util.tree_all(jax.tree_util.tree_map(lambda a, b: bool(jnp.all(a == b)), after, game))


def test_G11_3_a_placement_outside_the_house_stands_when_nobody_warned() -> None:
    """G11.3: "Jeigu rutulys pastatomas ne namų zonoje, varžovas arba teisėjas privalo
    perspėti žaidėją prieš šiam smūgiuojant, priešingu atveju manoma, kad žaidimas buvo
    pradėtas teisingai. Jeigu žaidėjas buvo įspėtas dėl neteisingai pastatyto rutulio, jis
    privalo rutulį perstatyti į teisingą poziciją."
    """
    game = new(FREE)
    events = [*PYRAMID_HIT, ("pocket", 3, "BL")]
    for outside in ((W / 2, L / 4), (W / 2, L / 3)):  # on the house line; beyond it
        ruling, _ = judge(game, events, place=outside, placement_warned=False)
        assert ruling.valid and ruling.legal and "G11.3" in ruling.rules, outside
        ruling, _ = judge(game, events, place=outside, placement_warned=True)
        assert ruling.invalid == ["placement"], outside
    # Unwarned or not, the ball must stand on the cloth, clear of the others.
    for impossible in ((-0.1, 0.3), tuple(np.asarray(game.positions)[5])):
        ruling, _ = judge(game, events, place=impossible, placement_warned=False)
        assert ruling.invalid == ["placement"], impossible


def test_G11_2_the_break_is_made_with_the_coloured_ball() -> None:
    ruling, _ = judge(new(FREE), [("ball-ball", 5, 1)], ball=5)
    assert ruling.invalid == ["own-ball"]
    ruling, _ = judge(new(FREE), [*PYRAMID_HIT, ("pocket", 3, "BL")], ball=0)
    assert ruling.valid


def test_G4_2_own_ball_is_the_coloured_ball_outside_free() -> None:
    ruling, _ = judge(table_state(COMBINED), [("ball-ball", 5, 6)], ball=5)
    assert ruling.invalid == ["own-ball"]
    ruling, _ = judge(table_state(COMBINED), LEGAL_NO_POT, ball=0)
    assert ruling.valid and "G4.2" in ruling.rules


def test_G4_3_FREE_5_1_any_ball_on_the_table_may_be_the_own_ball_in_free() -> None:
    state = table_state(FREE)
    ruling, _ = judge(state, [("ball-ball", 7, 5), ("cushion", 5, "LB"), ("cushion", 5, "back")], ball=7)
    assert ruling.valid and ruling.legal and "G4.3" in ruling.rules
    gone = table_state(FREE, shelves=([7], []))  # ... but not a ball that is on a shelf
    ruling, _ = judge(gone, [("ball-ball", 7, 5)], ball=7)
    assert ruling.invalid == ["own-ball"]


# --- G5.3 and G20: legality of a shot ---------------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS)
def test_G5_3_own_ball_touching_no_object_ball_is_a_foul(variant: int) -> None:
    ruling, _ = judge(table_state(variant), [("cushion", 0, "back"), ("cushion", 0, "front")])
    assert not ruling.legal and ruling.fouls == ["no-contact"]
    assert {"G5.3", "G29.1(1)"} <= set(ruling.rules)
    ruling, _ = judge(table_state(variant), LEGAL_NO_POT)
    assert ruling.legal and "G5.3" not in ruling.foul_rules


def test_G19_2_N_contact_with_a_frozen_partner_alone_is_no_contact() -> None:
    start = snapshot_of(touching=[(0, 5)])
    ruling, _ = judge(table_state(FREE), LEGAL_NO_POT, start=start)
    assert ruling.fouls == ["no-contact"] and "G19.2-N" in ruling.rules
    events = [("ball-ball", 0, 5), ("ball-ball", 0, 6), ("cushion", 6, "LB"), ("cushion", 6, "back")]
    ruling, _ = judge(table_state(FREE), events, start=start)
    assert ruling.legal


@pytest.mark.parametrize(
    ("variant", "rule"),
    [(FREE, "FREE-5.6"), (COMBINED, "COMB-5.4"), (DYNAMIC, "DYN-5.4"), (CLASSIC, "CLS-5.8")],
)
def test_G20_a_shot_meeting_none_of_its_clauses_is_a_foul(variant: int, rule: str) -> None:
    ruling, _ = judge(table_state(variant), FAILS_G20)
    assert ruling.fouls == ["not-completed"] and {"G20", "G29.1(9)", rule} <= set(ruling.rules)
    ruling, _ = judge(table_state(variant), LEGAL_NO_POT)
    assert ruling.legal and "G20(2.1)" in ruling.rules and rule not in ruling.rules


def test_G20_1_a_pot_after_the_contact_completes_the_shot() -> None:
    ruling, _ = judge(table_state(FREE), [("ball-ball", 0, 5), ("pocket", 5, "BL")])
    assert ruling.legal and "G20(1)" in ruling.rules and ruling.scored == [5]


# --- G12: the break ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("events", "clause"),
    [
        ([("pocket", 3, "BL")], "G12.1(1)"),
        ([("cushion", 2, "back"), ("cushion", 3, "LB"), ("cushion", 4, "RB")], "G12.1(2)"),
        ([("cushion", 2, "back"), ("cushion", 3, "LB"), ("centre-line", 5, -1)], "G12.1(3)"),
    ],
)
def test_G12_1_legal_break(events: list[tuple[object, ...]], clause: str) -> None:
    ruling, _ = judge(new(FREE), PYRAMID_HIT + events)
    assert ruling.legal and clause in ruling.rules and ruling.decision is None


def test_G12_1_3_two_cushion_balls_without_a_crossing_is_a_failed_break() -> None:
    ruling, after = judge(new(FREE), [*PYRAMID_HIT, ("cushion", 2, "back"), ("cushion", 3, "LB")])
    assert not ruling.legal and ruling.fouls == ["failed-break"]
    assert ruling.decision == "G12.2" and ruling.next_player == 1 and ruling.takes_ball
    assert ruling.options == ["accept-shoot", "accept-hand-back", "rerack-break", "rerack-opponent-breaks"]
    assert {"G12.1", "G12.2", "G29.1(2)", "A-21"} <= set(ruling.rules)
    assert int(after.phase) == st.DECISION


@pytest.mark.parametrize("variant", VARIANTS)
def test_G12_2_1_accept_the_position_and_shoot(variant: int) -> None:
    _, after = judge(new(variant), PYRAMID_HIT)
    ball = -1 if variant == CLASSIC else 15
    after = choose(after, 0, ball)
    assert int(after.turn) == 1 and int(after.phase) == st.NORMAL
    if variant == CLASSIC:  # CLS-5.6: the penalty is in points, no ball is taken
        assert list(np.asarray(after.score)) == [-5, 5] and (np.asarray(after.shelf) < 0).all()
    else:  # FREE-7 / COMB-7 / DYN-7 with A-13: the penalty ball is the point
        assert int(after.shelf[15]) == 1 and list(np.asarray(after.score)) == [0, 1]


def test_G12_2_2_accept_the_position_and_let_the_breaker_continue() -> None:
    _, after = judge(new(FREE), PYRAMID_HIT)
    after = choose(after, 1, 15)
    assert int(after.turn) == 0 and int(after.phase) == st.NORMAL


def test_G12_2_3_rerack_without_the_penalty_ball_and_break_himself() -> None:
    _, after = judge(new(COMBINED), PYRAMID_HIT)
    after = choose(after, 2, 9)
    assert int(after.turn) == 1 and int(after.phase) == st.BREAK
    on = np.asarray(after.on_table)
    assert on.sum() == 14 and not on[9] and not on[0]  # G12.2-N: 14 balls, coloured in hand
    xy = np.asarray(after.positions)[on]
    assert xy[:, 1].min() >= BACK_SPOT[1] - 1e-9  # G8.2-N: racked behind the back spot


def test_G12_2_4_rerack_and_the_breaker_breaks_again_classic_full_rack() -> None:
    _, after = judge(new(CLASSIC), PYRAMID_HIT)
    after = choose(after, 3)
    assert int(after.turn) == 0 and int(after.phase) == st.BREAK
    assert np.asarray(after.on_table)[1:].all()  # Classic re-racks all 15 (CLS-3)
    assert np.asarray(after.positions) == pytest.approx(np.asarray(new(CLASSIC).positions))


def test_G12_2_rerack_refuses_the_coloured_ball_as_penalty_ball() -> None:
    _, after = judge(new(FREE), PYRAMID_HIT)
    invalid, same = decide(after, Decision(jnp.int32(2), jnp.int32(0)), DIMS)
    assert int(invalid) != 0 and int(same.phase) == st.DECISION


def test_G12_2_only_for_a_break_failing_G12_1_an_otherwise_foul_break_is_an_ordinary_foul() -> None:
    ruling, _ = judge(new(FREE), [*PYRAMID_HIT, ("pocket", 3, "BL")], declared=1 << 10)  # foot (G16)
    assert ruling.fouls == ["foot"] and ruling.decision == "G6"


# --- G6: play after a foul ---------------------------------------------------------------


@pytest.mark.parametrize("variant", [FREE, COMBINED, CLASSIC])
def test_G6_1_non_offender_shoots_himself(variant: int) -> None:
    ruling, after = judge(table_state(variant), FAILS_G20)
    assert ruling.decision == "G6" and ruling.options == ["shoot", "hand-back"] and ruling.next_player == 1
    after = choose(after, 0, -1 if variant == CLASSIC else 7)
    assert int(after.turn) == 1 and int(after.phase) == st.NORMAL


@pytest.mark.parametrize("variant", [FREE, COMBINED, CLASSIC])
def test_G6_2_non_offender_lets_the_offender_continue(variant: int) -> None:
    _, after = judge(table_state(variant), FAILS_G20)
    after = choose(after, 1, -1 if variant == CLASSIC else 7)
    assert int(after.turn) == 0 and int(after.phase) == st.NORMAL


def test_G6_does_not_follow_a_legal_shot() -> None:
    ruling, after = judge(table_state(FREE), LEGAL_NO_POT)
    assert ruling.decision is None and int(after.phase) == st.NORMAL and int(after.turn) == 1


# --- G21: shots from the house ---------------------------------------------------------


def test_G21_2_from_the_house_the_first_ball_hit_must_be_outside_it() -> None:
    balls = {5: (W / 2, 0.5), 6: (0.5, 2.5), 7: (1.2, 2.9)}
    state = table_state(
        COMBINED, balls=balls, phase=st.IN_HAND, shelves=([1, 2, 3, 4], [8, 9, 10, 11, 12, 13, 14, 15])
    )
    ruling, _ = judge(
        state, [("ball-ball", 0, 5), ("cushion", 5, "LF"), ("cushion", 5, "front")], place=(0.3, 0.4)
    )
    assert ruling.fouls == ["house-ball-first"] and {"G21.2", "G21.3", "A-24"} <= set(ruling.rules)
    ruling, _ = judge(
        state, [("ball-ball", 0, 6), ("cushion", 6, "LB"), ("cushion", 6, "back")], place=(0.3, 0.4)
    )
    assert ruling.legal


def test_G21_2_all_object_balls_in_the_house_the_temporary_house_is_at_the_back() -> None:
    balls = {5: (W / 2, 0.5), 6: (0.5, 0.3)}
    shelves = ([1, 2, 3, 4, 7], [8, 9, 10, 11, 12, 13, 14, 15])
    state = table_state(COMBINED, balls=balls, phase=st.IN_HAND, shelves=shelves)
    assert int(st.hand_region(state, DIMS)) == ids.TEMPORARY_HOUSE
    ruling, _ = judge(state, LEGAL_NO_POT, place=HOUSE_XY)
    assert ruling.invalid == ["placement"]
    ruling, _ = judge(state, LEGAL_NO_POT, place=(W / 2, 3.2))
    assert ruling.legal and "G21.2" in ruling.rules
    one_out = table_state(
        COMBINED, balls={**balls, 7: (0.5, 2.0)}, phase=st.IN_HAND, shelves=(shelves[0][:-1], shelves[1])
    )
    assert int(st.hand_region(one_out, DIMS)) == ids.HOUSE


def test_G11_3_an_unwarned_placement_outside_the_temporary_house_stands() -> None:
    """G11.3 in the temporary house: G21.2 makes the far end "laikinai tampa namų zona", and
    G21.1 brings the ball into play "atsižvelgiant į taisyklių 11 punktą", so G11.3 holds
    there too: "Jeigu rutulys pastatomas ne namų zonoje, varžovas arba teisėjas privalo
    perspėti žaidėją prieš šiam smūgiuojant, priešingu atveju manoma, kad žaidimas buvo
    pradėtas teisingai."
    """
    balls = {5: (W / 2, 0.5), 6: (0.5, 0.3)}
    shelves = ([1, 2, 3, 4, 7], [8, 9, 10, 11, 12, 13, 14, 15])
    state = table_state(COMBINED, balls=balls, phase=st.IN_HAND, shelves=shelves)
    assert int(st.hand_region(state, DIMS)) == ids.TEMPORARY_HOUSE
    events = [("ball-ball", 0, 6), ("cushion", 6, "LF"), ("cushion", 6, "front")]
    for outside in ((W / 2, 3 * L / 4), (W / 2, L / 2 + 0.3)):  # on the back-spot line; the middle
        ruling, _ = judge(state, events, place=outside, placement_warned=False)
        assert ruling.valid and ruling.legal and "G11.3" in ruling.rules, outside
        ruling, _ = judge(state, events, place=outside, placement_warned=True)
        assert ruling.invalid == ["placement"], outside
    # Unwarned or not, the ball must stand on the cloth, clear of the others.
    for impossible in ((W / 2, L + 0.1), balls[5]):
        ruling, _ = judge(state, events, place=impossible, placement_warned=False)
        assert ruling.invalid == ["placement"], impossible


# --- G22, G24, G25: pocketed, jumped and spotted balls -----------------------------------


def test_G22_3_balls_pocketed_on_a_foul_shot_are_respotted_G25_2_on_the_spotting_line() -> None:
    events = [("ball-ball", 0, 5), ("pocket", 5, "BL"), ("pocket", 6, "BR"), ("pocket", 0, "ML")]
    ruling, _after = judge(table_state(FREE), events, declared=1 << 12)  # a double hit (G18)
    assert not ruling.legal and ruling.scored == [] and sorted(ruling.respots) == [0, 5, 6]
    assert {"G22.3", "G22.4", "G25.2", "FREE-8"} <= set(ruling.rules)
    ys = sorted(xy[1] for xy in ruling.respots.values())
    assert all(xy[0] == pytest.approx(W / 2) for xy in ruling.respots.values())
    assert ys[0] == pytest.approx(BACK_SPOT[1])  # from the back spot to the back cushion
    assert np.diff(ys) == pytest.approx([2 * R + SPOT_GAP] * 2)  # close, never touching
    ruling, _ = judge(table_state(FREE), events)
    assert ruling.legal and ruling.scored == [0, 5, 6] and not ruling.respots


def test_G22_3_a_foul_after_the_shot_ended_keeps_the_pots_but_draws_a_penalty() -> None:
    events = [("ball-ball", 0, 5), ("pocket", 5, "BL")]
    ruling, after = judge(table_state(FREE), events, late=1 << 11)  # touched a ball (G17)
    assert not ruling.legal and ruling.scored == [5] and ruling.fouls == ["after-shot-end"]
    assert ruling.decision == "G6" and ruling.next_player == 1 and int(after.shelf[5]) == 0


def test_G22_3_N_a_foul_after_the_frame_deciding_shot_is_no_foul() -> None:
    state = table_state(FREE, shelves=([1, 2, 3, 4, 6, 7, 8], [9]))
    ruling, _after = judge(state, [("ball-ball", 0, 5), ("pocket", 5, "BL")], late=1 << 11)
    assert ruling.legal and ruling.game_over and ruling.winner == 0 and "G22.3-N" in ruling.rules
    state = table_state(FREE, shelves=([1, 2, 3, 4, 6, 7], [9]))
    ruling, _ = judge(state, [("ball-ball", 0, 5), ("pocket", 5, "BL")], late=1 << 11)
    assert not ruling.legal and not ruling.game_over


@pytest.mark.parametrize("variant", VARIANTS)
def test_G24_3_a_ball_off_the_table_is_a_foul_and_is_spotted_G24_4(variant: int) -> None:
    ruling, after = judge(table_state(variant), [*LEGAL_NO_POT, ("off-table", 6)])
    assert ruling.fouls == ["ball-off-table"] and 6 in ruling.respots
    assert {"G24.3", "G24.4", "G29.1(10)"} <= set(ruling.rules)
    assert bool(after.on_table[6])
    ruling, _ = judge(table_state(variant), LEGAL_NO_POT)
    assert ruling.legal and not ruling.respots


def test_G25_2_a_single_ball_goes_on_the_back_spot_unless_it_is_taken() -> None:
    ruling, _ = judge(table_state(COMBINED), [("ball-ball", 0, 5), ("pocket", 5, "BL")], declared=1 << 13)
    assert ruling.respots[5] == pytest.approx(BACK_SPOT)
    blocked = table_state(
        COMBINED,
        balls={0: (0.3, 1.5), 5: (0.6, 1.5), 9: BACK_SPOT},
        shelves=([1, 2, 3, 4, 6, 7], [8, 10, 11, 12, 13, 14, 15]),
    )
    ruling, _ = judge(blocked, [("ball-ball", 0, 5), ("pocket", 5, "BL")], declared=1 << 13)
    assert ruling.respots[5][1] == pytest.approx(BACK_SPOT[1] + 2 * R + SPOT_GAP)


# --- declared fouls and G29.2 ----------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "rule", "summary"),
    [
        ("early-stroke", "G14.2", "G29.1(3)"),
        ("cue", "G15", "G29.1(4)"),
        ("foot", "G16", "G29.1(5)"),
        ("touch", "G17", "G29.1(6)"),
        ("double-hit", "G18", "G29.1(7)"),
        ("push", "G19.1", "G29.1(8)"),
        ("slow-play", "G26", "G29.1(11)"),
        ("interference", "G28", "G29.1(12)"),
    ],
)
def test_G29_1_declared_fouls_of_a_human_match(name: str, rule: str, summary: str) -> None:
    bit = vd.FOUL_NAMES.index(name)
    ruling, _ = judge(table_state(FREE), LEGAL_NO_POT, declared=1 << bit)
    assert ruling.fouls == [name] and {rule, summary} <= set(ruling.rules) and ruling.decision == "G6"
    ruling, _ = judge(table_state(FREE), LEGAL_NO_POT)
    assert ruling.legal and rule not in ruling.rules


@pytest.mark.parametrize("variant", VARIANTS)
def test_G29_2_one_penalty_however_many_rules_were_broken(variant: int) -> None:
    events = [("cushion", 0, "back"), ("off-table", 0), ("off-table", 7)]
    declared = (1 << 10) | (1 << 12) | (1 << 15)
    ruling, after = judge(table_state(variant), events, declared=declared)
    assert len(ruling.fouls) >= 5 and "G29.2" in ruling.rules
    if variant == CLASSIC:
        assert ruling.points == (-5, 5)  # CLS-5.6 once, not once per foul
    else:
        assert ruling.points == (0, 0) and ruling.takes_ball
        d = default_decision(after, DIMS)
        after = choose(after, int(d.option), int(d.ball))
        assert list(np.asarray(after.score)) == [0, 1]  # one penalty ball
    ruling, _ = judge(table_state(variant), [("cushion", 0, "back")])
    assert len(ruling.fouls) == 1 and "G29.2" in ruling.rules


# --- invalid input, batching, default policy --------------------------------------------


def test_adjudicate_refuses_a_shot_while_a_decision_is_pending_or_after_the_frame() -> None:
    _, pending = judge(table_state(FREE), FAILS_G20)
    ruling, same = judge(pending, LEGAL_NO_POT)
    assert ruling.invalid == ["decision-pending"] and int(same.phase) == st.DECISION
    over = table_state(FREE).replace(phase=jnp.int32(st.OVER), winner=jnp.int32(0))
    ruling, _ = judge(over, LEGAL_NO_POT)
    assert ruling.invalid == ["game-over"]


def test_adjudicate_refuses_an_overflowed_log() -> None:
    ruling, _ = judge(table_state(FREE), LEGAL_NO_POT, overflow=True)
    assert ruling.invalid == ["overflow"]


def test_adjudicate_batched_over_mixed_variants_matches_one_table_at_a_time() -> None:
    states, shots, records, singles = [], [], [], []
    cases = [
        (FREE, [("ball-ball", 0, 5), ("pocket", 5, "BL")]),
        (COMBINED, [("ball-ball", 0, 5), ("pocket", 0, "BR")]),
        (DYNAMIC, FAILS_G20),
        (CLASSIC, [("ball-ball", 0, 5), ("pocket", 5, "BL")]),
    ]
    for variant, events in cases:
        call = (5, 4) if variant == CLASSIC else None
        state = table_state(variant, call=call)
        record = ShotRecord(log_of([("strike", 0), *events]), snapshot_of(), state.positions)
        shot = st.shot(0)
        singles.append(adjudicate_one(state, shot, record, DIMS))
        states.append(state)
        shots.append(shot)
        records.append(record)
    verdicts, nexts = adjudicate(stack(states), stack(shots), stack(records), DIMS)
    for k, (ruling, after) in enumerate(singles):
        batched = vd.ruling(verdicts, k)
        assert (batched.legal, batched.fouls, batched.scored, batched.points) == (
            ruling.legal,
            ruling.fouls,
            ruling.scored,
            ruling.points,
        )
        assert batched.decision == ruling.decision and batched.phase == ruling.phase
        assert set(batched.rules) <= set(ruling.rules)
        for a, b in zip(jax.tree_util.tree_leaves(after), jax.tree_util.tree_leaves(nexts), strict=True):
            assert np.array_equal(np.asarray(a), np.asarray(b)[k])


def test_default_decision_takes_the_eligible_ball_farthest_from_the_pockets_and_option_1() -> None:
    _, pending = judge(table_state(COMBINED), FAILS_G20)
    d = default_decision(pending, DIMS)
    eligible = np.asarray(eligible_balls(pending))
    assert not eligible[0] and eligible[1:].all()  # COMB: never the coloured ball
    assert int(d.option) == 0
    xy = np.asarray(pending.positions)
    pockets = np.array([[0, 0], [W, 0], [0, L / 2], [W, L / 2], [0, L], [W, L]])
    distance = np.linalg.norm(xy[:, None] - pockets[None], axis=-1).min(axis=1)
    distance[~eligible] = -1
    assert int(d.ball) == int(np.argmax(distance))
    decided = auto_decide(stack([pending, table_state(FREE)]), DIMS)
    assert list(np.asarray(decided.phase)) == [st.NORMAL, st.NORMAL]
    assert int(decided.shelf[0, int(d.ball)]) == 1


def test_G26_slow_play_45_s_clock_and_extensions() -> None:
    assert slow_play(44.0, 1, False) == (False, 1)
    assert slow_play(46.0, 1, False) == (True, 1)  # a foul: declared as "slow-play"
    assert slow_play(80.0, 1, True) == (False, 0)  # one more 45 s when asked for
    assert slow_play(80.0, 0, True) == (True, 0)  # none left
    assert extensions_for_match(False) == 1 and extensions_for_match(True) == 2


def test_a_tables_memory_floor_is_what_one_move_holds_per_table() -> None:
    # `memory.TABLE_BYTES` refuses a game or table count up front (`eval --games`, `train
    # --tables`): it must be what `game.play` really holds per table, never more.
    def held(batch: int) -> int:
        def one_move() -> Any:
            keys = jax.random.split(jax.random.PRNGKey(0), batch)
            states = st.new_games(jnp.zeros(batch, jnp.int32), keys, jnp.zeros(batch, jnp.int32))
            return play(states, move(ball=jnp.zeros(batch, jnp.int32)), keys, 0.0)

        leaves = jax.tree_util.tree_leaves(jax.eval_shape(one_move))
        return sum(int(np.prod(x.shape)) * x.dtype.itemsize for x in leaves)

    assert held(1) == memory.TABLE_BYTES and held(100) == 100 * memory.TABLE_BYTES
