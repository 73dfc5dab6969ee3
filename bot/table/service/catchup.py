"""What happened while a player was away: every action since their own last one, a line each with the
rolls that decided it, and what of it touched them; within one message, summarised per player beyond.

Built from the log as its reader may see it (bot.table.trust.seen), so no secret crosses.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from typing import Any

from bot.table.protocol.replies import MESSAGE_LIMIT, clip, whole_lines
from bot.table.trust.seen import SeenAction
from rules.engine import describe_events
from rules.names import NOTE_LIMIT
from rules.seats import last_own_action
from rules.table import (
    ByStandingOrder,
    NoteSent,
    PlayedByAutopilot,
    Resigned,
    ResultAgreed,
    RolledBack,
    SeatOffered,
    SeatTaken,
    SeatToComputerGiven,
    born_computer,
)

CATCH_UP_ACTIONS = 500   # how far back a catch-up reads the log (a week of a busy table)
PING_NOTE_ACTIONS = 12   # what a turn's ping note reads first: its player's last action is most often in it
PING_NOTE_FURTHER = 30   # then this far back: their last action is nearly always in it (else CATCH_UP_ACTIONS)
SPECTATOR_ACTIONS = 20   # what a reader with no action of their own gets: the last few
LINE_LIMIT = 300         # one action's line, at most (a long roll is cut; /game log has it whole)

Events = Callable[[SeenAction], tuple]
_SEAT_EVENTS = (SeatOffered, SeatTaken, SeatToComputerGiven, Resigned)   # a seat changing hands: no one's play
_TABLE_EVENTS = (*_SEAT_EVENTS, RolledBack, ResultAgreed)   # the table's own doing (a vote): nobody's move for a seat


def since_last_own(seen: list[SeenAction], reader: str, events_of: Events | None = None,
                   seat: Any = None) -> tuple[list[SeenAction], bool]:
    """The actions after the reader's own last one, and whether they have one (else the last few). Given
    their seat, own means played by them: not what the autopilot, a standing order or the computer played
    for it, nor their taking it back (rules.seats.last_own_action), so a player back from days away reads
    everything since they last played."""
    if seat is not None and events_of is not None:
        # decoded lazily, newest first: the search usually stops a few actions back
        found, _autopilot = last_own_action(((s.record.actor, events_of(s)) for s in reversed(seen)), seat,
                                            taking_counts=False)
        mine = [] if found is None else [len(seen) - 1 - found]
    else:
        mine = [i for i, s in enumerate(seen) if s.record.actor == reader]
    if mine:
        return seen[mine[-1] + 1:], True
    return seen[-SPECTATOR_ACTIONS:], False


def _reader_since(seen: list[SeenAction], reader: str, events_of: Events | None,
                  seat: Any) -> tuple[list[SeenAction], bool, SeenAction | None]:
    """What a reader's catch-up tells: the actions since their own last one (and whether they have one), or,
    for a member who took the seat over and has not played it yet, its story (and the taking over)."""
    since, acted = since_last_own(seen, reader, events_of, seat)
    took = None if acted else _taken_over(seen, seat, events_of)
    story = None if took is None else seat_story(seen, seat, events_of, took)
    return (story, acted, took) if story is not None else (since, acted, None)


def catch_up(seen: list[SeenAction], reader: str, reader_name: str | None, events_of: Events,
             name_of: Callable[[str], str], room: int = MESSAGE_LIMIT, seat: Any = None) -> str:
    """The catch-up text for `reader` (their seat's name, or None for a spectator) within `room`
    characters: the actions since their last one, a line each, what was played in their name told as such;
    then those that name them; past the room, a count of each player's actions and a pointer to /game log.
    A member who took the seat over and has not played it yet reads its story instead (`seat_story`)."""
    since, acted, took = _reader_since(seen, reader, events_of, seat)
    story = since if took is not None else None
    if story is None and not since:
        return "Nothing has happened since your last action." if acted else "Nothing has happened in this game yet."
    stand_ins = played_for(since, seat, events_of)
    count = _actions(len(since)) + (f"; {_stand_in_words(stand_ins)}" if stand_ins else "")
    if took is not None:   # a story: the seat's, since it was taken over
        head = f"{_story_words(seen, seat, took)} ({count}):"
    else:
        head = f"Since your last action ({count}):" if acted else f"The last {_actions(len(since))}" + (
            f" ({_stand_in_words(stand_ins)}):" if stand_ins else ":")
    lines = [_line(s, events_of(s), stand_ins.get(s.number), reader_name) for s in since]
    touched = [line for s, line in zip(since, lines) if reader_name and s.record.actor != reader
               and _names(reader_name, line.split(" ", 1)[1])] if story is None else []
    # worth a section of its own when it picks some out of many
    tail = ["What touched you:", *touched] if touched and len(since) > 3 and len(touched) < len(since) else []
    text = "\n".join([head, *lines, *tail])
    if len(text) <= room:
        return text
    summary = _by_whom(since, name_of, stand_ins)
    first, last = since[0].number, since[-1].number
    span = seen[-1].number - first + 1   # the log's latest actions that hold them all (a story picks among them)
    pointer = (f"\nEvery one of them: /game log count:{min(100, span)}, then the earlier pages it names"
               if span > 10 else f"\nEvery one of them: /game log count:{span}")
    brief = [f"{head} #{first}–#{last}, by {summary}."]
    budget = room - len(brief[0]) - len(pointer) - 40
    mine = [line for s, line in zip(since, lines) if s.number in stand_ins]
    shown = whole_lines(mine, budget // 3) if mine and len(mine) < len(lines) else []
    if shown:   # what was played in their name, first: their seat, their pieces
        brief += ["Played for you:", *shown]
        budget -= sum(len(x) + 1 for x in shown) + 16
    picked = whole_lines([line for line in touched if line not in shown], budget // 2) if tail else []
    if picked:
        brief += ["What touched you:", *picked]
        budget -= sum(len(x) + 1 for x in picked) + 18
    latest = _fit_from_end([line for line in lines if line not in shown and line not in picked], budget)
    if latest:
        brief += [f"The latest {len(latest)}:", *latest]
    return "\n".join(brief) + pointer


def seat_story(seen: list[SeenAction], seat: Any, events_of: Events | None,
               took: SeenAction | None = None) -> list[SeenAction] | None:
    """For a member who took `seat` over from another and has not played it since: what happened to the seat
    (its own actions and those naming it) as far back as `seen` reaches; None for anyone else (a seat's own
    player, a spectator). `took`: the taking over, where the caller found it already (`_taken_over`)."""
    if (took or _taken_over(seen, seat, events_of)) is None:
        return None
    assert events_of is not None
    return [s for s in seen if s.actor == seat.id or _names(seat.name, describe_events(events_of(s)))]


def _taken_over(seen: list[SeenAction], seat: Any, events_of: Events | None) -> SeenAction | None:
    """The action in which `seat`'s holder took it over from another member (None: its own player holds it)."""
    if seat is None or events_of is None or not getattr(seat, "played_by", ""):
        return None
    return next((s for s in reversed(seen) if s.record.actor == seat.id and any(
        isinstance(e, SeatTaken) and e.seat == seat.name and e.by for e in events_of(s))), None)


def _story_words(seen: list[SeenAction], seat: Any, took: SeenAction) -> str:
    """'ben's seat, yours since #18: what happened to it since the game began'."""
    began = "the game began" if seen[0].number == 1 else f"#{seen[0].number}"
    return f"{seat.name}'s seat, yours since #{took.number}: what happened to it since {began}"


def played_for(since: list[SeenAction], seat: Any, events_of: Events | None) -> dict[int, str]:
    """Which of `since` were played in the name of `seat`'s holder without them, by number: 'the autopilot',
    'a standing order' or 'the computer' (while the seat was given to it). Read newest first, from whether
    the computer holds the seat now."""
    if seat is None or events_of is None:
        return {}
    computer = bool(getattr(seat, "ai", False)) and not born_computer(seat.id)
    out: dict[int, str] = {}
    for action in reversed(since):
        events = events_of(action)
        if action.record.actor == seat.id:
            if any(isinstance(e, PlayedByAutopilot) and e.player == seat.name for e in events):
                out[action.number] = "the autopilot"
            elif any(isinstance(e, ByStandingOrder) and e.player == seat.name for e in events):
                out[action.number] = "a standing order"
            elif computer and not any(isinstance(e, _TABLE_EVENTS) for e in events):
                out[action.number] = "the computer"
        for event in events:
            if isinstance(event, SeatToComputerGiven) and event.seat == seat.name:
                computer = False   # before it, its player played it
            elif isinstance(event, SeatTaken) and event.seat == seat.name:
                computer = not event.by   # taken back from the computer; or taken over from another
    return out


def _stand_in_words(stand_ins: dict[int, str]) -> str:
    """'3 of them played for you: the autopilot 2, the computer 1'."""
    counts = Counter(who for _number, who in sorted(stand_ins.items()))
    return (f"{len(stand_ins)} of them played for you: " +
            ", ".join(f"{who} {n}" for who, n in counts.items()))


def _actions(n: int) -> str:
    return f"{n} action{'s' if n != 1 else ''}"


def notes_since(seen: list[SeenAction], reader: str, events_of: Callable[[SeenAction], tuple],
                words_of: Callable[[SeenAction], str | None], seat: Any = None) -> str:
    """The private notes to `reader`'s seat (a GM's /gm tell) among what their catch-up tells (`_reader_since`:
    since their own last action, what the autopilot played for them not counting; a seat's story for a member
    who took it over), with their words: only notes whose action the reader may read, so nobody's catch-up
    shows another's note; '' when none."""
    since, _acted, took = _reader_since(seen, reader, events_of, seat)
    lines = [f"#{s.number} {words}" for s in since if s.stand_in is None
             and any(isinstance(e, NoteSent) and (e.to == reader or seat is not None and e.name == seat.name)
                     for e in events_of(s)) and (words := words_of(s))]
    if not lines:
        return ""
    head = (f"Notes to {seat.name}'s seat" if took is not None else "Notes for you since your last action") + \
        " (only you and the GM read them; /notes has them all):"
    return "\n".join([head, *whole_lines([clip(x, NOTE_LIMIT + 10) for x in reversed(lines)], MESSAGE_LIMIT // 2)])


def _line(seen: SeenAction, events: tuple, stand_in: str | None = None, name: str | None = None) -> str:
    """One action's line; one the computer played for the reader's seat says so (the autopilot's and a
    standing order's own words do)."""
    said = describe_events(events) or '(no public effect)'
    if stand_in == "the computer":
        said = f"The computer plays for {name}: {said}"
    return clip(f"#{seen.number} {said}", LINE_LIMIT)


def _by_whom(actions: list[SeenAction], name_of: Callable[[str], str], stand_ins: dict[int, str] | None = None) -> str:
    """How many of `actions` each player took, in the order they first acted, what was played for the
    reader counted by who played it: 'ben 10, cat 7, the autopilot for you 2'."""
    counts: dict[str, int] = {}
    for action in actions:
        stand_in = (stand_ins or {}).get(action.number)
        # a seat that changed hands counts under its name, not its old holder's id
        who = f"{stand_in} for you" if stand_in else name_of(action.actor)
        counts[who] = counts.get(who, 0) + 1
    return ", ".join(f"{who} {n}" for who, n in counts.items())


def _names(name: str, text: str) -> bool:
    """Whether `text` names the player `name` as a word (not inside another word)."""
    return re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", text) is not None


def _fit_from_end(lines: list[str], room: int) -> list[str]:
    """The last lines that fit in `room` characters, in order."""
    return list(reversed(whole_lines(list(reversed(lines)), room)))


# The only events a ping's note looks at (a seat changing hands, what was played for a seat): an action whose
# logged events name none of them (most: moves, shots) need not be decoded for it.
_NOTED = (SeatOffered, SeatTaken, SeatToComputerGiven, Resigned, PlayedByAutopilot, ByStandingOrder)
_NOTED_TAGS = re.compile("|".join(f'"{kind.__name__}"' for kind in _NOTED))   # as rules.codec.encode_tagged
# writes their type


def noted_events(events_of: Events) -> Events:
    """`events_of` as a ping's note needs it: the events of an action that logged any of the kinds it looks at,
    each action decoded once; () for any other action."""
    decoded: dict[int, tuple] = {}

    def events(seen: SeenAction) -> tuple:
        if _NOTED_TAGS.search(seen.record.events) is None:
            return ()
        if seen.record.seq not in decoded:
            decoded[seen.record.seq] = events_of(seen)
        return decoded[seen.record.seq]
    return events


def ping_note(seen: list[SeenAction], player: str, name: str, name_of: Callable[[str], str],
              events_of: Events | None = None, seat: Any = None, whole: bool = True) -> str | None:
    """For the turn message that pings `player` (`name`, as words addressed to them name them): how much
    happened since their last action and where to read it ('' when little did); a member who took the seat
    over and has not played it yet is pointed to its story. Not `whole`: `seen` is the log's latest stretch
    only, and None says it does not reach back to the player's last action (read further)."""
    since, acted = since_last_own(seen, player, events_of, seat)
    if not acted and not whole:
        return None
    if not acted and _taken_over(seen, seat, events_of) is not None:
        return f"{name}: you play {seat.name}'s seat now; /game catchup tells you what happened to it."
    if not acted or len(since) < 2 or _took_a_seat(seen[len(seen) - len(since) - 1]):
        return ""   # nothing much happened, or only the lobby filled up since they sat down
    return (f"{name}: {len(since)} actions since your last one "
            f"({_by_whom(since, name_of, played_for(since, seat, events_of))}); /game catchup lists them for you.")


def _took_a_seat(own: SeenAction) -> bool:
    """Whether a player's action was their `/game join` (every game names that action Join)."""
    try:
        return json.loads(own.record.action).get("type") == "Join"
    except (ValueError, AttributeError):
        return False
