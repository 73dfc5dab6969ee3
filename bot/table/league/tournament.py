"""A tournament's course: sign-up, seeding, each round's tables, results, and the final table. Pure: the
service stores it as JSON (`dump`/`load`, versioned), opens a game for each table it returns and reports
each game's result order back.

Round robin: every round is fixed at the start (bot.table.league.pairing.round_robin, in seed order); a
round's games are opened together, the next round when the last of them ends. Elimination: each round's
tables are dealt from the members still in (pairing.elimination_round, best seed first); a table of one is
a bye; the winner of each game goes on, and when the winners tie (a draw, or a game ended with no winner)
the best seed among them goes on. The last table is the final.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field

from bot.table.league.pairing import elimination_round, final_table, round_robin

FORMATS = ("round-robin", "elimination")
FORMAT_VERSION = 2   # 2: a table keeps the result the rating read (`ended`); a course of version 1 loads as it was
READ_VERSIONS = (1, 2)
MOST_ENTRANTS = 64   # a bound on a tournament's work and on what its messages list

Order = list[list[str]]   # a game's result: members best first, in groups of ties


class TournamentError(ValueError):
    """A step the tournament refuses, said to the member as it is."""


@dataclass
class Table:
    """One game of a tournament: its round, members (in seat order), stored game and result."""

    round: int
    members: list[str]
    game_id: int | None = None
    order: Order | None = None   # None while the game is being played
    ended: Order | None = None   # its result as the rating read it at the game's end, until the scheduler counts it
    opening: float = 0.0         # when a process took on opening its game, to retry a crashed one (0: nobody yet,
    # or, with game_id, its game is open: seated, timed and started)

    @property
    def bye(self) -> bool:
        return len(self.members) == 1


@dataclass
class Tournament:
    """A tournament's whole course."""

    format: str
    size: int                 # seats a game
    capacity: int             # most entrants
    status: str = "signup"    # signup, running, finished
    entrants: list[str] = field(default_factory=list)
    names: dict[str, str] = field(default_factory=dict)   # each entrant's name as they signed up
    seeds: list[str] = field(default_factory=list)   # entrants best first, fixed at the start
    tables: list[Table] = field(default_factory=list)
    planned: list[list[list[str]]] = field(default_factory=list)   # a round robin's rounds still to open

    @property
    def round(self) -> int:
        return max((t.round for t in self.tables), default=0)

    def current(self) -> list[Table]:
        return [t for t in self.tables if t.round == self.round]

    def table_of(self, game_id: int) -> Table | None:
        return next((t for t in self.tables if t.game_id == game_id), None)


def new(format: str, size: int, capacity: int) -> Tournament:
    """A tournament open for sign-up."""
    if format not in FORMATS:
        raise TournamentError(f"format: one of {', '.join(FORMATS)}.")
    if not 2 <= capacity <= MOST_ENTRANTS:
        raise TournamentError(f"players: from 2 to {MOST_ENTRANTS}.")
    if size < 2:
        raise TournamentError("A game of this tournament seats at least two.")
    return Tournament(format, size, capacity)


def sign_up(tournament: Tournament, member: str, name: str = "") -> None:
    """Add a member before the start."""
    if tournament.status != "signup":
        raise TournamentError("This tournament has started: sign-up is closed.")
    if member in tournament.entrants:
        raise TournamentError("You are signed up already.")
    if len(tournament.entrants) >= tournament.capacity:
        raise TournamentError(f"This tournament is full ({tournament.capacity} players).")
    tournament.entrants.append(member)
    tournament.names[member] = name or member


def withdraw(tournament: Tournament, member: str) -> None:
    """Take a member off the list before the start (after it, they resign their games instead)."""
    if tournament.status != "signup":
        raise TournamentError("This tournament has started: resign your games instead.")
    if member not in tournament.entrants:
        raise TournamentError("You are not signed up.")
    tournament.entrants.remove(member)
    tournament.names.pop(member, None)


def forget(tournament: Tournament, member: str, alias: str, neutral: str) -> None:
    """A forgotten member's place: off the list before the start; after it, their id `alias` and their name
    `neutral` everywhere the course keeps them (their games' ids are renamed to the same alias)."""
    if tournament.status == "signup":
        if member in tournament.entrants:
            withdraw(tournament, member)
        return

    def swap(members: list[str]) -> list[str]:
        return [alias if m == member else m for m in members]

    def swap_order(order: Order | None) -> Order | None:
        return None if order is None else [swap(group) for group in order]
    tournament.entrants, tournament.seeds = swap(tournament.entrants), swap(tournament.seeds)
    if tournament.names.pop(member, None) is not None:
        tournament.names[alias] = neutral
    tournament.planned = [[swap(members) for members in round_] for round_ in tournament.planned]
    for table in tournament.tables:
        table.members, table.order, table.ended = swap(table.members), swap_order(table.order), swap_order(table.ended)


def start(tournament: Tournament, rating: Mapping[str, float]) -> list[Table]:
    """Seed the entrants by rating (then by who signed up first) and deal the first round: the tables to
    open. Byes are settled at once."""
    if tournament.status != "signup":
        raise TournamentError("This tournament has started already.")
    if len(tournament.entrants) < 2:
        raise TournamentError("A tournament needs at least two players.")
    signed = {member: place for place, member in enumerate(tournament.entrants)}
    tournament.seeds = sorted(tournament.entrants, key=lambda m: (-rating.get(m, 0.0), signed[m]))
    tournament.status = "running"
    if tournament.format == "round-robin":
        tournament.planned = [[list(table) for table in tables]
                              for tables in round_robin(tournament.seeds, tournament.size)]
        return _next_round_robin(tournament)
    return _deal_elimination(tournament, tournament.seeds)


def record(tournament: Tournament, game_id: int, order: Sequence[Sequence[str]]) -> list[Table]:
    """A game of the tournament ended with this result: the tables of the next round to open, once the
    round is over (none before, and none when the tournament is finished)."""
    table = tournament.table_of(game_id)
    if table is None or table.order is not None:
        return []
    table.order = [list(group) for group in order if group]
    if any(t.order is None for t in tournament.current()):
        return []
    if tournament.format == "round-robin":
        return _next_round_robin(tournament)
    winners = [_winner(tournament, t) for t in tournament.current()]
    if len(winners) == 1:
        tournament.status = "finished"
        return []
    return _deal_elimination(tournament, sorted(winners, key=tournament.seeds.index))


def _winner(tournament: Tournament, table: Table) -> str:
    """Who goes on from a table: its only member (a bye), else its best-placed, the best seed among a tie."""
    top = table.order[0] if table.order else table.members
    return min(top, key=tournament.seeds.index)


def _next_round_robin(tournament: Tournament) -> list[Table]:
    if not tournament.planned:
        tournament.status = "finished"
        return []
    number = tournament.round + 1
    tables = [Table(number, members) for members in tournament.planned.pop(0)]
    tournament.tables += tables
    return tables


def _deal_elimination(tournament: Tournament, members: list[str]) -> list[Table]:
    number = tournament.round + 1
    tables = [Table(number, list(members_)) for members_ in elimination_round(members, tournament.size)]
    for table in tables:
        if table.bye:
            table.order = [list(table.members)]
    tournament.tables += tables
    if all(t.bye for t in tables):   # only byes: cannot happen with two or more members, kept total
        tournament.status = "finished"
    return [t for t in tables if not t.bye]


def standing(tournament: Tournament, rating: Mapping[str, float] | None = None) -> list[tuple[str, float]]:
    """The table of the tournament so far, best first, with each member's score: a round robin's points
    (pairing.final_table: a point for each member finished ahead of, half for a tie); an elimination's
    round reached (then place in their last game, then seed)."""
    if tournament.format == "round-robin":
        played = [t.order for t in tournament.tables if t.order is not None and not t.bye]
        return final_table(played, tournament.seeds or tournament.entrants, rating)
    reached: dict[str, tuple[int, int]] = {}
    for table in tournament.tables:
        for place, group in enumerate(table.order or [table.members]):
            for member in group:
                reached[member] = (table.round, -place if table.order is not None else 0)
    if tournament.status == "finished" and tournament.tables:
        champion = _winner(tournament, tournament.current()[0])
        reached[champion] = (tournament.round + 1, 0)
    seeds = tournament.seeds or tournament.entrants
    ranked = sorted(seeds, key=lambda m: (-reached.get(m, (0, 0))[0], -reached.get(m, (0, 0))[1], seeds.index(m)))
    return [(member, float(reached.get(member, (0, 0))[0])) for member in ranked]


def dump(tournament: Tournament) -> str:
    """The tournament as stored (JSON, with its format's version)."""
    return json.dumps({"version": FORMAT_VERSION, **asdict(tournament)}, separators=(",", ":"))


def load(text: str) -> Tournament:
    """A stored tournament: a version this code does not know is refused, not guessed."""
    data = json.loads(text)
    if data.pop("version", None) not in READ_VERSIONS:
        raise TournamentError("This tournament was stored by a newer Pitboss.")
    data["tables"] = [Table(**table) for table in data["tables"]]
    return Tournament(**data)
