"""The door every transport calls: who may send a command, the channel's lock, and which part of the
service carries it out (seating, acting, asking, moving games, the clock)."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, replace
from typing import Any

import images
from bot.storage.league import board_guilds
from bot.storage.store import AlreadyDelivered, GameRecord, Store, StoreBusy, Timer, TurnMessage
from bot.table.clock.personal import PlayerSettings, zone_offers
from bot.table.jobs.drawing import Drawing, RenderProcesses
from bot.table.jobs.heavy import HEAVY, HeavyWork
from bot.table.plugins import load_plugins
from bot.table.protocol import compiled as typed
from bot.table.protocol.commands import Command, declared_choices, foreign_to, game_spec
from bot.table.protocol.refusals import NoGame, NotThisGame
from bot.table.protocol.replies import (
    OPEN_TABLE_PREFIX,
    RESIGN_PREFIX,
    SEAT_PREFIX,
    Actor,
    Direct,
    Notice,
    Reply,
    matching_offers,
    refusal,
)
from bot.table.service import orders
from bot.table.service.acting import Acting
from bot.table.service.asking import Asking
from bot.table.service.away import AwayPings
from bot.table.service.deadlines import Deadlines
from bot.table.service.digests import Digests
from bot.table.service.following import Following
from bot.table.service.gm_thread import GmThreads, in_the_thread
from bot.table.service.helping import command_names
from bot.table.service.league import BoardUpdate, League, OpenTable, board_channel_of
from bot.table.service.orders import StandingOrders
from bot.table.service.pictures import Pictures
from bot.table.service.players import PlayerClocks
from bot.table.service.privacy import Controls, Privacy
from bot.table.service.queue import QUEUE_BUTTON, Queues, ThreadOpener, ThreadRefused, checked_setup
from bot.table.service.rank_roles import RankRoles
from bot.table.service.ratings import Ratings
from bot.table.service.relocation import Moving
from bot.table.service.rematch import REMATCH_BUTTON, REMATCH_PROPOSAL, Rematches
from bot.table.service.review import REVIEW_BUTTON
from bot.table.service.rollback import VOTE_BUTTON, Rollbacks
from bot.table.service.rulebook import topic_keys
from bot.table.service.seasons import SEASON_BUTTON, Seasons
from bot.table.service.seat_powers import SEAT_CHANGE_COMMANDS
from bot.table.service.seating import Seating
from bot.table.service.shared import DELIVERY, Table, command_reads
from bot.table.service.standings import Standings
from bot.table.service.timers import Timers
from bot.table.service.tournaments import TOURNAMENT_BUTTON, Tournaments
from bot.table.service.unposted import Unposted
from bot.table.trust.guards import RateLimit, is_person_id
from rules.engine import LegalAction, Ruleset, has_command
from rules.errors import GameError
from rules.registry import get_ruleset
from rules.seats import nameable_seats
from rules.table import TablePhase

__all__ = ["Actor", "GameService", "Reply"]

SEAT_COMMANDS = frozenset({"game resign", "game seat give", "game seat computer"})   # those naming a player
_SEATING = frozenset({"game join", "game add-ai"})   # seats taken before the start: offered only in the lobby

# Commands that post a new table or end one: they never earn a refund, and share a small budget.
_TABLE_BUDGET = frozenset({"game new", "game end", "game import", "game add-ai", "game takeover"})
# Nor do an undo (move-and-undo would loop for free) or a seat's change (each one logs and pings a member).
_NOT_REFUNDED = _TABLE_BUDGET | {"undo"} | SEAT_CHANGE_COMMANDS
# Commands that may open, fill, start, end or move a lobby: the server's board of open tables is looked at after one.
_LOBBY_CHANGES = frozenset({"game new", "game join", "game add-ai", "game start", "game end", "game takeover",
                            "game import", "game resign"})
_OPEN_TABLE_BUTTON = re.compile(rf"^{OPEN_TABLE_PREFIX}:(\d+):0:0$")


@dataclass(frozen=True)
class Sent:
    """Where a command came from, as its handler needs it: the channel, who sent it, their server, and the
    command as parsed."""

    channel: str
    actor: Actor
    guild: str
    command: Command
    private_thread: bool = False   # the channel is a private thread (a lobby there is not listed by default)


Handler = Callable[[Sent, Any], Awaitable[Reply]]   # one compiled command's handler (any TableCommand)


VOTE_COMMANDS = ("game rollback", "game propose")   # the commands a vote's buttons answer, by the vote's kind


def _button_command(custom_id: str) -> str:
    """The table command a button stands for (Rematch, a queue's Confirm or Decline, Take the seat, Resign for good),
    whose being turned off refuses the button too; '' for the rest: a game's own moves (never turned off), a
    vote's Yes and No (the vote's kind decides: VOTE_COMMANDS), and those that run their command through execute."""
    if REMATCH_BUTTON.match(custom_id):
        return "game rematch"
    if (mustered := QUEUE_BUTTON.match(custom_id)) is not None:
        return "queue confirm" if mustered.group(2) == "1" else "queue decline"
    if custom_id.startswith(f"{SEAT_PREFIX}:"):
        return "game seat take"
    if custom_id.startswith(f"{RESIGN_PREFIX}:"):
        return "game resign"
    return ""


class GameService:
    """Executes commands for (channel, actor) against the store, whatever the transport."""

    def __init__(self, store: Store, render: Callable[[str, Any, tuple, tuple], bytes] | None = images.render,
                 clock: Callable[[], float] = time.time, rate_limit: RateLimit | None = None,
                 render_processes: RenderProcesses | None = None, heavy: HeavyWork = HEAVY):
        load_plugins()   # a stored game of a plug-in ($PITBOSS_GAMES) plays wherever a service runs
        self._store = store
        self._rate_limit = rate_limit  # the Discord bot sets one; scripts and tests drive many commands
        table = self._table = Table(store, render, Drawing(render, render_processes), clock, heavy)
        pictures = Pictures(table)
        self._timers = Timers(table)
        self._acting = Acting(table, self._timers, pictures)
        self._controls = Controls(table)
        self._asking = Asking(table, pictures, self._controls)
        self._seating = Seating(table, pictures)
        self._moving = Moving(table, self._timers, pictures)
        self._deadlines = Deadlines(table, self._acting, pictures, self._timers)
        self._unposted = Unposted(table, pictures)
        self._players = PlayerClocks(table, self._timers)
        self._orders = StandingOrders(table)
        self._standings = Standings(table)
        self._following = Following(table)
        self._rollbacks = Rollbacks(table, self._timers, pictures, self._acting)
        self._rematches = Rematches(table, self._timers, pictures, self._acting)
        self._gm_threads = GmThreads(table)
        self._away = AwayPings(table)
        self._digests = Digests(table)
        self._privacy = Privacy(table, self._controls)
        self._league = League(table, self._acting)
        self.rank_roles = RankRoles(table)   # what the transport asks to keep the rank roles (issue 40 item 4)
        self._queues = Queues(table, self._seating, self._acting)
        self._tournaments = Tournaments(table, self._seating, self._acting, self._timers, Ratings(table), checked_setup)
        self._seasons = Seasons(table, self._seating, self._acting, self._timers, Ratings(table), checked_setup)
        self._handlers = self._handlers_table()

    async def settled(self, timeout: float | None = None) -> None:
        """Wait for the work a command left running after its reply: the rating of a game that ended (past
        `timeout` seconds, what is left is cancelled)."""
        await Ratings(self._table).settled(timeout)

    async def execute(self, channel: str, actor: Actor, command: Command, *, guild: str = "",
                      delivery: str | None = None, private_thread: bool = False) -> Reply:
        """Run one command; game refusals and a busy database come back as private refusals.

        `delivery` names this delivery of the command (a Discord interaction id): a second delivery
        of it is refused instead of being carried out again. `private_thread`: the channel is a private
        thread, which may be a GM's thread (bot.table.service.gm_thread): then the command acts on the
        game it is linked to.
        """
        if (refused := self._at_the_door(actor, command.name)) is not None:
            return refused
        if (refused := await self._controls.refusal(actor.id, guild, command.name)) is not None:
            return refused
        return await self._let_in(channel, actor, command, guild, delivery, private_thread)

    async def new_game_in_thread(self, actor: Actor, command: Command, guild: str, delivery: str | None,
                                 open_thread: Callable[[], Awaitable[str]]) -> tuple[str | None, Reply]:
        """`/game new … thread:yes`: the thread `open_thread()` opens and the game made there, as execute makes one;
        the thread is opened only once the command passed the door and its setup was checked, so a refused one
        leaves no empty thread behind (None, the refusal). ThreadRefused from the opener is refused in its words."""
        if (refused := self._at_the_door(actor, command.name)
                or await self._controls.refusal(actor.id, guild, command.name)) is not None:
            return None, refused
        options = {k: v for k, v in command.options.items() if k != "thread"}
        try:
            Seating.set_up(actor, options)
        except GameError as exc:
            return None, refusal(exc.message)
        try:
            thread = await open_thread()
        except ThreadRefused as exc:
            return None, refusal(str(exc))
        return thread, await self._let_in(thread, actor, Command(command.name, options), guild, delivery, False)

    async def _let_in(self, channel: str, actor: Actor, command: Command, guild: str, delivery: str | None,
                      private_thread: bool) -> Reply:
        """A command past the door (execute), carried out in its channel, or in the game a GM's private thread is
        linked to (charged once: the door is not passed again there)."""
        actor = await self._admin_here(channel, actor, guild)
        if private_thread:
            try:
                game_channel = await self._gm_threads.game_channel(channel, actor, command)
            except GameError as exc:
                return refusal(exc.message)
            if game_channel is not None:
                reply = await self._let_in(game_channel, actor, command, guild, delivery, False)
                return in_the_thread(reply, game_channel)
        if command.name == "lfg" and command.options.get("game") is not None:   # a Join typed: its game's lock
            return self._counted(actor, await self._join_open_table(actor, guild, int(command.options["game"]),
                                                                    delivery))
        reply = await self._guarded(channel, self._dispatch(channel, actor, command, guild, private_thread), delivery)
        if reply.outcome == "applied" and command.name in _LOBBY_CHANGES:
            self._league.changed(guild)
        counted = self._counted(actor, reply, refundable=command.name not in _NOT_REFUNDED)
        if command.name == "me forget" and command.options.get("confirm") == "yes" and reply.outcome != "refused":
            self._forget_counts(actor.id)
        return counted

    async def _admin_here(self, channel: str, actor: Actor, guild: str) -> Actor:
        """`actor`, an admin only of the server the channel's game belongs to: an admin of another server (a command
        naming another server's channel) has no admin's power over it. A command from no server (the operator's
        command line) and a game of none (made there) keep the flag as given."""
        if not actor.is_admin or not guild:
            return actor
        game = await self._store.active_game(channel)
        if game is not None and game.guild and game.guild != guild:
            return replace(actor, is_admin=False)
        return actor

    def _forget_counts(self, player: str) -> None:
        """A forgotten member's rate-limit counts dropped (docs/operating.md's privacy section)."""
        if self._rate_limit is not None:
            self._rate_limit.forget(player)

    async def press(self, channel: str, actor: Actor, custom_id: str, *, delivery: str | None = None,
                    guild: str = "") -> Reply:
        """Run the action behind a button, if the button still matches the game it was drawn for (and the operator
        has not turned off the command it stands for)."""
        if (refused := self._at_the_door(actor, "")
                or await self._controls.refusal(actor.id, guild, _button_command(custom_id))) is not None:
            return refused
        actor = await self._admin_here(channel, actor, guild)
        work: Coroutine[Any, Any, Reply]
        if (joining := _OPEN_TABLE_BUTTON.match(custom_id)) is not None:   # Join on /lfg or the board
            return self._counted(actor, await self._join_open_table(actor, guild, int(joining.group(1)), delivery))
        if (vote := VOTE_BUTTON.match(custom_id)) is not None:
            off = frozenset([command for command in VOTE_COMMANDS
                             if await self._controls.refusal(actor.id, guild, command) is not None])
            work = self._rollbacks.press(channel, actor, int(vote.group(1)), int(vote.group(2)), vote.group(3) == "1",
                                         off)
        elif (again := REMATCH_BUTTON.match(custom_id)) is not None:
            work = self._rematches.run(channel, actor, again.group(2) == "1", int(again.group(1)))
        elif (asked := REVIEW_BUTTON.match(custom_id)) is not None:   # as /game review game:N, at the same door
            return await self.execute(channel, actor, Command("game review", {"game": int(asked.group(1))}),
                                      guild=guild, delivery=delivery)
        elif (signing := TOURNAMENT_BUTTON.match(custom_id)) is not None:   # as /tournament join number:N
            return await self.execute(channel, actor, Command("tournament join", {"number": int(signing.group(1))}),
                                      guild=guild, delivery=delivery)
        elif (signing := SEASON_BUTTON.match(custom_id)) is not None:   # as /league join number:N
            return await self.execute(channel, actor, Command("league join", {"number": int(signing.group(1))}),
                                      guild=guild, delivery=delivery)
        elif (mustered := QUEUE_BUTTON.match(custom_id)) is not None:
            work = self._queues.answer(channel, actor, mustered.group(2) == "1", guild, int(mustered.group(1)))
        else:
            work = self._acting.press(channel, actor, custom_id)
        taken = custom_id.startswith((f"{SEAT_PREFIX}:", f"{RESIGN_PREFIX}:"))   # a seat's change, never refunded
        reply = await self._guarded(channel, work, delivery)
        if reply.outcome == "applied":   # a lobby's button (its start) may change the board
            self._league.changed(guild)
        return self._counted(actor, reply, refundable=not taken)

    async def _join_open_table(self, actor: Actor, guild: str, game_id: int, delivery: str | None) -> Reply:
        """Join on an open table (/lfg's button, the board's, /lfg game:N): under the game's own channel's lock."""
        if (refused := await self._controls.refusal(actor.id, guild, "game join")) is not None:   # as /game join's
            return refused
        try:
            channel = await self._league.where(game_id, guild)
        except GameError as exc:
            return refusal(exc.message)
        except StoreBusy:
            return refusal("The table is busy right now; please try again in a moment.")
        return await self._guarded(channel, self._league.join(channel, actor, game_id, self._joining(guild)),
                                   delivery)

    def _joining(self, guild: str) -> Callable[[str, Actor], Awaitable[Reply]]:
        """/game join in a channel, as typed there: a queued game's free seat is its muster's (the member's limit
        counted, the game started once full), any other the lobby's."""
        async def join(channel: str, actor: Actor) -> Reply:
            return await self._played(channel, actor, Command("game join", {}), guild)
        return join

    async def open_tables(self, guild: str) -> list[OpenTable]:
        """The open tables of server `guild` (lobbies listed, not started, with a seat free), oldest first: what
        /lfg lists (for the queue, issue 40 item 2)."""
        return await self._league.open_tables(guild)

    async def board_channel(self, guild: str) -> str | None:
        """The channel where server `guild` keeps its board of open tables, or None (for the queue)."""
        return await self._league.board_channel(guild)

    def board_changed(self, guild: str) -> None:
        """Something changed a lobby of `guild` outside a command (the queue opened one): its board is updated."""
        self._league.changed(guild)

    async def boards_kept(self) -> list[str]:
        """Every server that keeps a board (the transport looks at each once at its start: a change it had not
        shown before a restart is shown then)."""
        return await board_guilds(self._store)

    def boards_changed(self) -> set[str]:
        """The servers whose board may need an edit since the last time asked (the transport coalesces them)."""
        return self._league.take_changed()

    async def board_update(self, guild: str) -> BoardUpdate | None:
        """What a server's board should say now, or None when it keeps none or says it already."""
        return await self._league.board_update(guild)

    async def board_posted(self, update: BoardUpdate, message_id: str) -> None:
        """The transport posted or edited a server's board: remembered, so an unchanged board is never edited."""
        await self._league.board_posted(update, message_id)

    async def confirm_plan(self, channel: str, actor: Actor, custom_id: str, *, delivery: str | None = None,
                           guild: str = "") -> Reply:
        """Play a previewed plan, if the game has not moved on since the preview."""
        if (refused := await self._controls.refusal(actor.id, guild)) is not None:
            return refused
        return await self._guarded(channel, self._acting.plans.confirm(channel, actor, custom_id), delivery)

    async def gm_thread_refusal(self, channel: str, actor: Actor) -> Reply | None:
        """Why `actor` may not open a GM's private thread off `channel` (a refusal), or None: they may."""
        async def check() -> Reply:
            await self._gm_threads.may_open(channel, actor)
            return Reply("shown", "")
        reply = await self._guarded(channel, check())
        return reply if reply.outcome == "refused" else None

    async def link_gm_thread(self, channel: str, actor: Actor, thread: str) -> Reply:
        """Link the private thread the transport opened to the channel's game: the GM's thread from now on."""
        return await self._guarded(channel, self._gm_threads.link(channel, actor, thread))

    async def own_defaults(self, guild: str, player: str) -> dict[str, str]:
        """The options a player's own settings on a server choose when a command leaves them out (view:
        their pictures, a close-up answered privately)."""
        stored = await self._store.player_settings_tx(guild, (player,))
        return {"view": PlayerSettings.from_json(stored.get(player)).view}

    async def waiting_people(self, channel: str) -> tuple[str, ...]:
        """The people (no computer seat) the channel's running game waits on now; () when none runs."""
        game = await self._store.active_game(channel)
        if game is None:
            return ()
        ruleset = get_ruleset(game.ruleset)
        state = self._table.snapshots.load(ruleset, game.state)
        return ruleset.people_waited_on(state)

    async def own_choices(self, channel: str, player: str) -> tuple[LegalAction, ...]:
        """What the channel's game offers `player` now, for their eyes only (empty when it does not wait
        on them): what their "Your move (private)" menu shows."""
        game = await self._store.active_game(channel)
        if game is None:
            return ()
        ruleset = get_ruleset(game.ruleset)
        state = self._table.snapshots.load(ruleset, game.state)
        if player not in ruleset.acting_players(state) or ruleset.is_computer(state, player):
            return ()
        return ruleset.legal_actions(state, player)

    async def suggest(self, channel: str, actor: Actor, command: str, option: str, typed: str,
                      chosen: dict[str, Any], private_thread: bool = False, guild: str = "") -> list[tuple[str, str]]:
        """Autocomplete: what is legal now for this option, with odds, filtered by what was typed (in a GM's
        thread, for the game it is linked to); nothing for a blocked member or server (`guild`), or a command
        the operator turned off."""
        if await self._controls.refusal(actor.id, guild, command) is not None:
            return []
        if private_thread and (linked := await self._store.gm_thread_game(channel)) is not None:
            linked_game = await self._store.game(linked[0])
            channel = linked_game.channel if linked_game is not None else channel
        game = await self._store.active_game(channel)
        if command == "help" and option == "command":
            names = command_names(get_ruleset(game.ruleset) if game is not None else None,
                                  await self._controls.turned_off())
            return matching_offers([(name, name) for name in names], typed)
        if command == "me settings" and option == "time_zone":
            return zone_offers(typed)
        if game is None:
            return []
        ruleset = get_ruleset(game.ruleset)
        if command == "rules" and option == "topic":   # a game's first topics read its RULES.md (15 ms): off the loop
            return matching_offers(await asyncio.to_thread(topic_keys, ruleset), typed)
        state = self._table.snapshots.load(ruleset, game.state)
        if command.startswith("orders "):
            return matching_offers(orders.offers(ruleset, state, actor.id, command, option, chosen), typed)
        if foreign_to(ruleset, Command(command, chosen)) or (command in _SEATING and state.phase != TablePhase.LOBBY):
            return []
        if option == "player" and command in SEAT_COMMANDS:   # the seats, by name
            seats = [(p.name, p.name) for p in nameable_seats(state, actor.id, actor.is_admin)]
            return await self._taken_offers(channel, actor, command, option, matching_offers(seats, typed))
        offers = ruleset.suggestions(state, actor.id, command, option, chosen)
        if not offers and (command in _SEATING or self._takes_now(ruleset, state, actor.id, command)):
            offers = declared_choices(ruleset, command, option)
        if command in _SEATING:
            return await self._taken_offers(channel, actor, command, option, matching_offers(offers, typed))
        return matching_offers(offers, typed)

    @staticmethod
    def _takes_now(ruleset: Ruleset, state: Any, player: str, command: str) -> bool:
        """Whether `command` is one the game would take from `player` now: a query, or an action the game waits
        on them for. Only then are a game's declared choices for it offered (to anyone else, each is refused)."""
        spec = game_spec(ruleset, command)
        if spec is not None and spec.query:
            return True
        return player in ruleset.acting_players(state) and has_command(ruleset.legal_actions(state, player), command)

    async def _taken_offers(self, channel: str, actor: Actor, command: str, option: str,
                            offers: list[tuple[str, str]]) -> list[tuple[str, str]]:
        """The offers for `option` of a seat command (or a seat taken in the lobby) that the command would take
        from `actor` now, each tried as it would be (Acting.refusal): no seat whose player is still playing for
        the host, no GM's seat to the computer, no vehicle to someone already seated or who may not add a
        computer."""
        return [(label, value) for label, value in offers
                if await self._acting.refusal(channel, actor, Command(command, {option: value})) is None]

    async def run_due(self) -> list[Notice]:
        """Send what is due: reminders, the autopilot for turns past their deadline, the computer seats
        whose moves stopped half-way (Table.stalled), and the queue's and the league's own work.

        Each timer is claimed (cleared) in a transaction before it is acted on, so a restart or a
        second process never sends it twice.
        """
        notices = await self.send_claimed(await self._store.claim_due(self._table.clock()))
        notices += await self._played_on()
        notices += await self._held(await self._queues.freed())
        notices += await self._queues.due(self._guarded)
        return notices + await self._held(await self._tournaments.due() + await self._seasons.due())

    async def _held(self, notices: list[Notice]) -> list[Notice]:
        """The notices of the scheduler's own work (no command's reply, so not held by _guarded), each pinging
        where its players want it and none in their away hours (AwayPings.held)."""
        return [replace(n, reply=await self._away.held(n.channel, n.reply)) for n in notices]

    async def _played_on(self) -> list[Notice]:
        """The games whose computer seats stopped half-way (Table.stalled), played on: each one's table."""
        channels = sorted(self._table.stalled)
        self._table.stalled.clear()   # one stalled again is played on in the next round, not in a loop here
        notices = []
        for channel in channels:
            reply = await self._guarded(channel, self._acting.played_on(channel))
            if reply.outcome != "refused":
                notices.append(Notice(channel, reply))
        return notices

    async def due_digests(self) -> list[Direct]:
        """The daily digests due now (`/me settings notify:digest`), each claimed so it is sent once."""
        return await self._digests.due()

    async def dms_closed(self, guild: str, player: str) -> bool:
        """A player's direct messages are closed to the bot (the transport found it): True the first time,
        when the channel's ping tells them so; their pings come in the channel meanwhile."""
        try:
            return await self._store.dms_closed_first(guild, player)
        except StoreBusy:
            return False

    async def channel_gone(self, channel: str) -> bool:
        """The channel (or thread) a game is played in was deleted: the game ends there as a server admin's
        /game end ends it (no result), so it holds no seat in a place nobody can reach; its log stays readable
        (/game log game:N). True when a game ended; what it says cannot be posted where it was."""
        game = await self._store.active_game(channel)
        if game is None:
            return False
        admin = Actor(game.host, game.host, is_admin=True)
        ended = await self._let_in(channel, admin, Command("game end", {}), game.guild, None, False)
        await self._store.forget_turn_message(game.id)   # its end has nowhere to be posted, after a restart too
        return ended.outcome == "applied"

    async def unposted(self) -> list[Notice]:
        """On start: the turn of each game whose last move was carried out but never posted (a crash
        between the two), pinging whom it waits on (bot.table.service.unposted)."""
        return await self._held(await self._unposted.notices())

    async def send_claimed(self, claimed: list[tuple[str, Timer]]) -> list[Notice]:
        """The notices of reminders and deadlines claimed (bot.storage.store.Store.claim_due): a claim
        whose game moved on for its player since it was taken sends nothing."""
        notices = []
        for kind, timer in claimed:
            reply = await self._guarded(timer.channel, self._deadlines.due(kind, timer))
            if reply.outcome != "refused":   # with the notices it brings (followers told of a new round)
                notices += [Notice(timer.channel, replace(reply, notices=())), *reply.notices]
        return notices

    def _at_the_door(self, actor: Actor, command: str) -> Reply | None:
        """A private refusal for a malformed player id, or for a player over the rate limit (table
        commands that post a new game or end one have a budget of their own)."""
        if not is_person_id(actor.id):
            return refusal("That player id cannot play: ids are letters, digits and . _ - (ai-… and forgotten-… "
                           "are kept for the table's own).")
        if self._rate_limit is None:
            return None
        seconds = self._rate_limit.wait_needed(actor.id)
        if seconds <= 0 and command in _TABLE_BUDGET:
            seconds = self._rate_limit.wait_needed(actor.id, budget="table")
            if seconds > 0:
                self._rate_limit.refund(actor.id)
        if seconds <= 0:
            return None
        return refusal(f"You are sending commands faster than I take them; try again in {max(1, round(seconds))} s.")

    def _counted(self, actor: Actor, reply: Reply, refundable: bool = True) -> Reply:
        """Moves that change the game are play, not flooding: they do not use up the rate limit
        (an undo does, so move-and-undo cannot loop for free)."""
        if self._rate_limit and refundable and reply.outcome == "applied":
            self._rate_limit.refund(actor.id)
        return reply

    async def _guarded(self, channel: str, work: Coroutine[Any, Any, Reply], delivery: str | None = None) -> Reply:
        """Run one command's work under its channel's lock, its refusals and a busy database answered in
        a short private line."""
        async with self._table.lock_for(channel):
            token = DELIVERY.set(delivery)
            try:
                with command_reads():   # what one part read, the next need not read again
                    return await self._away.held(channel, await self._rollbacks.lapse_if_passed(await work))
            except NoGame as exc:
                return refusal(await self._asking.why_no_game(channel) or exc.message)
            except NotThisGame as exc:
                return refusal(exc.message, exc.malformed)
            except GameError as exc:
                return refusal(exc.message)
            except StoreBusy:
                return refusal("The table is busy right now; please try again in a moment.")
            except AlreadyDelivered:
                return refusal("That command was already carried out (it reached me twice); nothing more changed.")
            finally:
                DELIVERY.reset(token)

    async def _dispatch(self, channel: str, actor: Actor, command: Command, guild: str,
                        private_thread: bool = False) -> Reply:
        """The part of the service that carries out a command: its type's handler (`_handlers`)."""
        compiled = typed.compiled(command)
        if not isinstance(compiled, typed.NewGame) and command.options.get("thread") == "yes":   # only /gm's:
            # the Discord adapter opens the GM's thread
            raise GameError("thread:yes opens the GM's private Discord thread; here there is none: use /gm and /dcs "
                            "in this channel (their answers are private).")
        return await typed.handler_of(self._handlers, compiled)(Sent(channel, actor, guild, command, private_thread),
                                                                compiled)

    def _handlers_table(self) -> dict[type[typed.TableCommand], Handler]:
        """Each compiled command's handler (bot.table.protocol.compiled): a new table command is one entry."""
        asking, players, timers = self._asking, self._players, self._timers
        return {
            typed.NewGame: lambda at, c: self._queues.made_by_queue(at.channel, lambda: self._seating.new_game(
                at.channel, at.actor, c.options, at.guild, at.private_thread)),
            typed.Games: lambda at, _c: asking.games(at.actor, at.guild),
            typed.Help: lambda at, c: asking.help(at.channel, at.actor, c.command),
            typed.Rules: lambda at, c: asking.rules(at.channel, c.topic, c.page),
            typed.OrdersSet: lambda at, c: self._orders.set(at.channel, at.actor, c.question, c.answer),
            typed.OrdersShow: lambda at, _c: self._orders.show(at.channel, at.actor),
            typed.OrdersClear: lambda at, c: self._orders.clear(at.channel, at.actor, c.question),
            typed.Follow: lambda at, c: self._following.follow(at.channel, at.actor, c.mode),
            typed.Unfollow: lambda at, _c: self._following.follow(at.channel, at.actor, None),
            typed.Stats: lambda at, c: self._standings.stats(at.actor, at.guild, c.options),
            typed.Standings: lambda at, c: self._standings.standings(at.guild, c.options),
            typed.Query: lambda at, _c: asking.query(at.channel, at.actor, at.command),
            typed.Undo: lambda at, _c: self._acting.undo(at.channel, at.actor),
            typed.Rollback: lambda at, c: self._rollbacks.run(at.channel, at.actor, c.options),
            typed.Propose: lambda at, c: self._rollbacks.propose(at.channel, at.actor, c.options),
            typed.Rematch: lambda at, c: self._rematches.run(at.channel, at.actor, c.vote == "yes"),
            typed.Import: lambda at, c: self._queues.made_by_queue(at.channel, lambda: self._moving.import_game(
                at.channel, at.actor, c.file, at.guild, at.private_thread)),
            typed.TableSettings: lambda at, c: timers.settings(at.channel, at.actor, c.options),
            typed.Pause: lambda at, c: timers.pause(at.channel, at.actor, c.hours),
            typed.MySettings: lambda at, c: players.settings(at.actor, at.guild, c.options),
            typed.Away: lambda at, c: players.away(at.actor, at.guild, c.hours),
            typed.Back: lambda at, _c: players.back(at.actor, at.guild),
            typed.Forget: lambda at, c: self._privacy.forget(at.actor.id, c.confirm == "yes"),
            typed.LookingForGame: lambda at, _c: self._league.listing(at.actor, at.guild),
            typed.LeagueBoard: lambda at, c: self._league.board(
                at.actor, at.guild, board_channel_of(c.channel) if c.channel is not None else None, c.off == "yes"),
            typed.LeagueRoles: lambda at, c: self.rank_roles.command(at.actor, at.guild, at.channel, c.ruleset, c.set),
            typed.Play: self._play,
            typed.QueueJoin: lambda at, c: self._queues.join(at.channel, at.actor, at.guild, c.ruleset, c.players,
                                                             c.setup, c.at_once),
            typed.QueueLeave: lambda at, c: self._queues.leave(at.actor, at.guild, c.ruleset),
            typed.QueueShow: lambda at, _c: self._queues.show(at.actor, at.guild),
            typed.TournamentNew: lambda at, c: self._tournaments.new(at.channel, at.actor, at.guild, c.options),
            typed.TournamentStep: lambda at, c: self._tournaments.step(at.channel, at.actor, at.guild, c.sent.name,
                                                                       c.number),
            typed.LeagueNew: lambda at, c: self._seasons.new(at.channel, at.actor, at.guild, c.options),
            typed.LeagueStep: lambda at, c: self._seasons.step(at.channel, at.actor, at.guild, c.sent.name, c.number),
            typed.QueueAnswer: lambda at, c: self._queues.answer(at.channel, at.actor, c.sent.name == "queue confirm",
                                                                 at.guild),
        }

    async def _play(self, at: Sent, command: typed.Play) -> Reply:
        """A move the game referees; a lobby's join or start in a queued game's thread is its muster's."""
        return await self._played(at.channel, at.actor, command.sent, at.guild)

    async def _played(self, channel: str, actor: Actor, command: Command, guild: str) -> Reply:
        mustered = await self._queues.lobby_command(channel, actor, command, guild)
        return mustered if mustered is not None else await self._acting.act(channel, actor, command)

    def set_thread_opener(self, opener: ThreadOpener) -> None:
        """How the transport opens the thread a queued game is played in (bot.table.service.queue)."""
        self._queues.open_thread = opener
        self._tournaments.open_thread = opener
        self._seasons.open_thread = opener

    async def muster(self, guild: str, joined_in: str, ruleset: str, players: int, options: dict[str, Any],
                     members: list[tuple[str, str]]) -> Notice:
        """Open a game for these members (id, name) in a new thread and muster them (Queues.muster): what a league
        or tournament pairing members calls; the notice to post in the thread."""
        return await self._queues.muster(guild, joined_in, ruleset, players, options, members)

    async def turn_message(self, game_id: int) -> TurnMessage | None:
        """The message a transport uses to show the current turn, and what it says so far."""
        return await self._store.turn_message(game_id)

    async def remember_turn_message(self, game_id: int, turn_key: str, message_id: str, body: str = "") -> None:
        """Record the message that now shows the game's current turn, and what it says so far."""
        await self._store.set_turn_message(game_id, turn_key, message_id, body)

    async def status_took_turn(self, game_id: int, version: int, turn_key: str, message_id: str, body: str) -> bool:
        """A public status posted with the live turn's buttons becomes the message showing the game's turn
        (`body`: its words, without its clock), if the game is still at the `version` it showed; False when
        the game moved on meanwhile (its buttons are stale then). It tells the actions logged from now on."""
        game = await self._store.game(game_id)
        if game is None or game.status != "active" or game.version != version:
            return False
        await self._store.set_turn_message(game_id, turn_key, message_id, body, tells_next=True)
        return True

    async def remember_vote_message(self, game_id: int, proposal: str, message_id: str) -> None:
        """Record the public message that asks a game's rollback vote `proposal` (edited as it goes on)."""
        if proposal == REMATCH_PROPOSAL:   # a rematch's question, asked after game `game_id` ended
            await self._store.set_rematch_message(game_id, message_id)
            return
        await self._store.set_vote_message(game_id, proposal, message_id)

    async def door(self, actor: Actor, guild: str, command: str) -> Reply | None:
        """The operator's refusal of a blocked member or server, or of a command turned off, before a transport
        does anything of its own for a command (opens a thread); None: it may go on."""
        return await self._controls.refusal(actor.id, guild, command)

    async def forget(self, player: str, confirm: bool) -> Reply:
        """`pitboss forget --user ID [--yes]`: what /me forget does, for the operator (bot.table.service.privacy)."""
        reply = await self._guarded(f"forget:{player}", self._privacy.forget(player, confirm, operator=True))
        if confirm and reply.outcome != "refused":
            self._forget_counts(player)
        return reply

    async def control(self, kind: str, target: str, on: bool, reason: str = "") -> Reply:
        """`pitboss block`, `unblock`, `disable-command`, `enable-command`: one of the operator's controls."""
        return await self._guarded(f"controls:{kind}", self._privacy.control(kind, target, on, reason))

    async def controls(self) -> Reply:
        """`pitboss blocks`: every control the operator set."""
        return await self._guarded("controls", self._privacy.listed())

    async def replay_matches(self, game: GameRecord) -> bool:
        """Whether replaying the game's log from its seed rebuilds its stored snapshot exactly."""
        return await self._asking.replay_matches(game)
