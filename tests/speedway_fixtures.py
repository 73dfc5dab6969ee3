"""Compact Speedway positions for tests, built through the real referee (`SPEEDWAY.apply`).

A table is set up, seated and started with real actions; then `dataclasses.replace` puts the active
car exactly where a test needs it. Hexes are written as map labels ("M9") everywhere.
"""

from __future__ import annotations

from dataclasses import replace

from rules.dice import DiceState
from rules.hexgrid import DIRECTION_NAMES, direction_index, label, parse_label
from rules.speedway.actions import Join, Start
from rules.speedway.phases import SpeedwayPhase
from rules.speedway.ruleset import SPEEDWAY
from rules.speedway.state import Car, SpeedwayState

# With game seed 2, `/game start` for alice and bob rolls the order (alice, bob): alice moves first.
GAME_SEED = 2
CENTRE = "M9"  # the middle of the Classic Bowl, at least four hexes from every wall and obstacle
# Bob's car parked nose-in in the north-west corner (B2-C3 facing NW): no Brawler gun reaches
# between it and Alice at the centre or at the walls the tests drive into, so nobody waits to fire.
PARKED = ("B2", "NW")


def facing_of(facing: int | str) -> int:
    """A facing given as an index (0 E ... 5 SE) or a compass name ('NE')."""
    return direction_index(facing) if isinstance(facing, str) else facing


def apply(state: SpeedwayState, actor: str, action) -> tuple[SpeedwayState, tuple]:
    """Referee one action through the real ruleset."""
    return SPEEDWAY.apply(state, actor, action)


def lobby(names: tuple[str, ...] = ("alice", "bob"), designs: tuple[str, ...] = (),
          seed: int = GAME_SEED) -> SpeedwayState:
    """Set up with the first name as host and seat everyone (optionally with designs)."""
    state = SPEEDWAY.setup({}, seed, names[0])
    for i, name in enumerate(names):
        car = designs[i] if i < len(designs) else ""
        state, _ = apply(state, name, Join(name, car))
    return state


def started(names: tuple[str, ...] = ("alice", "bob"), designs: tuple[str, ...] = (),
            seed: int = GAME_SEED) -> SpeedwayState:
    """A started game, first player in Upkeep."""
    state, _ = apply(lobby(names, designs, seed), names[0], Start())
    return state


def active(state: SpeedwayState) -> Car:
    """The car whose turn it is."""
    return state.car(state.active_car)


def car_of(state: SpeedwayState, owner: str) -> Car:
    """A player's (only) car."""
    return state.cars_of(owner)[0]


def place(state: SpeedwayState, owner: str, front: str, facing: int | str, **fields) -> SpeedwayState:
    """Put `owner`'s car at `front` facing `facing`, with any other Car fields replaced."""
    car = car_of(state, owner)
    return state.with_car(replace(car, front=parse_label(front), facing=facing_of(facing), **fields))


def driving(front: str = CENTRE, facing: int | str = 0, speed: int = 5, inertia: int = 0,
            moves_left: int | None = None, dice_seed: int | None = None,
            bob: tuple[str, int | str] | None = PARKED, **fields) -> SpeedwayState:
    """Alice in her Movement phase: her car at `front`/`facing` with `speed` and `inertia`.

    `moves_left` defaults to the speed; `dice_seed` restarts the dice stream at (seed, 0) so the
    next roll's faces are fixed. Bob's car is put at `bob` (front, facing): PARKED out of every
    shot by default, None for his start slot.
    """
    state = started()
    assert state.active_player == "alice"
    if bob is not None:
        state = place(state, "bob", *bob)
    state = place(state, "alice", front, facing, speed=speed, inertia=inertia, **fields)
    moves = speed if moves_left is None else moves_left
    state = replace(state, phase=SpeedwayPhase.MOVEMENT, moves_left=moves, moves_total=moves)
    if dice_seed is not None:
        state = replace(state, dice=DiceState(dice_seed, 0))
    return state


def upkeep(speed: int = 0, inertia: int = 0, bob: tuple[str, int | str] | None = PARKED,
           **fields) -> SpeedwayState:
    """Alice in her Upkeep phase (speed not yet chosen) with her car at the centre; Bob as in `driving`."""
    state = started()
    assert state.active_player == "alice" and state.phase == "upkeep"
    if bob is not None:
        state = place(state, "bob", *bob)
    return place(state, "alice", CENTRE, 0, speed=speed, inertia=inertia, **fields)


def where(car: Car) -> tuple[str, str, str]:
    """(front label, back label, facing name): a car's pose as players read it."""
    return label(car.front), label(car.back), DIRECTION_NAMES[car.facing]


def of_type(events: tuple, kind: type) -> list:
    """The events of one type, in order."""
    return [e for e in events if isinstance(e, kind)]
