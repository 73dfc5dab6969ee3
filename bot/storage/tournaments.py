"""The server's tournaments as stored: one row each (its course as JSON, versioned for concurrent writers)
and the games that belong to it."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace

from bot.storage.store import Store, VersionConflict, _now, guild_rows

_COLUMNS = "id, guild, channel, ruleset, options, creator, gate, status, course, message_id, version"


@dataclass(frozen=True)
class TournamentRecord:
    """A stored tournament: where and what it plays, who made it, its gate and its course."""

    id: int
    guild: str
    channel: str
    ruleset: str
    options: str
    creator: str
    gate: float | None
    status: str
    course: str
    message_id: str = ""
    version: int = 0


async def create(store: Store, guild: str, channel: str, ruleset: str, options: str, creator: str,
                 gate: float | None, course: str) -> TournamentRecord:
    """A new tournament, open for sign-up."""
    now = _now()
    async with store.transaction():
        (number,) = await store._one(
            "INSERT INTO tournaments (guild, channel, ruleset, options, creator, gate, status, course, version,"
            " created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 'signup', ?, 1, ?, ?) RETURNING id",
            (guild, channel, ruleset, options, creator, gate, course, now, now))
    return TournamentRecord(int(number), guild, channel, ruleset, options, creator, gate, "signup", course, "", 1)


async def get(store: Store, tournament_id: int) -> TournamentRecord | None:
    row = await store.driver.fetchone(f"SELECT {_COLUMNS} FROM tournaments WHERE id = ?", (tournament_id,))
    return _record(row) if row is not None else None


async def of_guild(store: Store, guild: str, statuses: tuple[str, ...] = ("signup", "running"),
                   limit: int = 25) -> list[TournamentRecord]:
    """A server's tournaments in these states, newest first (at most `limit`)."""
    return [_record(row) for row in await guild_rows(store, "tournaments", _COLUMNS, guild, statuses, limit)]


async def save_tx(store: Store, record: TournamentRecord, status: str, course: str,
                  creator: str | None = None) -> TournamentRecord:
    """Write a changed course (and `creator`, a forgotten member's pseudonym) inside the caller's transaction:
    a VersionConflict when another writer got there first (the caller reads again and retries)."""
    creator = record.creator if creator is None else creator
    changed = await store.driver.execute(
        "UPDATE tournaments SET status = ?, course = ?, creator = ?, version = version + 1, updated_at = ?"
        " WHERE id = ? AND version = ?", (status, course, creator, _now(), record.id, record.version))
    if not changed:
        raise VersionConflict(f"tournament {record.id} changed meanwhile")
    return replace(record, status=status, course=course, creator=creator, version=record.version + 1)


async def naming(store: Store, member: str) -> list[TournamentRecord]:
    """Every tournament whose course or creator names a member (a forgotten member's are rewritten)."""
    rows = await store.driver.fetchall(f"SELECT {_COLUMNS} FROM tournaments WHERE creator = ? OR course LIKE ?"
                                       " ORDER BY id", (member, f"%{json.dumps(member)}%"))
    return [_record(row) for row in rows]


async def set_message(store: Store, tournament_id: int, message_id: str) -> None:
    """Remember the public message that shows the tournament (edited as it goes)."""
    async with store.transaction():
        await store.driver.execute("UPDATE tournaments SET message_id = ? WHERE id = ?", (message_id, tournament_id))


async def link_game_tx(store: Store, tournament_id: int, game_id: int) -> None:
    """Mark a game as one of the tournament's, inside the transaction that made it."""
    await store.driver.execute("INSERT INTO tournament_games (game_id, tournament_id) VALUES (?, ?)",
                               (game_id, tournament_id))


async def game_moved_tx(store: Store, old: int, new: int) -> None:
    """A tournament's game moved to another channel (as `new`): linked there, inside the move's write (the
    course's table is relinked by its caller, bot.table.service.league_moves)."""
    await store.driver.execute("UPDATE tournament_games SET game_id = ? WHERE game_id = ?", (new, old))


async def of_game(store: Store, game_id: int) -> TournamentRecord | None:
    """The tournament a game belongs to, if any."""
    row = await store.driver.fetchone(
        f"SELECT {', '.join('t.' + c.strip() for c in _COLUMNS.split(','))} FROM tournaments t"
        " JOIN tournament_games g ON g.tournament_id = t.id WHERE g.game_id = ?", (game_id,))
    return _record(row) if row is not None else None


def _record(row: tuple) -> TournamentRecord:
    number, guild, channel, ruleset, options, creator, gate, status, course, message_id, version = row
    return TournamentRecord(int(number), guild, channel, ruleset, options, creator,
                            None if gate is None else float(gate), status, course, message_id, int(version))


async def running(store: Store, limit: int = 200) -> list[TournamentRecord]:
    """Every server's running tournaments, oldest first (at most `limit`: a bound on a scheduler's round)."""
    rows = await store.driver.fetchall(
        f"SELECT {_COLUMNS} FROM tournaments WHERE status = 'running' ORDER BY id LIMIT ?", (limit,))
    return [_record(row) for row in rows]


async def actions_and_autopiloted(store: Store, guild: str, member: str) -> tuple[int, int]:
    """How many actions a member's seats made in this server's finished games, and how many of them the
    autopilot played at a deadline (counted by the database; the gate of a tournament reads it)."""
    (actions, autopiloted) = await store._one(
        "SELECT COUNT(*), COALESCE(SUM(CASE WHEN a.events LIKE '%\"PlayedByAutopilot\"%' THEN 1 ELSE 0 END), 0)"
        " FROM actions a JOIN games g ON g.id = a.game_id"
        " WHERE g.guild = ? AND g.status = 'finished' AND a.actor = ?", (guild, member))
    return int(actions), int(autopiloted)
