"""The server's rating per game kind in the database (migration 20): each member's rating, the games it was
made from in the order they were rated, and each member's turns in them (bot.table.service.ratings decides
what goes in)."""

from __future__ import annotations

from dataclasses import dataclass

from bot.storage.store import LOG_PAGE, GameRecord, Store, _now

KINDS = ("rated", "historic", "imported")
_GAME_COLUMNS = "g.id, g.channel, g.ruleset, g.status, g.host, g.seed, g.options, g.version, g.state, g.guild," \
                " g.settings, g.moved_to"
# When a stored game ended: its last action's time (a game's updated_at moves on with later changes).
_ENDED = "(SELECT MAX(a.created_at) FROM actions a WHERE a.game_id = g.id)"


@dataclass(frozen=True)
class Rating:
    """A member's rating in one game kind on one server: OpenSkill's mu and sigma, and how many rated games
    made it."""

    member: str
    mu: float
    sigma: float
    games: int

    @property
    def ordinal(self) -> float:
        """What the rating ranks by: mu - 3 sigma (OpenSkill's ordinal), low while little is known."""
        return self.mu - 3 * self.sigma


@dataclass(frozen=True)
class SeatRecord:
    """A member's seat in one rated game: their own turns of the seat's, and whether the game rated them."""

    member: str
    own_turns: int
    turns: int
    rated: bool


async def rating_log(store: Store, game_id: int) -> list[tuple[int, str, str, str]]:
    """A game's log as the rating reads it: (seq, actor, action, "A" where the autopilot played it at a deadline,
    else ""), LOG_PAGE rows a statement; the events themselves stay in the database."""
    rows: list[tuple[int, str, str, str]] = []
    after = 0
    while True:
        page = await store.driver.fetchall(
            "SELECT seq, actor, action, CASE WHEN events LIKE '%\"PlayedByAutopilot\"%' THEN 'A' ELSE '' END"
            " FROM actions WHERE game_id = ? AND seq > ? ORDER BY seq LIMIT ?", (game_id, after, LOG_PAGE))
        rows.extend((int(seq), actor, action, flag) for seq, actor, action, flag in page)
        if len(page) < LOG_PAGE:
            return rows
        after = page[-1][0]


async def due_games(store: Store, guild: str) -> list[GameRecord]:
    """The server's finished games not yet looked at by the rating (neither rated nor set aside), in the order
    they ended (a game moved away counts where it went)."""
    rows = await store.driver.fetchall(
        f"SELECT {_GAME_COLUMNS} FROM games g LEFT JOIN rated_games r ON r.game_id = g.id WHERE g.guild = ?"
        f" AND g.status = 'finished' AND g.moved_to IS NULL AND r.game_id IS NULL ORDER BY {_ENDED}, g.id", (guild,))
    return [GameRecord(*row) for row in rows]


async def rebuild_games(store: Store, guild: str) -> list[GameRecord]:
    """Every finished game of the server the rating counts (all but the imported ones), in the order a rebuild
    rates them: those finished before ratings existed by when they ended, then those rated since in the order
    they were rated, then any not yet looked at by when they ended."""
    rows = await store.driver.fetchall(
        f"SELECT {_GAME_COLUMNS} FROM games g LEFT JOIN rated_games r ON r.game_id = g.id WHERE g.guild = ?"
        " AND g.status = 'finished' AND g.moved_to IS NULL AND (r.kind IS NULL OR r.kind <> 'imported')"
        " ORDER BY CASE WHEN r.kind = 'historic' THEN 0 WHEN r.kind = 'rated' THEN 1 ELSE 2 END,"
        f" r.position, {_ENDED}, g.id", (guild,))
    return [GameRecord(*row) for row in rows]


async def taken_in(store: Store, guild: str) -> tuple[int, int]:
    """How many of a server's games the rating took in so far, and the last position: what changes when a game
    is rated meanwhile."""
    count, last = await store._one("SELECT COUNT(*), COALESCE(MAX(position), 0) FROM rated_games WHERE guild = ?"
                                   " AND kind = 'rated'", (guild,))
    return int(count), int(last)


async def guilds(store: Store) -> list[str]:
    """Every server with a finished game stored."""
    rows = await store.driver.fetchall("SELECT DISTINCT guild FROM games WHERE status = 'finished' ORDER BY guild")
    return [guild for (guild,) in rows]


async def was_looked_at_tx(store: Store, game_id: int) -> bool:
    """Whether the rating already took this game in (or set it aside)."""
    return await store.driver.fetchone("SELECT 1 FROM rated_games WHERE game_id = ?", (game_id,)) is not None


async def ratings_tx(store: Store, guild: str, ruleset: str, members: list[str]) -> dict[str, Rating]:
    """The stored ratings of these members in one game kind (those with none left out)."""
    if not members:
        return {}
    marks = ", ".join("?" for _ in members)
    rows = await store.driver.fetchall(
        f"SELECT member, mu, sigma, games FROM ratings WHERE guild = ? AND ruleset = ? AND member IN ({marks})",
        (guild, ruleset, *members))
    return {row[0]: Rating(row[0], float(row[1]), float(row[2]), int(row[3])) for row in rows}


async def record_game_tx(store: Store, game: GameRecord, seats: list[SeatRecord], rated: list[Rating],
                         position: int | None = None) -> None:
    """Store one game's rating: the game marked rated (next in order, or at `position`), its members' seats and
    their new ratings, inside the caller's transaction."""
    if position is None:
        (position,) = await store._one("SELECT COALESCE(MAX(position), 0) + 1 FROM rated_games")
    await store.driver.execute(
        "INSERT INTO rated_games (game_id, guild, ruleset, kind, position, rated_at) VALUES (?, ?, ?, 'rated', ?, ?)"
        " ON CONFLICT (game_id) DO UPDATE SET kind = 'rated', position = excluded.position,"
        " rated_at = excluded.rated_at", (game.id, game.guild, game.ruleset, position, _now()))
    await store.driver.executemany(
        "INSERT INTO rated_seats (game_id, member, own_turns, turns, rated) VALUES (?, ?, ?, ?, ?)"
        " ON CONFLICT (game_id, member) DO UPDATE SET own_turns = excluded.own_turns, turns = excluded.turns,"
        " rated = excluded.rated", [(game.id, s.member, s.own_turns, s.turns, int(s.rated)) for s in seats])
    await store.driver.executemany(
        "INSERT INTO ratings (guild, ruleset, member, mu, sigma, games) VALUES (?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (guild, ruleset, member) DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma,"
        " games = excluded.games", [(game.guild, game.ruleset, r.member, r.mu, r.sigma, r.games) for r in rated])


async def mark_imported_tx(store: Store, game: GameRecord) -> None:
    """Set an imported finished game aside: the rating never counts it (its results were not played here)."""
    await store.driver.execute(
        "INSERT INTO rated_games (game_id, guild, ruleset, kind, position, rated_at) VALUES (?, ?, ?, 'imported',"
        " NULL, ?) ON CONFLICT (game_id) DO NOTHING", (game.id, game.guild, game.ruleset, _now()))


async def clear_guild_tx(store: Store, guild: str) -> None:
    """Forget a server's ratings and seat records before a rebuild writes them anew (the games stay marked)."""
    await store.driver.execute("DELETE FROM ratings WHERE guild = ?", (guild,))
    await store.driver.execute("DELETE FROM rated_seats WHERE game_id IN (SELECT game_id FROM rated_games"
                               " WHERE guild = ?)", (guild,))


async def rating(store: Store, guild: str, ruleset: str, member: str) -> Rating | None:
    """This server's rating of `member` in game kind `ruleset`, or None while they have none."""
    found = await store.driver.fetchone(
        "SELECT member, mu, sigma, games FROM ratings WHERE guild = ? AND ruleset = ? AND member = ?",
        (guild, ruleset, member))
    return Rating(found[0], float(found[1]), float(found[2]), int(found[3])) if found else None


async def ratings_of_kind(store: Store, guild: str, ruleset: str) -> list[Rating]:
    """Every rating of one game kind on a server, best (highest ordinal) first."""
    rows = await store.driver.fetchall(
        "SELECT member, mu, sigma, games FROM ratings WHERE guild = ? AND ruleset = ?", (guild, ruleset))
    found = [Rating(r[0], float(r[1]), float(r[2]), int(r[3])) for r in rows]
    return sorted(found, key=lambda r: (-r.ordinal, r.member))


async def own_share(store: Store, guild: str, ruleset: str, member: str) -> tuple[int, int]:
    """A member's own turns and their seats' turns over the rated games of one kind on a server."""
    own, turns = await store._one(
        "SELECT COALESCE(SUM(s.own_turns), 0), COALESCE(SUM(s.turns), 0) FROM rated_seats s JOIN rated_games g"
        " ON g.game_id = s.game_id WHERE g.guild = ? AND g.ruleset = ? AND s.member = ?", (guild, ruleset, member))
    return int(own), int(turns)


async def forget_member_tx(store: Store, member: str) -> int:
    """Delete a member's ratings and seat records on every server (inside the caller's transaction): how many
    rows went."""
    gone = await store.driver.execute("DELETE FROM ratings WHERE member = ?", (member,))
    return gone + await store.driver.execute("DELETE FROM rated_seats WHERE member = ?", (member,))


async def member_rows(store: Store, member: str) -> int:
    """How many rating rows a member has (ratings and seat records)."""
    (count,) = await store._one("SELECT (SELECT COUNT(*) FROM ratings WHERE member = ?)"
                                " + (SELECT COUNT(*) FROM rated_seats WHERE member = ?)", (member, member))
    return int(count)
