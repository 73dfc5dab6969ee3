"""`/game rollback`: the seated humans vote to return the game to an earlier action; the dice go on from a
new stream of the committed seed, and the actions set aside stay readable (/game log set_aside:N).

Numbers are the channel's, as its /game log counts the actions. A vote belongs to the log as it stood
when it opened: any action since makes it lapse, so nobody's yes ever sets aside an action they did not
see. Computer seats abstain; one person at a table of computers rolls back alone.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from bot.storage.store import ActionRecord, GameRecord, RollbackVote, VersionConflict
from bot.table.clock.timers import Timers
from bot.table.jobs import heavy_jobs
from bot.table.jobs.heavy_jobs import log_rows, seat_ids
from bot.table.protocol.refusals import NoGame
from bot.table.protocol.replies import VOTE_PREFIX, Actor, Button, Reply
from bot.table.service.acting import Acting, Applied
from bot.table.service.pictures import Pictures
from bot.table.service.table import Table
from bot.table.trust.branches import MAX_ROLLBACKS
from bot.table.trust.seen import logged, seen_log
from rules.codec import dumps, encode_state, encode_tagged
from rules.engine import Ruleset, describe_events
from rules.errors import GameError
from rules.registry import get_ruleset
from rules.table import SEAT_ACTIONS, Rollback, TablePhase, plural

VOTE_BUTTON = re.compile(rf"^{VOTE_PREFIX}:(\d+):(\d+):([01])$")
MAX_SET_ASIDE = 200   # actions one rollback may set aside (re-running the rest is bounded by the log)


def voters(ruleset: Ruleset, state: Any) -> tuple[str, ...]:
    """Who votes on a rollback: every seated person still in the game (not the computer's seats)."""
    return tuple(p.id for p in state.players
                 if not getattr(p, "resigned", False) and not ruleset.is_computer(state, p.id))


def vote_buttons(game_id: int, at_seq: int) -> tuple[Button, ...]:
    """Yes and no, for the vote opened when the log ended at `at_seq` (a later vote's buttons differ)."""
    return (Button("Yes, roll back", f"{VOTE_PREFIX}:{game_id}:{at_seq}:1", "/game rollback vote:yes", True),
            Button("No", f"{VOTE_PREFIX}:{game_id}:{at_seq}:0", "/game rollback vote:no"))


class Rollbacks:
    """Proposals, votes and the rollback itself, for the channel's running game."""

    def __init__(self, table: Table, timers: Timers, pictures: Pictures, acting: Acting):
        self._table, self._timers, self._pictures, self._acting = table, timers, pictures, acting

    async def run(self, channel: str, actor: Actor, options: dict[str, Any]) -> Reply:
        """`/game rollback to:N` proposes; `/game rollback vote:yes|no` answers the open vote."""
        if ("to" in options) == ("vote" in options):
            raise GameError("Give to:N to propose a rollback to action #N, or vote:yes|no to answer the open vote.")
        if "vote" in options:
            return await self.vote(channel, actor, options["vote"] == "yes")
        return await self.propose(channel, actor, int(options["to"]))

    async def press(self, channel: str, actor: Actor, game_id: int, at_seq: int, yes: bool) -> Reply:
        """A vote button: for the vote it was drawn for only."""
        game = await self._table.store.active_game(channel)
        vote = await self._table.store.rollback_vote(game.id) if game is not None else None
        if game is None or game.id != game_id or vote is None or vote.at_seq != at_seq:
            raise GameError("That vote is over.")
        return await self.vote(channel, actor, yes)

    async def propose(self, channel: str, actor: Actor, to: int) -> Reply:
        ruleset, game, state, records = await self._running(channel)
        self._check_voter(ruleset, state, actor)
        open_vote = await self._table.store.rollback_vote(game.id)
        public = _public(ruleset, state, records)
        if open_vote is not None and open_vote.at_seq == _last_seq(records):
            to = _number(public, open_vote.to_seq)
            raise GameError(f"A vote is open already: roll back to #{to}. Answer it with its buttons or /game "
                            f"rollback vote:yes|no.")
        if await self._table.store.rollbacks(game.id) >= MAX_ROLLBACKS:
            raise GameError(f"This game was rolled back {MAX_ROLLBACKS} times, as often as a game may be.")
        cut, aside = _cut(ruleset, records, public, to)
        at_cut = await self._state_at(ruleset, game, records, cut)   # refused before the vote, not after it
        vote = RollbackVote(game.id, cut, _last_seq(records), actor.id, (actor.id,))
        if set(voters(ruleset, state)) <= set(vote.approvals):
            return await self._roll_back(channel, ruleset, game, records, vote, to, aside, at_cut)
        async with self._table.write():
            await self._table.store.put_rollback_vote_tx(vote)
        return self._asked(ruleset, state, game, vote, to, aside)

    async def vote(self, channel: str, actor: Actor, yes: bool) -> Reply:
        ruleset, game, state, records = await self._running(channel)
        vote = await self._table.store.rollback_vote(game.id)
        if vote is None:
            raise GameError("No rollback vote is open here; /game rollback to:N opens one.")
        if vote.at_seq != _last_seq(records):
            async with self._table.write():
                await self._table.store.drop_rollback_vote_tx(game.id)
            return Reply("shown", "The game moved on since that vote opened, so it lapsed and nothing was rolled "
                                  "back; /game rollback to:N opens a new one.")
        self._check_voter(ruleset, state, actor)
        name = state.player(actor.id).name
        public = _public(ruleset, state, records)
        to = _number(public, vote.to_seq)
        if not yes:
            async with self._table.write():
                await self._table.store.drop_rollback_vote_tx(game.id)
            return Reply("shown", f"{name} votes no: the game is not rolled back to #{to}, and plays on as it is.")
        if actor.id in vote.approvals:
            raise GameError(f"You already voted yes to rolling back to #{to}; the vote waits on the others.")
        vote = RollbackVote(vote.game_id, vote.to_seq, vote.at_seq, vote.proposer, vote.approvals + (actor.id,))
        aside = len(public) - to
        if set(voters(ruleset, state)) <= set(vote.approvals):
            return await self._roll_back(channel, ruleset, game, records, vote, to, aside)
        async with self._table.write():
            await self._table.store.put_rollback_vote_tx(vote)
        return self._asked(ruleset, state, game, vote, to, aside, f"{name} votes yes.")

    async def _running(self, channel: str) -> tuple[Ruleset, GameRecord, Any, list[ActionRecord]]:
        game = await self._table.store.active_game(channel)
        if game is None:
            raise NoGame()
        game, records = await self._table.store.game_and_actions(game.id)
        ruleset = get_ruleset(game.ruleset)
        state = self._table.snapshots.load(ruleset, game.state)
        if ruleset.is_finished(state):
            raise GameError("This game is over and its seed revealed: it is not rolled back.")
        return ruleset, game, state, records

    @staticmethod
    def _check_voter(ruleset: Ruleset, state: Any, actor: Actor) -> None:
        if actor.id not in voters(ruleset, state):
            raise GameError("Only the seated players vote on a rollback (a seat the computer plays abstains).")

    @staticmethod
    def _asked(ruleset: Ruleset, state: Any, game: GameRecord, vote: RollbackVote, to: int, aside: int,
               said: str = "") -> Reply:
        """The public question: who proposed what, who has said yes, whom it waits on."""
        waiting = tuple(p for p in voters(ruleset, state) if p not in vote.approvals)
        proposer = state.player(vote.proposer)
        text = (f"{said} " if said else "") + (
            f"{proposer.name if proposer else 'A player'} proposes rolling the game back to #{to}, setting aside "
            f"{plural(aside, 'action', 'actions')} (kept in /game log). Every seated player must agree; the dice "
            f"then come from a new stream. Waiting on {', '.join(state.player(p).name for p in waiting)}: vote "
            f"with the buttons or /game rollback vote:yes|no. Any move first ends the vote.")
        return Reply("shown", text, mentions=waiting, ping_words="vote on the rollback.",
                     buttons=vote_buttons(game.id, vote.at_seq), game_id=game.id, version=game.version)

    async def _roll_back(self, channel: str, ruleset: Ruleset, game: GameRecord, records: list[ActionRecord],
                         vote: RollbackVote, to: int, aside: int, at_cut: Any = None) -> Reply:
        """Everyone agreed: the game as it was at the vote's action (`at_cut`, when already rebuilt), on the
        next dice stream; the actions after it set aside, all in one write that checks nobody moved
        meanwhile."""
        if at_cut is None:
            at_cut = await self._state_at(ruleset, game, records, vote.to_seq)
        branch = await self._table.store.rollbacks(game.id) + 1
        action = Rollback(to, branch, aside, redeal=True)
        state, events = ruleset.apply(at_cut, vote.proposer, action)
        try:
            async with self._table.write():
                game = await self._table.store.roll_back_tx(
                    game, vote.to_seq, branch, encode_state(state), vote.proposer, dumps(encode_tagged(action)),
                    dumps([encode_tagged(e) for e in events]))
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
        return replace(reply, mentions=waiting)

    async def _state_at(self, ruleset: Ruleset, game: GameRecord, records: list[ActionRecord], cut: int) -> Any:
        """The game as it was after its stored action `cut`, rebuilt off the loop; GameError before the start
        of play (a rollback never unseats anyone)."""
        state = ruleset.load_state(await self._table.heavy.run(
            heavy_jobs.rebuilt_snapshot, ruleset.id, game, log_rows(records[:cut]), items=cut))
        if state.phase == TablePhase.LOBBY:
            raise GameError("to: that is before the game started; a rollback goes back no further than its start.")
        return state


def _last_seq(records: list[ActionRecord]) -> int:
    return records[-1].seq if records else 0


def _public(ruleset: Ruleset, state: Any, records: list[ActionRecord]) -> list[int]:
    """The stored numbers of the actions the channel knows of, in order (its #1, #2, ...)."""
    return [s.record.seq for s in seen_log(ruleset, state, records, None)]


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
