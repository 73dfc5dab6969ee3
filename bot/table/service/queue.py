"""The queue (issue 40 item 2): `/queue join`, `leave`, `show`; when enough members wait for the same game the
table opens it in a new thread and musters them (`/queue confirm`, `/queue decline`, or the buttons).

Rulings:
- A queue is one game on one server: its ruleset, its number of players and its setup options, checked as
  `/new` checks them (the same refusals), without seed: (the queue's games roll secret dice) or thread:. Members
  joining it from different channels wait together; the game opens in a new thread of the channel the member
  who waited longest joined in (`Queues.games_channel`: the one seam that names where queued games open).
- A member plays at most `at_once` queued games at a time on a server (1 until they say; kept for their later
  joins): a muster holding them a seat counts, and so does a running game the queue opened for them, until it
  ends. A member at their limit is passed over (they keep their place); so is a member the operator blocked.
- Every match takes the server's queue lock in its write transaction, so two queues filling at once never take
  one member twice, nor past their limit.
- Mustering: the matched members leave the queue and are pinged in the thread with one message asking each to
  confirm within MUSTER_HOURS (24 h: an async table's members look in once a day, in any time zone). Who confirms
  takes their seat at once (the first to confirm makes the game and hosts it). Who declines, or lets the time
  pass, is out of that queue (said once, in the thread), and the seat is offered to the next member waiting for
  the same game (who has 24 h of their own), else left open: anyone may /game join it. The game starts by itself
  once every seat is taken; until then /game start and /game add-ai are the muster's, not the host's.
- The muster's deadline is its own: a timer in the database that the scheduler claims (it survives a restart),
  moved by nothing else: not away hours (24 h outlasts any away window, and the ping waits for nobody), not a
  pause, not quiet hours; its ping goes at once where each member wants theirs (notify:dm and digest members by
  direct message, as a seat offered them cannot wait a day). A muster never waits on nobody: while it asks anyone
  its timer runs; when it asks nobody its free seats are an open table (an ordinary lobby), or it is closed
  (nobody took a seat). A member who takes such a free seat by /game join is held by it as by a muster (refused
  at their limit).
- The queue's pings and muster messages say the game, its options, the seats and names: never a seed, a hand or
  anything of a running game's state.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any

from bot.storage import league as league_stored
from bot.storage import privacy as controls
from bot.storage import queues as stored
from bot.storage.queues import Entry, Muster, MusterSeat
from bot.table.clock.moments import moment
from bot.table.protocol.commands import Command, CommandSyntaxError, read_options
from bot.table.protocol.refusals import NotThisGame
from bot.table.protocol.replies import PRESSED, Actor, Edit, Notice, Reply, queue_button
from bot.table.service.acting import Acting
from bot.table.service.seating import Seating
from bot.table.service.shared import Table, channel_mention
from bot.table.trust.guards import plain_name
from rules.errors import GameError
from rules.registry import get_ruleset
from rules.table import born_computer, plural

MUSTER_HOURS = 24
HOUR = 3600.0
OPEN_RETRY = 600.0   # seconds: a claimed muster timer whose handling failed (a crash) comes due again after this
QUEUE_BUTTON = re.compile(r"^pq:(\d+):0:([01])$")
DEFAULT_AT_ONCE = 1
LOBBY_COMMANDS = ("game join", "game start", "game add-ai")   # what a muster decides while it gathers seats

ThreadOpener = Callable[[str, str, int], Awaitable[str]]   # (parent channel, title, muster id) -> the thread's id


class ThreadRefused(Exception):
    """The transport could not open a thread for a queued game (a permission it lacks): why, for the members."""


async def named_thread(parent: str, title: str, muster: int) -> str:
    """Where a transport without threads (the command line, tests) plays a queued game: a channel named after it."""
    return f"{parent}-queue{muster}"


def queue_key(ruleset_id: str, players: int, options: dict[str, Any]) -> str:
    """The identity of a queue: those who wait for the same key wait for the same game."""
    return json.dumps({"ruleset": ruleset_id, "players": players, "options": options}, sort_keys=True)


@dataclass(frozen=True)
class QueueGame:
    """A queue's game, read from its key."""

    ruleset: str
    players: int
    options: dict[str, Any]

    @classmethod
    def of(cls, key: str) -> QueueGame:
        data = json.loads(key)
        return cls(str(data["ruleset"]), int(data["players"]), dict(data["options"]))

    def words(self) -> str:
        """'Its title, 4 players, rounds:5': what the game is, for anyone's eyes."""
        title = get_ruleset(self.ruleset).title
        options = " ".join(f"{k}:{v}" for k, v in sorted(self.options.items()) if k != "revision")
        return f"{title}, {self.players} players" + (f", {options}" if options else "")


@dataclass(frozen=True)
class Settled:
    """What settling a muster did: who was let go (time ran out), who was asked next, and where it stands."""

    expired: tuple[MusterSeat, ...]
    offered: tuple[MusterSeat, ...]
    status: str
    full: bool


class Queues:
    """Who waits for which game, and the musters of the games the queue opened."""

    def __init__(self, table: Table, seating: Seating, acting: Acting):
        self._table, self._seating, self._acting = table, seating, acting
        self.open_thread: ThreadOpener = named_thread   # the Discord adapter opens real threads

    async def games_channel(self, guild: str, joined_in: str) -> str:
        """The channel whose new thread a queued game opens in: the server's board channel when it keeps a board
        of open tables (`/league board`), else the channel the queue was joined in."""
        board = await league_stored.board(self._table.store, guild)
        return board.channel if board is not None else joined_in

    # The commands.

    async def join(self, channel: str, actor: Actor, guild: str, ruleset_id: str, players: int, setup: str,
                   at_once: int | None) -> Reply:
        """`/queue join`: wait for a game; the game opens at once when this member completes a queue."""
        options = checked_setup(ruleset_id, players, setup)
        game = QueueGame(ruleset_id, players, options)
        key = queue_key(ruleset_id, players, options)
        now = self._table.clock()
        async with self._table.write():
            await self._table.store.driver.lock_channel(stored.queue_lock(guild))
            fresh = await stored.put_entry_tx(self._table.store, Entry(guild, key, actor.id, plain_name(actor.name),
                                                                        channel, now))
            if at_once is not None:
                await stored.set_limit_tx(self._table.store, guild, actor.id, at_once)
            limit = (await stored.limits_tx(self._table.store, guild, [actor.id])).get(actor.id, DEFAULT_AT_ONCE)
            playing = (await stored.queued_games_tx(self._table.store, guild, [actor.id])).get(actor.id, 0)
            matched = await self._match_tx(guild, key, game.players)
        said = (f"You wait for {game.words()}." if fresh else f"You were waiting for {game.words()} already.")
        said += f" You play {plural(limit, 'queued game', 'queued games')} at once"
        said += f" ({playing} now)." if playing else "."
        if matched is None:
            waiting = len(await stored.waiting_tx(self._table.store, guild, key))
            busy = " (some play all the queued games they chose: it opens when they are free)" \
                if waiting >= game.players else ""
            return Reply("shown", f"{said} {waiting} of {game.players} wait{busy}; the game opens when enough do "
                                  f"(/queue show, /queue leave).", ephemeral=True)
        notice = await self._opened(*matched)
        where = f" The game opens in {channel_mention(notice.channel)}." if notice.reply.outcome != "refused" else \
            f" {notice.reply.text}"
        return Reply("shown", f"{said}{where}", ephemeral=True,
                     notices=(notice,) if notice.reply.outcome != "refused" else ())

    async def leave(self, actor: Actor, guild: str, ruleset_id: str) -> Reply:
        """`/queue leave`: out of one game's queues, or of all (a muster's seat is answered with /queue decline)."""
        entries = [e for e in await stored.entries_of(self._table.store, guild, actor.id)
                   if not ruleset_id or QueueGame.of(e.queue).ruleset == ruleset_id]
        if not entries:
            raise GameError("You wait in no queue here" + (f" for {ruleset_id}." if ruleset_id else "."))
        async with self._table.write():
            await self._table.store.driver.lock_channel(stored.queue_lock(guild))
            for entry in entries:
                await stored.drop_entry_tx(self._table.store, guild, entry.queue, actor.id)
        left = "; ".join(QueueGame.of(e.queue).words() for e in entries)
        return Reply("shown", f"You left the queue: {left}.", ephemeral=True)

    async def show(self, actor: Actor, guild: str) -> Reply:
        """`/queue show`: the queues a member waits in (with how many wait), their limit and queued games."""
        entries = await stored.entries_of(self._table.store, guild, actor.id)
        limit = await stored.limit_of(self._table.store, guild, actor.id) or DEFAULT_AT_ONCE
        async with self._table.store.driver.snapshot():
            playing = (await stored.queued_games_tx(self._table.store, guild, [actor.id])).get(actor.id, 0)
            counts = [len(await stored.waiting_tx(self._table.store, guild, e.queue)) for e in entries]
        lines = [f"- {QueueGame.of(e.queue).words()}: {n} of {QueueGame.of(e.queue).players} wait"
                 for e, n in zip(entries, counts, strict=True)]
        head = "Your queues here:" if lines else "You wait in no queue here (/queue join)."
        tail = (f"You play {plural(limit, 'queued game', 'queued games')} at once (/queue join at_once: changes it); "
                f"{plural(playing, 'queued game holds', 'queued games hold')} you now.")
        return Reply("shown", "\n".join([head, *lines, tail]), ephemeral=True)

    async def answer(self, channel: str, actor: Actor, yes: bool, guild: str, muster_id: int | None = None) -> Reply:
        """`/queue confirm` or `/queue decline` in a queued game's thread (or its buttons, naming the muster)."""
        muster = await stored.muster_in(self._table.store, channel)
        if muster_id is not None and (muster is None or muster.id != muster_id):   # a button of a muster over
            pressed = await stored.muster(self._table.store, muster_id)
            if pressed is not None and pressed.channel == channel and pressed.status in ("started", "closed"):
                return over(pressed)
        if muster is None or muster_id is not None and muster.id != muster_id:
            raise GameError("No queued game is gathering its seats here: the buttons and /queue confirm work in the "
                            "thread of a game the queue opened, until it starts.")
        async with self._table.store.driver.snapshot():
            mine = next((s for s in await stored.seats_tx(self._table.store, muster.id) if s.player == actor.id), None)
        if mine is None:
            raise GameError("This queued game did not ask you" + (": /game join takes a free seat, if one is."
                                                                   if yes else "."))
        if mine.status == "confirmed":
            raise GameError("You confirmed your seat already: the game starts once every seat is taken."
                            if yes else "You took your seat already; once the game starts, /game resign leaves it.")
        if not yes:
            async with self._table.write():
                await self._table.store.driver.lock_channel(stored.queue_lock(muster.guild))
                if not await stored.drop_seat_tx(self._table.store, muster.id, actor.id):
                    raise GameError("You answered already.")   # (another process took the same answer)
                settled = await self._settle_tx(muster)
            said = f"{mine.name} declined: out of this queue."
            return ended_by_press(await self._after(muster, said, settled, guild), settled.status == "closed",
                                  muster_id)
        seated = await self._seat(muster, actor, guild)
        done = await self._seated(muster, actor, seated, guild)
        gone = await stored.muster_in(self._table.store, channel)
        return ended_by_press(done, gone is None or gone.id != muster.id, muster_id)

    async def made_by_queue(self, channel: str, making: Callable[[], Awaitable[Reply]]) -> Reply:
        """`making()` (a /game new or import) carried out, unless the channel is a queued game's thread whose muster
        still gathers: that game is the queue's to make (its first member to confirm does), not a passer-by's."""
        if await stored.muster_in(self._table.store, channel) is not None:
            raise GameError("This thread is the queue's: its game is made when the first member it asked confirms "
                            "(/queue confirm). Start a game of your own in another channel.")
        return await making()

    async def lobby_command(self, channel: str, actor: Actor, command: Command, guild: str) -> Reply | None:
        """/game join, start or add-ai in a queued game's thread while its muster gathers seats: a join takes a
        free seat (a member the muster asked confirms by it); start and add-ai are the muster's. None: not one."""
        if command.name not in LOBBY_COMMANDS:
            return None
        muster = await stored.muster_in(self._table.store, channel)
        if muster is None:
            return None
        if command.name != "game join":
            raise GameError("This game was opened by the queue: it starts by itself once every seat is taken (free "
                            "seats: /game join).")
        seats = await stored.seats_tx(self._table.store, muster.id)
        mine = next((s for s in seats if s.player == actor.id), None)
        if mine is not None and mine.status == "asked":
            return await self.answer(channel, actor, True, guild)
        if mine is None:
            await self._hold_free_seat(muster, actor)
        try:
            seated = await self._seat(muster, actor, guild)
        except BaseException:
            if mine is None:
                await self._release(muster, actor)
            raise
        if seated.outcome == "refused" and mine is None:
            await self._release(muster, actor)
        return await self._seated(muster, actor, seated, guild)

    async def _hold_free_seat(self, muster: Muster, actor: Actor) -> None:
        """A member who takes a queued game's free seat by /game join is held by it as by a muster: refused when
        every seat is held or at their limit of queued games (as a match passes them over), else the seat is held
        for them under the server's queue lock, so two joins at once cannot both pass the limit."""
        store = self._table.store
        async with self._table.write():
            await store.driver.lock_channel(stored.queue_lock(muster.guild))
            if len(await stored.seats_tx(store, muster.id)) >= QueueGame.of(muster.queue).players:
                raise GameError("Every seat of this queued game is held for the members it asked; /queue join "
                                f"{QueueGame.of(muster.queue).ruleset} waits for the next one.")
            limit = (await stored.limits_tx(store, muster.guild, [actor.id])).get(actor.id, DEFAULT_AT_ONCE)
            playing = (await stored.queued_games_tx(store, muster.guild, [actor.id])).get(actor.id, 0)
            if playing >= limit:
                raise GameError(f"You play {plural(limit, 'queued game', 'queued games')} at once, and "
                                f"{plural(playing, 'holds', 'hold')} you now: this seat waits for another member "
                                f"(/queue join at_once: raises your limit).")
            await stored.put_seat_tx(store, MusterSeat(muster.id, actor.id, plain_name(actor.name), "asked",
                                                       self._table.clock() + MUSTER_HOURS * HOUR))

    async def _release(self, muster: Muster, actor: Actor) -> None:
        """Give back a seat held for a join the game refused."""
        async with self._table.write():
            await self._table.store.driver.lock_channel(stored.queue_lock(muster.guild))
            await stored.drop_seat_tx(self._table.store, muster.id, actor.id)

    # The muster.

    async def muster(self, guild: str, joined_in: str, ruleset_id: str, players: int, options: dict[str, Any],
                     members: list[tuple[str, str]]) -> Notice:
        """Open a game for these members (id, name) and muster them: the step a league or tournament pairing
        members calls. The game is opened as a queue's would be (a thread of `games_channel`), each member asked to
        confirm within MUSTER_HOURS; a seat given up is offered to whoever waits in that game's queue, else left
        open. The notice to post in the thread (a refusal when no thread could be opened)."""
        key = queue_key(ruleset_id, players, options)
        now = self._table.clock()
        async with self._table.write():
            await self._table.store.driver.lock_channel(stored.queue_lock(guild))
            muster_id = await stored.new_muster_tx(self._table.store, guild, key, joined_in, now + OPEN_RETRY)
            taken = [MusterSeat(muster_id, player, name, "asked", now + MUSTER_HOURS * HOUR)
                     for player, name in members]
            for seat in taken:
                await stored.drop_entry_tx(self._table.store, guild, key, seat.player)
                await stored.put_seat_tx(self._table.store, seat)
        return await self._opened(muster_id, guild, key, joined_in, tuple(taken))

    async def _match_tx(self, guild: str, key: str, players: int) -> tuple[int, str, str, str, tuple[MusterSeat, ...]] \
            | None:
        """Inside the server's queue lock: the first `players` members waiting for `key` who may play one more
        queued game, taken out of the queue into a new muster (its thread not opened yet); None when too few."""
        chosen = await self._eligible_tx(guild, key, players, ())
        if len(chosen) < players:
            return None
        now = self._table.clock()
        muster_id = await stored.new_muster_tx(self._table.store, guild, key, chosen[0].channel, now + OPEN_RETRY)
        taken = []
        for entry in chosen:
            if not await stored.drop_entry_tx(self._table.store, guild, key, entry.player):
                raise GameError("The queue changed meanwhile; please join again.")   # never: the lock holds it
            seat = MusterSeat(muster_id, entry.player, entry.name, "asked", now + MUSTER_HOURS * HOUR)
            await stored.put_seat_tx(self._table.store, seat)
            taken.append(seat)
        return muster_id, guild, key, chosen[0].channel, tuple(taken)

    async def _eligible_tx(self, guild: str, key: str, wanted: int, held: tuple[str, ...]) -> list[Entry]:
        """The first `wanted` members waiting for `key` who may be matched: not held here already, not blocked, not
        at their limit of queued games."""
        waiting = [e for e in await stored.waiting_tx(self._table.store, guild, key) if e.player not in held]
        if not waiting:
            return []
        ids = [e.player for e in waiting]
        limits = await stored.limits_tx(self._table.store, guild, ids)
        playing = await stored.queued_games_tx(self._table.store, guild, ids)
        blocked = await controls.blocked_members(self._table.store, guild)
        if blocked is None:   # the server is blocked: its members' commands are refused
            return []
        return [e for e in waiting if e.player not in blocked
                and playing.get(e.player, 0) < limits.get(e.player, DEFAULT_AT_ONCE)][:wanted]

    async def _opened(self, muster_id: int, guild: str, key: str, joined_in: str,
                      taken: tuple[MusterSeat, ...]) -> Notice:
        """The thread of a muster the queue filled, and its first message: each member pinged and asked to
        confirm. When no thread can be opened the members go back to the queue, and the notice is a refusal."""
        game = QueueGame.of(key)
        parent = await self.games_channel(guild, joined_in)
        try:
            thread = await self.open_thread(parent, f"{get_ruleset(game.ruleset).title} · queue #{muster_id}",
                                            muster_id)
        except ThreadRefused as exc:
            now = self._table.clock()
            async with self._table.write():
                await self._table.store.driver.lock_channel(stored.queue_lock(guild))
                for seat in taken:
                    await stored.drop_seat_tx(self._table.store, muster_id, seat.player)
                    await stored.put_entry_tx(self._table.store, Entry(guild, key, seat.player, seat.name, joined_in,
                                                                        now))
                await stored.set_muster_tx(self._table.store, muster_id, "closed", None)
            return Notice(joined_in, Reply("refused", f"The queue for {game.words()} filled, but {exc} Everyone "
                                                      f"waits on.", ephemeral=True))
        async with self._table.write():
            await stored.set_muster_tx(self._table.store, muster_id, "mustering", min(s.due or 0 for s in taken),
                                       channel=thread)
        muster = Muster(muster_id, guild, key, joined_in, thread, "mustering", None)
        return Notice(thread, self._asking(muster, taken, f"The queue opened this game: {game.words()}."))

    def _asking(self, muster: Muster, asked: tuple[MusterSeat, ...], head: str) -> Reply:
        """One public message pinging the members asked, with the buttons to answer (nothing secret in it)."""
        names = ", ".join(s.name for s in asked)
        by = min(s.due or 0.0 for s in asked)
        text = (f"{head} {names}: confirm your seat within {MUSTER_HOURS} h, by {moment(by)}: press Confirm my "
                f"seat, or send /queue confirm here. Decline, or letting the time pass, takes you out of this queue "
                f"and offers the seat on. The game starts once every seat is taken.")
        # its own message, as a seat offered is: a digest member is told at once too (bot.table.service.away)
        return Reply("shown", text, mentions=tuple(s.player for s in asked), own_message=True,
                     ping_words="your queued game is ready: confirm your seat.",
                     buttons=(queue_button(muster.id, True), queue_button(muster.id, False)))

    async def _seat(self, muster: Muster, actor: Actor, guild: str) -> Reply:
        """Seat a member in the muster's game (the first makes the game and hosts it): the join's reply."""
        game = QueueGame.of(muster.queue)
        made = None
        if await self._table.store.active_game(muster.channel) is None:
            if any(s.status == "confirmed" for s in await stored.seats_tx(self._table.store, muster.id)):
                async with self._table.write():
                    await stored.set_muster_tx(self._table.store, muster.id, "closed", None)
                raise GameError("This queued game was ended before it started; /queue join waits for another.")
            # unlisted while the muster holds its seats: listed as an open table once it leaves seats open
            made = await self._seating.new_game(muster.channel, actor, {"ruleset": game.ruleset, **game.options,
                                                                        "public": "no"}, guild or muster.guild)
            if made.outcome == "refused":
                return made
        joined = await self._acting.act(muster.channel, actor, Command("game join", {}))
        # the game's first line (its dice commitment) is said where the first seat is taken
        commitment = [line for line in (made.text.splitlines() if made is not None else ()) if "commitment" in line]
        return replace(joined, text="\n".join([*commitment, joined.text]))

    async def _seated(self, muster: Muster, actor: Actor, seated: Reply, guild: str) -> Reply:
        """After a member's join: their seat confirmed, the muster settled, and the game started once full."""
        if seated.outcome == "refused":
            return seated
        async with self._table.write():
            await self._table.store.driver.lock_channel(stored.queue_lock(muster.guild))
            await stored.put_seat_tx(self._table.store, MusterSeat(muster.id, actor.id, plain_name(actor.name),
                                                                   "confirmed", None))
            settled = await self._settle_tx(muster)
        if not settled.full:
            left = await self._after(muster, "", settled, guild)
            progress = await self._progress(muster)
            return replace(seated, text=f"{seated.text}\n{progress}",
                           notices=seated.notices + ((Notice(muster.channel, left),) if left.text else ()))
        return await self._started(muster, seated)

    async def _progress(self, muster: Muster) -> str:
        """Where the muster stands: seats taken, and whom it still waits on."""
        seats = await stored.seats_tx(self._table.store, muster.id)
        asked = [s.name for s in seats if s.status == "asked"]
        taken = sum(1 for s in seats if s.status == "confirmed")
        free = QueueGame.of(muster.queue).players - len(seats)
        words = [f"Queued game: {taken} of {QueueGame.of(muster.queue).players} seats taken"]
        if asked:
            words.append(f"waiting on {', '.join(asked)} to confirm")
        if free:
            words.append(f"{plural(free, 'seat is', 'seats are')} open (/game join)")
        return "; ".join(words) + "."

    async def _started(self, muster: Muster, seated: Reply) -> Reply:
        """Every seat taken: the host starts the game (its first turn pings whom it waits on)."""
        game = await self._table.store.active_game(muster.channel)
        if game is None:
            return seated
        host = Actor(game.host, next((s.name for s in await stored.seats_tx(self._table.store, muster.id)
                                      if s.player == game.host), game.host))
        try:
            started = await self._acting.act(muster.channel, host, Command("game start", {}))
        except GameError as exc:
            return replace(seated, text=f"{seated.text}\nEvery seat is taken, but the game could not start: "
                                        f"{exc.message} The host may /game start it.")
        # the start is the host's action, which pings nobody for themselves: whom the first turn waits on is pinged
        waiting = tuple(p for p in started.waiting_on if not born_computer(p))
        return replace(started, text=f"Every seat is taken: the game starts.\n{started.text}", mentions=waiting,
                       notices=seated.notices + started.notices)

    async def _settle_tx(self, muster: Muster) -> Settled:
        """Inside the server's queue lock: let go of the asked members whose time passed, offer each free seat to
        the next member waiting for the game, and set the muster's status and timer (see the module's rulings)."""
        now = self._table.clock()
        game = QueueGame.of(muster.queue)
        seats = await stored.seats_tx(self._table.store, muster.id)
        expired = tuple(s for s in seats if s.status == "asked" and s.due is not None and s.due <= now)
        for seat in expired:
            await stored.drop_seat_tx(self._table.store, muster.id, seat.player)
        kept = [s for s in seats if s not in expired]
        free = game.players - len(kept)
        offered: list[MusterSeat] = []
        if free > 0:
            for entry in await self._eligible_tx(muster.guild, muster.queue, free, tuple(s.player for s in kept)):
                await stored.drop_entry_tx(self._table.store, muster.guild, muster.queue, entry.player)
                seat = MusterSeat(muster.id, entry.player, entry.name, "asked", now + MUSTER_HOURS * HOUR)
                await stored.put_seat_tx(self._table.store, seat)
                offered.append(seat)
        held = kept + offered
        asked = [s for s in held if s.status == "asked"]
        running = await self._table.store.active_game_tx(muster.channel)
        confirmed = [s for s in held if s.status == "confirmed"]
        full = not asked and len(confirmed) >= game.players and running is not None
        if confirmed and running is None:   # the game was ended before it started
            status, due = "closed", None
        elif asked:
            status, due = "mustering", min(s.due or now for s in asked)
        elif not held:
            status, due = "closed", None
        else:   # full: the muster's work is done (a start that fails leaves an ordinary lobby, the host's)
            status, due = ("started" if full else "open"), None
        if status == "open" and running is not None:   # its free seats are an open table now: /lfg lists it
            await league_stored.keep_listed_tx(self._table.store, running.id, now)
            self._table.lobby_changed(muster.guild)   # the scheduler's timeout too, not only a command
        await stored.set_muster_tx(self._table.store, muster.id, status, due)
        return Settled(expired, tuple(offered), status, full)

    async def _after(self, muster: Muster, said: str, settled: Settled, guild: str) -> Reply:
        """The thread's one public message after a seat was given up or ran out: who is out, who is asked next,
        or that the seat is open (or the muster closed)."""
        lines = [said] if said else []
        lines += [f"{s.name} did not confirm within {MUSTER_HOURS} h: out of this queue." for s in settled.expired]
        if settled.offered:
            return self._asking(muster, settled.offered, " ".join(lines + ["A seat is offered on."]))
        if not lines:
            return Reply("shown", "")
        if settled.status == "open":
            lines.append("Nobody else waits for this game: its free seats are open, /game join takes one, and the "
                         "game starts once every seat is taken.")
        elif settled.status == "closed":
            lines.append("Nobody is left to play it: this queued game is closed.")
        return Reply("shown", " ".join(lines))

    async def due(self, run: Callable[[str, Any], Awaitable[Reply]]) -> list[Notice]:
        """The musters whose timer fell due (claimed, so each is handled once), settled under their thread's lock
        (`run`: the service's guard): a thread never made is given up (its members wait on), members whose time
        passed are let go and their seats offered on."""
        async with self._table.store.transaction():
            claimed = await stored.claim_due_tx(self._table.store, self._table.clock(), OPEN_RETRY)
        notices = []
        for muster_id in claimed:
            muster = await stored.muster(self._table.store, muster_id)
            if muster is None:
                continue
            if muster.status == "opening":
                await self._never_opened(muster)
                continue
            reply = await run(muster.channel, self._timed_out(muster))
            if reply.outcome != "refused" and reply.text:
                notices.append(Notice(muster.channel, reply))
        return notices

    async def freed(self) -> list[Notice]:
        """The queues that filled while some of their members were at their limit, matched again now that they
        may be free (a queued game of theirs ended): each opened is one notice, its pings not yet held
        (AwayPings.held)."""
        notices = []
        for guild, key in await stored.full_queues(self._table.store):
            async with self._table.write():
                await self._table.store.driver.lock_channel(stored.queue_lock(guild))
                matched = await self._match_tx(guild, key, QueueGame.of(key).players)
            if matched is not None:
                notice = await self._opened(*matched)
                notices += [notice] if notice.reply.outcome != "refused" else []
        return notices

    async def _timed_out(self, muster: Muster) -> Reply:
        async with self._table.write():
            await self._table.store.driver.lock_channel(stored.queue_lock(muster.guild))
            settled = await self._settle_tx(muster)
        if settled.full:
            return await self._started(muster, Reply("shown", ""))
        return await self._after(muster, "", settled, muster.guild)

    async def _never_opened(self, muster: Muster) -> None:
        """A muster whose thread was never made (the process stopped between the match and the thread): its
        members wait again, as they were."""
        now = self._table.clock()
        async with self._table.write():
            await self._table.store.driver.lock_channel(stored.queue_lock(muster.guild))
            for seat in await stored.seats_tx(self._table.store, muster.id):
                await stored.drop_seat_tx(self._table.store, muster.id, seat.player)
                await stored.put_entry_tx(self._table.store, Entry(muster.guild, muster.queue, seat.player, seat.name,
                                                                    muster.joined_in, now))
            await stored.set_muster_tx(self._table.store, muster.id, "closed", None)


def over(muster: Muster) -> Reply:
    """A press on the buttons of a muster that ended: said privately, and the pressed message's buttons come off (by
    the press's own response: no request of the bot's own)."""
    how = "the game started" if muster.status == "started" else "it was closed"
    return Reply("refused", f"This muster is over: {how}.", ephemeral=True, edits=(Edit(PRESSED, None),))


def ended_by_press(reply: Reply, ended: bool, muster_id: int | None) -> Reply:
    """The reply of the press that ended a muster (the last seat taken, the last declined) takes the buttons off the
    message pressed, riding the press's response; a typed answer has no message pressed."""
    if not ended or muster_id is None or reply.outcome == "refused":
        return reply
    return replace(reply, edits=(*reply.edits, Edit(PRESSED, None)))


def checked_setup(ruleset_id: str, players: int, setup: str, games: str = "a queued game") -> dict[str, Any]:
    """A queue's (or a league's) setup options as /new takes them (the same refusals, speaking of `games`), the seats
    tried: a number of players the game cannot start with is refused here, not when the queue fills."""
    try:
        ruleset = get_ruleset(ruleset_id)
    except KeyError:
        raise GameError(f"ruleset: {ruleset_id!r} is not a game here.") from None
    try:
        written = read_options(setup) if setup else {}
    except CommandSyntaxError as exc:
        raise GameError(f"setup: {exc}") from None
    if "seed" in written or "thread" in written or "ruleset" in written:
        raise GameError(f"setup: the game's own options only: {games} rolls secret dice (no seed:), opens its "
                        f"own thread, and its game is ruleset:.")
    options = NotThisGame.fitted(ruleset, Command("game new", {"ruleset": ruleset_id, **written})).options
    options = {k: v for k, v in options.items() if k != "ruleset"}
    if ruleset.game_master is not None and str(options.get("gm", "no")) == "yes":
        raise GameError(f"setup: {games} seats no game master (gm:yes): open it with /new.")
    state = ruleset.setup(ruleset.new_game_options(dict(options)), 0, "queue-1")
    for seat in range(1, players + 1):
        action = ruleset.command_to_action("game join", {"name": f"Player {seat}"})
        state, _events = ruleset.apply(state, f"queue-{seat}", action)
    ruleset.apply(state, "queue-1", ruleset.command_to_action("game start", {}))   # GameError: say so now
    return options
