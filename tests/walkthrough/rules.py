"""Hare: the game docs/writing-a-game.md builds, a dice race. Players take turns to `/move`: roll one die and
run that many squares; the first hare to reach square 20 wins."""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any, ClassVar

from rules.codec import Registry
from rules.dice import DiceState, roll_d6
from rules.engine import Autopilot, ExampleOpening, LegalAction, Ruleset
from rules.errors import BadOption, WrongPhase
from rules.grammar import CommandSpec, Grammar
from rules.phases import PhaseTable
from rules.referee import TABLE_ACTIONS, Handler, Resignation
from rules.table import Player, TurnBegan, register_table_actions, register_table_events

GOAL = 20
SEATS = 4

ACTIONS, EVENTS = Registry(), Registry()
register_table_actions(ACTIONS)
register_table_events(EVENTS)


@ACTIONS.register
@dataclass(frozen=True)
class Join:
    name: str = ""


@ACTIONS.register
@dataclass(frozen=True)
class Start:
    pass


@ACTIONS.register
@dataclass(frozen=True)
class Roll:
    pass


@EVENTS.register
@dataclass(frozen=True)
class Joined:
    name: str

    def describe(self) -> str:
        return f"{self.name} joined."


@EVENTS.register
@dataclass(frozen=True)
class Ran:
    name: str
    face: int
    square: int

    def describe(self) -> str:
        return f"{self.name} rolls a d6 [{self.face}] and runs to square {self.square}."


@EVENTS.register
@dataclass(frozen=True)
class Won:
    name: str

    def describe(self) -> str:
        return f"{self.name} wins the race."


class HarePhase(StrEnum):
    """Where a race is; the values are what a stored snapshot holds."""

    LOBBY = "lobby"
    RUNNING = "running"
    FINISHED = "finished"


@dataclass(frozen=True)
class HareState:
    host: str
    dice: DiceState
    phase: HarePhase = HarePhase.LOBBY
    players: tuple[Player, ...] = ()
    squares: tuple[int, ...] = ()   # each seat's square, in seat order
    turn: int = 0                   # whose turn: an index into players
    round: int = 0
    winner: str | None = None
    ended_by: str | None = None
    hidden: bool = False            # a view: the referee will not play on it

    player_ids: ClassVar[tuple[str, ...]] = ("winner",)   # fields rules.seats renames with a seat

    def player(self, player_id: str | None) -> Player | None:
        return next((p for p in self.players if p.id == player_id), None)

    def index(self, player_id: str) -> int:
        return next(i for i, p in enumerate(self.players) if p.id == player_id)


def setup(options: dict[str, Any], seed: int, host: str) -> HareState:
    return HareState(host=host, dice=DiceState(seed))


def acting_players(state: HareState) -> tuple[str, ...]:
    return (state.players[state.turn].id,) if state.phase == HarePhase.RUNNING else ()


def _join(state: HareState, actor: str, action: Join) -> tuple[HareState, tuple]:
    if state.player(actor) is not None or len(state.players) >= SEATS:
        raise BadOption(f"You are seated already, or all {SEATS} seats are taken.")
    seat = Player(actor, action.name or actor)
    return replace(state, players=state.players + (seat,), squares=state.squares + (0,)), (Joined(seat.name),)


def _start(state: HareState, actor: str, action: Start) -> tuple[HareState, tuple]:
    if actor != state.host or len(state.players) < 2:
        raise WrongPhase(STARTS)
    return replace(state, phase=HarePhase.RUNNING), (TurnBegan(state.players[0].name, 0),)


def _roll(state: HareState, actor: str, action: Roll) -> tuple[HareState, tuple]:
    dice, (face,) = roll_d6(state.dice, 1)
    seat = state.index(actor)
    square = min(GOAL, state.squares[seat] + face)
    squares = state.squares[:seat] + (square,) + state.squares[seat + 1:]
    return replace(state, dice=dice, squares=squares), (Ran(state.players[seat].name, face, square),)


STARTS = "The host starts the race once two hares are seated."
PHASES = PhaseTable(
    HarePhase,
    allows={HarePhase.LOBBY: (Join, Start, *TABLE_ACTIONS), HarePhase.RUNNING: (Roll, *TABLE_ACTIONS),
            HarePhase.FINISHED: ()},
    expects={HarePhase.LOBBY: STARTS, HarePhase.RUNNING: "The hare whose turn it is rolls: /move"},
    refusals={Join: "The race has started; seats are closed.", Start: STARTS},
    over=(HarePhase.FINISHED,),
    turn_actions=(Roll,),
)
HANDLERS: dict[type, Handler] = {Join: _join, Start: _start, Roll: _roll}


def _won(state: HareState, seat: Player) -> tuple[HareState, tuple]:
    return replace(state, phase=HarePhase.FINISHED, winner=seat.id), (Won(seat.name),)


def _next_turn(state: HareState) -> tuple[HareState, tuple]:
    """The turn passes to the next hare still running; a new round begins after the last seat."""
    turn, round_ = state.turn, state.round
    while True:
        turn = (turn + 1) % len(state.players)
        round_ += turn == 0
        if not state.players[turn].resigned:
            break
    state = replace(state, turn=turn, round=round_)
    return state, (TurnBegan(state.players[turn].name, round_),)


def _resigned(state: HareState, seat_id: str, action: Any) -> tuple[HareState, tuple]:
    """A resigned hare leaves the race: the last one running wins; else the turn passes on if it was theirs."""
    running = [p for p in state.players if not p.resigned]
    if len(running) == 1:
        return _won(state, running[0])
    if acting_players(state) == (seat_id,):
        return _next_turn(state)
    return state, ()


def legal_actions(state: HareState, player: str) -> tuple[LegalAction, ...]:
    if state.phase == HarePhase.LOBBY:
        offers = [] if state.player(player) else [LegalAction("/game join", "Join")]
        if player == state.host and len(state.players) >= 2:
            offers.append(LegalAction("/game start", "Start", action=Start()))
        return tuple(offers)
    if player not in acting_players(state):
        return ()
    return (LegalAction("/move", "Roll and run", action=Roll(), primary=True),)


def view(state: HareState, viewer: str | None) -> HareState:
    """Nothing is hidden but the dice seed, which would tell the rolls to come."""
    return replace(state, dice=DiceState(0, state.dice.counter, state.dice.branch), hidden=True)


def describe(state: HareState) -> str:
    hares = ", ".join(f"{p.name} on {square}" for p, square in zip(state.players, state.squares, strict=True))
    return f"A hare race to square {GOAL}. {hares or 'No hares yet'}."


def prompt(state: HareState) -> str:
    if state.phase == HarePhase.LOBBY:
        return "Lobby: /game join, then the host uses /game start."
    if state.phase == HarePhase.FINISHED:
        return "The race is over."
    return f"Round {state.round + 1}: {state.players[state.turn].name} to /move."


def game_command(command: str, options: dict[str, Any]) -> Any:
    if command == "game join":
        return Join(options.get("name", ""))
    if command == "game start":
        return Start()
    if command == "move":
        return Roll()
    raise BadOption(f"Hare has no command /{command}.")


class Hare(Ruleset[HareState]):
    """The hare race."""

    id = "hare"
    title = "Hare"
    state_type = HareState
    actions, events = ACTIONS, EVENTS
    example = ExampleOpening("", (("ann", "/game join"), ("ben", "/game join"), ("ann", "/game start")))
    grammar = Grammar(commands=(CommandSpec("move", "Hare: roll the die and run"),), rules_topics={"move": "running"})
    phases = PHASES
    handlers = HANDLERS
    resignation = Resignation(_resigned, "Their hare leaves the race.")
    autopilot = Autopilot(lambda state, player, passive: Roll() if player in acting_players(state) else None,
                          lambda passive: "it rolls")

    setup = staticmethod(setup)
    legal_actions = staticmethod(legal_actions)
    view = staticmethod(view)
    describe = staticmethod(describe)
    game_command = staticmethod(game_command)
    acting_players = staticmethod(acting_players)
    prompt = staticmethod(prompt)

    def turn_key(self, state: HareState) -> str:
        return f"{state.phase}:{state.round}:{state.turn}"

    def after(self, state: HareState, actor: str, action: Any) -> tuple[HareState, tuple]:
        """After a roll: the hare on the goal wins, else the turn passes on."""
        seat = state.index(actor)
        if state.squares[seat] >= GOAL:
            return _won(state, state.players[seat])
        return _next_turn(state)


RULESET = Hare()
