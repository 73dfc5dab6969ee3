"""A sentence-by-sentence audit of the Battlecars seed (shared/seeds/001_*.txt) against rules/battlecars at
the newest rules revision when written (5). Each test quotes the seed sentence it holds the rules to; each failed on the
commit it was written against (1401a12).

Each fix is rules revision 6: a game begun under revision 5 plays on as before, as each test's `_revision_5`
partner checks (added with the fixes, with tests of where each fix reaches: the AI, plans, /odds, orders)."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import pytest

from rules.battlecars import data, plans
from rules.battlecars.actions import Board, ChooseSection, EndMove, Fire, HoldFire, Leave, Move, SetSpeed
from rules.battlecars.ai import autopilot_action, computer_action
from rules.battlecars.combat import best_section, legal_shots, plan_shot, return_shots
from rules.battlecars.damage import _damage_part, _which_part
from rules.battlecars.events import ArmourHit, Rammed, VehicleDestroyed, WeaponFired
from rules.battlecars.grid import parse_label
from rules.battlecars.orders import ORDERS
from rules.battlecars.review import _chance as review_chance
from rules.battlecars.ruleset import RULESET
from rules.battlecars.speed import choices as speed_choices
from rules.battlecars.state import Counter, Phase
from rules.errors import GameError
from tests.battlecars_helpers import act, of, rolls, vehicle, with_mat
from tests.battlecars_helpers import table as any_table

NEWEST = RULESET.new_game_options({})["revision"]   # what a new game records (5 at 1401a12; 6 with the fixes)


def table(*seats, revision: int = NEWEST, **kwargs):
    """A running game at the revision a new game gets, or at `revision`."""
    return replace(any_table(*seats, **kwargs), revision=revision)


def settled(state):
    """Let each open hit land on the first section it may take, and hold any return fire."""
    while state.phase in (Phase.SECTION, Phase.RETURN):
        if state.phase == Phase.SECTION:
            state, _ = act(state, state.pending_hit.chooser, ChooseSection(state.pending_hit.sections[0]))
        else:
            state, _ = act(state, state.pending_return.chooser, HoldFire())
    return state


# --- firing ------------------------------------------------------------------------------------------

def returned_fire_then_own_move(revision: int = NEWEST):
    """Bob returns fire with his shell pod in alice's move; then it is his own move."""
    state = table(("alice", "gunwagon", "G5", "E", 0), ("bob", "gunwagon", "K5", "W", 0), seed=4, revision=revision)
    state, _ = act(state, "alice", Fire("turret", "bob"))
    while state.phase == Phase.SECTION:
        state, _ = act(state, "bob", ChooseSection(state.pending_hit.sections[0]))
    assert state.phase == Phase.RETURN
    state, _ = act(state, "bob", Fire("A", "alice"))              # bob's shell pod, as return fire
    state = settled(state)
    assert vehicle(state, "bob").weapon("A").rounds == 5
    state, _ = act(state, "alice", EndMove())
    assert state.active == "bob" and state.phase == Phase.MOVE
    return state


def test_a_weapon_fired_as_return_fire_fires_again_in_its_own_move_the_same_turn():
    """Bob's shell pod fires twice in one turn, once as return fire in alice's move and again in his own
    move. Seed, Actions: "Firing: Fire any weapon once per turn. ... Cross off each fired weapon on the play
    mat." Revision 5 refuses return fire with a weapon already fired, but not the other way round."""
    state = returned_fire_then_own_move()
    refused = False
    try:
        act(state, "bob", Fire("A", "alice"))                     # the same pod, the same turn
    except GameError:
        refused = True
    assert refused, "bob's pod A fired a second time this turn"


def range_three_flame(seed: int, revision: int = NEWEST):
    state = table(("alice", "firebrand", "B5", "E", 0), ("bob", "tank", "E5", "W", 0), seed=seed, revision=revision)
    return act(state, "alice", Fire("A", "bob"))


def test_a_roll_equal_to_the_range_hits_though_the_seed_asks_for_higher():
    """A flamethrower rolling exactly 3 at a target 3 points away hits. Seed, Special Rules: "Distance
    reduces the die roll (e.g., a target 3 squares away requires a roll higher than 3 to hit)."."""
    state, events = range_three_flame(1)                          # dice seed 1: the d6 shows 3
    (to_hit,) = rolls(events, "rolls to hit")
    assert to_hit.total == 3 and to_hit.target == 3
    assert not to_hit.success and not rolls(events, "rolls damage")


def one_point_of_three(revision: int = NEWEST):
    state = table(("alice", "gunwagon", "C5", "E", 3), ("bob", "tank", "K5", "W", 0), seed=2, revision=revision)
    return act(state, "alice", Move("ahead"))[0]


def test_firing_is_allowed_in_the_middle_of_a_move_once_started():
    """Alice drives one point of three, fires, then drives on. Seed, Turn Structure: "2. Movement and Firing
    Phase: Move and fire in any order, but all movement must be completed once started."."""
    state = one_point_of_three()
    assert vehicle(state, "alice").moved == 1
    refused = False
    try:
        act(state, "alice", Fire("turret", "bob"))
    except GameError:
        refused = True
    assert refused, "a shot was taken with two points of the started move still to drive"


def smoke_at(at: str, revision: int = NEWEST):
    """Alice's gunwagon at G5 and bob's marauder at K5, on a line, with smoke at `at`."""
    state = table(("alice", "gunwagon", "G5", "E", 0), ("bob", "marauder", "K5", "W", 0), seed=4, revision=revision)
    return replace(state, counters=(Counter(1, "smoke", parse_label(at), "v2"),), next_counter=2)


def test_a_vehicle_standing_in_smoke_can_be_shot_at():
    """Bob's car sits on a smoke marker and alice shoots it. Seed, Passive Weapons: "Smoke (permanent; blocks
    line of sight and firing)"; only smoke on a point between the two is checked (passive.smoke_between)."""
    state = smoke_at("K5")
    refused = False
    try:
        act(state, "alice", Fire("turret", "bob"))
    except GameError:
        refused = True
    assert refused, "a shot went into the smoke at K5"


# --- damage ------------------------------------------------------------------------------------------

def head_on_ram(revision: int = NEWEST):
    state = table(("alice", "interceptor", "C5", "E", 3), ("bob", "marauder", "D5", "W", 2), revision=revision)
    return act(state, "alice", Move("ahead"))


def test_a_ram_rolls_its_damage_on_d6_not_the_d8():
    """The ram's damage is rolled on three d6. Seed, Special Rules: "Damage Resolution: All damage uses the
    D8."; Components: "Dice: D8 for damage resolution, D6 for various rolls"; Actions: "Ramming (Head On):
    Roll 3 dice plus both vehicles' speed."."""
    state, events = head_on_ram()
    assert of(events, Rammed)[0].kind == "head-on"
    (ram,) = rolls(events, "rolls the head-on ram")
    assert ram.dice == "d8", f"the ram's damage was rolled on {len(ram.faces)}{ram.dice}"


def side_ram(revision: int = NEWEST, seed: int = 1):
    state = table(("alice", "marauder", "D4", "S", 3), ("bob", "marauder", "D5", "E", 2), revision=revision,
                  seed=seed)
    return act(state, "alice", Move("ahead"))


def test_a_side_ram_puts_the_damage_on_the_middle_without_asking_the_rammed_driver():
    """Bob, rammed from the side, is not asked which zone takes it. Seed, Special Rules: "Armor Zones: ...
    Front/rear sides can be damaged from the front/back or side; the defending player decides which zone is
    hit." (a shot from the same bearing does ask him)."""
    state, events = side_ram()
    assert of(events, Rammed)[0].kind == "side"
    assert state.phase == Phase.SECTION and state.pending_hit.chooser == "bob"
    assert {"front", "rear"} <= set(state.pending_hit.sections)


def empty_with_one_driver_square(revision: int):
    """Alice out on foot beside her Rammer, its mat one driver square from dead."""
    state = table(("alice", "rammer", "C5", "E", 0), ("bob", "tank", "M1", "W", 0), revision=revision)
    state, _ = act(state, "alice", Leave())
    assert state.pedestrian_of("alice") is not None
    return with_mat(state, "alice", driver_lost=vehicle(state, "alice").spec.driver - 1)


def test_a_hit_on_an_empty_vehicles_driver_box_says_the_driver_on_foot_is_dead():
    """Alice is out on foot, alive, yet a hit on her empty car's driver squares wrecks it "its driver is
    dead". Seed, Victory: "A player is eliminated when their driver is killed"; "Vehicles are destroyed when
    critical internal components (engine, fuel tank, driver) are fully damaged." """
    state = empty_with_one_driver_square(NEWEST)
    after, events = _damage_part(state, "v1", "driver", False)
    assert after.pedestrian_of("alice") is not None                       # she is alive on foot
    assert not [e for e in of(events, VehicleDestroyed) if "driver is dead" in e.why], \
        [e.describe() for e in of(events, VehicleDestroyed)]


# --- pedestrians -------------------------------------------------------------------------------------

def wounded_driver_out(revision: int):
    state = with_mat(table(("alice", "rammer", "C5", "E", 0), ("bob", "tank", "M1", "W", 0), revision=revision),
                     "alice", driver_lost=1)
    return act(state, "alice", Leave())[0]


def test_a_wounded_driver_leaves_the_vehicle_with_fewer_than_3_health_points():
    """A driver with a driver square lost gets out with 2 health. Seed, Actions: "Pedestrians: When leaving
    a vehicle, the driver becomes a pedestrian with 3 health points, a limited-use weapon, and can be run
    over."."""
    state = wounded_driver_out(NEWEST)
    assert state.pedestrian_of("alice").health == 3


# --- vehicle mats ------------------------------------------------------------------------------------

def test_a_bike_has_no_higher_top_speed_than_the_interceptor():
    """The Interceptor's speedo tops out at 10, as high as either bike's. Seed, Player Reference: "Bike
    4-5 3-4 Higher top speed, fragile"."""
    specs = data.vehicles().values()
    fastest_other = max(s.max_speed for s in specs if s.type != "bike")
    slowest_bike = min(s.max_speed for s in specs if s.type == "bike")
    assert slowest_bike > fastest_other, f"bikes {slowest_bike}, fastest car/truck/tank {fastest_other}"


# --- revision 6 and its revision 5 partners ----------------------------------------------------------
# Each fix above is rules revision 6; a game begun under revision 5 plays on as it began. These tests check
# both, and where each fix reaches (return fire, /odds, plans, the computer, the autopilot, standing orders).

def test_a_weapon_fired_as_return_fire_fires_again_in_its_own_move_in_a_revision_5_game():
    state = returned_fire_then_own_move(revision=5)
    state, events = act(state, "bob", Fire("A", "alice"))
    assert of(events, WeaponFired) and vehicle(state, "bob").weapon("A").rounds == 4


@pytest.mark.parametrize("revision, again", [(NEWEST, False), (5, True)])
def test_a_weapon_that_returned_fire_returns_no_fire_again_that_turn(revision, again):
    """Bob returns fire with his shell pod in alice's move; in carol's move the pod may not answer again
    (revision 6: "Fire any weapon once per turn"), though his turret still may. A revision 5 game let it."""
    state = table(("alice", "gunwagon", "K2", "S", 0), ("carol", "gunwagon", "M3", "W", 0),
                  ("bob", "gunwagon", "K5", "N", 0), seed=1, revision=revision)
    state, _ = act(state, "alice", Fire("turret", "bob"))
    state = settled_by(state, "bob", Fire("A", "alice"))
    state, _ = act(state, "alice", EndMove())
    state, _ = act(state, "carol", Fire("turret", "bob"))
    state, _ = act(state, "bob", ChooseSection(best_section(state)))   # dice seed 1: his turret stands
    assert state.phase == Phase.RETURN
    answers = {s.weapon.id for s in return_shots(state, vehicle(state, "bob"), vehicle(state, "carol"))}
    assert "turret" in answers and ("A" in answers) == again


def settled_by(state, player, answer):
    """Place open hits on their first section, then answer the chance to return fire with `answer`."""
    while state.phase == Phase.SECTION:
        state, _ = act(state, state.pending_hit.chooser, ChooseSection(state.pending_hit.sections[0]))
    assert state.phase == Phase.RETURN and state.pending_return.chooser == player
    return settled(act(state, player, answer)[0])


def test_the_turns_reveal_clears_the_weapons_used_for_return_fire():
    state = returned_fire_then_own_move()
    assert vehicle(state, "bob").return_fired == ("A",)
    state, _ = act(state, "bob", EndMove())
    state, _ = act(state, "alice", SetSpeed(0))
    state, _ = act(state, "bob", SetSpeed(0))
    assert state.phase == Phase.MOVE and vehicle(state, "bob").return_fired == ()


def test_a_roll_equal_to_the_range_hits_in_a_revision_5_game():
    state, events = range_three_flame(1, revision=5)
    (to_hit,) = rolls(events, "rolls to hit")
    assert to_hit.total == 3 == to_hit.target and to_hit.success and rolls(events, "rolls damage")
    assert to_hit.rule.endswith(">= range")


def test_the_odds_the_computer_and_the_review_read_a_hit_as_a_roll_higher_than_the_range():
    """The flamethrower's one d6 at range 3: 3 in 6 from revision 6 (4, 5 or 6), 4 in 6 before; the game's
    review gives the miss on a 3 its chance, 3 in 6."""
    for revision, chance in ((NEWEST, 3 / 6), (5, 4 / 6)):
        state = table(("alice", "firebrand", "B5", "E", 0), ("bob", "tank", "E5", "W", 0), revision=revision)
        alice = vehicle(state, "alice")
        assert plan_shot(state, alice, alice.weapon("A"), vehicle(state, "bob")).chance == pytest.approx(chance)
        assert f"{chance:.0%} to hit" in RULESET.queries["odds"](state, "alice", {"weapon": "A", "target": "v2"})
    state, events = range_three_flame(1)
    (to_hit,) = rolls(events, "rolls to hit")
    assert to_hit.rule.endswith("> range") and review_chance(to_hit) == Fraction(3, 6)


def test_firing_in_the_middle_of_a_move_is_allowed_in_a_revision_5_game():
    state = one_point_of_three(revision=5)
    state, events = act(state, "alice", Fire("turret", "bob"))
    assert of(events, WeaponFired)


def test_a_vehicle_fires_before_its_move_starts_or_once_it_is_complete():
    state = table(("alice", "gunwagon", "C5", "E", 3), ("bob", "tank", "K5", "W", 0), seed=2)
    assert shots(state)                                               # before the first point
    state = one_point_of_three()
    assert not shots(state) and "/fire" not in RULESET.prompt(state)
    assert "move has started" in RULESET.queries["odds"](state, "alice", {})
    assert isinstance(computer_action(state, "alice"), Move)          # the computer drives on first
    for _ in range(2):
        state, _ = act(state, "alice", Move("ahead"))
    assert shots(state) and "/fire" in RULESET.prompt(state)        # after the last


def shots(state, player="alice"):
    return {(s.weapon.id, s.target.id) for s in legal_shots(state, vehicle(state, player))}


def plan_with_shot(turns: str, revision: int = NEWEST):
    """Alice's Gunwagon at C5 east at speed 3, bob's tank at F6: her turret has a line to it from E5 (after the
    second point) and from F5 (after the third), none from C5 or D5."""
    state = table(("alice", "gunwagon", "C5", "E", 3), ("bob", "tank", "F6", "W", 0), revision=revision)
    return plans.work_out(state, "alice", {"plan": turns, "fire": "turret@v2"})


def test_a_plans_shot_is_taken_before_the_first_point_or_after_the_last():
    """From revision 6 the plan's shot waits for the end of the move, and the preview says so; a plan that
    stops short of the whole speed, with no shot before its first point, is refused before anything is driven.
    A revision 5 game's plan fires at the first point the shot is open."""
    assert "after point #3, the last" in plan_with_shot("ahead,ahead,ahead").fire
    with pytest.raises(GameError, match="possible nowhere .* move has started"):
        plan_with_shot("ahead,ahead")
    assert "after point #2:" in plan_with_shot("ahead,ahead,ahead", revision=5).fire
    assert "after point #2:" in plan_with_shot("ahead,ahead", revision=5).fire


def test_smoke_on_the_targets_or_the_firers_own_point_blocks_nothing_in_a_revision_5_game():
    for at in ("K5", "G5"):
        state, events = act(smoke_at(at, revision=5), "alice", Fire("turret", "bob"))
        assert of(events, WeaponFired), at


def test_smoke_on_the_firers_own_point_blocks_its_shot():
    with pytest.raises(GameError, match="smoke at G5 blocks"):
        act(smoke_at("G5"), "alice", Fire("turret", "bob"))


def test_a_ram_rolls_its_damage_on_d6_in_a_revision_5_game():
    state, events = head_on_ram(revision=5)
    (ram,) = rolls(events, "rolls the head-on ram")
    assert ram.dice == "d6" and ram.rule == "3d6 + both speeds"


def test_a_crash_and_a_pistol_roll_their_damage_on_the_d8_from_revision_6():
    """Seed: "All damage uses the D8": a crash's 3 dice (3d6 before) and the pistol's die against a vehicle
    (its d3, a reconstruction, before). Dice seed 6: the skid drifts off the board's edge; dice seed 2: the
    pistol hits."""
    for revision, die in ((NEWEST, "d8"), (5, "d6")):
        state = table(("alice", "interceptor", "K5", "E", 8), ("bob", "tank", "A1", "E", 0), seed=6, revision=revision)
        state, events = act(state, "alice", Move("right-90"))
        (crash,) = rolls(events, "rolls the crash")
        assert crash.dice == die and len(crash.faces) == 3 and crash.rule == f"3{die} + own speed"
    for revision, die in ((NEWEST, "d8"), (5, "d3")):
        state = table(("alice", "rammer", "C5", "W", 0), ("bob", "tank", "G5", "W", 0), seed=2, revision=revision)
        state, _ = act(state, "alice", Leave())
        state, events = act(replace(state, active="alice", phase=Phase.MOVE), "alice", Fire("pistol", "v2"))
        (damage,) = rolls(events, "rolls damage")
        assert damage.dice == die, events


def test_a_side_ram_puts_the_damage_on_the_middle_without_asking_in_a_revision_5_game():
    state, events = side_ram(revision=5)
    assert state.phase == Phase.MOVE and state.pending_hit is None
    assert [(h.vehicle, h.section) for h in of(events, ArmourHit)][0] == ("bob", "middle")


def test_the_rammed_driver_places_the_ram_and_the_rammer_has_taken_its_share_already():
    """The rammer's half lands at once on its front; bob's choice puts his share where he says, and no
    return fire follows a ram. The computer, the autopilot and a standing order answer as for a shot."""
    state, events = side_ram()
    assert [(h.vehicle, h.section) for h in of(events, ArmourHit)] == [("alice", "front")]
    hit = state.pending_hit
    assert hit.ram and hit.attacker == "v1" and hit.points == rolls(events, "rolls the side ram")[0].total
    assert computer_action(state, "bob") == autopilot_action(state, "bob") == ChooseSection(best_section(state))
    order = next(q for q in ORDERS.questions if q.name == "hit_section")
    assert order.asked(state, "bob") and order.choose(state, "bob", "rear", RULESET.legal_actions(state, "bob")) == \
        ChooseSection("rear")
    state, events = act(state, "bob", ChooseSection("rear"))
    assert [(h.vehicle, h.section, h.points) for h in of(events, ArmourHit)] == [("bob", "rear", hit.points)]
    assert state.phase == Phase.MOVE and state.active == "alice" and state.pending_return is None


def test_a_hit_on_an_empty_vehicles_driver_box_kills_nobody_but_is_rolled_again():
    """Revision 6: the empty vehicle lacks its driver, so a table row of the driver finds nothing there
    (the hit is rolled again, the rule for a missing part). A revision 5 game's hit there wrecks the
    vehicle, "its driver is dead", though the driver lives on foot."""
    state = empty_with_one_driver_square(NEWEST)
    assert _which_part(state, "v1", ("driver",))[1] is None
    old = empty_with_one_driver_square(5)
    assert _which_part(old, "v1", ("driver",))[1] == "driver"
    after, events = _damage_part(old, "v1", "driver", False)
    assert [e.why for e in of(events, VehicleDestroyed)] == ["its driver is dead"]
    assert after.pedestrian_of("alice") is not None


def test_a_wounded_driver_leaves_with_fewer_health_points_in_a_revision_5_game():
    assert wounded_driver_out(5).pedestrian_of("alice").health == 2


def test_boarding_leaves_the_driver_squares_as_the_driver_left_them():
    """RULING (revision 6): the wounds a pedestrian took on foot stay with the pedestrian counter; the mat's
    driver squares are as the driver left them. A revision 5 game set them from the health left."""
    for revision, lost in ((NEWEST, 1), (5, 2)):
        state = wounded_driver_out(revision)
        walker = state.pedestrian_of("alice")
        state = replace(state.with_pedestrian(replace(walker, health=1)), active="alice", phase=Phase.MOVE)
        state, _ = act(state, "alice", Board())
        assert vehicle(state, "alice").driver_lost == lost and not vehicle(state, "alice").driver_out


def test_the_interceptor_tops_out_at_9_from_revision_6_and_at_10_before():
    for revision, top in ((NEWEST, 9), (5, 10)):
        state = table(("alice", "interceptor", "C5", "E", top - 1), ("bob", "tank", "M1", "W", 0),
                      phase=Phase.SPEED, revision=revision)
        assert vehicle(state, "alice").top_speed(revision) == top
        assert max(speed_choices(state, vehicle(state, "alice"))) == top
