"""Speedway as a Ruleset: setup, apply, legal actions, view and description (seed 000)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from rules.dice import DiceState, shuffle
from rules.engine import LegalAction, Ruleset
from rules.errors import (BadOption, GameOver, IllegalManeuver, IllegalSpeed, NotHost, NotSeated,
                          NotYourTurn, TableFull, WrongPhase)
from rules.hexgrid import DIRECTION_NAMES, label
from rules.speedway import data
from rules.speedway.actions import ACTIONS, AnswerSkid, EndGame, Join, Move, SetSpeed, Start
from rules.speedway.cars import new_car
from rules.speedway.driving import (SLIDE, counter_hexes, driver_roll, maneuver_choices,
                                    maneuver_pose, obstruction, parse_maneuver, skid_vector, skids_at,
                                    slide, stop_car)
from rules.speedway.events import (EVENTS, CarManeuvered, ControlLost, ControlRegained, GameEnded,
                                   GameStarted, PlayerJoined, SkidPending, SpeedLost, SpeedSet)
from rules.speedway.state import Car, PendingSkid, Player, SpeedwayState
from rules.speedway.turns import after_speed_set, begin_turn, finish_move

SKID_CHOICES = ("accept", "resist")
MAX_NAME_LENGTH = 32


def setup(options: dict[str, Any], seed: int, host: str) -> SpeedwayState:
    """A new game in the lobby, on the chosen (or default) arena."""
    arena_id = options.get("arena") or data.table_limits()["default_arena"]
    try:
        data.arena(arena_id)
    except KeyError:
        raise BadOption(f"No arena called '{arena_id}'. Arenas: {', '.join(data.arena_ids())}.") from None
    return SpeedwayState(arena=arena_id, host=host, dice=DiceState(seed))


# --- lobby -------------------------------------------------------------------------------------

def _join(state: SpeedwayState, actor: str, action: Join):
    if state.phase != "lobby":
        raise WrongPhase("The game has already started; seats are closed.")
    if state.player(actor):
        raise BadOption("You are already seated at this table.")
    limits = data.table_limits()
    if len(state.players) >= limits["max_players"]:
        raise TableFull(f"The table is full ({limits['max_players']} players).")
    design_id = action.car or data.default_design()
    designs = data.car_designs()
    if design_id not in designs:
        raise BadOption(f"No car design called '{design_id}'. Designs: {', '.join(designs)}.")
    name = action.name.strip()[:MAX_NAME_LENGTH] or actor[:MAX_NAME_LENGTH]
    if any(p.name == name for p in state.players):
        name = f"{name}#{len(state.players) + 1}"
    seat = len(state.players)
    car = new_car(designs[design_id], f"c{seat + 1}", actor, name, colour=seat)
    state = replace(state, players=state.players + (Player(actor, name),), cars=state.cars + (car,))
    return state, (PlayerJoined(name, designs[design_id].name),)


def _start(state: SpeedwayState, actor: str, action: Start):
    if state.phase != "lobby":
        raise WrongPhase("The game has already started.")
    if actor != state.host:
        raise NotHost("Only the host can start the game.")
    limits = data.table_limits()
    if not limits["min_players"] <= len(state.players) <= limits["max_players"]:
        raise WrongPhase(f"Speedway needs {limits['min_players']} to {limits['max_players']} players; "
                         f"{len(state.players)} seated.")
    arena = data.arena(state.arena)
    placed = tuple(replace(car, front=arena.starts[i].front, facing=arena.starts[i].facing)
                   for i, car in enumerate(state.cars))
    dice, order = shuffle(state.dice, tuple(p.id for p in state.players))
    state = replace(state, cars=placed, dice=dice, order=order, round=0, turn_index=0, phase="upkeep")
    names = tuple(state.player(p).name for p in order)
    state, events = begin_turn(state)
    return state, (GameStarted(names),) + events


def _end(state: SpeedwayState, actor: str, action: EndGame):
    if actor != state.host and not action.by_admin:
        raise NotHost("Only the host or a server admin can end the game.")
    by = state.player(actor).name if state.player(actor) else actor
    return replace(state, phase="finished", ended_by=by, active_car=None, pending_skid=None), (GameEnded(by),)


# --- a turn ------------------------------------------------------------------------------------

def _active_car_for(state: SpeedwayState, actor: str, phases: tuple[str, ...]) -> Car:
    """The car `actor` may act with now, or a refusal that says why not."""
    if not state.player(actor):
        raise NotSeated("You are not playing in this game. Use /game join before it starts.")
    if state.phase == "lobby":
        raise WrongPhase("The game has not started yet; the host uses /game start.")
    if state.active_player != actor:
        raise NotYourTurn(f"It is {state.player(state.active_player).name}'s turn, not yours.")
    if state.phase not in phases:
        raise WrongPhase(_phase_hint(state))
    return state.car(state.active_car)


def _phase_hint(state: SpeedwayState) -> str:
    car = state.car(state.active_car)
    if state.phase == "upkeep":
        low, high = speed_range(car)
        return f"First set {car.name}'s speed for this turn: /speed value:{low}..{high}."
    if state.phase == "skid":
        return f"{car.name} is skidding: answer with /skid choice:accept or /skid choice:resist."
    if not car.in_control:
        return f"{car.name} is out of control: /move maneuver:slide."
    moves = "1 Move" if state.moves_left == 1 else f"{state.moves_left} Moves"
    return f"{car.name} has {moves} left: use /move."


def speed_range(car: Car) -> tuple[int, int]:
    """Upkeep step 2: the speeds the car may choose, within Brakes below and Engine above."""
    top = data.table_limits()["max_speed"]
    low = max(0, car.speed - car.systems.rating("brakes"))
    high = min(top, car.speed + car.systems.rating("engine"))
    return low, max(low, high)


def _set_speed(state: SpeedwayState, actor: str, action: SetSpeed):
    car = _active_car_for(state, actor, ("upkeep",))
    low, high = speed_range(car)
    if not low <= action.value <= high:
        raise IllegalSpeed(f"{car.name} is at speed {car.speed}: Brakes {car.systems.rating('brakes')} and "
                           f"Engine {car.systems.rating('engine')} allow {low} to {high}.")
    events: tuple = (SpeedSet(car.name, car.speed, action.value),)
    updated = replace(car, speed=action.value)
    if action.value == 0 and not car.in_control:
        # A car brought to a halt is no longer skidding (the same ruling as a slide that reaches 0).
        updated = replace(updated, in_control=True, skid=None)
        events += (ControlRegained(car.name),)
    state, more = after_speed_set(state.with_car(updated))
    return state, events + more


def _move(state: SpeedwayState, actor: str, action: Move):
    car = _active_car_for(state, actor, ("movement",))
    if action.skid and action.skid not in SKID_CHOICES:
        raise BadOption("The skid answer is accept or resist.")
    if not car.in_control:
        if action.maneuver != SLIDE:
            raise IllegalManeuver(f"{car.name} is out of control and can only slide: /move maneuver:slide.")
        return _out_of_control_move(state, car)
    if action.maneuver == SLIDE:
        raise IllegalManeuver(f"{car.name} is in control; choose a maneuver instead of slide.")
    maneuver, side = parse_maneuver(action.maneuver)
    front, facing = maneuver_pose(car, maneuver, side)
    state = replace(state, moves_left=state.moves_left - 1, last_roll=None)
    blocked = obstruction(state, car.id, counter_hexes(front, facing))
    if blocked:
        state, events = stop_car(state, car, blocked[1])
        more_state, more = finish_move(state)
        return more_state, events + more
    moved = replace(car, front=front, facing=facing, inertia=car.inertia + maneuver.inertia)
    state = state.with_car(moved)
    events: tuple = (CarManeuvered(car.name, action.maneuver, label(car.front), label(front),
                                   DIRECTION_NAMES[facing], maneuver.inertia),)
    if skids_at(maneuver, moved.speed):
        vector = skid_vector(car.facing, maneuver, side)
        state = replace(state, phase="skid", pending_skid=PendingSkid(action.maneuver, vector))
        events += (SkidPending(car.name, moved.speed, maneuver.skid_speed, DIRECTION_NAMES[vector]),)
        if action.skid:
            state, more = _resolve_skid(state, action.skid)
            return state, events + more
        return state, events
    state, more = finish_move(state)
    return state, events + more


def _answer_skid(state: SpeedwayState, actor: str, action: AnswerSkid):
    _active_car_for(state, actor, ("skid",))
    if action.choice not in SKID_CHOICES:
        raise BadOption("The skid answer is accept or resist.")
    return _resolve_skid(state, action.choice)


def _resolve_skid(state: SpeedwayState, choice: str) -> tuple[SpeedwayState, tuple]:
    """Accept: slide along the skid vector and stay In Control. Resist: a Driver Roll decides."""
    car = state.car(state.active_car)
    vector = state.pending_skid.vector
    state = replace(state, pending_skid=None)
    if choice == "accept":
        state, events, _ = slide(state, car, vector, "skid accepted")
        more_state, more = finish_move(state)
        return more_state, events + more
    state, roll = driver_roll(state, car, car.speed + car.inertia, "resists the skid",
                              "Driver Roll vs speed + inertia")
    events: tuple = (roll,)
    if not roll.success:
        state, slid, moving = slide(state, car, vector, "failed to resist")
        events += slid
        if moving:
            state = state.with_car(replace(state.car(car.id), in_control=False, skid=vector))
            events += (ControlLost(car.name, DIRECTION_NAMES[vector]),)
    state, more = finish_move(state)
    return state, events + more


def _out_of_control_move(state: SpeedwayState, car: Car) -> tuple[SpeedwayState, tuple]:
    """Out Of Control: slide one hex along the skid, lose one speed, then try to regain control."""
    state = replace(state, moves_left=state.moves_left - 1, last_roll=None)
    state, events, moving = slide(state, car, car.skid, "out of control")
    if moving:
        car = state.car(car.id)
        car = replace(car, speed=car.speed - 1)
        state = state.with_car(car)
        events += (SpeedLost(car.name, car.speed),)
        if car.speed == 0:
            state, stopped = stop_car(state, car, "it slowed to a halt")
            events += stopped
        else:
            state, roll = driver_roll(state, car, car.speed + car.inertia, "tries to regain control",
                                      "Driver Roll vs speed + inertia")
            events += (roll,)
            if roll.success:
                state = state.with_car(replace(car, in_control=True, skid=None))
                events += (ControlRegained(car.name),)
    state, more = finish_move(state)
    return state, events + more


_HANDLERS = {
    Join: _join, Start: _start, SetSpeed: _set_speed, Move: _move, AnswerSkid: _answer_skid,
    EndGame: _end,
}


def apply(state: SpeedwayState, actor: str, action: Any) -> tuple[SpeedwayState, tuple]:
    """Referee one action by `actor`: the new state and its events, or a GameError."""
    if state.phase == "finished":
        raise GameOver("This game is over.")
    handler = _HANDLERS.get(type(action))
    if handler is None:
        raise BadOption(f"Speedway has no action {type(action).__name__}.")
    new_state, events = handler(state, actor, action)
    summary = " ".join(e.describe() for e in events)
    return replace(new_state, last_action=summary), events


# --- what can be done, seen and said -----------------------------------------------------------

def legal_actions(state: SpeedwayState, player: str) -> tuple[LegalAction, ...]:
    """The commands `player` may use now (empty when it is not their move)."""
    if state.phase == "lobby":
        actions = []
        if not state.player(player):
            actions.append(LegalAction("/game join", "Join"))
        if player == state.host:
            actions.append(LegalAction("/game start", "Start"))
        return tuple(actions)
    if state.active_player != player or state.phase == "finished":
        return ()
    car = state.car(state.active_car)
    if state.phase == "upkeep":
        low, high = speed_range(car)
        return tuple(LegalAction(f"/speed value:{v}", f"Speed {v}") for v in range(low, high + 1))
    if state.phase == "skid":
        return tuple(LegalAction(f"/skid choice:{c}", c.capitalize()) for c in SKID_CHOICES)
    if not car.in_control:
        return (LegalAction(f"/move maneuver:{SLIDE}", "Slide"),)
    return tuple(LegalAction(f"/move maneuver:{m}", m) for m in maneuver_choices())


def view(state: SpeedwayState, viewer: str | None) -> SpeedwayState:
    """Speedway has no hidden information: everyone sees the whole table."""
    return state


def _car_line(state: SpeedwayState, car: Car) -> str:
    design = data.car_designs()[car.design].name
    if car.front is None:
        return f"{car.name} ({design}) waiting in the pits."
    control = "in control" if car.in_control else f"OUT OF CONTROL skidding {DIRECTION_NAMES[car.skid]}"
    return (f"{car.name}'s {design} at {label(car.front)}-{label(car.back)} facing {DIRECTION_NAMES[car.facing]}, "
            f"speed {car.speed}, inertia {car.inertia}, {control}.")


def describe(state: SpeedwayState) -> str:
    """The table in words, for alt text and logs."""
    arena = data.arena(state.arena)
    lines = [f"Speedway in the {arena.name} ({arena.columns}x{arena.rows} hexes)."]
    lines += [_car_line(state, car) for car in state.cars]
    if state.phase == "lobby":
        lines.append(f"Lobby: {len(state.players)} seated; waiting for the host to start.")
    elif state.phase == "finished":
        lines.append(f"Game over (ended by {state.ended_by})." if state.ended_by else "Game over.")
    else:
        lines.append(f"Round {state.round + 1}, {state.player(state.active_player).name}'s turn: "
                     + _phase_hint(state))
    return " ".join(lines)


def command_to_action(command: str, options: dict[str, Any]) -> Any:
    """Translate a typed command (already syntax-checked by the bot) into a Speedway action."""
    if command == "game join":
        return Join(name=options.get("name", ""), car=options.get("car", ""))
    if command == "game start":
        return Start()
    if command == "game end":
        return EndGame(by_admin=bool(options.get("by_admin", False)))
    if command == "speed":
        return SetSpeed(int(options["value"]))
    if command == "move":
        return Move(options["maneuver"], options.get("skid", ""))
    if command == "skid":
        return AnswerSkid(options["choice"])
    raise BadOption(f"Speedway has no command /{command}.")


def prompt(state: SpeedwayState) -> str:
    """What the game waits for, in one line: whose turn and which command."""
    if state.phase == "lobby":
        return "Waiting for players to /game join and the host to /game start."
    if state.phase == "finished":
        return "The game is over."
    return f"{state.player(state.active_player).name}: {_phase_hint(state)}"


def acting_players(state: SpeedwayState) -> tuple[str, ...]:
    """Who the game is waiting on."""
    return (state.active_player,) if state.active_player else ()


SPEEDWAY = Ruleset(
    id="speedway",
    title="Speedway",
    state_type=SpeedwayState,
    actions=ACTIONS,
    events=EVENTS,
    setup=setup,
    apply=apply,
    legal_actions=legal_actions,
    view=view,
    describe=describe,
    command_to_action=command_to_action,
    is_finished=lambda state: state.phase == "finished",
    acting_players=acting_players,
    prompt=prompt,
)
