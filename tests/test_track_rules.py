"""The card track race (seed 002): every card, the rulings, hidden hands, replay and a random-play fuzz.

Positions are built through the real referee (setup, join, start) and then `replace` puts cars,
hands and the draw pile exactly where a test needs them. Alice sits first (corner 0, start 8); Bob
second (corner 18, start 26). A lane spot is 0 for the white dot W and 1..5 for F1..F5.
"""

from __future__ import annotations

import random
import re
from dataclasses import replace

import pytest

from rules.codec import decode_state, decode_tagged, encode_state, encode_tagged
from rules.dice import shuffle
from rules.engine import parse_command, replay
from rules.errors import BadOption, GameError, GameOver, NotHost, NotYourTurn, TableFull
from rules.track import cards
from rules.track import ruleset as track_ruleset
from rules.track.actions import ACTIONS, Discard, Join, PlayCard, Start
from rules.track.errors import IllegalPlay, MustPlay, NotInHand
from rules.track.events import (
    EVENTS,
    CarBumped,
    CarCameOut,
    CardDiscarded,
    CardDrawn,
    CardPlayed,
    CarMoved,
    CarsSwapped,
    DeckReshuffled,
    GameWon,
)
from rules.track.ruleset import TRACK
from rules.track.state import LANE, PITS, RING, Car, TrackState

SEED = 5
A, B = "alice", "bob"
# Filler cards that move nothing useful and are not used by the tests as plays.
FILL = ("2C", "3C", "4C", "5C", "6C", "9C", "10C", "2D", "3D", "4D")


def started(options: dict | None = None, seed: int = SEED) -> TrackState:
    state = TRACK.setup(options or {}, seed, A)
    state, _ = TRACK.apply(state, A, Join("alice"))
    state, _ = TRACK.apply(state, B, Join("bob"))
    state, _ = TRACK.apply(state, A, Start())
    return state


def table(alice_hand=("2C", "3C", "4C"), bob_hand=("2D", "3D", "4D"), alice=None, bob=None,
          draw=("5D", "6D", "9D", "10D", "5S", "6S"), discard=("9S",), active=A,
          options: dict | None = None) -> TrackState:
    """A started game with the given hands, cars ({'c1': ('ring', 12)}, others in the pits) and piles."""
    state = started(options)
    cars = []
    for owner, spots in ((A, alice or {}), (B, bob or {})):
        for i in range(1, 6):
            where, spot = spots.get(f"c{i}", (PITS, 0))
            cars.append(Car(owner, f"c{i}", where, spot))
    state = replace(state, cars=tuple(cars), draw_pile=tuple(draw), draw_count=len(draw),
                    discard_pile=tuple(discard), order=(A, B), turn_index=0 if active == A else 1)
    state = state.with_hand(A, tuple(alice_hand)).with_hand(B, tuple(bob_hand))
    return state


def play(state: TrackState, actor: str, line: str):
    """Run a command line as a player types it (/play card:7H car:c1)."""
    name, options = parse_command(line)
    return TRACK.apply(state, actor, TRACK.command_to_action(name, options))


def where(state: TrackState, owner: str, car: str) -> tuple[str, int]:
    c = state.car(owner, car)
    return (c.where, c.spot)


def commands(state: TrackState, player: str) -> list[str]:
    return [a.command for a in TRACK.legal_actions(state, player)]


# --- the board (reconstruction) ---------------------------------------------------------------

def test_board_geometry_satisfies_both_seed_tips():
    state = table()
    n = state.board.ring_holes
    assert n == 36
    assert (state.corner_of(A), state.start_of(A)) == (0, 8)
    assert (state.corner_of(B), state.start_of(B)) == (18, 26)
    for me, other in ((A, B), (B, A)):
        assert (state.start_of(me) - 8) % n == state.corner_of(me)  # an 8 from the start reaches the corner
        assert (state.start_of(other) + 10) % n == state.corner_of(me)  # that corner is 10 from their start


# --- lobby, deal, turns ---------------------------------------------------------------------------

def test_start_deals_three_cards_each_from_a_seeded_54_card_deck():
    state = started()
    assert [h.size for h in state.hands] == [3, 3]
    assert state.draw_count == 48
    everything = sorted(state.draw_pile + state.hand(A).cards + state.hand(B).cards)
    assert everything == sorted(cards.full_deck())
    assert started() == state  # same seed, same shuffle and deal
    assert started(seed=SEED + 1).draw_pile != state.draw_pile


def test_lobby_refusals():
    state = TRACK.setup({}, SEED, A)
    state, _ = TRACK.apply(state, A, Join("alice"))
    with pytest.raises(BadOption):
        TRACK.apply(state, A, Join("alice"))
    with pytest.raises(GameError):
        TRACK.apply(state, A, Start())  # one player only
    state, _ = TRACK.apply(state, B, Join("bob"))
    with pytest.raises(TableFull):
        TRACK.apply(state, "carol", Join("carol"))
    with pytest.raises(NotHost):
        TRACK.apply(state, B, Start())


def test_first_player_by_cut_and_by_host():
    assert started().order == (A, B)  # seed 5: the cut goes to alice
    assert started(seed=1).order == (B, A)  # seed 1: to bob
    assert started({"first_player": "host"}, seed=1).order == (A, B)


def test_not_your_turn_and_not_in_hand():
    state = table(alice_hand=("5H", "2C", "3C"), alice={"c1": (RING, 10)})
    with pytest.raises(NotYourTurn):
        play(state, B, "/play card:2D car:c1")
    with pytest.raises(NotInHand):
        play(state, A, "/play card:6H car:c1")


def test_play_discards_the_card_draws_one_and_passes_the_turn():
    state = table(alice_hand=("5H", "2C", "3C"), alice={"c1": (RING, 10)}, draw=("KD", "6D"))
    after, events = play(state, A, "/play card:5H car:c1")
    assert where(after, A, "c1") == (RING, 15)
    assert after.hand(A).cards == ("2C", "3C", "KD")
    assert after.discard_pile == ("9S", "5H") and after.top_discard == "5H"
    assert after.draw_pile == ("6D",) and after.draw_count == 1
    assert after.active_player == B
    assert events[0] == CardPlayed("alice", "5H", "5")
    assert CardDrawn("alice", 1) in events


# --- card values ------------------------------------------------------------------------------------

@pytest.mark.parametrize("card", ["AS", "JH", "QD", "KC"])
def test_ace_and_face_cards_come_out_onto_the_red_start(card):
    state = table(alice_hand=(card, "2C", "3C"))
    after, events = play(state, A, f"/play card:{card} move:out")
    assert where(after, A, "c1") == (RING, 8)
    assert CarCameOut("alice c1", "hole 8") in events


@pytest.mark.parametrize("card", ["2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "10H"])
def test_number_cards_cannot_come_out(card):
    state = table(alice_hand=(card, "2C", "3C"))
    with pytest.raises(IllegalPlay):
        play(state, A, f"/play card:{card} move:out")


@pytest.mark.parametrize("card,steps", [("2H", 2), ("3H", 3), ("4H", 4), ("5H", 5), ("6H", 6), ("9H", 9),
                                        ("10H", 10), ("7H", 7)])
def test_number_cards_move_their_face_value(card, steps):
    state = table(alice_hand=(card, "2C", "3C"), alice={"c1": (RING, 10)})
    after, events = play(state, A, f"/play card:{card} car:c1")
    assert where(after, A, "c1") == (RING, 10 + steps)
    assert CarMoved("alice c1", steps, "hole 10", f"hole {10 + steps}") in events


def test_ace_moves_one_or_eleven():
    state = table(alice_hand=("AS", "2C", "3C"), alice={"c1": (RING, 10)})
    assert where(play(state, A, "/play card:AS car:c1 move:1")[0], A, "c1") == (RING, 11)
    assert where(play(state, A, "/play card:AS car:c1 move:11")[0], A, "c1") == (RING, 21)
    with pytest.raises(BadOption):
        play(state, A, "/play card:AS car:c1")  # 1 or 11 must be said
    with pytest.raises(BadOption):
        play(state, A, "/play card:AS car:c1 move:5")


@pytest.mark.parametrize("card", ["JH", "QH", "KH"])
def test_face_cards_move_ten(card):
    state = table(alice_hand=(card, "2C", "3C"), alice={"c1": (RING, 10)})
    after, _ = play(state, A, f"/play card:{card} car:c1 move:10")
    assert where(after, A, "c1") == (RING, 20)
    assert where(play(state, A, f"/play card:{card} car:c1")[0], A, "c1") == (RING, 20)


def test_a_car_is_inferred_when_only_one_can_move():
    state = table(alice_hand=("5H", "2C", "3C"), alice={"c3": (RING, 10)})
    assert where(play(state, A, "/play card:5H")[0], A, "c3") == (RING, 15)
    two = table(alice_hand=("5H", "2C", "3C"), alice={"c3": (RING, 10), "c4": (RING, 20)})
    with pytest.raises(BadOption, match="Which car"):
        play(two, A, "/play card:5H")


# --- the 7 -----------------------------------------------------------------------------------------

def test_seven_split_between_two_cars():
    state = table(alice_hand=("7H", "2C", "3C"), alice={"c1": (RING, 10), "c3": (RING, 20)})
    after, events = play(state, A, "/play card:7H split:c1:4,c3:3")
    assert where(after, A, "c1") == (RING, 14) and where(after, A, "c3") == (RING, 23)
    assert events[0] == CardPlayed("alice", "7H", "split 4+3")
    assert "/play card:7H split:c1:6,c3:1" in commands(state, A)
    assert "/play card:7H car:c1" in commands(state, A)


def test_seven_split_must_use_all_seven_in_a_listed_pair():
    state = table(alice_hand=("7H", "2C", "3C"), alice={"c1": (RING, 10), "c3": (RING, 20)})
    with pytest.raises(IllegalPlay):
        play(state, A, "/play card:7H split:c1:3,c3:3")
    with pytest.raises(BadOption):
        play(state, A, "/play card:7H split:c1:4,c1:3")


def test_seven_split_part_enters_the_finish_lane():
    state = table(alice_hand=("7H", "2C", "3C"), alice={"c1": (RING, 34), "c3": (RING, 20)})
    after, _ = play(state, A, "/play card:7H split:c1:5,c3:2")
    assert where(after, A, "c1") == (LANE, 2)  # 34 -> 35 -> 0 (corner) -> W -> F1 -> F2
    assert where(after, A, "c3") == (RING, 22)


def test_seven_split_into_the_finish_can_be_ruled_out():
    state = table(alice_hand=("7H", "2C", "3C"), alice={"c1": (RING, 34), "c3": (RING, 20)},
                  options={"seven_split_into_finish": "false"})
    with pytest.raises(IllegalPlay, match="split 7"):
        play(state, A, "/play card:7H split:c1:5,c3:2")


def test_seven_with_only_one_car_able_to_move_takes_all_seven():
    state = table(alice_hand=("7H", "2C", "3C"), alice={"c1": (RING, 10)})
    assert [c for c in commands(state, A) if "7H" in c] == ["/play card:7H car:c1"]
    with pytest.raises(IllegalPlay, match="pits"):
        play(state, A, "/play card:7H split:c1:4,c2:3")  # c2 is in the pits
    assert where(play(state, A, "/play card:7H")[0], A, "c1") == (RING, 17)


def test_seven_split_parts_move_in_order_so_one_car_can_make_room():
    # c1 at 10 and c3 at 12: c1:4 first would pass c3; c3 first makes room.
    state = table(alice_hand=("7H", "2C", "3C"), alice={"c1": (RING, 10), "c3": (RING, 12)})
    with pytest.raises(IllegalPlay, match="pass its own car"):
        play(state, A, "/play card:7H split:c1:4,c3:3")
    after, _ = play(state, A, "/play card:7H split:c3:3,c1:4")
    assert where(after, A, "c1") == (RING, 14) and where(after, A, "c3") == (RING, 15)
    assert "/play card:7H split:c3:3,c1:4" in commands(state, A)


def test_seven_split_can_be_ruled_out():
    state = table(alice_hand=("7H", "2C", "3C"), alice={"c1": (RING, 10), "c3": (RING, 20)},
                  options={"seven_may_split": False})
    with pytest.raises(IllegalPlay):
        play(state, A, "/play card:7H split:c1:4,c3:3")
    assert not [c for c in commands(state, A) if "split" in c]


# --- the 8 -----------------------------------------------------------------------------------------

def test_eight_moves_back_eight():
    state = table(alice_hand=("8H", "2C", "3C"), alice={"c1": (RING, 20)})
    after, events = play(state, A, "/play card:8H car:c1")
    assert where(after, A, "c1") == (RING, 12)
    assert CarMoved("alice c1", -8, "hole 20", "hole 12") in events
    assert events[0].use == "back 8"


def test_tip_eight_from_the_start_reaches_the_corner_then_a_small_card_enters_the_lane():
    state = table(alice_hand=("8H", "3H", "3C"), alice={"c1": (RING, 8)}, draw=("2D", "5D", "6D"))
    after, _ = play(state, A, "/play card:8H car:c1")
    assert where(after, A, "c1") == (RING, 0)  # the corner just in front of alice's finish
    after = replace(after, turn_index=0)  # alice again
    after, _ = play(after, A, "/play card:3H car:c1")
    assert where(after, A, "c1") == (LANE, 2)  # corner -> W -> F1 -> F2


def test_tip_that_corner_is_ten_from_the_opponents_start():
    state = table(bob_hand=("10H", "2D", "3D"), alice={"c1": (RING, 0)}, bob={"c1": (RING, 26)}, active=B)
    after, events = play(state, B, "/play card:10H car:c1")
    assert where(after, B, "c1") == (RING, 0)
    assert where(after, A, "c1") == (PITS, 0)
    assert CarBumped("alice c1", "hole 0", "bob c1", holes=28) in events


def test_eight_wraps_around_the_ring_and_cannot_move_lane_or_pit_cars():
    state = table(alice_hand=("8H", "2C", "3C"), alice={"c1": (RING, 3), "c2": (LANE, 0), "c3": (LANE, 4)})
    assert where(play(state, A, "/play card:8H car:c1")[0], A, "c1") == (RING, 31)
    for car in ("c2", "c3", "c4"):
        with pytest.raises(IllegalPlay):
            play(state, A, f"/play card:8H car:{car}")
    assert [c for c in commands(state, A) if "8H" in c] == ["/play card:8H car:c1"]


def test_a_car_behind_its_start_goes_round_to_its_own_corner():
    state = table(alice_hand=("10H", "2C", "3C"), alice={"c1": (RING, 4)})
    assert where(play(state, A, "/play card:10H car:c1")[0], A, "c1") == (RING, 14)


# --- the Joker -------------------------------------------------------------------------------------

def test_joker_swaps_a_ring_car_with_an_opponent_car():
    state = table(alice_hand=("JK", "2C", "3C"), alice={"c2": (RING, 10)}, bob={"c4": (RING, 30)})
    after, events = play(state, A, "/play card:JK move:swap car:c2 target:c4")
    assert where(after, A, "c2") == (RING, 30)
    assert where(after, B, "c4") == (PITS, 0)
    assert CarsSwapped("alice c2", "hole 10", "bob c4", "hole 30", holes=4) in events
    assert after.occupant(RING, 10) is None


def test_joker_swaps_from_the_pits():
    state = table(alice_hand=("JK", "2C", "3C"), bob={"c4": (RING, 30)})
    after, events = play(state, A, "/play card:JK move:swap car:pits target:c4")
    assert where(after, A, "c1") == (RING, 30) and where(after, B, "c4") == (PITS, 0)
    assert events[1] == CarsSwapped("alice c1", "alice's pits", "bob c4", "hole 30", holes=4)
    assert "/play card:JK move:swap car:pits target:c4" in commands(state, A)


def test_joker_comes_out_when_the_opponent_has_nothing_on_the_field():
    # Bob's cars on W and in the finish are off the field (ruling 9).
    state = table(alice_hand=("JK", "2C", "3C"), bob={"c1": (LANE, 0), "c2": (LANE, 5)})
    after, events = play(state, A, "/play card:JK move:out")
    assert where(after, A, "c1") == (RING, 8)
    assert events[0] == CardPlayed("alice", "JK", "come out")
    on_field = table(alice_hand=("JK", "2C", "3C"), bob={"c1": (RING, 3)})
    with pytest.raises(IllegalPlay):
        play(on_field, A, "/play card:JK move:out")


def test_joker_cannot_take_a_car_off_the_field_or_swap_from_the_lane():
    state = table(alice_hand=("JK", "2C", "3C"), alice={"c1": (LANE, 0), "c2": (RING, 5)},
                  bob={"c1": (LANE, 0), "c2": (RING, 12)})
    with pytest.raises(IllegalPlay, match="off the field"):
        play(state, A, "/play card:JK move:swap car:c2 target:c1")  # bob's c1 is on his white dot
    with pytest.raises(IllegalPlay):
        play(state, A, "/play card:JK move:swap car:c1 target:c2")  # alice's c1 is on her white dot


def test_joker_is_not_forced_by_default():
    state = table(alice_hand=("JK", "2C", "3C"), bob={"c4": (RING, 30)})  # all alice's cars in the pits
    options = commands(state, A)
    assert "/play card:JK move:swap car:pits target:c4" in options
    assert "/discard card:2C" in options
    _after, events = play(state, A, "/discard card:2C")
    assert events[0] == CardDiscarded("alice", "2C")
    forced = table(alice_hand=("JK", "2C", "3C"), bob={"c4": (RING, 30)}, options={"joker_forced": True})
    assert not [c for c in commands(forced, A) if c.startswith("/discard")]
    with pytest.raises(MustPlay):
        play(forced, A, "/discard card:2C")


REV4 = {"revision": 4}


def test_a_joker_swaps_a_car_out_of_the_finish_from_revision_4():
    """Seed, card values: "Joker = exchange one of your pieces (from anywhere including your Home area)
    with any of your opponent's pieces (opponent's piece goes to his/her Home)" (issue 37 item 9): no
    sentence limits "anywhere", so from revision 4 a car in F1-F5 may be swapped too, offered in the
    legal plays and autocomplete like any other. A revision 3 game refuses it, as it was played."""
    spots = {"c1": (LANE, 5), "c2": (LANE, 3), "c3": (RING, 4)}     # alice's c1 in F5, c2 in F3
    state = table(alice_hand=("JK", "2C", "3C"), alice=spots, bob={"c4": (RING, 16)}, options=REV4)
    swaps = [c for c in commands(state, A) if "move:swap" in c]
    assert swaps == [f"/play card:JK move:swap car:{car} target:c4" for car in ("c1", "c2", "c3", "pits")]
    cars = [v for _l, v in TRACK.suggestions(state, A, "play", "car", {"card": "JK", "move": "swap"})]
    assert {"c1", "c2"} <= set(cars)
    after, events = play(state, A, "/play card:JK move:swap car:c2 target:c4")
    assert where(after, A, "c2") == (RING, 16) and where(after, B, "c4") == (PITS, 0)
    assert events[1] == CarsSwapped("alice c2", "alice's F3", "bob c4", "hole 16", holes=26)
    assert (LANE, 3) not in {(c.where, c.spot) for c in after.cars_of(A)}
    old = table(alice_hand=("JK", "2C", "3C"), alice=spots, bob={"c4": (RING, 16)}, options={"revision": 3})
    assert [c for c in commands(old, A) if "move:swap" in c] == [f"/play card:JK move:swap car:{car} target:c4"
                                                                  for car in ("c3", "pits")]
    with pytest.raises(IllegalPlay, match="white dot only"):
        play(old, A, "/play card:JK move:swap car:c2 target:c4")


def test_a_car_swapped_out_of_the_finish_counts_no_more_and_a_joker_never_finishes_one():
    """Seed: "The first player to get all five of his/her pieces into their Finish area wins!" A Joker
    puts your car on the opponent's ring hole and theirs in their Home, so it never moves a car into a
    finish: four of alice's cars finished, one swapped out leaves three, and the game goes on; bob's turn
    comes, and the car comes back into the finish by a card's exact count like any other."""
    finish = {"c1": (LANE, 5), "c2": (LANE, 4), "c3": (LANE, 3), "c4": (LANE, 2), "c5": (RING, 30)}
    state = table(alice_hand=("JK", "AH", "3C"), alice=finish, bob={"c1": (RING, 34)}, options=REV4)
    after, _ = play(state, A, "/play card:JK move:swap car:c4 target:c1")
    assert sum(c.finished for c in after.cars_of(A)) == 3 and where(after, A, "c4") == (RING, 34)
    assert after.phase == "play" and after.winner is None and after.active_player == B
    back = replace(after, turn_index=0).with_hand(A, ("4H", "2C", "3C"))
    back, _ = play(back, A, "/play card:4H car:c4")              # 34 -> 35 -> corner 0 -> W -> F1
    assert where(back, A, "c4") == (LANE, 1) and sum(c.finished for c in back.cars_of(A)) == 4


# --- bumping, safety, passing, exact count -------------------------------------------------------

def test_landing_on_an_opponent_sends_it_to_its_pits_and_passing_one_does_not():
    state = table(alice_hand=("5H", "9H", "3C"), alice={"c1": (RING, 10)}, bob={"c2": (RING, 15), "c3": (RING, 12)})
    after, events = play(state, A, "/play card:5H car:c1")
    assert where(after, B, "c2") == (PITS, 0) and where(after, B, "c3") == (RING, 12)
    assert CarBumped("bob c2", "hole 15", "alice c1", holes=25) in events


def test_coming_out_onto_an_opponent_on_the_start_bumps_it():
    state = table(alice_hand=("KH", "2C", "3C"), bob={"c1": (RING, 8)})
    after, _events = play(state, A, "/play card:KH move:out")
    assert where(after, A, "c1") == (RING, 8) and where(after, B, "c1") == (PITS, 0)


def test_start_spot_is_not_safe_by_default_but_can_be_ruled_safe():
    spots = {"alice": {"c1": (RING, 16)}, "bob": {"c1": (RING, 26)}, "alice_hand": ("10H", "JK", "3C")}
    after, _ = play(table(**spots), A, "/play card:10H car:c1")
    assert where(after, B, "c1") == (PITS, 0)
    safe = table(**spots, options={"start_spot_safe": True})
    with pytest.raises(IllegalPlay, match="safe on its start"):
        play(safe, A, "/play card:10H car:c1")
    with pytest.raises(IllegalPlay, match="safe on its start"):
        play(safe, A, "/play card:JK move:swap car:c1 target:c1")


def test_cannot_come_out_onto_your_own_car():
    state = table(alice_hand=("KH", "2C", "3C"), alice={"c1": (RING, 8)})
    with pytest.raises(IllegalPlay, match="own car"):
        play(state, A, "/play card:KH move:out")


def test_white_dot_is_safe_and_off_the_field():
    state = table(alice_hand=("8H", "JK", "3C"), bob_hand=("JK", "2D", "3D"), alice={"c1": (LANE, 0)})
    with pytest.raises(IllegalPlay):
        play(state, A, "/play card:8H car:c1")
    bob_turn = replace(state, turn_index=1)
    assert not [c for c in commands(bob_turn, B) if "swap" in c]
    assert where(state, A, "c1") == (LANE, 0) and not state.car(A, "c1").finished


def test_passing_your_own_car_is_refused_on_the_ring_and_in_the_lane():
    state = table(alice_hand=("5H", "8H", "3H"), alice={"c1": (RING, 10), "c2": (RING, 12), "c3": (RING, 20),
                                                        "c4": (LANE, 1), "c5": (LANE, 3)})
    with pytest.raises(IllegalPlay, match="pass its own car c2"):
        play(state, A, "/play card:5H car:c1")
    with pytest.raises(IllegalPlay, match="pass its own car"):
        play(state, A, "/play card:8H car:c2")  # backwards over c1
    with pytest.raises(IllegalPlay, match="pass its own car c5"):
        play(state, A, "/play card:3H car:c4")
    with pytest.raises(IllegalPlay, match="land on its own car"):
        play(state, A, "/play card:8H car:c3")  # 20 - 8 = 12, where c2 is
    assert "/play card:5H car:c1" not in commands(state, A)


def test_passing_own_cars_can_be_allowed_by_ruling():
    state = table(alice_hand=("5H", "2C", "3C"), alice={"c1": (RING, 10), "c2": (RING, 12)},
                  options={"may_pass_own_cars": True})
    assert where(play(state, A, "/play card:5H car:c1")[0], A, "c1") == (RING, 15)


def test_exact_count_into_the_finish():
    state = table(alice_hand=("9H", "3H", "AH"), alice={"c1": (RING, 34)})
    with pytest.raises(IllegalPlay, match="past F5"):
        play(state, A, "/play card:9H car:c1")  # 2 to the corner, W, F1..F5 is 8 at most
    with pytest.raises(IllegalPlay, match="past F5"):
        play(state, A, "/play card:AH car:c1 move:11")
    assert where(play(state, A, "/play card:3H car:c1")[0], A, "c1") == (LANE, 0)  # W
    lane = table(alice_hand=("3H", "2H", "4H"), alice={"c1": (LANE, 0)})
    assert where(play(lane, A, "/play card:3H car:c1")[0], A, "c1") == (LANE, 3)  # W -> F3
    with pytest.raises(IllegalPlay):
        play(replace(lane, cars=tuple(replace(c, spot=4) if c.where == LANE else c for c in lane.cars)),
             A, "/play card:2H car:c1")


def test_without_exact_count_a_long_move_stops_at_f5():
    state = table(alice_hand=("9H", "3H", "AH"), alice={"c1": (RING, 34)},
                  options={"exact_count_into_finish": False})
    assert where(play(state, A, "/play card:9H car:c1")[0], A, "c1") == (LANE, 5)


def test_overshoot_can_go_round_again_by_ruling():
    state = table(alice_hand=("9H", "3H", "AH"), alice={"c1": (RING, 34)},
                  options={"overshoot_own_corner": "go_round"})
    assert where(play(state, A, "/play card:9H car:c1")[0], A, "c1") == (RING, 7)


# --- no move, the win, the reshuffle ------------------------------------------------------------

def test_forced_discard_when_no_card_moves():
    state = table(alice_hand=("2H", "5H", "9H"), draw=("KD", "6D"))  # all cars in the pits
    assert commands(state, A) == ["/discard card:2H", "/discard card:5H", "/discard card:9H"]
    after, events = play(state, A, "/discard card:5H")
    assert after.hand(A).cards == ("2H", "9H", "KD")
    assert after.discard_pile[-1] == "5H" and after.active_player == B
    assert [type(e).__name__ for e in events][:2] == ["CardDiscarded", "CardDrawn"]


def test_discard_is_refused_when_a_card_can_move():
    state = table(alice_hand=("2H", "5H", "9H"), alice={"c1": (RING, 10)})
    with pytest.raises(MustPlay):
        play(state, A, "/discard card:5H")


def test_all_five_cars_in_the_finish_win():
    state = table(alice_hand=("AH", "2C", "3C"),
                  alice={"c1": (LANE, 0), "c2": (LANE, 2), "c3": (LANE, 3), "c4": (LANE, 4), "c5": (LANE, 5)})
    assert TRACK.is_finished(state) is False
    after, events = play(state, A, "/play card:AH car:c1 move:1")
    assert after.phase == "finished" and after.winner == A
    assert events[-1] == GameWon("alice")
    assert TRACK.is_finished(after) and TRACK.prompt(after) == "Game over: alice wins."
    with pytest.raises(GameOver):
        play(after, B, "/discard card:2D")


def test_white_dot_does_not_count_for_the_win():
    state = table(alice_hand=("AH", "2C", "3C"),
                  alice={"c1": (RING, 35), "c2": (LANE, 2), "c3": (LANE, 3), "c4": (LANE, 4), "c5": (LANE, 5)})
    after, _ = play(state, A, "/play card:AH car:c1 move:1")  # 35 -> 0, the corner
    after, _ = play(replace(after, turn_index=0, hands=state.hands), A, "/play card:AH car:c1 move:1")
    assert where(after, A, "c1") == (LANE, 0) and after.phase == "play"


def test_empty_draw_pile_reshuffles_the_discards_with_the_seeded_stream():
    state = table(alice_hand=("5H", "2C", "3C"), alice={"c1": (RING, 10)}, draw=(), discard=("9S", "KD", "4S"))
    after, events = play(state, A, "/play card:5H car:c1")
    dice, expected = shuffle(state.dice, ("9S", "KD", "4S", "5H"))
    assert DeckReshuffled(4) in events
    assert after.hand(A).cards == ("2C", "3C", expected[0])
    assert after.draw_pile == expected[1:] and after.discard_pile == ()
    assert after.dice == dice and after.reshuffles == 1


# --- hidden information --------------------------------------------------------------------------

def test_view_shows_only_the_viewers_hand_and_never_the_draw_pile():
    state = started()
    mine = TRACK.view(state, A)
    assert mine.hand(A).cards == state.hand(A).cards
    assert mine.hand(B).cards == () and mine.hand(B).size == 3
    assert mine.draw_pile == () and mine.draw_count == 48
    assert mine.dice.seed == 0  # the seed would let anyone recompute the deck
    public = TRACK.view(state, None)
    assert all(h.cards == () for h in public.hands) and [h.size for h in public.hands] == [3, 3]
    with pytest.raises(GameError):
        TRACK.apply(public, A, Discard("2C"))


CARD_TOKEN = re.compile(r"\b(?:10|[2-9AJQK])[SHDC]\b|\bJK\b")


def _public_cards(state: TrackState) -> set[str]:
    return set(state.discard_pile) | {state.last_card}


def test_describe_and_events_never_show_a_hidden_card():
    state = started(seed=11)
    rng = random.Random(11)
    while state.phase == "play":
        player = state.active_player
        state, events = play(state, player, rng.choice(commands(state, player)))
        shown = set(CARD_TOKEN.findall(TRACK.describe(state)))
        assert shown <= _public_cards(state), shown - _public_cards(state)
        for event in events:
            allowed = {event.card} if isinstance(event, (CardPlayed, CardDiscarded)) else set()
            assert set(CARD_TOKEN.findall(event.describe())) <= allowed
        assert not set(CARD_TOKEN.findall(TRACK.prompt(state)))


def test_hand_query_is_private_to_the_asker():
    state = table(alice_hand=("5H", "2C", "3C"), bob_hand=("KD", "QD", "JD"), alice={"c1": (RING, 10)})
    text = TRACK.queries["hand"](state, A, {})
    assert "5H 2C 3C" in text and "KD" not in text
    assert "/play card:5H car:c1" in text


def test_undo_is_refused_after_a_draw_but_not_in_the_lobby():
    lobby = TRACK.setup({}, SEED, A)
    joined, _ = TRACK.apply(lobby, A, Join("alice"))
    assert TRACK.undo_blocker(lobby, joined) is None
    state = table(alice_hand=("5H", "2C", "3C"), alice={"c1": (RING, 10)})
    after, _ = play(state, A, "/play card:5H car:c1")
    assert TRACK.undo_blocker(state, after) == "a card was drawn"


# --- the rest of the Ruleset ----------------------------------------------------------------------

def test_track_offers_no_plans():
    assert TRACK.plans is None


def test_turn_key_prompt_and_acting_players():
    state = table()
    assert TRACK.acting_players(state) == (A,)
    after, _ = play(state, A, "/discard card:2C")
    assert TRACK.turn_key(after) != TRACK.turn_key(state)
    assert TRACK.acting_players(after) == (B,)
    assert TRACK.prompt(after).startswith("Round 1, bob: play a card")


def test_suggest_offers_only_playable_values():
    state = table(alice_hand=("5H", "8H", "KH"), alice={"c1": (RING, 10), "c2": (LANE, 0)})
    assert [v for _l, v in TRACK.suggestions(state, A, "play", "card", {})] == ["5H", "8H", "KH"]
    assert [v for _l, v in TRACK.suggestions(state, A, "play", "car", {"card": "8H"})] == ["c1"]
    assert TRACK.suggestions(state, B, "play", "card", {}) == []


def test_setup_options_are_checked():
    assert TRACK.setup({"start_spot_safe": "true"}, 1, A).rulings.start_spot_safe is True
    with pytest.raises(BadOption):
        TRACK.setup({"joker_forced": "maybe"}, 1, A)
    with pytest.raises(BadOption):
        TRACK.setup({"overshoot_own_corner": "bounce"}, 1, A)
    with pytest.raises(BadOption, match="team"):
        TRACK.setup({"teams": True}, 1, A)


def test_defaults_match_the_rulings_file():
    rulings = TRACK.setup({}, 1, A).rulings
    assert rulings.exact_count_into_finish is True and rulings.overshoot_own_corner == "lane_only"
    assert rulings.may_pass_own_cars is False and rulings.start_spot_safe is False
    assert rulings.joker_forced is False and rulings.seven_split_into_finish is True
    assert rulings.seven_may_split is True and rulings.first_player == "cut"


def test_state_actions_and_events_round_trip_through_json():
    state = started(seed=3)
    rng = random.Random(3)
    seen_events = []
    for _ in range(40):
        player = state.active_player
        state, events = play(state, player, rng.choice(commands(state, player)))
        seen_events += events
    assert decode_state(TrackState, encode_state(state)) == state
    assert decode_state(TrackState, encode_state(TRACK.view(state, A))) == TRACK.view(state, A)
    for action in (PlayCard("7H", split="c1:4,c3:3"), PlayCard("JK", "pits", "swap", "", "c2"), Discard("2C")):
        assert decode_tagged(ACTIONS, encode_tagged(action)) == action
    for event in seen_events:
        assert decode_tagged(EVENTS, encode_tagged(event)) == event


def test_computer_players_finish_games():
    for seed in range(4):
        state = TRACK.setup({}, seed, A)
        state, _ = TRACK.apply(state, A, TRACK.command_to_action("game add-ai", {}))
        state, _ = TRACK.apply(state, A, TRACK.command_to_action("game add-ai", {}))
        state, _ = TRACK.apply(state, A, Start())
        for _ in range(1000):
            if state.phase != "play":
                break
            player = state.active_player
            line = track_ruleset.computer_command(state, player)
            assert line in commands(state, player)
            chosen = TRACK.computer.choose(state, player)
            assert TRACK.autopilot.play(state, player, False) == chosen
            assert chosen == next(a.action for a in TRACK.legal_actions(state, player) if a.command == line)
            state, _ = play(state, player, line)
        assert state.phase == "finished" and state.winner in ("ai-1", "ai-2")
    assert TRACK.computer.choose(table(), A) is None


@pytest.mark.slow
def test_random_playout_fuzz_finishes_and_replays_exactly():
    rng = random.Random(2026)
    for game in range(200):
        seed = 1000 + game
        options = {"first_player": rng.choice(["cut", "host"])}
        state = TRACK.setup(options, seed, A)
        log = []
        for actor, line in ((A, "/game join name:alice"), (B, "/game join name:bob"), (A, "/game start")):
            name, opts = parse_command(line)
            action = TRACK.command_to_action(name, opts)
            state, _ = TRACK.apply(state, actor, action)
            log.append((actor, action))
        while state.phase == "play":
            assert len(log) < 3000, f"game {game} runs too long"
            player = state.active_player
            name, opts = parse_command(rng.choice(TRACK.legal_actions(state, player)).command)
            action = TRACK.command_to_action(name, opts)
            state, _ = TRACK.apply(state, player, action)
            log.append((player, action))
        assert state.winner in (A, B)
        assert sorted(sum((h.cards for h in state.hands), state.draw_pile + state.discard_pile)) == \
            sorted(cards.full_deck())
        assert replay(TRACK, options, seed, A, log) == state


def test_rules_doc_cites_only_existing_tests_and_modules():
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    text = (root / "rules" / "track" / "RULES.md").read_text()
    source = Path(__file__).read_text()
    cited = re.findall(r"`trk::(test_\w+)`", text)
    assert len(cited) > 50
    for name in cited:
        assert re.search(rf"^def {name}\(", source, re.MULTILINE), name
    for module in set(re.findall(r"`(\w+\.py)`", text)):
        assert (root / "rules" / "track" / module).exists(), module
