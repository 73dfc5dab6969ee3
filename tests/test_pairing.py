"""Pairings of seasons and tournaments: every member seated once a call, round robins that meet every pair,
elimination rounds that spread the seeds, and a final table by points."""

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.table.league.pairing import (
    MAX_ROUNDS,
    Waiting,
    elimination_round,
    final_table,
    gated_out,
    round_robin,
    season_tables,
)

members = st.lists(st.text("abcdefghij", min_size=1, max_size=3), min_size=0, max_size=14, unique=True)
sizes = st.integers(min_value=2, max_value=6)


@given(members, sizes, st.data())
def test_a_season_seats_each_member_at_most_once_and_leaves_fewer_than_a_table(names, size, data):
    ratings = data.draw(st.lists(st.floats(-50, 50), min_size=len(names), max_size=len(names)))
    tables = season_tables([Waiting(m, r) for m, r in zip(names, ratings, strict=True)], size, {})
    seated = [m for table in tables for m in table]
    assert len(seated) == len(set(seated)) and set(seated) <= set(names)
    assert all(len(table) == size for table in tables)
    assert len(names) - len(seated) < size


def test_a_season_seats_neighbours_by_rating():
    waiting = [Waiting(name, rating) for name, rating in (("a", 30), ("b", 29), ("c", 10), ("d", 9))]
    assert season_tables(waiting, 2, {}) == [("a", "b"), ("c", "d")]


def test_a_season_avoids_a_repeat_pairing_when_a_near_rating_does_not_repeat():
    waiting = [Waiting(name, rating) for name, rating in (("a", 30), ("b", 29), ("c", 28), ("d", 9))]
    assert season_tables(waiting, 2, {frozenset(("a", "b")): 1})[0] == ("a", "c")


@settings(max_examples=60)
@given(st.integers(min_value=2, max_value=12), sizes)
def test_a_round_robin_meets_every_pair_and_seats_no_one_twice_a_round(count, size):
    names = [f"p{i}" for i in range(count)]
    rounds = round_robin(names, size)
    assert 0 < len(rounds) < MAX_ROUNDS
    met = set()
    for tables in rounds:
        seated = [m for table in tables for m in table]
        assert len(seated) == len(set(seated))
        assert all(2 <= len(table) <= size for table in tables)
        met |= {frozenset(pair) for table in tables for pair in itertools.combinations(table, 2)}
    assert met == {frozenset(pair) for pair in itertools.combinations(names, 2)}


def test_a_duel_round_robin_of_four_is_three_rounds_of_two_games_each_pair_once():
    rounds = round_robin(["a", "b", "c", "d"], 2)
    assert len(rounds) == 3 and all(len(tables) == 2 for tables in rounds)
    games = [frozenset(table) for tables in rounds for table in tables]
    assert len(games) == len(set(games)) == 6


def test_a_duel_round_robin_of_five_gives_each_member_one_bye():
    rounds = round_robin(["a", "b", "c", "d", "e"], 2)
    assert len(rounds) == 5
    resting = [({"a", "b", "c", "d", "e"} - {m for table in tables for m in table}).pop() for tables in rounds]
    assert sorted(resting) == ["a", "b", "c", "d", "e"]


@given(st.integers(min_value=1, max_value=40), sizes)
def test_an_elimination_round_balances_tables_and_spreads_the_top_seeds(count, size):
    names = [f"s{i}" for i in range(count)]
    tables = elimination_round(names, size)
    assert sorted(m for table in tables for m in table) == sorted(names)
    assert len(tables) == -(-count // size)
    assert max(map(len, tables)) - min(map(len, tables)) <= 1 and max(map(len, tables)) <= size
    tops = [table[0] for table in tables]
    assert tops == names[:len(tables)]


def test_an_elimination_of_five_duellists_gives_the_top_seed_the_bye():
    assert elimination_round(["1", "2", "3", "4", "5"], 2) == [("1",), ("2", "5"), ("3", "4")]


def test_the_final_table_counts_members_finished_ahead_of_and_halves_ties():
    games = [[["a"], ["b", "c"], ["d"]], [["b"], ["a"]], [["c", "d"]]]
    assert final_table(games, ["a", "b", "c", "d"]) == [("a", 3.0), ("b", 2.5), ("c", 2.0), ("d", 0.5)]


def test_the_final_table_breaks_equal_points_by_rating_then_id():
    games = [[["a"], ["b"]], [["b"], ["a"]]]
    assert final_table(games, ["a", "b"], {"b": 5.0, "a": 1.0}) == [("b", 1.0), ("a", 1.0)]
    assert final_table(games, ["b", "a"]) == [("a", 1.0), ("b", 1.0)]


@pytest.mark.parametrize("turns, lost, out", [(0, 0, False), (10, 1, False), (10, 2, True), (100, 10, False)])
def test_the_gate_turns_away_a_member_past_the_share_of_turns_lost(turns, lost, out):
    assert gated_out(turns, lost, 0.10) is out
