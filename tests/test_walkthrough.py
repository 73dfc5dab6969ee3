"""docs/writing-a-game.md is checked by doing what it says (issue 37, item 6): the game its walk-through
builds is kept as a fixture (tests/walkthrough), the doc's code blocks are that fixture's source, word for
word, and it is registered as a plug-in (tests/conftest.py), so every cross-game suite covers it without a
line of theirs naming it (tests/test_cross_game.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rules.engine import replay
from rules.errors import NotSeated, NotYourTurn
from rules.registry import get_ruleset, ruleset_ids
from tests.walkthrough.rules import GOAL, Join, Roll, Start

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "writing-a-game.md"
QUOTED = re.compile(r"^```python (tests/walkthrough/[\w/]+\.py)\n(.*?)^```$", re.M | re.S)


def quoted_files() -> dict[str, str]:
    """The fixture's files as the doc quotes them: each file's blocks in order, split where two blank lines are."""
    files: dict[str, list[str]] = {}
    for path, block in QUOTED.findall(DOC.read_text()):
        files.setdefault(path, []).append(block)
    return {path: "\n\n".join(blocks) for path, blocks in files.items()}


def test_the_docs_code_is_the_walkthrough_games_source_word_for_word():
    quoted = quoted_files()
    assert set(quoted) == {"tests/walkthrough/rules.py", "tests/walkthrough/render.py",
                           "tests/walkthrough/__init__.py"}
    for path, text in quoted.items():
        assert text == (ROOT / path).read_text(), f"docs/writing-a-game.md and {path} differ"


def test_the_walkthrough_game_is_registered_as_a_plug_in():
    assert "hare" in ruleset_ids() and get_ruleset("hare").example.host == "ann"


def started(seed: int = 3):
    hare = get_ruleset("hare")
    state = hare.setup({}, seed, "ann")
    log = [("ann", Join()), ("ben", Join()), ("ann", Start())]
    for actor, action in log:
        state, _ = hare.apply(state, actor, action)
    return hare, state, log


def test_the_hare_race_is_played_to_its_end_and_replays():
    hare, state, log = started()
    while not hare.is_finished(state):
        actor = hare.acting_players(state)[0]
        state, events = hare.apply(state, actor, Roll())
        log.append((actor, Roll()))
    assert max(state.squares) == GOAL and state.winner == state.players[state.squares.index(GOAL)].id
    assert events[-1].describe().endswith("wins the race.")
    assert replay(hare, {}, 3, "ann", log) == state


def test_only_the_hare_whose_turn_it_is_rolls():
    hare, state, _log = started()
    assert hare.acting_players(state) == ("ann",)
    with pytest.raises(NotYourTurn):
        hare.apply(state, "ben", Roll())
    with pytest.raises(NotSeated):
        hare.apply(state, "zed", Roll())
    state, _ = hare.apply(state, "ann", Roll())
    assert hare.acting_players(state) == ("ben",)   # `after` passed the turn; joining had not


async def test_a_resigned_hare_leaves_the_race_and_the_last_one_running_wins(table, store):
    for user, line in (("ann", "/game new ruleset:hare seed:1"), ("ann", "/game join"), ("ben", "/game join"),
                       ("cal", "/game join"), ("ann", "/game start")):
        assert (await table(user, line)).outcome == "applied", line
    assert (await table("ann", "/game resign confirm:yes")).outcome == "applied"
    hare = get_ruleset("hare")
    state = hare.load_state((await store.active_game("chan-1")).state)
    assert hare.acting_players(state) == ("ben",) and not hare.is_finished(state)
    done = await table("ben", "/game resign confirm:yes")
    assert done.outcome == "applied" and "cal wins the race." in done.text
