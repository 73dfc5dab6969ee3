"""Phases as data: which actions each phase of a game allows, checked before an action's handler runs.

A game names its phases with a `StrEnum` (a stored snapshot keeps the plain strings) and lists, for
each phase, the action types it takes. `check_phase` refuses any other action with a message saying
what the phase expects; in a phase after the game (`over`) every action is refused as `GameOver`.
A turn action (one only the player the game waits on takes) goes through the ruleset's turn check
before its phase refusal, so a player told what the phase expects is the one who can do it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property
from typing import Any

from rules.errors import BadOption, GameOver, WrongPhase

GAME_OVER = "This game is over."


@dataclass(frozen=True)
class PhaseTable:
    """A game's phases, the action types each allows, and what a refusal in each tells the player."""

    phases: type[StrEnum]
    allows: Mapping[StrEnum, Iterable[type]]  # every phase: the action types it takes
    # every phase but those `over`: what refusing another action says (or a function of the state
    # that says it, as a game whose prompt names who it waits on)
    expects: Mapping[StrEnum, str | Callable[[Any], str]]
    # An action's own refusal wherever it is not allowed (seats close once the game starts), said
    # instead of the phase's expectation (or a function of the state that says it).
    refusals: Mapping[type, str | Callable[[Any], str]] = field(default_factory=dict)
    over: Iterable[StrEnum] = ()  # phases after the game: every action is GameOver
    turn_actions: Iterable[type] = ()  # taken only by the player the game waits on

    def __post_init__(self) -> None:
        object.__setattr__(self, "allows", {p: frozenset(types) for p, types in self.allows.items()})
        object.__setattr__(self, "over", frozenset(self.over))
        object.__setattr__(self, "turn_actions", frozenset(self.turn_actions))
        missing = [p for p in self.phases if p not in self.allows or (p not in self.expects and p not in self.over)]
        if missing:
            raise ValueError(f"the phase table of {self.phases.__name__} lacks {', '.join(missing)}")
        if any(self.allows[p] for p in self.over):
            raise ValueError("a phase after the game allows no action")
        if not frozenset(self.turn_actions) <= self.action_types:   # already one: frozenset() gives it back
            raise ValueError("a turn action no phase allows")

    def phase_of(self, state: Any) -> StrEnum:
        """The state's phase as a member of the game's enum (a test may have set the plain string)."""
        phase = state.phase
        # already a member (nearly always): the enum's call, asked many times a move, would give it back
        return phase if type(phase) is self.phases else self.phases(phase)

    def allowed(self, phase: str) -> frozenset[type]:
        """The action types `phase` takes."""
        return frozenset(self.allows[self.phases(phase)])   # made one in __post_init__: given back as it is

    @cached_property
    def action_types(self) -> frozenset[type]:
        """Every action type some phase allows."""
        return frozenset().union(*self.allows.values())

    def refusal(self, phase: str, action_type: type, state: Any = None) -> str | None:
        """What refusing `action_type` in `phase` (of `state`) says, or None when the phase allows it."""
        phase = self.phases(phase)
        if phase in self.over:
            return GAME_OVER
        if action_type in self.allows[phase]:
            return None
        expected = self.refusals.get(action_type) or self.expects[phase]
        return expected(state) if callable(expected) else expected


def check_phase(table: PhaseTable, state: Any, actor: str, action: Any,
                check_turn: Callable[[Any, str], None] | None = None) -> None:
    """Refuse `action` by `actor` unless the state's phase allows its type.

    After the game everything is GameOver; an action no phase takes is a BadOption. A turn action
    the phase refuses first meets `check_turn(state, actor)` (which raises NotSeated or NotYourTurn
    for a player the game does not wait on); any other refusal is WrongPhase.
    """
    phase = table.phase_of(state)
    kind = type(action)
    if phase not in table.over and kind not in table.action_types:
        raise BadOption(f"This game has no action {kind.__name__}.")
    message = table.refusal(phase, kind, state)
    if message is None:
        return
    if phase in table.over:
        raise GameOver(message)
    if check_turn is not None and kind in table.turn_actions:
        check_turn(state, actor)
    raise WrongPhase(message)
