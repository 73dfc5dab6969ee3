"""A forgotten member's shown name replaced in one game's records, as plain data (no database).

Where a game keeps a member's name: the name they joined or took a seat with (the log's Join and TakeSeat
actions), the seat's name in every snapshot, the events that name them, the host's name option of a game with
a game master, and the words of its turn messages; and their id: the log's actors, the seats, the host, the
snapshot's owners and turn order, the table's settings by player. No hash covers either (the dice commitment
covers the seed alone), and `/game verify` re-runs the log from the seed to the snapshot: so both are replaced
everywhere at once (the name by a neutral one, the id by a random pseudonym), and the game is rewritten only if
it still re-runs to its snapshot afterwards.
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Iterable
from typing import Any

from bot.storage.privacy import Rewritten
from bot.storage.store import ActionRecord, GameRecord
from bot.table.trust.guards import FORGOTTEN_PREFIX
from rules.codec import dumps
from rules.table import HOST_NAME, name_key

NEUTRAL_NAME = "forgotten player"
_OWN_NAMES = ("Join", "TakeSeat")   # the actions that take a seat under the actor's own shown name


def own_names(game: GameRecord, log: Iterable[ActionRecord], player: str) -> tuple[set[str], set[str]]:
    """The names `player` is shown by in a game, and every other name its log gives a seat."""
    own: set[str] = set()
    others: set[str] = set()
    for record in log:
        action = json.loads(record.action)
        name = action.get("name") if isinstance(action, dict) else None
        if isinstance(name, str) and name:
            if record.actor == player and action.get("type") in _OWN_NAMES:
                own.add(name)
            else:
                others.add(name)
    host_name = json.loads(game.options).get(HOST_NAME)
    if game.host == player and isinstance(host_name, str) and host_name:
        own.add(host_name)
    return own, others


def neutral_name(taken: Iterable[str]) -> str:
    """'forgotten player', or 'forgotten player 2', 3 ...: the first no name in `taken` is (by name key)."""
    keys = {name_key(name) for name in taken}
    if name_key(NEUTRAL_NAME) not in keys:
        return NEUTRAL_NAME
    number = 2
    while name_key(f"{NEUTRAL_NAME} {number}") in keys:
        number += 1
    return f"{NEUTRAL_NAME} {number}"


def pseudonym() -> str:
    """The id a forgotten member's seats and actions are logged under from now on: random, so it names nobody
    and no table of ids leads back to them."""
    return f"{FORGOTTEN_PREFIX}{secrets.token_hex(4)}"


def replacements(player: str, alias: str, names: set[str], neutral: str, kept: Iterable[str] = ()) -> dict[str, str]:
    """What becomes of each string that names a member in a game: their id its `alias`, their names `neutral`
    (a name that is also their id, as on the command line, becomes the alias: the two cannot be told apart).
    `kept`: the names the game's other seats go by, each kept whole (mapped to itself), so that a name of the
    member's that is a word of another's ("Ben" forgotten, "Ben Lee" playing on) leaves that one as it is."""
    return {**{name: name for name in kept}, **dict.fromkeys(names - {player}, neutral), player: alias}


def _words(names: dict[str, str]) -> re.Pattern[str]:
    """Any of `names` standing as a word of its own (a seat's "jo's driver" holds its player's name)."""
    alternatives = "|".join(re.escape(old) for old in sorted(names, key=len, reverse=True))
    return re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)")


def replaced(value: Any, names: dict[str, str], words: re.Pattern[str] | None = None) -> Any:
    """A decoded JSON value with each of `names` replaced wherever it stands as a word of a string (a value, or
    a key: a table by player)."""
    words = words or _words(names)
    if isinstance(value, str):
        return names.get(value) or words.sub(lambda m: names[m.group(0)], value)
    if isinstance(value, list):
        return [replaced(v, names, words) for v in value]
    if isinstance(value, dict):
        return {replaced(k, names, words): replaced(v, names, words) for k, v in value.items()}
    return value


def renamed_json(text: str, names: dict[str, str]) -> str:
    """JSON text with every string (a value, or a key: a table by player) that is one of `names` replaced;
    the text itself when nothing in it changes."""
    if not any(old in text for old in names):
        return text
    data = json.loads(text)
    changed = replaced(data, names)
    return text if changed == data else dumps(changed)


def renamed_words(text: str, names: dict[str, str], player: str, neutral: str) -> str:
    """A message's words with the member's mention made their neutral name, and each of `names` replaced where
    it stands as a word of its own."""
    return replaced(re.sub(rf"<@!?{re.escape(player)}>", neutral, text), names)


def _entries(rows: Iterable[tuple[Any, ActionRecord]], names: dict[str, str]) -> dict[Any, tuple[str, str, str]]:
    """The log rows (by key) that change: their new actor, action and events."""
    changed = {}
    for key, record in rows:
        entry = (names.get(record.actor, record.actor), renamed_json(record.action, names),
                 renamed_json(record.events, names))
        if entry != (record.actor, record.action, record.events):
            changed[key] = entry
    return changed


def rewritten(game: GameRecord, log: list[ActionRecord], aside: list[tuple[int, ActionRecord]],
              line_ends: dict[int, str], told: dict[str, str], turn_body: str | None,
              names: dict[str, str], player: str, neutral: str) -> Rewritten:
    """A game's records with `names` (old → new) replaced wherever the game keeps them."""
    return Rewritten(
        host=names.get(game.host, game.host), state=renamed_json(game.state, names),
        options=renamed_json(game.options, names), settings=renamed_json(game.settings, names),
        actions=_entries(((r.seq, r) for r in log), names),
        set_aside=_entries((((k, r.seq), r) for k, r in aside), names),
        line_ends={k: renamed_json(v, names) for k, v in line_ends.items()},
        told={k: renamed_words(v, names, player, neutral) for k, v in told.items()},
        turn_body=renamed_words(turn_body, names, player, neutral) if turn_body is not None else None)
