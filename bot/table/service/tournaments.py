"""Tournaments (issue 40 item 4): `/tournament new`, `join`, `leave`, `start`, `show`, `cancel`; the bot opens each
round's games in threads of the tournament's channel, and the scheduler carries results into the next round.

Rulings:
- A tournament is announced in a channel, where `/tournament join` (or its Join button) signs members up; a
  command without `number:` means the channel's newest tournament not finished. Its creator or a member who
  manages the server starts it (seeding by this server's rating of the game, then by who signed up first) or
  cancels it (its games already running go on as ordinary games).
- Each game seats its table's members in the order the pairing gives, the first as host, with the game's
  setup options and a deadline of `deadline_hours` (48 unless said: the autopilot plays a turn at its deadline,
  so no game of a tournament waits on an absent member for ever); it starts at once. The games roll secret
  dice like any game and are never listed as open tables.
- A game's result is its order at the end (the rating's rank order, rules.ranking); a game ended with no
  result (by its host, an admin, or agreed) ties its whole table. The log is re-run once: the rating's reading of
  the end is kept with the course (`Table.ended`, via Table.when_rated); only a game the rating took in without
  it (an earlier release) is read from its log again. The scheduler looks at running tournaments
  each round of its timer loop: a result counts once, and the next round opens when a round's last game ends.
- The gate (`gate:` a percentage) turns away at sign-up a member the autopilot played more than that share of
  actions for at a deadline in this server's finished games (chess.com's 10%).
- Opening a game is claimed in the stored course first (a versioned write), so two processes never open one
  table twice; a claim whose game never appeared (a crash) is taken again after OPEN_RETRY seconds, and so is one
  whose game was made but not yet seated, timed and started: that game is finished (never a second one made). A
  table is marked open (its claim 0) once its game started.
- No game opens on a server the operator blocked; a member the operator blocked after signing up has their seat
  given to the computer when their game opens (bot.table.service.paired).
- A game's result is read by seat: a seat handed to someone else during the game counts for the entrant seated
  there at the start.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable
from typing import Any

from bot.storage import privacy as controls
from bot.storage import tournaments as stored
from bot.storage.store import GameRecord, VersionConflict
from bot.storage.tournaments import TournamentRecord
from bot.table.jobs.rating_jobs import RatingInput
from bot.table.league import tournament as course
from bot.table.league.pairing import gated_out
from bot.table.league.tournament import Table, Tournament, TournamentError
from bot.table.protocol.replies import MESSAGE_LIMIT, TOURNAMENT_PREFIX, Actor, Notice, Reply, clip, tournament_button
from bot.table.service.acting import Acting
from bot.table.service.paired import PairedGames, Pairing
from bot.table.service.queue import ThreadOpener
from bot.table.service.ratings import Ratings, game_input, rating_of
from bot.table.service.seating import Seating
from bot.table.service.shared import Table as Room
from bot.table.service.timers import Timers
from bot.table.trust.guards import plain_name
from rules.errors import GameError
from rules.registry import get_ruleset
from rules.table import plural

log = logging.getLogger("pitboss.league")

TOURNAMENT_BUTTON = re.compile(rf"^{TOURNAMENT_PREFIX}:(\d+):0:0$")
DEADLINE_HOURS = 48
OPEN_RETRY = 600.0
WRITE_TRIES = 5

async def named_thread(parent: str, title: str, number: int) -> str:
    """Where a transport without threads (the command line, tests) plays a tournament's game."""
    return f"{parent}-t{number}"


class Tournaments:
    """The server's tournaments: sign-up, start, the games of each round, and the final table."""

    def __init__(self, table: Room, seating: Seating, acting: Acting, timers: Timers, ratings: Ratings,
                 check_setup: Callable[[str, int, str, str], dict[str, Any]]):
        self._table, self._seating, self._acting, self._timers = table, seating, acting, timers
        self._ratings, self._check_setup = ratings, check_setup
        self._paired = PairedGames(table, seating, acting, timers)
        self.open_thread: ThreadOpener = named_thread   # the Discord adapter opens real threads
        self._opening: set[int] = set()   # tournaments whose due games this process is opening now
        table.when_rated.append(self._rated)

    # The commands.

    async def step(self, channel: str, actor: Actor, guild: str, name: str, number: int | None) -> Reply:
        """`/tournament join`, `leave`, `start`, `show` or `cancel`."""
        handlers = {"tournament join": self.join, "tournament leave": self.leave, "tournament start": self.start,
                    "tournament show": self.show, "tournament cancel": self.cancel}
        return await handlers[name](channel, actor, guild, number)

    async def new(self, channel: str, actor: Actor, guild: str, options: dict[str, Any]) -> Reply:
        """`/tournament new`: announce a tournament open for sign-up, with its Join button."""
        ruleset_id = str(options["ruleset"])
        seats = int(options.get("seats") or 2)
        setup = self._check_setup(ruleset_id, seats, str(options.get("setup") or ""), "a tournament's game")
        try:
            plan = course.new(str(options["format"]), seats, int(options["players"]))
        except TournamentError as exc:
            raise GameError(str(exc)) from None
        gate = options.get("gate")
        kept = {"setup": setup, "deadline_hours": int(options.get("deadline_hours") or DEADLINE_HOURS)}
        record = await stored.create(self._table.store, guild, channel, ruleset_id, json.dumps(kept, sort_keys=True),
                                     actor.id, None if gate is None else int(gate) / 100, course.dump(plan))
        return Reply("applied", clip(self._announcement(record, plan) + f"\nOpened by {plain_name(actor.name)}.",
                                     MESSAGE_LIMIT), buttons=(tournament_button(record.id),))

    async def join(self, channel: str, actor: Actor, guild: str, number: int | None) -> Reply:
        """`/tournament join` (or its button): sign up before the start."""
        record = await self._find(channel, guild, number)
        if record.gate is not None:
            actions, autopiloted = await stored.actions_and_autopiloted(self._table.store, guild, actor.id)
            if gated_out(actions, autopiloted, record.gate):
                raise GameError(f"This tournament's gate turns away a member the autopilot played more than "
                                f"{record.gate:.0%} of actions for at a deadline; here it played {autopiloted} of "
                                f"your {actions}.")
        plan = await self._change(record, lambda t: course.sign_up(t, actor.id, plain_name(actor.name)))
        return Reply("applied", f"{plain_name(actor.name)} signed up for tournament {record.id} "
                                f"({len(plan.entrants)} of {plan.capacity}).")

    async def leave(self, channel: str, actor: Actor, guild: str, number: int | None) -> Reply:
        """`/tournament leave`: take one's name off the list before the start."""
        record = await self._find(channel, guild, number)
        plan = await self._change(record, lambda t: course.withdraw(t, actor.id))
        return Reply("applied", f"{plain_name(actor.name)} left tournament {record.id} "
                                f"({len(plan.entrants)} of {plan.capacity} signed up).")

    async def start(self, channel: str, actor: Actor, guild: str, number: int | None) -> Reply:
        """`/tournament start` (its creator, or a member who manages the server): seed and open round 1."""
        record = await self._find(channel, guild, number)
        self._may_run(record, actor)
        plan = course.load(record.course)
        await self._ratings.catch_up(guild)   # once: then each entrant's stored rating is current
        seeds = {}
        for member in plan.entrants:
            rating = await rating_of(self._table.store, guild, record.ruleset, member)
            seeds[member] = rating.ordinal if rating is not None else 0.0
        await self._change(record, lambda t: course.start(t, seeds))
        notices = await self._open_due(record.id)
        started = course.load((await self._get(record.id)).course)
        lines = [f"Tournament {record.id} has started: {plural(len(started.entrants), 'player', 'players')}, "
                 f"seeded {', '.join(started.names.get(m, m) for m in started.seeds)}."]
        return Reply("applied", clip("\n".join(lines), MESSAGE_LIMIT), notices=tuple(notices))

    async def cancel(self, channel: str, actor: Actor, guild: str, number: int | None) -> Reply:
        """`/tournament cancel`: its creator or a manager; games already running go on as ordinary games."""
        record = await self._find(channel, guild, number)
        self._may_run(record, actor)
        async with self._table.write():
            await stored.save_tx(self._table.store, record, "cancelled", record.course)
        return Reply("applied", f"Tournament {record.id} is cancelled; its games still running go on as ordinary "
                                f"games.")

    async def show(self, channel: str, actor: Actor, guild: str, number: int | None) -> Reply:
        """`/tournament show`: the entrants, each round's games and results, and the table so far."""
        record = await self._find(channel, guild, number, finished=True)
        plan = course.load(record.course)
        return Reply("shown", clip(self._progress(record, plan), MESSAGE_LIMIT), ephemeral=True)

    # The scheduler's part.

    async def due(self) -> list[Notice]:
        """Carry ended games into the running tournaments, and open the games due: the notices to post. The
        ratings games' ends started are awaited first: each keeps its game's result, read once."""
        notices: list[Notice] = []
        await self._ratings.settled()
        for record in await stored.running(self._table.store):
            try:
                notices += await self._advance(record)
                notices += await self._open_due(record.id)
            except Exception:   # one tournament's trouble never stops the scheduler's round
                log.exception("tournament %s could not move on", record.id)
        return notices

    async def _rated(self, game: GameRecord, given: RatingInput) -> None:
        """The rating took a finished game in: a tournament's game keeps the result read (its log re-run once, by
        the rating), for the scheduler to count."""
        record = await stored.of_game(self._table.store, game.id)
        if record is None or record.status != "running":
            return
        table = course.load(record.course).table_of(game.id)
        if table is None or table.order is not None or table.ended is not None:
            return
        order = [list(group) for group in result_of(given, table)]
        await self._change(record, lambda t: _set_ended(t, game.id, order))

    async def _advance(self, record: TournamentRecord) -> list[Notice]:
        plan = course.load(record.course)
        ended: dict[int, tuple[tuple[str, ...], ...]] = {}
        for table in plan.tables:
            if table.game_id and table.order is None:
                if table.ended is not None:   # kept when the rating read the game's end
                    ended[table.game_id] = tuple(tuple(group) for group in table.ended)
                    continue
                game = await self._table.store.game(table.game_id)
                if game is not None and game.status == "finished" and not game.moved:   # rated before, elsewhere,
                    # or not at all; a record retired by a move (before moves were followed) holds no result
                    ended[table.game_id] = await self._result(game, table)
        if not ended:
            return []

        def record_all(t: Tournament) -> None:
            for game_id, order in ended.items():
                course.record(t, game_id, [list(group) for group in order])

        after = await self._change(record, record_all)
        if after.status != "finished":
            return []
        return [Notice(record.channel, Reply("shown", clip(f"Tournament {record.id} is over.\n"
                                                           + self._final(after), MESSAGE_LIMIT)))]

    async def _result(self, game: GameRecord, table: Table) -> tuple[tuple[str, ...], ...]:
        """A finished game's order whose result the rating did not keep (rated by an earlier release, or its
        keeping failed): read from its log."""
        return result_of(await game_input(self._table.store, self._table.heavy.run, game), table)

    async def _open_due(self, tournament_id: int) -> list[Notice]:
        """Open every game of the tournament waiting to be opened (claimed first: never twice): one message in
        the tournament's channel names them all, and each game's thread gets its setup and its start. While this
        process opens a tournament's games, another caller (the scheduler's round during a start) leaves them to it:
        the opener's loop takes every game due, so a round is still told in one message."""
        if tournament_id in self._opening:
            return []
        self._opening.add(tournament_id)
        try:
            return await self._open_all_due(tournament_id)
        finally:
            self._opening.discard(tournament_id)

    async def _open_all_due(self, tournament_id: int) -> list[Notice]:
        """`_open_due`'s loop: claim and open (or finish) each game due until none is left; none on a server the
        operator blocked (its members' commands are refused: the round opens once it is unblocked)."""
        lines: list[str] = []
        games: list[Notice] = []
        record = await self._get(tournament_id)
        if await controls.blocked_members(self._table.store, record.guild) is None:
            return []
        while True:
            record = await self._get(tournament_id)
            plan = course.load(record.course)
            now = self._table.clock()
            index = next((i for i, t in enumerate(plan.tables) if _due(t, now)), None)
            if index is None or record.status != "running":
                break
            plan.tables[index].opening = now
            try:
                async with self._table.write():
                    record = await stored.save_tx(self._table.store, record, record.status, course.dump(plan))
            except VersionConflict:
                continue
            line, notices = await self._open(record, index, plan.tables[index])
            lines += [line] if line else []
            games += notices
        if not lines:
            return []
        head = Notice(record.channel, Reply("shown", clip(f"Tournament {record.id}:\n" + "\n".join(lines),
                                                         MESSAGE_LIMIT)))
        return [head, *games]

    async def _open(self, record: TournamentRecord, index: int, table: Table) -> tuple[str, list[Notice]]:
        """One game of the tournament (bot.table.service.paired), or the rest of one a crash left half-open: its
        line for the tournament's channel ("" when nothing was left to do), and its thread's two messages (the
        setup, then the start's table). Its table is marked open once its game is."""
        kept = json.loads(record.options)
        plan = course.load(record.course)
        round_words = f"round {table.round}"

        async def made(game_id: int) -> None:
            async with self._table.write():
                await stored.link_game_tx(self._table.store, record.id, game_id)
            await self._change(record, lambda t: _set_game(t, index, game_id))

        pairing = Pairing(
            record.channel, f"{get_ruleset(record.ruleset).title} · tournament {record.id} · {round_words}",
            record.id * 1000 + index, record.guild, record.ruleset, kept["setup"], kept["deadline_hours"],
            [Actor(m, plan.names.get(m, m)) for m in table.members], f"Tournament {record.id}, {round_words}",
            "the tournament")
        if table.game_id:
            opened = await self._paired.finish(pairing, table.game_id)
        else:   # a game that could not open is tried again after OPEN_RETRY
            opened = await self._paired.open(pairing, self.open_thread, made)
        if opened.game_id is not None:
            await self._change(record, lambda t: _set_open(t, index))
        return f"{round_words}: {opened.line}" if opened.line else "", opened.notices

    # Reading and writing.

    async def _change(self, record: TournamentRecord, step: Callable[[Tournament], object]) -> Tournament:
        """Apply a step to the stored course and write it, reading again when another writer came first."""
        for _ in range(WRITE_TRIES):
            plan = course.load(record.course)
            try:
                step(plan)
            except TournamentError as exc:
                raise GameError(str(exc)) from None
            try:
                async with self._table.write():
                    await stored.save_tx(self._table.store, record, plan.status, course.dump(plan))
                return plan
            except VersionConflict:
                record = await self._get(record.id)
        raise GameError("The tournament is busy: try again.")

    async def _get(self, tournament_id: int) -> TournamentRecord:
        record = await stored.get(self._table.store, tournament_id)
        if record is None:
            raise GameError(f"No tournament {tournament_id} here.")
        return record

    async def _find(self, channel: str, guild: str, number: int | None, finished: bool = False) -> TournamentRecord:
        """The tournament a command means: `number:` on this server, else the channel's newest still open."""
        if number is not None:
            record = await stored.get(self._table.store, number)
            if record is None or record.guild != guild:
                raise GameError(f"No tournament {number} on this server.")
            return record
        statuses = ("signup", "running", "finished") if finished else ("signup", "running")
        found = [t for t in await stored.of_guild(self._table.store, guild, statuses) if t.channel == channel]
        if not found:
            raise GameError("No tournament in this channel: /tournament new opens one (or name one: number:N).")
        return found[0]

    @staticmethod
    def _may_run(record: TournamentRecord, actor: Actor) -> None:
        if actor.id != record.creator and not actor.is_admin:
            raise GameError("Only the tournament's creator, or a member who manages the server, may do that.")

    # Words.

    def _announcement(self, record: TournamentRecord, plan: Tournament) -> str:
        kept = json.loads(record.options)
        setup = " ".join(f"{k}:{v}" for k, v in sorted(kept["setup"].items()))
        gate = f"; gate: at most {record.gate:.0%} of actions played by the autopilot" if record.gate is not None \
            else ""
        return (f"**Tournament {record.id}**: {get_ruleset(record.ruleset).title}{' ' + setup if setup else ''}, "
                f"{plan.format}, games of {plan.size}, up to {plan.capacity} players; a {kept['deadline_hours']} h "
                f"deadline a turn{gate}. Press Join or send /tournament join here.")

    def _progress(self, record: TournamentRecord, plan: Tournament) -> str:
        names = plan.names
        signed = ", ".join(names.get(m, m) for m in plan.entrants) or "nobody"
        lines = [self._announcement(record, plan).split(" Press Join")[0],
                 f"Status: {record.status}; signed up: {signed}."]
        for table in plan.tables:
            who = " v ".join(names.get(m, m) for m in table.members)
            if table.bye:
                lines.append(f"Round {table.round}: {who} goes on (a bye).")
                continue
            result = ", ".join("=".join(names.get(m, m) for m in group) for group in table.order or ())
            state = f"result {result}" if table.order is not None else \
                f"game {table.game_id}" if table.game_id else "opening"
            lines.append(f"Round {table.round}: {who}: {state}.")
        if plan.status != "signup":
            lines.append(self._final(plan))
        return "\n".join(lines)

    @staticmethod
    def _final(plan: Tournament) -> str:
        title = "Final table" if plan.status == "finished" else "The table so far"
        unit = "points" if plan.format == "round-robin" else "round reached"
        rows = [f"{place}. {plan.names.get(m, m)}: {score:g}"
                for place, (m, score) in enumerate(course.standing(plan), start=1)]
        return f"{title} ({unit}):\n" + "\n".join(rows)


def _due(table: Table, now: float) -> bool:
    """Whether a table's game is due to be opened, or finished (made and linked before a crash, not yet marked
    open): no process took it on within OPEN_RETRY (a claim older than that was a crash's)."""
    if table.bye or table.order is not None or table.ended is not None or (table.game_id and not table.opening):
        return False
    return not table.opening or now - table.opening > OPEN_RETRY


def _set_game(plan: Tournament, index: int, game_id: int) -> None:
    plan.tables[index].game_id = game_id


def _set_open(plan: Tournament, index: int) -> None:
    plan.tables[index].opening = 0.0


def _set_ended(plan: Tournament, game_id: int, order: list[list[str]]) -> None:
    table = plan.table_of(game_id)
    if table is not None and table.order is None:
        table.ended = order


def result_of(given: RatingInput, table: Table) -> tuple[tuple[str, ...], ...]:
    """A finished game's order by its seats' members, as the rating read it: a seat counts for the member seated
    there at the start (handed to someone else, it is still theirs); a game with no result ties its whole table."""
    seated = set(table.members)
    order = tuple(tuple(m for m in (given.starters.get(s, s) for s in group) if m in seated) for group in given.order)
    return tuple(group for group in order if group) or (tuple(table.members),)
