"""The server's league seasons as stored (schema migration 24): one row a season (versioned for concurrent
writers), its members, and its games with the members each one seated."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace

from bot.storage.store import Store, VersionConflict, _now, guild_rows

_COLUMNS = ("id, guild, channel, ruleset, options, players, max_games, creator, status, ends_at, ended_at, "
            "final, version")
FINAL_FORMAT = 1   # of the stored final standings


@dataclass(frozen=True)
class SeasonRecord:
    """A stored season: where and what it plays, how many a game seats, each member's most games at once, its end."""

    id: int
    guild: str
    channel: str
    ruleset: str
    options: str        # JSON: {"format": 1, "setup": {...}, "deadline_hours": N}
    players: int
    max_games: int
    creator: str
    status: str         # running, ended
    ends_at: float
    ended_at: float | None = None
    final: str = ""     # JSON: {"format": 1, "rows": [[member, name, mu or null, sigma, games], ...]} best first
    version: int = 0


@dataclass(frozen=True)
class SeasonMember:
    """A member who signed up for a season: `active` while they want to be paired."""

    player: str
    name: str
    active: bool
    joined_at: float


@dataclass(frozen=True)
class SeasonGame:
    """A game the season paired: its members in seat order, and its stored game once opened (None while opening)."""

    id: int
    members: tuple[str, ...]
    game_id: int | None
    opening: float   # when a process took on opening its game; 0 once its game is seated, timed and started


def _record(row: tuple) -> SeasonRecord:
    (number, guild, channel, ruleset, options, players, max_games, creator, status, ends_at, ended_at, final,
     version) = row
    return SeasonRecord(int(number), guild, channel, ruleset, options, int(players), int(max_games), creator, status,
                        float(ends_at), None if ended_at is None else float(ended_at), final, int(version))


async def create(store: Store, guild: str, channel: str, ruleset: str, options: str, players: int, max_games: int,
                 creator: str, ends_at: float) -> SeasonRecord | None:
    """A new running season; None when this server already runs one of this game (checked in the transaction)."""
    async with store.transaction():
        await store.driver.lock_channel(f"seasons:{guild}")
        (running,) = await store._one("SELECT COUNT(*) FROM seasons WHERE guild = ? AND ruleset = ? AND status ="
                                      " 'running'", (guild, ruleset))
        if running:
            return None
        (number,) = await store._one(
            "INSERT INTO seasons (guild, channel, ruleset, options, players, max_games, creator, status, ends_at,"
            " version, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'running', ?, 1, ?) RETURNING id",
            (guild, channel, ruleset, options, players, max_games, creator, ends_at, _now()))
    return SeasonRecord(int(number), guild, channel, ruleset, options, players, max_games, creator, "running",
                        ends_at, None, "", 1)


async def get(store: Store, season_id: int) -> SeasonRecord | None:
    row = await store.driver.fetchone(f"SELECT {_COLUMNS} FROM seasons WHERE id = ?", (season_id,))
    return _record(row) if row is not None else None


async def of_guild(store: Store, guild: str, statuses: tuple[str, ...] = ("running",),
                   limit: int = 25) -> list[SeasonRecord]:
    """A server's seasons in these states, newest first (at most `limit`)."""
    return [_record(row) for row in await guild_rows(store, "seasons", _COLUMNS, guild, statuses, limit)]


async def running(store: Store, limit: int = 200) -> list[SeasonRecord]:
    """Every server's running seasons, oldest first (at most `limit`: a bound on a scheduler's round)."""
    rows = await store.driver.fetchall(
        f"SELECT {_COLUMNS} FROM seasons WHERE status = 'running' ORDER BY id LIMIT ?", (limit,))
    return [_record(row) for row in rows]


async def bump_tx(store: Store, record: SeasonRecord) -> SeasonRecord:
    """Take the season for one writer inside the caller's transaction (a pairing, its end): a VersionConflict
    when another writer changed it since `record` was read, or it ended."""
    changed = await store.driver.execute(
        "UPDATE seasons SET version = version + 1 WHERE id = ? AND version = ? AND status = 'running'",
        (record.id, record.version))
    if not changed:
        raise VersionConflict(f"season {record.id} changed meanwhile")
    return replace(record, version=record.version + 1)


async def end_tx(store: Store, record: SeasonRecord, at: float, final: str) -> bool:
    """End a running season (its timer, or /league end) with its final standings; False when it was ended already
    (claimed once)."""
    return bool(await store.driver.execute(
        "UPDATE seasons SET status = 'ended', ended_at = ?, final = ?, version = version + 1"
        " WHERE id = ? AND status = 'running'", (at, final, record.id)))


async def members(store: Store, season_id: int) -> list[SeasonMember]:
    """A season's members (those who left too), in the order they signed up."""
    rows = await store.driver.fetchall(
        "SELECT player, name, active, joined_at FROM season_members WHERE season = ? ORDER BY joined_at, player",
        (season_id,))
    return [SeasonMember(player, name, bool(active), float(joined)) for player, name, active, joined in rows]


async def set_member_tx(store: Store, season_id: int, player: str, name: str, active: bool, at: float) -> bool:
    """Sign a member up (again) or stop pairing them; False when nothing changed."""
    row = await store.driver.fetchone("SELECT active FROM season_members WHERE season = ? AND player = ?",
                                      (season_id, player))
    if row is None:
        if not active:
            return False
        await store.driver.execute("INSERT INTO season_members (season, player, name, active, joined_at)"
                                   " VALUES (?, ?, ?, 1, ?)", (season_id, player, name, at))
        return True
    if bool(row[0]) == active:
        return False
    await store.driver.execute("UPDATE season_members SET active = ?, name = ? WHERE season = ? AND player = ?",
                               (int(active), name, season_id, player))
    return True


async def games(store: Store, season_id: int) -> list[SeasonGame]:
    """A season's games, in the order they were paired."""
    rows = await store.driver.fetchall(
        "SELECT id, members, game_id, opening FROM season_games WHERE season = ? ORDER BY id", (season_id,))
    return [SeasonGame(int(number), tuple(json.loads(members)), None if game_id is None else int(game_id),
                       float(opening)) for number, members, game_id, opening in rows]


async def claim_tx(store: Store, season_id: int, members: tuple[str, ...], at: float) -> int:
    """A paired table, claimed before its game opens (inside the pairing's transaction): its number."""
    (number,) = await store._one("INSERT INTO season_games (season, game_id, members, opening) VALUES (?, NULL, ?, ?)"
                                 " RETURNING id", (season_id, json.dumps(list(members)), at))
    return int(number)


async def drop_claim_tx(store: Store, claim: int) -> None:
    """Forget a claim whose game never opened (a crash, or the game could not be made)."""
    await store.driver.execute("DELETE FROM season_games WHERE id = ? AND game_id IS NULL", (claim,))


async def link_game(store: Store, claim: int, game_id: int) -> None:
    """The claimed table's game (also when a game the season paired moved to another channel)."""
    async with store.transaction():
        await store.driver.execute("UPDATE season_games SET game_id = ? WHERE id = ?", (game_id, claim))


async def take_opening(store: Store, claim: int, at: float, before: float) -> bool:
    """Take on the rest of a linked game's opening (one a crash left half-open) for one writer: False when it is
    open already, or another process took it on at `before` or later."""
    async with store.transaction():
        return bool(await store.driver.execute(
            "UPDATE season_games SET opening = ? WHERE id = ? AND game_id IS NOT NULL AND opening > 0 AND opening < ?",
            (at, claim, before)))


async def opened(store: Store, claim: int) -> None:
    """The claimed table's game is seated, timed and started: its claim is 0 from now on (never taken on again)."""
    async with store.transaction():
        await store.driver.execute("UPDATE season_games SET opening = 0 WHERE id = ?", (claim,))


async def of_game(store: Store, game_id: int) -> SeasonRecord | None:
    """The season a game belongs to, if any."""
    row = await store.driver.fetchone(
        f"SELECT {', '.join('s.' + c.strip() for c in _COLUMNS.split(','))} FROM seasons s"
        " JOIN season_games g ON g.season = s.id WHERE g.game_id = ?", (game_id,))
    return _record(row) if row is not None else None


async def game_moved_tx(store: Store, old: int, new: int) -> None:
    """A season's game moved to another channel (as `new`): the season follows it there, inside the move's write."""
    await store.driver.execute("UPDATE season_games SET game_id = ? WHERE game_id = ?", (new, old))


async def forget_member_tx(store: Store, player: str, neutral: str) -> None:
    """A forgotten member leaves every season (their season_members rows are personal: bot.storage.privacy deletes
    them); the games' lists of members name them `neutral` instead (the pairing's count of meetings stays what it
    was without their id), and a season's final standings drop them."""
    quoted = json.dumps(player)
    await store.driver.execute("UPDATE season_games SET members = REPLACE(members, ?, ?) WHERE members LIKE ?",
                               (quoted, json.dumps(neutral), f"%{quoted}%"))
    for number, final in await store.driver.fetchall("SELECT id, final FROM seasons WHERE final LIKE ?",
                                                     (f"%{quoted}%",)):
        kept = json.loads(final)
        kept["rows"] = [row for row in kept["rows"] if row[0] != player]
        await store.driver.execute("UPDATE seasons SET final = ? WHERE id = ?", (json.dumps(kept), number))
