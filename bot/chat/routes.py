"""The cheapest route to edit one of the bot's messages: through an interaction while one can.

Discord's interaction routes (a press's own response, and the webhook of the interaction that posted
a message) are exempt from the global rate limit; a channel route is not. A message a follow-up posted
can be edited through that interaction's webhook for as long as its token lives: 15 minutes from the
interaction's creation (TOKEN_LIFE, less a MARGIN here). The tokens are secrets and are kept in memory
only, never in the database: after a restart the messages posted before it are edited through the
channel, under the global pace (bot.chat.pacing).

A move spends none of the global limit at any age of its turn's message: when no interaction route
can reach that message any more, the move's own interaction posts the turn's message anew, and the
old one is left as it was (`supersede`) until a press on it retires it through that press's own
response (bot.chat.adapter: "this moved on", privately).
"""

from __future__ import annotations

import collections
import datetime
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import discord

log = logging.getLogger("pitboss.discord")

TOKEN_LIFE = datetime.timedelta(minutes=15)   # Discord: an interaction token is valid for 15 minutes
MARGIN = datetime.timedelta(minutes=1)        # an edit started near the end may arrive after it
MAX_REMEMBERED = 50_000                       # tokens kept at most (the oldest go first)
MAX_SUPERSEDED = 20_000                       # superseded messages kept at most (the oldest go first)
DEAD_TOKEN = (401, 404)                       # 50027 Invalid Webhook Token, 10015 Unknown Webhook


@dataclass(frozen=True)
class Poster:
    """The webhook of the interaction that posted a message, and when its token stops being used."""

    webhook: discord.Webhook
    until: datetime.datetime


class InteractionWebhooks:
    """Which interaction posted each of our messages, while its token lives (in memory only)."""

    def __init__(self, now: Callable[[], datetime.datetime] = discord.utils.utcnow,
                 limit: int = MAX_REMEMBERED, superseded_limit: int = MAX_SUPERSEDED):
        self.now = now
        self.limit = limit
        self.superseded_limit = superseded_limit
        self._posters: collections.OrderedDict[str, Poster] = collections.OrderedDict()
        self._superseded: collections.OrderedDict[str, str] = collections.OrderedDict()   # message id -> its words

    def remember(self, message_id: str, interaction: discord.Interaction) -> None:
        """`message_id` was posted by `interaction`'s follow-up webhook."""
        self._posters[message_id] = Poster(interaction.followup, interaction.created_at + TOKEN_LIFE - MARGIN)
        self._posters.move_to_end(message_id)
        now = self.now()
        while self._posters and (len(self._posters) > self.limit or next(iter(self._posters.values())).until <= now):
            self._posters.popitem(last=False)

    def webhook(self, message_id: str) -> discord.Webhook | None:
        """The webhook that may still edit `message_id`, or None (unknown, or its token too old)."""
        poster = self._posters.get(message_id)
        if poster is not None and poster.until <= self.now():
            self.forget(message_id)
            return None
        return poster.webhook if poster is not None else None

    def forget(self, message_id: str) -> None:
        self._posters.pop(message_id, None)

    def supersede(self, message_id: str, body: str) -> None:
        """`message_id`, an earlier turn's message no free route could retire, keeps its buttons for now:
        a press on one is answered "this moved on" and retires it, to `body` (its turn's words)."""
        self._superseded[message_id] = body
        self._superseded.move_to_end(message_id)
        while len(self._superseded) > self.superseded_limit:
            self._superseded.popitem(last=False)

    def superseded(self, message_id: str) -> str | None:
        """A superseded message's words when retired (and it is forgotten), or None: not known as one."""
        return self._superseded.pop(message_id, None)

    def __len__(self) -> int:
        return len(self._posters)


async def edit_message(interaction: discord.Interaction, message_id: str, webhooks: InteractionWebhooks,
                       *, from_button: bool, channel: bool = True, **fields: Any) -> bool:
    """Edit our message `message_id` in `interaction`'s channel by the cheapest live route: the pressed
    message through the press's own interaction; one a follow-up posted through that interaction's
    webhook; else the channel route (global-bound, paced), unless `channel` is False: then nothing is
    sent, and False returned. A token Discord says is dead is forgotten and the next route taken; any
    other failure is raised. True: edited."""
    pressed = interaction.message
    if from_button and pressed is not None and str(pressed.id) == message_id:
        await interaction.edit_original_response(**fields)
        return True
    webhook = webhooks.webhook(message_id)
    if webhook is not None:
        try:
            await webhook.edit_message(int(message_id), **fields)
            return True
        except discord.HTTPException as exc:
            if exc.status not in DEAD_TOKEN:
                raise
            webhooks.forget(message_id)
            log.info("the token that posted message %s is dead (%s)", message_id, exc.status)
    if not channel:
        return False
    await interaction.channel.get_partial_message(int(message_id)).edit(**fields)  # type: ignore[union-attr]
    return True
