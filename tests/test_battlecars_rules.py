"""Battlecars' rules (seed 001, issue 14): setup, the secret speed counters, driving and skids, crashes
and rams, firing and damage. Dice come from fixed seeds; each test asserts the outcome the seed's
sentence (or the reconstruction RULES.md names) gives for the faces rolled."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rules.battlecars import data, speed
from rules.battlecars.actions import (
    AddComputer,
    ChooseSection,
    EndMove,
    Fire,
    Join,
    Move,
    SetSpeed,
    Start,
    ThreePointTurn,
)
from rules.battlecars.events import (
    ArmourHit,
    ComponentHit,
    Crashed,
    Drifted,
    FacingAfterSkid,
    FirstMover,
    GameWon,
    Rammed,
    SpeedsRevealed,
    VehicleDestroyed,
    VehicleMoved,
    WeaponFired,
)
from rules.battlecars.grid import label, parse_label
from rules.battlecars.ruleset import RULESET, view
from rules.battlecars.state import REVERSE, THREE_POINT, Phase
from rules.errors import BadOption, GameError, NotYourTurn, WrongPhase
from tests.battlecars_helpers import act, of, rolls, table, vehicle, with_mat


def at(state, player) -> str:
    return label(vehicle(state, player).point)


# --- setup -------------------------------------------------------------------------------------------

def seated(count: int, board: str = "open", seed: int = 1):
    state = RULESET.setup({"board": board}, seed, "p0")
    designs = list(data.vehicles())
    for i in range(count):
        state, _ = RULESET.apply(state, f"p{i}", Join(f"p{i}", designs[i]))
    return RULESET.apply(state, "p0", Start())


def test_vehicles_start_on_the_centre_points_of_the_sides_facing_inwards():
    """Found: "Vehicles start on the centre points of the board sides"; seed: "Vehicles may not start
    inside buildings"."""
    state, _ = seated(2)
    assert [(at(state, p), vehicle(state, p).facing) for p in ("p0", "p1")] == [("A5", 2), ("M5", 6)]
    three, _ = seated(3, "town")
    assert at(three, "p2") == "G1" and three.the_board.terrain(parse_label("G1")) == "road"


def test_four_drivers_or_more_play_on_two_boards_joined_on_a_long_edge():
    state, _ = seated(4)
    board = state.the_board
    assert state.big and (board.width, board.height) == (17, 13)
    assert [at(state, f"p{i}") for i in range(4)] == ["A7", "Q7", "E1", "M13"]
    six, _ = seated(6, "town")
    assert all(six.the_board.terrain(v.point) in ("road", "grass") for v in six.vehicles)
    assert len({v.point for v in six.vehicles}) == 6


def test_the_first_mover_is_the_highest_d6_and_a_tie_rolls_again():
    """Found: "a die roll decides the first mover". Seed 1: both roll 3, then alice 2, bob 3."""
    state, events = seated(2)
    first = rolls(events, "rolls for the first")
    assert [(r.who, r.faces) for r in first] == [("p0", (3,)), ("p1", (3,)), ("p0", (2,)), ("p1", (3,))]
    assert state.order == ("p1", "p0") and of(events, FirstMover)[0].order == ("p1", "p0")
    assert state.phase == Phase.SPEED


def test_a_driver_has_one_vehicle_and_the_table_holds_six():
    state = RULESET.setup({}, 1, "p0")
    state, _ = RULESET.apply(state, "p0", Join("p0", "tank"))
    with pytest.raises(BadOption, match="one vehicle a driver"):
        RULESET.apply(state, "p0", Join("p0", "rammer"))
    with pytest.raises(BadOption, match="No vehicle called 'hovercraft'"):
        RULESET.apply(state, "p1", Join("p1", "hovercraft"))
    for _ in range(5):
        state, _ = RULESET.apply(state, "p0", AddComputer("bike1"))
    with pytest.raises(GameError, match="full"):
        RULESET.apply(state, "p9", Join("p9", ""))


# --- the speed counters ------------------------------------------------------------------------------

def test_speed_counters_stay_face_down_until_every_driver_has_set_one():
    """Found: players "secretly place Speed Counters ... and reveal them together"."""
    state = table(("alice", "interceptor", "A5", "E", 0), ("bob", "rammer", "M5", "W", 0), phase=Phase.SPEED)
    state, events = act(state, "alice", SetSpeed(3))
    assert events[0].describe() == "alice set a speed counter, face down." and "3" not in events[0].describe()
    assert view(state, None).declared == (("alice", 0),) and view(state, "alice").declared == (("alice", 3),)
    assert vehicle(state, "alice").speed == 0 and RULESET.acting_players(state) == ("bob",)
    with pytest.raises(NotYourTurn):
        act(state, "alice", SetSpeed(2))
    state, events = act(state, "bob", SetSpeed(2))
    assert of(events, SpeedsRevealed)[0].speeds == ("alice 3", "bob 2")
    assert (vehicle(state, "alice").speed, vehicle(state, "bob").speed) == (3, 2)
    assert state.phase == Phase.MOVE and state.active == "alice" and state.declared == ()


def test_acceleration_and_deceleration_follow_the_mat_terrain_and_equipment():
    """Seed: "Adjust speed within limits shown on play mat. Rates vary by vehicle type and terrain"."""
    road = table(("alice", "rammer", "A5", "E", 4), ("bob", "tank", "M5", "W", 2), phase=Phase.SPEED)
    assert speed.choices(road, vehicle(road, "alice")) == (7, 6, 5, 4, 3, 2, 1)      # 3 up, 3 down on road
    grass = table(("alice", "rammer", "A4", "E", 4), ("bob", "tank", "M5", "W", 2), phase=Phase.SPEED)
    assert speed.choices(grass, vehicle(grass, "alice")) == (6, 5, 4, 3, 2)          # 2 and 2 on grass
    assert speed.choices(road, vehicle(road, "bob")) == (3, 2, 1)                     # a tank: 1 and 1
    charged = table(("alice", "interceptor", "A5", "E", 0), ("bob", "tank", "M5", "W", 0), phase=Phase.SPEED)
    assert speed.choices(charged, vehicle(charged, "alice")) == (4, 3, 2, 1, 0, REVERSE, THREE_POINT)
    lost = with_mat(charged, "alice", equipment_lost=("supercharger",))
    assert max(speed.choices(lost, vehicle(lost, "alice"))) == 3
    braked = table(("alice", "sentinel", "A5", "E", 8), ("bob", "tank", "M5", "W", 0), phase=Phase.SPEED)
    assert min(speed.choices(braked, vehicle(braked, "alice"))) == 4                 # power brakes: 3 + 1
    with pytest.raises(BadOption, match="out of reach: from 8"):
        act(braked, "alice", SetSpeed(3))


def test_engine_and_tyre_damage_lower_the_top_speed_only_the_larger_counting():
    """Found: "Tyre damage and engine damage are separate; only the larger speed reduction counts"."""
    state = table(("alice", "interceptor", "A5", "E", 0), ("bob", "bike1", "M5", "W", 0))
    car = vehicle(with_mat(state, "alice", engine_lost=1, tyres_lost=2), "alice")
    assert car.top_speed(state.revision) == 10 - max(1 * 2, 2 * 2) == 6      # a revision 1 game's Interceptor
    bike = vehicle(with_mat(state, "bob", engine_lost=2, tyres_lost=1), "bob")
    assert bike.top_speed(state.revision) == 10 - max(2 * 2, 1 * 4) == 6


def test_reverse_and_the_three_point_turn_are_crossed_off_by_heavy_damage():
    """Seed: damage will "eliminate reverse gears, as shown by the crossed-off speed positions"; ruling:
    both go at the second engine or tyre square lost. A bike's mat has no R (found)."""
    state = table(("alice", "interceptor", "A5", "E", 0), ("bob", "bike1", "M5", "W", 0), phase=Phase.SPEED)
    assert speed.dial(vehicle(state, "alice"), state.revision)[-2:] == (REVERSE, THREE_POINT)
    assert speed.dial(vehicle(state, "bob"), state.revision)[-2:] == (0, THREE_POINT)
    assert THREE_POINT in speed.choices(state, vehicle(state, "bob"))               # a bike's 3PT is 1 below 0
    one = vehicle(with_mat(state, "alice", engine_lost=1), "alice")
    two = vehicle(with_mat(state, "alice", tyres_lost=2), "alice")
    assert REVERSE in speed.dial(one, 1) and REVERSE not in speed.dial(two, 1) and THREE_POINT not in speed.dial(two, 1)


def test_a_speed_is_written_as_a_number_r_or_3pt():
    assert [speed.parse_speed(t) for t in ("7", " r ", "3pt", "3")] == [7, REVERSE, THREE_POINT, 3]
    with pytest.raises(BadOption, match="R \\(reverse\\) or 3PT"):
        speed.parse_speed("fast")


# --- driving -----------------------------------------------------------------------------------------

def test_the_whole_speed_is_driven_one_point_at_a_time_before_the_move_ends():
    """Seed: "Move the full amount shown on the speed dial. Each horizontal or vertical intersection
    counts as 1 movement point" (diagonals too, reconstruction)."""
    state = table(("alice", "rammer", "A5", "E", 2), ("bob", "tank", "M1", "W", 0))
    with pytest.raises(WrongPhase, match="2 more points"):
        act(state, "alice", EndMove())
    state, events = act(state, "alice", Move("ahead"))
    assert of(events, VehicleMoved)[0].describe() == "alice drives A5 -> B5, facing E."
    state, events = act(state, "alice", Move("right-45"))
    assert at(state, "alice") == "C6" and of(events, VehicleMoved)[0].turn == 45
    with pytest.raises(WrongPhase, match="driven its whole speed"):
        act(state, "alice", Move("ahead"))
    state, _ = act(state, "alice", EndMove())
    assert state.active == "bob"


@pytest.mark.parametrize("seed", range(1, 9))
def test_a_turn_above_its_cornering_speed_tests_for_a_skid(seed):
    """Seed: "If travelling above the speed threshold shown on the play mat, roll for skid when making
    turns"; reconstruction: a skid when a d6 is at most 2 x (speed - cornering speed). The Interceptor
    corners 90° at 6 on road; at 8 it skids on 4 or less."""
    state = table(("alice", "interceptor", "C5", "E", 8), ("bob", "tank", "M1", "W", 0), seed=seed)
    state, events = act(state, "alice", Move("right-90"))
    (test,) = rolls(events, "tests for a skid")
    assert test.target == 4 and test.success == (test.faces[0] <= 4)
    if test.success:
        assert not of(events, VehicleMoved) and of(events, Drifted)[0].to_point == "D5"
    else:
        assert at(state, "alice") == "C6" and vehicle(state, "alice").facing == 4


def test_no_skid_test_at_or_below_the_cornering_speed_nor_for_a_tank():
    """Seed: "Tanks have no skidding, no cornering modifiers"."""
    state = table(("alice", "interceptor", "C5", "E", 6), ("bob", "tank", "H5", "E", 4))
    state, events = act(state, "alice", Move("right-90"))
    assert not rolls(events, "tests for a skid")
    tank = table(("bob", "tank", "H5", "E", 4), ("alice", "interceptor", "C1", "E", 0))
    tank, events = act(tank, "bob", Move("about"))
    assert not rolls(events, "tests for a skid") and at(tank, "bob") == "G5"


def test_grass_and_auto_steer_set_the_cornering_speed():
    """Found (Battlebikes mat): Bike 2 corners 90° at 8 on road with Auto-Steer, 6 without; on grass 5
    and 4."""
    from rules.battlecars.movement import cornering_limit

    bike = vehicle(table(("alice", "bike2", "C5", "E", 8), ("bob", "tank", "M1", "W", 0)), "alice")
    assert [cornering_limit(bike, t, 90) for t in ("road", "grass", "trees")] == [8, 5, 5]
    without = vehicle(with_mat(table(("alice", "bike2", "C5", "E", 8), ("bob", "tank", "M1", "W", 0)), "alice",
                               equipment_lost=("auto_steer",)), "alice")
    assert [cornering_limit(without, t, 90) for t in ("road", "grass")] == [6, 4]


def test_a_skid_drifts_straight_on_then_a_d6_sets_the_facing():
    """Reconstruction (rules-gaps.md 2.3.6): the vehicle does not turn, drifts (speed - cornering) + d3
    points in its old facing, using up its move; then 1-3 the new facing, 4-5 the old, 6 a spin (d8).
    Seed 6: skid; d3 1, so 3 points from C5; facing d6 [2]: the new direction."""
    state = table(("alice", "interceptor", "C5", "E", 8), ("bob", "tank", "M1", "W", 0), seed=6)
    state, events = act(state, "alice", Move("right-90"))
    (drift,) = rolls(events, "rolls the drift")
    assert drift.total == 2 + drift.faces[0] == 3
    assert [e.to_point for e in of(events, Drifted)] == ["D5", "E5", "F5"]
    (facing,) = rolls(events, "rolls where the skid")
    expected = {1: "S", 2: "S", 3: "S", 4: "E", 5: "E"}[facing.faces[0]]
    assert of(events, FacingAfterSkid)[0].facing == expected
    assert vehicle(state, "alice").moved == 3


def test_a_step_into_a_building_is_refused_while_another_way_is_open():
    """The issue: "a move through a building" is refused, and changes nothing."""
    state = table(("alice", "rammer", "A2", "E", 3), ("bob", "tank", "M5", "W", 0), board="town")
    with pytest.raises(BadOption, match="a building at B2"):
        act(state, "alice", Move("ahead"))
    moved, _ = act(state, "alice", Move("right-90"))
    assert at(moved, "alice") == "A3"


def test_a_crash_costs_3d6_plus_the_speed_and_stops_the_vehicle_dead():
    """Seed: "A vehicle comes to a dead stop after a crash"; reconstruction: drifting into a building or
    off the board is a crash, 3d6 + speed to the vehicle itself. Seed 6: the skid drifts 3 points east
    from K5, and the third runs off the board."""
    state = table(("alice", "interceptor", "K5", "E", 8), ("bob", "tank", "A1", "E", 0), seed=6)
    state, events = act(state, "alice", Move("right-90"))
    assert [e.to_point for e in of(events, Drifted)] == ["L5", "M5"]
    assert of(events, Crashed)[0].describe() == "alice crashes into the board's edge and stops dead at M5."
    (damage,) = rolls(events, "rolls the crash")
    assert damage.total == sum(damage.faces) + 8 and of(events, ArmourHit)[0].points == damage.total
    assert vehicle(state, "alice").speed == 0 and not rolls(events, "rolls where the skid")
    state, _ = act(state, "alice", EndMove())                  # stopped: its move may end


def test_a_bike_rides_through_trees_a_car_cannot():
    """Found: "bikes may go through undamaged trees"."""
    car = table(("alice", "rammer", "C4", "E", 2), ("bob", "tank", "M1", "W", 0))
    with pytest.raises(BadOption, match="trees at D4"):
        act(car, "alice", Move("ahead"))
    bike = table(("alice", "bike1", "C4", "E", 2), ("bob", "tank", "M1", "W", 0))
    bike, _ = act(bike, "alice", Move("ahead"))
    assert at(bike, "alice") == "D4"


def test_reverse_backs_up_one_point_and_a_three_point_turn_turns_on_the_spot():
    """Speedo: R is one point backwards; found: "A three-point turn needs the speed counter on the
    3-point-turn space"."""
    state = table(("alice", "rammer", "C5", "E", REVERSE), ("bob", "tank", "M1", "W", 0))
    with pytest.raises(BadOption, match="backs straight up"):
        act(state, "alice", Move("left-45"))
    state, events = act(state, "alice", Move("ahead"))
    assert at(state, "alice") == "B5" and vehicle(state, "alice").facing == 2 and of(events, VehicleMoved)[0].reverse
    turning = table(("alice", "rammer", "C5", "E", THREE_POINT), ("bob", "tank", "M1", "W", 0))
    with pytest.raises(BadOption, match="3PT"):
        act(turning, "alice", Move("ahead"))
    turning, _ = act(turning, "alice", ThreePointTurn("W"))
    assert at(turning, "alice") == "C5" and vehicle(turning, "alice").facing == 6
    stuck = table(("alice", "rammer", "C5", "E", 3), ("bob", "tank", "M1", "W", 0))
    with pytest.raises(BadOption, match="needs the speed counter on 3PT"):
        act(stuck, "alice", ThreePointTurn("W"))


# --- rams --------------------------------------------------------------------------------------------

def test_a_head_on_ram_rolls_3d6_plus_both_speeds_both_take_it_all_and_stop():
    """Seed: "Ramming (Head On): Roll 3 dice plus both vehicles' speed. Both vehicles take full damage.
    Speed drops to 0."."""
    state = table(("alice", "interceptor", "C5", "E", 3), ("bob", "marauder", "D5", "W", 2))
    state, events = act(state, "alice", Move("ahead"))
    assert of(events, Rammed)[0].kind == "head-on"
    (ram,) = rolls(events, "rolls the head-on ram")
    assert ram.total == sum(ram.faces) + 3 + 2
    hits = {h.vehicle: (h.section, h.points) for h in of(events, ArmourHit)}
    assert hits == {"bob": ("front", ram.total), "alice": ("front", ram.total)}
    assert (vehicle(state, "alice").speed, vehicle(state, "bob").speed) == (0, 0)
    assert at(state, "alice") == "C5"


def test_a_side_ram_adds_the_rammers_speed_and_the_rammer_takes_half():
    """Seed: "Ramming (Side Ram): Roll 3 dice plus rammer's speed. Rammed vehicle takes full damage;
    rammer takes half (rounded down)"; the rammer stops dead, the rammed vehicle keeps its speed."""
    state = table(("alice", "marauder", "D4", "S", 3), ("bob", "marauder", "D5", "E", 2))
    state, events = act(state, "alice", Move("ahead"))
    (ram,) = rolls(events, "rolls the side ram")
    hits = {h.vehicle: (h.section, h.points) for h in of(events, ArmourHit)}
    assert ram.total == sum(ram.faces) + 3
    assert hits == {"bob": ("middle", ram.total), "alice": ("front", ram.total // 2)}
    assert (vehicle(state, "alice").speed, vehicle(state, "bob").speed) == (0, 2)


def test_a_shunt_ram_takes_away_the_rammed_vehicles_speed():
    """Seed: "Ramming (Shunt Ram): Roll 3 dice minus rammed vehicle's speed"."""
    state = table(("alice", "marauder", "C5", "E", 4), ("bob", "marauder", "D5", "E", 2))
    state, events = act(state, "alice", Move("ahead"))
    (ram,) = rolls(events, "rolls the shunt ram")
    hits = {h.vehicle: (h.section, h.points) for h in of(events, ArmourHit)}
    assert ram.total == max(0, sum(ram.faces) - 2)
    assert hits == {"bob": ("rear", ram.total), "alice": ("front", ram.total // 2)}


@pytest.mark.parametrize("revision", [3, 4])
def test_a_tank_takes_no_side_or_shunt_ram_damage_half_head_on_and_its_rammer_takes_all(revision):
    """Seed, Tank Special Rules: "Rammers take full damage when hitting a tank; the tank takes no damage
    from side or shunt rams and half damage from head-on collisions"; crash bars halve their own
    vehicle's (reconstruction). The same in every revision for a car ramming a tank."""
    from rules.battlecars.rams import damages

    tank, car, barred = (vehicle(table(("a", d, "A1", "E", 0), ("b", "tank", "M1", "W", 0)), "a")
                         for d in ("tank", "marauder", "rammer"))
    assert damages("side", 15, car, tank, revision) == (15, 0)
    assert damages("shunt", 15, car, tank, revision) == (15, 0)
    assert damages("head-on", 15, car, tank, revision) == (15, 7)
    assert damages("side", 15, barred, car, revision) == (3, 15)              # half of half, rounded down
    assert damages("head-on", 15, car, barred, revision) == (15, 7)


def test_a_ramming_tank_takes_the_tanks_share_from_revision_4_and_all_of_it_before():
    """Seed, Tank Special Rules: "the tank takes no damage from side or shunt rams and half damage from
    head-on collisions" (issue 37 item 7), whichever vehicle rams; Player Reference: "Tank ... immune to
    side/shunt rams". Ramming a tank, a tank takes the tank's share too (ruling: the sentence about the
    tank outweighs "Rammers take full damage when hitting a tank"). Revision 3 and before gave a ramming
    tank a car's share, and a tank ramming a tank all of it."""
    from rules.battlecars.rams import damages

    tank, car = (vehicle(table(("a", d, "A1", "E", 0), ("b", "tank", "M1", "W", 0)), "a") for d in ("tank", "marauder"))
    assert [damages(kind, 15, tank, car, 4) for kind in ("head-on", "side", "shunt")] == [(7, 15), (0, 15), (0, 15)]
    assert [damages(kind, 15, tank, tank, 4) for kind in ("head-on", "side", "shunt")] == [(7, 7), (0, 0), (0, 0)]
    assert [damages(kind, 15, tank, car, 3) for kind in ("head-on", "side", "shunt")] == [(15, 15), (7, 15), (7, 15)]
    assert [damages(kind, 15, tank, tank, 3) for kind in ("head-on", "side", "shunt")] == [(15, 7), (15, 0), (15, 0)]


@pytest.mark.parametrize("revision", [3, 4])
def test_a_tank_ramming_a_car_head_on_takes_half_from_revision_4(revision):
    """Seed, Tank Special Rules: "the tank takes no damage ... and half damage from head-on collisions"
    (issue 37 item 7). A game stored under revision 3 replays as played: the ramming tank took it all."""
    state = replace(table(("alice", "tank", "C5", "E", 2), ("bob", "marauder", "D5", "W", 2)), revision=revision)
    state, events = act(state, "alice", Move("ahead"))
    (ram,) = rolls(events, "rolls the head-on ram")
    hits = {h.vehicle: (h.section, h.points) for h in of(events, ArmourHit)}
    assert hits == {"bob": ("front", ram.total), "alice": ("front", ram.total // 2 if revision >= 4 else ram.total)}
    assert ram.total // 2 != ram.total and (vehicle(state, "alice").speed, vehicle(state, "bob").speed) == (0, 0)


@pytest.mark.parametrize("revision", [3, 4])
def test_a_tank_side_ramming_a_car_takes_nothing_from_revision_4(revision):
    """Seed, Tank Special Rules: "the tank takes no damage from side or shunt rams" (issue 37 item 7);
    the rammed car still takes all of it ("Rammed vehicle takes full damage"). Revision 3: the tank took half."""
    state = replace(table(("alice", "tank", "D4", "S", 2), ("bob", "marauder", "D5", "E", 2)), revision=revision)
    state, events = act(state, "alice", Move("ahead"))
    (ram,) = rolls(events, "rolls the side ram")
    hits = {h.vehicle: (h.section, h.points) for h in of(events, ArmourHit)}
    assert ram.total >= 2
    if revision >= 4:
        assert hits == {"bob": ("middle", ram.total)}
    else:
        assert hits == {"bob": ("middle", ram.total), "alice": ("front", ram.total // 2)}


def test_new_battlecars_games_are_revision_6():
    """Every new game records the newest revision; a game stored without one stays revision 1."""
    assert RULESET.revision == 6 and RULESET.new_game_options({})["revision"] == 6
    assert RULESET.setup({"revision": 4}, 1, "alice").revision == 4
    assert RULESET.setup({}, 1, "alice").revision == 1


# --- firing ------------------------------------------------------------------------------------------

def shots(state, player="alice"):
    from rules.battlecars.combat import legal_shots

    return {(s.weapon.id, s.target.name) for s in legal_shots(state, vehicle(state, player))}


def test_a_pod_fires_along_its_barrel_line_and_45_either_side_a_turret_along_any():
    """Found: "Pods fire along the barrel line and 45° to either side; turrets fire along any line"."""
    ahead = table(("alice", "gunwagon", "G5", "E", 0), ("bob", "tank", "K5", "W", 0))
    assert shots(ahead) == {("A", "bob"), ("turret", "bob")}
    quarter = table(("alice", "gunwagon", "G5", "E", 0), ("bob", "tank", "I3", "W", 0))
    assert shots(quarter) == {("A", "bob"), ("turret", "bob")}
    abeam = table(("alice", "gunwagon", "G5", "E", 0), ("bob", "tank", "G8", "W", 0))
    assert shots(abeam) == {("turret", "bob")}
    off_line = table(("alice", "gunwagon", "G5", "E", 0), ("bob", "tank", "J6", "W", 0))
    assert shots(off_line) == set()
    with pytest.raises(GameError, match="none of the lines"):
        act(off_line, "alice", Fire("turret", "bob"))


def test_only_the_nearest_target_on_a_line_may_be_chosen():
    state = table(("alice", "gunwagon", "B5", "E", 0), ("bob", "tank", "E5", "W", 0), ("carol", "tank", "H5", "W", 0))
    assert shots(state) == {("A", "bob"), ("turret", "bob")}
    with pytest.raises(GameError, match="bob is nearer on that line"):
        act(state, "alice", Fire("A", "carol"))


def test_buildings_trees_and_their_corners_block_fire():
    """Found: "Building and tree corners block fire"."""
    trees = table(("alice", "gunwagon", "B4", "E", 0), ("bob", "tank", "F4", "W", 0))
    with pytest.raises(GameError, match="trees at D4 blocks"):
        act(trees, "alice", Fire("A", "bob"))
    corner = table(("alice", "gunwagon", "C4", "NE", 0), ("bob", "tank", "E2", "W", 0))
    with pytest.raises(GameError, match="corner of the trees at D4"):
        act(corner, "alice", Fire("A", "bob"))


@pytest.mark.parametrize("seed", range(1, 7))
def test_a_shot_hits_when_the_range_dice_reach_the_range(seed):
    """Found: "Roll equal to or greater than the range with the weapon's range dice. +1 to hit with
    Gunnery Computer". The Gunwagon's shells roll 3d6 + 1 at range 9."""
    state = table(("alice", "gunwagon", "B5", "E", 0), ("bob", "tank", "K5", "W", 0), seed=seed)
    state, events = act(state, "alice", Fire("A", "bob"))
    (to_hit,) = rolls(events, "rolls to hit")
    assert of(events, WeaponFired)[0].range == 9 and to_hit.modifier == 1
    assert to_hit.total == sum(to_hit.faces) + 1 and to_hit.success == (to_hit.total >= 9)
    assert bool(rolls(events, "rolls damage")) == to_hit.success
    assert vehicle(state, "alice").weapon("A").rounds == 5


def test_a_flamethrower_reaches_three_points():
    state = table(("alice", "firebrand", "B5", "E", 0), ("bob", "tank", "F5", "W", 0))
    with pytest.raises(GameError, match=r"4 points away; pod A \(Flamethrower, front\) reaches 3"):
        act(state, "alice", Fire("A", "bob"))
    assert shots(table(("alice", "firebrand", "B5", "E", 0), ("bob", "tank", "E5", "W", 0))) == {("A", "bob"),
                                                                                                 ("B", "bob")}


def test_each_weapon_fires_once_a_pod_round_and_a_machine_gun_a_gunnery_computer_one_more():
    """Seed: "Fire any weapon once per turn. Machine Guns can fire in addition to a Weapon Pod. A Gunnery
    Computer allows one additional weapon to fire." Found: one round a target, at most 2 targets (3 with
    a Gunnery Computer)."""
    from rules.battlecars.combat import fire_limit, target_limit

    firebrand = vehicle(table(("alice", "firebrand", "B5", "E", 0), ("bob", "tank", "E5", "W", 0)), "alice")
    once = firebrand.__class__(**{**firebrand.__dict__, "fired": ("A",)})
    assert "already fired" in fire_limit(once, once.weapon("A"))
    assert "pod round and its machine gun" in fire_limit(once, once.weapon("B"))     # no computer: one pod
    sentinel = vehicle(table(("alice", "sentinel", "B5", "E", 0), ("bob", "tank", "E5", "W", 0)), "alice")
    mg_pods = sentinel.__class__(**{**sentinel.__dict__, "fired": ("A",)})
    assert "pod round and its machine gun" in fire_limit(mg_pods, mg_pods.weapon("C"))   # one machine gun
    wagon = vehicle(table(("alice", "gunwagon", "B5", "E", 0), ("bob", "tank", "E5", "W", 0)), "alice")
    both = wagon.__class__(**{**wagon.__dict__, "fired": ("A",)})
    assert fire_limit(both, both.weapon("turret")) is None
    marauder = vehicle(table(("alice", "marauder", "B5", "E", 0), ("bob", "tank", "E5", "W", 0)), "alice")
    two = marauder.__class__(**{**marauder.__dict__, "fired": ("A", "turret")})
    assert fire_limit(two, two.weapon("C")) is None                                   # the computer's one more
    three = marauder.__class__(**{**marauder.__dict__, "fired": ("A", "turret", "C")})
    assert "pod round and its machine gun" in fire_limit(three, three.weapon("D"))
    shot_at = wagon.__class__(**{**wagon.__dict__, "targets": ("v2",)})
    bob = vehicle(table(("alice", "gunwagon", "B5", "E", 0), ("bob", "tank", "E5", "W", 0)), "bob")
    assert "one round a target" in target_limit(shot_at, bob)
    full = wagon.__class__(**{**wagon.__dict__, "targets": ("v3", "v4", "v5")})
    assert "3 targets this turn" in target_limit(full, bob)


def test_damage_takes_armour_boxes_then_an_internal_hit_per_two_points_beyond():
    """Seed: "Damage first hits armor on the targeted side, then internal components are rolled for
    randomly"; reconstruction: one internal hit per 2 points beyond the armour, rounded up."""
    from rules.battlecars.damage import hit_armour

    state = table(("alice", "rammer", "B5", "E", 0), ("bob", "interceptor", "E5", "W", 0))
    state, events = hit_armour(state, "v2", "front", 4)
    assert of(events, ArmourHit)[0].describe() == "bob takes 4 on its front armour: 4 lost, 2 left."
    state, events = hit_armour(state, "v2", "front", 7)
    assert of(events, ArmourHit)[0].internal_hits == 3 and len(rolls(events, "rolls for an internal hit")) >= 3
    assert vehicle(state, "bob").armour == (0, 4, 6)


def test_the_hit_vehicles_driver_chooses_the_section_where_several_apply():
    """Seed: "the defending player decides which zone is hit". From bob's front quarter, front or middle."""
    state = table(("alice", "gunwagon", "H1", "SE", 0), ("bob", "tank", "J3", "N", 0), seed=3)
    state, events = act(state, "alice", Fire("A", "bob"))
    assert rolls(events, "rolls to hit")[0].success
    assert state.phase == Phase.SECTION and RULESET.acting_players(state) == ("bob",)
    assert state.pending_hit.sections == ("front", "middle")
    with pytest.raises(NotYourTurn):
        act(state, "alice", ChooseSection("front"))
    with pytest.raises(BadOption, match="front, middle"):
        act(state, "bob", ChooseSection("rear"))
    state, events = act(state, "bob", ChooseSection("middle"))
    assert of(events, ArmourHit)[0].section == "middle" and state.active == "alice"
    assert state.phase == Phase.RETURN                            # then bob's turret may answer


def test_an_internal_hit_on_nothing_rolls_once_more_then_hits_the_engine():
    """Reconstruction: "An absent or destroyed result is rerolled at most once; after that it hits the
    Engine". The Rammer has no pod C, D or turret and no working equipment here."""
    from rules.battlecars.damage import internal_hit

    for seed in range(1, 40):
        state = table(("alice", "rammer", "B5", "E", 0), ("bob", "tank", "E5", "W", 0), seed=seed)
        state = with_mat(state, "alice", equipment_lost=("crash_bars",))
        after, events = internal_hit(state, "v1")
        faces = [r.faces[0] for r in rolls(events, "rolls for an internal hit")]
        if faces[0] in (3, 4, 5) and len(faces) == 2 and faces[1] in (3, 4, 5):
            assert of(events, ComponentHit)[-1].component == "engine"
            assert vehicle(after, "alice").engine_lost == 1
            return
    pytest.fail("no seed below 40 missed twice")


def test_a_loaded_pod_hit_may_explode_and_a_working_extinguisher_stops_a_flame_explosion():
    """Seed: "If a turret or weapon pod is hit while ammunition remains, roll dice; on certain results,
    the ammunition explodes"; "An active fire extinguisher prevents flame weapons from causing
    explosions"."""
    from rules.battlecars.damage import _damage_part

    state = table(("alice", "interceptor", "B5", "E", 0), ("bob", "firebrand", "E5", "W", 0), seed=2)
    after, events = _damage_part(state, "v1", "pod:A", flame=False)
    (test,) = rolls(events, "tests pod A")
    assert test.target == 4 and test.success == (test.faces[0] >= 4)
    assert bool(rolls(events, "rolls the explosion")) == test.success
    safe, events = _damage_part(state, "v2", "pod:A", flame=True)
    assert not rolls(events, "tests pod A") and "extinguisher" in of(events, ComponentHit)[-1].result


@pytest.mark.parametrize("seed", range(1, 7))
def test_a_damaged_fuel_tank_hit_in_the_rear_by_flame_may_explode(seed):
    """Found: "A damaged fuel tank makes an explosion test when any part of the Rear Section is hit by
    flame", "shells and rockets count as flame"; reconstruction: it explodes on 5 or 6."""
    from rules.battlecars.damage import hit_armour

    state = with_mat(table(("alice", "rammer", "B5", "E", 0), ("bob", "tank", "E5", "W", 0), seed=seed), "alice",
                     fuel_lost=1)
    after, events = hit_armour(state, "v1", "rear", 1, flame=True)
    (test,) = rolls(events, "tests the damaged fuel tank")
    assert test.success == (test.faces[0] >= 5) == vehicle(after, "alice").destroyed
    untouched, events = hit_armour(state, "v1", "front", 1, flame=True)
    assert not rolls(events, "tests the damaged fuel tank")


def test_a_vehicle_whose_engine_fuel_or_driver_is_gone_is_destroyed_and_the_last_one_running_wins():
    """Seed: "Vehicles are destroyed when critical internal components (engine, fuel tank, driver) are
    fully damaged"; "A player is eliminated when their driver is killed"; "The last vehicle (or driver)
    still operational wins". Reconstruction: wrecked by its engine or fuel tank, the driver gets out on
    a d6 of 3 or more."""
    from rules.battlecars.damage import _damage_part
    from rules.battlecars.events import DriverLeft
    from rules.battlecars.ruleset import _settled

    state = table(("alice", "rammer", "B5", "E", 0), ("bob", "tank", "E5", "W", 0))
    for part, field in (("engine", "engine_lost"), ("fuel", "fuel_lost"), ("driver", "driver_lost")):
        squares = getattr(vehicle(state, "bob").spec, part)
        worn = with_mat(state, "bob", **{field: squares - 1})
        after, events = _damage_part(worn, "v2", part, False)
        assert of(events, VehicleDestroyed) and vehicle(after, "bob").destroyed
        escape = rolls(events, "tries to get out")
        if part == "driver":
            assert not escape and after.pedestrian_of("bob") is None
        else:
            assert escape[0].success == (escape[0].faces[0] >= 3) == bool(of(events, DriverLeft))
        final, won = _settled(after)
        on_foot = after.pedestrian_of("bob") is not None
        assert (final.phase == Phase.FINISHED and final.winner == "alice" and of(won, GameWon)) != on_foot


# --- whole games -------------------------------------------------------------------------------------

def test_computer_drivers_finish_games_with_every_vehicle_and_the_log_replays_exactly():
    """Thirty games of computer drivers on both boards, two to six of them, every mat seated: each ends
    (a win, or a draw at the round cap), and replaying its log from the seed rebuilds the same state."""
    from rules.engine import replay

    designs = list(data.vehicles())
    seen, endings = set(), []
    for game in range(30):
        seats = 2 + game % 5
        options = {"board": data.board_ids()[game % 2], "rounds": 30}
        state = RULESET.setup(options, game, "host")
        log = []
        for seat in range(seats):
            action = AddComputer(designs[(game * 3 + seat) % len(designs)])
            state, _ = RULESET.apply(state, "host", action)
            log.append(("host", action))
        state, _ = RULESET.apply(state, "host", Start())
        log.append(("host", Start()))
        seen |= {v.design for v in state.vehicles}
        for _ in range(3000):
            if RULESET.is_finished(state):
                break
            player = RULESET.acting_players(state)[0]
            action = RULESET.computer.choose(state, player)
            state, _ = RULESET.apply(state, player, action)
            log.append((player, action))
        assert RULESET.is_finished(state), game
        endings.append(state.winner is not None)
        assert replay(RULESET, options, game, "host", log) == state
    assert seen == set(designs) and any(endings)


def test_a_data_file_that_breaks_a_rule_is_refused_with_the_file_and_field(tmp_path, monkeypatch):
    """A data file is a door too: a mat that puts rockets on a bike or a passive round in a front pod, a
    bike no faster than a car (seed: bikes have the "Higher top speed"), or a board whose start point is a
    building, is refused by name when it is loaded."""
    import shutil

    shutil.copytree(data.DATA_DIR, tmp_path / "data")
    monkeypatch.setattr(data, "DATA_DIR", tmp_path / "data")
    for cached in (data.vehicles, data.rounds, data.board, data.component_tables, data.table):
        cached.cache_clear()
    try:
        mats = (tmp_path / "data" / "vehicles.toml").read_text()
        bike_pods = ('{ id = "A", facing = "front", load = "mg", rounds = 6 },\n'
                     '    { id = "B", facing = "front", load = "flame"')
        bad = mats.replace(bike_pods, bike_pods.replace('"mg"', '"rocket"', 1), 1)
        assert bad != mats
        (tmp_path / "data" / "vehicles.toml").write_text(bad)
        with pytest.raises(data.DataError, match=r"\[bike1\]: pod A: a bike cannot carry rocket"):
            data.vehicles()
        slow_bike = mats.replace("\nmax_speed = 10\n", "\nmax_speed = 9\n", 1)   # bike1's, as fast as a Gunwagon
        assert slow_bike != mats
        (tmp_path / "data" / "vehicles.toml").write_text(slow_bike)
        data.vehicles.cache_clear()
        with pytest.raises(data.DataError, match="vehicles.toml: every bike's max_speed is above every car's"):
            data.vehicles()
        board = tmp_path / "data" / "boards" / "open.toml"
        board.write_text(board.read_text().replace('".............",', '"B............",'))
        with pytest.raises(data.DataError, match="start point .* inside a building"):
            data.board("open")
        game = tmp_path / "data" / "game.toml"
        game.write_text(game.read_text().replace("trees_strength = 10", "trees_strength = 0"))
        data.table.cache_clear()
        with pytest.raises(data.DataError, match="game.toml: trees_strength must be a whole number above 0"):
            data.table()
    finally:
        for cached in (data.vehicles, data.rounds, data.board, data.component_tables, data.table):
            cached.cache_clear()


# --- passive weapons ---------------------------------------------------------------------------------

def on_board(state, *counters):
    from dataclasses import replace as _replace

    from rules.battlecars.state import Counter

    made = tuple(Counter(i + 1, kind, parse_label(at), "v2") for i, (kind, at) in enumerate(counters))
    return _replace(state, counters=made, next_counter=len(made) + 1)


def test_a_passive_pod_drops_one_round_a_turn_behind_and_never_onto_another_counter():
    """Seed: "Any number of passive weapons may be dropped in a single turn. Two passive weapon tokens
    cannot occupy the same square." Found: one round from each pod loaded with them a turn."""
    from rules.battlecars.actions import Drop
    from rules.battlecars.events import CounterDropped

    state = table(("alice", "war_rig", "F5", "E", 2), ("bob", "tank", "M1", "W", 0))
    state, events = act(state, "alice", Drop("E"))
    assert of(events, CounterDropped)[0].describe() == "alice drops oil at E5."
    with pytest.raises(GameError, match="E5 already holds oil: two passive weapon tokens cannot share a point"):
        act(state, "alice", Drop("F"))
    state, _ = act(state, "alice", Move("ahead"))
    state, _ = act(state, "alice", Drop("F"))                    # a second pod the same turn, from G5
    assert [(c.kind, label(c.point)) for c in state.counters] == [("oil", "E5"), ("spikes", "F5")]
    with pytest.raises(GameError, match="one round a pod"):
        act(state, "alice", Drop("E"))
    assert vehicle(state, "alice").weapon("E").rounds == 5
    with pytest.raises(GameError, match="a missile: use /fire"):
        act(state, "alice", Drop("A"))
    with pytest.raises(GameError, match="drop it behind with /drop"):
        act(state, "alice", Fire("E", "bob"))


def test_a_mine_does_two_internal_hits_past_the_front_armour_and_is_gone():
    """Seed: "Mine (removed after hit; 2D damage to front internal)": two internal hits (reconstruction)."""
    from rules.battlecars.events import CounterTriggered

    state = on_board(table(("alice", "rammer", "C5", "E", 2), ("bob", "tank", "M1", "W", 0)), ("mine", "D5"))
    state, events = act(state, "alice", Move("ahead"))
    assert of(events, CounterTriggered)[0].describe() == "alice runs onto the mine at D5: it explodes under the front."
    assert len(rolls(events, "rolls for an internal hit")) >= 2 and not of(events, ArmourHit)
    assert vehicle(state, "alice").armour == (10, 6, 6) and state.counters == ()


def test_spikes_take_a_tyre_square_and_stay():
    """Seed: "Spikes (permanent; 1D damage to each wheel)": one tyre square (reconstruction)."""
    state = on_board(table(("alice", "rammer", "C5", "E", 2), ("bob", "tank", "M1", "W", 0)), ("spikes", "D5"))
    state, _ = act(state, "alice", Move("ahead"))
    assert vehicle(state, "alice").tyres_lost == 1 and [c.kind for c in state.counters] == ["spikes"]


@pytest.mark.parametrize("seed", (1, 2))
def test_oil_forces_straight_on_and_a_skid_test(seed):
    """Seed: "Oil (permanent; forces straight-line movement and skid roll)". The Rammer at 8 against its
    45° cornering speed of 7: a skid on 2 or less. Seed 1 rolls 3 (no skid), seed 2 rolls 2 (a skid)."""
    state = on_board(table(("alice", "rammer", "C5", "E", 8), ("bob", "tank", "M1", "W", 0), seed=seed),
                     ("oil", "D5"))
    state, events = act(state, "alice", Move("ahead"))
    (test,) = rolls(events, "tests for a skid")
    assert test.target == 2 and test.success == (seed == 2)
    assert vehicle(state, "alice").oiled and [c.kind for c in state.counters] == ["oil"]
    if vehicle(state, "alice").moved < 8:
        with pytest.raises(BadOption, match="on oil: it goes straight on"):
            act(state, "alice", Move("left-45"))


def test_a_bike_may_avoid_a_mine_on_a_d8_above_its_speed():
    """Found: bikes "try to avoid mines and spikes ... a result ≤ the bike's speed means ... the mine or
    spikes work as normal". Seed 2 rolls 6 at speed 3: avoided; seed 1 rolls 1: it explodes."""
    from rules.battlecars.events import CounterTriggered

    for seed, effect in ((2, "avoided"), (1, "it explodes under the front")):
        state = on_board(table(("alice", "bike1", "C5", "E", 3), ("bob", "tank", "M1", "W", 0), seed=seed),
                         ("mine", "D5"))
        state, events = act(state, "alice", Move("ahead"))
        assert rolls(events, "tries to avoid the mine")[0].target == 3
        assert of(events, CounterTriggered)[0].effect == effect


def test_smoke_blocks_fire_and_may_drift_at_the_end_of_the_turn():
    """Seed: "Smoke (permanent; blocks line of sight and firing)"; found: "Roll for Smoke Markers";
    reconstruction: on a 1 it drifts a point in a d8 direction."""
    from rules.battlecars.passive import smoke_roll

    state = on_board(table(("alice", "gunwagon", "G5", "E", 0), ("bob", "tank", "K5", "W", 0)), ("smoke", "I5"))
    with pytest.raises(GameError, match="smoke at I5 blocks"):
        act(state, "alice", Fire("A", "bob"))
    drifted = 0
    for seed in range(1, 30):
        from dataclasses import replace as _replace

        from rules.dice import DiceState

        after, events = smoke_roll(_replace(state, dice=DiceState(seed)))
        (stay,) = rolls(events, "at I5 rolls")
        moved = after.counters[0].point != state.counters[0].point
        assert moved == (stay.faces[0] == 1 and after.the_board.inside(after.counters[0].point))
        drifted += moved
    assert drifted



def test_a_vehicle_fired_upon_may_return_one_round_at_its_attacker():
    """Found: "vehicles fired upon may return fire"; "Return fire is one round of missile weapon, aimed at
    the attacker". Ruling: return fire is not counted in the turn's limits."""
    from rules.battlecars.actions import HoldFire
    from rules.battlecars.events import FireHeld, ReturnFireOffered

    state = table(("alice", "gunwagon", "G5", "E", 0), ("bob", "gunwagon", "K5", "W", 0),
                  ("carol", "tank", "K1", "W", 0), seed=4)
    state, events = act(state, "alice", Fire("turret", "bob"))
    assert of(events, ReturnFireOffered)[0].describe() == "bob may return fire at alice (/fire, or /hold)."
    assert state.phase == Phase.RETURN and RULESET.acting_players(state) == ("bob",)
    assert {a.command for a in RULESET.legal_actions(state, "bob")} == {
        "/fire weapon:A target:v1", "/fire weapon:turret target:v1", "/hold"}
    with pytest.raises(BadOption, match="Return fire goes back at alice only"):
        act(state, "bob", Fire("turret", "carol"))
    with pytest.raises(NotYourTurn):
        act(state, "alice", Fire("A", "bob"))
    state, events = act(state, "bob", Fire("turret", "alice"))
    assert of(events, WeaponFired)[0].vehicle == "bob"
    assert vehicle(state, "bob").fired == () and vehicle(state, "bob").targets == ()     # not in bob's limits
    assert vehicle(state, "bob").weapon("turret").rounds == 11
    if state.phase == Phase.SECTION:
        state, _ = act(state, "alice", ChooseSection(state.pending_hit.sections[0]))
    assert state.phase == Phase.MOVE and state.active == "alice"
    held = table(("alice", "gunwagon", "G5", "E", 0), ("bob", "gunwagon", "K5", "W", 0), seed=4)
    held, _ = act(held, "alice", Fire("turret", "bob"))
    held, events = act(held, "bob", HoldFire())
    assert of(events, FireHeld) and held.phase == Phase.MOVE and held.active == "alice"



# --- pedestrians -------------------------------------------------------------------------------------

def on_foot(state, player: str):
    from rules.battlecars.actions import Leave

    state, events = act(state, player, Leave())
    return state, events


def test_a_driver_leaves_only_at_speed_0_as_the_whole_move_and_never_from_a_truck():
    """Seed: "When leaving a vehicle, the driver becomes a pedestrian with 3 health points"; "Truck:
    Driver cannot leave vehicle". Reconstruction: at speed 0, and it is the whole move."""
    from rules.battlecars.actions import Leave
    from rules.battlecars.events import DriverLeft

    moving = table(("alice", "rammer", "C5", "E", 2), ("bob", "tank", "M1", "W", 0))
    with pytest.raises(WrongPhase, match="only at speed 0"):
        act(moving, "alice", Leave())
    truck = table(("alice", "hauler", "C5", "E", 0), ("bob", "tank", "M1", "W", 0))
    with pytest.raises(BadOption, match="truck's driver cannot leave"):
        act(truck, "alice", Leave())
    state, events = on_foot(table(("alice", "rammer", "C5", "E", 0), ("bob", "tank", "M1", "W", 0)), "alice")
    assert of(events, DriverLeft)[0].describe() == "alice's driver is out on foot at B5, 3 health points."
    walker = state.pedestrian_of("alice")
    assert (walker.id, walker.health, walker.rounds) == ("d1", 3, 6) and vehicle(state, "alice").driver_out
    assert state.active == "bob"                                     # it took alice's whole move
    from rules.battlecars.speed import waiting

    assert "alice" not in waiting(replace_phase(state, Phase.SPEED))  # an empty vehicle sets no speed


def replace_phase(state, phase):
    from dataclasses import replace as _replace

    return _replace(state, phase=phase)


def test_a_pedestrian_walks_a_point_a_turn_into_trees_and_buildings_but_not_onto_a_vehicle():
    """Reconstruction: a pedestrian moves 1 point a turn and can enter buildings and trees."""
    from rules.battlecars.actions import Walk

    state, _ = on_foot(table(("alice", "rammer", "C4", "N", 0), ("bob", "tank", "M1", "W", 0)), "alice")
    state = replace_active(state, "alice")
    assert label(state.pedestrian_of("alice").point) == "C5"
    with pytest.raises(BadOption, match="C4: it is off the board or taken"):
        act(state, "alice", Walk("N"))
    state, _ = act(state, "alice", Walk("NE"))                       # into the trees at D4
    assert label(state.pedestrian_of("alice").point) == "D4"
    with pytest.raises(WrongPhase, match="a point a turn"):
        act(state, "alice", Walk("E"))
    with pytest.raises(WrongPhase, match="You are on foot"):
        act(state, "alice", Move("ahead"))


def replace_active(state, player):
    from dataclasses import replace as _replace

    return _replace(state, active=player, phase=Phase.MOVE)


@pytest.mark.parametrize("seed", range(1, 7))
def test_a_vehicle_running_onto_a_pedestrian_kills_on_a_d8_at_most_its_speed(seed):
    """Seed: a pedestrian "can be run over"; reconstruction: a d8 at most the vehicle's speed kills, else
    the pedestrian dives to a free point beside."""
    from rules.battlecars.events import PedestrianDived, PedestrianKilled

    state, _ = on_foot(table(("bob", "tank", "D5", "E", 0), ("alice", "rammer", "A5", "E", 4), seed=seed), "bob")
    state = replace_active(state, "alice")
    walker = state.pedestrian_of("bob")
    assert label(walker.point) == "C5"
    state, _ = act(state, "alice", Move("ahead"))
    state, events = act(state, "alice", Move("ahead"))
    (dive,) = rolls(events, "tries to dive clear")
    assert dive.target == 4 and bool(of(events, PedestrianKilled)) == (dive.faces[0] <= 4)
    assert bool(of(events, PedestrianDived)) == (dive.faces[0] > 4)
    assert at(state, "alice") == "C5"


# --- buildings and trees ----------------------------------------------------------------------------

def in_cover(state, player: str, at: str, pid: str = "d2"):
    """`player`'s driver on foot at `at` (a point of trees or a building), out of their vehicle."""
    from dataclasses import replace as _replace

    from rules.battlecars.state import Pedestrian

    state = state.with_vehicle(_replace(vehicle(state, player), driver_out=True))
    walker = Pedestrian(pid, player, f"{player}'s driver", parse_label(at), 3, 6)
    return _replace(state, pedestrians=state.pedestrians + (walker,))


def cover_shot(seed: int, damage: int = 0, revision: int = 2):
    """alice's Interceptor on A5 facing the trees at F5 (town board), bob's driver in them: a rocket
    at range 5, 2d6 - 4."""
    from dataclasses import replace as _replace

    state = table(("alice", "interceptor", "A5", "E", 0), ("bob", "tank", "M9", "W", 0), board="town", seed=seed)
    state = in_cover(state, "bob", "F5")
    return _replace(state, revision=revision, scenery_damage=((parse_label("F5"), damage),) if damage else ())


def test_a_pedestrian_in_trees_or_a_building_is_shot_at_another_minus_2():
    """Found: "Shots at pedestrians are -2 to hit, and another -2 from inside the same building or clump
    of trees"."""
    from rules.battlecars.combat import aim

    state = cover_shot(1)
    assert aim(state, vehicle(state, "alice"), state.pedestrian_of("bob")) == -4
    building = in_cover(table(("alice", "sentinel", "A4", "E", 0), ("bob", "tank", "M9", "W", 0), board="town"),
                        "bob", "C3")
    assert aim(building, vehicle(building, "alice"), building.pedestrian_of("bob")) == -4


@pytest.mark.parametrize("seed", range(1, 13))
def test_a_miss_at_a_pedestrian_in_cover_damages_the_trees_or_building(seed):
    """Found: "... from inside the same building or clump of trees, where a miss damages the building or
    trees". Reconstruction: the round's damage roll goes on the piece, and the shot flies no further."""
    from rules.battlecars.events import SceneryDamaged, ShotFliesOn

    state, events = act(cover_shot(seed), "alice", Fire("A", "d2"))
    (to_hit,) = rolls(events, "rolls to hit")
    assert to_hit.total == sum(to_hit.faces) - 4 and to_hit.target == 5
    (damage,) = rolls(events, "rolls damage")
    assert damage.rule.startswith("Rocket: 2d8") and damage.total == sum(damage.faces)
    assert not of(events, ShotFliesOn)
    if to_hit.success:
        assert state.pedestrian_of("bob") is None or state.pedestrian_of("bob").health < 3
        assert state.scenery_damage == () and not of(events, SceneryDamaged)
    else:
        assert state.pedestrian_of("bob").health == 3
        assert state.scenery_damage == ((parse_label("F5"), damage.total),)
        (hit,) = of(events, SceneryDamaged)
        assert (hit.kind, hit.at, hit.points, hit.total, hit.strength) == ("trees", "F5", damage.total,
                                                                           damage.total, 10)


def test_the_misses_add_up_and_at_its_strength_a_piece_is_flattened():
    """Reconstruction (game.toml): trees are flattened at 10 points of damage, a building at 20; flattened,
    they no longer block fire or give cover. Boundaries: 9 stands, 10 is flat."""
    from dataclasses import replace as _replace

    from rules.battlecars import scenery
    from rules.battlecars.combat import aim, check_line
    from rules.battlecars.events import SceneryDamaged

    standing = cover_shot(1, damage=9)
    assert scenery.stands(standing, parse_label("F5")) and not scenery.flattened(standing, parse_label("F5"))
    flat = cover_shot(1, damage=10)
    assert scenery.flattened(flat, parse_label("F5")) and not scenery.stands(flat, parse_label("F5"))
    assert aim(flat, vehicle(flat, "alice"), flat.pedestrian_of("bob")) == -2
    beyond = table(("alice", "interceptor", "A5", "E", 0), ("bob", "tank", "H4", "W", 0), board="town")
    tank = vehicle(beyond, "bob")
    beyond = _replace(beyond, vehicles=(vehicle(beyond, "alice"), _replace(tank, point=parse_label("I5"))))
    with pytest.raises(GameError, match="trees at F5 blocks"):
        check_line(beyond, parse_label("A5"), (2,), vehicle(beyond, "bob"), None, "it")
    assert check_line(_replace(beyond, scenery_damage=((parse_label("F5"), 10), (parse_label("H5"), 10))),
                      parse_label("A5"), (2,), vehicle(beyond, "bob"), None, "it") == 8
    missed = next(s for s in range(1, 40) if not rolls(act(cover_shot(s, damage=9), "alice", Fire("A", "d2"))[1],
                                                       "rolls to hit")[0].success)
    after, events = act(cover_shot(missed, damage=9), "alice", Fire("A", "d2"))
    (hit,) = of(events, SceneryDamaged)
    assert hit.total >= 10 and "flattened" in hit.describe()
    assert scenery.flattened(after, parse_label("F5"))
    assert scenery.strength("building") == 20 and scenery.strength("trees") == 10


def test_a_building_is_one_piece_of_four_points():
    """The board's 2x2 building takes its damage as one: a hit at any of its points counts for all."""
    from dataclasses import replace as _replace

    from rules.battlecars import scenery

    board = data.board("town")
    assert {board.piece(parse_label(p)) for p in ("B2", "C2", "B3", "C3")} == {parse_label("B2")}
    assert board.piece(parse_label("F5")) == parse_label("F5") and board.piece(parse_label("A1")) is None
    state = _replace(table(("alice", "rammer", "A5", "E", 0), ("bob", "tank", "M9", "W", 0), board="town"),
                     scenery_damage=((parse_label("B2"), 20),))
    assert all(scenery.flattened(state, parse_label(p)) for p in ("B2", "C2", "B3", "C3"))
    assert not scenery.flattened(state, parse_label("K2"))


def test_a_bike_rides_only_through_undamaged_trees():
    """Found: "bikes may go through undamaged trees"."""
    from dataclasses import replace as _replace

    bike = table(("alice", "bike1", "E5", "E", 2), ("bob", "tank", "M9", "W", 0), board="town")
    ridden, _ = act(bike, "alice", Move("ahead"))
    assert at(ridden, "alice") == "F5"
    damaged = _replace(bike, scenery_damage=((parse_label("F5"), 1),))
    with pytest.raises(BadOption, match="damaged trees at F5"):
        act(damaged, "alice", Move("ahead"))


@pytest.mark.parametrize("seed", range(1, 9))
def test_a_pistol_miss_in_cover_does_d3_to_it(seed):
    """The pistol's miss at a pedestrian in cover: a d3 on the piece (reconstruction, as on a vehicle)."""
    from dataclasses import replace as _replace

    from rules.battlecars.events import SceneryDamaged

    state = table(("alice", "rammer", "M1", "W", 0), ("bob", "tank", "M9", "W", 0), board="town", seed=seed)
    state = in_cover(in_cover(state, "alice", "B5", "d1"), "bob", "F5")
    state, events = act(_replace(state, revision=2), "alice", Fire("pistol", "d2"))
    (to_hit,) = rolls(events, "rolls to hit")
    assert to_hit.target == 4 and to_hit.total == sum(to_hit.faces) - 4
    if not to_hit.success:
        (damage,) = rolls(events, "rolls damage")
        assert damage.rule == "pistol against cover: d3" and damage.total in (1, 2, 3)
        assert of(events, SceneryDamaged)[0].total == damage.total


def test_a_revision_1_game_keeps_its_rules_a_miss_in_cover_damages_nothing():
    """Stored games play on under the rules they began with: before revision 2 scenery took no damage."""
    for seed in range(1, 13):
        state, events = act(cover_shot(seed, revision=1), "alice", Fire("A", "d2"))
        if not rolls(events, "rolls to hit")[0].success:
            assert not rolls(events, "rolls damage") and state.scenery_damage == ()
            return
    raise AssertionError("no miss in 12 seeds")


def test_the_pistol_rolls_2d6_at_minus_2_against_a_pedestrian_and_does_d3_to_a_vehicle():
    """Reconstruction: a pistol with 6 rounds, range dice 2d6, 1 health against pedestrians and 1d3
    points against vehicles; found: shots at pedestrians are -2 to hit."""
    state, _ = on_foot(table(("alice", "rammer", "C5", "W", 0), ("bob", "tank", "G5", "W", 0)), "alice")
    state = replace_active(state, "alice")
    assert label(state.pedestrian_of("alice").point) == "D5"
    with pytest.raises(BadOption, match="only weapon is the pistol"):
        act(state, "alice", Fire("A", "bob"))
    for seed in range(1, 12):
        from dataclasses import replace as _replace

        from rules.dice import DiceState

        after, events = act(_replace(state, dice=DiceState(seed)), "alice", Fire("pistol", "v2"))
        (to_hit,) = rolls(events, "rolls to hit")
        assert to_hit.target == 3 and to_hit.success == (sum(to_hit.faces) >= 3)
        assert after.pedestrian_of("alice").rounds == 5 and after.pedestrian_of("alice").fired
        if to_hit.success:
            (damage,) = rolls(events, "rolls damage")
            assert damage.dice == "d3" and damage.total in (1, 2, 3)
    bob_out, _ = on_foot(table(("bob", "tank", "E5", "W", 0), ("alice", "rammer", "H5", "E", 0)), "bob")
    bob_out = replace_active(bob_out, "alice")
    from rules.battlecars.combat import aim

    assert aim(bob_out, vehicle(bob_out, "alice"), bob_out.pedestrian_of("bob")) == -2


def test_a_pedestrian_boards_its_own_vehicle_beside_it_at_speed_0():
    """Reconstruction: a pedestrian "may board an undestroyed empty vehicle on its point" (here: beside)."""
    from rules.battlecars.actions import Board
    from rules.battlecars.events import DriverBoarded

    state, _ = on_foot(table(("alice", "rammer", "C5", "E", 0), ("bob", "tank", "M1", "W", 0)), "alice")
    state = replace_active(state, "alice")
    state, events = act(state, "alice", Board())
    assert of(events, DriverBoarded) and state.pedestrian_of("alice") is None
    assert not vehicle(state, "alice").driver_out and vehicle(state, "alice").speed == 0


def test_a_driver_on_foot_is_not_offered_a_shot_at_their_own_vehicle():
    """Issue 37, item 10: out of their vehicle, alice was offered `/fire weapon:pistol target:v1` (her own
    empty car) first of all, while /odds said no shot was open. Her own vehicle is offered as neither; the
    other driver's is, wherever a line reaches it."""
    from rules.battlecars.ruleset import odds

    state, _ = on_foot(table(("alice", "rammer", "C5", "E", 0), ("bob", "tank", "B7", "W", 0)), "alice")
    state = replace_active(state, "alice")
    shots = [a.command for a in RULESET.legal_actions(state, "alice") if a.command.startswith("/fire")]
    assert shots == ["/fire weapon:pistol target:v2"], shots
    assert "(v1)" not in odds(state, "alice", {})


def test_odds_give_each_open_shot_and_a_turns_skid_chance_and_change_nothing():
    from rules.battlecars.ruleset import odds

    state = table(("alice", "gunwagon", "G5", "E", 8), ("bob", "tank", "K5", "W", 0))
    assert odds(state, "alice", {}).splitlines()[1:] == [
        "pod A (Shell, front) at bob (v2): range 4, 3d6 +1 -> 100% to hit; damage 1d8+2.",
        "turret (Machine gun) at bob (v2): range 4, 3d6 +1 -> 100% to hit; damage 1d8."]
    assert odds(state, "alice", {"turn": "left-45"}) == "left-45 at speed 8 needs no skid test."
    assert odds(state, "alice", {"turn": "right-90"}) == \
        "right-90 at speed 8 (cornering 5): a skid on a d6 of 6 or less, 100%."
    with pytest.raises(GameError, match="holds Smoke: drop it behind"):
        odds(state, "alice", {"weapon": "B", "target": "bob"})
    assert odds(state, "bob", {"weapon": "turret", "target": "v1"}).startswith("turret (Shell) at alice (v1): range 4")
    assert RULESET.queries["odds"] is odds


def test_a_skid_that_drifts_onto_oil_skids_again_with_the_drift_it_had_left():
    """Found: "A skidding vehicle that enters more oil, smoke or spikes adds its remaining drift to the
    next skid result". Seed 6: the skid drifts 3 points from C5; oil at D5 starts a new skid result of
    2 + d3 + the 2 points it had left."""
    state = on_board(table(("alice", "interceptor", "C5", "E", 8), ("bob", "tank", "A1", "E", 0), seed=6),
                     ("oil", "D5"))
    state, events = act(state, "alice", Move("right-90"))
    first, again = rolls(events, "rolls the drift")
    assert first.total == 3 and again.modifier == 2 + 2 and again.total == 4 + again.faces[0]
    drifted = [e.to_point for e in of(events, Drifted)]
    assert drifted[0] == "D5" and len(drifted) == min(8, 1 + again.total)


def test_a_tank_has_no_wheels_for_spikes_and_no_tyre_row_on_its_speedo():
    """Seed: "Tanks have ... no wheel damage modifiers"."""
    from rules.battlecars.events import CounterTriggered

    state = on_board(table(("alice", "tank", "C5", "E", 2), ("bob", "rammer", "M1", "W", 0)), ("spikes", "D5"))
    state, events = act(state, "alice", Move("ahead"))
    assert of(events, CounterTriggered)[0].effect == "no tyres to puncture"
    tank = vehicle(state, "alice")
    assert tank.tyres_lost == 0 and tank.top_speed(state.revision) == 4 == tank.spec.max_speed


def test_each_vehicle_comes_armed_as_its_mat_shows():
    """Seed: "Each vehicle comes pre-armed with weapons as shown on its play mat."."""
    from rules.battlecars.lobby import new_vehicle

    for spec in data.vehicles().values():
        fresh = new_vehicle(spec, "v1", "alice", "alice", 0)
        assert fresh.armour == spec.armour and [(p.id, p.load, p.rounds) for p in fresh.pods] == [
            (p.id, p.load, p.rounds) for p in spec.pods]
        assert (fresh.turret is None) == (spec.turret is None)
        assert (fresh.engine_lost, fresh.tyres_lost, fresh.fuel_lost, fresh.driver_lost) == (0, 0, 0, 0)


def test_a_driver_on_foot_beside_a_wreck_has_a_whole_move_and_one_fresh_out_waits_a_turn():
    """A pedestrian walks and fires in the same move, even with the vehicle wrecked; a driver who has
    just got out of a wreck acts from the next turn (ruling)."""
    from dataclasses import replace as _replace

    from rules.battlecars.actions import Walk
    from rules.battlecars.ruleset import _settled

    state, _ = on_foot(table(("bob", "rammer", "C5", "W", 0), ("alice", "tank", "G5", "W", 0)), "bob")
    state = replace_active(with_mat(state, "bob", destroyed=True), "bob")
    state, _ = act(state, "bob", Walk("E"))
    assert state.active == "bob" and state.pedestrian_of("bob").walked          # the move goes on
    state, events = act(state, "bob", Fire("pistol", "v2"))
    assert rolls(events, "rolls to hit") and state.active in ("bob", "alice")
    fresh = replace_active(_replace(state, pedestrians=(_replace(state.pedestrian_of("bob"), fresh=True),)), "bob")
    handed, _ = _settled(fresh)
    assert handed.active == "alice"


# --- the reconstructed tables at their boundaries ----------------------------------------------------

@pytest.mark.parametrize("design, expected", [
    ("marauder", {1: "pod:A", 2: "pod:B", 3: "pod:C", 4: "pod:D", 5: "equipment:gunnery_computer", 6: "tyres",
                  7: "engine"}),
    ("gunwagon", {1: "pod:A", 2: "pod:B", 3: "turret", 4: "turret", 6: "tyres", 7: "engine"}),
    ("tank", {1: "pod:A", 2: "pod:B", 3: "turret", 4: "turret", 5: "engine", 6: "engine", 7: "fuel", 8: "driver"}),
    ("bike1", {1: "pod:A", 2: "pod:B", 3: "pod:C", 4: "pod:D", 5: "pod:E", 6: "equipment:power_brakes",
               7: "engine"}),
])
def test_each_row_of_the_d8_component_table_hits_its_part(design, expected):
    """rules-gaps.md 2.3.3 (the bikes' row found): every row of each table, for a vehicle with every part."""
    from rules.battlecars.damage import _which_part

    state = table(("alice", design, "C5", "E", 0), ("bob", "tank", "M1", "W", 0))
    rows = data.component_tables()[vehicle(state, "alice").spec.components]
    for row, part in expected.items():
        assert _which_part(state, "v1", rows[row])[1] == part, row
    if vehicle(state, "alice").spec.components != "tank":
        _, part, events = _which_part(state, "v1", rows[8])             # 1-3 the fuel tank, 4-6 the driver
        assert part == ("fuel" if events[0].faces[0] <= 3 else "driver")


@pytest.mark.parametrize("design, pod, rnd", [("interceptor", "A", "rocket"), ("rammer", "A", "mg"),
                                              ("gunwagon", "A", "shell"), ("firebrand", "A", "flame")])
def test_each_round_rolls_its_range_dice_and_damage_dice(design, pod, rnd):
    """weapons.toml (reconstruction): rockets 2d6 to hit and 2d8 damage; shells 3d6 and 1d8+2; MG 3d6 and
    1d8; flame 1d6 and 1d8."""
    spec = data.rounds()[rnd]
    for seed in range(1, 30):
        state = table(("alice", design, "C5", "E", 0), ("bob", "tank", "E5", "W", 0), seed=seed)
        state, events = act(state, "alice", Fire(pod, "bob"))
        (to_hit,) = rolls(events, "rolls to hit")
        assert len(to_hit.faces) == spec.range_dice and to_hit.total == sum(to_hit.faces) + to_hit.modifier
        if to_hit.success:
            (damage,) = rolls(events, "rolls damage")
            assert len(damage.faces) == spec.damage and damage.total == sum(damage.faces) + spec.bonus
            return
    pytest.fail("no hit in 29 seeds")


def test_a_shunt_never_goes_below_zero_and_half_is_rounded_down():
    from rules.battlecars.rams import damages

    car = vehicle(table(("a", "marauder", "A1", "E", 0), ("b", "tank", "M1", "W", 0)), "a")
    assert damages("shunt", 0, car, car, 4) == (0, 0)
    assert damages("side", 7, car, car, 4) == (3, 7) and damages("shunt", 1, car, car, 4) == (0, 1)


def test_autocomplete_offers_only_legal_values_labelled_with_their_odds():
    state = table(("alice", "gunwagon", "G5", "E", 0), ("bob", "tank", "K5", "W", 0), ("carol", "tank", "G8", "N", 0))
    weapons = RULESET.suggestions(state, "alice", "fire", "weapon", {})
    assert [v for _l, v in weapons] == ["A", "turret"]
    targets = RULESET.suggestions(state, "alice", "fire", "target", {"weapon": "turret"})
    assert targets == [("Fire turret at bob (100%)", "v2"), ("Fire turret at carol (100%)", "v3")]
    assert RULESET.suggestions(state, "bob", "fire", "weapon", {}) == []          # not bob's move


def test_a_miss_flies_on_and_may_hit_what_is_beyond_on_the_line():
    """Found: "Only the nearest target on a line may be chosen, but a miss may hit something beyond it."
    Reconstruction: the range dice again, at the range of the first vehicle or pedestrian beyond."""
    from rules.battlecars.events import ShotFliesOn

    flew = 0
    for seed in range(1, 40):
        state = table(("alice", "interceptor", "B5", "E", 0), ("bob", "tank", "H5", "W", 0),
                      ("carol", "tank", "J5", "W", 0), seed=seed)
        state, events = act(state, "alice", Fire("A", "bob"))
        first, *again = rolls(events, "rolls to hit")
        if first.success:
            assert not of(events, ShotFliesOn)
            continue
        flew += 1
        assert of(events, ShotFliesOn)[0].target == "carol" and again[0].target == 8
        hit = {h.vehicle for h in of(events, ArmourHit)}
        assert ("carol" in hit) == again[0].success and "bob" not in hit
    assert flew


def test_a_pedestrian_reloads_from_a_dead_drivers_pistol_as_a_turn_without_firing():
    """Found: "Pedestrians reload from a dead pedestrian or driver's weapon on the same point; this takes
    a turn without firing." Ruling: on or beside the pedestrian's point, filled to 6 rounds."""
    from dataclasses import replace as _replace

    from rules.battlecars.actions import Reload
    from rules.battlecars.events import PistolReloaded

    state, _ = on_foot(table(("alice", "rammer", "C5", "W", 0), ("bob", "tank", "K1", "W", 0)), "alice")
    state = replace_active(state, "alice")
    walker = state.pedestrian_of("alice")
    with pytest.raises(BadOption, match="No dead driver's pistol"):
        act(state, "alice", Reload())
    armed = _replace(state, pistols_left=((parse_label("E5"), 4),),
                     pedestrians=(_replace(walker, rounds=3),))                 # alice is at D5
    after, events = act(armed, "alice", Reload())
    assert of(events, PistolReloaded)[0].describe() == "alice's driver reloads 3 rounds from the pistol at E5."
    assert after.pedestrians[0].rounds == 6 and after.pistols_left == ((parse_label("E5"), 1),)
    assert after.active == "bob"                                               # it was the whole move
    fired = _replace(armed, pedestrians=(_replace(walker, rounds=3, fired=True),))
    with pytest.raises(WrongPhase, match="a turn without firing"):
        act(fired, "alice", Reload())


def test_a_driver_killed_leaves_the_pistol_where_they_fell():
    from rules.battlecars.damage import _damage_part
    from rules.battlecars.pedestrians import wound

    state, _ = on_foot(table(("alice", "rammer", "C5", "W", 0), ("bob", "tank", "K1", "W", 0)), "alice")
    walker = state.pedestrian_of("alice")
    dead, _ = wound(state, walker.id, 9, "a test")
    assert dead.pistols_left == ((walker.point, 6),) and dead.pedestrians == ()
    aboard = with_mat(table(("alice", "rammer", "C5", "W", 0), ("bob", "tank", "K1", "W", 0)), "bob",
                      driver_lost=2)
    wrecked, _ = _damage_part(aboard, "v2", "driver", False)
    assert wrecked.pistols_left == ((parse_label("K1"), 6),)


def test_a_plans_shot_is_worked_out_at_the_first_point_of_the_path_that_allows_it():
    from rules.battlecars import plans

    state = table(("alice", "firebrand", "C5", "E", 3), ("bob", "tank", "H5", "W", 0))
    preview = plans.work_out(state, "alice", {"plan": "ahead,ahead,ahead", "fire": "A@bob"})
    assert preview.fire == "Fires pod A (Flamethrower, front) at bob after point #2: 67% to hit."
    assert preview.fire_option == "A@v2"
    (*moves, shot) = plans.steps(state, "alice", {"plan": "ahead,ahead,ahead", "fire": "A@v2"})
    assert [m.options["turn"] for m in moves] == ["ahead"] * 3 and shot.name == "fire"
    assert "5 points away" in shot.why_not(state)                      # not yet at the start
    moved, _ = act(act(state, "alice", Move("ahead"))[0], "alice", Move("ahead"))
    assert shot.why_not(moved) is None                                  # after point #2 it is legal


@pytest.mark.parametrize("revision", [2, 3])
def test_every_vehicle_entering_oil_makes_the_skid_roll_from_revision_3(revision):
    """Seed: oil "forces straight-line movement and skid roll" (issue 25, item 9). From revision 3 a vehicle
    under its 45° cornering speed rolls too, and the test's table decides: the Rammer at 5 against 7
    cannot skid, whatever it rolls. A revision 2 game rolled only over that speed."""
    state = replace(on_board(table(("alice", "rammer", "C5", "E", 5), ("bob", "tank", "M1", "W", 0), seed=2),
                             ("oil", "D5")), revision=revision)
    state, events = act(state, "alice", Move("ahead"))
    tests = rolls(events, "tests for a skid")
    if revision >= 3:
        (test,) = tests
        assert not test.success and "cannot skid (speed 5, cornering 7)" in test.describe()
    else:
        assert tests == []
    assert vehicle(state, "alice").oiled and vehicle(state, "alice").point == parse_label("D5")


def test_a_driver_on_foot_is_told_as_a_driver_on_foot():
    """Issue 25, item 7: the prompt, the table's words and /odds speak of the driver on foot (its walk,
    board and pistol), never of the vehicle it left; a winner on foot is said to be."""
    from rules.battlecars.events import GameWon
    from rules.battlecars.ruleset import describe, odds, prompt

    state, _ = on_foot(table(("alice", "rammer", "C5", "E", 0), ("bob", "interceptor", "B2", "S", 0)), "alice")
    state = replace_active(state, "alice")
    said = prompt(state)
    assert said.startswith("Turn 1: alice's driver on foot at B5, health 3, pistol 6: ")
    assert "/walk direction:..." in said and "/board" in said and "/end" in said and "the move" not in said
    assert "alice's driver on foot at B5, health 3, pistol 6." in describe(state)
    assert "alice's Rammer at C5 facing E, empty" in describe(state)
    shots = odds(state, "alice", {})
    assert shots.startswith("Shots open to alice's driver (6 rounds):") and "pod" not in shots
    assert "pistol at bob (v2): range 3, 2d6 -> 97% to hit." in shots
    assert odds(state, "alice", {"target": "v2"}) == \
        "Shots open to alice's driver (6 rounds):\npistol at bob (v2): range 3, 2d6 -> 97% to hit."
    with pytest.raises(BadOption, match="the only weapon is the pistol"):
        odds(state, "alice", {"weapon": "a"})
    assert GameWon("alice", on_foot=True).describe() == "alice wins: the last driver left, on foot."
    assert GameWon("alice").describe() == "alice wins: the last driver with a vehicle still running."
