"""Each server's board of open tables (`/league board channel:`), kept as one message: posted once, then
edited, posted anew if it was deleted (issue 40 item 1).

Edits are coalesced within Discord's request budget: a board is looked at no sooner than BOARD_SECONDS after
its last edit (env PITBOSS_BOARD_SECONDS), however many lobbies changed meanwhile, and the latest state wins;
a board whose words did not change costs no request. The board's message mentions nobody.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable
from typing import Any, Protocol

import discord

from bot.chat.pacing import PacedLooks
from bot.chat.views import view_for
from bot.table.protocol.replies import Reply
from bot.table.service.league import BoardUpdate

log = logging.getLogger("pitboss.discord")

DEFAULT_BOARD_SECONDS = 30.0


def board_seconds() -> float:
    """The least time between two edits of one board (env PITBOSS_BOARD_SECONDS)."""
    return float(os.environ.get("PITBOSS_BOARD_SECONDS", DEFAULT_BOARD_SECONDS))


class BoardSource(Protocol):
    """What the keeper asks of the service (bot.table.service.entry.GameService)."""

    async def board_update(self, guild: str) -> BoardUpdate | None: ...

    async def board_posted(self, update: BoardUpdate, message_id: str) -> None: ...


class BoardKeeper:
    """Keeps the boards up to date: one task per server while its board has changes to show."""

    def __init__(self, source: Callable[[], BoardSource], channel_of: Any, seconds: float | None = None):
        self._source, self._channel_of = source, channel_of   # channel_of: an async id -> Messageable
        self._looks = PacedLooks(board_seconds() if seconds is None else seconds, self._refresh,
                                 "the board of open tables")

    def touch(self, guilds: Iterable[str]) -> None:
        """These servers' lobbies changed: their boards are looked at once their pause since the last edit is over."""
        for guild in guilds:
            self._looks.touch(guild)

    async def _refresh(self, guild: str) -> bool:
        """Edit (or post) the server's board if its words changed: True when a request was made."""
        update = await self._source().board_update(guild)
        if update is None:
            return False
        channel = await self._channel_of(update.channel)
        reply = Reply("shown", update.text, buttons=update.buttons)
        parts: dict[str, Any] = {"content": update.text, "allowed_mentions": discord.AllowedMentions.none(),
                                 "view": view_for(reply)}
        if update.message_id:
            try:
                await channel.get_partial_message(int(update.message_id)).edit(**parts)
                await self._source().board_posted(update, update.message_id)
                return True
            except discord.NotFound:   # deleted: posted anew
                log.info("the board of server %s was deleted; posting it anew", guild)
        if parts["view"] is None:
            parts.pop("view")
        message = await channel.send(**parts)
        await self._source().board_posted(update, str(message.id))
        return True
