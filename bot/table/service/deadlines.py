"""What a due timer sends: a reminder, or at a deadline the autopilot playing the missed turn by the
rules, if the claim still stands."""

from __future__ import annotations

import logging
from dataclasses import replace
from functools import partial
from typing import Any

from bot.storage.store import GameRecord, Timer
from bot.table.clock.moments import moment
from bot.table.clock.settings import GRACE_TOKEN, MAX_COMPUTER_ACTIONS, TableSettings, extended_timer, reminder_lead
from bot.table.protocol.commands import Command
from bot.table.protocol.refusals import StaleButton
from bot.table.protocol.replies import TURN, Reply
from bot.table.service.acting import ENDED, Acting, seated_people, with_notes, with_order_owners
from bot.table.service.following import Following
from bot.table.service.pictures import Pictures
from bot.table.service.shared import Table
from bot.table.service.timers import Timers
from rules.engine import PlanStep, Ruleset
from rules.errors import GameError
from rules.registry import get_ruleset
from rules.seats import holder_name
from rules.table import ByStandingOrder, PlayedByAutopilot

CLAIM_ATTEMPTS = 3   # a due turn whose game is written meanwhile is looked at again this many times
FALLBACKS = 5   # listed actions tried in turn when the autopilot's pick is refused (a bug, logged)

log = logging.getLogger("pitboss.deadlines")


class Deadlines:
    """Reminders and the deadline autopilot, for timers the store has claimed."""

    def __init__(self, table: Table, acting: Acting, pictures: Pictures, timers: Timers):
        self._table, self._acting, self._pictures, self._timers = table, acting, pictures, timers
        self._following = Following(table)

    async def _autopilot_step(self, ruleset: Ruleset, game: GameRecord, state: Any, timer: Timer,
                              passive: bool) -> Any:
        """One action the autopilot plays for the player, applied only if the game is still as it was
        read (StaleButton otherwise); None when it has nothing to play. The autopilot plays only what
        the game lists as legal: a pick that is not listed, or that the game refuses, is a bug, logged,
        and the first listed action the game takes is played instead (GameError when none is)."""
        if ruleset.autopilot is None:
            return None
        seat = state.player(timer.player)
        ordered = await self._by_own_order(ruleset, game, state, timer.player)
        if ordered is not None:   # the player's own answer, left in advance, before any the autopilot picks
            question, action = ordered
            try:
                return await self._acting.apply(timer.channel, timer.player, None, game.version, action=action,
                                                told=(ByStandingOrder(seat.name if seat else timer.player, question),))
            except StaleButton:
                raise
            except GameError as exc:
                log.error("the standing order's %r was refused in %s: %s", action, ruleset.id, exc.message)
        action = ruleset.autopilot.play(state, timer.player, passive)
        if action is None:
            return None
        legal = [option.action for option in ruleset.legal_actions(state, timer.player) if option.action is not None]
        if action not in legal:
            log.error("the autopilot of %s picked %r, not a legal action now", ruleset.id, action)
        told = (PlayedByAutopilot(seat.name if seat else timer.player),)
        tries = ([action] if action in legal else []) + [a for a in legal if a != action][:FALLBACKS]
        for candidate in tries:
            try:
                return await self._acting.apply(timer.channel, timer.player, None, game.version, action=candidate,
                                                told=told)
            except StaleButton:
                raise
            except GameError as exc:
                log.error("the autopilot's %r was refused in %s: %s", candidate, ruleset.id, exc.message)
        raise GameError("the autopilot found nothing the game takes")

    async def _by_own_order(self, ruleset: Ruleset, game: GameRecord, state: Any,
                            player: str) -> tuple[str, Any] | None:
        """(question, action) a standing order of `player`'s answers now; None if none does. At their deadline
        an order answers even the question that was asked before it was set (which it leaves to the player
        while they may still answer): it is the answer they gave, where the autopilot's is a guess."""
        if ruleset.orders is None or not any(q.asked(state, player) for q in ruleset.orders.questions):
            return None
        mine = (await self._table.store.standing_orders(game.id)).get(player, {})
        return ruleset.orders.answer(state, player, mine, partial(ruleset.legal_actions, state, player)) \
            if mine else None

    async def _plan_step(self, ruleset: Ruleset, game: GameRecord, state: Any, timer: Timer,
                         plan: tuple[list, list]) -> Any:
        """The player's previewed plan played for them (each step marked as played by the table, as the
        autopilot's are); the autopilot finishes the turn if the plan leaves it unfinished."""
        seat = state.player(timer.player)
        told = (PlayedByAutopilot(seat.name if seat else timer.player),)
        steps, floating = plan
        done, events = await self._acting.play_for(timer.channel, timer.player, steps, floating, state, game.version,
                                                   told)
        return replace(done, events=tuple(events))

    async def _grace(self, ruleset: Ruleset, state: Any, timer: Timer, who: str) -> Reply | None:
        """A missed deadline excused: while the player has grace left (`/game settings grace:`), this
        deadline (once: not one a grace already extended) moves on by the table's deadline hours, said in
        the channel with a ping to the player; None when no grace is left and the deadline action comes."""
        if timer.token.startswith(GRACE_TOKEN):
            return None
        async with self._table.write():
            game = await self._table.store.active_game_tx(timer.channel)
            if game is None or game.id != timer.game_id:
                raise GameError("stale timer")
            settings = TableSettings.from_json(game.settings)
            used = settings.grace_used.get(timer.player, 0)
            if used >= settings.grace:
                return None
            current = {t.player: t for t in await self._table.store.timers_tx(game.id)}.get(timer.player)
            if current is None or current.token != timer.token:
                raise GameError("stale timer")   # they acted (or the clock restarted) since the claim
            settings = settings.graced(timer.player)
            await self._table.store.set_settings_tx(game, settings.to_json())
            personal = (await self._timers.personal_tx(game, (timer.player,))).get(timer.player)
            extended = extended_timer(settings, timer, self._table.clock(), personal)
            await self._table.store.set_timer_tx(extended)
        assert extended.deadline_due is not None
        return Reply("shown", f"{who} missed the deadline: grace {used + 1} of {settings.grace} used, new deadline "
                              f"{moment(extended.deadline_due)}; then the autopilot plays. {ruleset.prompt(state)}",
                     mentions=(timer.player,))

    async def _keep_clock(self, timer: Timer) -> None:
        """Whatever a deadline did, the game keeps a clock for everyone it waits on: a claimed timer whose
        player the game still waits on in the same turn starts again (the autopilot played nothing)."""
        async with self._table.write():
            game = await self._table.store.active_game_tx(timer.channel)
            if game is None or game.id != timer.game_id:
                return
            ruleset = get_ruleset(game.ruleset)
            state = self._table.snapshots.load(ruleset, game.state)
            waiting = () if ruleset.is_finished(state) else ruleset.acting_players(state)
            now = {t.player: t for t in await self._table.store.timers_tx(game.id)}.get(timer.player)
            stopped = now is None or (now.token == timer.token and now.deadline_due is None)
            if stopped and timer.player in waiting and not ruleset.is_computer(state, timer.player):
                await self._timers.restart_tx(ruleset, game, state, timer.player, after_deadline=True)

    async def _still_due(self, timer: Timer) -> tuple[Ruleset, GameRecord, Any]:
        """The game a claimed timer is for, if the claim still stands: the game still waits on the
        player in that turn and nothing restarted their clock since it was claimed (they acted, paused,
        or the settings changed). Otherwise a GameError: nothing is sent."""
        ruleset, game, state = await self._table.load(timer.channel)
        now = {t.player: t for t in await self._table.store.timers(game.id)}.get(timer.player)
        if game.id != timer.game_id or timer.player not in ruleset.acting_players(state) \
                or ruleset.turn_key(state) != timer.turn_key or now is None or now.token != timer.token:
            raise GameError("stale timer")  # the game moved on for this player; nothing to send
        return ruleset, game, state

    async def due(self, kind: str, timer: Timer) -> Reply:
        """What a claimed reminder or deadline sends: the reminder, or the turn the autopilot played.
        A deadline never leaves the game without a clock for its player, whatever happened."""
        if kind == "reminder":
            return await self._reminder(timer)
        try:
            return await self._deadline(timer)
        finally:
            await self._keep_clock(timer)
            await self._table.store.release_claim(timer)

    async def _reminder(self, timer: Timer) -> Reply:
        """A claimed reminder, if the game still waits on its player."""
        ruleset, game, state = await self._still_due(timer)
        if ruleset.autopilot is not None and timer.deadline_due is not None and \
                timer.deadline_due - self._table.clock() < reminder_lead(TableSettings.or_defaults(game.settings)):
            raise GameError("too late to remind")   # the autopilot plays before they could act on it
        own = (await self._timers.personal_tx(game, (timer.player,))).get(timer.player)
        if own is not None and own.notify == "digest":
            raise GameError("no reminders")   # their daily digest tells them what waits on them
        name = holder_name(state, timer.player)   # the member playing the seat now, whom the reminder pings
        deadline = f" Your deadline: {moment(timer.deadline_due)}." if timer.deadline_due is not None else ""
        return Reply("shown", f"Reminder: the game is waiting for {name}. {ruleset.prompt(state)}{deadline}",
                     mentions=(timer.player,))

    async def _deadline(self, timer: Timer) -> Reply:
        """The turn the autopilot plays at a claimed deadline, if the game still waits on its player."""
        ruleset, game, state = await self._still_due(timer)
        round_before = state.round
        seat = state.player(timer.player)
        if ruleset.autopilot is None:
            raise GameError("no autopilot")  # the game has none: the deadline only reminds
        holder = getattr(seat, "played_by", "") or seat.name   # the member whose deadline it was
        whose = f" ({seat.name}'s seat)" if holder != seat.name else ""
        if (excused := await self._grace(ruleset, state, timer, f"{holder}{whose}")) is not None:
            return excused
        settings = TableSettings.from_json(game.settings)
        passive = settings.deadline_action == "skip"
        manner = ruleset.autopilot.manner(state, timer.player, passive)
        plan, why_not = previewed_plan(ruleset, state, timer, settings)
        planned = plan is not None
        own: list = []
        done = None
        for attempt in range(CLAIM_ATTEMPTS):
            try:
                done = await self._plan_step(ruleset, game, state, timer, plan) if plan is not None else \
                    await self._autopilot_step(ruleset, game, state, timer, passive)
                break
            except StaleButton:   # written meanwhile (another process): is the claim still good?
                if attempt == CLAIM_ATTEMPTS - 1:
                    raise
                ruleset, game, state = await self._still_due(timer)
                plan = None   # the game moved on: what was previewed is not played on another state
            except GameError as refused:
                if plan is None:
                    raise
                # the game refuses the plan's first step: the autopilot plays instead (a kept plan the game
                # refused stalled every deadline after it), and the channel is told why
                plan, planned, why_not = None, False, refused.message
        if done is None:
            raise GameError("nothing to play")
        own.append((timer.player, done.events))
        state = done.state
        for _ in range(MAX_COMPUTER_ACTIONS):
            if done.ruleset.turn_key(state) != timer.turn_key:
                break   # the missed turn is played; a later one has its own deadline
            try:
                step = await self._autopilot_step(ruleset, done.game, state, timer, passive)
            except StaleButton:
                break   # the player (or someone) acted meanwhile: the rest of the turn is theirs
            except GameError:
                break   # logged: what was played is told, and the player's clock runs on (_keep_clock)
            if step is None:
                break
            done = step
            own.append((timer.player, done.events))
            state = done.state
        lines = [f"{holder}'s deadline passed{whose}: {_who_played(planned, why_not, manner, own)}"]
        done, others = await self._acting.play_computers(timer.channel, done)
        text = self._acting.reported(done, lines, own + others)
        reply = await self._pictures.with_map(done.ruleset, done.game, done.state, "applied", text, done.events)
        waiting = tuple(p for p in reply.waiting_on if not done.ruleset.is_computer(done.state, p))
        if done.ruleset.is_finished(done.state):   # the end pings everyone still seated
            reply = replace(reply, mentions=seated_people(done.ruleset, done.state), ping_words=ENDED)
        else:
            # the player it played for is pinged too: back, they read what was played in their name
            absent = () if timer.player in waiting or done.ruleset.is_computer(done.state, timer.player) \
                else (timer.player,)
            if absent:
                played_for = "the autopilot played for you at your deadline (/game catchup tells what happened)."
                said = f"{holder}, {played_for}"   # the channel's one ping; a direct message tells each their own
                reply = replace(reply, mentions=waiting + absent,
                                ping_words=f"your turn; {said}" if waiting else said,
                                own_ping_words=((timer.player, played_for), *((p, TURN) for p in waiting)))
            elif waiting:
                reply = replace(reply, mentions=waiting)
            # as a move's reply: each pinged player told how much happened since their own last action
            notes = await self._acting.catch_up_notes(done, [p for p in waiting if p != timer.player])
            reply = with_notes(reply, notes)
        # followers hear of a round the autopilot opened, or of the end, as when a player acts
        told = await self._following.news(done.ruleset, done.game.id, timer.channel, round_before, done.state)
        return with_order_owners(replace(reply, notices=reply.notices + told), others, done.state)


def _who_played(planned: bool, why_not: str, manner: str, own: list[tuple[str, tuple]]) -> str:
    """Who answered for an absent player at their deadline, as the lead line tells it: the plan they previewed,
    their own standing orders, the autopilot (in `manner`), or the orders and then the autopilot."""
    if planned:
        return "the plan they previewed is played for them."
    told = {type(e) for _player, events in own for e in events}
    by_order = ByStandingOrder in told
    instead = f"the plan they previewed cannot be played now ({why_not.rstrip('.')}), so " if why_not else ""
    if by_order and PlayedByAutopilot not in told:
        return f"{instead}their standing order answers for them."
    then = "their standing order answers, then " if by_order else ""
    return f"{instead}{then}the autopilot plays for them ({manner})."


def previewed_plan(ruleset: Ruleset, state: Any, timer: Timer,
                   settings: TableSettings) -> tuple[tuple[list, list] | None, str]:
    """The plan the player previewed in this turn and did not confirm, as (steps, floating steps) when the
    game still takes it as written; else None and why not ('' when there is none)."""
    kept = settings.previewed.get(timer.player)
    if kept is None or ruleset.plans is None:
        return None, ""
    turn_key, encoded = kept
    if turn_key != timer.turn_key:
        return None, ""
    try:
        planned: list[PlanStep] = ruleset.plans.steps(state, timer.player, ruleset.plans.decode(encoded))
    except ValueError:
        return None, ""
    except GameError as exc:
        return None, exc.message
    steps = [Command(s.name, s.options) for s in planned if s.why_not is None]
    if not steps:
        return None, "nothing of it can be played first"
    return (steps, [s for s in planned if s.why_not is not None]), ""
