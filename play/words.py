"""The referee's verdicts and decisions in words: a player's headline, and the rules cited.

The page shows the headline when the balls stop ("You potted a ball: shoot again.") and the
sentences with their rule ids behind a toggle, each id opening its plain sentence
(`rulebook`); the verdict JSON (`rules.codec`) stays the source of truth, so the words
never decide anything. Balls are named as the table draws them: the coloured ball, and
the white balls by number only in Classic, the one game whose balls carry numbers (G3-N);
elsewhere "a ball". The own ball is the coloured ball but in Free, where any ball may be it.
"""

from __future__ import annotations

from typing import Any

FOULS: dict[str, str] = {  # "{own}": the ball struck, named as the variant's table shows it
    "no-contact": "{own} touched no object ball",
    "failed-break": "the break was not legal: no ball pocketed, and too few rack balls reached a cushion "
    "or crossed the centre line",
    "not-completed": "after the contact no ball was pocketed and no cushion or centre-line condition was met",
    "house-ball-first": "from hand, {own} first hit a ball in the house zone",
    "ball-off-table": "a ball left the playing area",
    "own-ball-pocketed": "{own} was pocketed",
    "own-ball-off-table": "{own} left the playing area",
    "early-stroke": "the stroke was played before the previous shot ended",
    "cue": "the ball was not struck with the cue's tip",
    "foot": "no foot on the floor",
    "touch": "a ball was touched",
    "double-hit": "{own} was hit twice",
    "push": "{own} was pushed",
    "slow-play": "the shot clock ran out",
    "interference": "interference with play",
    "after-shot-end": "a foul after the shot ended",
}
DECIDED: dict[str, str] = {
    "shoot": "to shoot",
    "hand-back": "to hand the shot back",
    "accept-shoot": "to accept the position and shoot",
    "accept-hand-back": "to accept the position and hand the shot back",
    "rerack-break": "to have the pyramid re-racked and break",
    "rerack-opponent-breaks": "to have the pyramid re-racked for the offender to break",
    "existing-position": "to play from the position",
    "from-hand": "to take the coloured ball in hand",
}
DECISIONS: dict[str, str] = {
    "G6": "after a foul: shoot yourself or hand the shot back (G6)",
    "G12.2": "after a failed break: accept the position or have the pyramid re-racked (G12.2)",
    "DYN-7": "after a foul: play from the position or from hand anywhere (DYN-7)",
    "penalty-ball": "take a penalty ball from the table (COMB-7, A-13)",
    "exchange": "take a ball from the table in exchange for the coloured ball (COMB-5.2, DYN-5.2)",
}
# A foul as a player says it (the headline; FOULS above gives the referee's wording).
PLAIN_FOULS: dict[str, str] = FOULS | {
    "no-contact": "{own} touched nothing",
    "failed-break": "the break was too weak",
    "not-completed": "no ball went in and nothing reached a cushion",
}
# Who decides what, as a player says it: (you, the bot), the decider named first.
CHOICES: dict[str, tuple[str, str]] = {
    "G6": ("choose who plays", "chooses who plays"),
    "G12.2": ("choose: play on from here, or re-rack", "chooses: play on from here, or re-rack"),
    "DYN-7": ("choose: play on here or from hand anywhere", "chooses: play on here or from hand anywhere"),
    "penalty-ball": ("take a penalty ball", "takes a penalty ball"),
    "exchange": ("take a ball for the coloured ball", "takes a ball for the coloured ball"),
}
REGIONS = {
    "house": "in the house zone",
    "temporary-house": "behind the back spot (G21.2)",
    "anywhere": "anywhere",
}


def _listed(items: list[str]) -> str:
    """Items as a player lists them: "a", "a and b", "a, b and c"."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def own_ball(variant: str) -> str:
    """The struck ball: the coloured ball, but in Free any ball may be struck."""
    return "the struck ball" if variant == "free" else "the coloured ball"


def ball_name(ball: int, variant: str) -> str:
    """One ball as the table shows it: "the coloured ball", "ball 7" (Classic), "a ball"."""
    if ball == 0:
        return "the coloured ball"
    return f"ball {ball}" if variant == "classic" else "a ball"


def balls_said(balls: list[int], variant: str) -> str:
    """Balls as the table shows them: "balls 4 and 9" (Classic), "2 balls", "the coloured ball and a ball"."""
    whites = [b for b in balls if b != 0]
    said = ["the coloured ball"] if 0 in balls else []
    if variant == "classic" and whites:
        said.append(f"ball{'s' * (len(whites) > 1)} {_listed([str(b) for b in whites])}")
    elif whites:
        other = " other" if said else ""
        one = "another ball" if said else "a ball"
        said.append(one if len(whites) == 1 else f"{len(whites)}{other} balls")
    return " and ".join(said)


def _fouls(kinds: list[str], wording: dict[str, str], variant: str) -> str:
    return "; ".join(wording.get(kind, kind).format(own=own_ball(variant)) for kind in kinds)


def _taken(outcome: dict[str, Any], variant: str) -> str:
    """A ball taken in a decision: in exchange for the coloured ball, or as the penalty ball."""
    why = "in exchange for the coloured ball" if outcome.get("kind") == "exchange" else "as the penalty ball"
    return f"took {ball_name(outcome['taken'], variant)} {why}"


def shot_words(verdict: dict[str, Any], names: tuple[str, str]) -> list[str]:
    """Sentences for a shot's verdict; `names[p]` names player p ("You", "The bot")."""
    if not verdict["valid"]:
        return [
            "The referee could not judge the shot; the balls are put back: " + ", ".join(verdict["invalid"])
        ]
    out = []
    variant = verdict["state"]["variant"]
    foul = verdict["foul"]
    if foul:
        out.append(f"Foul: {_fouls(foul['kinds'], FOULS, variant)} ({', '.join(foul['rules'])}).")
    else:
        out.append(f"Legal shot ({', '.join(verdict['rules'])}).")
    if verdict["scored"]:
        who = names[verdict["scored_by"]]
        out.append(f"{who} scored {balls_said(verdict['scored'], variant)} (G22.2).")
    points = verdict["points"]
    if any(points) and variant == "classic":
        out.append("Points: " + ", ".join(f"{names[p]} {points[p]:+d}" for p in (0, 1) if points[p]) + ".")
    if verdict["respots"]:
        back = balls_said([r["ball"] for r in verdict["respots"]], variant)
        out.append(f"Put back on the table: {back} (G25.1).")
    out += _next(verdict, names)
    return out


def decision_words(outcome: dict[str, Any], names: tuple[str, str]) -> list[str]:
    """Sentences for a decision's outcome (`match.decision_json`)."""
    who = names[outcome["by"]]
    what = outcome["decision"]
    parts = []
    if "option" in what:
        parts.append(f"decided {DECIDED.get(what['option'], what['option'])}")
    if outcome["taken"] is not None:
        parts.append(_taken(outcome, outcome["state"]["variant"]))
    sentence = f"{who} {' and '.join(parts)} ({', '.join(outcome['rules'])})."
    return [sentence, *_next(outcome, names)]


def _next(outcome: dict[str, Any], names: tuple[str, str]) -> list[str]:
    """Who moves next, how; or the end of the frame."""
    scores = outcome["scores"]
    if outcome["game_over"]:
        winner = outcome["winner"]
        return [f"Game over: {names[winner]} won, {scores[winner]}:{scores[1 - winner]}."]
    nxt = names[outcome["next_player"]]
    pending = outcome.get("decision")  # a verdict's pending decision; a decision outcome has none
    pending = pending if isinstance(pending, dict) and "kind" in pending else None
    if pending:
        return [f"{nxt} to decide: {DECISIONS.get(pending['kind'], pending['kind'])}."]
    phase = outcome["phase"]
    if phase == "in-hand":
        return [f"{nxt} to shoot from hand, {REGIONS.get(outcome['region'] or '', '')}."]
    if phase == "break":
        return [f"{nxt} to break from the house (G11)."]
    extra = " Only object balls may be pocketed on this shot (DYN-5.2)." if outcome.get("object_only") else ""
    return [f"{nxt} to shoot.{extra}"]


def _act(who: str, you: str, it: str) -> str:
    """`who` and the verb agreeing with it: "You shoot", "The bot shoots"."""
    return f"{who} {you if who == 'You' else it}"


def shot_headline(verdict: dict[str, Any], names: tuple[str, str], by: int) -> str:
    """One line a player reads when the balls stop: what happened, and what comes next."""
    if not verdict["valid"]:
        return "The referee could not judge the shot: the balls are put back."
    foul = verdict["foul"]
    shooter = names[by]
    variant = verdict["state"]["variant"]
    if foul:
        happened = f"Foul: {_fouls(foul['kinds'], PLAIN_FOULS, variant)}."
    elif verdict["scored"]:
        happened = f"{names[verdict['scored_by']]} potted {balls_said(verdict['scored'], variant)}"
        if not verdict["game_over"] and verdict["next_player"] == by and not verdict["decision"]:
            return f"{happened}: {'shoot' if shooter == 'You' else 'it shoots'} again."
        happened += "."
    else:
        happened = f"{shooter} potted nothing."
    return f"{happened} {_coming(verdict, names)}"


def decision_headline(outcome: dict[str, Any], names: tuple[str, str]) -> str:
    """One line for a decision: what was chosen, and what comes next."""
    what = outcome["decision"]
    parts = []
    if outcome["taken"] is not None:
        parts.append(_taken(outcome, outcome["state"]["variant"]))
    if "option" in what:
        parts.append(f"chose {DECIDED.get(what['option'], what['option'])}")
    return f"{names[outcome['by']]} {' and '.join(parts)}. {_coming(outcome, names)}"


def _coming(outcome: dict[str, Any], names: tuple[str, str]) -> str:
    """What comes next, as a player says it."""
    scores = outcome["scores"]
    if outcome["game_over"]:
        winner = names[outcome["winner"]]
        return f"{winner} won the frame {scores[outcome['winner']]}:{scores[1 - outcome['winner']]}."
    nxt = names[outcome["next_player"]]
    pending = outcome.get("decision")
    if isinstance(pending, dict) and "kind" in pending:
        kind = pending["kind"]
        you, it = CHOICES.get(kind, ("decide", "decides"))
        verb = you if nxt == "You" else it
        if pending["takes_ball"] and kind in ("G6", "G12.2", "DYN-7"):  # FREE-7, COMB-7, DYN-7: and a ball
            verb = f"{'take' if nxt == 'You' else 'takes'} a ball and {verb}"
        return f"{nxt} {verb}."
    phase = outcome["phase"]
    if phase == "in-hand":
        where = REGIONS.get(outcome["region"] or "", "")
        return f"{_act(nxt, 'play', 'plays')} from hand, {where}."
    if phase == "break":
        return f"{_act(nxt, 'break', 'breaks')}."
    only = " Only object balls may be pocketed (DYN-5.2)." if outcome.get("object_only") else ""
    return f"{_act(nxt, 'play', 'plays')}.{only}"
