"""Who may change a seat's hands now, read from the log (rules.seats has the rulings): the host or an admin
acts on another's seat only once its player is gone, and no seat changes hands more than SEAT_CHANGES
times an hour."""

from __future__ import annotations

import asyncio
import functools
import math
from collections.abc import Callable
from typing import Any

from bot.storage.store import ActionRecord
from bot.table.clock.moments import moment
from bot.table.clock.settings import HOUR, TableSettings
from bot.table.protocol.commands import Command
from bot.table.protocol.replies import Actor
from bot.table.service.shared import Table
from bot.table.trust.export import events_of
from bot.table.trust.seen import logged
from rules.engine import Ruleset
from rules.errors import GameError
from rules.registry import get_ruleset
from rules.seats import SEAT_CHANGES, changes_of, completed, last_own_action, seat_named, seats_change
from rules.table import SeatOffered, TablePhase, TakeSeat

SEAT_CHANGE_COMMANDS = frozenset({"game resign", "game seat give", "game seat take", "game seat computer"})
_PAGE = 200   # log entries read at a time, newest first


class SeatPowers:
    """Checks a seat command against the log before it is applied."""

    def __init__(self, table: Table):
        self._table = table

    async def check(self, channel: str, actor: Actor, command: Command) -> None:
        """Refuse (a GameError) a seat command the table does not allow now; anything else about it is the
        rules' to refuse (rules.seats)."""
        game = await self._table.store.active_game(channel)
        if game is None:
            return
        ruleset = get_ruleset(game.ruleset)
        state = self._table.snapshots.load(ruleset, game.state)
        if not seats_change(state) or state.phase in (TablePhase.LOBBY, TablePhase.FINISHED):
            return
        seat = _seat_of(state, actor, command)
        if seat is None:
            return
        entries: list[tuple[str, tuple]] = []
        ages: list[float] = []
        records: list[ActionRecord] = []
        before: int | None = None
        bound = TableSettings.or_defaults(game.settings).gone_hours * HOUR
        # a taker takes what was offered, though only while the player an offer was made for is still gone
        taking = command.name == "game seat take"
        acting_for = seat.id != actor.id and not taking
        if command.name == "game resign" and not acting_for:
            return   # resigning one's own seat is final and floods nothing: the log has nothing to judge (_judge)
        while True:
            page = await self._table.store.recent_ages(game.id, _PAGE, before)
            # decoded on a thread: a page's events took ~6 ms of the loop, 50 pages for a long game played in an hour
            entries += await asyncio.to_thread(_decoded, ruleset, page)
            ages += [age for _record, age in page]
            records += [record for record, _age in page]
            if len(page) < _PAGE or (ages[-1] >= HOUR and await _read_enough(entries, seat, acting_for, taking)):
                break
            before = page[-1][0].seq
        def unseen(index: int) -> bool:   # an action the asker may not learn of (a GM's private ruling)
            return ruleset.secrets is not None and ruleset.secrets.is_unseen(
                state, logged(ruleset, [records[index]])[0], actor.id)

        judge = functools.partial(self._judge, command, ruleset, entries, ages, seat, acting_for, bound, unseen)
        # a log read past its first page (many actions in the last hour) is judged on a thread: a whole
        # 10,000-action log judged at once held the event loop ~25 ms (issue 39)
        await asyncio.to_thread(judge) if len(entries) > _PAGE else judge()

    def _judge(self, command: Command, ruleset: Ruleset, entries: list[tuple[str, tuple]], ages: list[float],
               seat: Any, acting_for: bool, bound: float, unseen: Callable[[int], bool]) -> None:
        if command.name != "game resign":   # a resignation is final: it floods nothing
            _not_too_often(entries, ages, seat)
        if acting_for:
            self._gone(entries, ages, seat, bound, unseen)
        if command.name == "game seat take":
            _offer_stands(entries, seat)

    def _gone(self, entries: list[tuple[str, tuple]], ages: list[float], seat: Any, bound: float,
              unseen: Callable[[int], bool]) -> None:
        """Nothing, when the seat's player is gone; otherwise a refusal saying when they would be (without the
        times when their last action is one the asker may not learn of: a GM's private ruling)."""
        found, autopilot = last_own_action(entries, seat)
        if found is None or autopilot or ages[found] >= bound:
            return
        if unseen(found):
            raise GameError(f"{seat.name} is still playing: the host or an admin may act on their seat only once "
                            f"they are gone, silent for {_hours(bound)} or past a deadline.")
        left = bound - ages[found]
        raise GameError(f"{seat.name} is still playing (they last acted {_hours(ages[found])} ago): the host or an "
                        f"admin may act on their seat only once they are gone, silent for {_hours(bound)} "
                        f"({moment(self._table.clock() + left)}) or past a deadline.")


def _decoded(ruleset: Ruleset, page: list[tuple[ActionRecord, float]]) -> list[tuple[str, tuple]]:
    """A page of the log as (actor, events)."""
    return [(record.actor, events_of(ruleset, record)) for record, _age in page]


async def _read_enough(entries: list[tuple[str, tuple]], seat: Any, acting_for: bool, taking: bool) -> bool:
    """Whether `entries` (the log's newest, the last hour at least) hold what the command is judged on: the seat's
    player's own last action for acting on their seat, the seat's newest offer for taking it (a player back long
    ago may have played many pages since: their return alone does not tell whether it came after the offer)."""
    if not (acting_for or taking):
        return True
    found: Callable[[], bool] = (functools.partial(_offered, entries, seat) if taking
                                 else lambda: last_own_action(entries, seat)[0] is not None)
    return await asyncio.to_thread(found) if len(entries) > _PAGE else found()


def _offered(entries: list[tuple[str, tuple]], seat: Any) -> bool:
    """Whether `entries` hold an offer of the seat."""
    return any(isinstance(e, SeatOffered) and e.seat == seat.name for _actor, events in entries for e in events)


def _seat_of(state: Any, actor: Actor, command: Command) -> Any:
    """The seat a seat command is for (None: none the rules would accept; they refuse it then)."""
    try:
        if command.name == "game seat take":
            taken = completed(state, actor.id, TakeSeat())
            return state.player(taken.seat) if taken.seat else None
        return seat_named(state, actor.id, str(command.options.get("player") or ""),
                          bool(command.options.get("by_admin", False)))
    except GameError:
        return None


def _offer_stands(entries: list[tuple[str, tuple]], seat: Any) -> None:
    """Refuse taking a seat the host or an admin offered for a player gone then, who has played since: back,
    the seat is theirs again (an offer a player made of their own seat stands)."""
    offer = next(((i, e) for i, (_actor, events) in enumerate(entries) for e in events
                  if isinstance(e, SeatOffered) and e.seat == seat.name), None)   # the newest offer of the seat
    if offer is None or not offer[1].by:
        return
    own, _autopilot = last_own_action(entries, seat)
    if own is not None and own < offer[0]:
        # no word of what they did: it may be a GM's private ruling, which the taker may not learn of
        raise GameError(f"{seat.name} is no longer gone: the offer made for their seat lapsed. The host or an "
                        f"admin may offer it again once they are gone.")


def _not_too_often(entries: list[tuple[str, tuple]], ages: list[float], seat: Any) -> None:
    """Refuse a change to a seat that was already offered or changed hands SEAT_CHANGES times in the last hour
    (an offer counts: each pings a member)."""
    recent = [age for (_actor, events), age in zip(entries, ages, strict=True) if age < HOUR
              for _ in range(changes_of(events, seat))]
    if len(recent) >= SEAT_CHANGES:
        wait = max(60.0, HOUR - recent[SEAT_CHANGES - 1])
        raise GameError(f"{seat.name}'s seat was offered or changed hands {len(recent)} times in the last hour: "
                        f"try again in {math.ceil(wait / 60)} min.")


def _hours(seconds: float) -> str:
    hours = seconds / HOUR
    return f"{hours:.0f} h" if hours >= 1 else f"{max(1, math.ceil(seconds / 60))} min"
