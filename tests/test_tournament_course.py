"""A tournament's course without a table: sign-up, seeding by rating, rounds, byes, results and the final
table, and its stored form."""

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.table.league import tournament as course
from bot.table.league.tournament import TournamentError


def _play_out(t: course.Tournament, tables: list[course.Table], rng: random.Random) -> int:
    """Give every opened table a random result until the tournament ends; the number of games played."""
    game_id, played = 0, 0
    while tables:
        for table in tables:
            game_id += 1
            table.game_id = game_id
        opened, tables = tables, []
        for table in opened:
            members = list(table.members)
            rng.shuffle(members)
            order = [[m] for m in members] if rng.random() < 0.8 else [members]
            tables += course.record(t, table.game_id, order)
            played += 1
    return played


def test_a_round_robin_of_four_duellists_plays_six_games_to_a_final_table_by_points():
    t = course.new("round-robin", 2, 8)
    for member in "abcd":
        course.sign_up(t, member)
    tables = course.start(t, {"c": 30.0, "a": 20.0})
    assert t.seeds == ["c", "a", "b", "d"] and len(tables) == 2 and t.round == 1
    beats = {"c": 3, "a": 2, "b": 1, "d": 0}   # c beats everyone, a beats b and d, b beats d
    game = 0
    while tables:
        next_tables = []
        for table in tables:
            game += 1
            table.game_id = game
            first, second = sorted(table.members, key=lambda m: -beats[m])
            next_tables += course.record(t, game, [[first], [second]])
        tables = next_tables
    assert game == 6 and t.status == "finished"
    assert course.standing(t) == [("c", 3.0), ("a", 2.0), ("b", 1.0), ("d", 0.0)]


def test_the_next_round_opens_only_when_the_last_game_of_a_round_ends():
    t = course.new("round-robin", 2, 4)
    for member in "abcd":
        course.sign_up(t, member)
    first, second = course.start(t, {})
    first.game_id, second.game_id = 1, 2
    assert course.record(t, 1, [[first.members[0]], [first.members[1]]]) == []
    assert course.record(t, 1, [[first.members[1]], [first.members[0]]]) == []   # a result counts once
    assert len(course.record(t, 2, [second.members])) == 2 and t.round == 2


def test_an_elimination_of_five_gives_the_top_seed_a_bye_and_a_draw_sends_on_the_better_seed():
    t = course.new("elimination", 2, 8)
    for member in "abcde":
        course.sign_up(t, member)
    tables = course.start(t, {m: 50.0 - i for i, m in enumerate("abcde")})
    assert [tb.members for tb in tables] == [["b", "e"], ["c", "d"]]   # a sits out round 1
    tables[0].game_id, tables[1].game_id = 1, 2
    course.record(t, 1, [["e"], ["b"]])
    second = course.record(t, 2, [["c", "d"]])   # a draw: c, the better seed, goes on
    assert [tb.members for tb in t.current()] == [["a"], ["c", "e"]]   # three left: a sits out again
    assert [tb.members for tb in second] == [["c", "e"]]
    second[0].game_id = 3
    final = course.record(t, 3, [["e"], ["c"]])
    assert [tb.members for tb in final] == [["a", "e"]]
    final[0].game_id = 4
    assert course.record(t, 4, [["e"], ["a"]]) == [] and t.status == "finished"
    assert [m for m, _ in course.standing(t)][:2] == ["e", "a"]


@settings(max_examples=40)
@given(st.sampled_from(course.FORMATS), st.integers(2, 12), st.integers(2, 6), st.integers(0, 2**32 - 1))
def test_every_tournament_ends_with_every_entrant_on_its_final_table(fmt, count, size, seed):
    t = course.new(fmt, size, 16)
    members = [f"m{i}" for i in range(count)]
    for member in members:
        course.sign_up(t, member)
    rng = random.Random(seed)
    played = _play_out(t, course.start(t, {m: rng.random() for m in members}), rng)
    assert t.status == "finished" and played > 0
    assert sorted(m for m, _ in course.standing(t)) == sorted(members)
    if fmt == "elimination":
        assert len(t.current()) == 1 and not t.current()[0].bye


def test_a_stored_tournament_loads_as_it_was_and_a_newer_format_is_refused():
    t = course.new("elimination", 3, 6)
    for member in "abcd":
        course.sign_up(t, member)
    course.start(t, {})
    again = course.load(course.dump(t))
    assert again == t
    # a course stored before a table kept the rating's result (version 1, no "ended") loads as it was
    first = json.loads(course.dump(t))
    first["version"] = 1
    for table in first["tables"]:
        del table["ended"]
    assert course.load(json.dumps(first)) == t
    with pytest.raises(TournamentError):
        course.load(course.dump(t).replace('"version":2', '"version":3'))


@pytest.mark.parametrize("step, words", [
    (lambda t: course.sign_up(t, "a"), "signed up already"),
    (lambda t: course.withdraw(t, "z"), "not signed up"),
    (lambda t: [course.sign_up(t, "b"), course.sign_up(t, "c")], "full"),
])
def test_sign_up_refusals_say_why(step, words):
    t = course.new("round-robin", 2, 2)
    course.sign_up(t, "a")
    with pytest.raises(TournamentError, match=words):
        step(t)


def test_no_sign_up_after_the_start_and_no_start_alone():
    t = course.new("round-robin", 2, 4)
    course.sign_up(t, "a")
    with pytest.raises(TournamentError, match="at least two"):
        course.start(t, {})
    course.sign_up(t, "b")
    course.start(t, {})
    with pytest.raises(TournamentError, match="started"):
        course.sign_up(t, "c")
    with pytest.raises(TournamentError, match="format"):
        course.new("swiss", 2, 4)
