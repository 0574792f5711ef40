"""The referee's verdict on one shot: a batched pytree, and a readable one-table form.

`Verdict` is what `adjudicate` returns for every table of a batch (JAX arrays, fixed
shapes). `Ruling` is the same verdict for one table as plain Python, with names instead of
codes and the list of rule ids (docs/rules/specification.md) that decided it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from piramida.physics.table import POCKET_NAMES
from piramida.rules import ids
from piramida.rules import state as st

# Fouls, one bit each (a shot may break several rules; it draws one penalty, G29.2).
# name, rules cited when it happens.
FOULS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("no-contact", ("G5.1", "G5.3", "G29.1(1)")),  # 0
    ("failed-break", ("G12.1", "G29.1(2)")),  # 1
    ("not-completed", ("G20", "G29.1(9)")),  # 2
    ("house-ball-first", ("G21.2", "G21.3", "A-24")),  # 3
    ("ball-off-table", ("G24.1", "G24.3", "G29.1(10)")),  # 4
    ("own-ball-pocketed", ("CLS-5.5",)),  # 5
    ("own-ball-off-table", ("CLS-5.5",)),  # 6
    ("", ()),  # 7 (unused)
    # Fouls only a human match has: they enter as declared fouls (`Shot.declared`).
    ("early-stroke", ("G14.2", "G29.1(3)")),  # 8
    ("cue", ("G15", "G29.1(4)")),  # 9
    ("foot", ("G16", "G29.1(5)")),  # 10
    ("touch", ("G17", "G11.5", "G29.1(6)")),  # 11
    ("double-hit", ("G18", "G29.1(7)")),  # 12
    ("push", ("G19.1", "G19.2", "G29.1(8)")),  # 13
    ("slow-play", ("G26", "G29.1(11)")),  # 14
    ("interference", ("G28", "G29.1(12)")),  # 15
    ("after-shot-end", ("G22.3",)),  # 16: a declared foul committed after the shot ended
)
FOUL_NAMES: tuple[str, ...] = tuple(name for name, _ in FOULS)
NO_CONTACT, FAILED_BREAK, NOT_COMPLETED, HOUSE_FIRST, JUMPED, OWN_POCKETED, OWN_OFF = range(7)
DECLARED_FIRST, DECLARED_LAST = 8, 15
DECLARED_MASK = sum(1 << k for k in range(DECLARED_FIRST, DECLARED_LAST + 1))
LATE = 16
# Declared fouls by rule id, for input that names the rule rather than the foul.
DECLARED_BY_RULE: dict[str, int] = {
    rule: k for k in range(DECLARED_FIRST, DECLARED_LAST + 1) for rule in FOULS[k][1] if rule[0] == "G"
}

# Why `adjudicate` could not rule on a shot (bits); the next state is then the state before.
INVALID: tuple[tuple[str, str], ...] = (
    ("decision-pending", "a decision is pending: make it with `decide` before the next shot"),
    ("game-over", "the frame is over"),
    ("own-ball", "the struck ball may not be the own ball here (G4.2, G4.3, G11.2, FREE-2)"),
    ("placement", "the own ball was not placed correctly from hand (G10, G11.3, G21.2, A-25)"),
    ("call", "the Classic call names no object ball on the table or no pocket (CLS-5.2)"),
    ("overflow", "the event log overflowed: the shot is incomplete and cannot be judged"),
)
INVALID_NAMES: tuple[str, ...] = tuple(name for name, _ in INVALID)
BAD_PHASE, BAD_OVER, BAD_OWN, BAD_PLACE, BAD_CALL, BAD_OVERFLOW = range(6)

# Every rule id the referee cites (its `cited` vector is indexed by this tuple).
RULE_IDS: tuple[str, ...] = (
    # General rules
    "G4.1", "G4.2", "G4.3", "G4.4", "G5.1", "G5.3", "G6", "G6(1)", "G6(2)", "G8.1", "G8.2-N",
    "G10", "G11.2", "G11.3", "G11.5", "G12.1", "G12.1(1)", "G12.1(2)", "G12.1(3)", "G12.2",
    "G12.2(1)", "G12.2(2)", "G12.2(3)", "G12.2(4)", "G12.2-N", "G13", "G14.2", "G15", "G16",
    "G17", "G18", "G19.1", "G19.2", "G19.2-N", "G20", "G20(1)", "G20(2.1)", "G20(2.2)",
    "G20(2.3)", "G20(3.1)", "G20(3.2)", "G20(3.3)", "G20(4.1)", "G20(4.2)", "G20-N2", "G21.1",
    "G21.2", "G21.3", "G22.1", "G22.2",
    "G22.3", "G22.3-N", "G22.4", "G24.1", "G24.3", "G24.4", "G25.1", "G25.2", "G25.3", "G26",
    "G28", "G29.1(1)", "G29.1(2)", "G29.1(3)", "G29.1(4)", "G29.1(5)", "G29.1(6)",
    "G29.1(7)", "G29.1(8)", "G29.1(9)", "G29.1(10)", "G29.1(11)", "G29.1(12)", "G29.2",
    # Free
    "FREE-1", "FREE-4", "FREE-5.1", "FREE-5.2", "FREE-5.3", "FREE-5.4", "FREE-5.5",
    "FREE-5.6", "FREE-6", "FREE-7", "FREE-8",
    # Combined
    "COMB-1", "COMB-4", "COMB-5.1", "COMB-5.2", "COMB-5.3", "COMB-5.4", "COMB-6", "COMB-7",
    "COMB-8",
    # Dynamic
    "DYN-1", "DYN-4", "DYN-5.1", "DYN-5.2", "DYN-5.3", "DYN-5.4", "DYN-6", "DYN-7",
    "DYN-7(1)", "DYN-7(2)", "DYN-8",
    # Classic
    "CLS-1", "CLS-3", "CLS-4", "CLS-5.1", "CLS-5.2", "CLS-5.3", "CLS-5.4", "CLS-5.5",
    "CLS-5.6", "CLS-5.7", "CLS-5.8", "CLS-6",
    # Readings of the ambiguities (docs/rules/specification.md Part II)
    "A-05", "A-09", "A-10", "A-11", "A-12", "A-13", "A-14", "A-15", "A-21", "A-24", "A-30",
    "A-31", "A-32", "A-33",
)  # fmt: skip
RULE_INDEX: dict[str, int] = {rule: k for k, rule in enumerate(RULE_IDS)}


class Cites:
    """Collects (rule id, condition) pairs while a verdict is traced; `array()` gives (K,)."""

    def __init__(self) -> None:
        """An empty collection."""
        self._on: dict[int, Any] = {}

    def __call__(self, rule: str, condition: Any = True) -> None:
        """Cite `rule` where `condition` holds (a traced bool)."""
        k = RULE_INDEX[rule]  # a KeyError here is a typo in a rule id
        self._on[k] = self._on[k] | condition if k in self._on else condition

    def array(self) -> Any:
        """(len(RULE_IDS),) bool."""
        off = jnp.bool_(False)
        return jnp.stack([jnp.asarray(self._on.get(k, off), bool) for k in range(len(RULE_IDS))])


@jax.tree_util.register_dataclass
@dataclass(frozen=True)
class Verdict:
    """The ruling on one shot per table (leading axes are batch axes).

    Attributes:
      invalid: () bits of `INVALID`: the shot could not be judged (state left unchanged).
      legal: () no penalty (G22.1); False also when `invalid`.
      fouls: () bits of `FOULS` (one penalty however many, G29.2).
      scored: (16,) balls that went to the scorer's shelf (G22.2) and scored.
      scorer: () the shooter.
      points: (2,) change of each player's score from the shot itself (a penalty ball
        chosen in the decision that follows adds its point then, A-13).
      respot: (16,) balls spotted after the shot (G25.1); `respot_xy` (16, 2) where.
      to_hand: (16,) the own ball goes to hand (not spotted, A-30).
      next_player: () who moves next (shoots, or decides).
      phase: () the next phase (`state.PHASE_NAMES`); `region`: () its from-hand region.
      decision: () the pending decision (`state.DECISION_NAMES`); `options`: () its
        allowed options (bits); `takes_ball`: () it takes a ball from the table.
      object_only: () DYN-5.2 / DYN-7(2) restriction on the next shot.
      game_over: (); winner: () the winner or -1.
      playoff: () the Classic 70:70 shoot-out is on (CLS-5.7).
      cited: (len(RULE_IDS),) the rules that decided the verdict.

    """

    invalid: Any
    legal: Any
    fouls: Any
    scored: Any
    scorer: Any
    points: Any
    respot: Any
    respot_xy: Any
    to_hand: Any
    next_player: Any
    phase: Any
    region: Any
    decision: Any
    options: Any
    takes_ball: Any
    object_only: Any
    game_over: Any
    winner: Any
    playoff: Any
    cited: Any


def _bits(mask: int, names: tuple[str, ...]) -> list[str]:
    return [name for k, name in enumerate(names) if mask >> k & 1 and name]


def foul_rules(mask: int) -> list[str]:
    """Rule ids of the fouls in a foul bit mask, in `FOULS` order."""
    out: list[str] = []
    for k, (_, rules) in enumerate(FOULS):
        if mask >> k & 1:
            out.extend(r for r in rules if r not in out)
    return out


@dataclass
class Ruling:
    """One table's verdict in plain Python, with the rule ids that decided it."""

    valid: bool
    invalid: list[str]
    legal: bool
    fouls: list[str]
    foul_rules: list[str]
    scored: list[int]
    scorer: int
    points: tuple[int, int]
    respots: dict[int, tuple[float, float]]
    to_hand: list[int]
    next_player: int
    phase: str
    region: str | None
    decision: str | None
    options: list[str]
    takes_ball: bool
    object_only: bool
    game_over: bool
    winner: int | None
    playoff: bool
    rules: list[str]
    facts: list[str] = field(default_factory=list)
    call: tuple[int, str] | None = None

    def summary(self) -> str:
        """One line for a log or a terminal."""
        head = "invalid: " + ", ".join(self.invalid) if not self.valid else "legal" if self.legal else "foul"
        if self.fouls:
            head += f" ({', '.join(self.fouls)})"
        parts = [head]
        if self.scored:
            parts.append(f"scored {self.scored} by player {self.scorer}")
        if self.respots:
            parts.append(f"respot {sorted(self.respots)}")
        parts.append(f"points {list(self.points)}")
        if self.decision:
            parts.append(f"decision {self.decision} {self.options} by player {self.next_player}")
        else:
            parts.append(f"next: player {self.next_player} ({self.phase})")
        if self.game_over:
            parts.append(f"game over, winner {self.winner}")
        return "; ".join(parts) + " [" + ", ".join(self.rules) + "]"


def ruling(verdict: Verdict, index: int | None = None, facts_rules: list[str] | None = None) -> Ruling:
    """The readable form of one table's verdict (`index` picks a table of a batch)."""
    v = jax.tree_util.tree_map(np.asarray, verdict)
    if index is not None:
        v = jax.tree_util.tree_map(lambda x: x[index], v)
    invalid = int(v.invalid)
    valid = invalid == 0
    fouls = int(v.fouls)
    decision = int(v.decision)
    cited = [RULE_IDS[k] for k in np.flatnonzero(v.cited)]
    facts = list(facts_rules or [])
    rules = [*cited, *(r for r in facts if r not in cited)]
    phase = int(v.phase)
    region = phase in (st.BREAK, st.IN_HAND) or decision != st.NO_DECISION
    return Ruling(
        valid=valid,
        invalid=_bits(invalid, INVALID_NAMES),
        legal=bool(v.legal),
        fouls=_bits(fouls, FOUL_NAMES),
        foul_rules=foul_rules(fouls),
        scored=[int(b) for b in np.flatnonzero(v.scored)],
        scorer=int(v.scorer),
        points=(int(v.points[0]), int(v.points[1])),
        respots={
            int(b): (float(v.respot_xy[b, 0]), float(v.respot_xy[b, 1])) for b in np.flatnonzero(v.respot)
        },
        to_hand=[int(b) for b in np.flatnonzero(v.to_hand)],
        next_player=int(v.next_player),
        phase=st.PHASE_NAMES[phase],
        region=ids.REGION_NAMES[int(v.region)] if region else None,
        decision=st.DECISION_NAMES[decision] if decision else None,
        options=_bits(int(v.options), st.OPTION_NAMES[decision]),
        takes_ball=bool(v.takes_ball),
        object_only=bool(v.object_only),
        game_over=bool(v.game_over),
        winner=int(v.winner) if int(v.winner) >= 0 else None,
        playoff=bool(v.playoff),
        rules=rules,
        facts=facts,
    )


def pocket_name(pocket: int) -> str:
    """A pocket id's name (`physics.POCKET_NAMES`)."""
    return POCKET_NAMES[pocket]
