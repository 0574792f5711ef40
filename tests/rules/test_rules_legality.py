"""Shot facts and legality from hand-written event logs: G5.3, G12.1, G19.2-N, G20, G22, G24.

Each test is named after the rule it checks and pairs a log where the rule applies with
one where it just fails to. No physics kernel runs here; the logs are written the way
the kernel writes them (see `rules_logs`). Ball 0 is the own ball unless said otherwise;
balls 1-15 are the object balls (and, on a break, the pyramid).
"""

from __future__ import annotations

from functools import partial
from typing import Any

import jax
import numpy as np
import pytest
from helpers.log_reader import assert_same_facts, kernel_facts
from helpers.rules_logs import declared_of, log_of, mask_of, snapshot_of, stack

from piramida.rules.shot_facts import ShotFacts, explain, shot_facts

OBJECTS = mask_of(range(1, 16))
OPTIONS = ("cushion_identity", "causal_chain", "break_cross_ball_distinct", "same_collision_s")


@partial(jax.jit, static_argnames=OPTIONS)
def _facts(
    log: Any, start: Any, own: Any, objects: Any, pyramid: Any, is_break: Any, declared: Any, **options: Any
) -> Any:
    return shot_facts(log, start, own, objects, pyramid, is_break, None, declared, **options)


def facts(
    events: list[tuple[Any, ...]],
    *,
    own: int = 0,
    objects: Any = OBJECTS,
    start: Any = None,
    is_break: bool = False,
    declared: dict[int, str] | None = None,
    overflow: bool = False,
    **options: Any,
) -> ShotFacts:
    """Facts of one hand-written shot (the pyramid is the object balls).

    At the referee's defaults (no options, every frozen ball declared) the kernel's own
    reading of the same log (`physics.engine.facts`) must give the same facts, field by field.
    """
    start = snapshot_of() if start is None else start
    declared_array = None if declared is None else declared_of(declared)
    log = log_of([("strike", own), *events], overflow=overflow)
    found = _facts(log, start, own, objects, objects, is_break, declared_array, **options)
    if not options and declared is None:
        # The referee's pyramid: the object balls on a break, none otherwise (S-7).
        as_referee = _facts(log, start, own, objects, objects & is_break, is_break, None)
        assert_same_facts(as_referee, kernel_facts(log, start, own, objects, is_break))
    return found


def g20(events: list[tuple[Any, ...]], **kwargs: Any) -> dict[str, bool]:
    """The G20 clauses that hold, by field name."""
    f = facts(events, **kwargs)
    names = ("g20_1", "g20_2_1", "g20_2_2", "g20_2_3", "g20_3_1", "g20_3_2", "g20_3_3", "g20_4_1", "g20_4_2")
    return {name: bool(getattr(f, name)) for name in names if bool(getattr(f, name))}


# --- G5.3, G19.2-N: the first contact -------------------------------------------------


def test_g5_3_own_ball_touching_nothing_is_a_foul() -> None:
    f = facts([("cushion", 0, "back"), ("centre-line", 0, -1), ("cushion", 0, "front")])
    assert not f.hit and int(f.first_contact) == -1
    assert int(f.own_cushions_before_contact) == 2
    assert not f.g20_legal and not f.legal
    assert explain(f) == ["foul G5.3"]


def test_g5_3_first_object_ball_touched_is_the_first_contact() -> None:
    f = facts([("cushion", 0, "LF"), ("ball-ball", 0, 7), ("ball-ball", 0, 3)])
    assert f.hit and int(f.first_contact) == 7 and int(f.first_contact_index) == 2
    assert int(f.own_cushions_before_contact) == 1
    # The log may list the own ball second: a contact is a contact either way.
    f = facts([("ball-ball", 3, 9)], own=9)
    assert f.hit and int(f.first_contact) == 3


def test_g5_3_a_ball_that_is_not_an_object_ball_is_no_contact() -> None:
    f = facts([("ball-ball", 0, 7)], objects=mask_of([3]))
    assert not f.hit
    f = facts([("ball-ball", 0, 7), ("ball-ball", 0, 3)], objects=mask_of([3]))
    assert f.hit and int(f.first_contact) == 3


def test_g19_2_n_frozen_partner_is_no_contact() -> None:
    # Own ball 0 frozen to 3: touching only 3 is a foul (G19.2-N -> G5.3, A-20) ...
    start = snapshot_of(touching=[(0, 3)])
    f = facts([("ball-ball", 0, 3), ("cushion", 3, "back"), ("cushion", 3, "LB")], start=start)
    assert not f.hit and f.frozen_partner_contact
    assert np.flatnonzero(f.frozen_partners).tolist() == [3]
    assert explain(f) == ["foul G5.3 (G19.2-N)"]
    # ... touching another ball is the contact, and what 3 did before it does not count (A-17(1)).
    f = facts(
        [("ball-ball", 0, 3), ("cushion", 3, "back"), ("cushion", 3, "LB"), ("ball-ball", 0, 4)],
        start=start,
    )
    assert f.hit and int(f.first_contact) == 4 and not f.g20_legal
    assert explain(f) == ["G5.3", "foul G20"]


def test_g19_2_n_partners_of_other_balls_do_not_matter() -> None:
    start = snapshot_of(touching=[(5, 3)])
    f = facts([("ball-ball", 0, 3)], start=start)
    assert f.hit and int(f.first_contact) == 3 and not np.any(f.frozen_partners)


# --- G22, G24: pockets and jumped balls ----------------------------------------------


def test_g22_pocketed_balls_and_their_pockets() -> None:
    f = facts([("ball-ball", 0, 5), ("pocket", 5, "ML"), ("pocket", 0, "front-right")])
    assert np.flatnonzero(f.pocketed).tolist() == [0, 5]
    assert int(f.pocket_of[5]) == 2 and int(f.pocket_of[0]) == 1 and int(f.pocket_of[7]) == -1


def test_g24_off_table_ball_is_jumped_and_a_foul() -> None:
    legal = [("ball-ball", 0, 5), ("pocket", 5, "BL")]
    f = facts(legal)
    assert f.legal and not np.any(f.jumped)
    f = facts([*legal, ("off-table", 0), ("off-table", 9)])
    assert np.flatnonzero(f.jumped).tolist() == [0, 9]
    assert f.g20_legal and not f.legal
    assert explain(f) == ["G5.3", "G20(1)", "foul G24.3 (balls 0, 9)"]


def test_overflowed_log_is_never_legal() -> None:
    f = facts([("ball-ball", 0, 5), ("pocket", 5, "BL")], overflow=True)
    assert f.g20_legal and f.overflow and not f.legal
    assert explain(f)[0].startswith("foul: log overflow")


# --- G12.1: the break ----------------------------------------------------------------


def test_g12_1_1_a_pocketed_ball_makes_the_break_legal() -> None:
    f = facts([("ball-ball", 0, 1), ("pocket", 9, "BR")], is_break=True)
    assert f.g12_1_1 and f.break_legal and f.legal
    assert explain(f) == ["G5.3", "G12.1(1)"]
    f = facts([("ball-ball", 0, 1), ("cushion", 9, "back")], is_break=True)
    assert not f.g12_1_1 and not f.break_legal and not f.legal
    assert explain(f) == ["G5.3", "foul G12.1"]


def test_g12_1_1_the_own_ball_pocketed_counts() -> None:
    # "any of the balls" includes the own ball (the variant then rules on it).
    f = facts([("ball-ball", 0, 1), ("pocket", 0, "FL")], is_break=True)
    assert f.g12_1_1 and f.break_legal


def test_g12_1_2_three_distinct_pyramid_balls_at_cushions() -> None:
    three = [("ball-ball", 0, 1), ("cushion", 4, "LB"), ("cushion", 11, "RB"), ("jaw", 7, "BL")]
    f = facts(three, is_break=True)
    assert f.g12_1_2 and f.break_legal
    assert np.flatnonzero(f.cushion_balls).tolist() == [4, 7, 11]
    # Two balls, one of them at three cushions, and the own ball at a cushion: two balls.
    two = [
        ("ball-ball", 0, 1),
        ("cushion", 4, "LB"),
        ("cushion", 11, "RB"),
        ("cushion", 11, "back"),
        ("cushion", 11, "LB"),
        ("cushion", 0, "front"),
    ]
    f = facts(two, is_break=True)
    assert not f.g12_1_2 and not f.break_legal


def test_g12_1_3_two_cushion_balls_and_a_crossing() -> None:
    two = [("ball-ball", 0, 1), ("cushion", 4, "LB"), ("cushion", 11, "RB")]
    f = facts(two, is_break=True)
    assert not f.g12_1_3 and not f.break_legal
    f = facts([*two, ("centre-line", 6, "back-to-front")], is_break=True)
    assert f.g12_1_3 and f.break_legal and f.legal
    assert explain(f) == ["G5.3", "G12.1(3)"]


def test_g12_1_3_the_own_ball_crossing_does_not_count() -> None:
    two = [("ball-ball", 0, 1), ("cushion", 4, "LB"), ("cushion", 11, "RB")]
    f = facts([*two, ("centre-line", 0, "front-to-back")], is_break=True)
    assert not f.g12_1_3


def test_g12_1_3_the_crossing_ball_may_be_a_cushion_ball() -> None:
    # "at least one ball from the pyramid"; a third ball only with the option.
    events = [("ball-ball", 0, 1), ("cushion", 4, "LB"), ("cushion", 11, "RB"), ("centre-line", 4, -1)]
    assert facts(events, is_break=True).g12_1_3
    assert not facts(events, is_break=True, break_cross_ball_distinct=True).g12_1_3
    events.append(("centre-line", 6, -1))
    assert facts(events, is_break=True, break_cross_ball_distinct=True).g12_1_3


def test_g12_1_3_g20_n4_middle_jaw_is_a_crossing_corner_jaw_is_not() -> None:
    two = [("ball-ball", 0, 1), ("cushion", 4, "LB")]
    f = facts([*two, ("jaw", 11, "MR")], is_break=True)
    assert f.g12_1_3 and bool(f.crossing_balls[11])
    f = facts([*two, ("jaw", 11, "BR")], is_break=True)
    assert not f.g12_1_3 and not f.break_legal and not bool(f.crossing_balls[11])


def test_g12_1_only_events_after_the_first_pyramid_contact_count() -> None:
    # III.6, A-21: the log order decides, not the event kinds.
    before = [("cushion", 4, "LB"), ("cushion", 11, "RB"), ("cushion", 7, "back"), ("pocket", 9, "BL")]
    f = facts([*before, ("ball-ball", 0, 1)], is_break=True)
    assert int(f.break_contact) == 1 and not f.break_legal
    f = facts([("ball-ball", 0, 1), *before], is_break=True)
    assert f.g12_1_1 and f.g12_1_2


def test_g12_1_break_without_a_pyramid_contact_is_a_g5_3_foul() -> None:
    f = facts([("cushion", 0, "back"), ("cushion", 0, "front")], is_break=True)
    assert not f.hit and int(f.break_contact) == -1 and not f.break_legal
    assert explain(f) == ["foul G5.3"]


# --- G20: legally completed shot -----------------------------------------------------


def test_g20_1_a_ball_pocketed_after_the_contact() -> None:
    assert g20([("ball-ball", 0, 5), ("pocket", 5, "FL")]) == {"g20_1": True}
    # A frozen partner pushed in before the own ball's contact does not count (A-17(1)).
    start = snapshot_of(touching=[(0, 3)])
    f = facts([("ball-ball", 0, 3), ("pocket", 3, "ML"), ("ball-ball", 0, 5)], start=start)
    assert bool(f.pocketed[3]) and not f.g20_1 and not f.g20_legal


def test_g20_2_and_3_lead_ins_alone_are_not_enough() -> None:
    # "rebounds off any cushion and ..." / "crosses the middle line and ...": the lead-in
    # alone is no clause.
    f = facts([("ball-ball", 0, 5), ("cushion", 5, "back"), ("centre-line", 0, -1)])
    assert f.g20_2 and f.g20_3 and not f.g20_legal
    assert explain(f) == ["G5.3", "foul G20"]
    f = facts([("ball-ball", 0, 5)])
    assert not f.g20_2 and not f.g20_3


def test_g20_2_1_two_cushions_by_the_same_ball() -> None:
    assert g20([("ball-ball", 0, 5), ("cushion", 5, "back"), ("cushion", 5, "LB")]) == {"g20_2_1": True}
    assert g20([("ball-ball", 0, 5), ("cushion", 5, "back")]) == {}
    # The same cushion twice, or two balls with one cushion each, are not "another cushion".
    assert g20([("ball-ball", 0, 5), ("cushion", 5, "back"), ("cushion", 5, "back")]) == {}
    assert g20([("ball-ball", 0, 5), ("cushion", 5, "back"), ("cushion", 0, "LB")]) == {}


def test_g20_2_1_the_own_ball_counts() -> None:
    # A-17(3): "any of the balls" includes the own ball.
    f = facts([("ball-ball", 0, 5), ("cushion", 0, "RF"), ("cushion", 0, "front")])
    assert f.g20_2_1 and f.legal
    assert explain(f) == ["G5.3", "G20(2.1)"]


def test_g20_2_1_a16_jaws_belong_to_their_segments() -> None:
    # A jaw of BL may be the back cushion's rubber: not certainly another cushion.
    assert g20([("ball-ball", 0, 5), ("cushion", 5, "back"), ("jaw", 5, "BL")]) == {}
    assert g20([("ball-ball", 0, 5), ("cushion", 5, "back"), ("jaw", 5, "FL")]) == {"g20_2_1": True}
    # A rattle between the jaws of one pocket is one cushion piece.
    assert g20([("ball-ball", 0, 5), ("jaw", 5, "FR"), ("jaw", 5, "FR")]) == {}


def test_g20_2_1_a16_segment_or_side() -> None:
    events = [("ball-ball", 0, 5), ("cushion", 5, "LF"), ("cushion", 5, "LB")]
    assert g20(events) == {"g20_2_1": True}
    assert g20(events, cushion_identity="side") == {}


def test_g20_2_2_rebound_then_moves_a_ball_onto_a_cushion() -> None:
    rebound = [("ball-ball", 0, 5), ("cushion", 5, "back"), ("ball-ball", 5, 8)]
    assert g20([*rebound, ("cushion", 8, "RB")]) == {"g20_2_2": True}
    # Moving 8 before the rebound is the wrong order (A-17(2)).
    assert g20([("ball-ball", 0, 5), ("ball-ball", 5, 8), ("cushion", 5, "back"), ("cushion", 8, "RB")]) == {}


def test_g20_2_2_a17_4_the_moved_ball_reaches_the_cushion_directly() -> None:
    # 8 meets 9 before reaching a cushion: not "so that the latter touches" (default `direct`).
    events = [
        ("ball-ball", 0, 5),
        ("cushion", 5, "back"),
        ("ball-ball", 5, 8),
        ("ball-ball", 8, 9),
        ("cushion", 8, "RB"),
    ]
    assert g20(events) == {}
    assert g20(events, causal_chain="any_later") == {"g20_2_2": True}


def test_g20_2_3_rebound_then_touches_a_ball_touching_a_cushion() -> None:
    touching = {"touching": {8: "RB"}}
    assert g20([("ball-ball", 0, 5), ("cushion", 5, "back"), ("ball-ball", 5, 8, touching)]) == {
        "g20_2_3": True
    }
    assert g20([("ball-ball", 0, 5), ("cushion", 5, "back"), ("ball-ball", 5, 8)]) == {}
    # Touching the frozen ball before the rebound: wrong order.
    assert g20([("ball-ball", 0, 5), ("ball-ball", 5, 8, touching), ("cushion", 5, "back")]) == {}


def test_g20_3_1_crosses_then_touches_a_cushion() -> None:
    assert g20([("ball-ball", 0, 5), ("centre-line", 5, 1), ("cushion", 5, "back")]) == {"g20_3_1": True}
    assert g20([("ball-ball", 0, 5), ("centre-line", 5, 1)]) == {}
    # Another ball's cushion does not complete 5's crossing.
    assert g20([("ball-ball", 0, 5), ("centre-line", 5, 1), ("cushion", 0, "front")]) == {}


def test_g20_3_2_crosses_then_moves_a_ball_onto_a_cushion() -> None:
    crossed = [("ball-ball", 0, 5), ("centre-line", 5, 1), ("ball-ball", 5, 8)]
    assert g20([*crossed, ("cushion", 8, "RB")]) == {"g20_3_2": True}
    assert g20([*crossed, ("centre-line", 8, -1)]) == {}


def test_g20_3_3_crosses_then_touches_a_ball_touching_a_cushion() -> None:
    touching = {"touching": {8: "back"}}
    assert g20([("ball-ball", 0, 5), ("centre-line", 5, 1), ("ball-ball", 5, 8, touching)]) == {
        "g20_3_3": True
    }
    assert g20([("ball-ball", 0, 5), ("ball-ball", 5, 8, touching), ("centre-line", 5, 1)]) == {}


def test_g20_4_1_rebounds_then_crosses() -> None:
    assert g20([("ball-ball", 0, 5), ("cushion", 5, "front"), ("centre-line", 5, 1)]) == {"g20_4_1": True}
    # Crossing first is (3.1), not (4.1): the order is as written (A-17(2)).
    assert g20([("ball-ball", 0, 5), ("centre-line", 5, 1), ("cushion", 5, "back")]) == {"g20_3_1": True}


def test_g20_4_2_rebounds_then_moves_a_ball_across_the_line() -> None:
    rebound = [("ball-ball", 0, 5), ("cushion", 5, "back"), ("ball-ball", 5, 8)]
    assert g20([*rebound, ("centre-line", 8, -1)]) == {"g20_4_2": True}
    assert g20([*rebound, ("ball-ball", 8, 9), ("centre-line", 8, -1)]) == {}


def test_g20_a17_1_events_before_the_first_contact_do_not_count() -> None:
    before = [("cushion", 0, "front"), ("centre-line", 0, 1), ("cushion", 0, "back")]
    f = facts([*before, ("ball-ball", 0, 5)])
    assert f.hit and not f.g20_2 and not f.g20_3 and not f.g20_legal
    assert int(f.own_cushions_before_contact) == 2
    f = facts([("ball-ball", 0, 5), *before])
    assert f.g20_2_1 and f.g20_3_1 and f.g20_4_1 and f.g20_legal


def test_g20_n2_two_separate_collisions_need_no_declaration() -> None:
    # N2 (a): 0 hits 5, frozen on the back cushion; 5 comes off it and hits 0 again; 0
    # crosses the line. Legal without any declaration: plain G20(4.2).
    start = snapshot_of(frozen={5: "back"})
    events = [
        ("ball-ball", 0, 5, {"touching": {5: "back"}}),
        ("cushion", 5, "back"),
        ("ball-ball", 0, 5),
        ("centre-line", 0, -1),
    ]
    f = facts(events, start=start, declared={})
    assert f.g20_4_2 and not f.g20_n2_declared and f.legal


def test_g20_n2_a_burst_of_contacts_is_one_collision() -> None:
    # The kernel's log of the own ball driven into a frozen ball: contact, the frozen ball
    # pressed into the cushion, contact again, all at one instant. One collision, so only
    # a declaration makes the own ball's crossing count (N2, second sentence).
    start = snapshot_of(frozen={5: "back"})
    t = 0.3845174125124994
    events = [
        ("ball-ball", 0, 5, {"t": t, "touching": {5: "back"}}),
        ("cushion", 5, "back", {"t": t}),
        ("ball-ball", 0, 5, {"t": t + 1e-16, "touching": {5: "back"}}),
        ("cushion", 5, "back", {"t": t + 2e-6}),
        ("centre-line", 0, -1, {"t": 1.2}),
    ]
    assert not facts(events, start=start, declared={}).g20_legal
    f = facts(events, start=start)
    assert f.g20_4_2 and f.g20_n2_declared and f.legal
    # Read as two collisions (a zero window), the same log is plain (4.2).
    f = facts(events, start=start, declared={}, same_collision_s=0.0)
    assert f.g20_4_2 and not f.g20_n2_declared


def test_g20_n2_declared_frozen_ball_with_one_collision() -> None:
    # N2 (b), A-18: one collision; 0 bounces back and crosses the line (4.2), or reaches
    # another cushion (2.2). Legal only if 5 was declared frozen (by default: auto).
    start = snapshot_of(frozen={5: "back"})
    hit = [("ball-ball", 0, 5, {"touching": {5: "back"}}), ("cushion", 5, "back")]
    for then, clause in ((("centre-line", 0, -1), "g20_4_2"), (("cushion", 0, "LF"), "g20_2_2")):
        f = facts([*hit, then], start=start)
        assert bool(getattr(f, clause)) and f.g20_n2_declared and f.legal, clause
        assert "G20-N2" in explain(f)
        f = facts([*hit, then], start=start, declared={5: "back"})
        assert f.legal, clause
        f = facts([*hit, then], start=start, declared={})
        assert not f.g20_legal and not f.legal, clause


def test_g20_n2_declaration_needs_the_ball_still_against_its_cushion() -> None:
    start = snapshot_of(frozen={5: "back"})
    moved_off: list[tuple[Any, ...]] = [("ball-ball", 0, 5), ("centre-line", 0, -1)]
    assert not facts(moved_off, start=start).g20_legal
    # Declared against another cushion than the one it touches: no N2 either.
    against: list[tuple[Any, ...]] = [("ball-ball", 0, 5, {"touching": {5: "back"}}), ("centre-line", 0, -1)]
    assert facts(against, start=start).g20_legal
    assert not facts(against, start=start, declared={5: "LB"}).g20_legal


def test_g20_n2_only_the_first_meeting_of_a_frozen_ball_presses_its_cushion() -> None:
    # 0 misses 5 (frozen on the back cushion) and hits 7 first; 7 then meets 5, still
    # against the back cushion, and 5's partner 7 rolls to a cushion. 5's first meeting is
    # after the first contact: it presses the cushion (A-18) and 7's cushion is (2.2).
    start = snapshot_of(frozen={5: "back"})
    for meeting in (
        ("ball-ball", 7, 5, {"touching": {5: "back"}}),
        ("ball-ball", 5, 7, {"touching": {5: "back"}}),
    ):
        meets_5 = [("ball-ball", 0, 7), meeting, ("cushion", 7, "LB")]
        f = facts(meets_5, start=start)
        assert f.g20_2_2 and f.g20_n2_declared
        # 5 met 9 before the first contact: its meeting with 7 is no longer its first, so
        # it presses nothing and 7's cushion proves nothing.
        f = facts([("ball-ball", 9, 5), *meets_5], start=start)
        assert not f.g20_2_2 and not f.g20_legal


def test_g20_n3_ball_starting_on_the_centre_line() -> None:
    # 7's centre is on the line: the kernel puts it in the half it heads for and logs no
    # crossing for leaving the line, so rolling off the line and back to a cushion is no
    # crossing ...
    start = snapshot_of(on_centre_line=[7])
    f = facts([("ball-ball", 0, 7), ("cushion", 7, "back")], start=start)
    assert not bool(f.crossing_balls[7]) and not f.g20_legal
    # ... but coming back over the line from the back half is: (4.1).
    f = facts([("ball-ball", 0, 7), ("cushion", 7, "back"), ("centre-line", 7, "back-to-front")], start=start)
    assert bool(f.crossing_balls[7]) and f.g20_4_1 and f.legal


def test_g20_n4_middle_jaw_rebound_is_a_crossing_corner_jaw_is_not() -> None:
    assert g20([("ball-ball", 0, 5), ("cushion", 5, "RF"), ("jaw", 5, "MR")]) == {"g20_4_1": True}
    assert g20([("ball-ball", 0, 5), ("cushion", 5, "RF"), ("jaw", 5, "FR")]) == {}
    assert g20([("ball-ball", 0, 5), ("jaw", 5, "ML"), ("cushion", 5, "back")]) == {
        "g20_2_1": True,
        "g20_3_1": True,
    }
    # One jaw contact is one event: not both the rebound and the crossing (G20-N1).
    assert g20([("ball-ball", 0, 5), ("jaw", 5, "ML")]) == {}


def test_explain_names_every_clause_that_holds() -> None:
    f = facts([("ball-ball", 0, 5), ("cushion", 5, "back"), ("centre-line", 5, -1), ("pocket", 5, "FL")])
    assert explain(f) == ["G5.3", "G20(1)", "G20(4.1)"]


# --- batching -------------------------------------------------------------------------


def test_jit_vmap_over_tables_equals_one_table_at_a_time() -> None:
    frozen = snapshot_of(frozen={5: "back"})
    cases: list[dict[str, Any]] = [
        {"events": [("cushion", 0, "back")]},
        {"events": [("ball-ball", 0, 5), ("cushion", 5, "back"), ("cushion", 5, "LB")]},
        {"events": [("ball-ball", 0, 1), ("cushion", 4, "LB"), ("jaw", 11, "MR")], "is_break": True},
        {"events": [("ball-ball", 0, 1), ("cushion", 4, "LB"), ("jaw", 11, "BR")], "is_break": True},
        {
            "events": [("ball-ball", 0, 5, {"touching": {5: "back"}}), ("centre-line", 0, -1)],
            "start": frozen,
            "declared": {5: "back"},
        },
        {"events": [("ball-ball", 0, 5, {"touching": {5: "back"}}), ("centre-line", 0, -1)], "start": frozen},
        {"events": [("ball-ball", 3, 9), ("pocket", 3, "ML"), ("off-table", 9)], "own": 9},
        {"events": [("ball-ball", 0, 3), ("ball-ball", 0, 4)], "start": snapshot_of(touching=[(0, 3)])},
    ]
    singles = []
    logs, starts, owns, breaks, declared = [], [], [], [], []
    for case in cases:
        own = case.get("own", 0)
        start = case.get("start", snapshot_of())
        frozen_decl = case.get("declared")
        # A batch carries one declared array per table: an undeclared table passes its snapshot's.
        decl = declared_of(frozen_decl) if frozen_decl is not None else start.cushion
        singles.append(
            facts(
                case["events"],
                own=own,
                start=start,
                is_break=case.get("is_break", False),
                declared=frozen_decl,
            )
        )
        logs.append(log_of([("strike", own), *case["events"]]))
        starts.append(start)
        owns.append(own)
        breaks.append(case.get("is_break", False))
        declared.append(decl)
    batched = jax.jit(jax.vmap(shot_facts))(
        stack(logs),
        stack(starts),
        stack(owns),
        stack([OBJECTS] * len(cases)),
        stack([OBJECTS] * len(cases)),
        stack(breaks),
        stack([3.55] * len(cases)),
        stack(declared),
    )
    for k, single in enumerate(singles):
        for name, value in vars(single).items():
            assert np.array_equal(np.asarray(getattr(batched, name))[k], np.asarray(value)), (k, name)
    assert [bool(x) for x in batched.legal] == [False, True, True, False, True, True, False, False]


@pytest.mark.parametrize("identity", ["segment", "side"])
def test_a16other_cushion_table_is_symmetric_and_never_the_same_piece(identity: str) -> None:
    from piramida.rules.shot_facts import other_cushion_table

    table = other_cushion_table(identity)
    assert table.shape == (12, 12) and np.array_equal(table, table.T) and not np.any(np.diag(table))
