"""A group's own file (`/custom file:`) fuzzed as the import is (issue 23, item 6): any value anywhere in a
real file is refused by name or accepted, and never raises anything but the game's own refusal."""

from __future__ import annotations

import contextlib
import copy
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.errors import GameError
from rules.race.actions import AddCustom
from rules.race.ruleset import RULESET

REAL = {
    "vehicles": {
        "skiff": {"name": "Sand skiff", "size": "medium", "tier": 2, "str": 18, "dex": 12, "con": 16,
                  "weapons": [{"name": "cannon", "facing": "forward", "attack": 5, "dice": 2, "die": 8, "bonus": 1}]},
    },
    "racers": {"ace": {"name": "Ace", "piloting": 7, "kit": "other", "force_user": True,
                       "sidearm": {"name": "blaster", "attack": 4, "dice": 1, "die": 6, "bonus": 2, "loud": False}}},
    "track": {
        "name": "Fuzz Loop", "league": "pro", "laps": 2, "ram": "ask", "weapons": "legal",
        "sections": [
            {"name": "Trap Run", "type": "straight", "hint": "A long straight.",
             "hazard": {"kind": "railing", "height": 2, "severity": "setback"},
             "secondary": {"kind": "traffic", "severity": "deadly", "rejoin": True, "what": "banthas"},
             "conditions": [{"kind": "strong_wind", "altitude": 5}, {"kind": "storm", "altitude": 10,
                                                                     "damage_dice": 1, "damage_die": 8, "save_dc": 15}],
             "before": [{"kind": "boost_trap", "dc": 17, "speed": 50, "detect": 25}, {"kind": "mines", "dc": 7,
                                                                                     "dice": 3, "die": 6}],
             "after": [{"kind": "trampoline", "dc": 10}, {"kind": "gap", "speed": 400}]},
            {"name": "Bend", "type": "curved", "hazard": {"kind": "coarse_wall", "height": 3, "speed_die": 4}},
        ],
    },
}

VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=8)


def _paths(node: Any, here: tuple = ()) -> list[tuple]:
    """Every place in the file: each key of a table, each item of a list."""
    found = [here] if here else []
    if isinstance(node, dict):
        for key, value in node.items():
            found += _paths(value, here + (key,))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found += _paths(value, here + (index,))
    return found


PATHS = _paths(REAL)


def _mutated(path: tuple, value: Any, drop: bool) -> dict:
    made = copy.deepcopy(REAL)
    parent = made
    for step in path[:-1]:
        parent = parent[step]
    if drop and isinstance(parent, dict):
        del parent[path[-1]]
    else:
        parent[path[-1]] = value
    return made


def _lobby(revision: int):
    return RULESET.setup({"tuning": 0, "revision": revision}, 1, "host")


def test_the_real_file_is_taken_whole():
    state, events = RULESET.apply(_lobby(2), "host", AddCustom(json.dumps(REAL)))
    assert state.custom_track.name == "Fuzz Loop" and [v.id for v in state.custom_vehicles] == ["skiff"]


@settings(max_examples=400, deadline=None)
@given(path=st.sampled_from(PATHS), value=VALUES, drop=st.booleans(), revision=st.sampled_from([1, 2]))
def test_any_value_anywhere_is_refused_by_name_or_taken(path, value, drop, revision):
    text = json.dumps(_mutated(path, value, drop))
    lobby = _lobby(revision)
    try:
        state, _events = RULESET.apply(lobby, "host", AddCustom(text))
    except GameError as refused:
        message = refused.message
        assert message and len(message) < 400 and "Traceback" not in message
        return
    assert state.custom_vehicles or state.custom_pilots or state.custom_track


@settings(max_examples=200, deadline=None)
@given(text=st.text(max_size=300))
def test_any_text_is_refused_or_taken(text):
    for candidate in (text, "{" + text, "[track]\n" + text, "\ufeff" + text):
        with contextlib.suppress(GameError):   # a refusal is fine; any other exception fails the test
            RULESET.apply(_lobby(2), "host", AddCustom(candidate))
