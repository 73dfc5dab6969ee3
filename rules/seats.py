"""Seats that change hands in a running game, the same in every game: a player resigns, offers their
seat to another member who takes it, or lets the computer play it until they take it back; the host or
a server admin may do the same for a player who is gone. Each is an action like any other: logged,
applied by the referee, replayed and verified.

Rulings (every seed is silent on seats changing hands):
- A seat taken by another member becomes theirs: the seat keeps its name, and its player id becomes
  the new holder's everywhere in the game, so the turn, the pings, the hand and the clock go to them and
  the old holder is no longer seated. The host's chair stays with its holder.
- The computer plays a seat given to it as it plays its own seats, until its player takes it back.
- A resignation is for good: what becomes of the seat's pieces is each game's own ruling
  (`Referee.resign`), and the seat can then be neither offered nor taken.
- A resigned seat is never asked anything: a question the game still puts to it (where a hit on its
  empty vehicle lands) is answered at once by the computer's choice, or the one legal answer, or the
  first, as a computer seat's is (`for_resigned`); the resigned player's own answer is refused.
- The host or a server admin may act on another player's seat (give it to the computer, offer it to a
  member, resign it) only when that player is gone: a deadline's autopilot played for the seat since its
  player last acted themselves, or they have not acted themselves for the table's bound (`/game settings
  gone_hours:`, 72 hours unless the host sets another). Their own actions are those logged under their id
  that no autopilot, standing order or computer played (`last_own_action`; a move the table played for
  them because it was no choice cannot be told apart, and counts as theirs). A refusal says when they
  would count as gone. The seat's holder is always told: the public message pings them and says who did
  what to their seat.
- Seat changes cannot flood the table: they count against each member's rate limit (never refunded, as
  moves are), an offer already standing to the same member is not made again, and a seat changes hands at
  most `SEAT_CHANGES` times an hour (the bot counts them in the log).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from rules.errors import BadOption, GameOver, NotHost, NotSeated, WrongPhase
from rules.table import (
    ByStandingOrder,
    OfferSeat,
    PlayedByAutopilot,
    Resign,
    Resigned,
    SeatOffered,
    SeatTaken,
    SeatToComputer,
    SeatToComputerGiven,
    TablePhase,
    TakeSeat,
    born_computer,
    mention,
    name_key,
)

# --- applying them -------------------------------------------------------------------------------------

def renamed(value: Any, old: str, new: str) -> Any:
    """`value` (a game's state, or any part of it) with the player id `old` replaced by `new` where a player
    id is held: in the fields each dataclass names in its `player_ids` (a car's owner, the turn order, a
    pending choice's chooser), however deep. Nothing else changes, though a car's type or id may read like
    a player's id on the command line."""
    if isinstance(value, tuple):
        return tuple(renamed(v, old, new) for v in value)
    if not dataclasses.is_dataclass(value) or isinstance(value, type):
        return value
    ids = getattr(type(value), "player_ids", ())
    changes = {}
    for field in dataclasses.fields(value):
        held = getattr(value, field.name)
        changed = _replaced(held, old, new) if field.name in ids else renamed(held, old, new)
        if changed != held:
            changes[field.name] = changed
    return replace(value, **changes) if changes else value


def _replaced(value: Any, old: str, new: str) -> Any:
    """Every string `old` within a field of player ids (one id, or tuples of them) made `new`."""
    if isinstance(value, str):
        return new if value == old else value
    if isinstance(value, tuple):
        return tuple(_replaced(v, old, new) for v in value)
    return value


def seat_called(state: Any, named: str) -> Any:
    """The seat `named` (by id, or by name however it is written), or None."""
    return state.player(named) or next((p for p in state.players if name_key(p.name) == name_key(named)), None)


def seat_named(state: Any, actor: str, named: str, by_admin: bool) -> Any:
    """The seat an action is for: the actor's own (`named` empty), or the one `named` (by id or name),
    which only the host or a server admin may act for."""
    if not named:
        seat = state.player(actor)
        if seat is None:
            raise NotSeated("You have no seat in this game.")
        return seat
    seat = seat_called(state, named)
    if seat is None:
        names = ", ".join(p.name for p in state.players)
        raise BadOption(f"player: no seat is called {named!r} (seats: {names}).")
    if seat.id != actor and actor != state.host and not by_admin:
        raise NotHost("Only the host or a server admin can do that for another player's seat.")
    return seat


def nameable_seats(state: Any, actor: str, by_admin: bool) -> tuple[Any, ...]:
    """The seats `actor` may name in a seat change now (`seat_named`), as autocomplete offers them: none where
    seats do not change hands or the game is not running; each seat still in the game for the host or a server
    admin; else only the actor's own."""
    if not seats_change(state) or state.phase in (TablePhase.LOBBY, TablePhase.FINISHED):
        return ()
    any_seat = actor == state.host or by_admin
    return tuple(p for p in state.players if not p.resigned and (any_seat or p.id == actor))


def _running(state: Any) -> None:
    if state.phase == TablePhase.LOBBY:
        raise WrongPhase("Seats change hands once the game has started.")
    if state.phase == TablePhase.FINISHED:
        raise GameOver("This game is over.")


def _with_seat(state: Any, seat_id: str, **changes: Any) -> Any:
    return replace(state, players=tuple(replace(p, **changes) if p.id == seat_id else p for p in state.players))


def acting_for(state: Any, actor: str, seat: Any) -> str:
    """Who acted for a seat not their own (the host or an admin), by name; "" for the seat's own player."""
    if seat.id == actor:
        return ""
    own = state.player(actor)
    return own.name if own is not None else "the host" if actor == state.host else "an admin"


def offer(state: Any, actor: str, action: OfferSeat) -> tuple[Any, tuple]:
    _running(state)
    seat = seat_named(state, actor, action.seat, action.by_admin)
    if seat.resigned:
        raise BadOption(f"{seat.name} resigned: their seat is no longer in the game.")
    if state.player(action.to) is not None:
        raise BadOption(f"{mention(action.to)} already plays a seat in this game.")
    if seat.offered_to == action.to:
        raise BadOption(f"{seat.name}'s seat is already offered to {mention(action.to)}.")
    pending = next((p for p in state.players if p.offered_to == action.to and p.id != seat.id), None)
    if pending is not None:
        raise BadOption(f"{pending.name}'s seat is already offered to {mention(action.to)}: one offer at a time.")
    offered = SeatOffered(seat.name, action.to, acting_for(state, actor, seat))
    return _with_seat(state, seat.id, offered_to=action.to), (offered,)


def _taken(state: Any, actor: str) -> Any:
    """The seat `actor` may take: their own back from the computer, or the one offered to them."""
    own = state.player(actor)
    if own is not None:
        if own.resigned:
            raise BadOption("Your seat was resigned: it is no longer in this game.")
        if own.ai and not born_computer(own.id):
            return own
        raise BadOption("You already play a seat in this game.")
    seat = next((p for p in state.players if p.offered_to == actor and not p.resigned), None)
    if seat is None:
        raise BadOption("No seat here is offered to you.")
    return seat


def completed(state: Any, actor: str, action: Any) -> Any:
    """A TakeSeat with the id of the seat it takes written in (the log then tells whose earlier actions
    became the taker's); any other action as it is. Nothing to take, or a game whose seats keep to
    themselves (a plug-in's own seat type): as it is (the referee refuses it)."""
    if not isinstance(action, TakeSeat) or action.seat or not seats_change(state):
        return action
    try:
        return replace(action, seat=_taken(state, actor).id)
    except BadOption:
        return action


def take(state: Any, actor: str, action: TakeSeat) -> tuple[Any, tuple]:
    _running(state)
    seat = _taken(state, actor)
    if action.seat and action.seat != seat.id:
        raise BadOption("That seat is no longer offered to you.")
    if seat.id == actor:
        return _with_seat(state, seat.id, ai=False, offered_to=""), (SeatTaken(seat.name, ""),)
    name = action.name.strip() or actor
    back = name_key(name) == name_key(seat.name)   # the seat's own player, handed it back
    state = _with_seat(state, seat.id, offered_to="", ai=False, played_by="" if back else name)
    return renamed(state, seat.id, actor), (SeatTaken(seat.name, name),)


def to_computer(state: Any, actor: str, action: SeatToComputer) -> tuple[Any, tuple]:
    _running(state)
    seat = seat_named(state, actor, action.seat, action.by_admin)
    if seat.resigned:
        raise BadOption(f"{seat.name} resigned: their seat is no longer in the game.")
    if seat.ai:
        raise BadOption(f"The computer already plays {seat.name}'s seat.")
    given = SeatToComputerGiven(seat.name, acting_for(state, actor, seat))
    return _with_seat(state, seat.id, ai=True, offered_to=""), (given,)


def resigned(state: Any, actor: str, action: Resign) -> tuple[Any, Any]:
    """The seat a resignation is for, checked (the game then says what becomes of its pieces), and the
    state with it marked resigned."""
    _running(state)
    seat = seat_named(state, actor, action.seat, action.by_admin)
    if seat.resigned:
        raise BadOption(f"{seat.name} has already resigned.")
    return seat, _with_seat(state, seat.id, resigned=True, offered_to="")


def seat_command_action(name: str, options: dict[str, Any]) -> Any:
    """The seat action a table command stands for (None for any other command); the service adds
    `by_admin` and the taker's `name`."""
    by_admin = bool(options.get("by_admin", False))
    seat = str(options.get("player") or "")
    if name == "game resign":
        return Resign(seat, by_admin)
    if name == "game seat give":
        return OfferSeat(str(options["to"]), seat, by_admin)
    if name == "game seat take":
        return TakeSeat(str(options.get("name") or ""))
    if name == "game seat computer":
        return SeatToComputer(seat, by_admin)
    return None


_SEAT_FIELDS = ("ai", "offered_to", "played_by", "resigned")


def holder(seat: Any) -> str:
    """Who holds a seat now, by their shown name: the member who took it (the seat keeps its own name), else
    its own player. The record of a finished game (/stats, /standings) credits this holder: the seat's id is
    theirs once they took it."""
    return getattr(seat, "played_by", "") or seat.name


def addressed(seat: Any) -> str:
    """A seat as words addressed to its player name it: "Carol's seat (dave)" once dave took Carol's seat, else
    its name (the game's pieces keep the seat's name: "Carol's Brawler")."""
    taker = getattr(seat, "played_by", "")
    return f"{seat.name}'s seat ({taker})" if taker else seat.name


def seats_change(state: Any) -> bool:
    """Whether this game's seats can change hands: its seats keep what rules.table.Player keeps of it
    (a game from outside the project may seat players its own way)."""
    return all(all(hasattr(seat, name) for name in _SEAT_FIELDS) for seat in state.players)


def holder_name(state: Any, player: str) -> str:
    """How words addressed to the person playing a seat name them (`addressed`), by the player's id; the id
    itself for someone not seated."""
    seat = state.player(player)
    return addressed(seat) if seat is not None else player


def held_now(events: tuple, state: Any) -> list[str]:
    """A line for each seat these events changed, saying who holds it now (`state`: the state after them):
    what a seat change answers, in a message of its own."""
    lines = []
    for event in events:
        seat = next((p for p in state.players if p.name == getattr(event, "seat", None)), None)
        if seat is None or not isinstance(event, (Resigned, SeatOffered, SeatTaken, SeatToComputerGiven)):
            continue
        whose = "their seat" if holder(seat) == seat.name else f"{seat.name}'s seat"
        if isinstance(event, Resigned):
            now = f"{seat.name}'s seat is out of the game: nobody holds it now."
        elif isinstance(event, SeatOffered):
            now = f"{holder(seat)} still holds {whose} until {mention(event.to)} takes it."
        elif isinstance(event, SeatToComputerGiven):
            now = f"the computer plays {seat.name}'s seat now, until {holder(seat)} takes it back."
        else:
            now = f"{holder(seat)} holds {whose} now." if event.by else \
                f"{seat.name} holds their seat again; the computer no longer plays it."
        lines.append(f"Seat change: {now}")
    return lines


def seats_line(state: Any) -> str:
    """Who holds which seat, where any changed hands: 'Seats: alice (played by carol), bob (the computer
    plays it)'; '' where every seat is its own player's."""
    if not seats_change(state):
        return ""
    notes = []
    for seat in state.players:
        held = ([f"played by {seat.played_by}"] if seat.played_by else []) + \
            (["resigned"] if seat.resigned else []) + \
            (["the computer plays it for now"] if seat.ai and not born_computer(seat.id) and not seat.resigned
             else []) + ([f"offered to {mention(seat.offered_to)}"] if seat.offered_to else [])
        if held:
            notes.append(f"{seat.name} ({', '.join(held)})")
    return f"Seats: {'; '.join(notes)}." if notes else ""


def actors_now(entries: list) -> list:
    """Logged actions (rules.engine.Logged) with each actor as the seat's holder is now: a seat's actions
    from before it changed hands count as its taker's (a face-down counter, a GM's private ruling), so what
    they hide is judged by the seat, never by who sat in it then."""
    if not any(isinstance(entry.action, TakeSeat) for entry in entries):   # the usual log: nobody swapped
        return entries
    now: dict[str, str] = {}
    out = []
    for entry in reversed(entries):
        out.append(replace(entry, actor=now.get(entry.actor, entry.actor)))
        action = entry.action
        if isinstance(action, TakeSeat) and action.seat and action.seat != entry.actor:
            now[action.seat] = now.get(entry.actor, entry.actor)
    return out[::-1]


# --- who is gone, and how often a seat changed hands (read from the log, newest action first) -------------

SEAT_CHANGES = 6   # the most times one seat changes hands in an hour


def answer_first(state: Any, player: str, question: str) -> BadOption:
    """The refusal of a resignation while the table waits on the seat to `question`: named, and with the way
    on, so the host or an admin resigning a gone player's seat reads what unblocks it too."""
    seat = state.player(player)
    return BadOption(f"First {seat.name if seat is not None else player} must {question} (/game seat computer lets "
                     f"the computer do it); then resign.")


def is_resigned(state: Any, player: str) -> bool:
    """Whether `player`'s seat resigned (a game whose seats keep no such mark has none)."""
    return bool(getattr(state.player(player), "resigned", False))


def for_resigned(ruleset: Any, state: Any, player: str) -> Any:
    """What the table answers for a resigned seat the game still asks something: the computer's choice,
    else the answer that is no choice, else the first legal one; None when nothing is asked of it."""
    action = ruleset.computer.choose(state, player) if ruleset.computer is not None else None
    if action is None:
        action = ruleset.forced_action(state, player)
    if action is None:
        action = next((a.action for a in ruleset.legal_actions(state, player) if a.action is not None), None)
    return action


def last_own_action(entries: Iterable[tuple[str, tuple]], seat: Any,
                    taking_counts: bool = True) -> tuple[int | None, bool]:
    """Where in `entries` ((actor, events) of a game's log, newest first) the player holding `seat` last
    acted themselves (None: not among them), and whether a deadline's autopilot played for the seat since.
    Not theirs: what the autopilot or a standing order answered in their name, or the computer played while
    it held the seat (from the time it was given it until its player took it back). `taking_counts`: taking
    the seat (back) is an action of theirs; else (what a catch-up counts) only their play is."""
    computer = bool(getattr(seat, "ai", False))
    autopilot = False
    for index, (actor, events) in enumerate(entries):
        own = actor == seat.id
        for event in events:
            if isinstance(event, SeatTaken) and event.seat == seat.name and own:
                if taking_counts:
                    return index, autopilot   # taken (back) by its holder: an action of theirs
                computer = True   # before it the seat was the computer's or another's, not played by them
            if isinstance(event, SeatToComputerGiven) and event.seat == seat.name:
                if own:
                    return index, autopilot
                computer = False   # before it, the seat's player played it
        if not own or computer:
            continue
        if any(isinstance(e, PlayedByAutopilot) and e.player == seat.name for e in events):
            autopilot = True
        elif not any(isinstance(e, ByStandingOrder) and e.player == seat.name for e in events):
            return index, autopilot
    return None, autopilot


def changes_of(events: tuple, seat: Any) -> int:
    """How many times these events change `seat`'s hands (offered, taken, given to the computer)."""
    return sum(1 for e in events if isinstance(e, (SeatOffered, SeatTaken, SeatToComputerGiven))
               and e.seat == seat.name)


def told_of(events: tuple, state: Any) -> tuple[str, ...]:
    """The holders of the seats someone else acted on in these events (the host or an admin): each is pinged
    and told. Their ids in `state`, the state after the events (a seat keeps its name)."""
    names = [e.seat for e in events if isinstance(e, (SeatOffered, SeatToComputerGiven, Resigned)) and e.by]
    return tuple(dict.fromkeys(p.id for name in names for p in state.players
                               if p.name == name and not born_computer(p.id)))
