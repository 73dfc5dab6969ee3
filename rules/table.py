"""Table pieces every ruleset shares: the state contract the table reads (TableState, the shared
phases), ending a game, an admin taking the host's chair, turn starts, the rules revision a game was
made under, the round cap, and unique seat names."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any, ClassVar, Protocol, TypeVar, runtime_checkable

from rules.codec import Registry, added_field
from rules.errors import BadOption, NotHost

T = TypeVar("T")


def required(value: T | None, missing: str, key: object = None) -> T:
    """`value`, which the game's invariants guarantee; a KeyError saying what is `missing` otherwise (a bug,
    or a hostile log a re-play refuses: never a player's mistake)."""
    if value is None:
        raise KeyError(missing if key is None else f"{missing}: {key!r}")
    return value


@dataclass(frozen=True)
class Player:
    """A seat at the table: who, their shown name, and whether the computer plays it; once the game runs,
    whom it is offered to, who took it over, and whether its player resigned (rules.seats)."""

    player_ids: ClassVar[tuple[str, ...]] = ("id",)   # fields holding player ids, renamed by rules.seats

    id: str
    name: str
    ai: bool = False
    offered_to: str = added_field("")
    played_by: str = added_field("")
    resigned: bool = added_field(False)


class TablePhase(StrEnum):
    """The phases every game shares, by value: seats open before the start, and the game over. Each game's
    own phase enum has them under the same names and values (what stored snapshots hold), and the table's
    code compares against these, never against strings."""

    LOBBY = "lobby"
    FINISHED = "finished"


class TableSeat(Protocol):
    """A seated player, as the table reads one."""

    @property
    def id(self) -> str: ...
    @property
    def name(self) -> str: ...


@runtime_checkable
class TableState(Protocol):
    """What the table (the service, the pictures' captions, selfplay, the clock) reads of a game's state.
    Every game's state satisfies it; anything else it needs it asks of the game's Ruleset."""

    @property
    def host(self) -> str: ...
    @property
    def phase(self) -> str: ...   # a game's own phase enum (StrEnum), LOBBY and FINISHED among its values
    @property
    def round(self) -> int: ...
    @property
    def winner(self) -> str | None: ...
    @property
    def ended_by(self) -> str | None: ...
    @property
    def players(self) -> Sequence[TableSeat]: ...

    def player(self, player_id: str | None) -> TableSeat | None: ...


@dataclass(frozen=True)
class EndGame:
    """Stop the game (the host, or a server admin when `by_admin`)."""

    by_admin: bool = False


@dataclass(frozen=True)
class TakeOver:
    """A server admin becomes the table's host (to start, settle or end an abandoned game)."""

    by_admin: bool = False


@dataclass(frozen=True)
class TurnBegan:
    player: str
    round: int

    def describe(self) -> str:
        return f"Round {self.round + 1}: {self.player}'s turn."


@dataclass(frozen=True)
class GameEnded:
    by: str

    def describe(self) -> str:
        return f"The game was ended by {self.by}."


@dataclass(frozen=True)
class HostChanged:
    host: str

    def describe(self) -> str:
        return f"{self.host} took over as host."


# --- seats that change hands in a running game (applied by rules.seats) ---------------------------

@dataclass(frozen=True)
class Resign:
    """Leave a running game for good: `seat` (a player id or name) for the host or an admin; "" is one's own."""

    seat: str = ""
    by_admin: bool = False


@dataclass(frozen=True)
class OfferSeat:
    """Offer a seat to the member `to` (their id), who takes it with TakeSeat."""

    to: str
    seat: str = ""
    by_admin: bool = False


@dataclass(frozen=True)
class TakeSeat:
    """Take the seat offered to the actor (`name`: how the table shows them), or take back one's own seat
    from the computer. `seat` is the id the seat had, so the log says whose earlier actions are now the
    taker's (rules.seats.completed fills it in)."""

    name: str = ""
    seat: str = ""


@dataclass(frozen=True)
class SeatToComputer:
    """The computer plays `seat` until its player takes it back."""

    seat: str = ""
    by_admin: bool = False


SEAT_ACTIONS = (Resign, OfferSeat, TakeSeat, SeatToComputer)

# The setup option /game new adds for a game that may seat a game master (rules.engine.GameMaster): the host's
# shown name, so a host a game seats at setup (as its GM) is named as the others are, never by their id.
HOST_NAME = "host_name"


@dataclass(frozen=True)
class Resigned:
    seat: str
    by: str = ""
    left: str = ""   # what becomes of the seat's pieces, in the game's words

    def describe(self) -> str:
        said = f"{self.seat} resigned." if not self.by else f"{self.by} resigned {self.seat}'s seat."
        return f"{said} {self.left}" if self.left else said


@dataclass(frozen=True)
class SeatOffered:
    seat: str
    to: str   # the member's id: the transport shows it as a mention
    by: str = ""

    def describe(self) -> str:
        offered = f"{self.by} offers {self.seat}'s seat" if self.by else f"{self.seat} offers their seat"
        return f"{offered} to {mention(self.to)}: /game seat take takes it."


@dataclass(frozen=True)
class SeatTaken:
    seat: str
    by: str            # the new holder's shown name ("" when a player took their own seat back)

    def describe(self) -> str:
        if not self.by:
            return f"{self.seat} takes their seat back from the computer."
        return f"{self.by} takes {self.seat}'s seat and plays it from now on."


@dataclass(frozen=True)
class SeatToComputerGiven:
    seat: str
    by: str = ""

    def describe(self) -> str:
        who = f"{self.by} gives {self.seat}'s seat" if self.by else f"{self.seat} gives their seat"
        return f"{who} to the computer, which plays it until its player takes it back (/game seat take)."


@dataclass(frozen=True)
class ByStandingOrder:
    """An answer the table gave at once in a player's name, by the order they left (`/orders set`)."""

    player: str
    question: str

    def describe(self) -> str:
        return f"{self.player} answers by standing order ({self.question.replace('_', ' ')}):"


@dataclass(frozen=True)
class PlayedByAutopilot:
    """A missed deadline: the autopilot played this action for the player."""

    player: str

    def describe(self) -> str:
        return f"The autopilot plays for {self.player}:"


# --- a rollback the table voted for (bot.table.service.rollback) -------------------------------------

@dataclass(frozen=True)
class Rollback:
    """The table agreed to return the game to its action #`to`: logged right after it, it moves the
    dice onto stream `branch` (the game's rollback count), so no one knows the next dice. `set_aside`
    counts the actions it set aside, as the channel counts them. `redeal`: the game also deals anew what
    it keeps hidden (rules.referee.Referee.on_rollback), as every rollback logged since issue 36 does; a
    rollback logged before, without it, replays as it was played."""

    to: int
    branch: int
    set_aside: int = 0
    redeal: bool = added_field(False)


@dataclass(frozen=True)
class RolledBack:
    to: int
    branch: int
    set_aside: int

    def describe(self) -> str:
        aside = plural(self.set_aside, "action", "actions")
        return (f"The table voted to roll back to #{self.to}: {aside} set aside (/game log set_aside:{self.branch} "
                f"reads them). The dice now come from a new stream of the seed.")


# --- a result the table agreed to (bot.table.service.proposals) --------------------------------------

AGREED_RESULTS = ("draw", "end")


@dataclass(frozen=True)
class AgreeResult:
    """Every seated player agreed (/game propose): `result` "draw" ends the game as a draw among the players
    still in, "end" ends it with no winner; the game records which in its `agreed`."""

    result: str


@dataclass(frozen=True)
class ResultAgreed:
    result: str
    drawn: tuple[str, ...] = ()   # the names of the players still in, who share a draw

    def describe(self) -> str:
        if self.result == "draw":
            return f"The table agreed to a draw: {', '.join(self.drawn) or 'nobody still in'} share it."
        return "The table agreed to end the game: it ends with no winner."


def agreed_words(agreed: str) -> str:
    """How a finished game's prompt says it ended by agreement (`agreed`: its AgreeResult's result)."""
    return "Game over: a draw by agreement." if agreed == "draw" else "Game over: ended by agreement, with no winner."


# The actions the referee applies itself, in any phase of a running game, outside the games' phase tables.
OUTSIDE_PHASES = (*SEAT_ACTIONS, Rollback, AgreeResult)

@dataclass(frozen=True)
class NoteSent:
    """A private note to one player (a seated GM's /gm tell): the channel learns only that it was sent; its
    words are in the action, which only the sender and the addressee read (rules.engine.Secrets.kept)."""

    name: str          # the addressee's shown name
    to: str            # the addressee's player id: the transport pings them
    by: str = "The GM"

    def describe(self) -> str:
        return f"{self.by} told {self.name} something."


SEAT_EVENTS = (Resigned, SeatOffered, SeatTaken, SeatToComputerGiven, ByStandingOrder, PlayedByAutopilot)


def mention(player_id: str) -> str:
    """A member as a message names them: a mention on Discord (numeric ids), the id elsewhere."""
    return f"<@{player_id}>" if player_id.isdigit() else player_id


def register_table_actions(registry: Registry) -> None:
    """Make the shared actions part of a ruleset's action registry: ending, taking over, seats."""
    for cls in (EndGame, TakeOver, Rollback, AgreeResult, *SEAT_ACTIONS):
        registry.register(cls)


def register_table_events(registry: Registry) -> None:
    """Make the shared events part of a ruleset's event registry."""
    for cls in (TurnBegan, GameEnded, HostChanged, RolledBack, ResultAgreed, NoteSent, *SEAT_EVENTS):
        registry.register(cls)


def who_ends(state: Any, actor: str, action: EndGame) -> str:
    """The name to credit with ending the game; only the host or a server admin may."""
    if actor != state.host and not action.by_admin:
        raise NotHost("Only the host or a server admin can end the game.")
    seat = state.player(actor)
    return seat.name if seat else actor


def take_over(state: Any, actor: str, action: TakeOver) -> tuple[Any, tuple]:
    """A server admin takes the host's chair (any ruleset's state with `host` and `player()`)."""
    if not action.by_admin:
        raise NotHost("Only a server admin (Manage Server) can take over a game.")
    if actor == state.host:
        raise BadOption("You are already the host.")
    seat = state.player(actor)
    return replace(state, host=actor), (HostChanged(seat.name if seat else "a server admin"),)


# --- the rules revision -----------------------------------------------------------------------------

def revision_option(options: dict[str, Any], newest: int) -> int:
    """The rules revision a game is played under: its setup option "revision" (1 when absent, as in
    every game stored before revisions existed), an int from 1 to the ruleset's newest."""
    revision = options.get("revision", 1)
    if type(revision) is not int or not 1 <= revision <= newest:
        raise BadOption(f"revision: a whole number from 1 to {newest}.")
    return revision


# --- unique names (revision 2) ----------------------------------------------------------------------

# Names that read like an id: a car id (c1, c2, ...), a computer seat's id (ai-1, ...), and "ai",
# whose second car would be called ai-2.
_ID_LIKE = re.compile(r"c\d+|ai(-\d+)?")


def rounds_option(options: dict[str, Any]) -> int | None:
    """The round cap a game is set up with (`/game new rounds:N`): a positive whole number, or None."""
    rounds = options.get("rounds")
    if rounds is not None and (type(rounds) is not int or rounds < 1):
        raise BadOption("rounds: must be a positive whole number.")
    return rounds


def name_key(name: str) -> str:
    """What two names are compared by: case and surrounding spaces do not count."""
    return name.strip().casefold()


def looks_like_an_id(name: str) -> bool:
    """Whether a name could be read as a car id or a computer seat's id."""
    return _ID_LIKE.fullmatch(name_key(name)) is not None


def unique_name(base: str, taken: set[str], limit: int) -> str:
    """`base` if no name in `taken` (name keys) is the same and it looks like no id, else the first of
    `base#2`, `base#3`, ... that is free, cut to `limit` characters with its suffix kept."""
    base = base.strip()[:limit] or "player"
    if name_key(base) not in taken and not looks_like_an_id(base):
        return base
    number = 2
    while True:
        suffix = f"#{number}"
        candidate = base[:limit - len(suffix)].rstrip() + suffix
        if name_key(candidate) not in taken:
            return candidate
        number += 1


COMPUTER_ID_PREFIX = "ai-"   # a computer seat's id: ai-1, ai-2, ... (never a person's: the table refuses it)


def born_computer(player_id: str) -> bool:
    """Whether a seat was made for the computer (/game add-ai), not a person's handed to it."""
    return player_id.startswith(COMPUTER_ID_PREFIX)


def computer_seat(player_ids: set[str], taken: set[str]) -> tuple[str, str]:
    """A new computer seat's (id, name): the first `ai-N` no seat has, and `RoboM`, M from N up, the
    first no name in `taken` (name keys) uses."""
    number = 1
    while f"{COMPUTER_ID_PREFIX}{number}" in player_ids:
        number += 1
    robo = number
    while name_key(f"Robo{robo}") in taken:
        robo += 1
    return f"{COMPUTER_ID_PREFIX}{number}", f"Robo{robo}"


def plan_shot_option(options: dict[str, Any], example: str) -> tuple[str, str] | None:
    """A plan's `fire:` option as (weapon, target), or None; BadOption when it is not written
    WEAPON@TARGET (`example` shows how, e.g. 'MOUNT@TARGET, e.g. front@bob')."""
    if not options.get("fire"):
        return None
    weapon, _, target = str(options["fire"]).partition("@")
    if not weapon.strip() or not target.strip():
        raise BadOption(f"fire: write {example}.")
    return weapon.strip(), target.strip()


def plural(count: int, one: str, many: str) -> str:
    """`count` with the word that fits it: "1 hex", "3 hexes"."""
    return f"{count} {one if count == 1 else many}"
