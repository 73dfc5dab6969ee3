"""The command grammar: the table's commands plus each ruleset's, within Discord's limits."""

from __future__ import annotations

import importlib

import pytest

from bot.table.protocol.commands import (
    TABLE_COMMANDS,
    Command,
    CommandSyntaxError,
    build_grammar,
    coerce,
    command_table,
    declaring,
    for_game,
    lookup,
    parse,
)
from rules.grammar import SHARED_WORDS, CommandSpec, Grammar, OptionSpec
from rules.registry import GAMES, declarations, get_ruleset, ruleset_ids

SPEEDWAY, TRACK = get_ruleset("speedway"), get_ruleset("track")
SPEEDWAY_MANEUVERS = next(o for o in lookup("move").options if o.name == "maneuver").choices


def test_every_command_fits_discords_limits():
    for spec in command_table().commands:
        assert 1 <= len(spec.description) <= 100, spec.name
        assert len(spec.options) <= 25, spec.name
        required_seen_last = [o.required for o in spec.options]
        assert required_seen_last == sorted(required_seen_last, reverse=True), "required options come first"
        for option in spec.options:
            assert 1 <= len(option.description) <= 100, (spec.name, option.name)
            assert len(option.choices) <= 25, (spec.name, option.name)
            assert option.name.islower() and len(option.name) <= 32


def test_the_grammar_is_the_table_plus_each_rulesets_own():
    names = {spec.name for spec in command_table().commands}
    assert names == {s.name for s in TABLE_COMMANDS} | {s.name for r in ruleset_ids()
                                                      for s in get_ruleset(r).grammar.commands}
    assert {"speed", "move", "fire", "odds"} <= {s.name for s in SPEEDWAY.grammar.commands}
    assert {s.name for s in TRACK.grammar.commands} == {"play", "discard", "hand"}
    new = {o.name for o in lookup("game new").options}
    assert {"arena", "seven_may_split", "joker_forced", "board", "rounds", "seed"} <= new
    assert {o.name for o in lookup("game join").options} == {"car", "vehicle", "pilot"}
    assert set(command_table().queries) >= {"odds", "hand", "game status", "game log", "game export"}
    assert "play" not in command_table().queries and "game new" not in command_table().queries


def test_the_grammar_read_without_the_games_rules_is_the_one_they_declare():
    """command_table reads each game's commands from its declaration (rules/<id>/commands.py for a built-in
    game) instead of loading its rules: the same objects its ruleset holds, and a table command looked up
    without any game's commands is the merged grammar's own."""
    assert [(d.id, d.grammar) for d in declarations()] == [(r, get_ruleset(r).grammar) for r in ruleset_ids()]
    assert all(d.grammar is get_ruleset(d.id).grammar for d in declarations())
    for game in GAMES:   # what declarations reads for a game not loaded yet is its ruleset's grammar
        assert importlib.import_module(f"rules.{game}.commands").GRAMMAR is get_ruleset(game).grammar, game
    assert build_grammar(declarations()) == build_grammar([get_ruleset(r) for r in ruleset_ids()])
    for spec in TABLE_COMMANDS:
        assert lookup(spec.name) == command_table().by_name[spec.name], spec.name
    assert lookup("new") == command_table().by_name["game new"]


def test_only_the_games_declaring_a_command_take_it_as_a_plan():
    """The service asks only the games that declare a command whether it is a plan (bot.table.service.acting):
    no game takes another's command, or a table command, as one of its plans, whatever its options."""
    every_option = {o.name: "x" for spec in command_table().commands for o in spec.options}
    for name in command_table().by_name:
        asked = {r.id for r in declaring(name)}
        assert asked == {r for r in ruleset_ids() if any(s.name == name for s in get_ruleset(r).grammar.commands)}
        for ruleset_id in set(ruleset_ids()) - asked:
            plans = get_ruleset(ruleset_id).plans
            assert plans is None or not plans.is_plan(name, every_option), (ruleset_id, name)
    assert {r.id for r in declaring("move") if r.plans is not None} >= {"speedway", "battlecars"}
    assert declaring("game join") == ()


def test_two_games_may_share_a_verb_with_options_of_their_own():
    toy_move = CommandSpec("move", "Toy: step one square", (
        OptionSpec("direction", "str", "Where to", required=True, choices=("north", "south")),
        OptionSpec("maneuver", "str", "Toy's own maneuvers", choices=("hop",)),
    ))
    seat = OptionSpec("car", "int", "Seat number", min_value=1, max_value=9)
    toy = TRACK.variant(id="toy", title="Toy", grammar=Grammar(commands=(toy_move,), join_options=(seat,)),
                  round_cap=None)
    shared = {spec.name: spec for spec in build_grammar((SPEEDWAY, toy))}
    move = {o.name: o for o in shared["move"].options}
    # One /move, with the options of both: what one game declares alone is its own, words and all.
    assert {"maneuver", "plan", "skid", "direction"} <= set(move)
    assert move["skid"] == next(o for o in SPEEDWAY.grammar.commands[1].options if o.name == "skid")
    assert not move["direction"].required  # Speedway's /move has no direction
    # Declared differently (other choices, another type): text the channel's game suggests, in
    # neutral words, never the two descriptions run together.
    assert (move["maneuver"].kind, move["maneuver"].choices, move["maneuver"].suggest) == ("str", (), True)
    assert move["maneuver"].description == "maneuver: as this channel's game takes it, suggested as you type"
    car = {o.name: o for o in shared["game join"].options}["car"]
    assert (car.kind, car.suggest) == ("str", True)  # a name in one, a number in the other
    assert shared["move"].description == SHARED_WORDS["move"]
    # Each game accepts only its own declaration.
    assert for_game(toy, Command("move", {"direction": "north", "maneuver": "hop"})).options["maneuver"] == "hop"
    for wrong in ({"direction": "north", "maneuver": "turn-left"}, {"maneuver": "hop"}, {"direction": "east"},
                  {"direction": "north", "skid": "resist"}):
        with pytest.raises(CommandSyntaxError):
            for_game(toy, Command("move", wrong))
    for wrong in ({"direction": "north"}, {"maneuver": "hop"}):
        with pytest.raises(CommandSyntaxError):
            for_game(SPEEDWAY, Command("move", wrong))
    assert for_game(toy, Command("game join", {"car": "3"})).options["car"] == 3


def test_a_shared_option_keeps_the_type_the_games_agree_on():
    def game(ruleset_id: str, low: int, high: int, words: str, required: bool = True):
        verb = CommandSpec("speed", f"{ruleset_id}: set a speed", (
            OptionSpec("value", "int", words, required=required, min_value=low, max_value=high),))
        return TRACK.variant(id=ruleset_id, title=ruleset_id, grammar=Grammar(commands=(verb,)), round_cap=None)

    shared = {spec.name: spec for spec in build_grammar((game("a", 0, 9, "Up to 9"), game("b", 2, 40, "2 to 40")))}
    (value,) = shared["speed"].options
    assert (value.kind, value.min_value, value.max_value, value.required, value.suggest) == ("int", 0, 40, True, False)
    assert value.description == SHARED_WORDS["speed value"] and shared["speed"].description == SHARED_WORDS["speed"]
    assert for_game(game("a", 0, 9, "Up to 9"), Command("speed", {"value": 7})).options["value"] == 7
    with pytest.raises(CommandSyntaxError):
        for_game(game("a", 0, 9, "Up to 9"), Command("speed", {"value": 30}))
    # Required only where every game sharing the verb requires it.
    loose = {s.name: s for s in build_grammar((game("a", 0, 9, "x"), game("b", 0, 9, "x", required=False)))}
    assert not loose["speed"].options[0].required


def test_the_command_line_takes_the_game_as_a_word_or_as_ruleset():
    assert parse("/game new speedway seed:3") == parse("/game new ruleset:speedway seed:3") == \
        Command("game new", {"ruleset": "speedway", "seed": 3})
    assert parse("/game new track").options == {"ruleset": "track"}
    with pytest.raises(CommandSyntaxError, match="ruleset: must be one of"):
        parse("/game new chess")
    with pytest.raises(CommandSyntaxError, match="given twice"):
        parse("/game new speedway ruleset:track")
    with pytest.raises(CommandSyntaxError, match="not an option"):
        parse("/game join speedway")


def test_no_number_of_setup_options_stops_the_grammar():
    many = tuple(OptionSpec(f"ruling_{i}", "str", f"Ruling {i}", choices=("true", "false")) for i in range(40))
    big = TRACK.variant(id="big", title="Big", grammar=Grammar(new_options=many), round_cap=None)
    new = {spec.name: spec for spec in build_grammar((SPEEDWAY, TRACK, big))}["game new"]
    assert {f"ruling_{i}" for i in range(40)} <= {o.name for o in new.options}
    assert coerce(new, {"ruleset": "track", "ruling_39": "TRUE"}).options["ruling_39"] == "true"


def test_a_game_cannot_take_a_table_command_or_mix_a_query_with_an_action():
    with pytest.raises(ValueError, match="table command"):
        build_grammar((TRACK.variant(id="x", grammar=Grammar(commands=(CommandSpec("undo", "mine"),)),
                               round_cap=None),))
    looks = TRACK.variant(id="x", grammar=Grammar(commands=(CommandSpec("move", "a look", query=True),)),
                    round_cap=None)
    with pytest.raises(ValueError, match="query in one game"):
        build_grammar((SPEEDWAY, looks))
