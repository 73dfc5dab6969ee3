"""Speedway driving, turns and table rules, checked against the seed and rules/speedway/RULES.md.

Every position is built through the real referee (see speedway_fixtures.py) and every outcome is
read off the resulting state and events. Hexes are map labels; around the centre M9 the
neighbours are N9 (E), M8 (NE), L8 (NW), L9 (W), L10 (SW) and M10 (SE).

Driver dice: the white die is 0,1,2,2,3,4; the gray collision die is A A S B D - (data/dice.toml).
Tests that depend on a roll restart the dice stream at (seed, 0) and state the faces that seed
rolls, so the dice are documented here.

Bob's car is parked out of every shot (speedway_fixtures.PARKED) unless a test puts it elsewhere:
a car with a legal shot waits for /fire or /end after its last Move instead of passing the turn.
"""

from __future__ import annotations

import copy
import tomllib
from dataclasses import replace

import pytest

from images.speedway.last_turn import last_roll
from rules.dice import DiceState
from rules.engine import LegalAction
from rules.errors import BadOption, GameOver, NotHost, NotSeated, NotYourTurn, TableFull, WrongPhase
from rules.hexgrid import distance, label, parse_label, step
from rules.speedway import data
from rules.speedway.actions import AnswerSkid, ChooseRam, EndGame, EndTurn, Fire, Join, Move, SetSpeed, Start
from rules.speedway.cars import new_car
from rules.speedway.driving import counter_hexes, skid_vector
from rules.speedway.errors import IllegalManeuver, IllegalSpeed
from rules.speedway.events import (
    ArmorDisregarded,
    CarManeuvered,
    CarRotated,
    CarSlid,
    CarStopped,
    Collided,
    ControlLost,
    ControlRegained,
    DamageRolled,
    DamageTaken,
    DiceRolled,
    GameEnded,
    GameStarted,
    InertiaShed,
    PlayerJoined,
    SkidPending,
    SpeedLost,
    SpeedLostInCrash,
    SpeedSet,
    TurnBegan,
    WeaponFired,
)
from rules.speedway.ruleset import SPEEDWAY, legal_actions, speed_range
from rules.speedway.state import DamageTrack, PendingRam, PendingSkid

try:
    from speedway_fixtures import active, apply, car_of, driving, lobby, of_type, place, started, upkeep, where
except ImportError:  # tests/ imported as a package
    from tests.speedway_fixtures import active, apply, car_of, driving, lobby, of_type, place, started, upkeep, where

E, NE, NW, W, SW, SE = range(6)
MANEUVERS = ("normal", "sideslip-left", "sideslip-right", "turn-left", "turn-right",
             "tight-turn-left", "tight-turn-right")
# An Out Of Control car's only Move (it may still /drop or /fire between Moves).
SLIDE_ONLY = "/move maneuver:slide"


def commands(state, player: str = "alice", prefix: str = "/") -> list[str]:
    """The player's legal commands that start with `prefix` ('/move', '/fire', ...)."""
    return [a.command for a in legal_actions(state, player) if a.command.startswith(prefix)]


def idle_turn(state):
    """The active player sets speed 0; if a shot keeps the car waiting, they /end the turn."""
    mover = state.active_player
    state, events = apply(state, mover, SetSpeed(0))
    if state.phase == "movement":  # else the turn passed (perhaps to the same player's next turn)
        assert state.moves_left == 0 and commands(state, mover, "/fire")
        state, more = apply(state, mover, EndTurn())
        events += more
    return state, events


def pass_until(state, player: str):
    """Other players take speed-0 turns until `player`'s turn begins; the last events too.

    With two players the order (alice, bob) becomes (bob, alice) in round 1, so Bob moves twice.
    """
    events = ()
    while state.active_player != player:
        state, events = idle_turn(state)
    return state, events


def roll_of(events) -> DiceRolled:
    (roll,) = of_type(events, DiceRolled)
    return roll


# --- Game Components --------------------------------------------------------------------------

@pytest.mark.parametrize("facing, back", [
    (E, "L9"), (NE, "L10"), (NW, "M10"), (W, "N9"), (SW, "M8"), (SE, "L8"),
])
def test_counter_is_two_hexes_in_line(facing, back):
    state = driving("M9", facing)
    car = active(state)
    assert label(car.front) == "M9" and label(car.back) == back
    assert car.hexes == (parse_label("M9"), parse_label(back))
    assert distance(car.front, car.back) == 1
    # the front is one step ahead of the back, in the facing direction
    assert step(car.back, facing) == car.front
    assert counter_hexes(car.front, car.facing) == car.hexes


def test_counter_back_trails_after_a_maneuver():
    state, _ = apply(driving("M9", E, speed=2), "alice", Move("tight-turn-left"))
    # front to M8, facing NW: the back is now SE of the front, at N9
    assert where(active(state)) == ("M8", "N9", "NW")


def test_driver_die_faces_come_from_data(monkeypatch):
    with (data.DATA_DIR / "dice.toml").open("rb") as fh:
        on_file = tuple(tomllib.load(fh)["driver"])
    assert on_file == data.driver_die() == (0, 1, 2, 2, 3, 4)

    # Every face a resist roll shows is one of the file's faces, across many seeds.
    seen = set()
    for seed in range(1, 40):
        state = driving("M9", E, speed=5, dice_seed=seed)
        _, events = apply(state, "alice", Move("turn-left", skid="resist"))
        roll = roll_of(events)
        assert roll.dice == "white driver dice"
        assert len(roll.faces) == 4 and roll.total == sum(roll.faces)
        seen.update(roll.faces)
    assert seen == {0, 1, 2, 3, 4}

    # Swap the die's faces and the referee rolls the new faces.
    monkeypatch.setattr(data, "driver_die", lambda: (9,))
    _, events = apply(driving("M9", E, speed=5, dice_seed=1), "alice", Move("turn-left", skid="resist"))
    roll = roll_of(events)
    assert roll.faces == (9, 9, 9, 9) and roll.total == 36 and roll.success


# --- Cars ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("boxes, crossed, after, rating", [
    ((3, 3, 2, 2, 1), 0, 0, 3),      # leftmost box
    ((3, 3, 2, 2, 1), 2, 0, 2),      # leftmost undamaged box
    ((3, 3, 2, 2, 1), 4, 0, 1),
    ((3, 3, 2, 2, 1), 5, 1, 1),      # all crossed: the number after the boxes
    ((3, 3, 2, 2, 1), 5, 0, 0),
    ((4, 4, 3, 3, 2, 1), 5, None, 1),
    ((4, 4, 3, 3, 2, 1), 6, None, None),  # all crossed, no number: disabled
])
def test_damage_track_rating(boxes, crossed, after, rating):
    assert DamageTrack(boxes, crossed, after).rating == rating


def test_damage_track_cross_and_disabled_counts_as_zero():
    driver = DamageTrack((4, 4, 3, 3, 2, 1))
    assert driver.cross().rating == 4
    assert driver.cross(3).rating == 3
    assert driver.cross(2).cross(2).rating == 2
    assert driver.cross(99).crossed == 6 and driver.cross(99).rating is None
    car = new_car(data.car_designs()["brawler"], "c9", "x", "x", 0)
    dead = replace(car.systems, driver=car.systems.driver.cross(6))
    assert car.systems.rating("driver") == 4
    assert dead.rating("driver") == 0


BASE_ROWS = {
    "engine": ((3, 3, 2, 2, 1), 0),
    "brakes": ((3, 3, 2, 2, 1), 1),
    "suspension": ((3, 2, 2, 1, 1), 0),
    "driver": ((4, 4, 3, 3, 2, 1), None),
    "targeting": ((2, 2, 1, 1), 0),
    "armor": ((3, 3, 2, 2, 1, 1), 0),
}
WEAPONS = {
    "brawler": (("Vulcan Machine Gun", "Front"), ("Mines", "Back")),
    "sniper": (("Recoilless Rifle", "Front"), ("Smokescreen", "Back")),
    "torch": (("Flamethrower", "Front"), ("Oil Slick", "Back"), ("10mm Chaingun", "Right")),
}


@pytest.mark.parametrize("design_id", ["brawler", "sniper", "torch"])
def test_designs_have_every_system(design_id):
    designs = data.car_designs()
    assert {"brawler", "sniper", "torch", "lancer", "bruiser"} <= set(designs)
    car = new_car(designs[design_id], "c1", "alice", "alice", 0)
    for system, (boxes, after) in BASE_ROWS.items():
        track = getattr(car.systems, system)
        assert isinstance(track, DamageTrack) and track.crossed == 0
        if design_id == "sniper" and system == "targeting":
            boxes, after = (3, 3, 2, 1), 0
        assert (track.boxes, track.after) == (boxes, after), system
        assert car.systems.rating(system) == boxes[0]
    assert tuple((w.name, w.mount) for w in car.weapons) == WEAPONS[design_id]
    assert all(w.track.boxes == (3, 2, 1) for w in car.weapons)


# --- Arena --------------------------------------------------------------------------------------

def test_arena_starts_are_open():
    arena = data.arena("classic")
    assert (arena.columns, arena.rows) == (25, 17)
    slots = [(label(s.front), s.facing) for s in arena.starts]
    assert slots == [("D3", SE), ("V15", NW), ("V3", SW), ("D15", NE), ("C9", E), ("W9", W)]
    assert len(arena.starts) >= data.table_limits()["max_players"] == 6
    taken = set()
    for slot in arena.starts:
        hexes = counter_hexes(slot.front, slot.facing)
        for h in hexes:  # both halves of the counter
            assert arena.is_open(h), label(h)
            assert h not in taken, label(h)
        taken.update(hexes)
        # and the first Normal Move from the slot is open too
        assert arena.is_open(step(slot.front, slot.facing))
    assert {label(h) for h in arena.obstacles} == {"G6", "S6", "G12", "S12", "L4", "M4", "N4",
                                                   "L14", "M14", "N14"}


# --- Table: lobby, start, end -------------------------------------------------------------------

def test_lobby_join_seats_players_with_designs():
    state = SPEEDWAY.setup({}, 2, "alice")
    state, events = apply(state, "alice", Join("Alice", "torch"))
    assert events == (PlayerJoined("Alice", "Torch"),)
    state, events = apply(state, "bob", Join(""))
    assert events == (PlayerJoined("bob", "Brawler"),)  # default name and design
    assert [(c.id, c.owner, c.design, c.front) for c in state.cars] == [
        ("c1", "alice", "torch", None), ("c2", "bob", "brawler", None)]
    assert state.phase == "lobby"


def test_lobby_join_twice_refused():
    """Joining twice is no longer refused: a seated player who joins again brings a second car
    (named "bob-2"), still one seat; the table limit counts cars, so a join past 6 cars is refused."""
    state = lobby(("alice", "bob"))
    state, events = apply(state, "bob", Join("bob again", "torch"))
    assert events == (PlayerJoined("bob-2", "Torch"),)
    assert [(p.id, p.name) for p in state.players] == [("alice", "alice"), ("bob", "bob")]
    assert [(c.id, c.owner, c.name, c.design) for c in state.cars] == [
        ("c1", "alice", "alice", "brawler"), ("c2", "bob", "bob", "brawler"), ("c3", "bob", "bob-2", "torch")]
    for _ in range(3):
        state, _ = apply(state, "alice", Join("alice"))
    assert [c.name for c in state.cars_of("alice")] == ["alice", "alice-2", "alice-3", "alice-4"]
    assert len(state.cars) == 6 and len(state.players) == 2
    for actor in ("bob", "carol"):  # a seated player's extra car and a new player alike
        with pytest.raises(TableFull):
            apply(state, actor, Join(actor))


def test_lobby_table_full_at_six():
    names = ("a1", "a2", "a3", "a4", "a5", "a6")
    state = lobby(names)
    assert len(state.players) == 6
    with pytest.raises(TableFull):
        apply(state, "a7", Join("a7"))


def test_lobby_unknown_design_refused():
    state = SPEEDWAY.setup({}, 2, "alice")
    with pytest.raises(BadOption):
        apply(state, "alice", Join("alice", "tank"))


def test_lobby_start_by_non_host_refused():
    state = lobby(("alice", "bob"))
    with pytest.raises(NotHost):
        apply(state, "bob", Start())


def test_lobby_start_needs_two_players():
    state = lobby(("alice",))
    with pytest.raises(WrongPhase):
        apply(state, "alice", Start())


def test_lobby_join_after_start_refused():
    state = started()
    with pytest.raises(WrongPhase):
        apply(state, "carol", Join("carol"))


def test_lobby_start_places_cars_and_rolls_order():
    state, events = apply(lobby(("alice", "bob", "carol")), "alice", Start())
    # game seed 2 shuffles the three seats into this order
    assert events[0] == GameStarted(("carol", "alice", "bob"))
    assert events[1] == TurnBegan("carol", 0)
    assert state.order == ("carol", "alice", "bob")
    assert state.phase == "upkeep" and state.active_player == "carol" and state.round == 0
    # cars take the start slots in seating order, at speed 0 and in control
    assert [where(c) for c in state.cars] == [("D3", "C2", "SE"), ("V15", "V16", "NW"),
                                              ("V3", "V2", "SW")]
    assert all(c.speed == 0 and c.inertia == 0 and c.in_control for c in state.cars)


def test_game_over_after_end_game():
    state = driving()
    with pytest.raises(NotHost):
        apply(state, "bob", EndGame())
    ended, events = apply(state, "alice", EndGame())
    assert events == (GameEnded("alice"),)
    assert ended.phase == "finished" and ended.active_player is None and ended.ended_by == "alice"
    assert SPEEDWAY.is_finished(ended)
    for actor, action in (("alice", Move("normal")), ("bob", SetSpeed(1)), ("carol", Join("carol")),
                          ("alice", EndGame())):
        with pytest.raises(GameOver):
            apply(ended, actor, action)
    by_admin, _ = apply(state, "bob", EndGame(by_admin=True))
    assert by_admin.phase == "finished" and by_admin.ended_by == "bob"


def _skid_state():
    state, _ = apply(driving("M9", E, speed=5), "alice", Move("turn-left"))
    return state


@pytest.mark.parametrize("build, actor, action, error", [
    (upkeep, "bob", SetSpeed(1), NotYourTurn),
    (driving, "bob", Move("normal"), NotYourTurn),
    (driving, "zed", Move("normal"), NotSeated),
    (upkeep, "zed", SetSpeed(1), NotSeated),
    (upkeep, "alice", Move("normal"), WrongPhase),
    (driving, "alice", SetSpeed(3), WrongPhase),
    (driving, "alice", AnswerSkid("accept"), WrongPhase),
    (_skid_state, "alice", Move("normal"), WrongPhase),
    (_skid_state, "bob", AnswerSkid("accept"), NotYourTurn),
    (_skid_state, "alice", AnswerSkid("maybe"), BadOption),
    (lambda: lobby(("alice", "bob")), "alice", SetSpeed(1), WrongPhase),
    (driving, "alice", Move("slide"), IllegalManeuver),
    (driving, "alice", Move("u-turn"), IllegalManeuver),
    (driving, "alice", Move("normal", skid="maybe"), BadOption),
    (upkeep, "alice", SetSpeed(4), IllegalSpeed),
], ids=lambda v: getattr(v, "__name__", None) or repr(v))
def test_refusals_leave_state_untouched(build, actor, action, error):
    state = build()
    before = copy.deepcopy(state)
    with pytest.raises(error) as refused:
        apply(state, actor, action)
    assert refused.value.message  # players are told why
    assert state == before


# --- Player Turns: Upkeep -----------------------------------------------------------------------

def _bob_begins(speed: int, inertia: int, suspension_crossed: int = 0):
    """Alice ends her turn at speed 0; Bob's turn begins with this car."""
    state = upkeep(speed=0)
    bob = car_of(state, "bob")
    systems = replace(bob.systems, suspension=bob.systems.suspension.cross(suspension_crossed))
    state = place(state, "bob", "M12", E, speed=speed, inertia=inertia, systems=systems)
    state, events = apply(state, "alice", SetSpeed(0))
    assert state.active_player == "bob" and state.phase == "upkeep"
    return car_of(state, "bob"), of_type(events, InertiaShed)


@pytest.mark.parametrize("crossed, inertia, left", [
    (0, 5, 2),   # Suspension 3
    (1, 5, 3),   # Suspension 2
    (3, 5, 4),   # Suspension 1
    (0, 2, 0),   # never below 0
])
def test_upkeep_sheds_inertia_by_suspension(crossed, inertia, left):
    bob, shed = _bob_begins(speed=4, inertia=inertia, suspension_crossed=crossed)
    assert bob.inertia == left
    assert shed == [InertiaShed("bob", inertia - left, left, shed[0].reason)]
    assert shed[0].reason.startswith("Suspension")


def test_upkeep_disabled_suspension_sheds_nothing():
    bob, shed = _bob_begins(speed=4, inertia=5, suspension_crossed=5)  # all boxes crossed: 0
    assert bob.inertia == 5 and shed == []


def test_upkeep_speed_zero_clears_inertia():
    bob, shed = _bob_begins(speed=0, inertia=7)
    assert bob.inertia == 0
    assert [(e.car, e.removed, e.inertia) for e in shed] == [("bob", 7, 0)]
    assert "speed 0" in shed[0].reason


# --- Player Turns: speed ------------------------------------------------------------------------

@pytest.mark.parametrize("speed, engine_crossed, brakes_crossed, low, high", [
    (4, 0, 0, 1, 7),     # Brakes 3 below, Engine 3 above
    (2, 0, 0, 0, 5),     # never below 0 (no reverse)
    (4, 2, 4, 3, 6),     # Engine 2, Brakes 1
    (4, 5, 5, 3, 4),     # Engine all crossed: 0; Brakes all crossed: 1
])
def test_speed_range_by_brakes_and_engine(speed, engine_crossed, brakes_crossed, low, high):
    state = upkeep(speed=speed)
    car = active(state)
    systems = replace(car.systems, engine=car.systems.engine.cross(engine_crossed),
                      brakes=car.systems.brakes.cross(brakes_crossed))
    state = state.with_car(replace(car, systems=systems))
    assert speed_range(active(state)) == (low, high)
    assert [a.command for a in legal_actions(state, "alice")] == [
        f"/speed value:{v}" for v in range(low, high + 1)]
    for value in (low, high):
        moved, events = apply(state, "alice", SetSpeed(value))
        assert active(moved).speed == value
        assert events[0] == SpeedSet("alice", speed, value)


def test_speed_range_capped_at_max_speed():
    assert data.table_limits()["max_speed"] == 10
    state = upkeep(speed=9)
    assert speed_range(active(state)) == (6, 10)
    with pytest.raises(IllegalSpeed):
        apply(state, "alice", SetSpeed(11))
    state, _ = apply(state, "alice", SetSpeed(10))
    assert active(state).speed == 10 and state.moves_left == 10


@pytest.mark.parametrize("speed, value", [(4, 0), (4, 8), (0, 4), (0, -1), (9, 5)])
def test_illegal_speed_refused(speed, value):
    state = upkeep(speed=speed)
    with pytest.raises(IllegalSpeed):
        apply(state, "alice", SetSpeed(value))
    assert state.phase == "upkeep" and active(state).speed == speed


# --- Player Turns: moves and turn order ---------------------------------------------------------

def test_moves_equal_speed():
    state, events = apply(upkeep(speed=0), "alice", SetSpeed(3))
    assert events == (SpeedSet("alice", 0, 3),)
    assert state.phase == "movement" and state.moves_left == 3 and state.moves_total == 3
    for left in (2, 1):
        state, _ = apply(state, "alice", Move("normal"))
        assert state.active_player == "alice" and state.moves_left == left
    assert label(car_of(state, "alice").front) == "O9"
    state, events = apply(state, "alice", Move("normal"))
    assert label(car_of(state, "alice").front) == "P9"
    assert car_of(state, "alice").speed == 3  # keeps its speed into the next turn
    assert events[-1] == TurnBegan("bob", 0)


def test_turn_passes_when_moves_run_out():
    # Bob is parked out of Alice's arcs and range, so with no shot left the turn passes by itself.
    state = driving("M9", E, speed=2, moves_left=1)
    state, events = apply(state, "alice", Move("normal"))
    assert state.active_player == "bob" and state.phase == "upkeep"
    assert state.active_car == car_of(state, "bob").id
    assert state.moves_left == 0 and state.pending_skid is None
    assert of_type(events, TurnBegan) == [TurnBegan("bob", 0)]
    with pytest.raises(NotYourTurn):
        apply(state, "alice", Move("normal"))


def test_turn_passes_at_speed_zero():
    # No Moves and (Bob parked) no shot: nothing to wait for.
    state, events = apply(upkeep(speed=1), "alice", SetSpeed(0))
    assert events == (SpeedSet("alice", 1, 0), TurnBegan("bob", 0))
    assert state.active_player == "bob" and state.phase == "upkeep"


def test_turn_waits_for_end_when_a_shot_is_available():
    # Bob sits at S9-R9, ahead of Alice: after her last Move (to N9) her front Vulcan has a shot at
    # range 4, so she waits in Movement with no Moves left until she fires or ends the turn.
    state = driving("M9", E, speed=2, moves_left=1, bob=("S9", E))
    with pytest.raises(WrongPhase):  # /end is refused while Moves are left
        apply(state, "alice", EndTurn())
    state, events = apply(state, "alice", Move("normal"))
    assert of_type(events, TurnBegan) == []
    assert state.active_player == "alice" and state.phase == "movement" and state.moves_left == 0
    assert commands(state) == ["/fire weapon:front target:c2", "/drop weapon:back", "/end"]
    assert "/end" in SPEEDWAY.prompt(state)
    with pytest.raises(WrongPhase):
        apply(state, "alice", Move("normal"))
    ended, events = apply(state, "alice", EndTurn())
    assert events == (TurnBegan("bob", 0),)
    assert ended.active_player == "bob" and ended.phase == "upkeep"
    # Firing her only gun leaves no shot, so that passes the turn too.
    fired, events = apply(state, "alice", Fire("front", "bob"))
    assert of_type(events, WeaponFired) == [WeaponFired("alice", "Vulcan Machine Gun (Front)", "bob", 4, car_id="c1",
                                                                   target_id="c2")]
    assert fired.active_player == "bob" and events[-1] == TurnBegan("bob", 0)
    # A car at speed 0 with a shot waits as well.
    state, events = apply(upkeep(speed=1, bob=("S9", E)), "alice", SetSpeed(0))
    assert events == (SpeedSet("alice", 1, 0),)
    assert state.active_player == "alice" and state.phase == "movement" and state.moves_left == 0
    assert commands(state) == ["/fire weapon:front target:c2", "/drop weapon:back", "/end"]
    state, events = apply(state, "alice", EndTurn())
    assert events == (TurnBegan("bob", 0),) and state.active_player == "bob"


def test_turn_passes_after_last_move_skid_is_answered():
    state, _ = apply(driving("M9", E, speed=5, moves_left=1), "alice", Move("turn-left"))
    assert state.phase == "skid" and state.active_player == "alice" and state.moves_left == 0
    state, events = apply(state, "alice", AnswerSkid("accept"))
    assert state.active_player == "bob" and state.phase == "upkeep"
    assert events[-1] == TurnBegan("bob", 0)


def test_round_rotates_first_player():
    state = started(("alice", "bob", "carol"))
    assert state.order == ("carol", "alice", "bob")  # game seed 2
    movers, rounds = [], []
    for _ in range(9):
        movers.append(state.active_player)
        rounds.append(state.round)
        state, _ = idle_turn(state)  # from the start slots some cars have a shot: they /end
    assert movers == ["carol", "alice", "bob",
                      "alice", "bob", "carol",
                      "bob", "carol", "alice"]
    assert rounds == [0, 0, 0, 1, 1, 1, 2, 2, 2]
    assert state.round == 3 and state.active_player == "carol"


# --- Movement: maneuvers ------------------------------------------------------------------------

def test_maneuver_costs_match_seed():
    # Seed, Movement Phase: "Normal Move | Sideslip | Turn | Tight Turn" —
    # "Skid Speed = 5; 1 Inertia Token | Skid Speed = 5; 2 Inertia Tokens |
    #  Skid Speed = 3; 3 Inertia Tokens"
    table = data.maneuvers()
    costs = {key: (m.skid_speed, m.inertia) for key, m in table.items()}
    assert costs == {"normal": (None, 0), "sideslip": (5, 1), "turn": (5, 2), "tight-turn": (3, 3)}
    assert [m.label for m in table.values()] == ["Normal Move", "Sideslip", "Turn", "Tight Turn"]


# (start facing, maneuver) -> (front, back, facing) from M9; see RULES.md "The maneuver diagrams".
GEOMETRY = [
    (E, "normal", ("N9", "M9", "E")),
    (E, "sideslip-left", ("M8", "L8", "E")),
    (E, "sideslip-right", ("M10", "L10", "E")),
    (E, "turn-left", ("M8", "M9", "NE")),
    (E, "turn-right", ("M10", "M9", "SE")),
    (E, "tight-turn-left", ("M8", "N9", "NW")),
    (E, "tight-turn-right", ("M10", "N9", "SW")),
    (NW, "normal", ("L8", "M9", "NW")),
    (NW, "sideslip-left", ("L9", "L10", "NW")),
    (NW, "sideslip-right", ("M8", "N9", "NW")),
    (NW, "turn-left", ("L9", "M9", "W")),
    (NW, "turn-right", ("M8", "M9", "NE")),
    (NW, "tight-turn-left", ("L9", "L8", "SW")),
    (NW, "tight-turn-right", ("M8", "L8", "E")),
    (SW, "normal", ("L10", "M9", "SW")),
    (SW, "sideslip-left", ("M10", "N9", "SW")),
    (SW, "sideslip-right", ("L9", "L8", "SW")),
    (SW, "turn-left", ("M10", "M9", "SE")),
    (SW, "turn-right", ("L9", "M9", "W")),
    (SW, "tight-turn-left", ("M10", "L10", "E")),
    (SW, "tight-turn-right", ("L9", "L10", "NW")),
]


@pytest.mark.parametrize("facing, maneuver, pose", GEOMETRY,
                         ids=[f"{'E NE NW W SW SE'.split()[f]}-{m}" for f, m, _ in GEOMETRY])
def test_maneuver_geometry(facing, maneuver, pose):
    state = driving("M9", facing, speed=2)  # below every skid speed
    state, events = apply(state, "alice", Move(maneuver))
    car = car_of(state, "alice")
    assert where(car) == pose
    assert events[0] == CarManeuvered("alice", maneuver, "M9", pose[0], pose[2], events[0].inertia_added)
    assert car.in_control and car.speed == 2
    assert state.phase == "movement" and state.moves_left == 1


@pytest.mark.parametrize("maneuver, inertia", [
    ("normal", 0), ("sideslip-left", 1), ("sideslip-right", 1), ("turn-left", 2),
    ("turn-right", 2), ("tight-turn-left", 3), ("tight-turn-right", 3),
])
def test_maneuver_adds_inertia(maneuver, inertia):
    state, events = apply(driving("M9", E, speed=2, inertia=1), "alice", Move(maneuver))
    assert car_of(state, "alice").inertia == 1 + inertia
    assert events[0].inertia_added == inertia


@pytest.mark.parametrize("facing, maneuver, vector", [
    (E, "sideslip-left", NE), (E, "sideslip-right", SE),
    (E, "turn-left", E), (E, "turn-right", E),
    (E, "tight-turn-left", E), (E, "tight-turn-right", E),
    (NW, "sideslip-left", W), (NW, "sideslip-right", NE),
    (NW, "turn-left", NW), (NW, "tight-turn-right", NW),
    (SE, "sideslip-left", E), (SE, "sideslip-right", SW),
])
def test_skid_vectors(facing, maneuver, vector):
    m, _, side = maneuver.rpartition("-")
    assert skid_vector(facing, data.maneuvers()[m], 1 if side == "left" else -1) == vector
    state, events = apply(driving("M9", facing, speed=6), "alice", Move(maneuver))
    assert state.pending_skid == PendingSkid(maneuver, vector)
    assert of_type(events, SkidPending)[0].direction == "E NE NW W SW SE".split()[vector]
    assert skid_vector(facing, data.maneuvers()["normal"], 0) is None


# --- Movement: skids ----------------------------------------------------------------------------

@pytest.mark.parametrize("maneuver, speed, skid_speed", [
    ("sideslip-left", 5, 5), ("sideslip-right", 7, 5),
    ("turn-right", 5, 5), ("turn-left", 10, 5),
    ("tight-turn-left", 3, 3), ("tight-turn-right", 4, 3),
])
def test_skid_pending_at_skid_speed(maneuver, speed, skid_speed):
    state = driving("M9", E, speed=speed)
    dice = state.dice
    state, events = apply(state, "alice", Move(maneuver))
    assert state.phase == "skid" and state.pending_skid is not None
    assert state.moves_left == speed - 1  # the maneuver took its Move
    (pending,) = of_type(events, SkidPending)
    assert (pending.car, pending.speed, pending.skid_speed) == ("alice", speed, skid_speed)
    assert state.dice == dice  # nothing is rolled until the driver answers
    assert legal_actions(state, "alice") == (LegalAction("/skid choice:accept", "Accept", action=AnswerSkid("accept")),
                                             LegalAction("/skid choice:resist", "Resist", action=AnswerSkid("resist")))
    assert legal_actions(state, "bob") == ()


@pytest.mark.parametrize("maneuver, speed", [
    ("sideslip-left", 4), ("turn-right", 4), ("tight-turn-left", 2), ("normal", 10),
])
def test_no_skid_below_skid_speed(maneuver, speed):
    state, events = apply(driving("M9", E, speed=speed), "alice", Move(maneuver))
    assert state.phase == "movement" and state.pending_skid is None
    assert of_type(events, SkidPending) == []
    assert car_of(state, "alice").in_control
    assert state.moves_left == speed - 1


@pytest.mark.parametrize("maneuver, pose, inertia", [
    ("turn-left", ("N8", "N9", "NE"), 2),          # skid E from M8
    ("sideslip-right", ("N11", "M11", "E"), 1),    # skid SE from M10
    ("tight-turn-left", ("N8", "O9", "NW"), 3),    # skid E from M8
])
def test_accept_slides_and_keeps_control(maneuver, pose, inertia):
    state, _ = apply(driving("M9", E, speed=5), "alice", Move(maneuver))
    dice = state.dice
    state, events = apply(state, "alice", AnswerSkid("accept"))
    car = car_of(state, "alice")
    assert where(car) == pose
    assert car.in_control and car.skid is None
    assert car.speed == 5 and car.inertia == inertia
    assert state.phase == "movement" and state.moves_left == 4  # the slide cost no Move
    assert state.dice == dice and of_type(events, DiceRolled) == []
    (slid,) = of_type(events, CarSlid)
    assert (slid.to_hex, slid.reason) == (pose[0], "skid accepted")


def test_resist_success_keeps_position():
    # Turn left at speed 5: inertia 0 + 2 = 2, so the Driver Roll needs speed + inertia = 7.
    # Seed 1 rolls the four white dice [2] [2] [1] [2] = 7: meets the target exactly.
    state, _ = apply(driving("M9", E, speed=5, dice_seed=1), "alice", Move("turn-left"))
    state, events = apply(state, "alice", AnswerSkid("resist"))
    roll = roll_of(events)
    assert (roll.faces, roll.total, roll.target, roll.success) == ((2, 2, 1, 2), 7, 7, True)
    car = car_of(state, "alice")
    assert where(car) == ("M8", "M9", "NE")  # stays where the turn put it
    assert car.in_control and car.skid is None and car.inertia == 2 and car.speed == 5
    assert state.phase == "movement" and state.moves_left == 4
    assert of_type(events, CarSlid) == [] and of_type(events, ControlLost) == []
    assert state.dice == DiceState(1, 4)
    assert last_roll(events) is roll   # the roll the caption's dice strip shows


def test_resist_failure_goes_out_of_control():
    # Same turn; seed 16 rolls [3] [0] [1] [2] = 6 against 7: the car slides E and loses control.
    state, _ = apply(driving("M9", E, speed=5, dice_seed=16), "alice", Move("turn-left"))
    state, events = apply(state, "alice", AnswerSkid("resist"))
    roll = roll_of(events)
    assert (roll.faces, roll.total, roll.target, roll.success) == ((3, 0, 1, 2), 6, 7, False)
    car = car_of(state, "alice")
    assert where(car) == ("N8", "N9", "NE")
    assert not car.in_control and car.skid == E
    assert car.speed == 5 and car.inertia == 2
    assert of_type(events, ControlLost) == [ControlLost("alice", "E")]
    assert state.phase == "movement" and state.moves_left == 4
    assert commands(state, prefix="/move") == [SLIDE_ONLY]


@pytest.mark.parametrize("seed", range(1, 11))
def test_resist_failure_forced_when_target_exceeds_max_total(seed):
    # Four white dice total at most 4 * 4 = 16; speed 10 + inertia (5 + 2) = 17 can never be met.
    state, _ = apply(driving("M9", E, speed=10, inertia=5, dice_seed=seed), "alice", Move("turn-left"))
    state, events = apply(state, "alice", AnswerSkid("resist"))
    roll = roll_of(events)
    assert roll.target == 17 and len(roll.faces) == 4 and roll.total <= 16 and not roll.success
    assert not car_of(state, "alice").in_control


def test_resist_failure_forced_with_disabled_driver():
    state = driving("M9", E, speed=5, dice_seed=8)  # seed 8 would roll 4 2 4 3 = 13
    car = active(state)
    state = state.with_car(replace(car, systems=replace(car.systems, driver=car.systems.driver.cross(6))))
    state, _ = apply(state, "alice", Move("sideslip-left"))
    state, events = apply(state, "alice", AnswerSkid("resist"))
    roll = roll_of(events)
    assert (roll.faces, roll.total, roll.target, roll.success) == ((), 0, 6, False)
    assert state.dice == DiceState(8, 0)
    assert car_of(state, "alice").skid == NE


def test_resist_rolls_driver_rating_dice():
    state = driving("M9", E, speed=5, dice_seed=8)
    car = active(state)
    state = state.with_car(replace(car, systems=replace(car.systems, driver=car.systems.driver.cross(2))))
    state, events = apply(state, "alice", Move("turn-left", skid="resist"))
    roll = roll_of(events)
    # Driver 3: seed 8 rolls the first three of its dice, [4] [2] [4] = 10 vs 7
    assert (roll.faces, roll.total, roll.target, roll.success) == ((4, 2, 4), 10, 7, True)
    assert state.dice == DiceState(8, 3)


@pytest.mark.parametrize("answer, seed, pose, in_control", [
    ("accept", 16, ("N8", "N9", "NE"), True),
    ("resist", 1, ("M8", "M9", "NE"), True),     # [2] [2] [1] [2] = 7 vs 7
    ("resist", 16, ("N8", "N9", "NE"), False),   # [3] [0] [1] [2] = 6 vs 7
])
def test_move_pre_answers_skid(answer, seed, pose, in_control):
    state, events = apply(driving("M9", E, speed=5, dice_seed=seed), "alice",
                          Move("turn-left", skid=answer))
    assert state.phase == "movement" and state.pending_skid is None
    car = car_of(state, "alice")
    assert where(car) == pose and car.in_control is in_control
    assert state.moves_left == 4
    kinds = [type(e) for e in events]
    assert kinds[:2] == [CarManeuvered, SkidPending]
    assert (DiceRolled in kinds) is (answer == "resist")


def test_pre_answer_ignored_when_no_skid():
    state, events = apply(driving("M9", E, speed=4, dice_seed=16), "alice",
                          Move("turn-left", skid="resist"))
    assert state.phase == "movement" and of_type(events, DiceRolled) == []
    assert where(car_of(state, "alice")) == ("M8", "M9", "NE")
    assert state.dice == DiceState(16, 0)


# --- Movement: Out Of Control -------------------------------------------------------------------

def _skidding(speed: int, inertia: int, seed: int, front: str = "M9", skid: int = NE, **kw):
    return driving(front, E, speed=speed, inertia=inertia, dice_seed=seed, in_control=False,
                   skid=skid, **kw)


def test_out_of_control_slide_and_regain():
    # Slide NE to M8, speed 4 -> 3, then a Driver Roll against 3 + 2 = 5.
    # Seed 6 rolls [2] [0] [1] [2] = 5: control regained.
    state, events = apply(_skidding(speed=4, inertia=2, seed=6), "alice", Move("slide"))
    assert of_type(events, CarSlid) == [CarSlid("alice", "NE", "M8", "out of control")]
    assert of_type(events, SpeedLost) == [SpeedLost("alice", 3)]
    roll = roll_of(events)
    assert (roll.faces, roll.total, roll.target, roll.success) == ((2, 0, 1, 2), 5, 5, True)
    assert of_type(events, ControlRegained) == [ControlRegained("alice")]
    car = car_of(state, "alice")
    assert where(car) == ("M8", "L8", "E")  # slides sideways, facing unchanged
    assert car.in_control and car.skid is None and car.speed == 3 and car.inertia == 2
    assert state.phase == "movement" and state.moves_left == 3
    assert commands(state, prefix="/move") == [f"/move maneuver:{m}" for m in MANEUVERS]
    # [SpeedLost, DiceRolled] come after the slide, in the seed's order
    kinds = [type(e) for e in events]
    assert kinds.index(CarSlid) < kinds.index(SpeedLost) < kinds.index(DiceRolled)


def test_out_of_control_stays_out_on_failure():
    # Seed 2: the first roll [1] [2] [0] [1] = 4 misses 3 + 2 = 5; the car stays out of control.
    state, events = apply(_skidding(speed=4, inertia=2, seed=2), "alice", Move("slide"))
    roll = roll_of(events)
    assert (roll.faces, roll.total, roll.target, roll.success) == ((1, 2, 0, 1), 4, 5, False)
    car = car_of(state, "alice")
    assert where(car) == ("M8", "L8", "E")
    assert not car.in_control and car.skid == NE and car.speed == 3
    assert of_type(events, ControlRegained) == []
    assert state.moves_left == 3
    assert commands(state, prefix="/move") == [SLIDE_ONLY]
    # The next Move slides again (NE to N7), speed 2; [3] [0] [2] [1] = 6 meets 2 + 2 = 4.
    state, events = apply(state, "alice", Move("slide"))
    roll = roll_of(events)
    assert (roll.faces, roll.total, roll.target, roll.success) == ((3, 0, 2, 1), 6, 4, True)
    car = car_of(state, "alice")
    assert where(car) == ("N7", "M7", "E") and car.in_control and car.speed == 2
    assert state.moves_left == 2


def test_out_of_control_stops_at_zero():
    state, events = apply(_skidding(speed=1, inertia=3, seed=8), "alice", Move("slide"))
    car = car_of(state, "alice")
    assert label(car.front) == "M8"
    assert car.speed == 0 and car.in_control and car.skid is None
    assert of_type(events, DiceRolled) == [] and state.dice == DiceState(8, 0)
    assert of_type(events, CarStopped) == [CarStopped("alice", "M8", "it slowed to a halt")]
    # the stop ends the turn; next turn Alice starts at speed 0 and sheds all 3 inertia
    assert state.active_player == "bob" and state.phase == "upkeep"
    state, events = pass_until(state, "alice")
    assert state.round == 1
    assert [(e.car, e.removed, e.inertia) for e in of_type(events, InertiaShed)] == [("alice", 3, 0)]


def test_out_of_control_only_slides():
    state = _skidding(speed=4, inertia=2, seed=6)
    before = copy.deepcopy(state)
    for maneuver in MANEUVERS:
        with pytest.raises(IllegalManeuver):
            apply(state, "alice", Move(maneuver))
    assert state == before
    assert commands(state, prefix="/move") == [SLIDE_ONLY]


def test_slide_refused_in_control():
    state = driving("M9", E, speed=4)
    with pytest.raises(IllegalManeuver, match="is in control"):
        apply(state, "alice", Move("slide"))
    assert commands(state, prefix="/move") == [f"/move maneuver:{m}" for m in MANEUVERS]


# --- Collisions: a Move or slide that runs into the wall, an obstacle or a car ------------------

# Seed 1's gray dice, in the order the stream rolls them (Bob's ram dice first, then Alice's).
GRAY_SEED_1 = ("S", "S", "A", "S", "D", "A", "-", "B", "S", "A", "A", "-", "-")


@pytest.mark.parametrize("front, facing, speed, what, faces, ignored, crossed", [
    ("A9", W, 3, "the arena wall", ("S", "A", "A"), ("S",), 2),     # the west wall, beyond column A
    ("M1", NE, 3, "the arena wall", ("S", "A", "A"), ("S",), 2),    # the north wall, above row 1
    ("F6", E, 5, "the obstacle at G6", ("S", "A", "A", "B", "A"), ("B", "S"), 3),  # the pillar
], ids=["west-wall", "north-wall", "pillar"])
def test_wall_stops_car(front, facing, speed, what, faces, ignored, crossed):
    # Seed, Striking Immobile Objects: straight on, the car "rolls a number of Gray dice equal to its
    # speed, and then stops". Seed 6 rolls gray [S] [A] [A] ([B] [A]): Armor 3 disregards the
    # others, but A results hit the Armor itself and cross its boxes (3 3 2 2 1 1).
    state = driving(front, facing, speed=speed, inertia=4, dice_seed=6)
    state, events = apply(state, "alice", Move("normal"))
    car = car_of(state, "alice")
    assert label(car.front) == front and car.facing == facing  # did not move
    assert car.speed == 0 and car.in_control and car.inertia == 4
    assert of_type(events, CarManeuvered) == []
    assert [(c.kind, c.car, c.other, c.collision_speed) for c in of_type(events, Collided)] == [
        ("strike", "alice", what, speed)]
    assert of_type(events, DamageRolled) == [DamageRolled("alice", f"hit {what}", ("gray",) * speed, faces)]
    assert of_type(events, ArmorDisregarded) == [ArmorDisregarded("alice", ignored)]
    assert car.systems.armor.crossed == crossed and car.systems.rating("armor") == 2
    # no Moves left and no shot: the turn passes, and Alice next begins at speed 0 with no inertia
    assert state.active_player == "bob" and state.phase == "upkeep"
    state, events = pass_until(state, "alice")
    assert car_of(state, "alice").inertia == 0
    assert [(e.car, e.removed) for e in of_type(events, InertiaShed)] == [("alice", 4)]


def _ram(maneuver: str, bob: tuple[str, int, int]):
    """Alice at M9 facing E, speed 4, dice seed 1, makes `maneuver` into Bob's car (front, facing, speed)."""
    front, facing, speed = bob
    state = place(driving("M9", E, speed=4, dice_seed=1), "bob", front, facing, speed=speed)
    return state, *apply(state, "alice", Move(maneuver))


@pytest.mark.parametrize("maneuver, bob, hit, vc, took, rolloff, chooser", [
    ("normal", ("O9", E, 2), "N9", 2, (1, 0), (10, 9), "alice"),     # into Bob's back: Vc = 4 - 2
    ("normal", ("N9", W, 2), "N9", 6, (3, 2), (8, 9), "bob"),        # head-on, Bob's front: Vc = 4 + 2
    ("sideslip-right", ("M10", E, 0), "M10", 4, (2, 1), (11, 6), "alice"),  # the slip lands on Bob
], ids=["rear", "head-on", "sideslip"])
def test_car_blocks_car(maneuver, bob, hit, vc, took, rolloff, chooser):
    # Seed, Ramming Collisions: Alice's front runs into Bob. Nobody enters the other's hexes: Bob
    # takes Vc + 1 gray dice (the attacker's extra die), Alice Vc (seed 1's stream, Bob's first);
    # each loses speed equal to the damage it took (`took`: Bob, Alice); in the roll-off each
    # driver adds the damage done to the other car (`rolloff`: Alice's total, Bob's), and the
    # winner chooses the outcome.
    before, state, events = _ram(maneuver, bob)
    alice = car_of(state, "alice")
    assert where(alice) == ("M9", "L9", "E") and car_of(state, "bob").hexes == car_of(before, "bob").hexes
    assert of_type(events, CarManeuvered) == []
    assert of_type(events, Collided) == [Collided("ram", "alice", "bob", hit, vc)]
    assert [(d.car, d.dice, d.faces) for d in of_type(events, DamageRolled)] == [
        ("bob", ("gray",) * (vc + 1), GRAY_SEED_1[:vc + 1]),
        ("alice", ("gray",) * vc, GRAY_SEED_1[vc + 1:2 * vc + 1])]
    taken = {e.car: len(e.effects) for e in of_type(events, DamageTaken)}
    assert (taken.get("bob", 0), taken.get("alice", 0)) == took
    assert (car_of(state, "bob").speed, alice.speed) == (max(0, bob[2] - took[0]), 4 - took[1])
    rolls = of_type(events, DiceRolled)
    assert [(r.car, r.dice, len(r.faces), r.modifier, r.total) for r in rolls] == [
        ("alice", "white driver dice", 4, took[0], rolloff[0]),
        ("bob", "white driver dice", 4, took[1], rolloff[1])]
    assert [r.car for r in rolls if r.success] == [chooser]
    # The Move is spent; the game waits on the roll-off winner's outcome A or B.
    assert state.phase == "ram" and state.moves_left == 3 and state.active_player == "alice"
    assert state.pending_ram == PendingRam("c1", "c2", parse_label(hit), chooser, parse_label(hit), E)
    loser = "bob" if chooser == "alice" else "alice"
    assert commands(state, chooser) == ["/ram outcome:A", "/ram outcome:B"] and commands(state, loser) == []
    with pytest.raises(NotYourTurn):
        apply(state, loser, ChooseRam("A"))
    # Outcome A: Alice stays put and her next Move must be a Turn.
    state, _ = apply(state, chooser, ChooseRam("A"))
    assert state.phase == "movement" and state.moves_left == 3 and state.pending_ram is None
    assert where(car_of(state, "alice")) == ("M9", "L9", "E") and car_of(state, "alice").must_turn
    assert commands(state, prefix="/move") == ["/move maneuver:turn-left", "/move maneuver:turn-right"]
    with pytest.raises(IllegalManeuver):
        apply(state, "alice", Move("normal"))


@pytest.mark.parametrize("bob_front, bob_facing, chooser, bob_after", [
    ("O9", E, "alice", ("O9", "N8", "SE")),   # Bob's back swings round his front, away from Alice
    ("N9", W, "bob", ("N8", "O9", "NW")),     # Bob's front swings round his back
], ids=["rear", "head-on"])
def test_ram_outcome_b_pushes_defender_aside(bob_front, bob_facing, chooser, bob_after):
    # Seed, outcome B: the defender rotates around its un-struck hex away from the attacker, which
    # moves forward into the vacated hex (N9). Same rams and dice as in test_car_blocks_car.
    _, state, _ = _ram("normal", (bob_front, bob_facing, 2))
    state, events = apply(state, chooser, ChooseRam("B"))
    assert events == (CarRotated("bob", bob_after[0], bob_after[1], "pushed aside"),)
    assert where(car_of(state, "alice")) == ("N9", "M9", "E") and where(car_of(state, "bob")) == bob_after
    assert not set(car_of(state, "alice").hexes) & set(car_of(state, "bob").hexes)
    assert state.phase == "movement" and state.moves_left == 3 and not car_of(state, "alice").must_turn
    assert commands(state, prefix="/move") == [f"/move maneuver:{m}" for m in MANEUVERS]


def test_back_half_into_car_is_a_slide_collision():
    # Tight turn left: M8 is free, but the turned car's back would land on N9, Bob's front. The
    # front hits nothing, so this is no ram: as when sliding into a car, both take 2 gray dice
    # (seed 1: Bob [S] [S], Alice [A] [S]) and Alice stops where she was.
    state = place(driving("M9", E, speed=4, dice_seed=1), "bob", "N9", W)
    state, events = apply(state, "alice", Move("tight-turn-left"))
    alice = car_of(state, "alice")
    assert where(alice) == ("M9", "L9", "E") and alice.speed == 0 and alice.inertia == 0
    assert where(car_of(state, "bob")) == ("N9", "O9", "W")
    assert of_type(events, Collided) == [Collided("slide", "alice", "bob", "N9", 0)]
    assert [(d.car, d.dice, d.faces) for d in of_type(events, DamageRolled)] == [
        ("bob", ("gray", "gray"), ("S", "S")), ("alice", ("gray", "gray"), ("A", "S"))]
    assert of_type(events, DamageTaken) == [DamageTaken("alice", ("Armor 3 (a box crossed)",))]
    # Stopped with Bob at point-blank in her front arc: she may still fire, or /end.
    assert state.phase == "movement" and state.moves_left == 0 and state.active_player == "alice"
    assert commands(state, prefix="/fire") == ["/fire weapon:front target:c2"]
    state, events = apply(state, "alice", EndTurn())
    assert state.active_player == "bob" and events == (TurnBegan("bob", 0),)


@pytest.mark.parametrize("speed, moves_left, next_player", [(3, 2, "alice"), (1, 0, "bob")])
def test_back_half_glances_off_obstacle(speed, moves_left, next_player):
    # From G7 facing NE a tight turn left would put the back on the pillar G6 (front F6 is free):
    # the car glances off it: 2 gray dice (seed 1: [S] [S], both disregarded by Armor), speed -1,
    # and it stays where it was. At speed 1 that is a stop, and the turn passes.
    state = driving("G7", NE, speed=speed, dice_seed=1)
    state, events = apply(state, "alice", Move("tight-turn-left"))
    car = car_of(state, "alice")
    assert where(car) == ("G7", "F8", "NE") and car.inertia == 0 and car.speed == speed - 1
    assert of_type(events, CarManeuvered) == []
    assert of_type(events, Collided) == [Collided("glance", "alice", "the obstacle at G6", "G6", 0)]
    assert of_type(events, DamageRolled) == [
        DamageRolled("alice", "glanced off the obstacle at G6", ("gray", "gray"), ("S", "S"))]
    assert state.active_player == next_player and state.moves_left == moves_left


def test_slide_with_one_half_blocked_swings_round():
    # Sideslip left from F8 to G7 at speed 5, skid accepted: the NE slide would put the front on
    # the pillar G6 while the back (F7 -> F6) is free. Seed: 2 gray (seed 1: [S] [S]), speed -1,
    # and the free half swings round the struck one: back to F6, the car now faces SE.
    state = driving("F8", E, speed=5, dice_seed=1)
    state, events = apply(state, "alice", Move("sideslip-left", skid="accept"))
    car = car_of(state, "alice")
    assert where(car) == ("G7", "F6", "SE")
    assert car.speed == 4 and car.in_control and car.inertia == 1
    assert of_type(events, Collided) == [Collided("glance", "alice", "the obstacle at G6", "G6", 0)]
    assert of_type(events, DamageRolled)[0].faces == ("S", "S")
    assert of_type(events, SpeedLostInCrash) == [SpeedLostInCrash("alice", 1, 4)]
    assert of_type(events, CarRotated) == [CarRotated("alice", "G7", "F6", "swung round the obstacle at G6")]
    assert of_type(events, CarSlid) == []
    assert state.phase == "movement" and state.moves_left == 4


def test_blocked_slide_stops_car_on_accepted_skid():
    # Sideslip left from M2 puts the front on N1; the NE skid would take both halves through the
    # north wall: a straight-on strike, 5 gray dice for speed 5 (seed 6: [S] [A] [A] [B] [A]), stop.
    state, _ = apply(driving("M2", E, speed=5, dice_seed=6), "alice", Move("sideslip-left"))
    assert where(car_of(state, "alice")) == ("N1", "M1", "E") and state.phase == "skid"
    state, events = apply(state, "alice", AnswerSkid("accept"))
    car = car_of(state, "alice")
    assert where(car) == ("N1", "M1", "E")
    assert car.speed == 0 and car.in_control and car.inertia == 1
    assert of_type(events, CarSlid) == []
    assert [(c.kind, c.other, c.collision_speed) for c in of_type(events, Collided)] == [
        ("strike", "the arena wall", 5)]
    assert of_type(events, DamageRolled)[0].faces == ("S", "A", "A", "B", "A")
    assert car.systems.armor.crossed == 3
    assert state.active_player == "bob" and state.phase == "upkeep"


def test_blocked_slide_stops_car():
    # Resist fails (seed 16: 6 vs 7) and the E skid from M8 would put the back on N9, Bob's front:
    # a slide into a car. Both take 2 gray dice (Bob [D] [-], Armor drops the D; Alice [-] [-])
    # and Alice stops In Control, not Out Of Control.
    state = place(driving("M9", E, speed=5, dice_seed=16), "bob", "N9", W)
    state, _ = apply(state, "alice", Move("turn-left"))
    assert commands(state) == ["/skid choice:accept", "/skid choice:resist", "/skid choice:swipe"]
    state, events = apply(state, "alice", AnswerSkid("resist"))
    assert not roll_of(events).success
    car = car_of(state, "alice")
    assert where(car) == ("M8", "M9", "NE")
    assert car.speed == 0 and car.in_control and car.skid is None
    assert where(car_of(state, "bob")) == ("N9", "O9", "W")
    assert of_type(events, ControlLost) == [] and of_type(events, CarSlid) == []
    assert of_type(events, Collided) == [Collided("slide", "alice", "bob", "N9", 0)]
    assert [(d.car, d.faces) for d in of_type(events, DamageRolled)] == [("bob", ("D", "-")),
                                                                         ("alice", ("-", "-"))]
    assert of_type(events, ArmorDisregarded) == [ArmorDisregarded("bob", ("D",))]
    assert of_type(events, DamageTaken) == []
    assert state.active_player == "bob"  # Bob is off Alice's front arc: no shot, the turn passes


def test_blocked_out_of_control_slide_stops_car():
    # NE of M1 and of L1 is outside the wall: both halves strike, so 3 gray dice for speed 3
    # (seed 6: [S] [A] [A]) and a stop, before any speed loss or Driver Roll.
    state = _skidding(speed=3, inertia=1, seed=6, front="M1")
    state, events = apply(state, "alice", Move("slide"))
    car = car_of(state, "alice")
    assert where(car) == ("M1", "L1", "E")
    assert car.speed == 0 and car.in_control and car.skid is None
    assert of_type(events, SpeedLost) == [] and of_type(events, DiceRolled) == []
    assert [(c.kind, c.other, c.collision_speed) for c in of_type(events, Collided)] == [
        ("strike", "the arena wall", 3)]
    assert of_type(events, DamageRolled)[0].faces == ("S", "A", "A")
    assert state.active_player == "bob" and state.phase == "upkeep"


def test_out_of_control_car_braking_to_zero_regains_control():
    state = upkeep(speed=2, inertia=4, in_control=False, skid=3)
    state, events = apply(state, "alice", SetSpeed(0))
    car = car_of(state, "alice")
    assert car.speed == 0 and car.in_control and car.skid is None
    assert of_type(events, ControlRegained) == [ControlRegained("alice")]
    assert state.active_player == "bob"


def test_ram_outcome_b_stops_the_attacker_when_its_back_would_land_on_the_pivot():
    # Sideslip right from M9 (facing E) into Bob at M10-L10: the attacker's new back hex would be
    # L10, Bob's un-struck pivot. "If such a rotation is not possible, the Attacking car stops."
    _, state, _ = _ram("sideslip-right", ("M10", E, 0))
    state, _events = apply(state, "alice", ChooseRam("B"))
    alice, bob = car_of(state, "alice"), car_of(state, "bob")
    assert where(alice) == ("M9", "L9", "E") and alice.speed == 0
    assert not set(alice.hexes) & set(bob.hexes)
