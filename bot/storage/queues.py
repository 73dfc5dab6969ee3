"""The queue's rows (issue 40 item 2): who waits for which game, each member's limit of queued games at once,
and the musters (the games the queue opened, whom each asked to confirm and by when).

Every match and every seat offered on runs inside one write transaction holding the server's queue lock
(`queue_lock`), so two queues filling at once never take one member twice nor past their limit.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from bot.storage.store import Store, _now

OPEN_STATUSES = ("opening", "mustering", "open")   # a muster still gathering its seats


@dataclass(frozen=True)
class Entry:
    """One member waiting in one queue of a server."""

    guild: str
    queue: str
    player: str
    name: str
    channel: str
    joined_at: float


@dataclass(frozen=True)
class Muster:
    """A game the queue opened: its queue, where it was joined, the thread it is played in ('' until opened),
    its status and when its timer falls due (None: nothing waits on a timer)."""

    id: int
    guild: str
    queue: str
    joined_in: str
    channel: str
    status: str
    due: float | None


@dataclass(frozen=True)
class MusterSeat:
    """A member a muster holds a seat for: asked to confirm by `due`, or confirmed (seated)."""

    muster: int
    player: str
    name: str
    status: str
    due: float | None


_ENTRY = "guild, queue, player, name, channel, joined_at"
_MUSTER = "id, guild, queue, joined_in, channel, status, due"
_SEAT = "muster, player, name, status, due"


def queue_lock(guild: str) -> str:
    """The lock every match on a server takes (inside its write transaction)."""
    return f"queue:{guild}"


async def entries_of(store: Store, guild: str, player: str) -> list[Entry]:
    """A member's queue entries on a server, oldest first."""
    rows = await store.driver.fetchall(
        f"SELECT {_ENTRY} FROM queue_entries WHERE guild = ? AND player = ? ORDER BY joined_at, queue", (guild, player))
    return [Entry(*row) for row in rows]


async def waiting_tx(store: Store, guild: str, queue: str) -> list[Entry]:
    """Who waits in one queue, first come first."""
    rows = await store.driver.fetchall(
        f"SELECT {_ENTRY} FROM queue_entries WHERE guild = ? AND queue = ? ORDER BY joined_at, player", (guild, queue))
    return [Entry(*row) for row in rows]


async def put_entry_tx(store: Store, entry: Entry) -> bool:
    """Add a member to a queue; False when they wait there already (their place is kept)."""
    return await store.driver.execute(
        f"INSERT INTO queue_entries ({_ENTRY}) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (guild, queue, player) DO NOTHING",
        (entry.guild, entry.queue, entry.player, entry.name, entry.channel, entry.joined_at)) > 0


async def drop_entry_tx(store: Store, guild: str, queue: str, player: str) -> bool:
    """Take a member out of one queue; False when they were not in it (another match took them)."""
    return await store.driver.execute("DELETE FROM queue_entries WHERE guild = ? AND queue = ? AND player = ?",
                                      (guild, queue, player)) > 0


async def limit_of(store: Store, guild: str, player: str) -> int | None:
    """How many queued games a member plays at once on a server (None: they never said)."""
    row = await store.driver.fetchone("SELECT games FROM queue_limits WHERE guild = ? AND player = ?", (guild, player))
    return int(row[0]) if row else None


async def limits_tx(store: Store, guild: str, players: list[str]) -> dict[str, int]:
    """The limits these members set on a server (those who set one)."""
    if not players:
        return {}
    marks = ", ".join("?" for _ in players)
    rows = await store.driver.fetchall(
        f"SELECT player, games FROM queue_limits WHERE guild = ? AND player IN ({marks})", (guild, *players))
    return {player: int(games) for player, games in rows}


async def set_limit_tx(store: Store, guild: str, player: str, games: int) -> None:
    await store.driver.execute(
        "INSERT INTO queue_limits (guild, player, games) VALUES (?, ?, ?)"
        " ON CONFLICT (guild, player) DO UPDATE SET games = excluded.games", (guild, player, games))


async def queued_games_tx(store: Store, guild: str, players: list[str]) -> dict[str, int]:
    """How many games the queue holds or opened for each of these members on a server: musters still gathering
    that hold them a seat, and started ones whose game still runs (the thread's first game: a rematch made there
    later is an ordinary game, not the queue's), there or where it was moved (its copy keeps its seed)."""
    if not players:
        return {}
    marks = ", ".join("?" for _ in players)
    rows = await store.driver.fetchall(
        "SELECT s.player, COUNT(*) FROM muster_seats s JOIN musters m ON m.id = s.muster"
        f" WHERE m.guild = ? AND s.player IN ({marks}) AND (m.status IN ('opening', 'mustering', 'open')"
        " OR m.status = 'started' AND EXISTS (SELECT 1 FROM games g WHERE g.channel = m.channel"
        " AND g.id = (SELECT MIN(f.id) FROM games f WHERE f.channel = m.channel) AND (g.status = 'active'"
        " OR g.moved_to IS NOT NULL AND EXISTS (SELECT 1 FROM games c WHERE c.channel = g.moved_to"
        " AND c.seed = g.seed AND c.status = 'active'))))"
        " GROUP BY s.player", (guild, *players))
    return {player: int(count) for player, count in rows}


async def new_muster_tx(store: Store, guild: str, queue: str, joined_in: str, due: float) -> int:
    """A muster opening for a queue that filled (its thread not yet made): its id."""
    (muster,) = await store._one(
        "INSERT INTO musters (guild, queue, joined_in, status, due, created_at) VALUES (?, ?, ?, 'opening', ?, ?)"
        " RETURNING id", (guild, queue, joined_in, due, _now()))
    return int(muster)


async def muster(store: Store, muster_id: int) -> Muster | None:
    row = await store.driver.fetchone(f"SELECT {_MUSTER} FROM musters WHERE id = ?", (muster_id,))
    return Muster(*row) if row else None


async def muster_in(store: Store, channel: str) -> Muster | None:
    """The muster gathering seats for the game of a channel (a thread the queue opened), if one is."""
    row = await store.driver.fetchone(
        f"SELECT {_MUSTER} FROM musters WHERE channel = ? AND status IN ('mustering', 'open') ORDER BY id DESC"
        " LIMIT 1", (channel,))
    return Muster(*row) if row else None


async def set_muster_tx(store: Store, muster_id: int, status: str, due: float | None,
                        channel: str | None = None) -> None:
    if channel is None:
        await store.driver.execute("UPDATE musters SET status = ?, due = ? WHERE id = ?", (status, due, muster_id))
    else:
        await store.driver.execute("UPDATE musters SET status = ?, due = ?, channel = ? WHERE id = ?",
                                   (status, due, channel, muster_id))


async def seats_tx(store: Store, muster_id: int) -> list[MusterSeat]:
    rows = await store.driver.fetchall(f"SELECT {_SEAT} FROM muster_seats WHERE muster = ? ORDER BY player",
                                       (muster_id,))
    return [MusterSeat(*row) for row in rows]


async def put_seat_tx(store: Store, seat: MusterSeat) -> None:
    await store.driver.execute(
        f"INSERT INTO muster_seats ({_SEAT}) VALUES (?, ?, ?, ?, ?) ON CONFLICT (muster, player) DO UPDATE"
        " SET status = excluded.status, due = excluded.due",
        (seat.muster, seat.player, seat.name, seat.status, seat.due))


async def drop_seat_tx(store: Store, muster_id: int, player: str) -> bool:
    return await store.driver.execute("DELETE FROM muster_seats WHERE muster = ? AND player = ?",
                                      (muster_id, player)) > 0


async def claim_due_tx(store: Store, now: float, retry: float) -> list[int]:
    """The musters whose timer fell due, each moved on by `retry` seconds in the same transaction: no other
    process (nor this one after a restart) takes it meanwhile, and one whose handling failed comes due again."""
    rows = await store.driver.fetchall(
        f"SELECT id FROM musters WHERE due IS NOT NULL AND due <= ? ORDER BY id{store.driver.skip_locked}", (now,))
    for (muster_id,) in rows:
        await store.driver.execute("UPDATE musters SET due = ? WHERE id = ?", (now + retry, muster_id))
    return [int(muster_id) for (muster_id,) in rows]


async def full_queues(store: Store) -> list[tuple[str, str]]:
    """The queues with at least as many members waiting as their game seats (some of whom were at their limit)."""
    rows = await store.driver.fetchall(
        "SELECT guild, queue, COUNT(*) FROM queue_entries GROUP BY guild, queue HAVING COUNT(*) > 1"
        " ORDER BY guild, queue")
    return [(guild, queue) for guild, queue, count in rows if count >= int(json.loads(queue)["players"])]


async def gathering(store: Store) -> list[Muster]:
    """Every muster still gathering seats (for checks: each waits on a timer or is an open table)."""
    rows = await store.driver.fetchall(
        f"SELECT {_MUSTER} FROM musters WHERE status IN ('opening', 'mustering', 'open') ORDER BY id")
    return [Muster(*row) for row in rows]
