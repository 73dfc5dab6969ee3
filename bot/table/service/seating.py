"""Creating a game: its ruleset's setup, its dice commitment, its first picture."""

from __future__ import annotations

from typing import Any

from bot.storage.league import list_lobby_tx
from bot.storage.store import ChannelTaken
from bot.table.protocol.commands import Command
from bot.table.protocol.refusals import NotThisGame
from bot.table.protocol.replies import Actor, Reply, refusal
from bot.table.service.pictures import Pictures
from bot.table.service.shared import Table
from bot.table.trust.commitment import announce, new_seed
from bot.table.trust.guards import plain_name
from rules.codec import dumps, encode_state
from rules.engine import Ruleset
from rules.errors import GameError
from rules.registry import get_ruleset
from rules.table import HOST_NAME


class Seating:
    """`/game new`: a new game in a channel that has none (the seats are taken by the game's own actions)."""

    def __init__(self, table: Table, pictures: Pictures):
        self._table, self._pictures = table, pictures

    @staticmethod
    def set_up(actor: Actor, options: dict) -> tuple[Ruleset, dict, int, dict, Any]:
        """A new game's setup from /game new's options, checked (GameError: why not) before anything is made:
        the ruleset, the options left, the seed, the setup options and the first state."""
        ruleset = get_ruleset(options["ruleset"])
        options = NotThisGame.fitted(ruleset, Command("game new", options)).options
        if options.pop("thread", "no") == "yes":   # the Discord adapter opens the thread and takes this option
            raise GameError("thread:yes opens a Discord thread for the game; here the game is played in this "
                            "channel (leave thread: out).")
        seed = options["seed"] if "seed" in options else new_seed()
        setup_options = ruleset.new_game_options({k: v for k, v in options.items()
                                                  if k not in ("ruleset", "seed", "public")})
        if ruleset.game_master is not None:   # a host it seats as the GM is named as any player
            setup_options[HOST_NAME] = plain_name(actor.name)
        return ruleset, options, seed, setup_options, ruleset.setup(setup_options, seed, actor.id)

    async def new_game(self, channel: str, actor: Actor, options: dict, guild: str,
                       private_thread: bool = False) -> Reply:
        ruleset, options, seed, setup_options, state = self.set_up(actor, options)
        # listed by /lfg and the board (issue 40 item 1): by default, but where nobody else can open the channel
        public = options.pop("public", "no" if private_thread else "yes") == "yes"
        try:
            async with self._table.write():
                game = await self._table.store.create_game_tx(channel, ruleset.id, actor.id, seed,
                                                              dumps(setup_options), encode_state(state), guild)
                if public:
                    await list_lobby_tx(self._table.store, game.id, self._table.clock())
        except ChannelTaken:
            return refusal("This channel already has a game. Finish it with /game end, or play in "
                           "another channel or thread.")
        if public:
            self._table.lobby_changed(guild)
        listed = " It is listed as an open table (/lfg)." if public else ""
        text = (f"New {ruleset.title} game created by {actor.name}. Join with /game join; "
                f"the host starts it with /game start.{listed}\n{announce(seed)}")
        if "seed" in options and ruleset.private_actions:
            text += ("\nThe host chose the seed, so whoever knows it can work out what is hidden: leave "
                     "seed: out for a game with secrets.")
        return await self._pictures.with_map(ruleset, game, state, "applied", text)
