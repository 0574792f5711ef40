"""The rules in plain words for the page, read from docs/RULES.md ("The rules in plain words").

The referee cites rule ids ("G6(1)", "FREE-7"); a player needs the sentence behind each,
and a summary of each game (aim, scoring, fouls, penalties). Both live in one section of
docs/RULES.md, beside the readings they retell, and are read once when the server starts,
so the page and the document never disagree. The file ships with the package (`piramida.docs`).
"""

from __future__ import annotations

import re
from importlib import resources
from typing import Any

SECTION = "## The rules in plain words"
ROW = re.compile(r"\| ([A-Z][A-Za-z0-9.()-]*) \| (.+) \|")
POINT = re.compile(r"- \*\*(.+?)\*\*: (.+)")


class RulebookError(ValueError):
    """docs/RULES.md lacks its plain-words section, or a game in it has no points."""


def load(text: str) -> dict[str, Any]:
    """`{"rules": {id: sentence}, "variants": [{"name", "title", "points": [{"name", "text"}]}]}`."""
    if SECTION not in text:
        raise RulebookError(f"docs/RULES.md: no section {SECTION!r}")
    section = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    rules: dict[str, str] = {}
    variants: list[dict[str, Any]] = []
    for line in section.splitlines():
        line = line.strip()
        if line.startswith("### "):
            title = line[4:]
            variants.append({"name": title.split()[0].lower(), "title": title, "points": []})
        elif (row := ROW.fullmatch(line)) and not variants:
            rules[row[1]] = row[2]
        elif (point := POINT.fullmatch(line)) and variants:
            variants[-1]["points"].append({"name": point[1], "text": point[2]})
    for variant in variants:
        if not variant["points"]:
            raise RulebookError(f"docs/RULES.md: {variant['title']!r} has no points")
    return {"rules": rules, "variants": variants}


def packaged() -> dict[str, Any]:
    """The rulebook of the installed docs/RULES.md."""
    return load((resources.files("piramida.docs") / "RULES.md").read_text(encoding="utf-8"))
