"""Rules revision 3: where Speedway and Track now follow their seeds' sentences (issue 12).

Every new game records revision 3 in its setup options; games stored before keep their revision and
replay exactly as they were played (each test below also pins the old behaviour where it differs).
Dice are forced as in test_speedway_combat.py: DiceState(seed, 0) rolls a fixed stream.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from rules.hexgrid import label, parse_label
from rules.speedway import ai, combat
from rules.speedway.actions import ChooseRam, EndTurn, Move, SetSpeed
from rules.speedway.errors import IllegalManeuver, IllegalShot
from rules.speedway.events import (
    CarPainted,
    CarStopped,
    DamageRolled,
    DiceRolled,
    InertiaGained,
    MineExploded,
    MustTurnBlocked,
)
from rules.speedway.ruleset import SPEEDWAY, legal_actions
from rules.speedway.state import Hazard
from rules.track.errors import IllegalPlay as IllegalTrackPlay
from rules.track.errors import MustPlay
from rules.track.events import CardDiscarded, CarsSwapped
from rules.track.ruleset import TRACK
from rules.track.state import LANE, PITS, RING
from tests.test_speedway_collisions import pose, ram
from tests.test_speedway_combat import E, W, act, car_of, game, moving, of, pass_to, put, track
from tests.test_speedway_hazards import mine_run, with_hazards
from tests.test_track_rules import A, B, commands, play, table, where


def rev(state, revision: int = 3):
    return replace(state, revision=revision)


def test_new_games_record_the_newest_revision():
    assert SPEEDWAY.revision == 6 and SPEEDWAY.setup({"revision": 6}, 1, "alice").revision == 6
    assert SPEEDWAY.new_game_options({})["revision"] == 6
    assert TRACK.revision == 6 and TRACK.setup({"revision": 6}, 1, "alice").revision == 6


# --- 1. "The firing car is immune from the hazard until it moves more than one hex away from it." ---

def carols_mine(revision: int):
    """mine_run with the mine at O9 laid by carol, who sits next to it (O10-N10) and never left."""
    state = rev(mine_run(6), revision)
    mine = replace(state.hazards[0], owner=car_of(state, "carol").id, owner_clear=False)
    return replace(state, hazards=(mine,))


def test_a_mines_layer_still_next_to_it_is_spared_by_its_explosion():
    # seed 6: alice's white dice 2 0 = 2 < 3, the mine explodes on every car on or next to O9.
    for revision, damaged in ((1, ["alice", "carol"]), (3, ["alice"])):
        after, events = act(carols_mine(revision), "alice", Move("normal"))
        assert of(events, MineExploded) == [MineExploded("O9")]
        assert [d.car for d in of(events, DamageRolled)] == damaged, revision
        assert after.hazards == ()
    # Once carol has been more than one hex away, her own mine hurts her like anyone.
    cleared = carols_mine(3)
    cleared = replace(cleared, hazards=(replace(cleared.hazards[0], owner_clear=True),))
    _, events = act(cleared, "alice", Move("normal"))
    assert [d.car for d in of(events, DamageRolled)] == ["alice", "carol"]


def smoke_between(revision: int, clear: bool):
    """alice (M9-L9, facing E) aims her front gun at bob (Q9-R9); her own smoke lies on O9 between."""
    state = game("brawler", "brawler", options={"revision": revision})
    state = put(state, "alice", "M9", E, speed=2)
    state = put(state, "bob", "Q9", W)
    return with_hazards(moving(state, 2, 1), ("smoke", "O9", "alice", clear))


def test_a_layers_own_smoke_does_not_block_its_shots_while_it_is_immune():
    def can_fire(state):
        try:
            alice = car_of(state, "alice")
            combat.plan_shot(state, alice, alice.weapon("Front"), car_of(state, "bob"))
        except IllegalShot as refusal:
            assert "line of sight" in str(refusal)
            return False
        return True

    assert can_fire(smoke_between(3, clear=False))
    assert not can_fire(smoke_between(3, clear=True))   # more than one hex away since: it blocks her too
    assert not can_fire(smoke_between(1, clear=False))  # revision 1 as it was played
    bobs = smoke_between(3, clear=False)
    bobs = replace(bobs, hazards=(replace(bobs.hazards[0], owner=car_of(bobs, "bob").id),))
    assert not can_fire(bobs)                            # another car's smoke always blocks


# --- 2. Ram steps 1-4 have no exception for a knocked-out defender ---------------------------------

def test_a_ram_that_knocks_the_defender_out_still_rolls_off_and_picks_an_outcome():
    """Seed, Ramming: "2. Both cars lose speed equal to the damage it takes. 3. Each driver makes a
    Driver Roll ... 4. The higher-rolling player decides"."""
    # seed 1: bob (no Armor, one Driver box left) takes S S A S D A: his Driver is gone, he is out.
    # alice takes 2 results (speed 3 -> 1). Roll-off: alice 4 4 2 2 + 4 = 16, bob no dice + 2 = 2.
    fragile = track(track(ram(1), "bob", "armor", 6), "bob", "driver", 5)
    old, _ = act(rev(fragile, 1), "alice", Move("normal"))
    assert car_of(old, "alice").speed == 0 and old.active_player == "carol"   # revision 1: stopped dead
    state, events = act(rev(fragile), "alice", Move("normal"))
    assert car_of(state, "bob").out and car_of(state, "alice").speed == 1 and state.moves_left == 2
    rolls = of(events, DiceRolled)
    assert [(r.car, r.faces, r.total, r.target, r.success) for r in rolls] == [
        ("alice", (4, 4, 2, 2), 16, 2, True), ("bob", (), 2, 16, False)]
    assert state.phase == "ram" and state.pending_ram.chooser == "alice"
    pushed, events = act(state, "alice", ChooseRam("B"))      # the wreck is pushed aside
    assert pose(car_of(pushed, "bob")) == ("N8", "O9", 2) and pose(car_of(pushed, "alice")) == ("N9", "M9", E)
    assert pushed.moves_left == 2 and car_of(pushed, "alice").speed == 1


def test_ramming_a_wreck_goes_through_the_whole_procedure():
    # seed 3: Vc = Va = 3 (a wreck stands still); alice takes nothing, keeps speed 3; bob, a wreck with
    # no Driver, rolls no dice and adds nothing: 12 vs 0.
    wreck = track(put(ram(3), "bob", "N9", W, speed=0, out=True), "bob", "driver", 6)
    state, events = act(rev(wreck), "alice", Move("normal"))
    assert [(r.car, r.total, r.target) for r in of(events, DiceRolled)] == [("alice", 12, 0), ("bob", 0, 12)]
    assert state.pending_ram.chooser == "alice" and car_of(state, "alice").speed == 3
    old, _ = act(rev(wreck, 1), "alice", Move("normal"))
    assert car_of(old, "alice").speed == 0 and old.pending_ram is None


# --- 3. Outcome A: "must take a turn maneuver on its next move, if possible, or stops otherwise" ---

def last_move_ram(revision: int):
    """ram(1) on alice's last Move; she wins the roll-off and picks outcome A."""
    state, _ = act(rev(ram(1, moves=1), revision), "alice", Move("normal"))
    state, events = act(state, "alice", ChooseRam("A"))
    assert events == ()
    return state


def to_alices_next_move(state, speed: int):
    """End alice's turn, let the others idle, and set her speed for the next one."""
    if state.active_player == "alice":
        state, _ = act(state, "alice", EndTurn())
    state = pass_to(state, "alice")
    return act(state, "alice", SetSpeed(speed))


def test_outcome_a_on_the_last_move_makes_the_next_turns_first_move_a_turn():
    state = last_move_ram(3)
    alice = car_of(state, "alice")
    assert alice.must_turn and alice.speed == 1                # 3, less the 2 results she took
    state, _ = to_alices_next_move(state, 2)
    moves = [a.command for a in legal_actions(state, "alice") if a.command.startswith("/move")]
    assert moves == ["/move maneuver:turn-left", "/move maneuver:turn-right"]
    legal = [a.command for a in legal_actions(state, "alice")]
    assert "/move maneuver:normal" not in legal and ai.choose_command(state, "alice", legal) in legal
    with pytest.raises(IllegalManeuver, match="turn-left or turn-right"):
        act(state, "alice", Move("normal"))
    state, _ = act(state, "alice", Move("turn-right"))
    assert not car_of(state, "alice").must_turn and state.moves_left == 1
    old = last_move_ram(1)                                     # revision 1: a full stop
    assert car_of(old, "alice").speed == 0 and not car_of(old, "alice").must_turn


def test_outcome_a_stops_the_car_at_its_next_move_when_no_turn_is_open():
    state = last_move_ram(3)
    # Cars parked on M8 and M10, where a Turn left or right would put alice's front: no Turn is open.
    boxed = put(put(state, "carol", "M8", E), "bob", "M10", W)
    state, events = to_alices_next_move(boxed, 2)
    assert MustTurnBlocked("alice") in events and of(events, CarStopped)[0].reason == "no Turn was open after the ram"
    assert car_of(state, "alice").speed == 0 and state.moves_left == 0
    assert not car_of(state, "alice").must_turn
    assert not [a for a in legal_actions(state, "alice") if a.command.startswith("/move")]


# --- 4. "Other Counters ... debris, mines, oil, water, smoke, paint, and other obstacles." -------------

def junkyard():
    """A two-car game on the Junkyard, whose debris, water and paint lie there from the start."""
    return game("brawler", "brawler", options={"arena": "junkyard", "revision": 3})


def test_the_junkyard_starts_with_its_counters_laid_by_nobody():
    state = junkyard()
    kinds = {kind: sorted(label(h.hex) for h in state.hazards if h.kind == kind)
             for kind in ("debris", "water", "paint")}
    assert kinds == {"debris": ["F7", "K11", "K3", "L11", "L3", "P7"], "water": ["I6", "I7", "I8", "M6", "M7", "M8"],
                     "paint": ["H11", "K5", "K9", "N3"]}
    assert {h.owner for h in state.hazards} == {""} and state.next_hazard_id == 17
    assert "debris at" in SPEEDWAY.describe(state)          # the alt text names them
    # The other arenas are as they were: no counters, so every stored game sets up the same.
    assert SPEEDWAY.setup({}, 1, "alice").hazards == () == SPEEDWAY.setup({"arena": "duel"}, 1, "alice").hazards


@pytest.mark.parametrize("kind", ["debris", "water"])
def test_debris_and_water_add_one_inertia_per_hex_like_oil(kind):
    state = junkyard()
    state = replace(state, hazards=(Hazard(1, kind, parse_label("N9"), ""), Hazard(2, kind, parse_label("O9"), "")))
    state = moving(put(state, "alice", "M9", E, speed=3), 3, 1)
    state, events = act(state, "alice", Move("normal"))
    assert of(events, InertiaGained) == [InertiaGained("alice", 1, kind)] and car_of(state, "alice").inertia == 1
    state, events = act(state, "alice", Move("normal"))     # O9 is a second hex: one more
    assert car_of(state, "alice").inertia == 2 and len(state.hazards) == 2   # they stay, like oil


def test_paint_costs_targeting_until_the_end_of_the_turn():
    state = junkyard()
    state = replace(state, hazards=(Hazard(1, "paint", parse_label("N10"), ""),))
    state = put(put(state, "alice", "M10", E, speed=2), "bob", "R10", W)
    state = moving(state, 2, 1)
    targeting = car_of(state, "alice").systems.rating("targeting")
    state, events = act(state, "alice", Move("normal"))
    assert of(events, CarPainted) == [CarPainted("alice", 1)]
    alice = car_of(state, "alice")
    assert alice.painted and combat.targeting(alice) == targeting - 1
    shot = combat.plan_shot(state, alice, alice.weapon("Front"), car_of(state, "bob"))
    assert shot.targeting == targeting - 1                   # what /odds and the to-hit roll add
    state, _ = act(state, "alice", Move("normal"))
    if state.active_player == "alice":
        state, _ = act(state, "alice", EndTurn())
    assert not car_of(state, "alice").painted                # the turn is over


def test_a_computer_driver_steers_round_a_puddle_when_it_can():
    state = junkyard()
    state = replace(state, hazards=(Hazard(1, "water", parse_label("N9"), ""),))
    state = moving(put(state, "alice", "M9", E, speed=3), 3, 1)
    legal = [a.command for a in legal_actions(state, "alice")]
    assert "/move maneuver:normal" in legal
    assert ai.choose_command(state, "alice", legal) != "/move maneuver:normal"   # straight on is the puddle


def test_an_arena_counter_on_a_start_or_an_obstacle_is_refused(tmp_path, monkeypatch):
    from rules.speedway import data

    (tmp_path / "arenas").mkdir()
    monkeypatch.setattr(data, "DATA_DIR", tmp_path)
    base = 'name = "T"\ncolumns = 9\nrows = 7\nobstacles = ["E4"]\nstarts = [{ front = "C4", facing = "E" }]\n'
    for name, counter in (("onstart", '{ kind = "water", hex = "C4" }'), ("onwall", '{ kind = "paint", hex = "E4" }'),
                          ("unknown", '{ kind = "lava", hex = "G4" }'), ("ok", '{ kind = "debris", hex = "G4" }')):
        (tmp_path / "arenas" / f"{name}.toml").write_text(base + f"counters = [{counter}]\n")
    data.arena.cache_clear()
    try:
        for bad in ("onstart", "onwall", "unknown"):
            with pytest.raises(ValueError, match="counter"):
                data.arena(bad)
        assert data.arena("ok").counters == (("debris", parse_label("G4")),)
    finally:
        data.arena.cache_clear()


def test_the_new_counters_are_drawn_each_in_its_own_way():
    from images.speedway import map_band

    state = junkyard()
    bare = replace(state, hazards=())
    pictures = {kind: map_band(replace(bare, hazards=(Hazard(1, kind, parse_label("J4"), ""),))).tobytes()
                for kind in ("debris", "water", "paint", "oil")}
    assert len(set(pictures.values())) == 4 and map_band(bare).tobytes() not in pictures.values()


# --- Track: the Joker (seed 002) ---------------------------------------------------------------------

REV3 = {"revision": 3}


def test_track_new_games_record_revision_3_and_the_seeds_joker_default():
    assert TRACK.revision == 6                                        # revisions 4 to 6 keep 3's Joker default
    assert TRACK.setup(REV3, 1, A).rulings.joker_forced is True
    assert TRACK.setup({"revision": 4}, 1, A).rulings.joker_forced is True
    assert TRACK.setup({}, 1, A).rulings.joker_forced is False          # stored games keep theirs
    assert TRACK.setup({**REV3, "joker_forced": False}, 1, A).rulings.joker_forced is False


def test_a_joker_that_can_move_must_be_played():
    """Seed: "You must play if you have a move." and "you can use your Joker as a Come Out Card"."""
    hand = ("JK", "2C", "3C")                                  # alice's cars are all in the pits
    forced = table(alice_hand=hand, bob={"c4": (RING, 30)}, options=REV3)
    assert not [c for c in commands(forced, A) if c.startswith("/discard")]
    with pytest.raises(MustPlay):
        play(forced, A, "/discard card:2C")
    after, _ = play(forced, A, "/play card:JK move:swap car:pits target:c4")
    assert where(after, A, "c1") == (RING, 30) and where(after, B, "c4") == (PITS, 0)
    # Nothing of bob's on the field: the Joker comes out, and must.
    alone = table(alice_hand=hand, options=REV3)
    assert [c for c in commands(alone, A) if "JK" in c] == ["/play card:JK move:out"]
    with pytest.raises(MustPlay):
        play(alone, A, "/discard card:3C")
    # The group's other rule, kept as an option: the Joker may be held back.
    optional = table(alice_hand=hand, bob={"c4": (RING, 30)}, options={**REV3, "joker_forced": False})
    _after, events = play(optional, A, "/discard card:2C")
    assert events[0] == CardDiscarded("alice", "2C")


def test_a_joker_swaps_a_car_from_its_white_dot_but_not_from_the_finish():
    """Seed: "Joker = exchange one of your pieces (from anywhere including your Home area) with any of
    your opponent's pieces (opponent's piece goes to his/her Home)"."""
    spots = {"c1": (LANE, 0), "c2": (LANE, 3)}                 # c1 on alice's white dot, c2 in F3
    state = table(alice_hand=("JK", "2C", "3C"), alice=spots, bob={"c2": (RING, 12)}, options=REV3)
    assert "/play card:JK move:swap car:c1 target:c2" in commands(state, A)
    assert not [c for c in commands(state, A) if "car:c2 target" in c]
    after, events = play(state, A, "/play card:JK move:swap car:c1 target:c2")
    assert where(after, A, "c1") == (RING, 12) and where(after, B, "c2") == (PITS, 0)
    assert isinstance(events[1], CarsSwapped) and events[1].at == "hole 12"
    with pytest.raises(IllegalTrackPlay, match="white dot"):   # a finished car stays where it is
        play(state, A, "/play card:JK move:swap car:c2 target:c2")
    old = table(alice_hand=("JK", "2C", "3C"), alice=spots, bob={"c2": (RING, 12)})
    with pytest.raises(IllegalTrackPlay, match="pits or the ring only"):   # revision 1, as played
        play(old, A, "/play card:JK move:swap car:c1 target:c2")


def test_a_ram_that_stops_the_attacker_asks_for_no_outcome():
    """Either outcome leaves an attacker the crash brought to speed 0 stopped ("Stopped cars move no
    further"), so from revision 3 nobody is asked to choose; revision 1 asked (and its logs hold the answer)."""
    # seed 2: alice takes 3 results (speed 3 -> 0) and wins the roll-off.
    state, events = act(rev(ram(2)), "alice", Move("normal"))
    assert state.phase == "movement" and state.pending_ram is None and len(of(events, DiceRolled)) == 2
    assert of(events, CarStopped)[-1].reason == "the crash took all its speed, so no outcome is chosen"
    assert car_of(state, "alice").speed == 0 and state.moves_left == 0
    old, _ = act(rev(ram(2), 1), "alice", Move("normal"))
    assert old.phase == "ram" and old.pending_ram.chooser == "alice"


def test_a_ram_whose_outcomes_both_only_stop_the_attacker_asks_for_none():
    """Revision 4 ("/ram is not asked when neither outcome can change anything"): carol's car at L8
    facing NW leaves alice no Turn for outcome A and no room for outcome B, so both would only stop her
    at M9 with her speed 1 left; nobody is asked. Revision 3 asked, and its logs hold the answer."""
    def boxed_in(revision: int):
        return rev(moving(put(ram(1), "carol", "L8", 2), 3, 1), revision)

    state, events = act(boxed_in(4), "alice", Move("normal"))
    assert state.phase == "movement" and state.pending_ram is None
    assert of(events, CarStopped)[-1].reason == "either outcome leaves it stopped here, so none is chosen"
    assert pose(car_of(state, "alice"))[0] == "M9" and car_of(state, "alice").speed == 0
    asked, _ = act(boxed_in(3), "alice", Move("normal"))
    assert asked.phase == "ram" and car_of(asked, "alice").speed == 1
    for outcome in ("A", "B"):                   # what revision 3 asked for: the same stop either way
        chosen, _ = act(asked, "alice", ChooseRam(outcome))
        assert car_of(chosen, "alice") == car_of(state, "alice")
    free, _ = act(rev(ram(1), 4), "alice", Move("normal"))      # with room, the choice is still asked
    assert free.phase == "ram"
