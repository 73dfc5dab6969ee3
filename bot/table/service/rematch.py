"""`/game rematch`: after a game ends, the same game again, with the same options, cars and seats, new dice and
the seat order turned by one (the first seat goes last); every person seated at the end says yes or no, and
the new game is made when all have answered.

Rulings:
- Where: the channel (or thread) the game ended in, as a new game beside the finished one, as `/new` there
  makes one; one running game per channel holds (a game made here meanwhile calls the rematch off). The
  finished game keeps its record: /stats and /standings count it, `pitboss verify` checks it, and the
  channel's commands read it until the rematch is made (the channel's last game); then /game log, export
  and verify read it by `game:N`, which the rematch's message names.
- Who is asked: every person seated at the end, through the seat's holder (a seat another member took is
  theirs; a seat the computer plays for its person is still that person's), a resigned player too (a
  resignation leaves that game, not the next). The seats made for the computer stay computer seats, asked
  nothing. The proposer's proposal is their yes; typing /game rematch again (or the button) is a yes,
  `vote:no` (or No) a no. One rematch per finished game: once it is made, or called off, it is not asked
  again.
- The new game replays the finished game's lobby: its options (under today's rules revision), the host's
  lobby steps (a group's own vehicles), then each seat's join in the turned order, each by its holder now,
  the computer seats by the host; then the start, when everyone said yes. A player's no leaves their seat
  open: the lobby stays open for anyone to /game join, and the host starts it as usual.
- The host is the finished game's host, or the proposer when the host said no. A seated game master is the
  host's chair: when the game master says no, the rematch is called off.
- The table's settings (its clock, any pause still running) come along, each time bank full again and each
  grace unused (what a player spent belonged to the game that ended); standing orders and followers do not.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, fields, replace
from typing import Any

from bot.storage.privacy import blocked_members
from bot.storage.store import ActionRecord, ChannelTaken, GameRecord, RematchProposal, VoteChanged
from bot.table.clock.settings import TableSettings
from bot.table.jobs.heavy_jobs import seat_ids
from bot.table.protocol.refusals import NoGame
from bot.table.protocol.replies import REMATCH_PREFIX, Actor, Button, Edit, Reply, rematch_button, review_button
from bot.table.service.acting import Acting, Applied
from bot.table.service.pictures import Pictures
from bot.table.service.shared import Table, elsewhere, ended_here
from bot.table.service.timers import Timers
from bot.table.trust.commitment import announce, new_seed  # a module name tests may fix
from bot.table.trust.guards import FORGOTTEN_PREFIX
from bot.table.trust.seen import logged
from rules.codec import dumps, encode_state, encode_tagged
from rules.engine import Ruleset, describe_events
from rules.errors import GameError
from rules.registry import get_ruleset
from rules.seats import addressed, renamed
from rules.seats import holder as seat_holder
from rules.table import HOST_NAME, TablePhase, born_computer

REMATCH_BUTTON = re.compile(rf"^{REMATCH_PREFIX}:(\d+):0:([01])$")   # the finished game, yes or no
REMATCH_PROPOSAL = "rematch"   # the vote_proposal of a rematch's question (its message is remembered)
ANSWER_TRIES = 8
_EARLIER = "That button belongs to an earlier game here; a rematch repeats the channel's last game, once it ended."


def answer_buttons(game_id: int) -> tuple[Button, ...]:
    """Yes and no to the rematch of finished game `game_id`."""
    return rematch_button(game_id, True, "Yes, rematch"), rematch_button(game_id, False, "No thanks")


@dataclass(frozen=True)
class Lobby:
    """A finished game's lobby, as its log holds it: the steps that seat nobody, each seat's step (its actor,
    action and the seat's name), and the start."""

    steps: list[tuple[str, Any]]
    seats: list[tuple[str, Any, str]]
    start: tuple[str, Any]


def lobby_of(ruleset: Ruleset, game: GameRecord, records: list[ActionRecord]) -> Lobby:
    """The lobby of a stored game, replayed from its setup until its start."""
    state = ruleset.setup(json.loads(game.options), game.seed, game.host)
    steps: list[tuple[str, Any]] = []
    seats: list[tuple[str, Any, str]] = []
    seating: set[type] = set()   # the kinds of action that seated someone (a second car's join seats no one new)
    for record in records:
        entry = logged(ruleset, [record])[0]   # one at a time: the lobby is the log's first few actions
        before = state
        state, _events = ruleset.apply(state, entry.actor, entry.action)
        if state.phase != TablePhase.LOBBY:
            return Lobby(steps, seats, (entry.actor, entry.action))
        new = [p for p in state.players if before.player(p.id) is None and (p.id == entry.actor or born_computer(p.id))]
        if new:
            seating.add(type(entry.action))
        if new or type(entry.action) in seating:
            seat = new[0] if new else state.player(entry.actor)
            seats.append((entry.actor, entry.action, seat.name if seat is not None else ""))
        else:
            steps.append((entry.actor, entry.action))
    raise GameError("That game never started, so there is no table to play again.")


class Rematches:
    """Proposals and answers, and the rematch itself, for the channel's finished game."""

    def __init__(self, table: Table, timers: Timers, pictures: Pictures, acting: Acting):
        self._table, self._timers, self._pictures, self._acting = table, timers, pictures, acting

    async def run(self, channel: str, actor: Actor, yes: bool, game_id: int | None = None) -> Reply:
        """`/game rematch` (a yes: it proposes one when none is), `vote:no`, or a button naming `game_id`."""
        for _ in range(ANSWER_TRIES):
            try:
                return await self._answer(channel, actor, yes, game_id)
            except VoteChanged:
                continue
        raise GameError("Many answers came at once and yours was not counted; please answer again.")

    async def _finished(self, channel: str, game_id: int | None) -> tuple[Ruleset, GameRecord, Any]:
        """The channel's game that ended here, which a rematch repeats; refusals for anything else."""
        running = await self._table.store.active_game(channel)
        if running is not None and game_id is not None:
            raise GameError(_EARLIER)
        if running is not None:
            ruleset = get_ruleset(running.ruleset)
            if self._table.snapshots.load(ruleset, running.state).phase == TablePhase.LOBBY:
                raise GameError("This channel's game has not started yet: /game join takes a seat, and the host "
                                "starts it with /game start.")
            raise GameError("The game here is not over: a rematch is proposed after its end (/game end ends it "
                            "early).")
        game = await self._table.store.latest_game(channel)
        if game is None:
            raise NoGame()
        if game_id is not None and game.id != game_id:
            raise GameError(_EARLIER)
        ruleset = get_ruleset(game.ruleset)
        state = self._table.snapshots.load(ruleset, game.state)
        if not ended_here(ruleset, game, state):
            raise GameError(elsewhere(game))
        return ruleset, game, state

    async def _answer(self, channel: str, actor: Actor, yes: bool, game_id: int | None) -> Reply:
        ruleset, game, state = await self._finished(channel, game_id)
        read = await self._table.store.rematch(game.id)
        blocked = await blocked_members(self._table.store, game.guild) or set()
        # a member forgotten since (their seat's id is a pseudonym) or blocked by the operator is never asked
        asked = tuple(p.id for p in state.players if not born_computer(p.id) and not p.id.startswith(FORGOTTEN_PREFIX)
                      and p.id not in blocked)
        if actor.id not in (read.asked if read is not None else asked):
            raise GameError("Only the players seated at the end of this game are asked about its rematch.")
        # as stored (`read`, what the write compares), and as it stands: a member blocked since counts as a no
        now = None if read is None else \
            replace(read, answers={**read.answers, **dict.fromkeys(blocked & set(_waiting(read)), False)})
        if now is None:
            if not yes:
                raise GameError("No rematch is proposed here: /game rematch proposes one.")
            proposal = RematchProposal(game.id, actor.id, asked, {actor.id: True})
        elif now.made is not None:
            raise GameError(f"This game's rematch was already {'called off' if now.made == 0 else 'made'}: "
                            f"/new starts another game.")
        elif not _waiting(now):   # everyone has answered (a forgotten member's no, a block): it is made now
            return await self._made(channel, ruleset, game, state, now, read)
        elif actor.id in now.answers:
            said = "yes" if now.answers[actor.id] else "no"
            raise GameError(f"You already said {said} to this rematch; it waits on "
                            f"{_names(state, _waiting(now))}.")
        else:
            proposal = replace(now, answers={**now.answers, actor.id: yes})
        gm = ruleset.game_master.seat(state) if ruleset.game_master is not None else None
        if gm is not None and proposal.answers.get(gm) is False:
            return await self._called_off(game, state, proposal, read, gm)
        if not _waiting(proposal):
            return await self._made(channel, ruleset, game, state, proposal, read)
        async with self._table.write():
            await self._table.store.put_rematch_tx(proposal, read)
        question = _question(ruleset, game, state, proposal)
        if read is None:
            return Reply("shown", question, mentions=_waiting(proposal), ping_words="a rematch is proposed: yes or no?",
                         buttons=answer_buttons(game.id), game_id=game.id, vote_proposal=REMATCH_PROPOSAL)
        name = state.player(actor.id).name
        if not read.message_id:   # its message is unknown (the command line): asked again, pinging nobody
            return Reply("shown", f"{name} says {'yes' if yes else 'no'}. {question}", buttons=answer_buttons(game.id),
                         game_id=game.id)
        return Reply("shown", f"You say {'yes' if yes else 'no'} to the rematch; it waits on "
                              f"{_names(state, _waiting(proposal))}.", ephemeral=True,
                     edits=(Edit(read.message_id, question, answer_buttons(game.id)),))

    async def _called_off(self, game: GameRecord, state: Any, proposal: RematchProposal,
                          read: RematchProposal | None, gm: str) -> Reply:
        """The game master said no: no rematch (they hold the host's chair of the game it repeats)."""
        async with self._table.write():
            await self._table.store.put_rematch_tx(replace(proposal, made=0), read)
        said = (f"No rematch: {state.player(gm).name}, the game master, said no (the game master's seat is the "
                f"host's chair). /new starts another game.")
        retired = await self._final_retired(game)
        if read is None or not read.message_id:
            return Reply("shown", said, edits=retired)
        return Reply("shown", said, edits=(Edit(read.message_id, f"Called off: {said}"),) + retired)

    async def _made(self, channel: str, ruleset: Ruleset, old: GameRecord, old_state: Any,
                    proposal: RematchProposal, read: RematchProposal | None) -> Reply:
        """Everyone answered: the new game, its lobby replayed in the turned seat order, started unless a seat
        is open; all in one write that also closes the proposal as read."""
        lobby = lobby_of(ruleset, old, await self._table.store.actions(old.id))
        declined = {p for p, yes in proposal.answers.items() if not yes}
        gm = ruleset.game_master.seat(old_state) if ruleset.game_master is not None else None
        # the host hosts again if they were asked and said yes (not after handing their seat away, nor after a no)
        host = gm or (old_state.host if proposal.answers.get(old_state.host) else proposal.proposer)
        options = {k: v for k, v in json.loads(old.options).items() if k != "revision"}
        if HOST_NAME in options:
            seat = old_state.player(host)
            options[HOST_NAME] = seat_holder(seat) if seat is not None else host   # the chair by who holds it now
        options = ruleset.new_game_options(options)
        seed = new_seed()
        first = ruleset.setup(options, seed, host)
        turned = lobby.seats[1:] + lobby.seats[:1]
        steps = [(host, action) for _actor, action in lobby.steps]
        add_ai = _add_ai_type(ruleset)
        for actor, action, name in turned:   # each seat by its holder now (the computer's by the host)
            seat = next((p for p in old_state.players if p.name == name), None)
            holder = seat.id if seat is not None else actor
            if born_computer(holder):
                steps.append((host, action))
            elif not proposal.answers.get(holder):   # a no, or never asked (forgotten or blocked since): open
                declined.add(holder)
            elif add_ai and isinstance(action, add_ai):   # a computer's seat, a member's now
                steps.append((holder, _joined(ruleset, action, seat)))
            else:
                steps.append((holder, _held(renamed(action, actor, holder), seat)))
        if not declined:
            steps.append((host, lobby.start[1]))
        state = first
        events: tuple[Any, ...] = ()
        entries: list[tuple[str, str, str]] = []
        try:
            for actor, action in steps:
                state, events = ruleset.apply(state, actor, action)
                entries.append((actor, dumps(encode_tagged(action)), dumps([encode_tagged(e) for e in events])))
        except GameError as exc:
            raise GameError(f"The rematch could not be set up: {exc.message}") from None
        try:
            async with self._table.write():
                game = await self._table.store.create_game_tx(channel, ruleset.id, host, seed, dumps(options),
                                                              encode_state(first), old.guild)
                game = await self._table.store.append_log_tx(game, entries, encode_state(state), "active")
                game = await self._table.store.set_settings_tx(
                    game, TableSettings.or_defaults(old.settings).for_a_new_game().to_json())
                await self._table.store.add_seats_tx(game.id, seat_ids(state))
                await self._table.store.unposted_tx(game.id)
                await self._timers.sync_tx(ruleset, game, state, force=True)
                await self._table.store.put_rematch_tx(replace(proposal, made=game.id), read)
        except ChannelTaken:
            raise GameError("A game was made in this channel meanwhile: the rematch needs the channel free.") \
                from None
        done, others = await self._acting.play_computers(channel, Applied(ruleset, game, state, events))
        order = ", ".join(p.name for p in state.players if not (gm and p.id == gm))
        lines = [f"Rematch of game {old.id}: game {game.id}, {ruleset.title}, the same options and seats with new "
                 f"dice, the seat order turned by one ({order}). {announce(seed)} Game {old.id} stays readable: "
                 f"/game log game:{old.id} (and export, verify)."]
        if declined:
            lines.append(f"{_names(old_state, tuple(declined))} said no: the seat stays open. /game join takes it, "
                         f"and the host ({_names(state, (host,))}) starts the game with /game start.")
        else:
            lines.append(describe_events(events))
        reply = await self._pictures.with_map(ruleset, done.game, done.state, "applied",
                                              self._acting.reported(done, lines, others), None if others else events)
        waiting = tuple(p for p in ruleset.acting_players(done.state) if not ruleset.is_computer(done.state, p)) \
            if not declined else ()
        closed = f"Agreed: the rematch of game {old.id} is game {game.id}, below."
        edits = (Edit(read.message_id, closed),) if read is not None and read.message_id else ()
        return replace(reply, mentions=waiting, edits=edits + await self._final_retired(old))

    async def _final_retired(self, game: GameRecord) -> tuple[Edit, ...]:
        """The finished game's final message without its Rematch button, once its one rematch was made or called
        off (its words stay): no button is left that can only be refused. Its Review stays (it reads game N)."""
        final = await self._table.store.turn_message(game.id)
        return (Edit(final.message_id, None, (review_button(game.id),)),) if final is not None else ()


def _held(action: Any, seat: Any) -> Any:
    """A join as its seat's holder makes it: by their own name when another member took the seat."""
    taker = getattr(seat, "played_by", "") if seat is not None else ""
    if taker and "name" in {f.name for f in fields(action)}:
        return replace(action, name=taker)
    return action


def _add_ai_type(ruleset: Ruleset) -> type | None:
    """The kind of action `/game add-ai` is in this game (None: it seats no computer)."""
    try:
        return type(ruleset.command_to_action("game add-ai", {}))
    except GameError:
        return None


def _joined(ruleset: Ruleset, added: Any, seat: Any) -> Any:
    """The join that seats a member, by their own name, in the car (or vehicle, pilot) a computer seat they
    took over was added with."""
    options = {f.name: getattr(added, f.name) for f in fields(added)}
    return ruleset.command_to_action("game join", {**options, "name": getattr(seat, "played_by", "") or seat.name})


def _waiting(proposal: RematchProposal) -> tuple[str, ...]:
    return tuple(p for p in proposal.asked if p not in proposal.answers)


def _names(state: Any, players: tuple[str, ...]) -> str:
    return ", ".join(addressed(state.player(p)) if state.player(p) is not None else p for p in players)


def _question(ruleset: Ruleset, game: GameRecord, state: Any, proposal: RematchProposal) -> str:
    """The public question: who proposed what, who answered, whom it waits on."""
    seats = [p.name for p in state.players if not (ruleset.game_master and p.id == ruleset.game_master.seat(state))]
    turned = ", ".join(seats[1:] + seats[:1])
    said = [f"{state.player(p).name} {'yes' if yes else 'no'}" for p, yes in proposal.answers.items()]
    return (f"{state.player(proposal.proposer).name} proposes a rematch of game {game.id}: {ruleset.title} again "
            f"with the same options and seats, new dice, the seats turned by one ({turned}). So far: "
            f"{', '.join(said)}. Waiting on {_names(state, _waiting(proposal))}: answer with the buttons or "
            f"/game rematch (vote:no says no; a no leaves that seat open for anyone to /game join).")

