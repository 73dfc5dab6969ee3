"""What happened while a player was away: every action since their own last one, a line each with the
rolls that decided it, and what of it touched them; within one message, summarised per player beyond.

Built from the log as its reader may see it (bot.table.trust.seen), so no secret crosses.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from bot.table.protocol.replies import MESSAGE_LIMIT, clip, whole_lines
from bot.table.trust.seen import SeenAction
from rules.engine import describe_events
from rules.names import NOTE_LIMIT
from rules.seats import last_own_action
from rules.table import NoteSent

CATCH_UP_ACTIONS = 500   # how far back a catch-up reads the log (a week of a busy table)
SPECTATOR_ACTIONS = 20   # what a reader with no action of their own gets: the last few
LINE_LIMIT = 300         # one action's line, at most (a long roll is cut; /game log has it whole)

Events = Callable[[SeenAction], tuple]


def since_last_own(seen: list[SeenAction], reader: str, events_of: Events | None = None,
                   seat: Any = None) -> tuple[list[SeenAction], bool]:
    """The actions after the reader's own last one, and whether they have one (else the last few). Given
    their seat, own means played by them: not what the autopilot, a standing order or the computer played
    for it, nor their taking it back (rules.seats.last_own_action), so a player back from days away reads
    everything since they last played."""
    if seat is not None and events_of is not None:
        found, _autopilot = last_own_action([(s.record.actor, events_of(s)) for s in reversed(seen)], seat,
                                            taking_counts=False)
        mine = [] if found is None else [len(seen) - 1 - found]
    else:
        mine = [i for i, s in enumerate(seen) if s.record.actor == reader]
    if mine:
        return seen[mine[-1] + 1:], True
    return seen[-SPECTATOR_ACTIONS:], False


def catch_up(seen: list[SeenAction], reader: str, reader_name: str | None, events_of: Events,
             name_of: Callable[[str], str], room: int = MESSAGE_LIMIT, seat: Any = None) -> str:
    """The catch-up text for `reader` (their seat's name, or None for a spectator) within `room`
    characters: the actions since their last one, a line each; then those that name them; past the
    room, a count of each player's actions and a pointer to /game log."""
    since, acted = since_last_own(seen, reader, events_of, seat)
    if not since:
        return "Nothing has happened since your last action." if acted else "Nothing has happened in this game yet."
    head = (f"Since your last action ({len(since)} action{'s' if len(since) != 1 else ''}):" if acted
            else f"The last {len(since)} action{'s' if len(since) != 1 else ''}:")
    lines = [_line(s, events_of(s)) for s in since]
    touched = [line for s, line in zip(since, lines) if reader_name and s.record.actor != reader
               and _names(reader_name, line.split(" ", 1)[1])]
    # worth a section of its own when it picks some out of many
    tail = ["What touched you:", *touched] if touched and len(since) > 3 and len(touched) < len(since) else []
    text = "\n".join([head, *lines, *tail])
    if len(text) <= room:
        return text
    summary = _by_whom(since, name_of)
    pointer = (f"\nEvery one of them: /game log count:{min(100, len(since))}, then the earlier pages it names"
               if len(since) > 10 else f"\nEvery one of them: /game log count:{len(since)}")
    first, last = since[0].number, since[-1].number
    brief = [f"{head} #{first}–#{last}, by {summary}."]
    budget = room - len(brief[0]) - len(pointer) - 40
    shown = whole_lines(touched, budget // 2) if tail else []
    if shown:
        brief += ["What touched you:", *shown]
        budget -= sum(len(x) + 1 for x in shown) + 18
    latest = _fit_from_end([line for line in lines if line not in shown], budget)
    if latest:
        brief += [f"The latest {len(latest)}:", *latest]
    return "\n".join(brief) + pointer


def notes_since(seen: list[SeenAction], reader: str, events_of: Callable[[SeenAction], tuple],
                words_of: Callable[[SeenAction], str | None]) -> str:
    """The private notes sent to `reader` since their last action (a GM's /gm tell), with their words: only
    notes whose action the reader may read, so nobody's catch-up shows another's note; '' when none."""
    since, _acted = since_last_own(seen, reader)
    lines = [f"#{s.number} {words}" for s in since if s.stand_in is None
             and any(isinstance(e, NoteSent) and e.to == reader for e in events_of(s)) and (words := words_of(s))]
    if not lines:
        return ""
    head = "Notes for you since your last action (only you and the GM read them; /notes has them all):"
    return "\n".join([head, *whole_lines([clip(x, NOTE_LIMIT + 10) for x in reversed(lines)], MESSAGE_LIMIT // 2)])


def _line(seen: SeenAction, events: tuple) -> str:
    return clip(f"#{seen.number} {describe_events(events) or '(no public effect)'}", LINE_LIMIT)


def _by_whom(actions: list[SeenAction], name_of: Callable[[str], str]) -> str:
    """How many of `actions` each player took, in the order they first acted: 'ben 10, cat 7'."""
    counts: dict[str, int] = {}
    for action in actions:
        who = name_of(action.actor)   # a seat that changed hands counts under its name, not its old holder's id
        counts[who] = counts.get(who, 0) + 1
    return ", ".join(f"{who} {n}" for who, n in counts.items())


def _names(name: str, text: str) -> bool:
    """Whether `text` names the player `name` as a word (not inside another word)."""
    return re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", text) is not None


def _fit_from_end(lines: list[str], room: int) -> list[str]:
    """The last lines that fit in `room` characters, in order."""
    return list(reversed(whole_lines(list(reversed(lines)), room)))


def ping_note(seen: list[SeenAction], player: str, name: str, name_of: Callable[[str], str],
              events_of: Events | None = None, seat: Any = None) -> str:
    """For the turn message that pings `player`: how much happened since their last action and where to
    read it ('' when little did)."""
    since, acted = since_last_own(seen, player, events_of, seat)
    if not acted or len(since) < 2 or _took_a_seat(seen[len(seen) - len(since) - 1]):
        return ""   # nothing much happened, or only the lobby filled up since they sat down
    return (f"{name}: {len(since)} actions since your last one ({_by_whom(since, name_of)}); /game catchup lists "
            f"them for you.")


def _took_a_seat(own: SeenAction) -> bool:
    """Whether a player's action was their `/game join` (every game names that action Join)."""
    try:
        return json.loads(own.record.action).get("type") == "Join"
    except (ValueError, AttributeError):
        return False
