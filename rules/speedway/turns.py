"""Turn sequencing: whose turn, Upkeep for each car, then Movement for each car (seed: Player Turns).

Wrecked cars are skipped, a player with no car left is skipped, and the game ends when at most
one player still has an operable car (or at the round cap, as a draw).
"""

from __future__ import annotations

from dataclasses import replace

from rules.seats import answer_first
from rules.speedway import collisions, data, hazards
from rules.speedway.combat import legal_shots
from rules.speedway.damage import damage_car, roll_symbols
from rules.speedway.events import FireChipsRemoved, GameDrawn, GameWon, InertiaShed, MustTurnBlocked, TurnBegan
from rules.speedway.phases import RUNNING, SpeedwayPhase
from rules.speedway.state import SEED_AUDIT, SpeedwayState


def alive_players(state: SpeedwayState) -> tuple[str, ...]:
    """Players who still have an operable car, in seating order."""
    return tuple(p.id for p in state.players if state.operable_cars_of(p.id))


def check_victory(state: SpeedwayState) -> tuple[SpeedwayState, tuple]:
    """End the game when one player (or none) has a car left running."""
    if state.phase not in RUNNING:
        return state, ()
    alive = alive_players(state)
    if len(alive) > 1:
        return state, ()
    finished = replace(state, phase=SpeedwayPhase.FINISHED, active_car=None, pending_skid=None,
                       pending_ram=None, moves_left=0)
    if alive:
        return replace(finished, winner=alive[0]), (GameWon(state.seat(alive[0]).name),)
    return finished, (GameDrawn("no car is left running"),)


def others_move_before_next_turn(state: SpeedwayState, player: str) -> bool:
    """Whether another player with a running car takes a turn before `player`'s next one (with two
    players, the last of a round is also the first of the next: nobody moves in between)."""
    later = state.turn_order[state.turn_index + 1:]
    following = replace(state, round=state.round + 1).turn_order
    upcoming = later + following[:following.index(player)] if player in following else later
    return any(p != player and state.operable_cars_of(p) for p in upcoming)


def begin_turn(state: SpeedwayState) -> tuple[SpeedwayState, tuple]:
    """Start the active player's turn: Upkeep step 1 for each of their cars, then ask for speeds."""
    player = state.current_player
    if not state.operable_cars_of(player):
        return end_turn(state)
    events: list = [TurnBegan(state.seat(player).name, state.round)]
    for car in state.operable_cars_of(player):
        car = replace(car, fired=())
        if car.speed == 0:
            removed, reason = car.inertia, "starting at speed 0 clears all inertia"
        else:
            removed = min(car.inertia, car.systems.rating("suspension"))
            reason = f"Suspension {car.systems.rating('suspension')}"
        state = state.with_car(replace(car, inertia=car.inertia - removed))
        if removed:
            events.append(InertiaShed(car.name, removed, car.inertia - removed, reason))
    first = state.operable_cars_of(player)[0]
    state = replace(state, phase=SpeedwayPhase.UPKEEP, active_car=first.id, moves_left=0, moves_total=0,
                    pending_skid=None, pending_ram=None)
    return state, tuple(events)


def _burn(state: SpeedwayState, car_id: str) -> tuple[SpeedwayState, tuple]:
    """Upkeep steps 3 and 4: blue dice per On Fire chip for damage, red dice per chip to put it out."""
    chips = state.car(car_id).fire_chips
    if not chips:
        return state, ()
    state, events, _ = damage_car(state, car_id, ("blue",) * chips, "burning", None)
    car = state.car(car_id)
    dice, faces = roll_symbols(state.dice, data.damage_dice()["red"], car.fire_chips)
    blanks = min(car.fire_chips, sum(1 for f in faces if f == "-"))
    state = replace(state, dice=dice).with_car(replace(car, fire_chips=car.fire_chips - blanks))
    return state, events + (FireChipsRemoved(car.name, faces, blanks, car.fire_chips - blanks),)


def _next_car(state: SpeedwayState) -> str | None:
    cars = [c.id for c in state.cars_of(state.current_player)]
    for car_id in cars[cars.index(state.current_car.id) + 1:]:
        if not state.car(car_id).out:
            return car_id
    return None


def after_speed_set(state: SpeedwayState) -> tuple[SpeedwayState, tuple]:
    """Upkeep steps 3-4 for the car; then the next car's speed, or step 5 and the Movement phase."""
    state, events = _burn(state, state.current_car.id)
    following = _next_car(state)
    if following:
        return replace(state, active_car=following), events
    state, smoke = hazards.clear_smoke_of(state, state.current_player)
    events += smoke
    remaining = state.operable_cars_of(state.current_player)
    if not remaining:
        state, more = end_turn(state)
        return state, events + more
    state, more = start_movement(state, remaining[0].id)
    return state, events + more


def start_movement(state: SpeedwayState, car_id: str) -> tuple[SpeedwayState, tuple]:
    """Give `car_id` as many Moves as its speed; a car at speed 0 only gets to fire (and drop).

    A car that lost a ram with outcome A on its last Move must Turn on this first Move, "if possible,
    or stops otherwise" (revision 3): with no Turn open, it stops before moving (from revision 6 it
    is then a car given no Move, which may still drop before it ends its turn).
    """
    car = state.car(car_id)
    state = replace(state, phase=SpeedwayPhase.MOVEMENT, active_car=car_id, moves_left=car.speed,
                    moves_total=car.speed)
    if car.must_turn and car.speed > 0 and not collisions.turn_is_open(car, collisions.open_for(state, (car_id,))):
        state, halted = collisions.stopped(state, car_id, "no Turn was open after the ram")
        if state.revision >= SEED_AUDIT:
            state = replace(state, moves_total=0)
        state, more = finish_move(state)
        return state, (MustTurnBlocked(car.name),) + halted + more
    return finish_move(state)


def can_still_act(state: SpeedwayState) -> bool:
    """A car with no Moves left waits for /end only while one of its weapons has a legal shot, or (from
    revision 6) while a car given no Move this turn may still drop a mine, oil or smoke: for a car
    standing still, its Movement phase is the only point "during its movement" to fire them (seed)."""
    car = state.current_car
    if legal_shots(state, car):
        return True
    return state.revision >= SEED_AUDIT and state.moves_total == 0 \
        and any(hazards.can_deploy(state, car, weapon) for weapon in car.weapons)


def finish_move(state: SpeedwayState) -> tuple[SpeedwayState, tuple]:
    """After a Move (or a shot) resolves: continue, wait to fire, or hand over."""
    state = replace(state, phase=SpeedwayPhase.MOVEMENT, pending_skid=None)
    car = state.current_car
    if car.out:
        return finish_car(state)
    if state.moves_left > 0 or can_still_act(state):
        return state, ()
    return finish_car(state)


def finish_car(state: SpeedwayState) -> tuple[SpeedwayState, tuple]:
    """The active car's movement is over: the next car of the player moves, or the turn passes.
    Paint's Targeting loss lasts until the end of the car's turn."""
    car = state.current_car
    state = replace(state.with_car(replace(car, painted=False)) if car.painted else state, moves_left=0)
    following = _next_car(state)
    if following:
        return start_movement(state, following)
    return end_turn(state)


def end_turn(state: SpeedwayState) -> tuple[SpeedwayState, tuple]:
    """Pass the turn to the next player in this round's order, starting a new round after the last."""
    state, events = check_victory(state)
    if state.phase == SpeedwayPhase.FINISHED:
        return state, events
    index = state.turn_index + 1
    if index >= len(state.order):
        state = replace(state, round=state.round + 1, turn_index=0)
        if state.max_rounds is not None and state.round >= state.max_rounds:
            state = replace(state, phase=SpeedwayPhase.FINISHED, active_car=None, moves_left=0)
            return state, (GameDrawn(f"the round limit of {state.max_rounds} was reached"),)
    else:
        state = replace(state, turn_index=index)
    return begin_turn(state)


def resign(state: SpeedwayState, player: str, _action: object) -> tuple[SpeedwayState, tuple]:
    """Ruling (the seed is silent): a player who resigns takes every car of theirs out of the game, each
    left on the map as a wreck; the game ends if one player (or none) still has a car running, and a
    turn of theirs under way passes on. Not while the table waits on them to choose a ram's outcome in
    another's turn: they answer first."""
    if state.pending_ram is not None and state.pending_ram.chooser == player and state.active_player != player:
        raise answer_first(state, player, "choose the ram's outcome with /ram")
    for car in state.cars_of(player):
        state = state.with_car(replace(car, out=True, speed=0, skid=None, fire_chips=0))
    if state.phase not in RUNNING or state.active_player != player:
        return check_victory(state)
    state = replace(state, pending_skid=None, pending_ram=None, moves_left=0)
    return end_turn(state)
