"""No cross-game suite skips a registered game (issue 37, item 2): each is parametrized by the registry
(tests/examples.py), every game set up by its own example opening, so a game that is registered (a plug-in
included) is covered by them all with no line of theirs naming it."""

from __future__ import annotations

import importlib

import pytest

from bot.cli.bench_games import _opening
from rules.registry import get_ruleset, ruleset_ids
from tests.examples import games_with

# (module, test): the suites that hold for every game, and the games each must cover.
EVERY_GAME = (
    ("tests.test_contract", "test_every_registered_games_example_opening_starts_it_waiting_on_a_players_move"),
    ("tests.test_seats", "test_a_seat_offered_and_taken_with_the_button_passes_the_turn_pings_and_clock"),
    ("tests.test_seats", "test_the_computer_plays_a_seat_until_its_player_takes_it_back"),
    ("tests.test_seats", "test_the_host_or_an_admin_acts_for_a_vanished_player_and_nobody_else"),
    ("tests.test_seats", "test_a_resignation_follows_each_games_ruling"),
    ("tests.test_seat_powers", "test_the_host_acts_on_a_seat_only_once_its_player_is_gone_and_the_player_is_pinged"),
    ("tests.test_seat_powers", "test_random_games_never_wait_on_a_resigned_seat"),
    ("tests.test_rollback", "test_every_game_rolls_back_replays_and_verifies"),
    ("tests.test_table_model", "test_the_whole_table_keeps_its_invariants"),
    ("tests.test_table_model", "test_the_whole_table_keeps_its_invariants_longer"),
    ("tests.test_secrets", "test_no_games_dice_seed_reaches_an_output_before_the_end"),
    ("tests.test_fuzz_commands", "test_random_commands_never_crash_the_service_and_refusals_change_nothing"),
    ("tests.test_help", "test_help_lists_what_the_asker_can_do_now_and_whose_turn_it_is"),
    ("tests.test_help", "test_every_command_of_every_game_is_explained_with_an_example_that_reads"),
    ("tests.test_rules_text", "test_rules_lists_the_topics_answers_one_and_finds_a_word"),
    ("tests.test_rules_text", "test_every_command_a_game_points_to_the_rules_for_names_a_topic_of_its_rules"),
    ("tests.test_rules_doc", "test_every_cited_test_exists"),
    ("tests.test_rules_doc", "test_every_game_documents_its_seats_rollbacks_and_revisions"),
)
WITH_ORDERS = (("tests.test_orders", "test_a_question_an_order_covers_is_answered_at_once_and_the_game_replays"),)


def covered(module: str, name: str) -> tuple:
    """The games a test is parametrized by."""
    test = getattr(importlib.import_module(module), name)
    (mark,) = [m for m in getattr(test, "pytestmark", []) if m.name == "parametrize"]
    return tuple(mark.args[1])


@pytest.mark.parametrize(("module", "name"), EVERY_GAME)
def test_every_cross_game_suite_covers_every_registered_game(module, name):
    assert covered(module, name) == ruleset_ids()


@pytest.mark.parametrize(("module", "name"), WITH_ORDERS)
def test_the_standing_orders_suite_covers_every_game_that_asks_questions(module, name):
    assert covered(module, name) == games_with("orders") and games_with("orders")


def test_the_bench_plays_every_games_own_example_opening():
    for ruleset_id in ruleset_ids():
        ruleset = get_ruleset(ruleset_id)
        assert [(a.id, line) for a, line in _opening(ruleset, 4)] == ruleset.example.lines(ruleset_id, 4)
