"""A seated GM's private thread (on Discord): linked to the game in its channel, it takes the GM's own
commands (the game's GM commands, /undo, /rules and /help), carries them out on that game, and answers
there. What is the GM's alone is posted in the thread, where only the GM and the bot are members; what the
table may see still goes to the game's channel. The link is stored, so it outlives a restart."""

from __future__ import annotations

from dataclasses import replace

from bot.storage.store import GameRecord
from bot.table.protocol.commands import Command
from bot.table.protocol.replies import Actor, Notice, Reply
from bot.table.service.shared import Table, channel_mention
from rules.errors import GameError
from rules.registry import get_ruleset

TABLE_COMMANDS = ("undo", "rules", "help")   # what the thread takes besides the game's own GM commands


class GmThreads:
    """Opening a GM's thread, and reading a command typed in one as the game's."""

    def __init__(self, table: Table):
        self._table = table

    async def may_open(self, channel: str, actor: Actor) -> GameRecord:
        """The channel's game, when `actor` is its seated GM (a GM thread may be opened); else a refusal."""
        ruleset, game, state = await self._table.load(channel)
        master = ruleset.game_master
        if master is None:
            raise GameError(f"{ruleset.title} has no game master, so no GM thread.")
        gm = master.seat(state)
        if gm is None:
            raise GameError("This game has no seated GM (/new … gm:yes), so no GM thread.")
        if actor.id != gm:
            raise GameError("Only the game master opens the GM's thread.")
        return game

    async def link(self, channel: str, actor: Actor, thread: str) -> Reply:
        """Link a thread just opened to the channel's game (checked again), and welcome the GM in it."""
        game = await self.may_open(channel, actor)
        await self._table.store.link_gm_thread(thread, game.id, actor.id)
        master = get_ruleset(game.ruleset).game_master
        assert master is not None   # may_open checked it
        commands = ", ".join(f"/{c}" for c in (*master.commands, *TABLE_COMMANDS))
        welcome = (f"Your private GM thread for game {game.id} in {channel_mention(game.channel)}: only you and I "
                   f"are in it. Here {commands} act on that game; their private answers are posted here, and what "
                   f"the racers see still goes to the channel.")
        return Reply("shown", f"Your private GM thread is {channel_mention(thread)}.", ephemeral=True,
                     notices=(Notice(thread, Reply("shown", welcome)),))

    async def game_channel(self, thread: str, actor: Actor, command: Command) -> str | None:
        """The game's channel a command typed in `thread` acts in, when `thread` is a GM's thread (None when
        it is not); a short refusal for a command the thread does not take, or for anyone but the GM."""
        linked = await self._table.store.gm_thread_game(thread)
        if linked is None:
            return None
        game = await self._table.store.game(linked[0])
        if game is not None and game.moved_to is not None:
            raise GameError(f"This GM thread's game moved to {channel_mention(game.moved_to)}: open a new GM thread "
                            f"there with /gm thread:yes.")
        if game is None or game.status != "active":
            raise GameError("This GM thread's game is over: it takes no more commands.")
        ruleset = get_ruleset(game.ruleset)
        master = ruleset.game_master
        state = self._table.snapshots.load(ruleset, game.state)
        if master is None or actor.id != master.seat(state):
            raise GameError(f"This is the GM's private thread: only the game's GM acts here. The game is in "
                            f"{channel_mention(game.channel)}.")
        if actor.id != linked[1]:   # the GM seat changed hands: its old holder still reads this thread
            raise GameError(f"This private thread is the previous GM's, who still reads it: open your own with "
                            f"/gm thread:yes in {channel_mention(game.channel)}.")
        taken = (*master.commands, *TABLE_COMMANDS)
        if command.name not in taken:
            raise GameError(f"The GM's thread takes {', '.join('/' + c for c in taken)}; play /{command.name} in "
                            f"{channel_mention(game.channel)}.")
        return game.channel


def in_the_thread(reply: Reply, channel: str) -> Reply:
    """A reply to a command typed in a GM's thread: a private answer is posted in the thread (only the GM
    reads it there), without buttons (they belong to the channel's messages); a public one goes to the
    game's channel, the thread saying so."""
    if reply.ephemeral:
        return replace(reply, ephemeral=False, buttons=(), game_id=None, version=None, panel=None)
    return Reply("shown", f"Done: posted in {channel_mention(channel)}.",
                 notices=(Notice(channel, reply), *reply.notices))
