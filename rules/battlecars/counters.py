"""Which speed counters of a running game's log a viewer may not read: every counter never turned up.

Judged by what each counter action is, never by where it sits: a counter stays face down until the speed
step it was set in turns the counters up, which the log shows by a move, a shot or an answer after it
(nothing else follows a reveal, and nothing else happens in a speed step). A driver who resigns in a speed
step leaves with their counter (rules.battlecars.turns.resign): it is never turned up. A rollback that returns to
a speed step takes its counters up (`ruleset._counters_taken_up`), so a counter set there before the
rollback is never turned up: the log shows that by a counter set after the rollback before any move, or
by the game still being in that speed step.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rules.battlecars.actions import SetSpeed
from rules.battlecars.state import BattlecarsState, Phase
from rules.engine import Logged
from rules.referee import TABLE_ACTIONS
from rules.seats import seat_called
from rules.table import OUTSIDE_PHASES, Resign, Rollback

STAND_IN = "a speed counter, face down"
_NO_MOVE = (*TABLE_ACTIONS, *OUTSIDE_PHASES)   # what a speed step may see besides its counters


def face_down(state: BattlecarsState, log: Sequence[Logged], viewer: str | None) -> dict[int, str]:
    """A `withheld` (rules.engine.Secrets): every counter in `log` not yet turned up, or taken up by a
    rollback, but the viewer's own. `log` is a line of play, or a stretch of it that runs to its end, and
    `state` the game there."""
    hidden: list[Logged] = []
    unturned: list[Logged] = []   # counters set since the last move
    rolled_back = False           # a rollback since them: a counter set next shows it returned to their step
    for entry in log:
        action: Any = entry.action
        if isinstance(action, SetSpeed):
            if rolled_back:
                hidden += unturned
                unturned, rolled_back = [], False
            unturned.append(entry)
        elif isinstance(action, Rollback):
            rolled_back = True
        elif isinstance(action, Resign):
            seat = seat_called(state, action.seat) if action.seat else None
            leaving = seat.id if seat is not None else action.seat or entry.actor
            hidden += [e for e in unturned if e.actor == leaving]
            unturned = [e for e in unturned if e.actor != leaving]
        elif not isinstance(action, _NO_MOVE):
            unturned, rolled_back = [], False
    if state.phase == Phase.SPEED:   # set in this step, or taken up by the rollback that returned here
        hidden += unturned
    return {entry.seq: STAND_IN for entry in hidden if entry.actor != viewer}
