"""Acting on a game: a command, a button or a plan applied step by step as one transaction each, the
computer seats' turns after it, and undo."""

from __future__ import annotations

import asyncio
import copy
import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

from bot.storage import tournaments
from bot.storage.store import ActionRecord, GameRecord, StoreBusy, VersionConflict
from bot.table.clock.settings import MAX_COMPUTER_ACTIONS
from bot.table.jobs import heavy_jobs
from bot.table.jobs.heavy_jobs import packed_log, seat_ids
from bot.table.protocol.commands import Command, declaring, parse
from bot.table.protocol.refusals import NoGame, NotThisGame, StaleButton
from bot.table.protocol.replies import (
    BUTTON_PREFIX,
    CHOICES_PREFIX,
    MAX_BUTTONS,
    MENU_PREFIX,
    MESSAGE_LIMIT,
    PRIVATE_MENU_PREFIX,
    PRIVATE_PREFIX,
    RESIGN_PREFIX,
    SEAT_PREFIX,
    TURN,
    Actor,
    Notice,
    Reply,
    Scope,
    back_button,
    buttons_for,
    clip,
    group_buttons,
    resign_button,
    seat_button,
    seat_holder_mark,
)
from bot.table.service.catchup import (
    CATCH_UP_ACTIONS,
    PING_NOTE_ACTIONS,
    PING_NOTE_FURTHER,
    noted_events,
    ping_note,
)
from bot.table.service.following import Following
from bot.table.service.league_moves import paired_by
from bot.table.service.pictures import DrawnAhead, Pictures
from bot.table.service.plans import Plans
from bot.table.service.ratings import Ratings
from bot.table.service.report import report
from bot.table.service.seat_powers import SEAT_CHANGE_COMMANDS, SeatPowers
from bot.table.service.shared import Table, own_scope, reads
from bot.table.service.standings import end_words
from bot.table.service.timers import Timers
from bot.table.trust.commitment import reveal
from bot.table.trust.export import events_of
from bot.table.trust.guards import is_person_id, plain_name
from bot.table.trust.seen import SeenAction, hides_whole_actions, is_public, logged, seen_log
from images.captions import seat_name
from rules.codec import dumps, encode_state, encode_tagged
from rules.engine import LegalAction, Logged, PlanStep, Ruleset, describe_events
from rules.errors import GameError, GameOver, NotHost, NotSeated, NotYourTurn, TableFull
from rules.registry import get_ruleset
from rules.seats import (
    addressed,
    completed,
    for_resigned,
    held_now,
    holder_name,
    is_resigned,
    seat_called,
    seat_named,
    told_of,
)
from rules.table import (
    SEAT_ACTIONS,
    ByStandingOrder,
    NoteSent,
    PlayedByAutopilot,
    Resigned,
    Rollback,
    SeatOffered,
    TablePhase,
    born_computer,
)

log = logging.getLogger("pitboss.service")
_ANYONE_ELSE = "0"   # no member's id: a seat given to it is judged for the seat alone (Acting.refusal)

WRITE_ATTEMPTS = 5
_END_WORDS_ROOM = 400   # the biggest hit and the dice's luck, told after a finished game's Next: line
_BUTTON_ID = re.compile(
    rf"^({BUTTON_PREFIX}|{MENU_PREFIX}|{CHOICES_PREFIX}|{PRIVATE_PREFIX}|{PRIVATE_MENU_PREFIX}):(\d+):(\d+):(\d+)$")
_SEAT_BUTTON_ID = re.compile(rf"^{SEAT_PREFIX}:(\d+):0:0$")
_RESIGN_BUTTON_ID = re.compile(rf"^{RESIGN_PREFIX}:(\d+):(\d+):(\d+)$")   # the game, its holder's mark, the seat
# what a running tournament's game allows only an admin, or its creator when not seated (Acting._tournament_check)
_TOURNAMENT_CHECKED = frozenset({"game end", "game resign", "game seat give", "game seat computer"})


@dataclass(frozen=True)
class Applied:
    """One stored change: the game row after it, the new state and its events."""

    ruleset: Ruleset
    game: GameRecord
    state: Any
    events: tuple
    waiting_before: tuple[str, ...] = ()  # who the game waited on before this change
    public: bool = True  # whether the channel may learn of it (bot.table.trust.seen: a GM's private ruling may not)
    ahead: DrawnAhead | None = None  # its picture, started while it was written
    round_before: int = 0  # the game's round before this change (followers hear of a new one)


@dataclass
class _Run:
    """What a run of one player's steps did so far: the last step applied, every event, why it stopped."""

    done: Applied | None = None
    events: list = field(default_factory=list)
    played: int = 0
    public: bool = False   # whether the channel may learn of any step
    waiting_before: tuple[str, ...] | None = None   # whom the game waited on before the first step
    round_before: int | None = None
    stopped: str = ""
    unplayed: list[str] = field(default_factory=list)   # floating steps that never found their point

    def took(self, done: Applied) -> None:
        """Count one more applied step."""
        self.waiting_before = done.waiting_before if self.waiting_before is None else self.waiting_before
        self.round_before = done.round_before if self.round_before is None else self.round_before
        self.done = done
        self.events.extend(done.events)
        self.public = self.public or done.public
        self.played += 1


class Acting:
    """Everything that changes a running game, one logged action at a time."""

    def __init__(self, table: Table, timers: Timers, pictures: Pictures):
        self._table, self._timers, self._pictures = table, timers, pictures
        self._following = Following(table)
        self._seat_powers = SeatPowers(table)
        self._ratings = Ratings(table)
        self.plans = Plans(table, self.run_steps)

    async def act(self, channel: str, actor: Actor, command: Command,
                  expected_version: int | None = None) -> Reply:
        options = dict(_as_acted(actor, command).options)
        if command.name == "game seat give" and not is_person_id(str(options.get("to", ""))):
            raise GameError("to: name a member of this server (the computer takes a seat with /game seat computer).")
        await self._table_checks(channel, actor, Command(command.name, options))
        if command.name == "game resign" and options.pop("confirm", "") != "yes":   # final: asked first
            return await self._resign_asked(channel, actor, Command(command.name, options))
        # Decided from the command alone (no read on every move); _plan fits it to the channel's game. A plan is
        # one of its game's own commands (TurnPlans.is_plan): only the games declaring the command are asked.
        if any(r.plans is not None and r.plans.is_plan(command.name, options) for r in declaring(command.name)):
            return await self.plans.plan(channel, actor, Command(command.name, options))
        try:
            return await self.run_steps(channel, actor, [Command(command.name, options)], expected_version)
        except GameError as refused:
            raise with_rules_topic(refused, await self._table.store.active_game(channel), command.name) from None

    async def _table_checks(self, channel: str, actor: Actor, command: Command) -> None:
        """Refuse (a GameError) what the table itself does not allow now before the rules are asked: a seat
        change its log forbids (SeatPowers), an act on a running tournament's game (`_tournament_check`)."""
        if command.name in SEAT_CHANGE_COMMANDS:
            await self._seat_powers.check(channel, actor, command)
        if command.name in _TOURNAMENT_CHECKED:
            await self._tournament_check(channel, actor, command)
        if command.name in ("game join", "game add-ai"):
            await self._league_seats(channel, actor)

    async def _league_seats(self, channel: str, actor: Actor) -> None:
        """Refuse a seat in a league's game to anyone it did not pair: its lobby waits for the members it seats
        (a crash may leave it open a while), never for a passer-by or a computer."""
        game = await self._table.store.active_game(channel)
        if game is None or (league := await paired_by(self._table.store, game.id)) is None:
            return
        if actor.id not in league.members:
            raise GameError(f"This is a game of {league}: it seats the members the {league.kind} paired here, "
                            f"no one else.")

    async def _tried(self, channel: str, actor: Actor, command: Command) -> tuple[GameRecord, Any, Any, tuple]:
        """`command` tried on the channel's game by the rules, never stored: the game, its state, the action and
        the events it would bring (a GameError when the rules refuse it)."""
        ruleset, game, state = await self._table.load(channel)
        command = NotThisGame.fitted(ruleset, command)
        action = completed(state, actor.id, ruleset.command_to_action(command.name, command.options))
        _after, events = ruleset.apply(state, actor.id, action)
        return game, state, action, events

    async def refusal(self, channel: str, actor: Actor, command: Command) -> GameError | None:
        """Why a seat command (or a seat taken in the lobby) would be refused now, tried as `act` tries it but
        never stored; None when it would be taken: what autocomplete offers a seat, or a seat's vehicle, by. A
        seat given is tried as given to a member not in the game (whom it goes to is asked apart)."""
        options = _as_acted(actor, command).options
        if command.name == "game seat give":
            options = {"to": _ANYONE_ELSE, **options}
        tried = Command(command.name, options)
        try:
            await self._table_checks(channel, actor, tried)
            await self._tried(channel, actor, tried)
        except GameError as refused:
            return refused
        return None

    async def _resign_asked(self, channel: str, actor: Actor, command: Command) -> Reply:
        """An unconfirmed /game resign changes nothing: refused as the resignation itself would be, else it says
        privately what it would do and how to confirm it (a button, or the typed confirm:yes)."""
        try:
            game, state, action, events = await self._tried(channel, actor, command)
        except GameError as refused:
            raise with_rules_topic(refused, await self._table.store.active_game(channel), command.name) from None
        seat = seat_named(state, actor.id, action.seat, action.by_admin)
        named = "" if seat.id == actor.id else f" player:{seat.name}" if " " not in seat.name \
            else f' "player:{seat.name}"'
        typed = f"/game resign confirm:yes{named}"
        left = next((e.left for e in events if isinstance(e, Resigned)), "")
        whose = "your seat" if not named else f"{seat.name}'s seat"
        text = (f"Resign {whose} for good? {left + ' ' if left else ''}A resignation is final: neither /undo nor "
                f"a rollback takes it back. Nothing has changed yet: press Resign for good (only you see it), or "
                f"send {typed}.")
        button = resign_button(game.id, state.players.index(seat), seat.id, typed)
        return Reply("shown", text, ephemeral=True, buttons=(button,), game_id=game.id, version=game.version)

    async def press(self, channel: str, actor: Actor, custom_id: str) -> Reply:
        if (offered := _SEAT_BUTTON_ID.match(custom_id)) is not None:   # "Take the seat", for its member
            game = await self._table.store.active_game(channel)
            if game is None or game.id != int(offered.group(1)):
                raise StaleButton("That seat belongs to a game that is no longer running here.")
            return await self.act(channel, actor, Command("game seat take", {}))
        if (resigning := _RESIGN_BUTTON_ID.match(custom_id)) is not None:   # "Resign for good", privately
            ruleset, game, state = await self._table.load(channel)
            index = int(resigning.group(3))
            if game.id != int(resigning.group(1)) or index >= len(state.players):
                raise StaleButton("That resignation belongs to a game that is no longer running here.")
            seat = state.players[index]
            if seat_holder_mark(seat.id) != int(resigning.group(2)):   # a resignation is final: asked again
                raise StaleButton("That confirmation was drawn for another holder of the seat (it changed hands, or "
                                  "the bot was updated since); nothing was changed. Ask again with /game resign.")
            named = {} if seat.id == actor.id else {"player": seat.id}
            return await self.act(channel, actor, Command("game resign", {**named, "confirm": "yes"}))
        match = _BUTTON_ID.match(custom_id)
        if not match:
            raise GameError("That button is not one of mine.")
        kind = match.group(1)
        game_id, drawn_for, index = (int(g) for g in match.groups()[1:])
        ruleset, game, state = await self._table.load(channel)
        if game.id != game_id:
            raise StaleButton("That button belongs to a game that is no longer running here.")
        if kind in (BUTTON_PREFIX, MENU_PREFIX) and game.version != drawn_for:
            raise StaleButton("That button is out of date: the game has moved on. "
                              "Use the buttons on the latest message.")
        waiting = ruleset.acting_players(state)
        if actor.id not in waiting:
            if state.player(actor.id) is None:
                raise GameError("You are not playing in this game; you can watch, but not press.")
            # not "X's turn": in a step played together (secret speeds) it is nobody's turn, and the
            # presser has played their part; the prompt says what the table waits for
            names = ", ".join(addressed(state.player(p)) for p in waiting) or "nobody"
            waits = f"The table waits for {names}, not for you. Next: {ruleset.prompt(state)}"
            own = _own_words(ruleset, state, actor.id) if kind == CHOICES_PREFIX else ""
            if own:   # "Your move (private)" pressed off turn still shows what is one's own (a hand)
                return Reply("shown", f"{waits}\n{own}", ephemeral=True, game_id=game.id, version=game.version)
            raise GameError(waits)
        legal = ruleset.legal_actions(state, actor.id)
        # a public move button needs no private scope: no read on the most common press
        own_last = 0 if kind == BUTTON_PREFIX else await self._table.store.last_seq_by(game.id, actor.id)
        mine = own_scope(ruleset, state, own_last, legal)
        if kind in (PRIVATE_PREFIX, PRIVATE_MENU_PREFIX) and drawn_for != mine.value:
            raise StaleButton("Those choices are out of date: your turn has moved on. Open your move again.")
        if kind == CHOICES_PREFIX:  # only opens a menu: any version of the public message will do
            return self._private_menu(ruleset, game, state, actor, own_last, legal)
        if kind == PRIVATE_MENU_PREFIX and index == len(legal):   # a group's menu's way back, in place
            return replace(self._private_menu(ruleset, game, state, actor, own_last, legal), in_place=True)
        if index >= len(legal):
            raise StaleButton("That button no longer matches the game.")
        if kind == PRIVATE_MENU_PREFIX:   # opened from the player's private menu: shown in its place
            return replace(self._group_menu(legal, game, index, mine, back=True), in_place=True)
        if kind == MENU_PREFIX:
            return self._group_menu(legal, game, index, mine)
        chosen = legal[index]
        if chosen.action is not None:
            reply = await self.run_steps(channel, actor, [chosen.action], expected_version=game.version)
        else:
            reply = await self.act(channel, actor, parse(chosen.command), expected_version=game.version)
        if kind in (PRIVATE_PREFIX, PRIVATE_MENU_PREFIX) and reply.outcome == "applied" and not reply.ephemeral:
            ruleset, game, state = await self._table.load(channel, any_status=True)
            own_last = await self._table.store.last_seq_by(game.id, actor.id)
            reply = replace(reply, panel=self._private_menu(ruleset, game, state, actor, own_last))
        return reply

    async def _tournament_check(self, channel: str, actor: Actor, command: Command) -> None:
        """A running tournament's game is played to its end by those seated at it: ended with no result it would
        tie, and a tie sends the better seed (its host) on, so its host could end a game they were losing and go
        through; nor does its host resign, give away or give the computer an opponent's seat, gone past a deadline
        (the autopilot plays it then, as the tournament promises). An admin of the tournament's server, or its
        creator when not seated at it, may still; a player concedes with /game resign."""
        named = str(command.options.get("player") or "")
        if command.name != "game end" and not named:
            return   # one's own seat
        game = await self._table.store.active_game(channel)
        if game is None:
            return
        record = await tournaments.of_game(self._table.store, game.id)
        if record is None or record.status != "running":
            return
        state = self._table.snapshots.load(get_ruleset(game.ruleset), game.state)
        if command.name != "game end" and ((seat := seat_called(state, named)) is None or seat.id == actor.id):
            return   # one's own seat, or none (the rules say so)
        seated = state.player(actor.id) is not None
        if (actor.is_admin and game.guild == record.guild) or (actor.id == record.creator and not seated):
            return
        if command.name == "game end":
            raise GameError(f"This is a game of tournament {record.id}: it is played to its end. /game resign "
                            f"concedes it; an admin, or the tournament's creator when not playing in it, may end it.")
        raise GameError(f"This is a game of tournament {record.id}: a seat is its player's (the autopilot plays it "
                        f"at a deadline). An admin, or the tournament's creator when not playing in it, may act on "
                        f"another player's seat.")

    @staticmethod
    def _private_menu(ruleset: Ruleset, game: GameRecord, state: Any, actor: Actor, own_last: int,
                      legal: tuple[LegalAction, ...] | None = None) -> Reply:
        """A player's own choices now (`legal`, when already worked out), privately: what "Your move
        (private)" opens; or a closing word when the game does not wait on them."""
        own = _own_words(ruleset, state, actor.id)
        if actor.id not in ruleset.acting_players(state) or ruleset.is_finished(state):
            return Reply("shown", f"Done. {own}" if own else "Done: the channel's message shows your move.",
                         ephemeral=True, game_id=game.id, version=game.version)
        legal = ruleset.legal_actions(state, actor.id) if legal is None else legal
        scope = own_scope(ruleset, state, own_last, legal)
        return Reply("shown", "\n".join(filter(None, (f"Your move, {actor.name} (only you see this): "
                                                     f"{ruleset.prompt(state)}", own))),
                     ephemeral=True, buttons=buttons_for(legal, game.id, scope),
                     game_id=game.id, version=game.version)

    async def run_steps(self, channel: str, actor: Actor, steps: list, expected_version: int | None = None,
                        summarize: Callable[[tuple], str] | None = None, floating: Sequence[PlanStep] = (),
                        state: Any = None) -> Reply:
        """Apply steps in order (commands, or action values the game offered) while the game still
        waits on `actor`; a step the game refuses (a decision it needs first) ends the run and says why.
        A floating step (a plan's shot) is played at the first point where it can be, from `state` on."""
        try:
            run = await self._played_steps(channel, actor, steps, expected_version, floating, state)
        except _ResignedSeat as exc:
            if answered := await self._answered_for(channel, exc):
                return answered
            raise
        return await self._reply_to_run(channel, actor, run, summarize)

    async def play_for(self, channel: str, player: str, steps: list, floating: Sequence[PlanStep], state: Any,
                       expected_version: int, told: tuple) -> tuple[Applied, list]:
        """A player's plan played by the table in their name (at their deadline), each step logged with
        `told` first: the last step applied and every event, as run_steps plays it."""
        run = await self._played_steps(channel, Actor(player, player), steps, expected_version, floating, state,
                                       told=told)
        assert run.done is not None
        return run.done, run.events

    async def _played_steps(self, channel: str, actor: Actor, steps: list, expected_version: int | None,
                            floating: Sequence[PlanStep], state: Any, told: tuple = ()) -> _Run:
        """The loop of run_steps: each step applied in its own transaction until the steps run out, the
        turn passes or the game refuses one (the first step's refusal is raised: nothing was played).
        With `told`, the table plays the steps for the player (not they themselves)."""
        run = _Run()
        queue, pending = list(steps), list(floating)
        while queue or pending:
            step = _ready(pending, run.done.state if run.done is not None else state)
            if step is None and not queue:
                break
            step = step or queue.pop(0)
            if run.done is not None and actor.id not in (waiting := run.done.ruleset.acting_players(run.done.state)):
                # not "the turn passed": another's answer (a ram's outcome) may hand it back to the plan's player
                names = ", ".join(addressed(run.done.state.player(p)) for p in waiting) or "nobody"
                run.stopped = f"The plan ended after step {run.played}: the game waits on {names}."
                break
            try:
                version = expected_version if run.played == 0 else None
                last_step = not queue and not pending and not told   # the deadline draws its own picture
                by_person = not told
                done = await (self.apply(channel, actor.id, step, version, last_step=last_step, told=told,
                                         by_person=by_person)
                              if isinstance(step, Command)
                              else self.apply(channel, actor.id, None, version, action=step, last_step=last_step,
                                              told=told, by_person=by_person))
            except GameError as exc:
                if run.done is None:
                    raise
                run.stopped = f"The plan paused before step {run.played + 1}: {exc.message}"
                break
            run.took(done)
        if run.done is None:   # only a floating step, never ready
            raise GameError(f"/{pending[0].name} cannot be played now: {_why_not(pending[0], state).rstrip('.')}.")
        stopped_first = "the plan stopped first"
        run.unplayed = [f"/{s.name} was not played: {stopped_first if run.stopped else _why_not(s, run.done.state)}"
                        for s in pending]
        return run

    async def _reply_to_run(self, channel: str, actor: Actor, run: _Run,
                            summarize: Callable[[tuple], str] | None) -> Reply:
        """What the table says once `actor`'s steps are played and the computers after them: privately
        when the channel may learn of none of it, else the picture with every step, the players it now
        waits on pinged with what happened since their last action, a seat's holder or a member offered
        a seat told, followers told of a new round or the end."""
        done, events = run.done, run.events
        assert done is not None
        ahead = done.ahead
        done, others = await self.play_computers(channel, done)
        if ahead is not None and (others or not run.public):   # the picture is of a later state, or none
            ahead.drop()
            ahead = None
        changed = held_now(tuple(events), done.state)   # a seat change says who holds the seat now, first
        own = changed + [e.describe() for e in events]
        if not run.public and not others:
            return self._told_privately(done, actor, own, await self._table.store.last_seq_by(done.game.id, actor.id))
        if (sent := [e for e in events if isinstance(e, NoteSent)]) and not others:
            if ahead is not None:   # the channel gets one line, not the table
                ahead.drop()
            return self._note_sent(done, sent)
        if summarize is not None and (summary := summarize(tuple(events))):
            own.append(summary)
        if run.stopped:
            own.append(run.stopped)
        own += [line.rstrip(".") + "." for line in run.unplayed]
        newly = [p for p in done.ruleset.acting_players(done.state) if p not in (run.waiting_before or ())
                 and p != actor.id and not done.ruleset.is_computer(done.state, p)]
        offered = [e.to for e in events if isinstance(e, SeatOffered)]
        holders = [p for p in told_of(tuple(events), done.state) if p != actor.id]   # a power over their seat
        # the pinged players' notes are read while the picture is drawn
        mapped = self._pictures.with_map(done.ruleset, done.game, done.state, "applied",
                                         self.reported(done, own, others), done.events, ahead)
        reply, notes = await asyncio.gather(mapped, self.catch_up_notes(done, newly)) if newly else \
            (await mapped, "")
        if done.ruleset.is_finished(done.state):   # the end: the biggest hit and the dice's luck, said once it is over
            _game, log = await self._table.store.game_and_actions(done.game.id)
            if luck := await asyncio.to_thread(end_words, log, done.ruleset, done.state.players):
                reply = replace(reply, text=clip(f"{reply.text}\n{luck}", MESSAGE_LIMIT),
                                next_line=f"{reply.next_line}\n{luck}" if reply.next_line else reply.next_line)
        if changed:
            reply = replace(reply, own_message=True)
        if not done.ruleset.is_finished(done.state) and any(getattr(p, "offered_to", "") for p in done.state.players):
            # a seat offered stays offered on every turn message until taken or withdrawn: the next move's edit
            # (or its retiring of the offer's message) must not take "Take the seat" away
            reply = replace(reply, buttons=reply.buttons + (seat_button(done.game.id),))
        # followers hear of a new round, or of the end
        if told := await self._following.news(done.ruleset, done.game.id, channel, run.round_before or 0, done.state):
            reply = replace(reply, notices=reply.notices + told)
        if done.ruleset.is_finished(done.state):   # the end pings every person still seated (and a seat's holder
            # told of what was done to it), but not who ended it
            pinged = tuple(dict.fromkeys(holders + [p for p in seated_people(done.ruleset, done.state)
                                                    if p != actor.id]))
            return replace(reply, mentions=pinged, ping_words=ENDED, seat_news=tuple(holders)) if pinged else reply
        if offered or holders:   # the member offered a seat is told, and takes it with a press; a seat's
            # holder is told of what someone else did to it; whom the game now waits on, of their turn
            return with_order_owners(with_notes(_seat_pings(reply, offered, holders, newly, done.state), notes),
                                     others, done.state, actor.id)
        if not newly:
            return with_order_owners(reply, others, done.state, actor.id)
        return with_order_owners(with_notes(replace(reply, mentions=tuple(newly)), notes), others, done.state,
                                 actor.id)

    async def catch_up_notes(self, done: Applied, pinged: list[str]) -> str:
        """For each player the reply pings: how much happened since their last action (the channel's
        view of the log), pointing to /game catchup."""
        if not pinged:
            return ""
        name = partial(seat_name, done.state)
        events = noted_events(lambda seen_action: events_of(done.ruleset, seen_action.record))
        notes: list[str | None] = []
        # the latest few first (a note reads as many records as it decodes); further back if need be
        for limit in (PING_NOTE_ACTIONS, PING_NOTE_FURTHER, CATCH_UP_ACTIONS):
            records = await self._table.store.recent_actions(done.game.id, limit)
            seen = seen_log(done.ruleset, done.state, records, None)   # counted only: a stretch of the log will do
            whole = limit == CATCH_UP_ACTIONS or len(records) < limit
            notes = [ping_note(seen, p, holder_name(done.state, p), name, events, done.state.player(p), whole)
                     for p in pinged]
            if None not in notes:
                break
        return "\n".join(note for note in notes if note)

    async def apply(self, channel: str, actor_id: str, command: Command | None,
                    expected_version: int | None = None, action: Any = None, last_step: bool = False,
                    told: tuple = (), by_person: bool = False) -> Applied:
        """Apply one command (or an action value the game itself offered) as one transaction,
        retrying only when nothing was written. The `last_step` of a command, when no computer's move
        follows, has its picture drawn while it is written. `told` are table events logged before the
        action's own (an answer given by standing order says so). `by_person`: the actor themselves acts
        (not the table for them), which a resigned seat's player may no longer do in the game."""
        for attempt in range(WRITE_ATTEMPTS):
            ahead: DrawnAhead | None = None
            try:
                async with self._table.write():
                    game, voting, followed, own = await self._table.store.active_game_for_move_tx(channel, actor_id)
                    if game is None:
                        raise NoGame()
                    self._table.knows_settings(game.guild, actor_id, own)   # their clock restarts with them
                    if expected_version is not None and game.version != expected_version:
                        raise StaleButton("That button is out of date: the game has moved on. "
                                          "Use the buttons on the latest message.")
                    ruleset = get_ruleset(game.ruleset)
                    if command is not None:
                        command = NotThisGame.fitted(ruleset, command)
                        action = ruleset.command_to_action(command.name, command.options)
                    state = self._table.snapshots.load(ruleset, game.state)
                    action = completed(state, actor_id, action)
                    if by_person and is_resigned(state, actor_id) and type(action) in ruleset.handlers:
                        raise _ResignedSeat("Your seat was resigned from this game: the table answers what it "
                                            "still asks of it.")
                    new_state, events = ruleset.apply(state, actor_id, action)
                    events = told + events
                    public = is_public(ruleset, new_state, actor_id, action)
                    if last_step and public and not _plays_itself(ruleset, new_state):
                        ahead = self._pictures.draw_ahead(ruleset, game, new_state, events)
                    status = "finished" if ruleset.is_finished(new_state) else "active"
                    snapshot = encode_state(new_state)
                    game = await self._table.store.append_action_tx(
                        game, actor_id, dumps(encode_tagged(action)),
                        dumps([encode_tagged(e) for e in events]), snapshot, status)
                    self._table.snapshots.remember(ruleset, snapshot, new_state)
                    seats_changed = seat_ids(new_state) != seat_ids(state)
                    if seats_changed:   # a seat's bank and grace stay the seat's
                        game = await self._timers.seats_renamed_tx(game, state, new_state)
                    before, after = self._turn_of(ruleset, state), self._turn_of(ruleset, new_state)
                    if before != after:
                        game = await self._timers.sync_tx(ruleset, game, new_state, acted=actor_id)
                    elif actor_id in after[0] and public and not ruleset.is_computer(new_state, actor_id) \
                            and not any(isinstance(e, NoteSent) for e in events):
                        # they acted: their clock starts anew; not for an action the channel may not learn
                        # of (a GM's private ruling), whose time the public clock would show, nor for a
                        # note (a GM's /gm tell), which takes no turn
                        game = await self._timers.restart_tx(ruleset, game, new_state, actor_id)
                    if seats_changed:   # a seat taken, or one that changed hands
                        await self._table.store.add_seats_tx(game.id, seat_ids(new_state))
                self._table.recent.add(game.id, game.version, events, public)   # committed: the trails' window moves on
                known = reads()   # what the rest of the command would read again
                known.game, known.voting, known.followed = game, voting, followed
                if state.phase == TablePhase.LOBBY:   # a join, a start, an end in a lobby, by whatever made it
                    self._table.lobby_changed(game.guild)
                if game.status == "finished":   # the end: the server's rating takes the game in, once
                    await self._ratings.game_ended(game.guild, ahead.drawn if ahead is not None else None)
                return Applied(ruleset, game, new_state, events, before[0], public, ahead, state.round)
            except (VersionConflict, StoreBusy):
                if ahead is not None:
                    ahead.drop()
                if attempt == WRITE_ATTEMPTS - 1:
                    raise StoreBusy() from None
                await asyncio.sleep(0.05 * (attempt + 1))
            except BaseException:
                if ahead is not None:
                    ahead.drop()
                raise
        raise AssertionError("unreachable")

    async def play_computers(self, channel: str, done: Applied) -> tuple[Applied, list[tuple[str, tuple]]]:
        """Let every waiting computer seat play, answer what a resigned seat is still asked, and play a
        person's move that is no choice (the game's forced action), each through the same path as a person's;
        the (player, events) in order, a forced or resigned seat's move's words saying so."""
        played: list[tuple[str, tuple]] = []
        standing: dict[str, dict[str, str]] | None = None   # the game's standing orders, read once a question comes
        for _ in range(MAX_COMPUTER_ACTIONS):
            if done.ruleset.is_finished(done.state):
                break
            player, action, why = _next_automatic(done.ruleset, done.state)
            told: tuple = ()
            if player is None and _asked(done.ruleset, done.state):
                if standing is None:
                    standing = await self._table.store.standing_orders(done.game.id)
                player, question, action = _by_order(done.ruleset, done.state, standing)
                told = (ByStandingOrder(seat_name(done.state, player), question),) if player is not None else ()
            if player is None:
                break
            try:
                done = await self.apply(channel, player, None, action=action, told=told)
            except GameError as exc:  # a computer or a forced move refused is a bug: stop, keep the game
                log.error("%s %s was refused %r: %s", why or "computer", player, action, exc.message)
                break
            except StoreBusy:
                # What was played is stored, the person's own move first: their reply says so, and the next
                # scheduler round plays on (a computer's turn has no deadline to do it).
                log.warning("the computers of channel %s stopped: the database stayed busy; the scheduler plays on",
                            channel)
                self._table.stalled.add(channel)
                break
            seat = done.state.player(player)
            told = (_Said(f"{seat.name if seat else player} {_WHY[why]}"),) if why else ()
            played.append((player, told + done.events))
        else:   # the bound, reached by computer seats alone that play on with no end in sight
            if not done.ruleset.is_finished(done.state):   # the reply says so (reported); no restart plays on
                log.warning("the computers of channel %s played %d actions without an end", channel, len(played))
                await self._table.mark_bounded(done.game)
        return done, played

    async def _answered_for(self, channel: str, refused: GameError) -> Reply | None:
        """A game stored waiting on a resigned seat (before the table answered for such seats) moves on: the
        table answers now, in place of the resigned player's own answer; None when it has nothing to answer."""
        return await self._played_on(channel, [refused.message])

    async def played_on(self, channel: str) -> Reply:
        """The scheduler's turn at a game whose computer seats stopped half-way (Table.stalled): they play on
        now; refused (nothing to post) when the game no longer waits on them."""
        reply = await self._played_on(channel, ["The computer seats play on."])
        if reply is None:
            raise GameError("The game waits on no computer seat.")
        return reply

    async def _played_on(self, channel: str, lines: list[str]) -> Reply | None:
        """What the computers and the table play now in the channel's game, told after `lines`: the picture,
        the people it then waits on pinged; None when nothing was played."""
        ruleset, game, state = await self._table.load(channel)
        done, others = await self.play_computers(channel, Applied(ruleset, game, state, ()))
        if not others:
            return None
        reply = await self._pictures.with_map(done.ruleset, done.game, done.state, "applied",
                                              self.reported(done, lines, others), done.events)
        waiting = tuple(p for p in reply.waiting_on if not done.ruleset.is_computer(done.state, p))
        return with_order_owners(replace(reply, mentions=waiting) if waiting else reply, others, done.state)

    async def undo(self, channel: str, actor: Actor) -> Reply:
        """Take back the actor's own last action, if nothing was rolled or revealed since. The state
        before it is rebuilt off the loop and outside any write; the write then checks that the game
        has not moved on meanwhile. Judged on the log as the actor may know it: an action they may not
        learn of (a GM's private ruling) changes no word of a refusal (bot.table.trust.seen)."""
        game = await self._table.store.active_game(channel)
        if game is None:
            raise NoGame()
        game, records = await self._table.store.game_and_actions(game.id)
        ruleset = get_ruleset(game.ruleset)
        if ruleset.undo_blocker is None:
            raise GameError(f"{ruleset.title} takes no action back.")
        if not records:
            raise GameError("There is nothing to undo.")
        now = ruleset.load_state(game.state)
        if now.player(actor.id) is None:
            raise GameError("You are not playing in this game: there is nothing of yours to undo.")
        known = await _known_to(ruleset, now, records, actor.id)
        if not known or known[-1].record.actor != actor.id:
            raise GameError("You can only undo your own last action, and someone has acted since.")
        last = known[-1].record
        if isinstance(logged(ruleset, [last])[0].action, Rollback):
            raise GameError("A rollback the table voted for is not taken back by /undo; /game rollback to:N "
                            "opens another vote.")
        if isinstance(logged(ruleset, [last])[0].action, SEAT_ACTIONS):
            raise GameError("A seat's change is not taken back by /undo: a resignation is final, and /game seat "
                            "give, /game seat take and /game seat computer change a seat again.")
        if ruleset.is_computer(now, actor.id):   # its last action was the computer's (its giving was refused above)
            raise GameError("The computer plays your seat now: its moves are not yours to undo. Take the seat "
                            "back with /game seat take, then play on.")
        if _played_for_the_seat(ruleset, last, now.player(actor.id).name):
            raise GameError("That was played for your seat (by the autopilot at your deadline, or by your standing "
                            "orders), not by you: /undo takes back only your own action.")
        mine = len(records) - 1 if last is records[-1] else records.index(last)
        previous = ruleset.load_state(await self._table.heavy.run(heavy_jobs.rebuilt_snapshot, ruleset.id, game,
                                                                  await packed_log(records[:mine]), items=mine))
        after = now if last is records[-1] else ruleset.load_state(await self._table.heavy.run(
            heavy_jobs.rebuilt_snapshot, ruleset.id, game, await packed_log(records[:mine + 1]), items=mine + 1))
        # what follows their action unseen was taken by someone _unseen_next names: "the game moved on" is for
        # an action no legal list offers
        blocker = ruleset.undo_blocker(previous, after) or _unseen_next(ruleset, after, actor.id) or \
            ("the game moved on" if last is not records[-1] else None)
        if blocker:
            raise GameError(f"That cannot be undone: {blocker}.")
        if previous.phase == TablePhase.LOBBY and (league := await paired_by(self._table.store, game.id)):
            raise GameError(f"That cannot be undone: the {league.kind} seated this game and started it, so /undo "
                            f"takes back nothing before its start.")
        public = is_public(ruleset, previous, last.actor, logged(ruleset, [last])[0].action)
        # a private ruling or a note never moved the clock (apply): its undo does not either, or the channel's
        # clock would tell of it, and rule-then-undo would put a deadline off for ever
        quiet = not public or any(isinstance(e, NoteSent) for e in events_of(ruleset, last))
        try:
            async with self._table.write():
                game = await self._table.store.undo_last_tx(game, last.seq, encode_state(previous))
                # the game waits on the undoer again (a counter taken back): their clock runs anew
                await self._timers.sync_tx(ruleset, game, previous, acted=None if quiet else actor.id, moved=False)
        except VersionConflict:
            raise GameError("The game moved on while I was undoing; nothing was undone.") from None
        if previous.phase == TablePhase.LOBBY:   # a join taken back frees a seat of an open table
            self._table.lobby_changed(game.guild)
        undone = describe_events(events_of(ruleset, last))
        if not public:
            return Reply("applied", clip(f"Undone: {undone or 'the last action'} Only you see this.", MESSAGE_LIMIT),
                         ephemeral=True, game_id=game.id, version=game.version)
        return await self._pictures.with_map(ruleset, game, previous, "applied",
                                             f"Undone: {undone or 'the last action'}")

    @staticmethod
    def reported(done: Applied, own: list[str], others: list) -> str:
        """The reply's words: the actor's own events whole, the other seats' turns in the room left, and
        the revealed seed at the end of a game (and room for the end's words that follow the Next: line)."""
        if done.ruleset.is_finished(done.state):
            ending = reveal(done.game.seed)
            room = MESSAGE_LIMIT - 300 - len(ending) - 1 - _END_WORDS_ROOM
        elif len(others) >= MAX_COMPUTER_ACTIONS:   # play_computers stopped at its bound
            ending = _unending(len(others))
            room = MESSAGE_LIMIT - 300 - len(ending) - 1
        else:
            ending, room = "", MESSAGE_LIMIT - 300
        text = report(done.ruleset, done.state, own, others, room)
        return f"{text}\n{ending}" if ending else text

    @staticmethod
    def _told_privately(done: Applied, actor: Actor, own: list[str], own_last: int) -> Reply:
        """An action the channel may not learn of (a GM's private ruling), told to its actor alone with
        their next choices; the channel's message stays as it was."""
        ruleset, state = done.ruleset, done.state
        legal = ruleset.legal_actions(state, actor.id) if actor.id in ruleset.acting_players(state) else ()
        text = "\n".join(own + [f"Only you see this. Next: {ruleset.prompt(state)}"])
        scope = own_scope(ruleset, state, own_last, legal)
        return Reply("applied", clip(text, MESSAGE_LIMIT), ephemeral=True,
                     buttons=buttons_for(legal, done.game.id, scope),
                     game_id=done.game.id, version=done.game.version)

    @staticmethod
    def _note_sent(done: Applied, notes: list[NoteSent]) -> Reply:
        """A private note sent (a GM's /gm tell): its sender is answered privately; the channel gets one line
        saying who was told something, pinging them, and they read it with /notes. No turn passes."""
        names = ", ".join(n.name for n in notes)
        said = " ".join(n.describe() for n in notes)
        told = Reply("shown", f"{said} /notes reads it, privately.", mentions=tuple(n.to for n in notes),
                     ping_words="a private note for you: /notes reads it.", game_id=done.game.id)
        return Reply("applied", f"Sent to {names} privately: only they and you read it (/notes). The channel "
                                f"hears only that you told them something.", ephemeral=True,
                     game_id=done.game.id, version=done.game.version, notices=(Notice(done.game.channel, told),))

    @staticmethod
    def _group_menu(legal, game: GameRecord, first: int, scope: Scope, back: bool = False) -> Reply:
        """A private menu of the legal actions of one group (as many as Discord shows as buttons, and with
        `back` a last one back to all the player's choices)."""
        buttons, total = group_buttons(legal, game.id, scope, first, MAX_BUTTONS - 1 if back else MAX_BUTTONS)
        group = legal[first].group
        text = f"{group}: {total} ways. Pick one."
        if total > len(buttons):
            command = " ".join(legal[first].command.split()[:2])  # the command and its first option
            text += (f" The buttons show the first {len(buttons)}; for the others type {command} with the "
                     f"other options (autocomplete lists only legal values).")
        if back:
            buttons += (back_button(legal, game.id, scope),)
        return Reply("shown", text, ephemeral=True, buttons=buttons, game_id=game.id, version=game.version)

    @staticmethod
    def _turn_of(ruleset: Ruleset, state: Any) -> tuple:
        """Who the game waits on (and whether the computer plays each), in which turn: the timer only changes
        when this does."""
        waiting = ruleset.acting_players(state)
        return waiting, tuple(ruleset.is_computer(state, p) for p in waiting), ruleset.turn_key(state), \
            ruleset.is_finished(state)


ENDED = "the game has ended."   # what the final message's ping says


def _own_words(ruleset: Ruleset, state: Any, player: str) -> str:
    """What `player` alone reads beside their choices (a hand, a face-down counter); "" when the game has none."""
    return ruleset.own_words(state, player) if ruleset.own_words is not None else ""


def with_notes(reply: Reply, notes: str) -> Reply:
    """`reply` with the pinged players' catch-up notes (Acting.catch_up_notes) under its words and its next line."""
    if not notes:
        return reply
    return replace(reply, text=clip(f"{reply.text}\n{notes}", MESSAGE_LIMIT),
                   next_line=f"{reply.next_line}\n{notes}" if reply.next_line else reply.next_line)


def _seat_pings(reply: Reply, offered: list[str], holders: list[str], newly: list[str], state: Any) -> Reply:
    """`reply` pinging the members `offered` a seat, the `holders` of seats someone else acted on (each told in
    the channel's words), and the players `newly` waited on besides them (their turn)."""
    told = list(dict.fromkeys(offered + holders))
    words = "someone acted on your seat (below)." if not offered else \
        "a seat is offered to you." if not holders else "a seat changes hands (below)."
    turns = [p for p in newly if p not in told]
    reply = replace(reply, mentions=tuple(told + turns), seat_news=tuple(told))
    if not turns:
        return replace(reply, ping_words=words)
    names = ", ".join(holder_name(state, p) for p in turns)
    return replace(reply, ping_words=f"{words} {names}: {TURN}",
                   own_ping_words=(*((p, words) for p in told), *((p, TURN) for p in turns)))


def _as_acted(actor: Actor, command: Command) -> Command:
    """`command` with what the service adds from the actor: whether a server admin acts (on a seat, an end, a
    takeover), and the name a seat is taken under."""
    options = dict(command.options)
    if command.name in ("game end", "game takeover", "game resign", "game seat give", "game seat computer"):
        options["by_admin"] = actor.is_admin
    if command.name in ("game join", "game seat take"):
        options["name"] = plain_name(actor.name)
    return Command(command.name, options)


def seated_people(ruleset: Ruleset, state: Any) -> tuple[str, ...]:
    """The people holding a seat (not one made for the computer, not a resigned one; a person's seat the computer
    plays for them is still theirs): those the end of a game pings."""
    return tuple(p.id for p in state.players if not born_computer(p.id) and not is_resigned(state, p.id))


def _unending(actions: int) -> str:
    """What the table says when the computers played one command's bound of actions and the game goes on."""
    return (f"The computer seats played {actions:,} actions and the game has not ended; it waits until a player "
            "takes their seat back (/game seat take) or the host ends it (/game end).")


class _ResignedSeat(NotSeated):
    """A resigned seat's player answering for it themselves: refused, the table answers instead."""


@dataclass(frozen=True)
class _Said:
    """Words the table adds to a reply among a move's events (never stored in the log)."""

    words: str

    def describe(self) -> str:
        return self.words


def with_order_owners(reply: Reply, others: Sequence[tuple[str, tuple]], state: Any, actor: str = "") -> Reply:
    """`reply` pinging, besides whom it pings already, each player (not `actor`, who reads it anyway) whose
    standing order answered among `others`: once it fired its answer is public, told in the reply's line
    "NAME's standing order (question): …" (bot.table.service.report)."""
    owners = [p for p in dict.fromkeys(p for p, events in others if any(isinstance(e, ByStandingOrder) for e in events))
              if p != actor and p not in reply.mentions]
    if not owners:
        return reply
    names = ", ".join(holder_name(state, p) for p in owners)   # "cal's seat (dave)": the one whose order it was
    told = f"{names}: your standing order answered (below)." if reply.mentions else \
        "your standing order answered (below)."
    if not reply.mentions:
        return replace(reply, mentions=tuple(owners), ping_words=told)
    own = {**{p: reply.ping_words for p in reply.mentions}, **dict(reply.own_ping_words)}   # each one's own words
    own.update((p, "your standing order answered (below).") for p in owners)
    return replace(reply, mentions=reply.mentions + tuple(owners), ping_words=f"{reply.ping_words} {told}",
                   own_ping_words=tuple(own.items()))


# Refusals about who may act, not about the rules of a move: they point to no topic of /rules.
_NOT_RULES = (NotYourTurn, NotSeated, NotHost, TableFull, GameOver)


def with_rules_topic(refused: GameError, game: GameRecord | None, command: str) -> GameError:
    """A game's refusal of a move, pointing to the /rules topic that explains it when the game names one
    for the command ('… See /rules topic:weapons.'); any other refusal as it is."""
    topic = get_ruleset(game.ruleset).grammar.rules_topics.get(command) if game is not None else None
    if topic is None or isinstance(refused, _NOT_RULES) or not type(refused).__module__.startswith("rules."):
        return refused
    pointed = copy.copy(refused)
    pointed.message = f"{refused.message.rstrip()} See /rules topic:{topic}."
    pointed.args = (pointed.message,)
    return pointed


def _played_for_the_seat(ruleset: Ruleset, record: ActionRecord, seat: str) -> bool:
    """Whether a logged action was played in the name of the seat named `seat`, not by its player: by a deadline's
    autopilot, or as a standing order's answer (its events say so; rules.seats.last_own_action reads them alike)."""
    return any(isinstance(e, (PlayedByAutopilot, ByStandingOrder)) and e.player == seat
               for e in events_of(ruleset, record))


async def _known_to(ruleset: Ruleset, state: Any, records: list[ActionRecord], viewer: str) -> list[SeenAction]:
    """The log as `viewer` may know it, as far as its last action goes: the last record alone for a game that
    hides no action (a stretch to the log's end is judged alike), else the whole log, judged on a thread (the
    10,000 actions of a long game held the event loop ~20 ms, issue 39)."""
    if not hides_whole_actions(ruleset, state):
        return seen_log(ruleset, state, records[-1:], viewer)
    return await asyncio.to_thread(seen_log, ruleset, state, records, viewer)


def _unseen_next(ruleset: Ruleset, state: Any, viewer: str) -> str:
    """Why `viewer`'s action that led to `state` is not taken back: the game now waits on someone who may act
    out of the viewer's sight (a seated GM readying a section), so whether they did must not show; '' if not."""
    if ruleset.secrets is None or ruleset.is_finished(state):
        return ""
    unseen = [p for p in ruleset.acting_players(state) if p != viewer and any(
        a.action is not None and ruleset.secrets.is_unseen(state, Logged(0, p, a.action), viewer)
        for a in ruleset.legal_actions(state, p))]
    return f"it passed the turn to {', '.join(seat_name(state, p) for p in unseen)}" if unseen else ""


def _plays_itself(ruleset: Ruleset, state: Any) -> bool:
    """Whether a move plays itself next (a waiting computer seat, or a person's forced move)."""
    return not ruleset.is_finished(state) and any(
        ruleset.is_computer(state, p) or is_resigned(state, p) or ruleset.forced_action(state, p) is not None
        for p in ruleset.acting_players(state))


_WHY = {"forced": "had no choice:", "resigned": "resigned: the table answers for their seat:"}


def _next_automatic(ruleset: Ruleset, state: Any) -> tuple[str | None, Any, str]:
    """The next move that plays itself: a waiting computer seat's choice, what a resigned seat is still
    asked (rules.seats.for_resigned), or a person's move that is no choice; (player, action, why: "" for a
    computer seat, else a key of _WHY), or (None, None, "") when everyone waiting has to choose."""
    for player in ruleset.acting_players(state):
        if is_resigned(state, player):
            if (action := for_resigned(ruleset, state, player)) is not None:
                return player, action, "resigned"
        elif ruleset.is_computer(state, player):
            action = ruleset.computer.choose(state, player) if ruleset.computer is not None else None
            if action is not None:
                return player, action, ""
        elif (action := ruleset.forced_action(state, player)) is not None:
            return player, action, "forced"
    return None, None, ""


def _asked(ruleset: Ruleset, state: Any) -> list[str]:
    """The people asked now a question a standing order may settle."""
    if ruleset.orders is None:
        return []
    return [p for p in ruleset.people_waited_on(state) if any(q.asked(state, p) for q in ruleset.orders.questions)]


def _by_order(ruleset: Ruleset, state: Any, standing: dict[str, dict[str, str]]) -> tuple[Any, str, Any]:
    """(player, question, action) a standing order answers now, or (None, "", None)."""
    assert ruleset.orders is not None
    for player in _asked(ruleset, state):
        legal = partial(ruleset.legal_actions, state, player)
        found = ruleset.orders.answer(state, player, standing.get(player, {}), legal)
        if found is not None:
            return player, found[0], found[1]
    return None, "", None


def _ready(floating: list[PlanStep], state: Any) -> Command | None:
    """The first floating step that can be played in `state` (taken off the list), or None."""
    for step in floating if state is not None else ():
        if step.why_not is not None and step.why_not(state) is None:
            floating.remove(step)
            return Command(step.name, step.options)
    return None


def _why_not(step: PlanStep, state: Any) -> str:
    """Why a floating step cannot be played in `state` (a step left unplayed always says why)."""
    return (step.why_not(state) if step.why_not is not None else None) or "it could not be played"
