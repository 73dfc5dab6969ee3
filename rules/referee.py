"""The referee: the one way a game applies an action, the base every game's Ruleset inherits.

A game declares its phase table (rules.phases.PhaseTable: which actions each phase allows, which only
the player waited on may take), a handler for each of its own actions, and may override the after-step
(victory, the hand-over to the next player). The referee refuses what the phase does not allow and a
turn action by anyone the game is not waiting on (by default: `check_turn`), ends the game and hands
the host's chair over the same way for every game, dispatches to the handler, and runs the after-step.
Handlers then deal with their own rules only.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from rules import seats
from rules.errors import BadOption, GameError, NotSeated, NotYourTurn
from rules.phases import PhaseTable, check_phase
from rules.table import (
    AGREED_RESULTS,
    SEAT_ACTIONS,
    AgreeResult,
    EndGame,
    GameEnded,
    OfferSeat,
    Resigned,
    ResultAgreed,
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
class Resignation:
    """A game that takes resignations: what becomes of a resigning seat's pieces (state, seat id, Resign) ->
    (state, events), the game's ruling, which also hands the turn on and ends the game as its rules say;
    and what it leaves of them, in words ("Their cars are wrecks.")."""

    rule: Handler
    leaves: str = ""


def table_command_action(command: str, options: Mapping[str, Any]) -> Any:
    """The action a table command every game shares stands for (ending, taking over, the seats), or None
    for any other command."""
    by_admin = bool(options.get("by_admin", False))
    if command == "game end":
        return EndGame(by_admin=by_admin)
    if command == "game takeover":
        return TakeOver(by_admin=by_admin)
    return seats.seat_command_action(command, dict(options))


class Referee(ABC):
    """A game's `apply`: refuse by phase and turn, end and take over, dispatch, then the after-step.

    A game sets `phases` and `handlers` (one for each of its own action types); the rest has defaults."""

    phases: PhaseTable
    handlers: Mapping[type, Handler]
    # The fields an ended game clears (whose move it was, a question left open), by name.
    cleared_on_end: Mapping[str, Any] = MappingProxyType({})
    playing_on_a_view: str = "A view with hidden things removed cannot be played on."
    resignation: Resignation | None = None   # None: the game takes no resignation
    after_lobby: bool = False   # the after-step also runs after an action taken in the lobby

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "apply" in vars(cls):
            raise TypeError(f"{cls.__name__} applies its actions through rules.referee.Referee (its phase table, "
                            f"handlers and after-step), not an apply of its own")

    def _check_referee(self) -> None:
        """Refuse a phase table and handlers that do not fit (a ValueError naming what is wrong)."""
        own = self.phases.action_types - set(TABLE_ACTIONS)
        if set(self.handlers) != own:
            missing = sorted(t.__name__ for t in own - set(self.handlers))
            extra = sorted(t.__name__ for t in set(self.handlers) - own)
            raise ValueError(f"the handlers of {self.phases.phases.__name__} do not match its phase table "
                             f"(no handler: {missing}; in no phase: {extra})")
        playing = [p for p in self.phases.phases if p not in self.phases.over]
        if any(not set(TABLE_ACTIONS) <= self.phases.allowed(p) for p in playing):
            raise ValueError("every phase before the end allows ending the game and taking it over")
        values = {p.value: p for p in self.phases.phases}
        finished = values.get(TablePhase.FINISHED)
        if finished is None or finished not in frozenset(self.phases.over):
            raise ValueError("the finished phase is one after the game, of the table's value")
        if TablePhase.LOBBY not in values:
            raise ValueError("a game's phases begin with the table's lobby")

    @property
    def finished(self) -> StrEnum:
        """The phase of a game that is over (the game's own member of the table's value)."""
        return self.phases.phases(TablePhase.FINISHED)

    def is_finished(self, state: Any) -> bool:
        """Whether the game is over: its phase is one the phase table puts after the game."""
        return self.phases.phase_of(state) in self.phases.over

    @abstractmethod
    def acting_players(self, state: Any) -> tuple[str, ...]:
        """Everyone the game waits on, in order."""

    def check_turn(self, state: Any, actor: str) -> None:
        """Refuse a turn action by a player the game is not waiting on (NotSeated, NotYourTurn). A game
        words its own refusals by overriding it; one whose every action is open to all overrides it to pass."""
        if state.player(actor) is None:
            raise NotSeated("You are not playing in this game.")
        if actor not in self.acting_players(state):
            raise NotYourTurn("It is not your turn.")

    def after(self, state: Any, actor: str, action: Any) -> tuple[Any, tuple]:
        """The step after one of the game's own actions (`action`, taken by `actor`; `state` is the state it
        left): victory, the turn passing on. By default nothing. It does not run after the table's actions,
        nor after one taken in the lobby unless `after_lobby`."""
        return state, ()

    def computer_refuses(self, state: Any, seat: str) -> str:
        """Why the computer cannot play a seat now, or "" when it can."""
        return "This game has no computer player."

    def on_rollback(self, state: Any, action: Rollback, /) -> Any:
        """What the game does with its hidden things when the table rolls it back, after the dice move to
        their new stream: the set-aside actions showed what they played and drew, so a game deals anew what
        they made known (a hand, a pile's order) with the new dice, or takes up what was set face down. By
        default nothing more than the new dice."""
        return state

    def apply(self, state: Any, actor: str, action: Any) -> tuple[Any, tuple]:
        """Referee one action by `actor`: the new state and its events, or a GameError (nothing changes)."""
        if getattr(state, "hidden", False):
            raise GameError(self.playing_on_a_view)
        if isinstance(action, SEAT_ACTIONS):
            return self._seat_change(state, actor, action)
        if isinstance(action, Rollback):
            return self._rolled_back(state, action)
        if isinstance(action, AgreeResult):
            return self._agreed(state, action)
        check_phase(self.phases, state, actor, action, self.check_turn)
        kind = type(action)
        if kind in self.phases.turn_actions:
            self.check_turn(state, actor)
        if kind is EndGame:
            by = who_ends(state, actor, action)
            return replace(state, phase=self.finished, ended_by=by, **self.cleared_on_end), (GameEnded(by),)
        if kind is TakeOver:
            return take_over(state, actor, action)
        in_lobby = state.phase == TablePhase.LOBBY
        state, events = self.handlers[kind](state, actor, action)
        if self.after_lobby or not in_lobby:   # after the game's own actions only: the table's change no turn
            state, more = self.after(state, actor, action)
            events += more
        return state, events

    def still_in(self, state: Any) -> tuple[str, ...]:
        """The seats still in the game (those who share a draw by agreement): by default every seat whose
        player did not resign; a game with eliminations leaves out the eliminated too."""
        return tuple(p.id for p in state.players if not getattr(p, "resigned", False))

    def _agreed(self, state: Any, action: AgreeResult) -> tuple[Any, tuple]:
        """The table agreed to end the running game: a draw among the players still in, or no result."""
        if state.phase in self.phases.over or state.phase == TablePhase.LOBBY:
            raise BadOption("Only a running game ends by agreement.")
        if action.result not in AGREED_RESULTS or not hasattr(state, "agreed"):
            raise BadOption("This game takes no result by agreement.")
        drawn = tuple(state.player(p).name for p in self.still_in(state)) if action.result == "draw" else ()
        state = replace(state, phase=self.finished, winner=None, agreed=action.result, **self.cleared_on_end)
        return state, (ResultAgreed(action.result, drawn),)

    def _rolled_back(self, state: Any, action: Rollback) -> tuple[Any, tuple]:
        """The game as it was at the action rolled back to (`state`), drawing on a new dice stream."""
        if state.phase in self.phases.over:
            raise BadOption("A game that has ended is not rolled back: its seed is revealed.")
        dice = getattr(state, "dice", None)   # a game with no dice (a plug-in) has no stream to move
        if dice is not None:
            if action.branch <= dice.branch:
                raise BadOption("A rollback starts a dice stream the game has not drawn from.")
            state = replace(state, dice=dice.on_branch(action.branch))
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
            refused = self.computer_refuses(state, seat.id)
            if refused:
                raise BadOption(refused)
            return seats.to_computer(state, actor, action)
        if self.resignation is None:
            raise BadOption("This game takes no resignation.")
        seat, state = seats.resigned(state, actor, action)
        by = seats.acting_for(state, actor, seat)
        state, events = self.resignation.rule(state, seat.id, action)
        return state, (Resigned(seat.name, by, self.resignation.leaves),) + events
