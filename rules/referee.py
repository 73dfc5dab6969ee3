"""The referee: the one way a game applies an action.

A game declares its phase table (rules.phases.PhaseTable: which actions each phase allows, which only
the player waited on may take), a handler for each of its own actions, and an after-step (victory, the
hand-over to the next player). The referee refuses what the phase does not allow and a turn action by
anyone the game is not waiting on, ends the game and hands the host's chair over the same way for
every game, dispatches to the handler, and runs the after-step. Handlers then deal with their own
rules only.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from rules import seats
from rules.errors import BadOption, GameError
from rules.phases import PhaseTable, check_phase
from rules.table import (
    SEAT_ACTIONS,
    EndGame,
    GameEnded,
    OfferSeat,
    Resigned,
    Rollback,
    RolledBack,
    SeatToComputer,
    TablePhase,
    TakeOver,
    TakeSeat,
    take_over,
    who_ends,
)

Handler = Callable[[Any, str, Any], tuple[Any, tuple]]
TABLE_ACTIONS = (EndGame, TakeOver)   # every game's, in every phase before the end


@dataclass(frozen=True)
class Referee:
    """A game's `apply`: refuse by phase and turn, end and take over, dispatch, then the after-step."""

    phases: PhaseTable
    handlers: Mapping[type, Handler]   # one for each of the game's own action types
    finished: StrEnum                  # the phase of a game that is over
    # The fields an ended game clears (whose move it was, a question left open), by name.
    cleared_on_end: Mapping[str, Any] = field(default_factory=dict)
    # Raises NotSeated or NotYourTurn for a player the game is not waiting on (turn actions only).
    check_turn: Callable[[Any, str], None] | None = None
    # (the state after one of the game's own actions) -> (the state, more events): victory, the turn
    # passing on.
    after: Callable[[Any], tuple[Any, tuple]] | None = None
    playing_on_a_view: str = "A view with hidden things removed cannot be played on."
    # What becomes of a resigning seat's pieces (state, seat id, Resign) -> (state, events): the game's
    # ruling, which also hands the turn on and ends the game as its rules say. None: no resignation.
    resign: Handler | None = None
    resign_leaves: str = ""   # what a resignation leaves of the seat's pieces, in words ("Their cars are wrecks.")
    # Why the computer cannot play a seat (state, seat id) -> a refusal, or "" when it can. None: the
    # game has no computer player.
    computer_refuses: Callable[[Any, str], str] | None = None
    # What a game does with its hidden things when the table rolls it back, after the dice move to their
    # new stream (state, the Rollback) -> state: the set-aside actions showed what they played and drew, so
    # a game deals anew what they made known (a hand, a pile's order) with the new dice, or takes up what
    # was set face down. None: nothing more than the new dice.
    on_rollback: Callable[[Any, Rollback], Any] | None = None

    def __post_init__(self) -> None:
        own = self.phases.action_types - set(TABLE_ACTIONS)
        if set(self.handlers) != own:
            missing = sorted(t.__name__ for t in own - set(self.handlers))
            extra = sorted(t.__name__ for t in set(self.handlers) - own)
            raise ValueError(f"the handlers of {self.phases.phases.__name__} do not match its phase table "
                             f"(no handler: {missing}; in no phase: {extra})")
        playing = [p for p in self.phases.phases if p not in self.phases.over]
        if any(not set(TABLE_ACTIONS) <= self.phases.allowed(p) for p in playing):
            raise ValueError("every phase before the end allows ending the game and taking it over")
        if self.finished not in self.phases.over or self.finished != TablePhase.FINISHED:
            raise ValueError("the finished phase is one after the game, of the table's value")
        if TablePhase.LOBBY not in set(self.phases.phases):
            raise ValueError("a game's phases begin with the table's lobby")

    def __call__(self, state: Any, actor: str, action: Any) -> tuple[Any, tuple]:
        """Referee one action by `actor`: the new state and its events, or a GameError (nothing changes)."""
        if getattr(state, "hidden", False):
            raise GameError(self.playing_on_a_view)
        if isinstance(action, SEAT_ACTIONS):
            return self._seat_change(state, actor, action)
        if isinstance(action, Rollback):
            return self._rolled_back(state, action)
        check_phase(self.phases, state, actor, action, self.check_turn)
        kind = type(action)
        if self.check_turn is not None and kind in self.phases.turn_actions:
            self.check_turn(state, actor)
        if kind is EndGame:
            by = who_ends(state, actor, action)
            return replace(state, phase=self.finished, ended_by=by, **self.cleared_on_end), (GameEnded(by),)
        if kind is TakeOver:
            return take_over(state, actor, action)
        state, events = self.handlers[kind](state, actor, action)
        if self.after is not None:   # after the game's own actions only: the table's change no turn
            state, more = self.after(state)
            events += more
        return state, events

    def _rolled_back(self, state: Any, action: Rollback) -> tuple[Any, tuple]:
        """The game as it was at the action rolled back to (`state`), drawing on a new dice stream."""
        if state.phase in self.phases.over:
            raise BadOption("A game that has ended is not rolled back: its seed is revealed.")
        dice = getattr(state, "dice", None)   # a game with no dice (a plug-in) has no stream to move
        if dice is not None:
            if action.branch <= dice.branch:
                raise BadOption("A rollback starts a dice stream the game has not drawn from.")
            state = replace(state, dice=dice.on_branch(action.branch))
        if self.on_rollback is not None:
            state = self.on_rollback(state, action)
        return state, (RolledBack(action.to, action.branch, action.set_aside),)

    def _seat_change(self, state: Any, actor: str, action: Any) -> tuple[Any, tuple]:
        """A seat changing hands (rules.seats), the same in every game but for what a resignation leaves."""
        if not seats.seats_change(state):
            raise BadOption("This game's seats do not change hands.")
        if isinstance(action, OfferSeat):
            return seats.offer(state, actor, action)
        if isinstance(action, TakeSeat):
            return seats.take(state, actor, action)
        if isinstance(action, SeatToComputer):
            seat = seats.seat_named(state, actor, action.seat, action.by_admin)
            refused = "This game has no computer player." if self.computer_refuses is None \
                else self.computer_refuses(state, seat.id)
            if refused:
                raise BadOption(refused)
            return seats.to_computer(state, actor, action)
        if self.resign is None:
            raise BadOption("This game takes no resignation.")
        seat, state = seats.resigned(state, actor, action)
        by = seats.acting_for(state, actor, seat)
        state, events = self.resign(state, seat.id, action)
        return state, (Resigned(seat.name, by, self.resign_leaves),) + events
