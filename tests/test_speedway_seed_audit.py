"""Speedway: a sentence-by-sentence audit of the seed (shared/seeds/000_19b6432e8d04d7f9.txt) against the rules.

Each test quotes the seed sentence it holds the code to, in a game of the newest rules revision
(SEED_AUDIT = 6, what every new game records). Builders and the dice notation are those of
test_speedway_combat.py: DiceState(seed, 0) rolls the face indices in its STREAM table.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from rules.codec import from_plain, to_plain
from rules.errors import BadOption
from rules.hexgrid import label, parse_label, step
from rules.speedway import ai
from rules.speedway.actions import AnswerSkid, ChooseRam, Drop, Move, SetSpeed
from rules.speedway.damage import disregard
from rules.speedway.events import ArmorDisregarded, HazardLaid, InertiaGained, MustTurnBlocked, SkidPending
from rules.speedway.orders import ORDERS
from rules.speedway.ruleset import REVISION, SPEEDWAY, legal_actions
from rules.speedway.state import SEED_AUDIT, WHERE_RULES_MEET, PendingSkid

try:
    from tests import speedway_fixtures as fx
    from tests.test_speedway_combat import NE, NW, SE, E, act, car_of, game, moving, put, track
    from tests.test_speedway_combat import upkeep as upkeep_of
except ImportError:  # tests/ on sys.path directly
    import speedway_fixtures as fx
    from test_speedway_combat import NE, NW, SE, E, act, car_of, game, moving, put, track
    from test_speedway_combat import upkeep as upkeep_of

NEWEST = {"revision": SEED_AUDIT}


def commands(state, player: str = "alice") -> list[str]:
    return [a.command for a in legal_actions(state, player)]


def test_a_car_standing_still_never_gets_to_drop_its_mine():
    """A player who parks at speed 0 can never lay a mine, oil or smoke: the turn passes the moment the speed is set.

    Seed, Movement Phase: "At any point during its movement, the car may fire any of its weapons." Defensive
    Weapons: "When fired, the corresponding hazard counter is deployed to the map." A car at speed 0 still has
    its Movement phase ("Each player's turn consists of a Upkeep phase, followed by the Movement phase").
    """
    state = replace(fx.upkeep(speed=1), revision=SEED_AUDIT)   # Brawler: Mines on the Back
    assert "/drop weapon:back" in commands(fx.driving(speed=1))     # a moving car may drop them
    state, _ = fx.apply(state, "alice", SetSpeed(0))
    assert state.active_player == "alice", "the turn passed to bob before alice's Movement phase gave her a chance"
    assert "/drop weapon:back" in commands(state)


def test_armor_is_not_spent_on_a_result_that_would_do_nothing():
    """A car with no weapon left has its Armor 'disregard' the Weapon result, so the Suspension hit lands instead.

    Seed, Damage: "After damage is rolled, the target may disregard one result for each point of Armor the
    target car has." The choice is the target's (RULES.md: "the defender's choice, made for them"); no target
    spends its Armor on a result that crosses nothing while a real hit goes through.
    """
    state = game("brawler", "brawler", options=NEWEST)
    state = put(state, "alice", "M9", E, speed=2, fire_chips=3)
    alice = car_of(state, "alice")
    state = state.with_car(replace(alice, weapons=tuple(replace(w, track=w.track.cross(3)) for w in alice.weapons)))
    state = track(state, "alice", "armor", 4)                        # Armor 1
    state = upkeep_of(state, seed=9)                                 # three blue dice: W A S
    after, events = act(state, "alice", SetSpeed(2))                 # Upkeep step 3 burns
    rolled = next(e for e in events if type(e).__name__ == "DamageRolled")
    assert rolled.faces == ("W", "A", "S")
    assert car_of(after, "alice").systems.suspension.crossed == 0, \
        f"Armor disregarded the harmless W and the S crossed Suspension: {events}"


def test_a_tight_turn_pushed_through_by_ram_outcome_b_at_skid_speed_still_skids():
    """A Tight Turn at speed 5 that rams and wins outcome B earns its 3 inertia but its driver is never asked to
    accept or resist the skid.

    Seed, In Control: "If a car takes a move at at least the skid speed, the driver has a choice either to
    accept the skid ... or to resist the skid." (Tight Turn: Skid Speed = 3.) Revision 5 counts the Move as the
    Tight Turn made (it earns the maneuver's inertia and pays an owed Turn), so it was taken at skid speed.
    """
    bob_front = step(parse_label("M8"), NW)                          # bob on M7-M8 facing NW, speed 4
    state = game("brawler", "brawler", "brawler", options=NEWEST)
    state = put(state, "alice", "M9", E, speed=5)
    state = put(state, "bob", label(bob_front), NW, speed=4)
    state = put(state, "carol", "D3", SE)
    state = moving(state, 5, 1)
    state, _ = act(state, "alice", Move("tight-turn-left"))          # front into M8: a ram, Vc 1
    assert state.phase == "ram" and state.pending_ram.chooser == "alice"
    state, events = act(state, "alice", ChooseRam("B"))
    alice = car_of(state, "alice")
    assert (label(alice.front), alice.facing, alice.inertia) == ("M8", NW, 3)   # the Tight Turn is made
    assert alice.speed >= 3                                           # still at or above its skid speed
    assert state.phase == "skid" or any(isinstance(e, SkidPending) for e in events), \
        f"no skid procedure after a Tight Turn at speed {alice.speed}: phase {state.phase}"


def test_the_car_in_either_skid_hex_may_be_swiped():
    """With bob in one skid hex and carol in the other, alice can only ever swipe bob.

    Seed, In Control: "When making a Sideslip, Turn, or Tight Turn, and any other car occupies either of the
    skid hexes, the active player may expend an additional Move to Swipe that car." Carol occupies one of the
    skid hexes, so alice may swipe her.
    """
    state = game("brawler", "brawler", "brawler", options=NEWEST)
    state = put(state, "alice", "M9", E, speed=3)                    # sideslip-left to M8-L8, skid NE
    state = put(state, "bob", "N7", NW)                               # N7-N8: N7 is the front skid hex
    state = put(state, "carol", "M6", NE)                             # M6-M7: M7 is the back skid hex
    state = moving(state, 3, 1)
    state, _ = act(state, "alice", Move("sideslip-left"))
    assert state.phase == "skid"
    swiped = set()
    for legal in legal_actions(state, "alice"):
        _, events = act(state, "alice", legal.action)
        swiped |= {e.car for e in events if isinstance(e, InertiaGained) and e.reason == "swiped"}
    assert swiped == {"bob", "carol"}, f"alice may swipe only {sorted(swiped)}"


# --- each fix is revision 6's; a game stored under revision 5 plays as it did ------------------------

OLD = {"revision": WHERE_RULES_MEET}


def test_the_fixes_are_the_newest_revision():
    assert REVISION == SEED_AUDIT == 6 and SPEEDWAY.new_game_options({})["revision"] == SEED_AUDIT


def test_a_car_standing_still_drops_its_mine_then_the_turn_passes_and_revision_5_passes_at_once():
    state = replace(fx.upkeep(speed=1), revision=SEED_AUDIT)
    state, _ = fx.apply(state, "alice", SetSpeed(0))
    assert "/end" in commands(state)
    state, events = fx.apply(state, "alice", Drop("back"))
    assert [e.kind for e in events if isinstance(e, HazardLaid)] == ["mine"]
    assert state.active_player == "bob", "nothing left to fire or drop: the turn passes"
    old, _ = fx.apply(replace(fx.upkeep(speed=1), revision=WHERE_RULES_MEET), "alice", SetSpeed(0))
    assert old.active_player == "bob"                                 # revision 5: the turn passes at once


def owed_turn_blocked(options: dict):
    """Alice owes a Turn (ram outcome A) with both Turns blocked by bob and carol, and no gun left."""
    state = game("brawler", "brawler", "brawler", options=options)
    state = put(state, "alice", "M9", E, speed=2, must_turn=True)
    state = track(state, "alice", "armor", 0)
    alice = car_of(state, "alice")
    gun, mines = alice.weapons
    state = state.with_car(replace(alice, weapons=(replace(gun, track=gun.track.cross(3)), mines)))
    state = put(put(state, "bob", "M8", E), "carol", "M10", E)
    state, events = act(upkeep_of(state), "alice", SetSpeed(2))
    assert any(isinstance(e, MustTurnBlocked) for e in events)
    return state


def test_a_car_stopped_before_its_first_move_may_still_drop_and_revision_5_passes():
    """Ramming outcome A: "the Attacking car must take a turn maneuver on its next move, if possible, or stops
    otherwise": stopped before it moved, the car never had a point of its movement to drop at."""
    state = owed_turn_blocked(NEWEST)
    assert state.active_player == "alice" and commands(state) == ["/drop weapon:back", "/end"]
    assert owed_turn_blocked(OLD).active_player == "bob"


def test_revision_5_armor_still_disregards_a_result_that_would_do_nothing():
    state = game("brawler", "brawler", options=OLD)
    state = put(state, "alice", "M9", E, speed=2, fire_chips=3)
    alice = car_of(state, "alice")
    state = state.with_car(replace(alice, weapons=tuple(replace(w, track=w.track.cross(3)) for w in alice.weapons)))
    state = upkeep_of(track(state, "alice", "armor", 4), seed=9)
    after, events = act(state, "alice", SetSpeed(2))
    assert next(e for e in events if isinstance(e, ArmorDisregarded)).results == ("W",)
    assert car_of(after, "alice").systems.suspension.crossed == 1


def test_armor_is_spent_only_where_it_spares_a_box():
    """Two S results on a Suspension with one box left cross it unless both are disregarded."""
    car = car_of(track(game("brawler", "brawler"), "alice", "suspension", 4), "alice")
    assert disregard(("S", "S", "E"), 1, car) == (("S", "S"), ("E",))
    assert disregard(("S", "S"), 1, car) == (("S", "S"), ())
    assert disregard(("S", "S"), 2, car) == ((), ("S", "S"))
    assert disregard(("S", "S", "E"), 1) == (("S", "S"), ("E",))    # revisions 1-5: blind to the car
    assert disregard(("S", "S"), 1) == (("S",), ("S",))


def tight_turn_pushed_through(options: dict):
    bob_front = step(parse_label("M8"), NW)
    state = game("brawler", "brawler", "brawler", options=options)
    state = put(state, "alice", "M9", E, speed=5)
    state = put(state, "bob", label(bob_front), NW, speed=4)
    state = put(state, "carol", "D3", SE)
    state, _ = act(moving(state, 5, 1), "alice", Move("tight-turn-left"))
    return act(state, "alice", ChooseRam("B"))


def test_the_skid_after_outcome_b_is_answered_as_any_skid_and_revision_5_asks_none():
    state, events = tight_turn_pushed_through(NEWEST)
    (pending,) = [e for e in events if isinstance(e, SkidPending)]
    assert (state.pending_skid.maneuver, pending.skid_applies) == ("tight-turn-left", True)
    assert commands(state) == ["/skid choice:accept", "/skid choice:resist"]
    state, _ = act(state, "alice", AnswerSkid("accept"))
    assert state.phase == "movement" and state.moves_left == 4     # the skid costs no Move of its own
    old, events = tight_turn_pushed_through(OLD)
    assert old.phase == "movement" and not any(isinstance(e, SkidPending) for e in events)   # revision 5


def two_in_the_skid_hexes(options: dict):
    state = game("brawler", "brawler", "brawler", options=options)
    state = put(state, "alice", "M9", E, speed=3)
    state = put(state, "bob", "N7", NW)
    state = put(state, "carol", "M6", NE)
    state, _ = act(moving(state, 3, 1), "alice", Move("sideslip-left"))
    return state


def test_a_swipe_names_its_car_when_there_are_two_and_revision_5_offers_the_first():
    state = two_in_the_skid_hexes(NEWEST)
    bob, carol = car_of(state, "bob").id, car_of(state, "carol").id
    assert commands(state) == ["/skid choice:continue", f"/skid choice:swipe target:{bob}",
                               f"/skid choice:swipe target:{carol}"]
    assert SPEEDWAY.game_command("skid", {"choice": "swipe", "target": carol}) == AnswerSkid("swipe", carol)
    with pytest.raises(BadOption, match="Name the car to swipe"):
        act(state, "alice", AnswerSkid("swipe"))
    with pytest.raises(BadOption, match="in neither skid hex"):
        act(state, "alice", AnswerSkid("swipe", car_of(state, "alice").id))
    _, events = act(state, "alice", AnswerSkid("swipe", "carol"))    # by name too
    assert [e.car for e in events if isinstance(e, InertiaGained)] == ["carol"]
    old = two_in_the_skid_hexes(OLD)
    assert commands(old) == ["/skid choice:continue", "/skid choice:swipe"]   # revision 5: bob only
    assert old.pending_skid.swipe_targets == (bob,)


def test_a_swipe_given_in_advance_waits_for_the_car_to_be_named_when_there_are_two():
    state = game("brawler", "brawler", "brawler", options=NEWEST)
    state = put(state, "alice", "M9", E, speed=3)
    state = put(put(state, "bob", "N7", NW), "carol", "M6", NE)
    state, _ = act(moving(state, 3, 1), "alice", Move("sideslip-left", "swipe"))
    assert state.phase == "skid" and state.moves_left == 2


def test_the_swipe_order_and_the_computer_each_pick_one_car_of_the_two():
    state = two_in_the_skid_hexes(NEWEST)
    bob = car_of(state, "bob").id
    legal = legal_actions(state, "alice")
    assert ORDERS.answer(state, "alice", {"swipe": "yes"}, lambda: legal) == ("swipe", AnswerSkid("swipe", bob))
    assert ORDERS.answer(state, "alice", {"swipe": "no"}, lambda: legal) == ("swipe", AnswerSkid("continue"))
    assert ai.choose_command(state, "alice", commands(state)) == f"/skid choice:swipe target:{bob}"


def test_the_swipe_order_passes_over_the_players_own_car():
    state = fx.started(("alice", "bob", "alice"), ("brawler", "brawler", "brawler"))
    state = replace(state, revision=SEED_AUDIT, order=("alice", "bob"), round=0, turn_index=0)
    mine, bobs, other = state.cars
    assert (mine.owner, bobs.owner, other.owner) == ("alice", "bob", "alice")
    state = state.with_car(replace(mine, front=parse_label("M9"), facing=E, speed=3))
    state = state.with_car(replace(other, front=parse_label("N7"), facing=NW))   # the front skid hex
    state = state.with_car(replace(bobs, front=parse_label("M6"), facing=NE))    # the back skid hex
    state = replace(state, phase="movement", active_car=mine.id, moves_left=3, moves_total=3)
    state, _ = act(state, "alice", Move("sideslip-left"))
    assert state.pending_skid.swipe_targets == (other.id, bobs.id)
    legal = legal_actions(state, "alice")
    assert ORDERS.answer(state, "alice", {"swipe": "yes"}, lambda: legal) == ("swipe", AnswerSkid("swipe", bobs.id))


def test_a_stored_skid_keeps_its_single_target_format():
    stored = {"maneuver": "turn-left", "vector": 0, "skid_applies": True, "swipe_target": "c2"}
    pending = from_plain(PendingSkid, stored)
    assert pending.swipe_targets == ("c2",) and to_plain(pending) == stored
    assert to_plain(replace(pending, other_targets=("c3",)))["other_targets"] == ["c3"]
