"""The league follows a game its season or tournament paired when the game is moved to another channel."""

from __future__ import annotations

from bot.storage import seasons, tournaments
from bot.storage.store import Store
from bot.table.league import tournament as course


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
