"""How replies look on Discord: the turn message with its map and buttons, pings, private refusals.

A game keeps one public message per turn: moves within a turn edit it, and a new message (with the
one ping to the next player) starts each turn. Buttons are DynamicItems whose custom id names the
game, the version they were drawn for and the action's index, so they survive restarts.
"""

from __future__ import annotations

import io
import logging
from dataclasses import replace
from typing import Any, Protocol

import discord

from bot.chat.routes import InteractionWebhooks, edit_message
from bot.storage.store import TurnMessage
from bot.table.protocol.replies import (
    BUTTON_PREFIX,
    CANCEL_ID,
    CHOICES_PREFIX,
    MENU_PREFIX,
    OPEN_TABLE_PREFIX,
    PLAN_PREFIX,
    PRESSED,
    PRIVATE_MENU_PREFIX,
    PRIVATE_PREFIX,
    QUEUE_PREFIX,
    REMATCH_PREFIX,
    RESIGN_PREFIX,
    REVIEW_PREFIX,
    SEASON_PREFIX,
    SEAT_PREFIX,
    TOURNAMENT_PREFIX,
    VOTE_PREFIX,
    Button,
    Edit,
    Reply,
)

log = logging.getLogger("pitboss.discord")

MESSAGE_CHARACTERS = 2000   # Discord's limit for a message's content


class ButtonHandler(Protocol):
    """What a button needs of the client that received its press (the adapter's client)."""

    async def run_button(self, interaction: discord.Interaction, custom_id: str) -> None: ...

    async def run_plan(self, interaction: discord.Interaction, custom_id: str) -> None: ...


class TurnMessages(Protocol):
    """Where the message showing each game's current turn is remembered (the GameService)."""

    async def turn_message(self, game_id: int) -> TurnMessage | None: ...

    async def remember_turn_message(self, game_id: int, turn_key: str, message_id: str, body: str = "") -> None: ...

    async def status_took_turn(self, game_id: int, version: int, turn_key: str, message_id: str,
                               body: str) -> bool: ...


class ActionButton(discord.ui.DynamicItem[discord.ui.Button],
                   template=rf"(?:{BUTTON_PREFIX}|{MENU_PREFIX}|{CHOICES_PREFIX}|{PRIVATE_PREFIX}|{PRIVATE_MENU_PREFIX}"
                            rf"|{SEAT_PREFIX}|{RESIGN_PREFIX}|{VOTE_PREFIX}|{REMATCH_PREFIX}|{OPEN_TABLE_PREFIX}|{REVIEW_PREFIX}|{QUEUE_PREFIX}|{TOURNAMENT_PREFIX}|{SEASON_PREFIX})"
                            r":(?P<game>\d+):(?P<version>\d+)"
                            r":(?P<index>\d+)"):
    """A button for one legal action (or a menu of several, such as the ways to make one choice);
    pressing it runs the action, or opens the menu, if the game has not moved on."""

    def __init__(self, button: Button):
        style = discord.ButtonStyle.primary if button.primary else discord.ButtonStyle.secondary
        super().__init__(discord.ui.Button(label=button.label or "…", custom_id=button.custom_id, style=style))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: Any, /,
                             ) -> ActionButton:
        return cls(Button(_label(item), _custom_id(item), ""))

    async def callback(self, interaction: discord.Interaction) -> None:
        client: ButtonHandler = interaction.client  # type: ignore[assignment]
        await client.run_button(interaction, _custom_id(self.item))


class ConfirmPlanButton(discord.ui.DynamicItem[discord.ui.Button],
                        template=PLAN_PREFIX + r":(?P<plan>[\w:.\-]+)"):
    """Confirm a previewed plan: it is driven only if the game has not moved on since."""

    def __init__(self, button: Button):
        super().__init__(discord.ui.Button(label=button.label or "Confirm", custom_id=button.custom_id,
                                           style=discord.ButtonStyle.success))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: Any, /,
                             ) -> ConfirmPlanButton:
        return cls(Button(_label(item) or "Confirm", _custom_id(item), "confirm"))

    async def callback(self, interaction: discord.Interaction) -> None:
        client: ButtonHandler = interaction.client  # type: ignore[assignment]
        await client.run_plan(interaction, _custom_id(self.item))


class CancelPlanButton(discord.ui.DynamicItem[discord.ui.Button], template=CANCEL_ID):
    """Drop a previewed plan: nothing was applied, so nothing changes."""

    def __init__(self, button: Button | None = None):
        super().__init__(discord.ui.Button(label="Cancel", custom_id=CANCEL_ID, style=discord.ButtonStyle.danger))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: Any, /,
                             ) -> CancelPlanButton:
        return cls()

    async def callback(self, interaction: discord.Interaction) -> None:
        await interaction.response.edit_message(content="Plan cancelled; nothing was driven.", view=None,
                                                attachments=[])


def _label(item: discord.ui.Item[Any]) -> str:
    """A pressed button's label (what it showed)."""
    return (item.label if isinstance(item, discord.ui.Button) else None) or ""


def _custom_id(item: discord.ui.Item[Any]) -> str:
    """A pressed component's id (every one of ours has one: it is how a press finds its action)."""
    custom_id = getattr(item, "custom_id", None)
    return custom_id if isinstance(custom_id, str) else ""


def _item_for(button: Button) -> discord.ui.Item:
    if button.custom_id == CANCEL_ID:
        return CancelPlanButton(button)
    if button.custom_id.startswith(PLAN_PREFIX + ":"):
        return ConfirmPlanButton(button)
    return ActionButton(button)


def view_for(reply: Reply) -> discord.ui.View | None:
    """The buttons of a reply, five to a row (a private preview has Confirm and Cancel)."""
    if not reply.buttons:
        return None
    view = discord.ui.View(timeout=None)
    for button in reply.buttons:
        view.add_item(_item_for(button))
    return view


def files_of(reply: Reply) -> list[discord.File]:
    files = []
    if reply.image is not None:
        files.append(discord.File(io.BytesIO(reply.image), filename="table.png", description=reply.alt_text or None))
    for attachment in reply.files:
        files.append(discord.File(io.BytesIO(attachment.data), filename=attachment.filename,
                                  description=attachment.description or None))
    return files


def content_and_mentions(reply: Reply) -> tuple[str, discord.AllowedMentions]:
    pinged = [player for player in reply.mentions if player.isdigit()]
    if pinged:
        # One ping to each player the game now waits on; nobody else can be mentioned.
        text = f"{' '.join(f'<@{p}>' for p in pinged)} {reply.ping_words}\n{reply.text}"
        return text[:2000], discord.AllowedMentions(everyone=False, roles=False,
                                                     users=[discord.Object(int(p)) for p in pinged])
    return reply.text, discord.AllowedMentions.none()


def _private_parts(reply: Reply) -> dict[str, Any]:
    """How a private reply is sent: to its asker alone, pinging nobody, with its files and buttons."""
    parts: dict[str, Any] = {"ephemeral": True, "allowed_mentions": discord.AllowedMentions.none()}
    files = files_of(reply)
    if files:
        parts["files"] = files
    view = view_for(reply)
    if view is not None:
        parts["view"] = view
    return parts


async def send_private(interaction: discord.Interaction, reply: Reply, *, deferred_public: bool) -> None:
    """A private reply (a refusal, a query) after a deferral. A public 'thinking' deferral is removed first."""
    if deferred_public:
        await interaction.delete_original_response()
    await interaction.followup.send(reply.text, **_private_parts(reply))


async def answer_privately(interaction: discord.Interaction, reply: Reply) -> None:
    """A private reply as the interaction's first and only response: nothing public comes before it."""
    await interaction.response.send_message(reply.text, **_private_parts(reply))


async def publish(turns: TurnMessages, interaction: discord.Interaction, reply: Reply, *,
                  from_button: bool, webhooks: InteractionWebhooks) -> None:
    """Show an accepted action on its turn's message: added to what the message says of the turn so far
    (every action of the turn stays in the channel), or a new message when the turn passed, when the
    message is full, when the action pings someone (a new message is how a ping reaches them), or when it is
    one to answer in a message of its own (a seat change).

    Each edit takes an interaction's route (bot.chat.routes.edit_message), never the global-bound channel:
    the pressed message through the press's own response, or the turn's message through the webhook of
    the interaction that posted it while its token lives. When neither can reach the turn's message (a
    move made more than 15 minutes after it, or after a restart), the move's own interaction posts the
    turn's message anew, and the old one keeps its words and (stale) buttons until a press retires it
    (InteractionWebhooks.supersede). A new turn message is a follow-up, remembered with its interaction."""
    news = _news(reply)
    view = view_for(reply)
    previous = await turns.turn_message(reply.game_id) if reply.game_id else None
    if previous is not None and previous.turn_key == reply.turn_key and not reply.mentions and not reply.own_message:
        body = f"{previous.body}\n{news}" if previous.body else news
        content = _with_next(body, reply)
        if len(content) <= MESSAGE_CHARACTERS:
            try:
                if await edit_message(interaction, previous.message_id, webhooks, from_button=from_button,
                                      channel=False, content=content, attachments=files_of(reply), view=view,
                                      allowed_mentions=discord.AllowedMentions.none()):
                    if reply.game_id is not None:
                        await turns.remember_turn_message(reply.game_id, reply.turn_key, previous.message_id, body)
                    if not from_button:
                        await interaction.delete_original_response()
                    return
                log.info("turn message %s is out of an interaction's reach; posting the turn anew",
                         previous.message_id)
            except discord.HTTPException:
                log.info("turn message %s could not be edited; posting a new one", previous.message_id)
    if previous is not None:
        await _retire(interaction, previous, webhooks, from_button=from_button, channel=False)
    if not from_button:
        # A follow-up would fill in the "thinking…" placeholder, and an edit never notifies: post
        # the turn's message as a new one so its ping reaches the player.
        await interaction.delete_original_response()
    content, mentions = content_and_mentions(replace(reply, text=_with_next(news, reply)))
    message = await interaction.followup.send(content, files=files_of(reply), view=view or discord.utils.MISSING,
                                              allowed_mentions=mentions, wait=True)
    webhooks.remember(str(message.id), interaction)
    if reply.game_id is not None:
        await turns.remember_turn_message(reply.game_id, reply.turn_key, str(message.id), news)


def _news(reply: Reply) -> str:
    """What an accepted action's reply says happened: its text without the closing Next: line."""
    if reply.next_line and reply.text.endswith("\n" + reply.next_line):
        return reply.text[: -len(reply.next_line) - 1]
    return reply.text


def _with_next(body: str, reply: Reply) -> str:
    """A turn's words so far and what the game waits on now."""
    return "\n".join(part for part in (body, reply.next_line) if part)


async def post_notice(turns: TurnMessages, channel: discord.abc.Messageable, reply: Reply, fold: bool = False) -> None:
    """Post a scheduler notice (a reminder, or a turn the autopilot drove) in its channel, and rewrite the
    earlier messages it changes. A new turn's message (or a status showing the live turn) supersedes the
    turn's earlier message, whose buttons and clock come off (the channel route: no interaction here). With
    `fold`, an action of the turn that pings nobody is added to the turn's message instead: one edit, not a post
    and an edit."""
    if fold and await _folded(turns, channel, reply):
        return
    content, mentions = content_and_mentions(reply)
    takes_turn = reply.game_id is not None and (reply.outcome == "applied" or shows_live_turn(reply))
    previous = await turns.turn_message(reply.game_id) if takes_turn and reply.game_id is not None else None
    message = await channel.send(content, files=files_of(reply), view=view_for(reply) or discord.utils.MISSING,
                                 allowed_mentions=mentions)
    if reply.outcome == "applied" and reply.game_id is not None:
        await turns.remember_turn_message(reply.game_id, reply.turn_key, str(message.id), _news(reply))
    elif takes_turn and not await _status_took_turn(turns, reply, str(message.id)):
        previous = None
        await _quietly(message.edit(view=None), str(message.id))   # the game moved on: its buttons are stale
    if previous is not None and previous.message_id != str(message.id):
        await _quietly(channel.get_partial_message(int(previous.message_id)).edit(  # type: ignore[attr-defined]
            **retired(previous.body)), previous.message_id)
    for edit in reply.edits:   # no interaction here: the channel route (a closed vote's question, say)
        if edit.message_id == PRESSED:   # nothing was pressed
            continue
        try:
            await channel.get_partial_message(int(edit.message_id)).edit(**_rewritten(edit))  # type: ignore[attr-defined]
        except discord.HTTPException:
            log.info("could not edit message %s", edit.message_id)


async def _folded(turns: TurnMessages, channel: discord.abc.Messageable, reply: Reply) -> bool:
    """Add an action to its turn's message by the channel route, as publish does by an interaction's: False when it
    starts a turn, pings someone, takes a message of its own, or does not fit (then it is posted)."""
    if reply.outcome != "applied" or reply.game_id is None or reply.mentions or reply.own_message:
        return False
    previous = await turns.turn_message(reply.game_id)
    if previous is None or previous.turn_key != reply.turn_key:
        return False
    news = _news(reply)
    body = f"{previous.body}\n{news}" if previous.body else news
    content = _with_next(body, reply)
    if len(content) > MESSAGE_CHARACTERS:
        return False
    try:
        await channel.get_partial_message(int(previous.message_id)).edit(  # type: ignore[attr-defined]
            content=content, attachments=files_of(reply), view=view_for(reply),
            allowed_mentions=discord.AllowedMentions.none())
    except discord.HTTPException:
        log.info("turn message %s could not be edited; posting a new one", previous.message_id)
        return False
    await turns.remember_turn_message(reply.game_id, reply.turn_key, previous.message_id, body)
    return True


def shows_live_turn(reply: Reply) -> bool:
    """Whether a public read-only reply carries the game's live buttons (a public /game status): only the
    turn's one message may, so such a reply becomes the turn's message (present_status)."""
    return reply.outcome == "shown" and not reply.ephemeral and reply.game_id is not None \
        and bool(reply.buttons) and bool(reply.turn_key) and not reply.vote_proposal


async def present_status(turns: TurnMessages, interaction: discord.Interaction, reply: Reply, message_id: str,
                         webhooks: InteractionWebhooks, *, from_button: bool) -> None:
    """A public status posted with the live turn's buttons (`message_id`) becomes the turn's message: a press
    there is played there, and the message it supersedes loses its buttons and clock (one edit, by the
    cheapest route). When the game moved on before it was posted, its own buttons come off instead."""
    previous = await turns.turn_message(reply.game_id) if reply.game_id is not None else None
    if not await _status_took_turn(turns, reply, message_id):
        previous = None
        await _quietly(edit_message(interaction, message_id, webhooks, from_button=from_button, view=None), message_id)
    if previous is not None and previous.message_id != message_id:
        await _retire(interaction, previous, webhooks, from_button=from_button)


async def _status_took_turn(turns: TurnMessages, reply: Reply, message_id: str) -> bool:
    """Make a status showing the live turn its turn's message, if the game is still as the status showed it."""
    if reply.game_id is None or reply.version is None:
        return False
    return await turns.status_took_turn(reply.game_id, reply.version, reply.turn_key, message_id, _news(reply))


async def _quietly(edit: Any, message_id: str) -> None:
    """An edit of an earlier message, best effort (it may be gone)."""
    try:
        await edit
    except (discord.HTTPException, ValueError):
        log.info("could not edit message %s", message_id)


def _rewritten(edit: Edit) -> dict[str, Any]:
    """What an edit of an earlier message sends: its new words (unless they stay) and buttons (none: they come
    off), no ping."""
    words = {} if edit.text is None else {"content": edit.text}
    return {**words, "view": view_for(Reply("shown", "", buttons=edit.buttons)),
            "allowed_mentions": discord.AllowedMentions.none()}


async def edit_earlier(interaction: discord.Interaction, reply: Reply, webhooks: InteractionWebhooks, *,
                       from_button: bool) -> None:
    """Rewrite the earlier messages a reply changes (a finished vote's question, turns a rollback set aside),
    each by the cheapest route, pinging nobody (best effort: a message may be gone)."""
    for edit in reply.edits:
        if edit.message_id == PRESSED:   # the message pressed: by the press's own response, if one was pressed
            if not from_button or interaction.message is None:
                continue
            edit = replace(edit, message_id=str(interaction.message.id))
        webhooks.superseded(edit.message_id)   # rewritten now: a later press must not put its old words back
        try:
            await edit_message(interaction, edit.message_id, webhooks, from_button=from_button, **_rewritten(edit))
        except (discord.HTTPException, ValueError):
            log.info("could not edit message %s", edit.message_id)


async def _retire(interaction: discord.Interaction, previous: TurnMessage, webhooks: InteractionWebhooks, *,
                  from_button: bool, channel: bool = True) -> None:
    """Take the buttons off an earlier turn's message, and its clock (best effort: it may be gone); without
    `channel`, only by an interaction's route, else it is left superseded (its next press retires it)."""
    try:
        if not await edit_message(interaction, previous.message_id, webhooks, from_button=from_button,
                                  channel=channel, **retired(previous.body)):
            webhooks.supersede(previous.message_id, previous.body)
    except (discord.HTTPException, ValueError):
        log.info("could not retire turn message %s", previous.message_id)


def retired(body: str) -> dict[str, Any]:
    """What a superseded turn message keeps: the turn's words without its closing Next: and clock lines (a
    clock Discord would count on for ever, "in 11 hours", then "… ago"), and no buttons. A message whose
    words were never remembered (stored before they were) keeps them, and loses only its buttons."""
    if not body:
        return {"view": None}
    return {"view": None, "content": body, "allowed_mentions": discord.AllowedMentions.none()}
