"""The grammar's commands compiled into types the service routes on (issue 37 item 4).

Each command the table carries out itself is a small frozen dataclass named after its grammar command
(`@named("game pause")`), holding its options as typed fields; `compiled` turns a parsed `Command` into
one. The service keeps one handler per type (bot.table.service.entry.GameService._handlers, and
Asking._answers for the queries), so a new table command is a dataclass here and one entry there, and a
reader follows a command from `compiled` to its handler by its type. A game's own moves and the seat
commands its rules referee (/game join, /game start...) stay `Play`; a game's own queries `GameQuery`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import MISSING, dataclass, fields
from typing import Any, ClassVar, TypeVar

from bot.table.protocol.commands import Command, command_table

__all__ = ["Away", "Back", "Catchup", "Export", "Follow", "GameLog", "GameQuery", "GameStatus", "Games", "Help",
           "Import", "MySettings", "NewGame", "OrdersClear", "OrdersSet", "OrdersShow", "Pause", "Play", "Query",
           "Replay", "Rollback", "Rules", "Sheet", "Standings", "Stats", "TableCommand", "TableSettings", "Undo",
           "Unfollow", "Verify", "compiled", "handler_of"]
__all__ += ["Propose", "Rematch"]   # issue 38 findings 15 and 14 (kept apart: other commands are added above)
__all__ += ["Forget"]   # issue 39 item 12
__all__ += ["LeagueBoard", "LookingForGame"]   # issue 40 item 1
__all__ += ["Review"]   # issue 40 item 5
__all__ += ["QueueAnswer", "QueueJoin", "QueueLeave", "QueueShow"]   # issue 40 item 2
__all__ += ["TournamentNew", "TournamentStep"]   # issue 40 item 4
__all__ += ["LeagueNew", "LeagueStep"]   # issue 40 item 4: seasons
__all__ += ["LeagueRoles"]   # issue 40 item 4: rank roles


class TableCommand:
    """A command compiled for the service: its fields are the options it reads, by name."""

    names: ClassVar[tuple[str, ...]] = ()   # the grammar commands compiled into this type

    @classmethod
    def of(cls, command: Command) -> TableCommand:
        """This type from a parsed command: a field `sent` takes the command itself, `options` all its
        options, any other field the option of its name (the field's default when it is left out)."""
        given: dict[str, Any] = {}
        for field in fields(cls):  # type: ignore[arg-type]
            if field.name == "sent":
                given["sent"] = command
            elif field.name == "options":
                given["options"] = command.options
            elif field.name in command.options or field.default is MISSING:
                given[field.name] = command.options[field.name]
        return cls(**given)


class Query(TableCommand):
    """A command that only reads the game (answered by bot.table.service.asking.Asking.query)."""


_NAMED: dict[str, type[TableCommand]] = {}
_Kind = TypeVar("_Kind", bound=type[TableCommand])


def named(*names: str) -> Callable[[_Kind], _Kind]:
    """Register a type as what the grammar commands `names` compile into."""
    def register(kind: _Kind) -> _Kind:
        for name in names:
            if name in _NAMED:
                raise ValueError(f"/{name} is already compiled into {_NAMED[name].__name__}")
            _NAMED[name] = kind
        kind.names = names
        return kind
    return register


def compiled(command: Command) -> TableCommand:
    """`command` as its type: a table command's own, a game's query, or a move the game referees."""
    kind = _NAMED.get(command.name)
    if kind is not None:
        return kind.of(command)
    return GameQuery(command) if command.name in command_table().queries else Play(command)


_Handler = TypeVar("_Handler")


def handler_of(handlers: Mapping[type[TableCommand], _Handler], command: TableCommand) -> _Handler:
    """The handler of `command`'s type, or of the nearest type it is a kind of (a Query)."""
    return next(handlers[kind] for kind in type(command).__mro__ if kind in handlers)


@named("game new")
@dataclass(frozen=True)
class NewGame(TableCommand):
    """/new GAME (and /game new): a new game in a channel that has none."""

    options: dict


@named("games")
@dataclass(frozen=True)
class Games(TableCommand):
    """/games: the running games a player sits in on this server."""


@named("help")
@dataclass(frozen=True)
class Help(TableCommand):
    """/help, or /help command:NAME."""

    command: str | None = None


@named("rules")
@dataclass(frozen=True)
class Rules(TableCommand):
    """/rules: the channel's game's rules, one topic, or every rule naming a word."""

    topic: str | None = None
    page: int = 1


@named("orders set")
@dataclass(frozen=True)
class OrdersSet(TableCommand):
    """/orders set: answer one of the game's questions in advance."""

    question: str
    answer: str


@named("orders show")
@dataclass(frozen=True)
class OrdersShow(TableCommand):
    """/orders show: one's standing orders, and the questions one may answer in advance."""


@named("orders clear")
@dataclass(frozen=True)
class OrdersClear(TableCommand):
    """/orders clear: drop one standing order, or all of them."""

    question: str | None = None


@named("game follow")
@dataclass(frozen=True)
class Follow(TableCommand):
    """/game follow: a ping once a round (or at the end) for a spectator."""

    mode: str = "round"


@named("game unfollow")
@dataclass(frozen=True)
class Unfollow(TableCommand):
    """/game unfollow."""


@named("stats")
@dataclass(frozen=True)
class Stats(TableCommand):
    """/stats: a member's record on this server."""

    options: dict


@named("standings")
@dataclass(frozen=True)
class Standings(TableCommand):
    """/standings: this server's players of one game, by rating."""

    options: dict


@named("undo")
@dataclass(frozen=True)
class Undo(TableCommand):
    """/undo: take back one's own last action."""


@named("game rollback")
@dataclass(frozen=True)
class Rollback(TableCommand):
    """/game rollback: propose or answer a vote to return the game to an earlier action."""

    options: dict


@named("game propose")
@dataclass(frozen=True)
class Propose(TableCommand):
    """/game propose: propose or answer a vote on a result by agreement (a draw, or an end with no winner)."""

    options: dict


@named("game rematch")
@dataclass(frozen=True)
class Rematch(TableCommand):
    """/game rematch: propose the same game again after its end, or answer the proposal."""

    vote: str = "yes"


@named("game import")
@dataclass(frozen=True)
class Import(TableCommand):
    """/game import: continue or re-play an exported game here."""

    file: bytes


@named("game settings")
@dataclass(frozen=True)
class TableSettings(TableCommand):
    """/game settings: show or change the table's clock."""

    options: dict


@named("game pause")
@dataclass(frozen=True)
class Pause(TableCommand):
    """/game pause: pause one's deadlines and reminders at this table."""

    hours: int


@named("me settings")
@dataclass(frozen=True)
class MySettings(TableCommand):
    """/me settings: a player's own clock on this server."""

    options: dict


@named("me away")
@dataclass(frozen=True)
class Away(TableCommand):
    """/me away: pause one's clock in every game on this server."""

    hours: int


@named("me back")
@dataclass(frozen=True)
class Back(TableCommand):
    """/me back: end a /me away pause."""


@named("me forget")
@dataclass(frozen=True)
class Forget(TableCommand):
    """/me forget: delete the member's own data, their name in games made neutral."""

    confirm: str = ""


@named("queue join")
@dataclass(frozen=True)
class QueueJoin(TableCommand):
    """/queue join: wait for a game of these options and players."""

    ruleset: str
    players: int
    setup: str = ""
    at_once: int | None = None


@named("queue leave")
@dataclass(frozen=True)
class QueueLeave(TableCommand):
    """/queue leave: stop waiting in one game's queues, or in all."""

    ruleset: str = ""


@named("queue show")
@dataclass(frozen=True)
class QueueShow(TableCommand):
    """/queue show: one's queues and queued games."""


@named("queue confirm", "queue decline")
@dataclass(frozen=True)
class QueueAnswer(TableCommand):
    """/queue confirm and /queue decline: a mustered member's answer."""

    sent: Command


@named("game status")
@dataclass(frozen=True)
class GameStatus(Query):
    """/game status: the table and whose turn it is."""

    view: str | None = None


@named("game log")
@dataclass(frozen=True)
class GameLog(Query):
    """/game log: recent events, or those a rollback set aside."""

    options: dict


@named("game catchup")
@dataclass(frozen=True)
class Catchup(Query):
    """/game catchup: what happened since one's own last action."""


@named("game export")
@dataclass(frozen=True)
class Export(Query):
    """/game export: the action log as a file."""


@named("game verify")
@dataclass(frozen=True)
class Verify(Query):
    """/game verify: re-run every roll and check the game."""


@named("game review")
@dataclass(frozen=True)
class Review(Query):
    """/game review: a finished game's turning points, dice luck and standing chart."""


@named("game replay")
@dataclass(frozen=True)
class Replay(Query):
    """/game replay: an animated GIF of the game so far."""


@named("game sheet")
@dataclass(frozen=True)
class Sheet(Query):
    """/game sheet: the cars' full sheets."""

    options: dict


@dataclass(frozen=True)
class GameQuery(Query):
    """A game's own query (/hand, /odds...), answered by its rules."""

    sent: Command


@dataclass(frozen=True)
class Play(TableCommand):
    """A move the game's rules referee: its own commands and the seat commands (Acting.act)."""

    sent: Command


@named("lfg")
@dataclass(frozen=True)
class LookingForGame(TableCommand):
    """/lfg: the server's open tables, privately; /lfg game:N joins one (what its Join button does)."""

    game: int | None = None


@named("tournament new")
@dataclass(frozen=True)
class TournamentNew(TableCommand):
    """/tournament new: a tournament open for sign-up."""

    options: dict


@named("tournament join", "tournament leave", "tournament start", "tournament show", "tournament cancel")
@dataclass(frozen=True)
class TournamentStep(TableCommand):
    """/tournament join, leave, start, show and cancel: one tournament, by number or this channel's newest."""

    sent: Command
    number: int | None = None


@named("league new")
@dataclass(frozen=True)
class LeagueNew(TableCommand):
    """/league new: a season that pairs its members into games (Manage Server)."""

    options: dict


@named("league join", "league leave", "league show", "league end")
@dataclass(frozen=True)
class LeagueStep(TableCommand):
    """/league join, leave, show and end: one season, by number or this channel's running one."""

    sent: Command
    number: int | None = None


@named("league board")
@dataclass(frozen=True)
class LeagueBoard(TableCommand):
    """/league board: where the server's board of open tables is kept; channel: names it, off:yes drops it."""

    channel: str | None = None
    off: str | None = None


@named("league roles")
@dataclass(frozen=True)
class LeagueRoles(TableCommand):
    """/league roles: the server's rank roles; ruleset: one game's, set:on|off turns them on or off."""

    ruleset: str | None = None
    set: str | None = None
