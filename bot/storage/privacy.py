"""One member's data in the game database, and the operator's controls (issue 39 item 12).

A member's personal rows (their /me settings, notices, follows, standing orders, a GM thread's link) are
deleted; their shown name in the games they played is rewritten where the games keep it (snapshots, the log's
actions and events, what rollbacks set aside, the turn messages' words). The owner's controls (blocked
members and servers, commands turned off) are one small table, read whole.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from bot.storage import seasons
from bot.storage.store import ActionRecord, GameRecord, Store, VersionConflict, _now

CONTROL_KINDS = ("user", "server", "command")
FORGOTTEN = "forgotten"   # a forgotten member in a season's lists of who met whom (never a member's id: not digits)

# The personal rows of a member, by table and the column holding their id (what `forget` deletes).
PERSONAL = (("player_settings", "player"), ("player_notices", "player"), ("followers", "member"),
            ("standing_orders", "player"), ("gm_threads", "gm"), ("ratings", "member"), ("rated_seats", "member"),
            ("queue_entries", "player"), ("queue_limits", "player"), ("muster_seats", "player"),
            ("season_members", "player"), ("rank_role_holders", "member"))


@dataclass(frozen=True)
class Control:
    """One of the operator's controls: a blocked user or server, or a command turned off."""

    kind: str
    target: str
    reason: str = ""


async def controls(store: Store) -> list[Control]:
    """Every control the operator set, in kind and target order."""
    rows = await store.driver.fetchall("SELECT kind, target, reason FROM owner_controls ORDER BY kind, target")
    return [Control(*row) for row in rows]


async def blocked_members(store: Store, guild: str) -> set[str] | None:
    """The members the operator blocked, or None when they blocked the server `guild` itself (none of its members'
    commands are taken: the league seats none of them)."""
    known = await controls(store)
    if any(c.kind == "server" and c.target == guild for c in known):
        return None
    return {c.target for c in known if c.kind == "user"}


async def set_control(store: Store, control: Control) -> None:
    """Add a control (or change its reason)."""
    async with store.transaction():
        await store.driver.execute(
            "INSERT INTO owner_controls (kind, target, reason, created_at) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (kind, target) DO UPDATE SET reason = excluded.reason",
            (control.kind, control.target, control.reason, _now()))


async def drop_control(store: Store, kind: str, target: str) -> bool:
    """Remove a control; False when there was none."""
    async with store.transaction():
        return await store.driver.execute("DELETE FROM owner_controls WHERE kind = ? AND target = ?",
                                          (kind, target)) > 0


async def personal_rows(store: Store, player: str) -> dict[str, int]:
    """How many personal rows of a member each table holds."""
    counts = {}
    for table, column in PERSONAL:
        (counts[table],) = await store._one(f"SELECT COUNT(*) FROM {table} WHERE {column} = ?", (player,))
    return counts


async def delete_personal_tx(store: Store, player: str) -> None:
    """Delete every personal row of a member (inside the caller's transaction)."""
    for table, column in PERSONAL:
        await store.driver.execute(f"DELETE FROM {table} WHERE {column} = ?", (player,))
    await seasons.forget_member_tx(store, player, FORGOTTEN)
    # who made a season, who turned a game's rank roles on: kept as a row's fact, no longer as the member's id
    await store.driver.execute("UPDATE seasons SET creator = ? WHERE creator = ?", (FORGOTTEN, player))
    await store.driver.execute("UPDATE rank_roles SET turned_on_by = ? WHERE turned_on_by = ?", (FORGOTTEN, player))


_PLAYED = "(host = ? OR id IN (SELECT game_id FROM seats WHERE player = ?))"
# Whether a running game's snapshot seats the member (rules.table.Player: a `players` list of objects with their
# `id` and, once they resign, `resigned`), read by the database itself: no snapshot reaches Python.
_SEATED = {
    "sqlite": "EXISTS (SELECT 1 FROM json_each(state, '$.state.players') p WHERE CASE WHEN p.type = 'object'"
              " THEN json_extract(p.value, '$.id') = ? AND COALESCE(json_extract(p.value, '$.resigned'), 0) = 0"
              " ELSE 0 END)",
    "postgres": "EXISTS (SELECT 1 FROM jsonb_array_elements(CASE WHEN jsonb_typeof(CAST(state AS jsonb) -> 'state'"
                " -> 'players') = 'array' THEN CAST(state AS jsonb) -> 'state' -> 'players' ELSE '[]' END) p"
                " WHERE CASE WHEN jsonb_typeof(p) = 'object' THEN p ->> 'id' = ?"
                " AND COALESCE(p ->> 'resigned', 'false') <> 'true' ELSE false END)",
}
_LISTS_SEATS = {"sqlite": "json_type(state, '$.state.players') = 'array'",
                "postgres": "jsonb_typeof(CAST(state AS jsonb) -> 'state' -> 'players') = 'array'"}


@dataclass(frozen=True)
class RunningSeats:
    """The running games a member hosts or holds a seat in (not resigned), as the database judged them: how
    many, the first CHANNELS_NAMED (id, channel) in id order; and the running games they sat at whose snapshot
    keeps no list of seats (a plug-in's own state), whole, for the caller to judge."""

    count: int
    first: list[tuple[int, str]]
    unjudged: list[GameRecord]


CHANNELS_NAMED = 10


async def running_seats(store: Store, player: str) -> RunningSeats:
    """The running games `player` hosts or holds a seat in, counted by the database (issue 39 item 5: a member
    of ten thousand running games had each snapshot decoded, and the event loop waited on the GIL)."""
    dialect = store.driver.dialect
    held = f"status = 'active' AND {_PLAYED} AND (host = ? OR {_LISTS_SEATS[dialect]} AND {_SEATED[dialect]})"
    rows = await store.driver.fetchall(
        f"SELECT id, channel, COUNT(*) OVER () FROM games WHERE {held} ORDER BY id LIMIT {CHANNELS_NAMED}",
        (player, player, player, player))
    columns = "id, channel, ruleset, status, host, seed, options, version, state, guild, settings, moved_to"
    unjudged = await store.driver.fetchall(
        f"SELECT {columns} FROM games WHERE status = 'active' AND {_PLAYED} AND host <> ?"
        f" AND NOT ({_LISTS_SEATS[dialect]}) ORDER BY id", (player, player, player))
    return RunningSeats(int(rows[0][2]) if rows else 0, [(int(i), str(c)) for i, c, _ in rows],
                        [GameRecord(*row) for row in unjudged])


# ... or whose log names them (a seat offered to them, an admin's move naming their seat): their id is a JSON string
# of its own in an action (ids are letters, digits and . _ -, never quoted in JSON)
_NAMED = f"({_PLAYED[1:-1]} OR id IN (SELECT game_id FROM actions WHERE action LIKE ? ESCAPE '!'))"


def _quoted_pattern(player: str) -> str:
    """The LIKE pattern of `player`'s id as a JSON string (its _ taken as itself, not as any one character)."""
    escaped = player.replace("!", "!!").replace("%", "!%").replace("_", "!_")
    return f'%"{escaped}"%'


async def games_count(store: Store, player: str) -> int:
    """How many stored games a member sat at, hosted or is named in the log of, running or finished."""
    (count,) = await store._one(f"SELECT COUNT(*) FROM games WHERE {_NAMED}", (player, player, _quoted_pattern(player)))
    return int(count)


async def games_of(store: Store, player: str) -> list[GameRecord]:
    """Every stored game a member sat at, hosted or is named in the log of, running or finished, oldest first."""
    columns = "id, channel, ruleset, status, host, seed, options, version, state, guild, settings, moved_to"
    rows = await store.driver.fetchall(f"SELECT {columns} FROM games WHERE {_NAMED} ORDER BY id",
                                       (player, player, _quoted_pattern(player)))
    # a member of ten thousand games: their records are built on a thread, not the event loop
    return await asyncio.to_thread(lambda: [GameRecord(*row) for row in rows])


@dataclass(frozen=True)
class Rewritten:
    """A game's records with a member's id and name replaced: the game's own columns, and every row that changed
    (by its key): log entries (seq → actor, action, events), set-aside entries ((rollback, seq) → the same),
    rollback snapshots (rollback → snapshot) and turn messages' words (message id → body)."""

    host: str
    state: str
    options: str
    settings: str
    actions: dict[int, tuple[str, str, str]]
    set_aside: dict[tuple[int, int], tuple[str, str, str]]
    line_ends: dict[int, str]
    told: dict[str, str]
    turn_body: str | None


async def set_aside_rows(store: Store, game_id: int) -> list[tuple[int, ActionRecord]]:
    """A game's set-aside actions with their rollback's number, events included."""
    rows = await store.driver.fetchall(
        "SELECT rollback, seq, actor, action, events FROM set_aside WHERE game_id = ? ORDER BY rollback, seq",
        (game_id,))
    return [(rollback, ActionRecord(*record)) for rollback, *record in rows]


async def log_with_events(store: Store, game_id: int) -> list[ActionRecord]:
    """A game's whole log, events included."""
    rows = await store.driver.fetchall(
        "SELECT seq, actor, action, events FROM actions WHERE game_id = ? ORDER BY seq", (game_id,))
    return [ActionRecord(*row) for row in rows]


async def message_bodies(store: Store, game_id: int) -> tuple[dict[str, str], str | None]:
    """The words of a game's recent turn messages (by message id), and of its current turn message."""
    told = await store.driver.fetchall("SELECT message_id, body FROM told_messages WHERE game_id = ?", (game_id,))
    turn = await store.driver.fetchone("SELECT body FROM turn_messages WHERE game_id = ?", (game_id,))
    return dict(told), (turn[0] if turn else None)


async def rewrite_game_tx(store: Store, game: GameRecord, new: Rewritten, player: str, alias: str) -> None:
    """Store a game's rewritten records, `player`'s id made `alias` wherever a column holds it (inside the
    caller's transaction), if the game is still at `game.version` (VersionConflict if not); the version moves on,
    so anything drawn from the old records goes stale."""
    changed = await store.driver.execute(
        "UPDATE games SET host = ?, state = ?, options = ?, settings = ?, version = version + 1, updated_at = ?"
        " WHERE id = ? AND version = ?",
        (new.host, new.state, new.options, new.settings, _now(), game.id, game.version))
    if changed != 1:
        raise VersionConflict(game.id)
    for seq, entry in new.actions.items():
        await store.driver.execute("UPDATE actions SET actor = ?, action = ?, events = ? WHERE game_id = ? AND seq = ?",
                                   (*entry, game.id, seq))
    for (rollback, seq), entry in new.set_aside.items():
        await store.driver.execute("UPDATE set_aside SET actor = ?, action = ?, events = ? WHERE game_id = ?"
                                   " AND rollback = ? AND seq = ?", (*entry, game.id, rollback, seq))
    for rollback, snapshot in new.line_ends.items():
        await store.driver.execute("UPDATE rollbacks SET snapshot = ? WHERE game_id = ? AND rollback = ?",
                                   (snapshot, game.id, rollback))
    for message_id, body in new.told.items():
        await store.driver.execute("UPDATE told_messages SET body = ? WHERE game_id = ? AND message_id = ?",
                                   (body, game.id, message_id))
    if new.turn_body is not None:
        await store.driver.execute("UPDATE turn_messages SET body = ? WHERE game_id = ?", (new.turn_body, game.id))
    for table, column in (("seats", "player"), ("player_timers", "player"), ("rollback_votes", "proposer"),
                          ("rematches", "proposer")):
        await store.driver.execute(f"UPDATE {table} SET {column} = ? WHERE game_id = ? AND {column} = ?",
                                   (alias, game.id, player))


async def vote_rows(store: Store, game_id: int) -> tuple[str | None, tuple[str, str] | None]:
    """A game's open vote's approvals, and its rematch's asked and answers (JSON, as stored)."""
    vote = await store.driver.fetchone("SELECT approvals FROM rollback_votes WHERE game_id = ?", (game_id,))
    rematch = await store.driver.fetchone("SELECT asked, answers FROM rematches WHERE game_id = ?", (game_id,))
    return (vote[0] if vote else None), (tuple(rematch) if rematch else None)


async def set_vote_rows_tx(store: Store, game_id: int, approvals: str | None, rematch: tuple[str, str] | None) -> None:
    """Store a game's vote approvals and rematch answers as rewritten (None: it has none)."""
    if approvals is not None:
        await store.driver.execute("UPDATE rollback_votes SET approvals = ? WHERE game_id = ?", (approvals, game_id))
    if rematch is not None:
        await store.driver.execute("UPDATE rematches SET asked = ?, answers = ? WHERE game_id = ?", (*rematch, game_id))
