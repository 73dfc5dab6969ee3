"""Toy: a tiny race on a 5x5 grid with secret, simultaneous moves, to prove the plug-in framework.

Every round each player secretly declares a direction with `/move direction:north|south|east|west`;
nobody sees another's choice until all have declared, then every token moves at once. The first to
reach the top row wins (several at once share the win); after `rounds` rounds it is a draw.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from rules.codec import Registry
from rules.engine import Autopilot, ComputerSeats, ExampleOpening, LegalAction, Ruleset, Secrets, last_of_each
from rules.errors import BadOption, NotHost, NotSeated, NotYourTurn, WrongPhase
from rules.grammar import ROUND_CAP, CommandSpec, Grammar, OptionSpec
from rules.phases import PhaseTable
from rules.referee import TABLE_ACTIONS
from rules.table import register_table_actions, register_table_events

SIZE = 5
DIRECTIONS = {"north": (0, -1), "south": (0, 1), "east": (1, 0), "west": (-1, 0)}
ACTIONS, EVENTS = Registry(), Registry()
register_table_actions(ACTIONS)
register_table_events(EVENTS)


@ACTIONS.register
@dataclass(frozen=True)
class Join:
    name: str


@ACTIONS.register
@dataclass(frozen=True)
class AddComputer:
    pass


@ACTIONS.register
@dataclass(frozen=True)
class Start:
    pass


@ACTIONS.register
@dataclass(frozen=True)
class Declare:
    direction: str


@EVENTS.register
@dataclass(frozen=True)
class Joined:
    player: str

    def describe(self) -> str:
        return f"{self.player} joined."


@EVENTS.register
@dataclass(frozen=True)
class Declared:
    player: str  # never the direction: it stays secret until everyone has declared

    def describe(self) -> str:
        return f"{self.player} declared a move."


@EVENTS.register
@dataclass(frozen=True)
class Revealed:
    moves: tuple[str, ...]

    def describe(self) -> str:
        return "Revealed: " + ", ".join(self.moves) + "."


@dataclass(frozen=True)
class Seat:
    id: str
    name: str
    x: int
    y: int = SIZE - 1
    ai: bool = False


@dataclass(frozen=True)
class ToyState:
    host: str
    max_rounds: int = 20
    players: tuple[Seat, ...] = ()
    phase: str = "lobby"  # lobby, declare, finished
    round: int = 0
    declared: tuple[tuple[str, str], ...] = ()  # (player, direction), hidden from the channel
    winner: str | None = None
    ended_by: str = ""

    def player(self, player_id: str) -> Seat | None:
        return next((p for p in self.players if p.id == player_id), None)


def setup(options: dict[str, Any], seed: int, host: str) -> ToyState:
    rounds = options.get("rounds", 20)
    return ToyState(host=host, max_rounds=rounds)


def acting_players(state: ToyState) -> tuple[str, ...]:
    """Everyone who has not declared yet this round: they are all waited on at once."""
    if state.phase != "declare":
        return ()
    done = {p for p, _ in state.declared}
    return tuple(p.id for p in state.players if p.id not in done)


def _reveal(state: ToyState) -> tuple[ToyState, tuple]:
    chosen = dict(state.declared)
    moved = []
    for seat in state.players:
        dx, dy = DIRECTIONS[chosen[seat.id]]
        moved.append(replace(seat, x=min(SIZE - 1, max(0, seat.x + dx)), y=min(SIZE - 1, max(0, seat.y + dy))))
    words = tuple(f"{s.name} {chosen[s.id]}" for s in state.players)
    state = replace(state, players=tuple(moved), declared=(), round=state.round + 1)
    home = [s for s in moved if s.y == 0]
    if home:
        state = replace(state, phase=ToyPhase.FINISHED, winner=home[0].id)
    elif state.round >= state.max_rounds:
        state = replace(state, phase=ToyPhase.FINISHED)
    return state, (Revealed(words),)


class ToyPhase(StrEnum):
    """Where a toy game is; the values are what a stored snapshot holds."""

    LOBBY = "lobby"
    DECLARE = "declare"
    FINISHED = "finished"


def _check_turn(state: ToyState, actor: str) -> None:
    if state.player(actor) is None:
        raise NotSeated("You are not playing in this game.")
    if actor not in acting_players(state):
        raise NotYourTurn("You have declared this round; the others have not yet.")


def _seat(state: ToyState, actor: str, action: Join | AddComputer) -> tuple[ToyState, tuple]:
    if isinstance(action, AddComputer) and actor != state.host:
        raise NotHost("Only the host can add a computer player.")
    number = len(state.players) + 1
    seat = Seat(f"ai-{number}", f"Bot{number}", len(state.players), ai=True) if isinstance(action, AddComputer) \
        else Seat(actor, action.name or actor, len(state.players))
    if state.player(seat.id) or len(state.players) >= SIZE:
        raise BadOption("That seat is taken, or the table is full.")
    return replace(state, players=state.players + (seat,)), (Joined(seat.name),)


def _start(state: ToyState, actor: str, _action: Start) -> tuple[ToyState, tuple]:
    if actor != state.host or len(state.players) < 2:
        raise WrongPhase(STARTS)
    return replace(state, phase=ToyPhase.DECLARE), ()


def _declare(state: ToyState, actor: str, action: Declare) -> tuple[ToyState, tuple]:
    if action.direction not in DIRECTIONS:
        raise BadOption(f"direction: one of {', '.join(DIRECTIONS)}.")
    state = replace(state, declared=state.declared + ((actor, action.direction),))
    events: tuple = (Declared(state.player(actor).name),)
    if not acting_players(state):
        state, more = _reveal(state)
        events += more
    return state, events


# The house style: the phases say what each allows and who may act; one handler an action; the
# referee (rules.referee) does the rest, ending and taking over included.
STARTS = "The host starts the game once two players are seated."
SEATS_CLOSED = "The game has already started; seats are closed."
PHASES = PhaseTable(
    ToyPhase,
    allows={ToyPhase.LOBBY: (Join, AddComputer, Start, *TABLE_ACTIONS), ToyPhase.DECLARE: (Declare, *TABLE_ACTIONS),
            ToyPhase.FINISHED: ()},
    expects={ToyPhase.LOBBY: STARTS, ToyPhase.DECLARE: "Every player declares a move: /move direction:…"},
    refusals={Join: SEATS_CLOSED, AddComputer: SEATS_CLOSED, Start: STARTS},
    over=(ToyPhase.FINISHED,),
    turn_actions=(Declare,),
)
HANDLERS = {Join: _seat, AddComputer: _seat, Start: _start, Declare: _declare}


def view(state: ToyState, viewer: str | None) -> ToyState:
    """The channel sees who has declared, never what; a player also sees their own choice."""
    return replace(state, declared=tuple((p, d if p == viewer else "?") for p, d in state.declared))


def legal_actions(state: ToyState, player: str) -> tuple[LegalAction, ...]:
    if state.phase == "lobby":
        joined = state.player(player) is not None
        offers = [] if joined else [LegalAction("/game join", "Join")]
        if player == state.host:
            offers.append(LegalAction("/game start", "Start", action=Start()))
        return tuple(offers)
    if player not in acting_players(state):
        return ()
    return tuple(LegalAction(f"/move direction:{d}", d.capitalize(), action=Declare(d)) for d in DIRECTIONS)


def command_to_action(command: str, options: dict[str, Any]) -> Any:
    simple = {"game start": Start, "game add-ai": AddComputer}
    if command in simple:
        return simple[command]()
    if command == "game join":
        return Join(options.get("name", ""))
    if command == "move":
        return Declare(options["direction"])
    raise BadOption(f"Toy has no command /{command}.")


def describe(state: ToyState) -> str:
    tokens = ", ".join(f"{p.name} at {p.x},{p.y}" for p in state.players)
    waiting = ", ".join(state.player(p).name for p in acting_players(state))
    return f"Toy race on a {SIZE}x{SIZE} grid. {tokens or 'No players yet'}." + \
        (f" Waiting for: {waiting}." if waiting else "")


def prompt(state: ToyState) -> str:
    if state.phase == "lobby":
        return "Lobby: /game join, then the host uses /game start."
    if state.phase == "finished":
        return "The game is over."
    names = ", ".join(state.player(p).name for p in acting_players(state))
    return f"Round {state.round + 1}: {names} to declare a move secretly (/move direction:…)."


def turn_key(state: ToyState) -> str:
    return f"{state.phase}:{state.round}"


def _computer(state: ToyState, player: str) -> Declare | None:
    seat = state.player(player)
    return Declare("north") if seat and seat.ai and player in acting_players(state) else None


GRAMMAR = Grammar(commands=(
    CommandSpec("move", "Toy: declare your move for this round, secretly", (
        OptionSpec("direction", "str", "Toy: where your token goes", required=True,
                   choices=tuple(DIRECTIONS)),
    )),
), new_options=(ROUND_CAP,), rules_topics={"move": "moving"})

class Toy(Ruleset[ToyState]):
    """The toy race: a game is a Ruleset subclass, registered as one instance."""

    id = "toy"
    title = "Toy"
    state_type = ToyState
    actions, events = ACTIONS, EVENTS
    example = ExampleOpening("", (("ann", "/game join"), ("ben", "/game join"), ("ann", "/game start")))
    grammar = GRAMMAR
    private_actions = True
    phases = PHASES
    handlers = HANDLERS

    setup = staticmethod(setup)
    legal_actions = staticmethod(legal_actions)
    view = staticmethod(view)
    describe = staticmethod(describe)
    game_command = staticmethod(command_to_action)
    acting_players = staticmethod(acting_players)
    prompt = staticmethod(prompt)
    turn_key = staticmethod(turn_key)
    check_turn = staticmethod(_check_turn)

    round_cap = staticmethod(lambda state: state.max_rounds)
    secrets = Secrets(lambda state, log, viewer: last_of_each(
        log, {p for p, _ in state.declared if p != viewer}, Declare, "a move, declared in secret"))
    computer = ComputerSeats(lambda state, p: bool(state.player(p) and state.player(p).ai), _computer)
    autopilot = Autopilot(lambda state, p, passive: Declare("north") if p in acting_players(state) else None,
                          lambda passive: "it goes north")


RULESET = Toy()
