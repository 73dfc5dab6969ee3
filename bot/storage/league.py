"""A server's open tables and its board (issue 40 item 1): which lobbies are listed by /lfg, and the one
message per server the bot keeps up to date with them.

A lobby opened `public:yes` gets a row in `open_tables`; it is listed while its game is active, not moved away,
and still in its lobby with a seat free (the service reads the last two off the snapshot). A game found out of
its lobby is closed here for good (`open` 0): a started game never goes back to its lobby (a rollback goes back
no further than the start), so the listing never reads it again.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from bot.storage.store import _GAME_COLUMNS, GameRecord, Store

LISTED_LIMIT = 200   # lobbies read for one listing, newest first (a listing shows far fewer)


@dataclass(frozen=True)
class Board:
    """A server's board: the channel it is kept in, the message showing it (""; not posted yet) and its words
    as last posted."""

    guild: str
    channel: str
    message_id: str = ""
    body: str = ""


async def list_lobby_tx(store: Store, game_id: int, at: float) -> None:
    """List a new lobby, opened at `at` (epoch seconds, the table's clock), inside the transaction that made it."""
    await store.driver.execute("INSERT INTO open_tables (game_id, open, opened_at) VALUES (?, 1, ?)",
                               (game_id, datetime.fromtimestamp(at, UTC).isoformat(timespec="seconds")))


async def keep_listed_tx(store: Store, game_id: int, at: float) -> None:
    """List a lobby that was not listed when it was made (a queued game whose muster left seats open); a lobby
    listed already, or closed for good, stays as it is."""
    await store.driver.execute("INSERT INTO open_tables (game_id, open, opened_at) VALUES (?, 1, ?)"
                               " ON CONFLICT (game_id) DO NOTHING",
                               (game_id, datetime.fromtimestamp(at, UTC).isoformat(timespec="seconds")))


async def carry_listing_tx(store: Store, source_id: int, game_id: int, listed: bool = True) -> None:
    """A game moved (a new record in its new channel): its listing goes with it, unless it is no longer to be
    `listed` (inside the move's transaction)."""
    if listed:
        await store.driver.execute(
            "INSERT INTO open_tables (game_id, open, opened_at) SELECT ?, open, opened_at FROM open_tables"
            " WHERE game_id = ?", (game_id, source_id))
    await store.driver.execute("UPDATE open_tables SET open = 0 WHERE game_id = ?", (source_id,))


async def listed_lobbies(store: Store, guild: str, limit: int = LISTED_LIMIT) -> list[tuple[GameRecord, float]]:
    """The listed games of a server still running where they were made, oldest first, each with when it was
    listed (epoch seconds); whether each is still in its lobby is for the caller to read."""
    columns = ", ".join(f"g.{c.strip()}" for c in _GAME_COLUMNS.split(","))
    rows = await store.driver.fetchall(
        f"SELECT {columns}, o.opened_at FROM open_tables o JOIN games g ON g.id = o.game_id"
        " WHERE o.open = 1 AND g.guild = ? AND g.status = 'active' AND g.moved_to IS NULL"
        " ORDER BY g.id DESC LIMIT ?", (guild, limit))
    return [(GameRecord(*row[:-1]), datetime.fromisoformat(row[-1]).timestamp()) for row in reversed(rows)]


async def close_listings(store: Store, game_ids: list[int]) -> None:
    """Stop listing games that left their lobby (started, ended or moved): never read again."""
    if not game_ids:
        return
    marks = ", ".join("?" for _ in game_ids)
    async with store.transaction():
        await store.driver.execute(f"UPDATE open_tables SET open = 0 WHERE game_id IN ({marks})", tuple(game_ids))


async def is_listed(store: Store, game_id: int) -> bool:
    """Whether a game is listed as an open table (public, and not yet seen out of its lobby)."""
    row = await store.driver.fetchone("SELECT open FROM open_tables WHERE game_id = ?", (game_id,))
    return bool(row and row[0])


async def board(store: Store, guild: str) -> Board | None:
    """A server's board, or None when it keeps none."""
    row = await store.driver.fetchone(
        "SELECT guild, channel, message_id, body FROM league_boards WHERE guild = ?", (guild,))
    return Board(*row) if row else None


async def board_guilds(store: Store) -> list[str]:
    """Every server that keeps a board."""
    return [guild for (guild,) in await store.driver.fetchall("SELECT guild FROM league_boards ORDER BY guild")]


async def set_board(store: Store, guild: str, channel: str | None) -> None:
    """Keep a server's board in `channel` (a new message there, posted at the next update), or none (None)."""
    async with store.transaction():
        if channel is None:
            await store.driver.execute("DELETE FROM league_boards WHERE guild = ?", (guild,))
        else:
            await store.driver.execute(
                "INSERT INTO league_boards (guild, channel) VALUES (?, ?) ON CONFLICT (guild) DO UPDATE"
                " SET channel = excluded.channel, message_id = '', body = ''", (guild, channel))


async def board_posted(store: Store, guild: str, channel: str, message_id: str, body: str) -> None:
    """The board message of a server, as posted or edited in `channel` (nothing when the board moved meanwhile)."""
    async with store.transaction():
        await store.driver.execute("UPDATE league_boards SET message_id = ?, body = ? WHERE guild = ? AND channel = ?",
                                   (message_id, body, guild, channel))
