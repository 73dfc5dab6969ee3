"""Speedway collisions: ramming, swipes, slides into cars and strikes on immobile objects (seed: Collisions).

The reconstruction followed is shared/notes/rules-gaps.md 1.2.6 (lost dice icons) and 1.2.8 (collision
speed by angle). Builders and the dice notation are those of test_speedway_combat.py: DiceState(seed, 0)
rolls the face indices of its STREAM table; gray shows A A S B D - and the white driver die
0 1 2 2 3 4 for indices 0..5.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from rules.errors import NotYourTurn, WrongPhase
from rules.hexgrid import label, parse_label
from rules.speedway import ai
from rules.speedway.actions import AnswerSkid, ChooseRam, Move
from rules.speedway.collisions import collision_speed
from rules.speedway.errors import IllegalManeuver
from rules.speedway.events import (
    ArmorDisregarded,
    CarRotated,
    CarStopped,
    Collided,
    DamageRolled,
    DamageTaken,
    DiceRolled,
    InertiaGained,
    SkidPending,
    SpeedLost,
    SpeedLostInCrash,
    TurnBegan,
)
from rules.speedway.ruleset import SPEEDWAY, legal_actions
from rules.speedway.state import Hazard

try:
    from tests.test_speedway_combat import NE, NW, SE, SW, E, W, act, car_of, game, moving, of, pass_to, put
except ImportError:  # tests/ on sys.path directly
    from test_speedway_combat import NE, NW, SE, SW, E, W, act, car_of, game, moving, of, pass_to, put


def pose(car) -> tuple[str, str, int]:
    return label(car.front), label(car.back), car.facing


# --- Collision speed ---------------------------------------------------------------------------

@pytest.mark.parametrize("va, vd, attacker, defender, vc", [
    (4, 3, E, W, 7),        # head-on: Va + Vd
    (4, 3, E, NW, 5),       # 120 degrees: Va + Vd/2 = 5.5, rounded down
    (4, 3, E, SW, 5),
    (4, 3, E, NE, 2),       # 60 degrees: Va - Vd/2 = 2.5, rounded down
    (4, 3, E, SE, 2),
    (4, 3, E, E, 1),        # rear-end: Va - Vd
    (2, 4, E, E, 0),        # never below 0
    (1, 4, E, NE, 0),
    (5, 0, E, W, 5),        # a standing defender: Va
    (3, 3, NW, SE, 6),      # the same angles at any heading
    (3, 3, SW, E, 4),
])
def test_collision_speed_by_angle(va, vd, attacker, defender, vc):
    assert collision_speed(va, vd, attacker, defender) == vc


@pytest.mark.parametrize("front, facing, vc", [
    ("N9", W, 7), ("N9", NW, 5), ("N9", SW, 5), ("N9", NE, 2), ("N9", SE, 2),
    ("O9", E, 1),           # rear-end: bob's back hex is on N9
])
def test_ram_rolls_vc_plus_one_at_the_defender_and_vc_at_the_attacker(front, facing, vc):
    state = game("brawler", "brawler")
    state = put(state, "alice", "M9", E, speed=4)
    state = put(state, "bob", front, facing, speed=3)
    before = {o: car_of(state, o).speed for o in ("alice", "bob")}
    after, events = act(moving(state, 4, 1), "alice", Move("normal"))
    assert events[0] == Collided("ram", "alice", "bob", "N9", vc)
    to_bob, to_alice = of(events, DamageRolled)
    assert (to_bob.car, to_bob.dice) == ("bob", ("gray",) * (vc + 1))
    assert (to_alice.car, to_alice.dice) == ("alice", ("gray",) * vc)
    # Each car loses speed equal to the results that took effect on it.
    for owner in ("alice", "bob"):
        taken = sum(len(e.effects) for e in of(events, DamageTaken) if e.car == owner)
        assert car_of(after, owner).speed == max(0, before[owner] - taken)
    assert pose(car_of(after, "alice")) == ("M9", "L9", E)     # the attacker stays short
    assert after.phase == "ram"


def ram(seed: int, moves: int = 3):
    """alice (speed 3) drives M9 -> N9 into bob's front N9-O9 (facing W, speed 2): head-on, Vc 5."""
    state = game("brawler", "brawler", "brawler")
    state = put(state, "alice", "M9", E, speed=3)
    state = put(state, "bob", "N9", W, speed=2)
    state = put(state, "carol", "D3", SE)
    return moving(state, moves, seed)


def test_ram_damage_speed_loss_and_roll_off():
    # seed 1: six gray at bob S S A S D A; five gray at alice - B S A A; then four white dice each.
    state, events = act(ram(1), "alice", Move("normal"))
    assert events == (
        Collided("ram", "alice", "bob", "N9", 5),
        DamageRolled("bob", "rammed by alice", ("gray",) * 6, ("S", "S", "A", "S", "D", "A")),
        ArmorDisregarded("bob", ("D", "S", "S")),
        DamageTaken("bob", ("Armor 3 (a box crossed)", "Suspension 3->2", "Armor 3->2")),
        DamageRolled("alice", "ramming bob", ("gray",) * 5, ("-", "B", "S", "A", "A")),
        ArmorDisregarded("alice", ("B", "S")),
        DamageTaken("alice", ("Armor 3 (a box crossed)", "Armor 3->2")),
        SpeedLostInCrash("alice", 2, 1),
        SpeedLostInCrash("bob", 2, 0),                        # 3 results, but only 2 speed to lose
        # roll-off: each adds the damage it did to the other (alice 3, bob 2)
        DiceRolled("alice", "ram roll-off (+3)", "ramming roll-off", "white driver dice", (4, 4, 2, 2), 15, 7,
                   True, modifier=3, car_id="c1"),
        DiceRolled("bob", "ram roll-off (+2)", "ramming roll-off", "white driver dice", (0, 1, 2, 2), 7, 15,
                   False, modifier=2, car_id="c2"),
    )
    assert state.phase == "ram" and state.pending_ram.chooser == "alice" and state.moves_left == 2
    assert [a.command for a in legal_actions(state, "alice")] == ["/ram outcome:A", "/ram outcome:B"]
    with pytest.raises(WrongPhase):
        act(state, "alice", Move("normal"))


def test_roll_off_tie_is_rerolled_and_the_defender_may_choose():
    # seed 8: bob's Armor ignores everything (alice +0); alice takes A A (bob +2).
    # First roll-off 8 against 8: again; then alice 7, bob 12. Bob's owner chooses.
    state, events = act(ram(8), "alice", Move("normal"))
    rolls = of(events, DiceRolled)
    assert [(r.car, r.faces, r.total) for r in rolls] == [
        ("alice", (3, 3, 2, 0), 8), ("bob", (3, 0, 3, 0), 8),
        ("alice", (3, 2, 2, 0), 7), ("bob", (3, 2, 2, 3), 12)]
    assert state.pending_ram.chooser == "bob" and state.deciding_player == "bob"
    assert SPEEDWAY.acting_players(state) == ("bob",)
    assert legal_actions(state, "alice") == ()
    with pytest.raises(NotYourTurn):
        act(state, "alice", ChooseRam("B"))
    legal = [a.command for a in legal_actions(state, "bob")]
    assert legal == ["/ram outcome:A", "/ram outcome:B"]
    assert ai.choose_command(state, "bob", legal) == "/ram outcome:A"   # the computer turns the attacker
    state, _ = act(state, "bob", ChooseRam("a"))
    assert state.phase == "movement" and state.active_player == "alice" and car_of(state, "alice").must_turn


def test_outcome_a_attacker_must_turn_next_move():
    state, _ = act(ram(1), "alice", Move("normal"))
    assert ai.choose_command(state, "alice", [a.command for a in legal_actions(state, "alice")]) == (
        "/ram outcome:B")                                         # the computer pushes through
    state, events = act(state, "alice", ChooseRam("A"))
    assert events == () and car_of(state, "alice").must_turn
    moves = [a.command for a in legal_actions(state, "alice") if a.command.startswith("/move")]
    assert moves == ["/move maneuver:turn-left", "/move maneuver:turn-right"]
    with pytest.raises(IllegalManeuver, match="must be turn-left or turn-right"):
        act(state, "alice", Move("normal"))
    state, events = act(state, "alice", Move("turn-left"))
    assert pose(car_of(state, "alice")) == ("M8", "M9", NE) and not car_of(state, "alice").must_turn


def test_outcome_a_without_a_move_left_stops_the_attacker():
    state, _ = act(ram(1, moves=1), "alice", Move("normal"))
    state, _ = act(state, "alice", ChooseRam("A"))
    alice = car_of(state, "alice")
    assert alice.speed == 0 and not alice.must_turn and state.moves_left == 0


def test_outcome_b_defender_pivots_away_and_attacker_takes_the_hex():
    state, _ = act(ram(1), "alice", Move("normal"))
    state, events = act(state, "alice", ChooseRam("B"))
    # Bob pivots on his un-struck back hex O9: his front swings from N9 to N8.
    assert events == (CarRotated("bob", "N8", "O9", "pushed aside"),)
    assert pose(car_of(state, "bob")) == ("N8", "O9", NW)
    assert pose(car_of(state, "alice")) == ("N9", "M9", E)
    assert state.phase == "movement" and state.moves_left == 2


def test_outcome_b_blocked_rotation_stops_the_attacker():
    state = put(ram(1), "carol", "N8", E)                      # carol (N8-M8) sits where bob would swing
    state, _ = act(state, "alice", Move("normal"))
    state, events = act(state, "alice", ChooseRam("B"))
    assert events == ()
    assert pose(car_of(state, "bob")) == ("N9", "O9", W)
    assert pose(car_of(state, "alice")) == ("M9", "L9", E)
    assert car_of(state, "alice").speed == 0 and state.moves_left == 0


def test_ram_damage_to_speed_zero_stops_the_attacker():
    # seed 2: alice takes 3 results (speed 3 -> 0); she wins the roll-off and picks B.
    state, events = act(ram(2), "alice", Move("normal"))
    assert SpeedLostInCrash("alice", 3, 0) in events
    state, _ = act(state, "alice", ChooseRam("B"))
    assert car_of(state, "alice").speed == 0
    assert state.moves_left == 0                               # a stopped car moves no further


def test_outcome_b_attacker_meets_oil_in_the_vacated_hex():
    state = ram(1)
    state = replace(state, hazards=(Hazard(1, "oil", parse_label("N9"), car_of(state, "carol").id, True),),
                    next_hazard_id=2)
    state, _ = act(state, "alice", Move("normal"))
    state, events = act(state, "alice", ChooseRam("B"))
    assert InertiaGained("alice", 1, "oil") in events


# --- Swipes ------------------------------------------------------------------------------------

def swipe_setup(speed: int):
    """alice turns left M9 -> M8 (facing NE); the skid hexes are N8 and N9; bob sits on N8-N7."""
    state = game("brawler", "brawler")
    state = put(state, "alice", "M9", E, speed=speed)
    state = put(state, "bob", "N8", SE)
    return moving(state, speed, 1)


def test_swipe_offered_below_skid_speed_costs_a_move():
    state, events = act(swipe_setup(3), "alice", Move("turn-left"))
    assert events[-1] == SkidPending("alice", 3, 5, "E", False, "bob")
    assert [a.command for a in legal_actions(state, "alice")] == ["/skid choice:continue", "/skid choice:swipe"]
    state, events = act(state, "alice", AnswerSkid("swipe"))
    # seed 1: gray to bob S, gray to alice S; both disregarded by Armor 3.
    assert events == (Collided("swipe", "alice", "bob", "N8", 0),
                      DamageRolled("bob", "swiped by alice", ("gray",), ("S",)), ArmorDisregarded("bob", ("S",)),
                      DamageRolled("alice", "swiping bob", ("gray",), ("S",)), ArmorDisregarded("alice", ("S",)),
                      InertiaGained("bob", 1, "swiped"))
    assert state.moves_left == 1 and car_of(state, "bob").inertia == 1
    assert car_of(state, "alice").inertia == 2                  # only the Turn's own inertia
    assert pose(car_of(state, "alice")) == ("M8", "M9", NE)     # no slide
    assert pose(car_of(state, "bob")) == ("N8", "N7", SE)


def test_swipe_replaces_the_skid_procedure():
    state, events = act(swipe_setup(5), "alice", Move("turn-left"))
    assert events[-1] == SkidPending("alice", 5, 5, "E", True, "bob")
    assert [a.command for a in legal_actions(state, "alice")] == [
        "/skid choice:accept", "/skid choice:resist", "/skid choice:swipe"]
    state, events = act(state, "alice", AnswerSkid("swipe"))
    assert not [r for r in of(events, DiceRolled)]              # no Driver Roll
    assert car_of(state, "alice").in_control and pose(car_of(state, "alice")) == ("M8", "M9", NE)
    assert state.moves_left == 3


def test_swipe_declined():
    state, _ = act(swipe_setup(3), "alice", Move("turn-left"))
    state, events = act(state, "alice", AnswerSkid("continue"))
    assert events == () and state.moves_left == 2 and car_of(state, "bob").inertia == 0


def test_no_swipe_without_a_move_to_spend():
    state = moving(swipe_setup(3), 1, 1)
    state, events = act(state, "alice", Move("turn-left"))
    assert not of(events, SkidPending) and state.active_player == "alice" and state.moves_left == 0


# --- Slides into cars --------------------------------------------------------------------------

def test_out_of_control_slide_into_a_car():
    # alice skids NW from M9-L9 towards L8-K8, where bob stands. seed 1: two gray each.
    state = game("brawler", "brawler")
    state = put(state, "alice", "M9", E, speed=3, in_control=False, skid=NW)
    state = put(state, "bob", "L8", E)
    state, events = act(moving(state, 3, 1), "alice", Move("slide"))
    assert events[:5] == (Collided("slide", "alice", "bob", "L8", 0),
                          DamageRolled("bob", "alice slid into it", ("gray", "gray"), ("S", "S")),
                          ArmorDisregarded("bob", ("S", "S")),
                          DamageRolled("alice", "slid into bob", ("gray", "gray"), ("A", "S")),
                          ArmorDisregarded("alice", ("S",)))
    assert DamageTaken("alice", ("Armor 3 (a box crossed)",)) in events
    alice = car_of(state, "alice")
    assert pose(alice) == ("M9", "L9", E) and alice.speed == 0 and alice.in_control and alice.skid is None
    assert not of(events, SpeedLost) and state.active_player == "bob"  # stopped: the turn passes
    assert TurnBegan("bob", 0) in events


def test_accepted_skid_into_a_car_stops_the_slider():
    state, _ = act(swipe_setup(5), "alice", Move("turn-left"))
    state, events = act(state, "alice", AnswerSkid("accept"))
    assert events[0] == Collided("slide", "alice", "bob", "N8", 0)
    assert [e.dice for e in of(events, DamageRolled)] == [("gray", "gray"), ("gray", "gray")]
    assert car_of(state, "alice").speed == 0 and pose(car_of(state, "alice")) == ("M8", "M9", NE)


# --- Immobile objects --------------------------------------------------------------------------

@pytest.mark.parametrize("front, what, at", [
    ("Y9", "the arena wall", "Y9"),        # beyond the wall: the event names the car's own hex
    ("F6", "the obstacle at G6", "G6"),
])
def test_straight_on_strike_rolls_speed_gray_and_stops(front, what, at):
    state = put(game("brawler", "brawler"), "alice", front, E, speed=3)
    state, events = act(moving(state, 3, 1), "alice", Move("normal"))
    assert events[0] == Collided("strike", "alice", what, at, 3)
    assert events[1] == DamageRolled("alice", f"hit {what}", ("gray",) * 3, ("S", "S", "A"))
    assert CarStopped("alice", front, f"it hit {what}") in events
    alice = car_of(state, "alice")
    assert alice.speed == 0 and label(alice.front) == front and state.moves_left == 0


def test_one_half_strike_rotates_around_the_obstacle():
    # alice I7-H7 facing E skids NW: the front slides to H6, but the back would hit the pillar G6.
    state = game("brawler", "brawler")
    state = put(state, "alice", "I7", E, speed=3, in_control=False, skid=NW)
    state = put(state, "bob", "V15", NW)
    state, events = act(moving(state, 3, 1), "alice", Move("slide"))
    assert events[:2] == (Collided("glance", "alice", "the obstacle at G6", "G6", 0),
                          DamageRolled("alice", "glanced off the obstacle at G6", ("gray", "gray"), ("S", "S")))
    assert SpeedLostInCrash("alice", 1, 2) in events
    assert CarRotated("alice", "H6", "H7", "swung round the obstacle at G6") in events
    # The free front swung 60 degrees round the struck back half, towards the skid.
    assert pose(car_of(state, "alice"))[:2] == ("H6", "H7") and car_of(state, "alice").facing == NE
    # The glance's speed -1 is this Move's loss of speed: no second point is lost.
    assert not of(events, SpeedLost) and car_of(state, "alice").speed == 2
    # seed 1 after the two gray dice: white 1 2 3 1 = 7 >= speed 2 + inertia 0
    roll = of(events, DiceRolled)[0]
    assert (roll.purpose, roll.faces, roll.target, roll.success) == ("tries to regain control", (1, 2, 3, 1), 2, True)
    assert car_of(state, "alice").in_control


def test_one_half_strike_with_the_pivot_blocked_is_a_straight_on_hit():
    state = game("brawler", "brawler")
    state = put(state, "alice", "I7", E, speed=3, in_control=False, skid=NW)
    state = put(state, "bob", "H6", E)                          # bob's front fills the swing hex
    state, events = act(moving(state, 3, 1), "alice", Move("slide"))
    assert events[0] == Collided("slide", "alice", "bob", "H6", 0)  # the front hits bob first


def test_stopped_car_begins_its_next_turn_at_speed_0():
    state = put(game("brawler", "brawler"), "alice", "Y9", E, speed=3, inertia=2)
    state = put(state, "bob", "D3", SE)
    state, _ = act(moving(state, 3, 1), "alice", Move("normal"))
    assert state.active_player == "bob"
    state = pass_to(state, "alice")
    alice = car_of(state, "alice")
    assert state.phase == "upkeep" and alice.speed == 0 and alice.inertia == 0
    assert [a.command for a in legal_actions(state, "alice")] == [f"/speed value:{v}" for v in range(4)]


def test_an_advance_skid_answer_does_not_refuse_a_swipe_chance():
    # Below skid speed "resist" has nothing to answer: the Move stands and the swipe chance stays open.
    state = swipe_setup(3)
    state, events = act(state, "alice", Move("turn-left", skid="resist"))
    assert state.phase == "skid" and state.pending_skid.swipe_target == car_of(state, "bob").id
    assert [a.command for a in legal_actions(state, "alice")] == ["/skid choice:continue", "/skid choice:swipe"]
