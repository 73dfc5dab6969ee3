"""The turn's order (seed, Turn Structure): every driver sets a speed counter in secret, the counters
are revealed together, then each driver in turn moves and fires; when all have moved the next turn
begins from the old counters. Also who is still in the game, and its end."""

from __future__ import annotations

from dataclasses import replace

from rules.battlecars.damage import is_running
from rules.battlecars.events import GameDrawn, GameWon, MoveEnded
from rules.battlecars.movement import carry_drift, left_to_move
from rules.battlecars.passive import smoke_roll
from rules.battlecars.pedestrians import new_turn
from rules.battlecars.speed import reveal, waiting
from rules.battlecars.state import BattlecarsState, Phase
from rules.seats import answer_first
from rules.table import TurnBegan


def acting_players(state: BattlecarsState) -> tuple[str, ...]:
    """Everyone the game waits on: all who have not set a speed (at once), the moving driver, the
    driver choosing where a hit lands, or the one who may return fire."""
    if state.phase == Phase.SPEED:
        return waiting(state)
    if state.phase == Phase.MOVE and state.active:
        return (state.active,)
    if state.phase == Phase.SECTION:
        return (state.open_hit.chooser,)
    if state.phase == Phase.RETURN:
        return (state.open_return.chooser,)
    return ()


def drivers_left(state: BattlecarsState) -> tuple[str, ...]:
    """The players still in the game, in moving order: a driver aboard a running vehicle, or on foot."""
    return tuple(p for p in state.order
                 if ((v := state.vehicle_of(p)) and is_running(v)) or state.pedestrian_of(p) is not None)


def check_victory(state: BattlecarsState) -> tuple[BattlecarsState, tuple]:
    """Seed: "The last vehicle (or driver) still operational wins. A player is eliminated when their
    driver is killed." None left at once: a draw. Not while the rammed driver places a ram's damage
    (revision 6): both vehicles' shares land first (seed: "Both vehicles take full damage")."""
    if state.phase in (Phase.LOBBY, Phase.FINISHED) or (state.pending_hit is not None and state.pending_hit.ram):
        return state, ()
    left = drivers_left(state)
    if len(left) == 1:
        return replace(state, phase=Phase.FINISHED, winner=left[0], active=None, pending_hit=None), \
            (GameWon(state.seat(left[0]).name, state.pedestrian_of(left[0]) is not None),)
    if not left:
        return replace(state, phase=Phase.FINISHED, active=None, pending_hit=None), \
            (GameDrawn("no vehicle is left running"),)
    return state, ()


def next_mover(state: BattlecarsState) -> tuple[BattlecarsState, tuple]:
    """Hand the move to the next driver in order with a running vehicle, or end the turn."""
    left = drivers_left(state)
    after = state.order.index(state.active) + 1 if state.active in state.order else 0
    for player in state.order[after:]:
        if player in left:
            state = replace(state, active=player, returned=())
            began = (TurnBegan(state.seat(player).name, state.round),)
            if state.pedestrian_of(player) is not None:
                return state, began
            state, drifted = carry_drift(state, state.vehicle_for(player).id)
            return state, began + drifted
    return end_of_turn(state)


def end_move(state: BattlecarsState) -> tuple[BattlecarsState, tuple]:
    """The active driver's move is over: the next one moves."""
    walker = state.pedestrian_of(state.active)
    name = walker.name if walker else state.vehicle_for(state.active).name
    state, events = next_mover(state)
    return state, (MoveEnded(name),) + events


def end_of_turn(state: BattlecarsState) -> tuple[BattlecarsState, tuple]:
    """Every driver has moved: the smoke roll, then the round cap may end the game in a draw, else new
    speed counters."""
    state, events = smoke_roll(new_turn(replace(state, active=None)))
    if state.max_rounds is not None and state.round + 1 >= state.max_rounds:
        return replace(state, phase=Phase.FINISHED), events + (GameDrawn(f"the {state.max_rounds}-turn limit"),)
    state = replace(state, phase=Phase.SPEED, round=state.round + 1)
    if waiting(state):
        return state, events
    # Every driver left is on foot: no counter to set, straight to the moves.
    state, more = next_mover(replace(state, phase=Phase.MOVE))
    return state, events + more


def move_is_complete(state: BattlecarsState) -> bool:
    """Whether the active vehicle has driven its whole speed (or was stopped), so its move may end (a
    three-point turn may keep its facing); a driver on foot may end whenever they like."""
    vehicle = state.vehicle_of(state.active)
    return state.pedestrian_of(state.active) is not None or vehicle is None or vehicle.destroyed or \
        left_to_move(vehicle) == 0


def resign(state: BattlecarsState, player: str, _action: object) -> tuple[BattlecarsState, tuple]:
    """Ruling (the seed is silent): a player who resigns is eliminated as if their driver were killed:
    their vehicle stays where it is, empty, and their driver (aboard or on foot) leaves the board, with any
    counter they had set. The last driver in the game then wins; a step that waited only on them goes on.
    Not while the table waits on them to place a hit or return fire: they answer first."""
    if state.phase in (Phase.SECTION, Phase.RETURN) and player in acting_players(state):
        raise answer_first(state, player, "say where the hit lands or whether to return fire")
    state = replace(state, vehicles=tuple(replace(v, driver_out=True) if v.owner == player else v
                                          for v in state.vehicles),
                    pedestrians=tuple(p for p in state.pedestrians if p.owner != player),
                    declared=tuple((p, s) for p, s in state.declared if p != player))
    state, events = check_victory(state)
    if state.phase == Phase.SPEED and not waiting(state):
        state, revealed = reveal(state)
        state, more = next_mover(state)
        return state, events + revealed + more
    if state.phase == Phase.MOVE and state.active == player:
        state, more = next_mover(state)
        return state, events + more
    return state, events
