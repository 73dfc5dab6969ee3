"""Track (seed 002) audited sentence by sentence against its rulings' settings: each test builds one
position with `tests/test_track_rules.py`'s helpers, in a game at the newest rules revision (what
`/new track` records; `setup({})` alone gives revision 1), with one `/new track` option set, and checks
what the seed, RULES.md and the option's own words (rulings.toml, the `/new track` help) promise.
The fixes are rules revision 6 (state.FINISH_RULINGS_AS_WORDED): each test's `_in_a_revision_5_game`
partner checks that a game begun under revision 5 plays on as before.

Alice sits first (corner 0, start 8, lane W = spot 0, F1..F5 = 1..5); Bob second (corner 18, start 26).
"""

from __future__ import annotations

import itertools
import random

import pytest

from rules.errors import GameError
from rules.track import cards
from rules.track.errors import IllegalPlay
from rules.track.ruleset import REVISION
from rules.track.state import LANE, PITS, RING
from tests.test_track_rules import A, B, commands, play, table, where

NEW = {"revision": REVISION}
OLD = {"revision": 5}


def _rules(**options) -> dict:
    return {**NEW, **options}


# --- RULINGS 1, 14: exact_count_into_finish:false ------------------------------------------------

def test_without_exact_count_a_long_move_stops_short_of_a_filled_f5():
    """exact_count_into_finish:false ("stop short"): a car whose F5 is taken is refused, not stopped in F4."""
    # rulings.toml: "false: the car stops in the deepest free hole it can reach instead"; the /new help
    # says "Exact count into the finish lane (false: stop short)". Seed: "Players take turns playing one
    # card per turn to move their piece(s) clockwise around the board into their respective 'Finish'
    # area". Alice's c2 is already in F5; c1 is 2 holes from her corner and plays a 9 (corner, W, F1..F4
    # are free). forward_path clamps the move to F5 and check_landing then refuses it (own car there),
    # so after the first car in, the option behaves as if exact count were on.
    state = table(alice_hand=("9H", "2C", "2D"), alice={"c1": (RING, 34), "c2": (LANE, 5)},
                  options=_rules(exact_count_into_finish=False))
    assert "/play card:9H car:c1" in commands(state, A)
    after, _ = play(state, A, "/play card:9H car:c1")
    assert where(after, A, "c1") == (LANE, 4)


def test_without_exact_count_a_lane_car_is_not_forced_to_discard_behind_a_filled_f5():
    """exact_count_into_finish:false: a car on F3 behind F5 cannot stop short in F4; the player must discard."""
    # Seed: "You must play if you have a move. If you do not have a move, you must discard and draw
    # another card." Under the option each of 5, 3 and 4 would take c1 from F3 to F4, the deepest free
    # hole it can reach; the game offers only discards.
    state = table(alice_hand=("5H", "3C", "4C"), alice={"c1": (LANE, 3), "c2": (LANE, 5)},
                  options=_rules(exact_count_into_finish=False))
    assert not any(c.startswith("/discard") for c in commands(state, A)), commands(state, A)
    after, _ = play(state, A, "/play card:5H car:c1")
    assert where(after, A, "c1") == (LANE, 4)


# --- RULING 2: overshoot_own_corner:go_round -----------------------------------------------------

def test_go_round_lets_a_car_that_cannot_fit_into_a_filled_lane_pass_by():
    """overshoot_own_corner:go_round: a car that cannot fit into its lane is stuck instead of lapping."""
    # RULES.md RULING 2: "`go_round` lets a car that cannot fit pass by and lap again"; rulings.toml: "if
    # it does not fit there, 'lane_only' makes the card unusable for that car, 'go_round' lets the car
    # pass by and lap again" (rules-gaps 3.2.3 item 1: a move "past a filled hole" does not fit either;
    # hvrpoa's found rule: otherwise "you pass up your castle and continue moving around the board").
    # Alice's c1 sits on her corner 0 and her c2 on F2; a 3 would land on F2. forward_path laps only
    # when the count runs past F5, so the 3 is refused and the go_round setting does nothing here.
    state = table(alice_hand=("3H", "2C", "2D"), alice={"c1": (RING, 0), "c2": (LANE, 2)},
                  options=_rules(overshoot_own_corner="go_round"))
    assert "/play card:3H car:c1" in commands(state, A)
    after, _ = play(state, A, "/play card:3H car:c1")
    assert where(after, A, "c1") == (RING, 3)


# --- RULING 6: seven_split_into_finish:false ------------------------------------------------------

def test_a_split_seven_part_cannot_carry_a_car_from_its_white_dot_into_the_finish_when_ruled_out():
    """seven_split_into_finish:false: a split 7 part still carries a car from its white dot into F5."""
    # Seed: "The white dot at the entrance to your finish area is considered OFF of the playing field or
    # Safe" and the Finish is "the dots with the square around the outside": W is the entrance, not the
    # finish. The option is "A split 7 may enter the finish lane" / rulings.toml "may carry a part into
    # the finish lane", named seven_split_into_finish. forward_path checks `into_lane` only for a ring
    # car, so a part moving a car already on W runs on into the finish holes unchecked.
    state = table(alice_hand=("7H", "2C", "2D"), alice={"c1": (LANE, 0), "c2": (RING, 10)},
                  options=_rules(seven_split_into_finish=False))
    assert "/play card:7H split:c1:5,c2:2" not in commands(state, A)
    with pytest.raises(IllegalPlay, match="split 7"):
        play(state, A, "/play card:7H split:c1:5,c2:2")


# --- revision 5 games play on as they began ------------------------------------------------------

def test_without_exact_count_a_long_move_onto_a_filled_f5_is_refused_in_a_revision_5_game():
    state = table(alice_hand=("9H", "2C", "2D"), alice={"c1": (RING, 34), "c2": (LANE, 5)},
                  options={**OLD, "exact_count_into_finish": False})
    assert "/play card:9H car:c1" not in commands(state, A)
    with pytest.raises(IllegalPlay, match="land on its own car c2"):
        play(state, A, "/play card:9H car:c1")


def test_without_exact_count_a_lane_car_behind_a_filled_f5_discards_in_a_revision_5_game():
    state = table(alice_hand=("5H", "3C", "4C"), alice={"c1": (LANE, 3), "c2": (LANE, 5)},
                  options={**OLD, "exact_count_into_finish": False})
    assert commands(state, A) == ["/discard card:5H", "/discard card:3C", "/discard card:4C"]


def test_go_round_laps_only_past_f5_in_a_revision_5_game():
    state = table(alice_hand=("3H", "2C", "2D"), alice={"c1": (RING, 0), "c2": (LANE, 2)},
                  options={**OLD, "overshoot_own_corner": "go_round"})
    assert "/play card:3H car:c1" not in commands(state, A)
    with pytest.raises(IllegalPlay, match="land on its own car c2"):
        play(state, A, "/play card:3H car:c1")


def test_a_split_seven_part_carries_a_car_from_its_white_dot_into_the_finish_in_a_revision_5_game():
    state = table(alice_hand=("7H", "2C", "2D"), alice={"c1": (LANE, 0), "c2": (RING, 10)},
                  options={**OLD, "seven_split_into_finish": False})
    assert "/play card:7H split:c1:5,c2:2" in commands(state, A)
    after, _ = play(state, A, "/play card:7H split:c1:5,c2:2")
    assert where(after, A, "c1") == (LANE, 5) and where(after, A, "c2") == (RING, 12)


# --- revision 6: where the options meet -----------------------------------------------------------

def test_without_exact_count_a_car_stops_short_of_its_own_car_it_may_not_pass():
    """rulings.toml, ruling 1: a move "onto/past a filled finish hole" is illegal with exact count, and
    without it "the car stops in the deepest free hole it can reach": behind c2 on F2, a 4 from W stops
    on F1; when c1 may pass its own cars it lands on F4; with exact count on it is refused."""
    lane = {"c1": (LANE, 0), "c2": (LANE, 2)}
    state = table(alice_hand=("4H", "2C", "2D"), alice=lane, options=_rules(exact_count_into_finish=False))
    assert where(play(state, A, "/play card:4H car:c1")[0], A, "c1") == (LANE, 1)
    passing = table(alice_hand=("4H", "2C", "2D"), alice=lane,
                    options=_rules(exact_count_into_finish=False, may_pass_own_cars=True))
    assert where(play(passing, A, "/play card:4H car:c1")[0], A, "c1") == (LANE, 4)
    exact = table(alice_hand=("4H", "2C", "2D"), alice=lane, options=_rules())
    with pytest.raises(IllegalPlay, match="pass its own car c2"):
        play(exact, A, "/play card:4H car:c1")


def test_without_exact_count_a_car_that_can_reach_no_free_hole_is_refused():
    state = table(alice_hand=("5H", "3C", "4C"), alice={"c1": (LANE, 4), "c2": (LANE, 5)},
                  options=_rules(exact_count_into_finish=False))
    assert commands(state, A) == ["/discard card:5H", "/discard card:3C", "/discard card:4C"]
    with pytest.raises(IllegalPlay, match="no free hole"):
        play(state, A, "/play card:5H car:c1")


def test_a_car_that_can_stop_short_stops_and_one_that_cannot_fit_laps():
    """RULING 2 meets RULINGS 1, 14: with exact count off a car that can stop in a free hole of its lane
    stops there (it fits), even past F5; only a car its lane cannot take at all goes round."""
    both = _rules(exact_count_into_finish=False, overshoot_own_corner="go_round")
    state = table(alice_hand=("9H", "2C", "2D"), alice={"c1": (RING, 34)}, options=both)
    assert where(play(state, A, "/play card:9H car:c1")[0], A, "c1") == (LANE, 5)
    blocked = table(alice_hand=("3H", "2C", "2D"), alice={"c1": (RING, 0), "c2": (LANE, 0)}, options=both)
    assert where(play(blocked, A, "/play card:3H car:c1")[0], A, "c1") == (RING, 3)
    # before revision 6 the lap came first, past F5
    old = table(alice_hand=("9H", "2C", "2D"), alice={"c1": (RING, 34)}, options={**both, **OLD})
    assert where(play(old, A, "/play card:9H car:c1")[0], A, "c1") == (RING, 7)


def test_go_round_laps_onto_an_opponent_and_bumps_it():
    state = table(alice_hand=("3H", "2C", "2D"), alice={"c1": (RING, 0), "c2": (LANE, 2)},
                  bob={"c1": (RING, 3)}, options=_rules(overshoot_own_corner="go_round"))
    after, _ = play(state, A, "/play card:3H car:c1")
    assert where(after, A, "c1") == (RING, 3) and where(after, B, "c1") == (PITS, 0)


def test_a_split_seven_part_kept_out_of_the_finish_may_still_move_a_car_within_it():
    """seven_split_into_finish:false keeps a part from entering the finish; a car already in F1 is in it."""
    state = table(alice_hand=("7H", "2C", "2D"), alice={"c1": (LANE, 1), "c2": (RING, 10)},
                  options=_rules(seven_split_into_finish=False))
    after, _ = play(state, A, "/play card:7H split:c1:2,c2:5")
    assert where(after, A, "c1") == (LANE, 3) and where(after, A, "c2") == (RING, 15)


def test_a_split_seven_second_part_stops_short_of_where_the_first_part_went():
    """The parts move in order: the second stops short of the hole the first part just took."""
    state = table(alice_hand=("7H", "2C", "2D"), alice={"c1": (RING, 35), "c2": (LANE, 1)},
                  options=_rules(exact_count_into_finish=False))
    assert "/play card:7H split:c1:4,c2:3" in commands(state, A)
    after, _ = play(state, A, "/play card:7H split:c1:4,c2:3")   # c1: 0, W, F1 (taken) ... stops on W
    assert where(after, A, "c1") == (LANE, 0) and where(after, A, "c2") == (LANE, 4)
    after, _ = play(state, A, "/play card:7H split:c2:3,c1:4")   # c2 to F4 first: c1 then reaches F2
    assert where(after, A, "c2") == (LANE, 4) and where(after, A, "c1") == (LANE, 2)


# --- the listing is what the game takes, under every combination of options -----------------------

RULING_VALUES = {"exact_count_into_finish": (True, False), "overshoot_own_corner": ("lane_only", "go_round"),
                 "may_pass_own_cars": (False, True), "seven_split_into_finish": (True, False),
                 "seven_may_split": (True, False)}


def _position(rng: random.Random) -> tuple[dict, dict]:
    """Cars for alice (crowded near her corner and lane) and bob, never two in one place."""
    ring = list(range(26, 36)) + [0, 1, 2, 8, 20]
    rng.shuffle(ring)
    lane = rng.sample(range(6), 3)
    alice = {}
    for i in range(1, 6):
        kind = rng.choice((RING, RING, LANE, LANE, PITS))
        if kind == RING:
            alice[f"c{i}"] = (RING, ring.pop())
        elif kind == LANE and lane:
            alice[f"c{i}"] = (LANE, lane.pop())
    bob = {f"c{i}": (RING, ring.pop()) for i in range(1, 3) if rng.random() < 0.7}
    return alice, bob


def _tried(state) -> list[str]:
    """Every fully written play of alice's hand: each car, count, split order, come-out and swap."""
    lines = []
    ids = [f"c{i}" for i in range(1, 6)]
    for card in dict.fromkeys(state.hand(A).cards):
        base = f"/play card:{card}"
        lines.append(f"{base} move:out")
        if card == cards.JOKER:
            sources = [c.id for c in state.cars_of(A) if c.where != PITS] + ["pits"]  # a pit car is 'pits'
            lines += [f"{base} move:swap car:{s} target:{t}" for s in sources for t in ids]
            continue
        values = cards.forward_values(card)
        written = len(values) > 1 or cards.rank(card) in ("J", "Q", "K")
        for car in ids:
            lines += [f"{base} car:{car} move:{v}" for v in values] if written else [f"{base} car:{car}"]
        if cards.rank(card) == "7":
            lines += [f"{base} split:{a}:{n},{b}:{7 - n}" for a, b in itertools.permutations(ids, 2)
                      for n in range(1, 7)]
    return lines


def _result(state, line: str):
    try:
        return play(state, A, line)[0]
    except GameError:
        return None


def test_the_listed_plays_are_exactly_those_the_game_takes_under_every_option():
    """For revisions 5 and 6 and each combination of the finish rulings, random crowded positions: every
    listed command is taken, every written play the game takes is listed (a split in one of its two
    orders, both giving the same cars' places), and discards are offered exactly when they are taken."""
    rng = random.Random(6)
    for revision in (5, REVISION):
        for values in itertools.product(*RULING_VALUES.values()):
            options = {"revision": revision, **dict(zip(RULING_VALUES, values, strict=True))}
            for _ in range(6):
                alice, bob = _position(rng)
                hand = tuple(rng.sample(("7H", "7S", "9H", "10H", "AH", "KH", "2H", "3H", "4H", "5H", "6H", "8H",
                                         "JK"), 3))
                state = table(alice_hand=hand, alice=alice, bob=bob, options=options)
                listed = commands(state, A)
                plays = {line for line in listed if line.startswith("/play")}
                for line in plays:
                    assert _result(state, line) is not None, (options, alice, bob, line)
                for line in _tried(state):
                    after = _result(state, line)
                    if after is None or line in plays:
                        continue
                    head, _, split = line.partition(" split:")
                    assert split, (options, alice, bob, line)
                    first, second = split.split(",")
                    other = f"{head} split:{second},{first}"
                    assert other in plays and _result(state, other).cars == after.cars, (options, alice, bob, line)
                discards = [line for line in listed if line.startswith("/discard")]
                assert bool(discards) == (_result(state, f"/discard card:{hand[0]}") is not None), (options, line)
