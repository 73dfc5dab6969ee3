"""League seasons (issue 40 item 4): `/league new`, `join`, `leave`, `show`, `end`; while a season runs the bot
pairs its waiting members into games by rating, and at its end the channel gets the standings by rating.

Rulings:
- A member who manages the server runs a season in a channel: one game kind, how many days it runs, the most games
  of it a member plays at once (`max_games`), the players a game seats (the fewest the game starts with unless
  said), the games' setup options and turn deadline (48 h unless said). A server runs one season of a game kind at
  a time (its members' ratings in that game are one ladder), in whichever channel it was made.
- A command without `number:` means this channel's running season, else the server's only running one.
- Waiting: a member signed up (not left, not blocked by the operator) who holds a seat, not resigned, in fewer than
  `max_games` running games of the season. Each scheduler round (and right after a join) the waiting members are
  paired (bot.table.league.pairing.season_tables: by this server's rating of the game, the fewest repeated
  meetings among the season's games); each table becomes a game opened like a tournament's
  (bot.table.service.paired: a thread of the season's channel, seated in order, a deadline, started at once).
  A member sits at one new table a round, so a member with room for more games gets them over the next rounds.
- A pairing is claimed in the season's row first (a versioned write), so two processes never pair a member twice;
  a claim whose game never appeared (a crash) is dropped after OPEN_RETRY seconds and its members wait again; a
  game made but not yet seated, timed and started (a crash) is finished by a scheduler round after OPEN_RETRY.
- The season ends at `ends_at` (a database timer the scheduler claims once: it survives a restart) or by
  `/league end`: no more pairings; the channel gets the standings, the server's rating of the game at that moment
  (as /standings shows it) of everyone who signed up. Games still running play on as ordinary games.
"""

from __future__ import annotations

import json
import logging
import re
from collections import Counter
from collections.abc import Callable
from typing import Any

from bot.storage import privacy as controls
from bot.storage import seasons as stored
from bot.storage.ratings import Rating
from bot.storage.seasons import SeasonGame, SeasonMember, SeasonRecord
from bot.storage.store import GameRecord, VersionConflict
from bot.table.clock.moments import moment
from bot.table.league.pairing import Waiting, season_tables
from bot.table.protocol.replies import MESSAGE_LIMIT, SEASON_PREFIX, Actor, Notice, Reply, clip, season_button
from bot.table.service.acting import Acting
from bot.table.service.paired import Opened, PairedGames, Pairing
from bot.table.service.queue import ThreadOpener
from bot.table.service.ratings import Ratings, rating_of
from bot.table.service.seating import Seating
from bot.table.service.shared import Table, channel_mention
from bot.table.service.standings import PROVISIONAL_MARK, rating_short
from bot.table.service.timers import Timers
from bot.table.trust.guards import plain_name
from rules.errors import GameError
from rules.registry import get_ruleset
from rules.table import plural

log = logging.getLogger("pitboss.league")

SEASON_BUTTON = re.compile(rf"^{SEASON_PREFIX}:(\d+):0:0$")
DEADLINE_HOURS = 48
OPEN_RETRY = 600.0
WRITE_TRIES = 5
DAY = 86400.0
FORMAT_VERSION = 1   # of the season's stored options
MOST_PLAYERS = 8     # the most a season's game seats (as /league new's players: allows)
SHOWN_GAMES = 15     # running games /league show lists
GAMES = "a season's game"   # what a refusal of its setup calls its games


async def named_thread(parent: str, title: str, number: int) -> str:
    """Where a transport without threads (the command line, tests) plays a season's game."""
    return f"{parent}-s{number}"


def season_options(stored_options: str) -> dict[str, Any]:
    """A season's stored options (setup, deadline_hours), refused when a newer Pitboss wrote them."""
    kept = json.loads(stored_options)
    if int(kept.get("format", 0)) > FORMAT_VERSION:
        raise GameError("This season was stored by a newer Pitboss than this one.")
    return dict(kept)


class Seasons:
    """The server's league seasons: sign-up, the pairing of waiting members, the end and its standings."""

    def __init__(self, table: Table, seating: Seating, acting: Acting, timers: Timers, ratings: Ratings,
                 check_setup: Callable[[str, int, str, str], dict[str, Any]]):
        self._table, self._ratings, self._check_setup = table, ratings, check_setup
        self._paired = PairedGames(table, seating, acting, timers)
        self.open_thread: ThreadOpener = named_thread   # the Discord adapter opens real threads
        self._holders: dict[int, tuple[int, frozenset[str]]] = {}   # game id -> (its version, members seated)

    # The commands.

    async def step(self, channel: str, actor: Actor, guild: str, name: str, number: int | None) -> Reply:
        """`/league join`, `leave`, `show` or `end`."""
        handlers = {"league join": self.join, "league leave": self.leave, "league show": self.show,
                    "league end": self.end}
        return await handlers[name](channel, actor, guild, number)

    async def new(self, channel: str, actor: Actor, guild: str, options: dict[str, Any]) -> Reply:
        """`/league new` (Manage Server): a season that starts now, announced with its Join button."""
        if not actor.is_admin:
            raise GameError("Only a member who manages the server may run a season.")
        ruleset_id, setup_words = str(options["ruleset"]), str(options.get("setup") or "")
        players, setup = self._players_and_setup(ruleset_id, options.get("players"), setup_words)
        kept = {"format": FORMAT_VERSION, "setup": setup,
                "deadline_hours": int(options.get("deadline_hours") or DEADLINE_HOURS)}
        ends_at = self._table.clock() + int(options["season_days"]) * DAY
        record = await stored.create(self._table.store, guild, channel, ruleset_id, json.dumps(kept, sort_keys=True),
                                     players, int(options["max_games"]), actor.id, ends_at)
        if record is None:
            (running,) = [s for s in await stored.of_guild(self._table.store, guild) if s.ruleset == ruleset_id]
            raise GameError(f"This server runs season {running.id} of {get_ruleset(ruleset_id).title} already (in "
                            f"{channel_mention(running.channel)}); /league end ends it first.")
        return Reply("applied", clip(self._announcement(record) + f"\nOpened by {plain_name(actor.name)}.",
                                     MESSAGE_LIMIT), buttons=(season_button(record.id),))

    def _players_and_setup(self, ruleset_id: str, players: object, setup: str) -> tuple[int, dict[str, Any]]:
        """The players a game seats and its checked setup: as asked, else the fewest the game starts with."""
        if players is not None:
            return int(str(players)), self._check_setup(ruleset_id, int(str(players)), setup, GAMES)
        first: GameError | None = None
        for count in range(2, MOST_PLAYERS + 1):
            try:
                return count, self._check_setup(ruleset_id, count, setup, GAMES)
            except GameError as exc:
                first = first or exc
        assert first is not None
        raise first

    async def join(self, channel: str, actor: Actor, guild: str, number: int | None) -> Reply:
        """`/league join` (or its button): sign up; the waiting members are paired at once."""
        record = await self._find(channel, guild, number)
        if record.status != "running":
            raise GameError(f"Season {record.id} has ended.")
        async with self._table.write():
            joined = await stored.set_member_tx(self._table.store, record.id, actor.id, plain_name(actor.name), True,
                                                self._table.clock())
        if not joined:
            raise GameError(f"You are in season {record.id} already: /league show shows it.")
        count = sum(m.active for m in await stored.members(self._table.store, record.id))
        notices = await self._pair(record.id)
        return Reply("applied", f"{plain_name(actor.name)} joined season {record.id} "
                                f"({plural(count, 'member', 'members')}); the bot pairs waiting members into games "
                                f"of {record.players}, each in at most {record.max_games} at once.",
                     notices=tuple(notices))

    async def leave(self, channel: str, actor: Actor, guild: str, number: int | None) -> Reply:
        """`/league leave`: no more games paired for the member; their running games go on."""
        record = await self._find(channel, guild, number)
        async with self._table.write():
            left = await stored.set_member_tx(self._table.store, record.id, actor.id, plain_name(actor.name), False,
                                              self._table.clock())
        if not left:
            raise GameError(f"You are not in season {record.id}.")
        return Reply("applied", f"{plain_name(actor.name)} left season {record.id}: no more games are paired for them; "
                                f"their running games of it go on (/league join comes back).")

    async def show(self, channel: str, actor: Actor, guild: str, number: int | None) -> Reply:
        """`/league show`: the season's members, games running and played, standings by rating so far, its end."""
        record = await self._find(channel, guild, number, ended=True)
        return Reply("shown", clip(await self._progress(record), MESSAGE_LIMIT), ephemeral=True)

    async def end(self, channel: str, actor: Actor, guild: str, number: int | None) -> Reply:
        """`/league end` (Manage Server): end the season now, with its final standings."""
        if not actor.is_admin:
            raise GameError("Only a member who manages the server may end a season.")
        record = await self._find(channel, guild, number)
        ended = await self._end(record)
        if not ended:
            raise GameError(f"Season {record.id} has ended already.")
        final = ended[0].reply
        elsewhere = (ended[0],) if channel != record.channel else ()
        return Reply("applied", final.text, notices=elsewhere)

    # The scheduler's part.

    async def due(self) -> list[Notice]:
        """End the seasons whose time is up, and pair the waiting members of the others: the notices to post."""
        notices: list[Notice] = []
        for record in await stored.running(self._table.store):
            try:
                if self._table.clock() >= record.ends_at:
                    notices += await self._end(record)
                else:
                    notices += await self._finish_half_open(record)
                    notices += await self._pair(record.id)
            except Exception:   # one season's trouble never stops the scheduler's round
                log.exception("season %s could not move on", record.id)
        return notices

    async def _end(self, record: SeasonRecord) -> list[Notice]:
        """Claim the season's end (once), keeping its standings by the server's rating at that moment, and say them
        in its channel."""
        rows = await self._rows(record, await stored.members(self._table.store, record.id))
        final = json.dumps({"format": stored.FINAL_FORMAT, "rows": [
            [member.player, member.name, *((r.mu, r.sigma, r.games) if r else (None, None, 0))] for r, member in rows]})
        async with self._table.write():
            if not await stored.end_tx(self._table.store, record, self._table.clock(), final):
                return []
        text = (f"**Season {record.id}** of {get_ruleset(record.ruleset).title} is over. Final standings by this "
                f"server's rating ({PROVISIONAL_MARK} provisional):\n{_lines(_final_rows(final))}\nGames still "
                f"running play on as ordinary games.")
        return [Notice(record.channel, Reply("shown", clip(text, MESSAGE_LIMIT)))]

    async def _pair(self, season_id: int) -> list[Notice]:
        """Pair the season's waiting members and open their games: a line in the season's channel naming them,
        and each game's two messages in its thread."""
        for _ in range(WRITE_TRIES):
            record = await stored.get(self._table.store, season_id)
            if record is None or record.status != "running" or self._table.clock() >= record.ends_at:
                return []
            try:
                claims = await self._claim(record)
                break
            except VersionConflict:
                continue
        else:
            return []
        if not claims:
            return []
        names = await self._names(record)
        return _told(record, [await self._open(record, claim, table, names) for claim, table in claims])

    async def _finish_half_open(self, record: SeasonRecord) -> list[Notice]:
        """Finish the season's games a crash left half-open (made and linked, not yet marked open, taken on by no
        process within OPEN_RETRY): each taken on first (never twice), then seated, timed and started. None on a
        server the operator blocked (as it pairs nobody there)."""
        now = self._table.clock()
        half = [g for g in await stored.games(self._table.store, record.id)
                if g.game_id is not None and g.opening and now - g.opening > OPEN_RETRY]
        if not half or await controls.blocked_members(self._table.store, record.guild) is None:
            return []
        names = await self._names(record)
        opened: list[Opened] = []
        for game in half:
            assert game.game_id is not None
            if await stored.take_opening(self._table.store, game.id, now, now - OPEN_RETRY):   # else another has it
                opened.append(await self._paired.finish(self._pairing(record, game.id, game.members, names),
                                                        game.game_id))
                await stored.opened(self._table.store, game.id)
        return _told(record, [o for o in opened if o.line])

    async def _claim(self, record: SeasonRecord) -> list[tuple[int, tuple[str, ...]]]:
        """The tables of the members waiting now, claimed in one write (a VersionConflict when another writer
        changed the season since it was read)."""
        store = self._table.store
        members = [m for m in await stored.members(store, record.id) if m.active]
        if len(members) < record.players:
            return []
        played = await stored.games(store, record.id)
        now = self._table.clock()
        busy = await self._busy(record, played, now)
        blocked = await controls.blocked_members(store, record.guild)
        if blocked is None:   # the server is blocked: its members' commands are refused
            return []
        waiting = [m.player for m in members if busy[m.player] < record.max_games and m.player not in blocked]
        if len(waiting) < record.players:
            return []
        await self._ratings.catch_up(record.guild)
        rated = [Waiting(m, (r.ordinal if (r := await rating_of(store, record.guild, record.ruleset, m)) else 0.0))
                 for m in waiting]
        tables = season_tables(rated, record.players, _met(played, now))
        stale = [g.id for g in played if g.game_id is None and now - g.opening > OPEN_RETRY]
        if not tables and not stale:
            return []
        async with self._table.write():
            await stored.bump_tx(store, record)
            for claim in stale:
                await stored.drop_claim_tx(store, claim)
            return [(await stored.claim_tx(store, record.id, table, now), table) for table in tables]

    async def _busy(self, record: SeasonRecord, played: list[SeasonGame], now: float) -> Counter[str]:
        """How many running games of the season each member holds a seat in (not resigned; a game being opened
        counts for its members). A game that moved to another channel is followed there."""
        busy: Counter[str] = Counter()
        for game in played:
            if game.game_id is None:
                if now - game.opening <= OPEN_RETRY:
                    busy.update(game.members)
                continue
            stored_game = await self._table.store.game(game.game_id)
            if stored_game is not None and stored_game.moved and stored_game.moved_to:
                moved = await self._table.store.active_game(stored_game.moved_to)
                # moved before moves were followed at once (league_moves): its copy keeps its seed, a stranger's not
                if moved is not None and moved.seed == stored_game.seed and moved.id > stored_game.id:
                    await stored.link_game(self._table.store, game.id, moved.id)
                    stored_game = moved
            if stored_game is None or stored_game.status != "active":
                self._holders.pop(game.game_id, None)
                continue
            busy.update(self._holding(stored_game, game.members))
        return busy

    def _holding(self, game: GameRecord, members: tuple[str, ...]) -> frozenset[str]:
        """The members who hold a seat (not resigned) in a running game: decoded once a version of the game (each
        scheduler round reads every running game of every season, and would crowd the moves' snapshot cache)."""
        known = self._holders.get(game.id)
        if known is not None and known[0] == game.version:
            return known[1]
        state = get_ruleset(game.ruleset).load_state(game.state)
        held = frozenset(m for m in members if (seat := state.player(m)) is not None
                         and not getattr(seat, "resigned", False))
        self._holders[game.id] = (game.version, held)
        return held

    def _pairing(self, record: SeasonRecord, claim: int, table: tuple[str, ...], names: dict[str, str]) -> Pairing:
        """What opens a table the season claimed (bot.table.service.paired)."""
        kept = season_options(record.options)
        return Pairing(record.channel, f"{get_ruleset(record.ruleset).title} · season {record.id}", claim, record.guild,
                       record.ruleset, kept["setup"], int(kept["deadline_hours"]),
                       [Actor(m, names.get(m, m)) for m in table], f"Season {record.id}", "the season")

    async def _open(self, record: SeasonRecord, claim: int, table: tuple[str, ...], names: dict[str, str]) -> Opened:
        """One paired game (bot.table.service.paired), marked open once started; a game that could not open leaves
        its claim, dropped after OPEN_RETRY (its members wait again then)."""
        async def made(game_id: int) -> None:
            await stored.link_game(self._table.store, claim, game_id)

        opened = await self._paired.open(self._pairing(record, claim, table, names), self.open_thread, made)
        if opened.game_id is not None:
            await stored.opened(self._table.store, claim)
        return opened

    async def _names(self, record: SeasonRecord) -> dict[str, str]:
        """Each member's name as they signed up."""
        return {m.player: m.name for m in await stored.members(self._table.store, record.id)}

    # Reading.

    async def _find(self, channel: str, guild: str, number: int | None, ended: bool = False) -> SeasonRecord:
        """The season a command means: `number:` on this server, else this channel's (running, or the newest),
        else the server's only running season."""
        store = self._table.store
        if number is not None:
            record = await stored.get(store, number)
            if record is None or record.guild != guild:
                raise GameError(f"No season {number} on this server.")
            return record
        statuses = ("running", "ended") if ended else ("running",)
        here = [s for s in await stored.of_guild(store, guild, statuses) if s.channel == channel]
        if here:
            return here[0]
        running = await stored.of_guild(store, guild)
        if len(running) == 1:
            return running[0]
        if running:
            raise GameError(f"This server runs {plural(len(running), 'season', 'seasons')}: name one with number:N "
                            f"({', '.join(f'{s.id} {get_ruleset(s.ruleset).title}' for s in running)}).")
        raise GameError("No season runs on this server: /league new runs one (Manage Server).")

    async def _rows(self, record: SeasonRecord, members: list[SeasonMember]) -> list[tuple[Rating | None,
                                                                                            SeasonMember]]:
        """Everyone who signed up, by this server's rating of the game now (the rated first, best first)."""
        await self._ratings.catch_up(record.guild)
        rows = [(await rating_of(self._table.store, record.guild, record.ruleset, m.player), m) for m in members]
        rows.sort(key=lambda row: (row[0] is None, -row[0].ordinal if row[0] else 0.0, row[1].joined_at))
        return rows

    def _announcement(self, record: SeasonRecord) -> str:
        kept = season_options(record.options)
        setup = " ".join(f"{k}:{v}" for k, v in sorted(kept["setup"].items()))
        return (f"**Season {record.id}**: {get_ruleset(record.ruleset).title}{' ' + setup if setup else ''}, games "
                f"of {record.players}, each member in at most {record.max_games} at once, paired by this server's "
                f"rating; a {kept['deadline_hours']} h deadline a turn. It ends {moment(record.ends_at)}. Press Join "
                f"or send /league join here.")

    async def _progress(self, record: SeasonRecord) -> str:
        store = self._table.store
        members = await stored.members(store, record.id)
        played = await stored.games(store, record.id)
        now = self._table.clock()
        busy = await self._busy(record, played, now)
        played = await stored.games(store, record.id)   # as _busy left them: a moved game followed
        lines = [self._announcement(record).split(" Press Join")[0]]
        if record.status == "ended" and record.ended_at is not None:
            lines[0] = lines[0].split(" It ends")[0] + f" It ended {moment(record.ended_at)}."
        signed = ", ".join(f"{m.name}{'' if m.active else ' (left)'} ({busy[m.player]} running)" for m in members)
        lines.append(f"Members: {signed or 'nobody yet'}.")
        running, finished = [], 0
        for game in played:
            if game.game_id is None:
                continue
            found = await store.game(game.game_id)
            if found is None:
                continue
            if found.status == "active":
                running.append(f"{' v '.join(_named(members, m) for m in game.members)} in "
                               f"{channel_mention(found.channel)}")
            elif not found.moved:
                finished += 1
        lines.append(f"Games running: {len(running)}" + (":\n" + "\n".join(running[:SHOWN_GAMES]) if running else "."))
        lines.append(f"Games played to their end: {finished}.")
        if record.status == "ended":
            standing = _lines(_final_rows(record.final))
        else:
            standing = _lines([(m.name, r) for r, m in await self._rows(record, members)])
        title = "Final standings (at its end)" if record.status == "ended" else "Standings so far"
        lines.append(f"{title}, by this server's rating ({PROVISIONAL_MARK} provisional):\n{standing}")
        return "\n".join(lines)


def _told(record: SeasonRecord, opened: list[Opened]) -> list[Notice]:
    """The season's channel's line naming the games opened (none: nothing), and each game's messages in its thread."""
    if not opened:
        return []
    head = Notice(record.channel, Reply("shown", clip(f"Season {record.id}, paired:\n"
                                                      + "\n".join(o.line for o in opened), MESSAGE_LIMIT)))
    return [head, *(notice for o in opened for notice in o.notices)]


def _named(members: list[SeasonMember], member: str) -> str:
    return next((m.name for m in members if m.player == member), member)


def _final_rows(final: str) -> list[tuple[str, Rating | None]]:
    """A season's stored final standings: each name and rating, best first."""
    if not final:
        return []
    kept = json.loads(final)
    if int(kept.get("format", 0)) > stored.FINAL_FORMAT:
        raise GameError("This season's standings were stored by a newer Pitboss than this one.")
    return [(name, Rating(member, mu, sigma, games) if mu is not None else None)
            for member, name, mu, sigma, games in kept["rows"]]


def _lines(rows: list[tuple[str, Rating | None]]) -> str:
    """Standings as /standings words a rating: its ordinal, marked while provisional."""
    if not rows:
        return "nobody signed up."
    return "\n".join(f"{place}. {name}: {rating_short(rating).removesuffix('; ')}"
                     for place, (name, rating) in enumerate(rows, start=1))


def _met(played: list[SeasonGame], now: float) -> Counter[frozenset[str]]:
    """How often each pair of members sat at one table of the season (games opening included)."""
    met: Counter[frozenset[str]] = Counter()
    for game in played:
        if game.game_id is None and now - game.opening > OPEN_RETRY:
            continue
        for i, first in enumerate(game.members):
            for second in game.members[i + 1:]:
                met[frozenset((first, second))] += 1
    return met
