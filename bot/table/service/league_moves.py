"""A game its season or tournament paired: which of them holds it while it runs (its clock, its server and its start
are theirs), and the league following the game when it is moved to another channel."""

from __future__ import annotations

import json
from dataclasses import dataclass

from bot.storage import seasons, tournaments
from bot.storage.seasons import SeasonRecord
from bot.storage.store import Store
from bot.storage.tournaments import TournamentRecord
from bot.table.league import tournament as course


@dataclass(frozen=True)
class PairedBy:
    """The running tournament or season a game belongs to."""

    kind: str             # "tournament" or "season"
    number: int
    deadline_hours: int   # the turn deadline it gives its games
    members: tuple[str, ...] = ()   # whom it seats at this game

    def __str__(self) -> str:
        return f"{self.kind} {self.number}"


async def paired_by(store: Store, game_id: int) -> PairedBy | None:
    """The running tournament or season the game belongs to; None for any other game (one of a tournament called off
    or a season ended plays on as an ordinary game)."""
    record: TournamentRecord | SeasonRecord | None = await tournaments.of_game(store, game_id)
    kind = "tournament"
    if record is None or record.status != "running":
        record, kind = await seasons.of_game(store, game_id), "season"
    if record is None or record.status != "running":
        return None
    if isinstance(record, TournamentRecord):
        table = course.load(record.course).table_of(game_id)
        members = tuple(table.members) if table is not None else ()
    else:
        members = next((g.members for g in await seasons.games(store, record.id) if g.game_id == game_id), ())
    return PairedBy(kind, record.id, int(json.loads(record.options)["deadline_hours"]), members)


async def game_moved_tx(store: Store, old: int, new: int) -> None:
    """Inside a move's write: a season's game and a tournament's table are the moved game (`new`) from now on, so its
    result counts where it is played and the retired record (`old`, finished as moved) is never read as a result."""
    await seasons.game_moved_tx(store, old, new)
    record = await tournaments.of_game(store, old)
    if record is None:
        return
    await tournaments.game_moved_tx(store, old, new)
    plan = course.load(record.course)
    table = plan.table_of(old)
    if table is not None:
        table.game_id = new
        await tournaments.save_tx(store, record, plan.status, course.dump(plan))
