"""Where two rules meet, in Track and in Battlecars: each test builds one situation with the project's
helpers and checks it against an explicit sentence of the seed (shared/seeds/) or a ruling RULES.md
states. Every test here failed on the commit it was written against (7b6eb53): each is a rules bug.
Each fix is rules revision 5 (both games); a revision 4 game keeps the old behaviour, as each test's
`_revision_4` partner checks."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rules.battlecars.actions import ChooseSection, EndMove, Fire, HoldFire, Move, SetSpeed
from rules.battlecars.combat import IllegalShot, plan_shot
from rules.battlecars.damage import _damage_part
from rules.battlecars.events import ComponentHit
from rules.battlecars.grid import parse_label
from rules.battlecars.rams import damages
from rules.battlecars.ruleset import RULESET
from rules.battlecars.state import Counter, Phase
from rules.track.errors import IllegalPlay
from rules.track.state import PITS, RING
from tests.battlecars_helpers import act, of, rolls, vehicle, with_mat
from tests.battlecars_helpers import table as any_table
from tests.test_track_rules import A, B, play, where
from tests.test_track_rules import table as track_table


def table(*seats, revision: int = 5, **kwargs):
    """A running Battlecars game under rules `revision` (the newest, 5, unless said)."""
    return replace(any_table(*seats, **kwargs), revision=revision)


def on_board(state, *counters):
    """Passive counters (kind, point label) on the board."""
    made = tuple(Counter(i + 1, kind, parse_label(at), "v2") for i, (kind, at) in enumerate(counters))
    return replace(state, counters=made, next_counter=len(made) + 1)


def settled(state):
    """Let each open hit land on the first section it may take."""
    while state.phase == Phase.SECTION:
        state, _ = act(state, state.pending_hit.chooser, ChooseSection(state.pending_hit.sections[0]))
    return state


# --- Battlecars: oil meets the skid ----------------------------------------------------------------

def carried_onto_oil(revision: int):
    state = table(("alice", "interceptor", "C5", "E", 5), ("bob", "tank", "M1", "W", 0), phase=Phase.SPEED,
                  revision=revision)
    state = on_board(with_mat(state, "alice", drift=2), ("oil", "D5"))
    state, _ = act(state, "alice", SetSpeed(5))
    return act(state, "bob", SetSpeed(0))            # the reveal; alice's carried drift runs first


def test_drift_carried_into_the_next_move_onto_oil_starts_a_new_skid_result():
    """Seed 001, Actions, Passive Weapons: "Oil (permanent; forces straight-line movement and skid roll)".
    RULES.md, Passive weapons (FOUND): "Drifting onto oil, smoke or spikes starts a new skid result, with
    the drift that was left added to it." A skid's drift carried into the next move (movement.py
    `carry_drift`) drives onto oil and nothing is rolled: no skid test, no new skid result, although the
    event itself says "and a skid test"."""
    state, events = carried_onto_oil(5)
    assert vehicle(state, "alice").oiled                       # she did drive onto the oil at D5
    assert rolls(events, "rolls the drift") or rolls(events, "tests for a skid")


def test_drift_carried_onto_oil_starts_no_skid_result_in_a_revision_4_game():
    state, events = carried_onto_oil(4)
    assert vehicle(state, "alice").oiled and vehicle(state, "alice").point == parse_label("E5")
    assert not rolls(events, "rolls the drift") and not rolls(events, "tests for a skid")


def eight_points_to_oil(revision: int):
    state = on_board(table(("alice", "rammer", "C5", "E", 8), ("bob", "tank", "M1", "W", 0), revision=revision),
                     ("oil", "K5"))
    events: tuple = ()
    for _ in range(8):
        state, more = act(state, "alice", Move("ahead"))
        events += more
    return state, events


def test_a_vehicle_entering_oil_on_its_last_point_still_makes_the_skid_roll():
    """Seed 001, Passive Weapons: Oil "forces straight-line movement and skid roll". RULES.md, Passive
    weapons: "From revision 3 every vehicle entering oil rolls". The Rammer at 8 (45 degree cornering 7)
    rolls on oil entered with its first point, but not on oil entered with its eighth: movement.py
    `_oil_skid` returns early when `left_to_move(vehicle) <= 0`, though a skid's drift would carry into
    the next move."""
    state, events = eight_points_to_oil(5)
    assert vehicle(state, "alice").oiled                       # the eighth point is the oil at K5
    assert rolls(events, "tests for a skid")


def test_oil_on_the_last_point_rolls_nothing_in_a_revision_4_game():
    state, events = eight_points_to_oil(4)
    assert vehicle(state, "alice").oiled and not rolls(events, "tests for a skid")


# --- Battlecars: getting out on foot ---------------------------------------------------------------

def test_a_truck_driver_never_gets_out_of_a_wreck_on_foot():
    """Seed 001, Player Reference: "Truck ... Driver cannot leave vehicle" (rules-gaps 2.3.2: "Truck
    drivers cannot leave (seed)"). A Hauler wrecked by its engine lets its driver out on foot on a d6 of 3+
    (damage.py `destroy` -> pedestrians.py `escape`, no truck check), and the driver plays on as a
    pedestrian. Over seven dice seeds the driver gets out in six."""
    assert truck_drivers_escaping(5) == []


def truck_drivers_escaping(revision: int) -> list[int]:
    escaped = []
    for seed in range(1, 8):
        state = table(("alice", "hauler", "F5", "E", 0), ("bob", "tank", "M1", "W", 0), seed=seed, revision=revision)
        state = with_mat(state, "alice", engine_lost=vehicle(state, "alice").spec.engine - 1)
        after, _ = _damage_part(state, "v1", "engine", False)
        assert vehicle(after, "alice").destroyed
        if after.pedestrian_of("alice") is not None:
            escaped.append(seed)
    return escaped


def test_a_truck_driver_may_still_get_out_of_a_wreck_in_a_revision_4_game():
    assert len(truck_drivers_escaping(4)) == 6


# --- Battlecars: firing ----------------------------------------------------------------------------

def test_return_fire_cannot_fire_a_weapon_that_already_fired_this_turn():
    """Seed 001, Actions: "Firing: Fire any weapon once per turn." RULES.md, Return fire, rules only that
    return fire "is not counted in its own turn's weapon and target limits". Alice's turret fires in her
    move; in bob's move of the same turn she is offered, and may fire, that turret again as return fire
    (combat.py `plan_shot(returning=True)` skips `fire_limit`, so "already fired this turn" too)."""
    state = table(("alice", "gunwagon", "G5", "E", 0), ("bob", "gunwagon", "K5", "W", 0), seed=4)
    state, _ = act(state, "alice", Fire("turret", "bob"))
    state = settled(state)
    if state.phase == Phase.RETURN:
        state, _ = act(state, "bob", HoldFire())
    state, _ = act(state, "alice", EndMove())
    state, _ = act(state, "bob", Fire("turret", "alice"))
    state = settled(state)
    assert state.phase == Phase.RETURN and "turret" in vehicle(state, "alice").fired
    offered = {a.command for a in RULESET.legal_actions(state, "alice")}
    assert "/fire weapon:turret target:v2" not in offered


@pytest.mark.parametrize("revision", [4, 5])
def test_return_fire_with_a_weapon_fired_this_turn_is_allowed_in_a_revision_4_game(revision):
    state = table(("alice", "gunwagon", "G5", "E", 0), ("bob", "gunwagon", "K5", "W", 0), revision=revision)
    alice = replace(vehicle(state, "alice"), fired=("turret",), targets=("v2",))
    if revision >= 5:
        with pytest.raises(IllegalShot, match="already fired"):
            plan_shot(state, alice, alice.weapon("turret"), vehicle(state, "bob"), returning=True)
    else:
        assert plan_shot(state, alice, alice.weapon("turret"), vehicle(state, "bob"), returning=True).range == 4


def test_a_fire_extinguisher_does_not_stop_an_ammunition_explosion_a_rocket_caused():
    """Seed 001, Special Rules: "Fire Extinguisher: An active fire extinguisher prevents flame weapons from
    causing explosions." RULES.md: "A working Fire Extinguisher stops an explosion a flame weapon caused";
    rockets only "count as flame against the fuel tank" (FOUND, weapons.toml `flame`). Bob's rocket hits
    the Firebrand's loaded pod B (dice seed 3) and the extinguisher stops its explosion test, because
    combat.py `fire` passes the rocket's fuel-tank `flame` flag on to damage.py `_ammunition_test`."""
    events = rocket_into_the_firebrand(5)
    pods_hit = [e for e in of(events, ComponentHit) if e.component.startswith("pod") and e.result == "destroyed"]
    assert pods_hit                                            # the rocket's internal hits reach loaded pods
    assert not [e for e in of(events, ComponentHit) if "extinguisher stops" in e.result]


def rocket_into_the_firebrand(revision: int) -> tuple:
    state = table(("bob", "interceptor", "G5", "E", 0), ("alice", "firebrand", "I5", "W", 0), seed=3,
                  revision=revision)
    state = with_mat(state, "alice", armour=(0, 5, 8))
    _, events = act(state, "bob", Fire("A", "alice"))         # a rocket, front pod; alice head on
    return events


def test_the_extinguisher_stops_a_rockets_ammunition_explosion_in_a_revision_4_game():
    assert [e for e in of(rocket_into_the_firebrand(4), ComponentHit) if "extinguisher stops" in e.result]


# --- Battlecars: rams ------------------------------------------------------------------------------

def test_a_rammer_with_crash_bars_takes_full_damage_when_hitting_a_tank():
    """Seed 001, Tank Special Rules: "Rammers take full damage when hitting a tank". The Rammer's crash bars
    (a reconstruction: "halve own ram damage") still halve it against a tank (rams.py `damages` halves
    `to_rammer` after the tank rule set it to the total)."""
    state = table(("alice", "rammer", "C5", "E", 4), ("bob", "tank", "D5", "W", 0))
    barred, tank = vehicle(state, "alice"), vehicle(state, "bob")
    assert damages("head-on", 15, barred, tank, 5) == (15, 7)
    assert damages("side", 15, barred, tank, 5) == (15, 0)


def test_crash_bars_halve_what_a_rammer_takes_from_a_tank_in_a_revision_4_game():
    state = table(("alice", "rammer", "C5", "E", 4), ("bob", "tank", "D5", "W", 0))
    barred, tank = vehicle(state, "alice"), vehicle(state, "bob")
    assert damages("head-on", 15, barred, tank, 4) == (7, 7)
    assert damages("side", 15, barred, tank, 4) == (7, 0)


# --- Track: the Joker meets the safe start spot ----------------------------------------------------

def test_a_joker_comes_out_when_no_opponent_car_on_the_field_can_be_taken():
    """Seed 002: "Joker = exchange one of your pieces ... If the other player does not have any pieces on
    the playing field to take, you can use your Joker as a Come Out Card." With RULING 4's option
    `start_spot_safe:true` bob's only car on the ring sits on its own start, where it cannot be taken
    (`_swap` refuses it), yet the Joker may not come out either (plays.py `opponent_on_field` counts
    every ring car, takeable or not): the Joker does nothing and alice may only discard."""
    state = track_table(alice_hand=("JK", "2C", "3C"), bob={"c1": (RING, 26)},
                        options={"start_spot_safe": True, "revision": 5})
    after, _ = play(state, A, "/play card:JK move:out")
    assert where(after, A, "c1") == (RING, 8) and where(after, B, "c1") == (RING, 26)
    assert where(state, A, "c1") == (PITS, 0)


def test_a_joker_stays_in_when_only_a_safe_car_is_on_the_field_in_a_revision_4_game():
    state = track_table(alice_hand=("JK", "2C", "3C"), bob={"c1": (RING, 26)},
                        options={"start_spot_safe": True, "revision": 4})
    with pytest.raises(IllegalPlay, match="comes out only"):
        play(state, A, "/play card:JK move:out")
