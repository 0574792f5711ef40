"""Each variant's own rules (FREE, COMB, DYN, CLS), from hand-written event logs.

Named after the rule each checks; a case where it applies and one where it just fails
to. Ball 0 is the coloured ball; positions from `referee_helpers.grid_xy`.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers.referee_helpers import (
    CLASSIC,
    COMBINED,
    DYNAMIC,
    FAILS_G20,
    FREE,
    LEGAL_NO_POT,
    L,
    W,
    choose,
    judge,
    pocket,
    table_state,
)

from piramida.rules import ids
from piramida.rules import state as st

POT_5 = [("ball-ball", 0, 5), ("pocket", 5, "BL")]
POT_5_6 = [("ball-ball", 0, 5), ("ball-ball", 5, 6), ("pocket", 5, "BL"), ("pocket", 6, "BR")]
OWN_OFF_5 = [("ball-ball", 0, 5), ("cushion", 0, "LB"), ("pocket", 0, "BL")]  # own ball in off ball 5
BACK_SPOT = (W / 2, 3 * L / 4)


def score(state: st.GameState) -> list[int]:
    return [int(x) for x in np.asarray(state.score)]


# --- FREE PYRAMID -------------------------------------------------------------------------


def test_FREE_5_2_pot_keeps_turn() -> None:
    ruling, after = judge(table_state(FREE), POT_5_6)
    assert ruling.legal and ruling.scored == [5, 6] and ruling.points == (2, 0)
    assert ruling.next_player == 0 and {"FREE-5.2", "FREE-5.5", "FREE-6"} <= set(ruling.rules)
    assert [int(after.shelf[b]) for b in (5, 6)] == [0, 0]


def test_FREE_5_3_no_pot_passes_the_turn() -> None:
    ruling, _after = judge(table_state(FREE), LEGAL_NO_POT)
    assert (
        ruling.legal
        and ruling.next_player == 1
        and "FREE-5.3" in ruling.rules
        and "FREE-5.2" not in ruling.rules
    )


def test_FREE_5_4_the_own_ball_pocketed_off_an_object_ball_scores() -> None:
    ruling, after = judge(table_state(FREE), OWN_OFF_5, ball=0)
    assert ruling.legal and ruling.scored == [0] and ruling.next_player == 0 and "FREE-5.4" in ruling.rules
    assert int(after.shelf[0]) == 0 and not ruling.to_hand  # no ball in hand follows (IV.2)
    ruling, _ = judge(table_state(FREE), [("cushion", 0, "LB"), ("pocket", 0, "BL")])  # touched nothing
    assert not ruling.legal and ruling.respots.keys() == {0}


def test_FREE_7_penalty_ball_goes_to_the_opponent_and_is_his_point() -> None:
    ruling, after = judge(table_state(FREE), FAILS_G20)
    assert ruling.points == (0, 0) and ruling.takes_ball and "FREE-7" in ruling.rules
    after = choose(after, 0, 0)  # any ball, the coloured ball too, after the break (FREE-7)
    assert int(after.shelf[0]) == 1 and score(after) == [0, 1]


def test_FREE_8_every_illegally_pocketed_ball_is_spotted_the_own_ball_too() -> None:
    ruling, after = judge(table_state(FREE), [("pocket", 0, "BL"), ("pocket", 9, "BR")], ball=0)
    assert sorted(ruling.respots) == [0, 9] and "FREE-8" in ruling.rules
    assert bool(after.on_table[0]) and bool(after.on_table[9])


def test_FREE_1_eight_balls_win() -> None:
    state = table_state(FREE, shelves=([1, 2, 3, 4, 6, 7, 8], [9, 10]))
    ruling, after = judge(state, POT_5)
    assert (
        ruling.game_over and ruling.winner == 0 and int(after.phase) == st.OVER and "FREE-1" in ruling.rules
    )
    state = table_state(FREE, shelves=([1, 2, 3, 4, 6, 7], [9, 10]))
    ruling, _ = judge(state, POT_5)
    assert not ruling.game_over and ruling.next_player == 0


def test_FREE_1_a_penalty_ball_can_be_the_eighth() -> None:
    state = table_state(FREE, shelves=([9, 10], [1, 2, 3, 4, 6, 7, 8]))
    _, after = judge(state, FAILS_G20)
    after = choose(after, 0, 12)
    assert int(after.phase) == st.OVER and int(after.winner) == 1


# --- COMBINED PYRAMID ----------------------------------------------------------------------


def test_COMB_5_3_object_ball_pot_counts_and_keeps_the_turn() -> None:
    ruling, _ = judge(table_state(COMBINED), POT_5)
    assert ruling.legal and ruling.scored == [5] and ruling.next_player == 0 and "COMB-5.3" in ruling.rules
    ruling, _ = judge(table_state(COMBINED), LEGAL_NO_POT)
    assert ruling.legal and ruling.next_player == 1 and "A-32" in ruling.rules


def test_COMB_5_2_own_ball_pocketed_take_a_ball_then_play_from_the_house() -> None:
    ruling, after = judge(table_state(COMBINED), OWN_OFF_5)
    assert ruling.legal and ruling.scored == [] and ruling.to_hand == [0]  # COMB-6: not scored
    assert ruling.decision == "exchange" and ruling.next_player == 0 and ruling.takes_ball
    assert {"COMB-5.2", "A-09"} <= set(ruling.rules)
    after = choose(after, ball=11)
    assert int(after.shelf[11]) == 0 and score(after) == [1, 0]
    assert int(after.phase) == st.IN_HAND and int(st.hand_region(after)) == ids.HOUSE and int(after.turn) == 0
    ruling, _ = judge(after, LEGAL_NO_POT)  # G21.1: the from-hand shot, from the house
    assert ruling.legal and "G11.3" in ruling.rules


def test_COMB_5_2_own_ball_with_object_balls_all_count() -> None:
    ruling, _after = judge(table_state(COMBINED), [*POT_5, ("pocket", 0, "BR")])
    assert ruling.scored == [5] and ruling.decision == "exchange"


def test_COMB_7_own_ball_foul_penalty_ball_then_a_shot_from_the_house_no_hand_back() -> None:
    ruling, after = judge(table_state(COMBINED), [("cushion", 0, "LB"), ("pocket", 0, "BL")])
    assert ruling.fouls == ["no-contact"] and ruling.to_hand == [0] and not ruling.respots
    assert ruling.decision == "penalty-ball" and ruling.options == [] and ruling.next_player == 1
    assert {"COMB-7", "A-12"} <= set(ruling.rules)
    after = choose(after, ball=3)
    assert int(after.turn) == 1 and int(after.phase) == st.IN_HAND and score(after) == [0, 1]


def test_COMB_7_foul_with_the_own_ball_on_the_table_penalty_ball_and_G6() -> None:
    ruling, _after = judge(table_state(COMBINED), FAILS_G20)
    assert ruling.decision == "G6" and ruling.options == ["shoot", "hand-back"] and not ruling.to_hand


def test_COMB_1_eight_balls_win() -> None:
    state = table_state(COMBINED, shelves=([1, 2, 3, 4, 6, 7, 8], []))
    ruling, _ = judge(state, POT_5)
    assert ruling.game_over and ruling.winner == 0 and "COMB-1" in ruling.rules
    ruling, _ = judge(table_state(COMBINED, shelves=([1, 2, 3, 4, 6, 7], [])), POT_5)
    assert not ruling.game_over


# --- DYNAMIC PYRAMID -----------------------------------------------------------------------


def test_DYN_5_2_own_ball_pocketed_take_a_ball_then_play_from_anywhere_object_balls_only() -> None:
    ruling, after = judge(table_state(DYNAMIC), OWN_OFF_5)
    assert ruling.decision == "exchange" and ruling.to_hand == [0] and "DYN-5.2" in ruling.rules
    after = choose(after, ball=11)
    assert int(after.phase) == st.IN_HAND and int(after.region) == ids.ANYWHERE and bool(after.object_only)
    # From hand anywhere: in the back half, beyond the house (G21.2 does not apply, A-06).
    ruling, nxt = judge(after, POT_5, place=(W / 2, 3.2))
    assert ruling.legal and ruling.scored == [5] and ruling.next_player == 0
    assert not bool(nxt.object_only)


def test_DYN_5_2_own_ball_falling_on_the_restricted_shot_is_no_foul_and_passes_the_turn() -> None:
    state = table_state(DYNAMIC, phase=st.IN_HAND, region=ids.ANYWHERE, object_only=True)
    ruling, _after = judge(state, [*POT_5, ("pocket", 0, "BR")], place=(W / 2, 3.2))
    assert ruling.legal and ruling.scored == [5] and ruling.decision is None  # A-10(3), (4)
    assert ruling.next_player == 1 and ruling.phase == "in-hand" and ruling.region == "anywhere"
    assert {"DYN-5.2", "A-10"} <= set(ruling.rules)
    ruling, _ = judge(table_state(DYNAMIC), [*POT_5, ("pocket", 0, "BR")])  # not restricted
    assert ruling.decision == "exchange" and ruling.next_player == 0


def test_DYN_6_DYN_7_1_penalty_ball_and_play_on_from_the_position() -> None:
    ruling, after = judge(table_state(DYNAMIC), FAILS_G20)
    assert ruling.decision == "DYN-7" and ruling.options == ["existing-position", "from-hand"]
    after = choose(after, 0, 4)
    assert int(after.turn) == 1 and int(after.phase) == st.NORMAL and score(after) == [0, 1]
    assert not bool(after.object_only)


def test_DYN_7_2_penalty_ball_and_from_hand_anywhere_object_balls_only() -> None:
    _, after = judge(table_state(DYNAMIC), FAILS_G20)
    after = choose(after, 1, 4)
    assert int(after.phase) == st.IN_HAND and int(after.region) == ids.ANYWHERE
    assert bool(after.object_only) and not bool(after.on_table[0])


def test_DYN_7_own_ball_off_the_table_leaves_only_option_2() -> None:
    ruling, _after = judge(table_state(DYNAMIC), [*LEGAL_NO_POT, ("off-table", 0)])
    assert ruling.fouls == ["ball-off-table"] and ruling.options == ["from-hand"] and ruling.to_hand == [0]
    assert "A-11" in ruling.rules


def test_DYN_1_eight_balls_win() -> None:
    ruling, _ = judge(table_state(DYNAMIC, shelves=([1, 2, 3, 4, 6, 7, 8], [])), POT_5)
    assert ruling.game_over and ruling.winner == 0 and "DYN-1" in ruling.rules


# --- G22.3 with COMB-5.2 / DYN-5.2: a late foul after the own ball was pocketed legally -----

LATE_TOUCH = 1 << 11  # a ball touched after the shot ended (G17), declared after its end


@pytest.mark.parametrize("variant", [COMBINED, DYNAMIC])
def test_G22_3_a_late_foul_leaves_the_own_ball_legally_pocketed_and_its_exchange(variant: int) -> None:
    """G22.3: "Jeigu klaida buvo padaryta pasibaigus smūgiui, skiriama bauda, tačiau rutuliai
    įkritę iki smūgio pabaigos yra teisingai įmušti." The own ball fell before the end: the
    shooter takes his exchange ball (COMB-5.2, DYN-5.2), then the opponent his penalty ball
    and his choice (G6; DYN-7, whose option (1) needs the own ball on the table).
    """
    ruling, after = judge(table_state(variant), OWN_OFF_5, late=LATE_TOUCH)
    assert not ruling.legal and ruling.fouls == ["after-shot-end"] and ruling.to_hand == [0]
    assert ruling.decision == "exchange" and ruling.next_player == 0 and not ruling.respots
    name = "COMB" if variant == COMBINED else "DYN"
    assert {f"{name}-5.2", "A-09", "G22.3", f"{name}-7"} <= set(ruling.rules)
    assert "A-12" not in ruling.rules  # no own-ball foul (COMB-7: "įmuštas neteisingai")
    after = choose(after, ball=11)  # the exchange ball: the shooter's point
    assert score(after) == [1, 0] and int(after.phase) == st.DECISION and int(after.turn) == 1
    if variant == COMBINED:
        assert int(after.decision) == st.G6 and int(after.options) == 0b11
        shoots = choose(after, 0, 12)  # G6(1): the opponent plays from hand in the house
        assert score(shoots) == [1, 1] and int(shoots.turn) == 1 and int(shoots.phase) == st.IN_HAND
        assert int(shoots.region) == ids.HOUSE
        back = choose(after, 1, 12)  # G6(2): the shooter keeps his right to play from the house
        assert int(back.turn) == 0 and int(back.phase) == st.IN_HAND and int(back.region) == ids.HOUSE
    else:
        assert int(after.decision) == st.DYN7 and int(after.options) == 0b10
        shoots = choose(after, 1, 12)  # DYN-7(2): from hand anywhere, object balls only
        assert score(shoots) == [1, 1] and int(shoots.turn) == 1 and int(shoots.phase) == st.IN_HAND
        assert int(shoots.region) == ids.ANYWHERE and bool(shoots.object_only)
    ruling, _ = judge(table_state(variant), OWN_OFF_5)  # without the late foul: the exchange alone
    assert ruling.legal and ruling.decision == "exchange"


@pytest.mark.parametrize("variant", [COMBINED, DYNAMIC])
def test_G22_3_N_a_late_foul_after_the_exchange_ball_that_decides_the_frame_is_no_foul(variant: int) -> None:
    """G22.3 note: "Jeigu taisyklės buvo pažeistos pasibaigus partijai (t. y. pasibaigus
    paskutiniam smūgiui, per kurį buvo įmuštas paskutinis partijos rutulys), klaidos nėra, o
    partijos rezultato dėl to nesikeičia." The legal own-ball pot whose exchange ball is the
    shooter's eighth decides the frame, so a foul declared after it is none.
    """
    state = table_state(variant, shelves=([1, 2, 3, 4, 6, 7, 8], [9]))
    ruling, after = judge(state, OWN_OFF_5, late=LATE_TOUCH)
    assert ruling.legal and not ruling.fouls and ruling.decision == "exchange"
    assert {"G22.3-N", "A-31"} <= set(ruling.rules)
    after = choose(after, ball=11)
    assert int(after.phase) == st.OVER and int(after.winner) == 0 and score(after) == [8, 1]
    seventh = table_state(variant, shelves=([1, 2, 3, 4, 6, 7], [9]))  # the exchange is only his 7th
    ruling, _ = judge(seventh, OWN_OFF_5, late=LATE_TOUCH)
    assert not ruling.legal and ruling.fouls == ["after-shot-end"] and "G22.3-N" not in ruling.rules


# --- CLASSIC PYRAMID -----------------------------------------------------------------------


def test_CLS_5_3_called_ball_in_the_called_pocket_scores_with_the_others() -> None:
    state = table_state(CLASSIC, call=(5, pocket("BL")))
    ruling, after = judge(state, POT_5_6)
    assert ruling.legal and ruling.scored == [5, 6] and ruling.points == (11, 0) and ruling.next_player == 0
    assert {"CLS-5.2", "CLS-5.3", "CLS-5.1"} <= set(ruling.rules)
    assert int(after.call_ball) == -1  # a call is for one shot


def test_CLS_5_1_ball_1_is_worth_11() -> None:
    state = table_state(CLASSIC, call=(1, pocket("BL")))
    ruling, _ = judge(state, [("ball-ball", 0, 1), ("pocket", 1, "BL")])
    assert ruling.points == (11, 0)


def test_CLS_5_4_uncalled_ball_is_respotted_no_score_no_foul_turn_passes() -> None:
    state = table_state(CLASSIC, call=(6, pocket("BR")))
    ruling, _after = judge(state, POT_5)
    assert ruling.legal and ruling.scored == [] and ruling.points == (0, 0) and 5 in ruling.respots
    assert ruling.next_player == 1 and {"CLS-5.4", "CLS-6"} <= set(ruling.rules)


def test_CLS_5_2_called_ball_into_another_pocket_is_uncalled() -> None:
    state = table_state(CLASSIC, call=(5, pocket("BR")))
    ruling, _ = judge(state, POT_5)
    assert ruling.scored == [] and 5 in ruling.respots and "A-33" in ruling.rules


def test_CLS_5_2_no_call_nothing_scores() -> None:
    ruling, _ = judge(table_state(CLASSIC), POT_5)
    assert ruling.legal and ruling.scored == [] and 5 in ruling.respots


def test_CLS_5_2_a_call_of_a_ball_not_on_the_table_is_refused() -> None:
    state = table_state(CLASSIC, shelves=([5], []), call=(5, pocket("BL")))
    ruling, _ = judge(state, [*LEGAL_NO_POT[:0], ("ball-ball", 0, 6), ("pocket", 6, "BL")])
    assert ruling.invalid == ["call"]


def test_CLS_5_1_the_last_ball_on_the_table_earns_10_more() -> None:
    shelves = ([1, 2, 3, 4, 6, 7, 8], [9, 10, 11, 12, 13, 14, 15])
    state = table_state(CLASSIC, shelves=shelves, scores=[30, 40], call=(5, pocket("BL")))
    ruling, _after = judge(state, POT_5)
    assert ruling.points == (15, 0) and "A-14" in ruling.rules
    state = table_state(
        CLASSIC, shelves=(shelves[0][1:], shelves[1]), scores=[30, 40], call=(5, pocket("BL"))
    )
    ruling, _ = judge(state, POT_5)
    assert ruling.points == (5, 0) and "A-14" not in ruling.rules


def test_CLS_5_5_own_ball_pocketed_is_a_foul_and_the_opponent_plays_from_the_house() -> None:
    state = table_state(CLASSIC, scores=[20, 20], call=(5, pocket("BL")))
    ruling, _after = judge(state, [*POT_5, ("pocket", 0, "BR")])
    assert ruling.fouls == ["own-ball-pocketed"] and ruling.points == (-5, 5) and 5 in ruling.respots
    assert ruling.decision is None and ruling.next_player == 1 and ruling.phase == "in-hand"
    assert ruling.region == "house" and {"CLS-5.5", "CLS-5.6", "G21.1"} <= set(ruling.rules)
    ruling, _ = judge(state, [*LEGAL_NO_POT, ("off-table", 0)])
    assert "own-ball-off-table" in ruling.fouls and ruling.phase == "in-hand"


def test_CLS_5_6_a_foul_moves_5_points_and_offers_G6_without_a_ball() -> None:
    state = table_state(CLASSIC, scores=[3, 0])
    ruling, after = judge(state, FAILS_G20)
    assert ruling.points == (-5, 5) and score(after) == [-2, 5]  # negative allowed
    assert ruling.decision == "G6" and not ruling.takes_ball and "A-05" in ruling.rules


def test_CLS_1_71_points_win_70_do_not() -> None:
    shelves = ([1, 2, 3, 4], [9, 10, 11, 12])
    state = table_state(CLASSIC, shelves=shelves, scores=[66, 42], call=(5, pocket("BL")))
    ruling, _ = judge(state, POT_5)
    assert ruling.game_over and ruling.winner == 0 and "CLS-1" in ruling.rules
    state = table_state(CLASSIC, shelves=shelves, scores=[65, 42], call=(5, pocket("BL")))
    ruling, _ = judge(state, POT_5)
    assert not ruling.game_over and ruling.next_player == 0


def test_CLS_1_points_from_the_opponents_foul_win_too() -> None:
    state = table_state(CLASSIC, shelves=([1, 2, 3, 4], [9, 10, 11, 12]), scores=[30, 66])
    ruling, _ = judge(state, FAILS_G20)
    assert ruling.game_over and ruling.winner == 1
    state = table_state(CLASSIC, shelves=([1, 2, 3, 4], [9, 10, 11, 12]), scores=[30, 65])
    ruling, _ = judge(state, FAILS_G20)
    assert not ruling.game_over


def _last_two(score_before: tuple[int, int]) -> st.GameState:
    """Classic with balls 5 and 6 left on the table, 5 called into BL."""
    others = [b for b in range(1, 16) if b not in (5, 6)]
    state = table_state(
        CLASSIC, shelves=(others[:7], others[7:]), scores=list(score_before), call=(5, pocket("BL"))
    )
    return state


def test_CLS_5_7_playoff() -> None:
    # 49 + 5 + 6 + 10 = 70 : 70. The last ball pocketed (6) goes back on the back spot,
    # a lot picks who plays, from hand in the house; scores stay 70:70.
    state = _last_two((49, 70))
    ruling, after = judge(state, POT_5_6)
    assert ruling.points == (21, 0) and not ruling.game_over and ruling.playoff
    assert ruling.respots == {6: pytest.approx(BACK_SPOT)} and score(after) == [70, 70]
    assert int(after.shelf[6]) == -1 and ruling.phase == "in-hand" and ruling.region == "house"
    assert ruling.to_hand == [0] and {"CLS-5.7", "A-15"} <= set(ruling.rules)
    # The shoot-out ends with the first pot (a win) or a foul (the opponent to 75).
    shooter = int(after.turn)
    called = st.with_call(after, 6, pocket("BR"))
    won, _ = judge(called, [("ball-ball", 0, 6), ("pocket", 6, "BR")])
    assert won.game_over and won.winner == shooter
    lost, _ = judge(called, [("cushion", 0, "back")])
    assert lost.game_over and lost.winner == 1 - shooter
    missed, nxt = judge(called, [("ball-ball", 0, 6), ("cushion", 6, "LB"), ("cushion", 6, "back")])
    assert not missed.game_over and missed.next_player == 1 - shooter and bool(nxt.playoff)
    # 71 : 69 is no tie: the frame is over.
    ruling, _ = judge(_last_two((50, 69)), POT_5_6)
    assert ruling.game_over and ruling.winner == 0 and not ruling.playoff


def test_CLS_failed_break_penalty_and_G12_2() -> None:
    game = st.new_game(CLASSIC, __import__("jax").random.PRNGKey(0), 0)
    game = st.with_call(game, 4, pocket("BL"))
    ruling, _ = judge(game, [("ball-ball", 0, 4), ("cushion", 2, "back")])
    assert ruling.fouls == ["failed-break"] and ruling.points == (-5, 5) and ruling.decision == "G12.2"
    assert not ruling.takes_ball and "CLS-4" in ruling.rules


@pytest.mark.parametrize("variant", [FREE, COMBINED, DYNAMIC])
def test_A_13_score_is_the_shelf_count(variant: int) -> None:
    _, after = judge(table_state(variant, shelves=([1], [2])), POT_5)
    assert score(after) == [2, 1]


# --- The last object ball, pocketed and spotted again -------------------------------------

LAST_SHELVES = ([1, 2, 3, 4, 6, 7, 8], [9, 10, 11, 12, 13, 14, 15])  # ball 5 alone is left


def test_CLS_5_4_an_uncalled_last_ball_is_respotted_and_play_goes_on() -> None:
    """CLS-5.4: "Jeigu į kišenę krenta neužsakytas rutulys, tai jis yra išstatomas ir
    žaidimas tęsiamas atsižvelgiant į Bendrąsias piramidės taisykles." CLS-1: "Pirmam
    (ankščiau nei varžovas) surinkti 71 ar daugiau taškų."

    With one object ball left and nobody at 71, that ball pocketed without a call, or into
    another pocket than the one called, comes back and the frame goes on: no winner by
    the lead.
    """
    for call in ((5, pocket("BR")), None):
        state = table_state(CLASSIC, shelves=LAST_SHELVES, scores=[60, 50], call=call)
        ruling, after = judge(state, POT_5)
        assert ruling.legal and ruling.scored == [] and ruling.points == (0, 0), call
        assert 5 in ruling.respots and not ruling.game_over and ruling.winner is None, call
        assert ruling.phase == "normal" and ruling.next_player == 1, call
        assert bool(np.asarray(after.on_table)[5]) and int(after.phase) == st.NORMAL, call


def test_CLS_5_4_an_uncalled_pot_is_not_a_legal_pot_to_the_shelf() -> None:
    """G22.1: "Rutulys yra įmuštas teisingai, jeigu jis įkrito į kišenę po teisingo smūgio."
    G22.2: "Visi teisingai įmušti rutuliai yra išimami iš kišenių ir sustatomi ant
    specialių lentynų." CLS-5.4: an uncalled ball is spotted again, not put on a shelf, so
    its verdict cites neither; a called pot cites both.
    """
    ruling, _ = judge(table_state(CLASSIC, call=(5, pocket("BR"))), POT_5)
    assert 5 in ruling.respots and not {"G22.1", "G22.2"} & set(ruling.rules)
    ruling, _ = judge(table_state(CLASSIC, call=(5, pocket("BL"))), POT_5)
    assert ruling.scored == [5] and {"G22.1", "G22.2"} <= set(ruling.rules)


@pytest.mark.parametrize("variant", [FREE, COMBINED, DYNAMIC, CLASSIC])
def test_G22_3_the_last_ball_pocketed_in_a_foul_comes_back_and_the_frame_goes_on(variant: int) -> None:
    """G22.3: "Jeigu nuo smūgio pradžios iki pabaigos (žr. 14 punktą), buvo pažeista bent
    viena taisyklė, vadinasi, visi rutuliai yra įmušti neteisingai ir juos reikia sustatyti
    iš naujo." G25: they are spotted again.

    The last object ball pocketed in a shot with a (declared) foul is spotted again in
    every variant, and nobody wins by it: the frame goes on.
    """
    scores = [60, 50] if variant == CLASSIC else None
    state = table_state(variant, shelves=LAST_SHELVES, scores=scores, call=(5, pocket("BL")))
    ruling, after = judge(state, POT_5, declared=1 << 11)  # G17: a ball touched
    assert not ruling.legal and ruling.scored == [] and 5 in ruling.respots
    assert not ruling.game_over and ruling.winner is None
    assert bool(np.asarray(after.on_table)[5]) and int(after.phase) != st.OVER
