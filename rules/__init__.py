"""piramida.rules: the referee of the four Russian pyramid variants, batched in JAX.

Every rule it applies cites its number from `docs/rules/specification.md` (G20(2.1),
FREE-5.2, CLS-5.7 ...).

The submodules `respot` and `shot_facts` keep their names (their functions are not
re-exported here, so that `from piramida.rules import respot` is the module).
"""

from piramida.rules.decisions import (
    Decision,
    auto_decide,
    decide,
    decide_batch,
    decide_one,
    default_decision,
    eligible_balls,
    slow_play,
)
from piramida.rules.match import MatchRecord, load, loads, replay
from piramida.rules.placement import default_placement, placement_ok
from piramida.rules.racking import rack
from piramida.rules.referee import ShotRecord, adjudicate, adjudicate_one, adjudicate_table, record_of
from piramida.rules.shot_facts import ShotFacts, explain
from piramida.rules.state import (
    DECISION_NAMES,
    DEFAULT_DIMS,
    OPTION_NAMES,
    PHASE_NAMES,
    Dims,
    GameState,
    Shot,
    hand_region,
    new_game,
    new_games,
    next_frame,
    shot,
    start_balls,
    with_call,
)
from piramida.rules.verdict import FOUL_NAMES, RULE_IDS, Ruling, Verdict, ruling

__all__ = [
    "DECISION_NAMES",
    "DEFAULT_DIMS",
    "FOUL_NAMES",
    "OPTION_NAMES",
    "PHASE_NAMES",
    "RULE_IDS",
    "Decision",
    "Dims",
    "GameState",
    "MatchRecord",
    "Ruling",
    "Shot",
    "ShotFacts",
    "ShotRecord",
    "Verdict",
    "adjudicate",
    "adjudicate_one",
    "adjudicate_table",
    "auto_decide",
    "decide",
    "decide_batch",
    "decide_one",
    "default_decision",
    "default_placement",
    "eligible_balls",
    "explain",
    "hand_region",
    "load",
    "loads",
    "new_game",
    "new_games",
    "next_frame",
    "placement_ok",
    "rack",
    "record_of",
    "replay",
    "ruling",
    "shot",
    "slow_play",
    "start_balls",
    "with_call",
]
