"""What every ruleset provides, and the registry the bot looks rulesets up in."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any, Callable

from rules.codec import Registry
from rules.errors import GameError
from rules.grammar import Grammar


class ReplayRefused(GameError):
    """A logged action the rules refuse when the log is re-run."""

    def __init__(self, number: int):
        super().__init__(f"action #{number} is not legal at that point")
        self.number = number


@dataclass(frozen=True)
class LegalAction:
    """A command the acting player may type (or press) now, with a short label."""

    command: str
    label: str
    group: str = ""  # actions sharing a group (the ways to play one card) can share one menu button


@dataclass(frozen=True)
class Ruleset:
    """A game's pure functions over immutable state (see DESIGN.md "Layers")."""

    id: str
    title: str
    state_type: type
    actions: Registry
    events: Registry
    setup: Callable[[dict[str, Any], int, str], Any]
    apply: Callable[[Any, str, Any], tuple[Any, tuple]]
    legal_actions: Callable[[Any, str], tuple[LegalAction, ...]]
    view: Callable[[Any, str | None], Any]
    describe: Callable[[Any], str]
    command_to_action: Callable[[str, dict[str, Any]], Any]
    is_finished: Callable[[Any], bool]
    acting_players: Callable[[Any], tuple[str, ...]]
    prompt: Callable[[Any], str]
    query: Callable[[Any, str, dict[str, Any]], str]  # read-only questions such as /odds
    computer_command: Callable[[Any, str], str | None]  # what a computer seat plays now
    is_computer: Callable[[Any, str], bool]  # whether a seat is a computer driver (cheap)
    turn_key: Callable[[Any], str]  # changes exactly when the turn passes to someone else
    undo_blocker: Callable[[Any, Any], str | None]  # why (before -> after) cannot be taken back
    autopilot_command: Callable[..., str | None]  # (state, player, brake=False): a deadline's move
    suggest: Callable[[Any, str, str, str, dict[str, Any]], list[tuple[str, str]]]  # autocomplete offers
    plan_preview: Callable[[Any, str, list[str]], Any]  # a planned turn worked out without dice
    grammar: Grammar = Grammar()  # the ruleset's own commands and its /game new and /game join options
    private_hands: bool = False  # legal actions reveal hidden cards: offer them only in private replies
    # The newest rules revision. A new game stores it as its setup option "revision"; a game stored
    # without one is revision 1 and keeps replaying (and playing) exactly as it always did.
    revision: int = 1


def replay(ruleset: Ruleset, setup_options: dict[str, Any], seed: int, host: str,
           actions: list[tuple[str, Any]]) -> Any:
    """Rebuild a state from its setup and its action log (actor, action) in order."""
    return replay_states(ruleset, setup_options, seed, host, actions)[-1]


def replay_states(ruleset: Ruleset, setup_options: dict[str, Any], seed: int, host: str,
                  actions: list[tuple[str, Any]]) -> list[Any]:
    """Every state of a game: the setup, then the state after each logged action."""
    states = [ruleset.setup(setup_options, seed, host)]
    for actor, action in actions:
        states.append(ruleset.apply(states[-1], actor, action)[0])
    return states


def replay_with_events(ruleset: Ruleset, setup_options: dict[str, Any], seed: int, host: str,
                       actions: list[tuple[str, Any]]) -> tuple[Any, Any, list[tuple]]:
    """The setup state, the final state, and the events of each logged action in order.

    A refused action raises ReplayRefused naming its position only: the rules' own message is
    written for the player who acted then, and may show what only they could see.
    """
    first = state = ruleset.setup(setup_options, seed, host)
    events: list[tuple] = []
    for number, (actor, action) in enumerate(actions, start=1):
        try:
            state, happened = ruleset.apply(state, actor, action)
        except (GameError, TypeError, ValueError, AttributeError, KeyError):  # an imported log may be hostile
            raise ReplayRefused(number) from None
        events.append(happened)
    return first, state, events


def get_ruleset(ruleset_id: str) -> Ruleset:
    """Look up a ruleset by id; KeyError when unknown."""
    return _rulesets()[ruleset_id]


@cache
def _rulesets() -> dict[str, Ruleset]:
    # Imported on first use: the rulesets import this module.
    from rules.speedway.ruleset import SPEEDWAY
    from rules.track.ruleset import TRACK

    return {SPEEDWAY.id: SPEEDWAY, TRACK.id: TRACK}


def ruleset_ids() -> tuple[str, ...]:
    """Ids of the playable rulesets."""
    return tuple(_rulesets())
