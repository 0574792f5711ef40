"""A saved match record, loaded back for the page to replay: its shots re-run, its verdicts re-checked.

`rules.match.replay` re-adjudicates every entry (is each verdict reproduced?); each shot
that carries its whole strike (the app writes them so) is simulated again to get its
paths, so the page can animate the frame as it was played.
"""

from __future__ import annotations

from typing import Any

import piramida.physics as ph
from piramida.physics.fields import FieldError
from piramida.play import engine, words
from piramida.rules import codec, ids, match

NAMES = ("Player 0", "Player 1")


def replay(text: str, names: tuple[str, str] = NAMES) -> dict[str, Any]:
    """A record's text, for the page: `{"variant", "report", "steps": [...]}`, players called `names`.

    Each step is `{"kind", "by", "headline", "words", "state", "animation"}`.
    """
    try:
        record = match.loads(text)
    except match.RecordError as err:
        raise FieldError(f"record: {err}") from err
    if record.dims != engine.DIMS:
        raise FieldError(f"record: table {record.dims} differs from the app's ({engine.DIMS})")
    try:
        report = match.replay(record)
    except (match.RecordError, LookupError, TypeError) as err:
        raise FieldError(f"record: {err}") from err
    steps = []
    for entry in record.entries:
        try:
            steps.append(_step(entry, record, names))
        except (FieldError, LookupError, TypeError, ValueError) as err:
            raise FieldError(f"record: line {entry.get('_line')}: {err}") from err
    return {"variant": ids.VARIANT_NAMES[record.variant], "report": report, "steps": steps}


def _step(entry: dict[str, Any], record: match.MatchRecord, names: tuple[str, str]) -> dict[str, Any]:
    """One entry as the page shows it: the words, and the paths of a shot (re-run) or the still table."""
    state = codec.state_from_json(entry["state"], record.variant, record.dims)
    if entry["kind"] == "decision":
        outcome = entry["outcome"]
        sentences = words.decision_words(outcome, names)
        headline = words.decision_headline(outcome, names)
        animation = engine.still(codec.state_from_json(outcome["state"], record.variant, record.dims))
    else:
        verdict = entry["verdict"]
        sentences = words.shot_words(verdict, names)
        headline = words.shot_headline(verdict, names, entry["state"]["turn"])
        strike = entry.get("strike", {})
        if all(name in strike for name in engine.STRIKE_FIELDS):
            place = entry.get("place")
            xy = None if place is None else (float(place["x"]), float(place["y"]))
            shot = ph.Strike(**strike)
            engine.check_shot(state, shot, xy, None)
            animation = engine.simulate_shot(state, shot, xy).animation
        else:  # a record from elsewhere, without the strike: the balls where they stopped
            animation = engine.still(codec.state_from_json(verdict["state"], record.variant, record.dims))
    return {
        "kind": entry["kind"],
        "by": entry["state"]["turn"],
        "headline": headline,
        "words": sentences,
        "state": entry["state"],
        "animation": animation,
    }
