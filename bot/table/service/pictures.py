"""The reply that shows the table: its picture with the last turns' trails, alt text, buttons and sheets."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import Any

from bot.storage.store import GameRecord
from bot.table.clock.moments import clock_line
from bot.table.clock.personal import PlayerSettings, parse_view
from bot.table.clock.settings import TableSettings, reminder_lead
from bot.table.protocol.replies import (
    ALT_TEXT_LIMIT,
    MESSAGE_LIMIT,
    Attachment,
    Reply,
    buttons_for,
    choices_button,
    clip,
    public_scope,
    rematch_button,
    review_button,
)
from bot.table.service.recent import RECENT_ACTIONS
from bot.table.service.shared import Table, reads
from bot.table.trust.export import events_of
from bot.table.trust.seen import seen_log
from images.registry import renderer
from rules.engine import Ruleset, describe_events
from rules.errors import GameError
from rules.seats import holder_name
from rules.table import TurnBegan, born_computer

log = logging.getLogger("pitboss.pictures")


@dataclass
class DrawnAhead:
    """A channel picture started before its action is committed, while the write goes on: good for the
    reply only if it shows that state, those last events and the same recent turns."""

    state: Any
    last: tuple
    turn: tuple
    drawn: asyncio.Future   # (the picture, the final sheets' attachments when the action ends the game)
    window: list[tuple] = field(default_factory=list)   # the recent actions' events `turn` was made from
    public: Any = None   # the public view of `state` it draws

    def drop(self) -> None:
        """Not wanted after all (the write failed, another step or a computer's move follows)."""
        self.drawn.cancel()


def turns_in(window: list[tuple]) -> tuple:
    """The last turn of every player and the turn now under way (what the picture's trails show), from a
    game's window of recent actions' events: a round back."""
    events = [e for action in window for e in action]
    starts = [i for i, e in enumerate(events) if isinstance(e, TurnBegan)]
    latest = {events[i].player: i for i in starts[:-1]}   # each player's last turn before this one
    return tuple(events[min(latest.values()):] if latest else events)


async def wanted_view(table: Table, game: GameRecord, reader: str, typed: str | None) -> str:
    """How `reader` wants their own picture drawn: the command's view: (`typed`), else their /me settings
    view: on the game's server, else the full map."""
    if typed:
        return parse_view(typed)
    stored = await table.store.player_settings_tx(game.guild, (reader,))
    return PlayerSettings.from_json(stored.get(reader)).view


class Pictures:
    """Replies with the table's picture, drawn from the public view and the recent public events."""

    def __init__(self, table: Table):
        self._table = table

    def draw_ahead(self, ruleset: Ruleset, game: GameRecord, state: Any, events: tuple) -> DrawnAhead | None:
        """Start drawing the picture of `state`, which the public action `events` brings the game (`game`
        as it was before it) to, while that action is being written: its reply then waits for the longer
        of the two, not both. None when this process does not follow the game's recent actions."""
        window = self._table.recent.after(game.id, game.version, events)
        if not self._table.render or window is None:
            return None
        turn = turns_in(window)
        public = ruleset.view(state, None)
        try:
            drawn = self._drawn(ruleset, public, events, turn, ruleset.is_finished(state))
        except Exception:   # a picture ahead never stops the move being written: the reply draws its own
            log.exception("the picture of a move could not be started ahead of its write")
            return None
        drawn.add_done_callback(lambda done: done.cancelled() or done.exception())   # dropped: nobody reads it
        return DrawnAhead(state, events, turn, drawn, window, public)

    async def with_map(self, ruleset: Ruleset, game: GameRecord, state: Any, outcome: str,
                       text: str, last: tuple | None = None, ahead: DrawnAhead | None = None) -> Reply:
        """The reply with the table's picture. `last` is the last logged action's events (read from the
        log when not given): the picture's caption, dice and shot are drawn from them. A picture drawn
        `ahead` is used when it shows the same."""
        if last is None:
            last = await self.last_events(ruleset, game)
        public = ahead.public if ahead is not None and ahead.state is state else ruleset.view(state, None)
        ended = outcome == "applied" and ruleset.is_finished(state)
        drawn: asyncio.Future | None = None
        if self._table.render:
            window = await self._recent_window(ruleset, game)
            turn = ahead.turn if ahead is not None and window == ahead.window else turns_in(window)
            if ahead is not None and (ahead.state is not state or ahead.last is not last or ahead.turn != turn):
                ahead.drop()
                ahead = None
            # the picture (and the final sheets) drawn while this process words the reply
            drawn = ahead.drawn if ahead is not None else self._drawn(ruleset, public, last, turn, ended)
        elif ahead is not None:
            ahead.drop()
        try:
            reply = await self._worded(ruleset, game, state, public, outcome, text, last)
        except BaseException:
            if drawn is not None:
                drawn.cancel()
            raise
        if drawn is None:
            return reply
        image, files = await drawn
        return replace(reply, image=image, files=files)

    async def closeup(self, ruleset: Ruleset, game: GameRecord, state: Any, text: str, last: tuple,
                      reader: str) -> Reply:
        """The status as a private reply with the close-up for a phone (images.closeup), drawn from the
        same public view and recent events as the channel's picture, centred on the reader's own vehicle
        when they have one (else the one the game waits on); the channel's picture keeps the full map."""
        public = ruleset.view(state, None)
        drawn: asyncio.Future | None = None
        if self._table.render and renderer(ruleset.id).closeup is not None:
            turn = await self._recent_turns(ruleset, game)
            drawn = asyncio.ensure_future(self._table.drawing.closeup(ruleset.id, public, last, turn, reader))
        try:
            reply = await self._worded(ruleset, game, state, public, "shown", text, last)
        except BaseException:
            if drawn is not None:
                drawn.cancel()
            raise
        image = await drawn if drawn is not None else None
        alt = clip(f"A close-up of the map for a phone. {reply.alt_text or ''}", ALT_TEXT_LIMIT)
        return replace(reply, image=image, alt_text=alt, ephemeral=True, buttons=(), legal=(), waiting_on=(),
                       next_line="", turn_key="")

    async def _worded(self, ruleset: Ruleset, game: GameRecord, state: Any, public: Any, outcome: str,
                      text: str, last: tuple) -> Reply:
        """The reply's words, buttons and alt text, without its picture."""
        waiting = ruleset.acting_players(state)
        humans = [p for p in waiting if not ruleset.is_computer(state, p)]
        # One player's legal actions are public buttons; when several wait (secret declarations), or
        # the actions show what only their player may see, one button opens each presser's own, privately.
        legal = ruleset.legal_actions(state, waiting[0]) if len(waiting) == 1 and not ruleset.private_actions else ()
        ended = ruleset.is_finished(state)   # the final message offers a rematch and the game's review
        final = ((rematch_button(game.id),) if _people_seated(state) else ()) + (review_button(game.id),) \
            if outcome == "applied" and ended else ()
        buttons = buttons_for(legal, game.id, public_scope(game.version)) if legal else \
            (choices_button(game.id),) if humans and not ended else final
        clock = await self._clock(ruleset, game, state, tuple(humans))
        # what waits now closes the text: an accepted action's Next: line and the clock, a status's clock
        next_line = "\n".join(p for p in (f"Next: {ruleset.prompt(state)}", clock) if p) if outcome == "applied" \
            else clock
        if next_line:
            text = f"{text}\n{next_line}"
        alt = ruleset.describe(public)
        if last:  # the news first, as the picture's caption has it, in the room the table leaves
            room = max(ALT_TEXT_LIMIT // 8, ALT_TEXT_LIMIT - len(alt) - 1)
            alt = f"{clip('Last: ' + describe_events(last), room)} {alt}"
        return Reply(outcome, clip(text, MESSAGE_LIMIT), None, clip(alt, ALT_TEXT_LIMIT),
                     legal=legal, waiting_on=waiting, next_line=next_line,
                     game_id=game.id, version=game.version, buttons=buttons, turn_key=ruleset.turn_key(state))

    async def _clock(self, ruleset: Ruleset, game: GameRecord, state: Any, waiting: tuple[str, ...]) -> str:
        """Each waited-on player's deadline and next reminder (or until when they are away), as moments."""
        if ruleset.is_finished(state) or not waiting:
            return ""
        settings = TableSettings.or_defaults(game.settings)
        lead = reminder_lead(settings) if ruleset.autopilot is not None else 0.0   # a later reminder is not sent
        settings = settings if ruleset.autopilot is not None else replace(settings, grace=0)   # nothing to excuse
        now, banks = self._table.clock(), None
        if settings.banked:   # each bank as it stands now, counted in its player's own waking hours
            stored = await self._table.player_settings(game.guild, waiting)
            banks = {p: settings.bank_left(p, now, PlayerSettings.from_json(stored[p]) if p in stored else None)
                     for p in waiting}
        timers = reads().known_timers(game, waiting)   # as the move wrote them, else read
        return clock_line(waiting, await self._table.store.timers(game.id) if timers is None else timers, settings,
                          lambda p: holder_name(state, p), now, lead, banks)

    async def last_events(self, ruleset: Ruleset, game: GameRecord) -> tuple:
        """The events of the game's last logged action the channel may know of (none before the first)."""
        window = await self._recent_window(ruleset, game)
        return window[-1] if window else ()

    async def sheets(self, ruleset: Ruleset, state: Any, options: dict) -> Reply:
        """The full car sheets, drawn off the loop: privately, or to the channel with public:true."""
        if renderer(ruleset.id).render_sheets is None:
            raise GameError(f"{ruleset.title} has no car sheets.")
        which = options.get("car") or ""
        try:
            data = await self._table.drawing.sheets(ruleset.id, ruleset.view(state, None), which)
        except ValueError as exc:  # nothing to draw (nobody seated yet)
            raise GameError(f"No sheets to show: {exc}.") from None
        public = options.get("public") == "true"
        what = f"The sheet of {which.strip()}" if which.strip() else "Every car's sheet"
        return Reply("shown", f"{what}.", ephemeral=not public,
                     files=(Attachment("pitboss-sheets.png", data, f"{what}: systems, weapons and damage boxes"),))

    async def _recent_window(self, ruleset: Ruleset, game: GameRecord) -> list[tuple]:
        """The events of the game's last RECENT_ACTIONS actions the channel may know of, one tuple per
        action: kept in memory, read from the log only when this process has not followed the game to its
        current version."""
        window = self._table.recent.get(game.id, game.version)
        if window is None:
            records = await self._table.store.recent_actions(game.id, RECENT_ACTIONS)
            state = self._table.snapshots.load(ruleset, game.state)
            window = [events_of(ruleset, s.record) for s in seen_log(ruleset, state, records, None)]
            self._table.recent.put(game.id, game.version, window)
        return window

    async def _recent_turns(self, ruleset: Ruleset, game: GameRecord) -> tuple:
        """The last turn of every player and the turn now under way (what the picture's trails show):
        a round back, within the last RECENT_ACTIONS actions."""
        return turns_in(await self._recent_window(ruleset, game))

    def _drawn(self, ruleset: Ruleset, public: Any, last: tuple, turn: tuple, ended: bool) -> asyncio.Future:
        """The channel picture of `public` and, when the game `ended` and draws car sheets, every car's sheet
        as it ended (for the final results), drawn together on one render process (Drawing.final): the
        (picture, attachments) being drawn, started before this returns."""
        if not ended or renderer(ruleset.id).render_sheets is None:
            return _wrapped(self._table.drawing.picture(ruleset.id, public, last, turn), _no_files)
        return _wrapped(self._table.drawing.final(ruleset.id, public, last, turn), _final)


def _wrapped(drawing: asyncio.Future, reply_parts: Callable[[asyncio.Future], Awaitable[Any]]) -> asyncio.Future:
    """`reply_parts(drawing)` on a task of its own; cancelling it (a picture no longer wanted) cancels the
    drawing too, even before it ran, and the drawing's outcome is read either way."""
    wrapped = asyncio.ensure_future(reply_parts(drawing))
    drawing.add_done_callback(lambda done: done.cancelled() or done.exception())
    wrapped.add_done_callback(lambda done: done.cancelled() and drawing.cancel())
    return wrapped


async def _no_files(picture: asyncio.Future) -> tuple[bytes | None, tuple[Attachment, ...]]:
    return await picture, ()


async def _final(drawn: asyncio.Future) -> tuple[bytes | None, tuple[Attachment, ...]]:
    """The last picture, and the final sheets as an attachment (none when nobody sat down)."""
    picture, sheets = await drawn
    if sheets is None:
        return picture, ()
    return picture, (Attachment("pitboss-final-sheets.png", sheets, "Every car's sheet at the end of the game"),)


def _people_seated(state: Any) -> bool:
    """Whether anyone seated is a person (a finished game's final message then offers a rematch)."""
    return any(not born_computer(p.id) for p in state.players)
