"""`/game rollback`: the seated humans vote to return the game to an earlier action; the dice go on from a
new stream of the committed seed, and the actions set aside stay readable (/game log set_aside:N). `/game
propose draw|end` (issue 38 finding 15): the same vote on a result by agreement, a draw among the players
still in or an end with no winner; a game has one vote open at a time, of either kind.

Numbers are the channel's, as its /game log counts the actions. A vote belongs to the log as the channel
knew it when it opened: any action the channel sees since makes it lapse, so nobody's yes ever sets aside an
action they did not see; an action the channel may not learn of (a seated GM's private ruling) does not, so
no vote tells anyone that one was made, and a rollback sets such a ruling aside with everything after its
target (the GM, who saw the vote open, may make it again). Every seat votes through its holder, a person's
seat the computer plays for now too; only the seats made for the computer abstain. A player who is the only
voter rolls back alone, but never past a roll of the dice (one person would be choosing their dice).

One public message asks the vote, pinging those it asks once; each vote edits it, and it ends edited to the
vote's outcome with its buttons gone. Its buttons name the proposal they were drawn for, so a press on an
older proposal's message never counts for a later one.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

from bot.storage.store import ActionRecord, GameRecord, RollbackVote, ToldMessage, VersionConflict, VoteChanged
from bot.table.clock.settings import TableSettings
from bot.table.jobs import heavy_jobs
from bot.table.jobs.heavy_jobs import packed_log, seat_ids
from bot.table.protocol.refusals import NoGame
from bot.table.protocol.replies import MESSAGE_LIMIT, VOTE_PREFIX, Actor, Button, Edit, Reply, clip
from bot.table.service.acting import Acting, Applied, with_order_owners
from bot.table.service.agreement import proposal_question, proposal_words
from bot.table.service.pictures import Pictures
from bot.table.service.privacy import turned_off
from bot.table.service.shared import Table, reads
from bot.table.service.timers import Timers
from bot.table.trust.branches import MAX_ROLLBACKS
from bot.table.trust.seen import hides_whole_actions, logged, seen_log
from rules.codec import dumps, encode_state, encode_tagged
from rules.engine import Ruleset, describe_events
from rules.errors import GameError
from rules.registry import get_ruleset
from rules.seats import addressed
from rules.table import AGREED_RESULTS, SEAT_ACTIONS, AgreeResult, Rollback, TablePhase, born_computer, plural

VOTE_BUTTON = re.compile(rf"^{VOTE_PREFIX}:(\d+):(\d+):([01])$")   # the game, the proposal, yes or no
MAX_SET_ASIDE = 200   # actions one rollback may set aside (re-running the rest is bounded by the log)
PROPOSAL_FLOOR = 1 << 47   # proposals are numbered from here: a button of the old kind (a log position) names none
VOTE_TRIES = 8        # reads of a vote that others changed meanwhile before a voter is asked to vote again
MAX_MARKED = 5        # earlier turn messages a rollback marks as set aside (each an edit: Discord's budget)
OVER = "That vote is over."


def voters(ruleset: Ruleset, state: Any) -> tuple[str, ...]:
    """Who votes on a rollback or a proposed result: every seat still in the game, through its holder (a
    person's seat the computer plays for now too); only the seats made for the computer abstain."""
    return tuple(p.id for p in state.players if not getattr(p, "resigned", False)
                 and not (born_computer(p.id) and ruleset.is_computer(state, p.id)))


def vote_buttons(game_id: int, proposal: str, kind: str = "rollback") -> tuple[Button, ...]:
    """Yes and no, for the proposal they are drawn for (another proposal's buttons differ), naming what it is."""
    command = "/game rollback" if kind == "rollback" else "/game propose"
    yes = {"rollback": "Yes, roll back", "draw": "Yes, a draw", "end": "Yes, end the game"}[kind]
    return (Button(yes, f"{VOTE_PREFIX}:{game_id}:{proposal}:1", f"{command} vote:yes", True),
            Button("No", f"{VOTE_PREFIX}:{game_id}:{proposal}:0", f"{command} vote:no"))


def dice_rolled(before: Any, after: Any) -> bool:
    """Whether a game rolled dice between two of its states (a game without dice never does)."""
    then, now = getattr(before, "dice", None), getattr(after, "dice", None)
    return then is not None and now is not None and now.counter != then.counter


class Rollbacks:
    """Proposals, votes and the rollback itself, for the channel's running game."""

    def __init__(self, table: Table, timers: Timers, pictures: Pictures, acting: Acting):
        self._table, self._timers, self._pictures, self._acting = table, timers, pictures, acting

    async def run(self, channel: str, actor: Actor, options: dict[str, Any]) -> Reply:
        """`/game rollback to:N` proposes; `/game rollback vote:yes|no` answers the open vote."""
        if ("to" in options) == ("vote" in options):
            raise GameError("Give to:N to propose a rollback to action #N, or vote:yes|no to answer the open vote.")
        if "vote" in options:
            return await self.vote(channel, actor, options["vote"] == "yes", kinds=("rollback",))
        return await self._retried(lambda: self._propose(channel, actor, "rollback", int(options["to"])))

    async def propose(self, channel: str, actor: Actor, options: dict[str, Any]) -> Reply:
        """`/game propose draw|end` proposes a result by agreement; `/game propose vote:yes|no` answers the open
        vote on one."""
        if ("result" in options) == ("vote" in options):
            raise GameError("Give draw or end (/game propose draw) to propose a result by agreement, or vote:yes|no "
                            "to answer the open vote.")
        if "vote" in options:
            return await self.vote(channel, actor, options["vote"] == "yes", kinds=AGREED_RESULTS)
        return await self._retried(lambda: self._propose(channel, actor, str(options["result"])))

    async def press(self, channel: str, actor: Actor, game_id: int, proposal: int, yes: bool,
                    off: frozenset[str] = frozenset()) -> Reply:
        """A vote button: for the proposal it was drawn for only (a button of the old kind names none), and not
        on a kind of vote whose command the operator turned off (`off`: those commands' names)."""
        game = await self._table.store.active_game(channel)
        if game is None or game.id != game_id or proposal < PROPOSAL_FLOOR:
            raise GameError(OVER)
        return await self._retried(lambda: self._vote(channel, actor, yes, str(proposal), (), off))

    async def vote(self, channel: str, actor: Actor, yes: bool, proposal: str | None = None,
                   kinds: tuple[str, ...] = ()) -> Reply:
        """A yes or no to the open vote (`proposal`: only if it is still that one; `kinds`: only if it is on one
        of them, as the command typed names it)."""
        return await self._retried(lambda: self._vote(channel, actor, yes, proposal, kinds))

    @staticmethod
    async def _retried(work: Callable[[], Awaitable[Reply]]) -> Reply:
        """`work` again while another vote or proposal changed the stored vote under it."""
        for _ in range(VOTE_TRIES):
            try:
                return await work()
            except VoteChanged:
                continue
        raise GameError("Many votes came at once and yours was not counted; please vote again.")

    async def lapse_if_passed(self, reply: Reply) -> Reply:
        """After any action: the open vote lapses if the channel saw the game move on since it opened (an
        action it may not learn of changes nothing), and its message says so. A move made elsewhere (a
        deadline's autopilot) leaves the vote to be found lapsed by the next vote or proposal."""
        if reply.outcome != "applied" or reply.game_id is None:
            return reply
        known = reads()
        if known.known_game(reply.game_id) is not None and not known.voting:   # none was open at its move
            return reply
        vote = await self._table.store.rollback_vote(reply.game_id)
        if vote is None:
            return reply
        game, records = await self._table.store.game_and_actions(reply.game_id)
        ruleset = get_ruleset(game.ruleset)
        state = self._table.snapshots.load(ruleset, game.state)
        public = await _public(ruleset, state, records)
        if game.status == "active" and _last(public) == vote.at_seq:
            return reply
        try:
            async with self._table.write():
                await self._table.store.close_rollback_vote_tx(vote)
        except VoteChanged:
            return reply
        return replace(reply, edits=reply.edits + _closed(vote, _lapsed(state, vote, public)))

    async def _propose(self, channel: str, actor: Actor, kind: str, to: int = 0) -> Reply:
        """Open a vote on `kind` (a rollback to the channel's #`to`, or a result by agreement)."""
        ruleset, game, state, records = await self._running(channel, kind)
        self._check_voter(ruleset, state, actor, kind)
        open_vote = await self._table.store.rollback_vote(game.id)
        public = await _public(ruleset, state, records)
        if open_vote is not None and open_vote.at_seq == _last(public):
            raise GameError(f"A vote is open already: {_on(state, open_vote, public, 'roll back')}. Answer it with "
                            f"its buttons or {_command(open_vote.kind)} vote:yes|no.")
        if kind == "rollback":
            if await self._table.store.rollbacks(game.id) >= MAX_ROLLBACKS:
                raise GameError(f"This game was rolled back {MAX_ROLLBACKS} times, as often as a game may be.")
            cut, _aside = _cut(ruleset, records, public, to)
            at_cut = await self._state_at(ruleset, game, records, cut)   # refused before the vote, not after it
        else:
            cut, at_cut = _last(public), None
        proposal = _proposal_id(game.id, to if kind == "rollback" else kind, len(public), actor.id,
                                self._table.clock())
        vote = RollbackVote(game.id, cut, _last(public), actor.id, (actor.id,), proposal, kind=kind)
        lapsed = _closed(open_vote, _lapsed(state, open_vote, public)) if open_vote is not None else ()
        if set(voters(ruleset, state)) <= set(vote.approvals):
            done = await self._carry(channel, actor, ruleset, game, state, records, public, vote, open_vote,
                                     at_cut)
            return replace(done, edits=lapsed + done.edits)
        async with self._table.write():
            await self._table.store.open_rollback_vote_tx(vote, open_vote)
        asked = _question(ruleset, state, vote, public)
        return Reply("shown", asked, mentions=_waiting(ruleset, state, vote), ping_words=_ping(kind),
                     buttons=vote_buttons(game.id, proposal, kind), game_id=game.id, version=game.version,
                     vote_proposal=proposal, edits=lapsed)

    async def _vote(self, channel: str, actor: Actor, yes: bool, proposal: str | None, kinds: tuple[str, ...],
                    off: frozenset[str] = frozenset()) -> Reply:
        ruleset, game, state, records = await self._running(channel, kinds[0] if kinds else "")
        vote = await self._table.store.rollback_vote(game.id)
        if proposal is not None and (vote is None or vote.proposal != proposal):
            raise GameError(OVER)
        if vote is None or (kinds and vote.kind not in kinds):
            opened = "rollback vote" if kinds == ("rollback",) else "vote on a result by agreement"
            how = "/game rollback to:N opens one" if kinds == ("rollback",) else "/game propose draw|end opens one"
            elsewhere = f" (the open vote is on {'a rollback' if vote.kind == 'rollback' else 'a result'}: " \
                        f"{_command(vote.kind)} vote:yes|no answers it)" if vote is not None else ""
            raise GameError(f"No {opened} is open here{elsewhere}; {how}.")
        if (command := _command(vote.kind).lstrip("/")) in off:
            raise GameError(turned_off(command))
        public = await _public(ruleset, state, records)
        if vote.at_seq != _last(public):
            async with self._table.write():
                await self._table.store.close_rollback_vote_tx(vote)
            said = (f"The game moved on since that vote opened, so it lapsed and {_unchanged(vote.kind)}; "
                    f"{_reopen(vote.kind)} opens a new one.")
            return self._told(vote, said, _lapsed(state, vote, public))
        self._check_voter(ruleset, state, actor, vote.kind)
        name = state.player(actor.id).name
        if not yes:
            async with self._table.write():
                await self._table.store.close_rollback_vote_tx(vote)
            said = f"{name} votes no: {_not_done(state, vote, public)}; the game plays on as it is."
            return self._told(vote, said, f"Refused: {_proposed(state, vote, public)}, and {name} voted no; "
                                          f"the game plays on as it is.")
        if actor.id in vote.approvals:
            raise GameError(f"You already voted yes to {_on(state, vote, public)}; the vote waits on the others.")
        if set(voters(ruleset, state)) <= {*vote.approvals, actor.id}:
            return await self._carry(channel, actor, ruleset, game, state, records, public, vote, vote)
        async with self._table.write():
            approved = await self._table.store.approve_rollback_vote_tx(vote, actor.id)
        asked = _question(ruleset, state, approved, public)
        buttons = vote_buttons(game.id, vote.proposal, vote.kind) if vote.proposal else ()
        if not vote.message_id:   # its message is unknown (asked before one was kept): asked again, pinging nobody
            return Reply("shown", f"{name} votes yes. {asked}", buttons=buttons, game_id=game.id,
                         version=game.version, vote_proposal=vote.proposal)
        waiting = ", ".join(addressed(state.player(p)) for p in _waiting(ruleset, state, approved))
        return Reply("shown", f"You vote yes to {_on(state, vote, public)}; the vote waits on {waiting}.",
                     ephemeral=True, edits=(Edit(vote.message_id, asked, buttons),))

    async def _carry(self, channel: str, actor: Actor, ruleset: Ruleset, game: GameRecord, state: Any,
                     records: list[ActionRecord], public: list[int], vote: RollbackVote,
                     closing: RollbackVote | None, at_cut: Any = None) -> Reply:
        """Everyone agreed to `vote`: the rollback, or the result agreed (`closing`: the stored vote it closes;
        `public`: the stored numbers of the actions the channel knows of)."""
        if vote.kind == "rollback":
            to = _number(public, vote.to_seq)
            return await self._roll_back(channel, ruleset, game, state, records, vote, to, len(public) - to,
                                         closing, at_cut)
        if closing is not None:   # closed first, as read: a no or a yes meanwhile (another process) wins
            async with self._table.write():
                await self._table.store.close_rollback_vote_tx(closing, as_read=True)
        done = await self._acting.run_steps(channel, actor, [AgreeResult(vote.kind)], game.version)
        approved = f"Approved: {_proposed(state, vote, public)}, and the table agreed: the game is over."
        return replace(done, edits=done.edits + _closed(vote, approved))

    @staticmethod
    def _told(vote: RollbackVote, said: str, outcome: str) -> Reply:
        """A vote that ended without a rollback: its message edited to `outcome`, and the voter told `said`
        privately; in public when its message is unknown."""
        if not vote.message_id:
            return Reply("shown", said)
        return Reply("shown", said, ephemeral=True, edits=_closed(vote, outcome))

    async def _running(self, channel: str, kind: str = "rollback"
                       ) -> tuple[Ruleset, GameRecord, Any, list[ActionRecord]]:
        game = await self._table.store.active_game(channel)
        if game is None:
            raise NoGame()
        game, records = await self._table.store.game_and_actions(game.id)
        ruleset = get_ruleset(game.ruleset)
        state = self._table.snapshots.load(ruleset, game.state)
        if ruleset.is_finished(state):
            raise GameError("This game is over and its seed revealed: it is not rolled back." if kind == "rollback"
                            else "This game is over: its result stands.")
        if kind in AGREED_RESULTS and not hasattr(state, "agreed"):   # a plug-in's game that keeps no agreed result
            raise GameError(f"{ruleset.title} takes no result by agreement: the host ends it with /game end.")
        if kind in AGREED_RESULTS and state.phase == TablePhase.LOBBY:
            raise GameError("The game has not started: a result is agreed only in a running game (the host ends "
                            "a lobby with /game end).")
        return ruleset, game, state, records

    @staticmethod
    def _check_voter(ruleset: Ruleset, state: Any, actor: Actor, kind: str = "rollback") -> None:
        if actor.id not in voters(ruleset, state):
            what = "a rollback" if kind == "rollback" else "a proposed result"
            raise GameError(f"Only the seated players vote on {what} (a seat made for the computer abstains, and "
                            f"a resigned player is out).")

    async def _roll_back(self, channel: str, ruleset: Ruleset, game: GameRecord, now: Any,
                         records: list[ActionRecord], vote: RollbackVote, to: int, aside: int,
                         closing: RollbackVote | None, at_cut: Any = None) -> Reply:
        """Everyone agreed to `vote`: the game as it was at its action (`at_cut`, when already rebuilt), on the
        next dice stream; the actions after it set aside, all in one write that checks nobody moved
        meanwhile and the stored vote it closes (`closing`, as read) still stands. A lone voter never rolls
        back past a roll of the dice."""
        if at_cut is None:
            at_cut = await self._state_at(ruleset, game, records, vote.to_seq)
        lone = len(voters(ruleset, now)) == 1
        if lone and dice_rolled(at_cut, now):
            raise GameError(f"Dice were rolled since #{to}: you are the only player who votes here, so the "
                            f"game is not rolled back past them.")
        branch = await self._table.store.rollbacks(game.id) + 1
        told = await self._table.store.told_messages(game.id)
        action = Rollback(to, branch, aside, redeal=True)
        state, events = ruleset.apply(at_cut, vote.proposer, action)
        if lone and dice_rolled(at_cut, state):   # a rollback that deals anew: one voter would fish for a deal
            raise GameError("A rollback of this game deals what it hides anew with the dice: you are the only "
                            "player who votes here, so the game is not rolled back.")
        try:
            async with self._table.write():
                game = await self._table.store.roll_back_tx(
                    game, vote.to_seq, branch, encode_state(state), vote.proposer, dumps(encode_tagged(action)),
                    dumps([encode_tagged(e) for e in events]), closing)
                # no plan previewed on a position the table set aside is played at a deadline on the one restored
                settings = TableSettings.from_json(game.settings)
                if settings.previewed:
                    game = await self._table.store.set_settings_tx(
                        game, settings.without_previews(set(settings.previewed)).to_json())
                await self._timers.sync_tx(ruleset, game, state, force=True)
                await self._table.store.add_seats_tx(game.id, seat_ids(state))
        except VersionConflict:
            raise GameError("The game moved on while I was rolling it back; nothing was rolled back.") from None
        # the game as it was may wait on a computer seat: it plays at once, as after any move
        done, others = await self._acting.play_computers(channel, Applied(ruleset, game, state, events))
        waiting = tuple(p for p in ruleset.acting_players(done.state) if not ruleset.is_computer(done.state, p))
        text = self._acting.reported(done, [describe_events(events)], others)
        reply = await self._pictures.with_map(ruleset, done.game, done.state, "applied", text,
                                              None if others else events)
        approved = f"Approved: {_rolling_back(now, vote, to, aside)}, and the table rolled the game back."
        edits = (*_closed(vote, approved), *_marked(told, records, vote.to_seq, to, branch))
        return with_order_owners(replace(reply, mentions=waiting, edits=edits), others, done.state)

    async def _state_at(self, ruleset: Ruleset, game: GameRecord, records: list[ActionRecord], cut: int) -> Any:
        """The game as it was after its stored action `cut`, rebuilt off the loop; GameError before the start
        of play (a rollback never unseats anyone)."""
        state = ruleset.load_state(await self._table.heavy.run(
            heavy_jobs.rebuilt_snapshot, ruleset.id, game, await packed_log(records[:cut]), items=cut))
        if state.phase == TablePhase.LOBBY:
            raise GameError("to: that is before the game started; a rollback goes back no further than its start.")
        return state


def _proposal_id(game_id: int, to: int | str, known: int, proposer: str, now: float) -> str:
    """A proposal's name on its buttons, drawn from what the channel knows of it (its target and the actions
    it knew of, as numbered there) and when it was made (the table's clock): another proposal's differs, it
    tells nothing hidden (a GM's private ruling changes no proposal's name), and two copies of a game on
    one clock (a test's two worlds) name theirs alike."""
    digest = hashlib.blake2b(repr((game_id, to, known, proposer, now)).encode(), digest_size=8).digest()
    return str(PROPOSAL_FLOOR + int.from_bytes(digest, "big") % (1 << 46))


def _last(public: list[int]) -> int:
    """The stored number of the last action the channel knows of (0: none): what a vote belongs to."""
    return public[-1] if public else 0


def _waiting(ruleset: Ruleset, state: Any, vote: RollbackVote) -> tuple[str, ...]:
    return tuple(p for p in voters(ruleset, state) if p not in vote.approvals)


def _rolling_back(state: Any, vote: RollbackVote, to: int, aside: int) -> str:
    """Who proposed rolling back, and where to, in a few words."""
    proposer = state.player(vote.proposer)
    return (f"{proposer.name if proposer else 'A player'} proposed rolling the game back to #{to}, setting aside "
            f"{plural(aside, 'action', 'actions')}")


def _proposed(state: Any, vote: RollbackVote, public: list[int]) -> str:
    """Who proposed what, in a few words (`public`: the stored numbers of the actions the channel knows of)."""
    if vote.kind != "rollback":
        return proposal_words(state, vote.proposer, vote.kind)
    to = _number(public, vote.to_seq)
    return _rolling_back(state, vote, to, len(public) - to)


def _on(state: Any, vote: RollbackVote, public: list[int], rolling: str = "rolling back") -> str:
    """What a vote is on, in a few words: "rolling back to #N" (`rolling` names it otherwise), "a draw"."""
    if vote.kind == "rollback":
        return f"{rolling} to #{_number(public, vote.to_seq)}"
    return "a draw" if vote.kind == "draw" else "ending the game with no winner"


def _command(kind: str) -> str:
    return "/game rollback" if kind == "rollback" else "/game propose"


def _ping(kind: str) -> str:
    return "vote on the rollback." if kind == "rollback" else "vote on the proposed result."


def _unchanged(kind: str) -> str:
    return "nothing was rolled back" if kind == "rollback" else "the game plays on"


def _reopen(kind: str) -> str:
    return "/game rollback to:N" if kind == "rollback" else f"/game propose {kind}"


def _not_done(state: Any, vote: RollbackVote, public: list[int]) -> str:
    if vote.kind == "rollback":
        return f"the game is not rolled back to #{_number(public, vote.to_seq)}"
    return "no draw is agreed" if vote.kind == "draw" else "the game is not ended"


def _question(ruleset: Ruleset, state: Any, vote: RollbackVote, public: list[int]) -> str:
    """The public question: who proposed what, who has said yes, whom it waits on."""
    agreed = ", ".join(state.player(p).name for p in vote.approvals if state.player(p) is not None)
    waiting = ", ".join(addressed(state.player(p)) for p in _waiting(ruleset, state, vote))
    proposer = state.player(vote.proposer)
    if vote.kind != "rollback":
        asked = proposal_question(ruleset, state, vote.proposer, vote.kind)
    else:
        to = _number(public, vote.to_seq)
        asked = (f"{proposer.name if proposer else 'A player'} proposes rolling the game back to #{to}, setting "
                 f"aside {plural(len(public) - to, 'action', 'actions')} (kept in /game log). Every seated player "
                 f"must agree; the dice then come from a new stream.")
    return (f"{asked} Yes so far: {agreed}. Waiting on {waiting}: vote with the buttons or {_command(vote.kind)} "
            f"vote:yes|no. Any move first ends the vote.")


def _lapsed(state: Any, vote: RollbackVote, public: list[int]) -> str:
    """What a lapsed vote's message then says (numbered as the channel knew the log when it opened; `public`:
    the stored numbers of the actions the channel knows of now)."""
    public = [seq for seq in public if seq <= vote.at_seq]
    return (f"Lapsed: {_proposed(state, vote, public)}, and the game moved on before everyone agreed; "
            f"{_unchanged(vote.kind)}.")


def ended_by_move(vote: RollbackVote, where: str) -> tuple[str, tuple[Edit, ...]]:
    """What the channel a game moved from is told of the vote open there (which a move never carries), and
    that vote's message closed."""
    what = "rollback vote" if vote.kind == "rollback" else f"vote on the proposed {vote.kind}"
    return (f"The {what} open here ended with the move.",
            _closed(vote, f"Ended: the game moved to {where} before everyone agreed; {_unchanged(vote.kind)}."))


def _closed(vote: RollbackVote, outcome: str) -> tuple[Edit, ...]:
    """A finished vote's message edited to its outcome, its buttons gone (nothing when it is unknown)."""
    return (Edit(vote.message_id, outcome),) if vote.message_id else ()


def _marked(told: list[ToldMessage], records: list[ActionRecord], cut: int, to: int, branch: int) -> list[Edit]:
    """The last MAX_MARKED turn messages that told actions a rollback to the channel's #`to` (stored `cut`)
    set aside, each marked as set aside at its head (its buttons gone)."""
    last = records[-1].seq if records else 0
    marks = []
    for i, message in enumerate(told):
        told_up_to = told[i + 1].first_seq - 1 if i + 1 < len(told) else last
        if told_up_to <= cut:
            continue
        head = (f"Set aside by the rollback to #{to}" if message.first_seq > cut else
                f"What follows #{to} here was set aside by the rollback to #{to}")
        text = f"{head} (/game log set_aside:{branch} reads it):\n{message.body}"
        marks.append(Edit(message.message_id, clip(text, MESSAGE_LIMIT)))
    return marks[-MAX_MARKED:]


async def _public(ruleset: Ruleset, state: Any, records: list[ActionRecord]) -> list[int]:
    """The stored numbers of the actions the channel knows of, in order (its #1, #2, ...): every action of a
    game that hides none, else judged off the event loop (a 10,000-action log's judgement held it ~25 ms)."""
    if not hides_whole_actions(ruleset, state):
        return [r.seq for r in records]
    return await asyncio.to_thread(lambda: [s.record.seq for s in seen_log(ruleset, state, records, None)])


def _number(public: list[int], seq: int) -> int:
    """The channel's number of the stored action `seq` (0: the start), given its actions' stored numbers."""
    return sum(1 for s in public if s <= seq)


def _cut(ruleset: Ruleset, records: list[ActionRecord], public: list[int], to: int) -> tuple[int, int]:
    """The stored number of the channel's action #`to` (`public`: its actions' stored numbers) and how many
    channel actions follow it; GameError for a number with nothing after it, or too much."""
    if not 0 <= to < len(public):
        raise GameError(f"to: give an action before the last (at most {len(public) - 1}), as the channel's "
                        f"/game log numbers them." if public else "Nothing has happened in this game yet.")
    aside = len(public) - to
    if aside > MAX_SET_ASIDE:
        raise GameError(f"A rollback sets aside at most {MAX_SET_ASIDE} actions; #{to} is {aside} back.")
    cut = public[to - 1] if to else 0
    changed = [e.seq for e in logged(ruleset, records[cut:]) if isinstance(e.action, SEAT_ACTIONS)]
    if changed:   # a resignation is final, and a seat's new holder would lose it without a say
        last = _number(public, changed[-1])
        raise GameError(f"A seat changed hands at #{last} (a resignation, a seat given or taken): a rollback "
                        f"goes back no further than that, to #{last} at the earliest.")
    return cut, aside
