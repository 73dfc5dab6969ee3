"""Speedway defensive weapons and their counters: mines, oil slicks and smoke (seed: Defensive Weapons).

The reconstruction followed is shared/notes/rules-gaps.md 1.2.7. Builders and the dice notation are
those of test_speedway_combat.py: DiceState(seed, 0) rolls the face indices in its STREAM table,
and the white driver die shows 0 1 2 2 3 4 for indices 0..5.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from rules.hexgrid import label, parse_label
from rules.speedway import combat
from rules.speedway.actions import Drop, Move, SetSpeed
from rules.speedway.errors import IllegalDeployment, IllegalShot
from rules.speedway.events import (
    ArmorDisregarded,
    DamageRolled,
    DamageTaken,
    DiceRolled,
    HazardLaid,
    HazardRemoved,
    InertiaGained,
    MineExploded,
    SpeedSet,
)
from rules.speedway.hazards import clear_smoke_of
from rules.speedway.ruleset import legal_actions
from rules.speedway.state import Hazard

try:
    from tests.test_speedway_combat import NW, SE, E, act, car_of, game, moving, of, pass_to, put, track
except ImportError:  # tests/ on sys.path directly
    from test_speedway_combat import NW, SE, E, act, car_of, game, moving, of, pass_to, put, track


def hazard(state, kind: str, where: str, owner: str, clear: bool = True) -> Hazard:
    return Hazard(state.next_hazard_id, kind, parse_label(where), car_of(state, owner).id, clear)


def with_hazards(state, *specs):
    """Add (kind, hex, owner[, clear]) counters."""
    for spec in specs:
        state = replace(state, hazards=state.hazards + (hazard(state, *spec),),
                        next_hazard_id=state.next_hazard_id + 1)
    return state


def spots(state, kind=None) -> list[str]:
    return [label(h.hex) for h in state.hazards if kind is None or h.kind == kind]


def driving(design="brawler", front="M9", facing=E, speed=3, moves=None, seed=1, **fields):
    """alice at `front` in her Movement phase; bob waits in the far corner D3, out of every arc."""
    state = game(design, "brawler")
    state = put(state, "alice", front, facing, speed=speed, **fields)
    state = put(state, "bob", "D3", SE)
    return moving(state, speed if moves is None else moves, seed)


# --- Mines -----------------------------------------------------------------------------------------

def test_mine_is_laid_directly_behind_and_spends_a_charge():
    state = driving()
    after, events = act(state, "alice", Drop("back"))
    assert events == (HazardLaid("alice", "mine", "K9"),)       # M9-L9 facing E: behind L9 is K9
    assert after.hazards == (Hazard(1, "mine", parse_label("K9"), car_of(state, "alice").id),)
    alice = car_of(after, "alice")
    assert alice.weapon("Back").charges == 2 and alice.fired == ("Back",)
    assert after.moves_left == 3 and after.next_hazard_id == 2          # dropping is not a Move
    with pytest.raises(IllegalDeployment, match="already been used this turn"):
        act(after, "alice", Drop("mines"))


@pytest.mark.parametrize("facing, behind", [(E, "K9"), (NW, "N11"), (SE, "L7")])
def test_behind_follows_the_facing(facing, behind):
    _, events = act(driving(facing=facing), "alice", Drop("back"))
    assert events == (HazardLaid("alice", "mine", behind),)


def mine_run(seed: int):
    """Bob's mine at O9. alice (Driver 2: two white dice) drives M9 -> N9, next to it; carol sits
    on O10-N10, also next to the mine; bob is far away."""
    state = game("brawler", "brawler", "brawler")
    state = track(put(state, "alice", "M9", E, speed=2), "alice", "driver", 4)
    state = put(state, "bob", "D3", SE)
    state = put(state, "carol", "O10", E)
    return with_hazards(moving(state, 2, seed), ("mine", "O9", "bob"))


def test_mine_check_passed_once_per_car():
    # seed 1: two white dice, indices 2 2 -> 2 + 2 = 4 >= 3
    state, events = act(mine_run(1), "alice", Move("normal"))
    (roll,) = of(events, DiceRolled)
    assert (roll.car, roll.purpose, roll.faces, roll.total, roll.target, roll.success) == (
        "alice", "passes the mine at O9", (2, 2), 4, 3, True)
    assert not of(events, MineExploded) and spots(state) == ["O9"]
    assert state.hazards[0].checked == (car_of(state, "alice").id,)
    # Driving onto the mine hex itself: already tested, no second roll.
    counter = state.dice.counter
    state, events = act(state, "alice", Move("normal"))
    assert not of(events, DiceRolled) and state.dice.counter == counter and spots(state) == ["O9"]


def test_failed_mine_check_explodes_on_every_car_near_it():
    # seed 6: white dice 2 0 = 2 < 3. Then yellow, yellow, red to alice (A B F) and to carol (W W -).
    state, events = act(mine_run(6), "alice", Move("normal"))
    (roll,) = of(events, DiceRolled)
    assert (roll.faces, roll.total, roll.success) == ((2, 0), 2, False)
    assert events[events.index(roll) + 1] == MineExploded("O9")
    colours = ("yellow", "yellow", "red")
    assert of(events, DamageRolled) == [DamageRolled("alice", "mine at O9", colours, ("A", "B", "F")),
                                        DamageRolled("carol", "mine at O9", colours, ("W", "W", "-"))]
    assert of(events, ArmorDisregarded) == [ArmorDisregarded("alice", ("F", "B")),
                                            ArmorDisregarded("carol", ("W", "W"))]
    assert of(events, DamageTaken) == [DamageTaken("alice", ("Armor 3 (a box crossed)",))]
    assert state.hazards == ()                                  # the mine is gone
    assert car_of(state, "bob").systems == car_of(mine_run(6), "bob").systems   # bob was not near
    assert state.dice.counter == 2 + 3 + 3


def immune_run(owner: str):
    """A mine at M10 next to alice's M9-L9, laid by `owner` and not yet cleared by its layer."""
    state = track(driving(speed=3, seed=1), "alice", "driver", 4)
    return with_hazards(state, ("mine", "M10", owner, False))


def test_layer_is_immune_until_more_than_one_hex_away():
    state, events = act(immune_run("bob"), "alice", Move("normal"))
    assert of(events, DiceRolled)                               # bob's mine tests alice at N9
    state = immune_run("alice")
    for step_no in range(3):                                    # N9, O9 (still next to M10), P9
        state, events = act(state, "alice", Move("normal"))
        assert not of(events, DiceRolled)
        assert state.hazards[0].owner_clear is (step_no == 2)
    # Now clear of it, alice is tested like anyone when she comes back next to it.
    state = moving(put(state, "alice", "L9", E), 1, 1)
    _, events = act(state, "alice", Move("normal"))             # into M9, next to M10
    assert [r.purpose for r in of(events, DiceRolled)] == ["passes the mine at M10"]


# --- Oil -------------------------------------------------------------------------------------------

def test_oil_behind_now_and_after_each_of_the_next_four_moves():
    state = driving("torch", speed=5)
    state, events = act(state, "alice", Drop("back"))
    assert events == (HazardLaid("alice", "oil", "K9"),) and car_of(state, "alice").oil_drops_left == 4
    laid = []
    for _ in range(5):
        state, events = act(state, "alice", Move("normal"))
        laid += [e.at_hex for e in of(events, HazardLaid)]
    assert laid == ["L9", "M9", "N9", "O9"]                     # nothing after the fifth Move
    assert spots(state, "oil") == ["K9", "L9", "M9", "N9", "O9"]
    assert car_of(state, "alice").oil_drops_left == 0 and car_of(state, "alice").inertia == 0


def test_each_oil_hex_entered_adds_one_inertia_and_stays():
    state = with_hazards(driving(), ("oil", "N9", "bob"), ("oil", "O9", "bob"))
    state, events = act(state, "alice", Move("normal"))
    assert of(events, InertiaGained) == [InertiaGained("alice", 1, "oil")]
    state, events = act(state, "alice", Move("normal"))        # O9 is new; N9 is only the back now
    assert of(events, InertiaGained) == [InertiaGained("alice", 1, "oil")]
    assert car_of(state, "alice").inertia == 2 and spots(state) == ["N9", "O9"]


def test_two_oil_hexes_in_one_move():
    state = with_hazards(driving(), ("oil", "M8", "bob"), ("oil", "L8", "bob"))
    state, events = act(state, "alice", Move("sideslip-left"))  # M9-L9 -> M8-L8, below skid speed
    assert of(events, InertiaGained) == [InertiaGained("alice", 2, "oil")]
    assert car_of(state, "alice").inertia == 1 + 2


def test_own_fresh_oil_adds_nothing():
    state = with_hazards(driving(), ("oil", "N9", "alice", False))
    state, events = act(state, "alice", Move("normal"))
    assert not of(events, InertiaGained) and car_of(state, "alice").inertia == 0


# --- Smoke -----------------------------------------------------------------------------------------

def test_smoke_is_a_fan_of_three_behind():
    state, events = act(driving("sniper"), "alice", Drop("back"))
    assert events == (HazardLaid("alice", "smoke", "K9"), HazardLaid("alice", "smoke", "K8"),
                      HazardLaid("alice", "smoke", "K10"))
    assert car_of(state, "alice").weapon("Back").charges == 2


def test_smoke_blocks_fire_through_it():
    state = put(driving("sniper"), "bob", "H9", E)              # bob behind alice, facing her
    bob, alice = car_of(state, "bob"), car_of(state, "alice")
    combat.plan_shot(state, bob, bob.weapon("Front"), alice)   # a clear shot before the smoke
    state, _ = act(state, "alice", Drop("back"))
    with pytest.raises(IllegalShot, match="line of sight"):
        combat.plan_shot(state, bob, bob.weapon("Front"), car_of(state, "alice"))


def test_smoke_is_removed_when_a_car_enters_it():
    state = with_hazards(driving(), ("smoke", "N9", "bob"), ("smoke", "N8", "bob"))
    state, events = act(state, "alice", Move("normal"))
    assert of(events, HazardRemoved) == [HazardRemoved("smoke", "N9", "alice drove through")]
    assert spots(state) == ["N8"]


def test_smoke_blows_away_at_the_owners_next_upkeep_after_speed():
    state = driving("sniper", speed=1)
    state, _ = act(state, "alice", Drop("back"))
    state, _ = act(state, "alice", Move("normal"))
    assert state.active_player == "bob"
    state = pass_to(state, "alice")                              # bob plays two turns (B, then B A)
    assert state.phase == "upkeep" and spots(state) == ["K9", "K8", "K10"]
    state, events = act(state, "alice", SetSpeed(1))
    assert events[0] == SpeedSet("alice", 1, 1)
    assert of(events, HazardRemoved) == [HazardRemoved("smoke", h, "it blew away") for h in ("K9", "K8", "K10")]
    assert state.hazards == ()


def test_other_players_smoke_stays_through_my_upkeep():
    state = with_hazards(driving(), ("smoke", "P3", "bob"))
    state = replace(state, phase="upkeep", moves_left=0)
    state, events = act(state, "alice", SetSpeed(3))
    assert not of(events, HazardRemoved) and spots(state) == ["P3"]


# --- Charges and room ------------------------------------------------------------------------------

def test_charges_run_out():
    state = driving(speed=3)
    for _ in range(3):
        state, _ = act(state, "alice", Drop("back"))
        state, _ = act(state, "alice", Move("normal"))
        state = state.with_car(replace(car_of(state, "alice"), fired=()))   # as at a new turn
    assert spots(state) == ["K9", "L9", "M9"] and car_of(state, "alice").weapon("Back").charges == 0
    assert not car_of(state, "alice").weapon("Back").working
    state = moving(state, 1)
    with pytest.raises(IllegalDeployment, match="no charges left"):
        act(state, "alice", Drop("back"))
    assert not any(a.command.startswith("/drop") for a in legal_actions(state, "alice"))


@pytest.mark.parametrize("design", ["brawler", "torch", "sniper"])
def test_no_room_behind_refused(design):
    state = driving(design, front="B9")                         # back A9: behind is the wall
    with pytest.raises(IllegalDeployment, match="no open hex behind"):
        act(state, "alice", Drop("back"))
    assert not any(a.command.startswith("/drop") for a in legal_actions(state, "alice"))


def test_a_car_behind_leaves_no_room():
    state = put(driving(), "bob", "K9", E)                      # bob's front on K9, right behind alice
    with pytest.raises(IllegalDeployment, match="no open hex behind"):
        act(state, "alice", Drop("back"))


def test_smoke_goes_only_into_open_hexes():
    # B8-A8 facing E: behind A8 is the wall; the fan's other two hexes A7 and A9 are open.
    state, events = act(driving("sniper", front="B8"), "alice", Drop("back"))
    assert events == (HazardLaid("alice", "smoke", "A7"), HazardLaid("alice", "smoke", "A9"))


def test_mines_do_not_stack_in_one_hex():
    # RULING: a counter goes only where no counter of its kind lies already.
    state = with_hazards(driving(), ("mine", "K9", "bob"))
    with pytest.raises(IllegalDeployment, match="no open hex behind"):
        act(state, "alice", Drop("back"))
    assert [a.command for a in legal_actions(state, "alice") if a.command.startswith("/drop")] == []


def test_smoke_of_a_wrecked_car_blows_away_at_the_next_upkeep():
    # A wreck has no Upkeep of its own, so its smoke goes at the next player's step 5 instead.
    state = with_hazards(driving(), ("smoke", "F5", "bob"))
    bob = car_of(state, "bob")
    state = state.with_car(replace(bob, out=True))
    cleared, events = clear_smoke_of(state, "alice")
    assert spots(cleared, "smoke") == [] and events == (HazardRemoved("smoke", "F5", "it blew away"),)
