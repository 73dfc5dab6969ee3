"""`/game follow` and `/game unfollow`: a member who watches a game without playing in it is pinged once a
round (or only when it ends), in a message of its own in the game's channel."""

from __future__ import annotations

from typing import Any

from bot.table.protocol.refusals import NoGame
from bot.table.protocol.replies import Actor, Notice, Reply
from bot.table.service.shared import Table, reads
from rules.engine import Ruleset
from rules.errors import GameError
from rules.registry import get_ruleset
from rules.seats import is_resigned


class Following:
    """Followers of a channel's game: kept per game, told when a round begins or the game ends."""

    def __init__(self, table: Table):
        self._table = table

    async def follow(self, channel: str, actor: Actor, mode: str | None) -> Reply:
        game = await self._table.store.active_game(channel)
        if game is None:
            raise NoGame()
        ruleset = get_ruleset(game.ruleset)
        if mode is None:
            await self._table.store.set_follower(game.id, actor.id, None)
            return Reply("shown", "You do not follow this game (any more).", ephemeral=True)
        state = self._table.snapshots.load(ruleset, game.state)
        if state.player(actor.id) is not None and not is_resigned(state, actor.id):   # one who resigned may follow
            raise GameError("You play in this game: it pings you when it waits on you.")
        await self._table.store.set_follower(game.id, actor.id, mode)
        when = "once a round" if mode == "round" else "when it ends"
        return Reply("shown", f"You follow this {ruleset.title} game: a ping {when}. /game unfollow stops it.",
                     ephemeral=True)

    async def news(self, ruleset: Ruleset, game_id: int, channel: str, round_before: int, state: Any) -> tuple:
        """The notice pinging this game's followers, when a round began since `round_before` or the game
        ended; none otherwise (the followers are read only then)."""
        ended = ruleset.is_finished(state)
        if not ended and state.round <= round_before:
            return ()
        known = reads()
        if known.known_game(game_id) is not None and not known.followed:   # nobody followed it at its move
            return ()
        members = watching(await self._table.store.followers(game_id), state, ("round", "end") if ended else ("round",))
        if not members:
            return ()
        words = f"The {ruleset.title} game here has ended. {ruleset.prompt(state)}" if ended else \
            f"Round {state.round + 1} of the {ruleset.title} game here begins. {ruleset.prompt(state)}"
        return (Notice(channel, Reply("shown", words, mentions=members,
                                      ping_words="(you follow this game; /game unfollow stops it)")),)


def watching(followers: list[tuple[str, str]], state: Any, modes: tuple[str, ...]) -> tuple[str, ...]:
    """The followers (member, mode) pinged with news their `modes` want: those who only watch the game (one who
    joined since is pinged as a player; one who resigned since following is not)."""
    return tuple(m for m, mode in followers if mode in modes and (state.player(m) is None or is_resigned(state, m)))
