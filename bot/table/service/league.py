"""Open tables (issue 40 item 1): `/lfg` lists a server's lobbies with a seat free, privately, each with a Join
button; `/league board` names the channel where the bot keeps one message of them up to date.

Rulings:
- A lobby is listed when it was opened `public:yes` (the default, but in a private thread: nobody else can open
  it), while its game runs where it was made, has not started and has a seat free. A listing shows the game, its
  setup options (those its /new declares: never the seed, a hand, a counter or a GM's file), seats taken of the
  most, the host's name as the table shows it (a forgotten member's neutral one), and since when it waits.
- Join seats the presser exactly as /game join in the game's channel would, under that channel's lock: the game's
  own server only, never twice, the operator's blocks at the door, and a lobby that filled or started meanwhile
  is said so. The presser is answered privately with a link; the game's channel is told as of any join.
- The board is edited only when its words change, at most once every BOARD_SECONDS a server (the transport
  coalesces: the latest state wins); a board message deleted is posted anew.
- For the queue (issue 40 item 2): `open_tables(guild)` lists a server's open tables, `board_channel(guild)` says
  where its board is kept, and `changed(guild)` asks for the board's update after the queue changed a lobby.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any

from bot.storage import league as stored
from bot.storage import queues
from bot.table.clock.moments import moment
from bot.table.protocol.commands import Command
from bot.table.protocol.replies import (
    MAX_BUTTONS,
    MESSAGE_LIMIT,
    Actor,
    Button,
    Notice,
    Reply,
    open_table_button,
)
from bot.table.service.acting import Acting
from bot.table.service.shared import Table, channel_link, channel_mention
from bot.table.trust.guards import channel_of
from rules.engine import Ruleset
from rules.errors import GameError
from rules.registry import get_ruleset
from rules.table import HOST_NAME, TablePhase, plural

SHOWN = 10   # open tables a listing shows at most (each with its Join button); the rest are counted
BOARD_TITLE = "**Open tables** on this server (Join takes a seat; /lfg lists them privately):"


@dataclass(frozen=True)
class OpenTable:
    """A lobby with a seat free, as a listing shows it: nothing a seat or the dice keep secret."""

    game_id: int
    channel: str
    title: str
    options: str     # its /new options, as typed ("" for none)
    taken: int
    most: int | None
    host: str        # the host's name as the table shows it
    since: float     # when it was listed (epoch seconds)

    def line(self) -> str:
        """One line of a listing, numbered by its game (what /lfg game:N takes)."""
        seats = f"{self.taken}/{self.most} seats" if self.most is not None else plural(self.taken, "seat", "seats")
        options = f" ({self.options})" if self.options else ""
        return (f"{self.game_id}. **{self.title}**{options} · {seats} · host {self.host} · in "
                f"{channel_mention(self.channel)} · waiting since {moment(self.since)}")


def shown_options(ruleset: Ruleset, options: str) -> str:
    """A game's setup options as its /new takes them (those it declares: no revision, no host name)."""
    declared = {option.name for option in ruleset.grammar.new_options}
    stored_options = json.loads(options) if options else {}
    return " ".join(f"{name}:{value}" for name, value in stored_options.items() if name in declared)


def host_name(state: Any, host: str, options: str) -> str:
    """The host as the table shows them: their seat's name, the name a GM who takes no seat was made with."""
    seat = state.player(host)
    if seat is not None:
        return str(seat.name)
    named = json.loads(options).get(HOST_NAME) if options else None
    if named:
        return str(named)
    return f"<@{host}>" if host.isdigit() else host   # not seated yet: Discord shows the member (never pinged)


def board_channel_of(typed: str) -> str:
    """The channel `/league board channel:` names: a mention <#id> (Discord), an id, or a name (the command line)."""
    channel = channel_of(typed)
    if channel is None:
        raise GameError("channel: name one channel of this server (#name).")
    return channel


@dataclass(frozen=True)
class BoardUpdate:
    """What a server's board should say now: where, the message to edit ("" to post one), its words and buttons."""

    guild: str
    channel: str
    message_id: str
    text: str
    buttons: tuple[Button, ...]


class League:
    """Open tables: /lfg, its Join, and the server's board."""

    def __init__(self, table: Table, acting: Acting):
        self._table, self._acting = table, acting

    def changed(self, guild: str) -> None:
        """A lobby of `guild` opened, filled, started, ended or moved: its board is updated (coalesced)."""
        self._table.lobby_changed(guild)

    def take_changed(self) -> set[str]:
        """The servers whose boards may need an edit, since the last time asked."""
        changed, self._table.lobbies_changed = self._table.lobbies_changed, set()
        return changed

    async def open_tables(self, guild: str) -> list[OpenTable]:
        """The open tables of server `guild`, oldest first: listed lobbies still in their lobby with a seat free. A
        listed game found out of its lobby is closed for good."""
        tables, left = [], []
        for game, since in await stored.listed_lobbies(self._table.store, guild):
            ruleset = get_ruleset(game.ruleset)
            state = self._table.snapshots.load(ruleset, game.state)
            if state.phase != TablePhase.LOBBY or ruleset.is_finished(state):
                left.append(game.id)
                continue
            taken, most = ruleset.seats_taken(state)
            if most is not None and taken >= most:
                continue   # full: listed again if a seat frees up before the start
            tables.append(OpenTable(game.id, game.channel, ruleset.title, shown_options(ruleset, game.options), taken,
                                    most, host_name(state, game.host, game.options), since))
        await stored.close_listings(self._table.store, left)
        return tables

    async def board_channel(self, guild: str) -> str | None:
        """The channel where server `guild` keeps its board of open tables, or None."""
        board = await stored.board(self._table.store, guild)
        return board.channel if board is not None else None

    async def listing(self, actor: Actor, guild: str) -> Reply:
        """`/lfg`: the server's open tables, privately, each with its Join button."""
        tables = await self.open_tables(guild)
        if not tables:
            return Reply("shown", "No open tables on this server right now. Open one with /new GAME (public:yes, the "
                                  "default, lists it here).", ephemeral=True)
        text, buttons = _listed(tables, "**Open tables** on this server (only you see this; Join takes a seat):",
                                ["Join one with its button (or /lfg game:NUMBER, its number here)."])
        return Reply("shown", text, ephemeral=True, buttons=buttons)

    async def where(self, game_id: int, guild: str) -> str:
        """The channel of the open table a Join names, or a GameError saying why it is none (before its lock)."""
        game = await self._table.store.game(game_id)
        if game is None or game.guild != guild:
            raise GameError("That table is not one of this server's: /lfg lists the open tables here.")
        if game.status != "active" or game.moved:
            raise GameError("That table is no longer open: its game " +
                            ("moved to another channel." if game.moved else "ended.") + " /lfg lists the open ones.")
        if not await stored.is_listed(self._table.store, game.id):
            raise GameError("That game is not an open table (it started, or its host did not list it).")
        return game.channel

    async def join(self, channel: str, actor: Actor, game_id: int,
                   joining: Callable[[str, Actor], Awaitable[Reply]] | None = None) -> Reply:
        """Join game `game_id` in `channel` (whose lock the caller holds) as /game join there would (`joining`: how,
        the service's /game join, a queued game's muster's own); the presser is answered privately, and the game's
        channel told."""
        game = await self._table.store.active_game(channel)
        if game is None or game.id != game_id:
            raise GameError("That table is no longer open: its game ended or moved. /lfg lists the open ones.")
        ruleset = get_ruleset(game.ruleset)
        state = self._table.snapshots.load(ruleset, game.state)
        if state.phase != TablePhase.LOBBY:
            raise GameError(f"That {ruleset.title} game has started since: no seat is open. /lfg lists the open ones.")
        if state.player(actor.id) is not None:
            raise GameError(f"You already sit at that table: {channel_link(game.guild, channel)}.")
        taken, most = ruleset.seats_taken(state)
        if most is not None and taken >= most:
            raise GameError(f"That {ruleset.title} game filled up since: no seat is open. /lfg lists the open ones.")
        mustered = await queues.muster_in(self._table.store, channel) is not None
        joined = await (joining or self._join)(channel, actor)
        if joined.outcome != "applied":
            return joined
        self.changed(game.guild)
        told = replace(joined, notices=(), ephemeral=False)
        # a queued game's muster starts it once every seat is taken (the join was the last): no host to wait for
        after = await self._table.store.active_game(channel) if mustered else None
        started = after is not None and self._table.snapshots.load(ruleset, after.state).phase != TablePhase.LOBBY
        how = ("Every seat is taken: the game started there." if started else
               "It starts by itself once every seat is taken." if mustered else "The host starts it there.")
        return Reply("applied", f"You joined the {ruleset.title} game in {channel_link(game.guild, channel)} "
                                f"(its channel is told). {how}", ephemeral=True,
                     game_id=game.id, notices=(Notice(channel, told, fold=True), *joined.notices))

    async def _join(self, channel: str, actor: Actor) -> Reply:
        return await self._acting.act(channel, actor, Command("game join", {}))

    async def board(self, actor: Actor, guild: str, channel: str | None, off: bool) -> Reply:
        """`/league board`: where the board is kept (no option), kept in `channel` from now on, or kept no more
        (`off`). Changing it takes Manage Server on this server."""
        current = await stored.board(self._table.store, guild)
        if channel is None and not off:
            if current is None:
                return Reply("shown", "This server keeps no board of open tables. A member with Manage Server names "
                                      "its channel with /league board channel:#name.", ephemeral=True)
            return Reply("shown", f"The board of open tables is kept in {channel_mention(current.channel)}: one "
                                  f"message, edited as lobbies open, fill, start, end or move. /league board off:yes "
                                  f"stops it.", ephemeral=True)
        if not actor.is_admin:
            raise GameError("Only a member with Manage Server names the board's channel (or turns it off).")
        if off:
            if current is None:
                raise GameError("This server keeps no board of open tables; nothing changed.")
            await stored.set_board(self._table.store, guild, None)
            return Reply("shown", f"The board in {channel_mention(current.channel)} is no longer kept (its last "
                                  f"message stays: delete it if you like).", ephemeral=True)
        assert channel is not None
        await stored.set_board(self._table.store, guild, channel)
        self.changed(guild)
        return Reply("shown", f"The board of open tables is kept in {channel_mention(channel)} from now on: one "
                              f"message, edited as lobbies open, fill, start, end or move.", ephemeral=True)

    async def board_update(self, guild: str) -> BoardUpdate | None:
        """What server `guild`'s board should say now, or None when it keeps none or it says that already."""
        current = await stored.board(self._table.store, guild)
        if current is None:
            return None
        text, buttons = self.board_words(await self.open_tables(guild))
        if current.message_id and current.body == text:
            return None
        return BoardUpdate(guild, current.channel, current.message_id, text, buttons)

    @staticmethod
    def board_words(tables: list[OpenTable]) -> tuple[str, tuple[Button, ...]]:
        """The board's words and Join buttons for these open tables."""
        if not tables:
            return f"{BOARD_TITLE}\nNone right now. /new GAME opens one (public:yes, the default, lists it here).", ()
        return _listed(tables, BOARD_TITLE, [])

    async def board_posted(self, update: BoardUpdate, message_id: str) -> None:
        """The transport posted or edited a board (`message_id`): its words are remembered (no edit repeats them)."""
        await stored.board_posted(self._table.store, update.guild, update.channel, message_id, update.text)


def _listed(tables: list[OpenTable], title: str, closing: list[str]) -> tuple[str, tuple[Button, ...]]:
    """A listing: the title, a line and a Join button for each table that fits one message (SHOWN at most), and
    how many more there are."""
    lines, buttons = [title], []
    room = MESSAGE_LIMIT - sum(len(c) + 1 for c in closing) - 40   # what "… and N more" takes
    for table in tables[:min(SHOWN, MAX_BUTTONS)]:
        line = table.line()
        if sum(len(x) + 1 for x in lines) + len(line) > room:
            break
        lines.append(line)
        buttons.append(open_table_button(table.game_id, f"Join {table.game_id}: {table.title}"))
    if len(tables) > len(buttons):
        lines.append(f"… and {len(tables) - len(buttons)} more (as seats fill, they move up).")
    return "\n".join(lines + closing), tuple(buttons)
