"""The play page's levels in evaluation: `level:NAME` players with their own cues, per-bot noise, the ratings.

The tiny tournament plays the two bottom levels (casual and greedy bots, quick to compile).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from piramida.agents import GreedyAgent
from piramida.agents import ladder as levels
from piramida.cli.main import main
from piramida.evaluation.arena import head_to_head
from piramida.physics import noise
from piramida.rules import ids

BOTTOM, SECOND = levels.LEVELS[0], levels.LEVELS[1]


def test_eval_plays_page_levels_by_name_each_with_its_own_cue(tmp_path: Path) -> None:
    agents = f"level:{BOTTOM.name},level:{SECOND.name}"
    out = tmp_path / "out"
    flags = ["--variants", "free", "--games", "4", "--cap", "24", "--noise", "pro", "--out", str(out)]
    assert main(["eval", "--agents", agents, *flags]) == 0
    results = json.loads((out / "results.json").read_text())
    assert results["config"]["agents"] == agents.split(",")
    (meeting,) = results["meetings"]
    assert meeting["noises"] == {
        f"level:{BOTTOM.name}": noise.level(BOTTOM.noise),
        f"level:{SECOND.name}": noise.level(SECOND.noise),
    }
    assert noise.level(BOTTOM.noise) != noise.level("pro")  # --noise does not reach a level's cue
    assert sum(meeting["wins"].values()) + meeting["draws"] + meeting["unfinished"] == 4


def test_an_unknown_level_exits_2_naming_the_known_levels(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:  # argparse's usage error, as for any bad --agents
        main(["eval", "--agents", "level:grandmaster,greedy", "--out", str(tmp_path / "out")])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "--agents" in err and "'grandmaster'" in err and "Traceback" not in err
    assert all(level.name in err for level in levels.LEVELS)
    assert not (tmp_path / "out").exists()


def test_each_bot_shoots_with_its_own_noise() -> None:
    greedy = GreedyAgent()
    pair = (("steady", greedy), ("shaky", greedy))
    equal = head_to_head(pair, ids.FREE, 0.45, 8, 12, 0, noises=(0.45, 0.45))
    plain = head_to_head(pair, ids.FREE, 0.45, 8, 12, 0)
    counted = ("shots", "pots", "fouls", "balls", "points")
    for result in (equal, plain):  # the same games: the same noise as one magnitude for both
        result["counts"] = {name: [bot[k] for k in counted] for name, bot in result["bots"].items()}
    assert [equal[k] for k in ("wins", "steps", "counts")] == [plain[k] for k in ("wins", "steps", "counts")]
    split = head_to_head(pair, ids.FREE, 0.45, 8, 12, 0, noises=(0.0, 5.0))
    assert split["noises"] == {"steady": 0.0, "shaky": 5.0}
    steady, shaky = split["bots"]["steady"], split["bots"]["shaky"]
    assert steady["shots"] > 0 and shaky["shots"] > 0
    assert steady["pot_rate"] > shaky["pot_rate"] + 0.2


def test_levels_carry_their_ratings_weakest_first_and_the_default_is_one_of_them() -> None:
    assert len(levels.LEVELS) >= 5 and levels.DEFAULT in levels.BY_NAME
    rated = [level.rating for level in levels.LEVELS]
    assert all(r is not None for r in rated) and rated == sorted(rated)  # type: ignore[type-var]
    assert levels.LEVELS[0].json()["rating"] == rated[0]
    assert set(levels.LEVELS[0].json()) == {"name", "line", "rating", "settings"}
    with pytest.raises(levels.LevelError, match=f"'nope'.*{levels.LEVELS[-1].name}"):
        levels.find("nope")
