"""The command grammar: the table's commands plus each ruleset's, within Discord's limits."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot.table.protocol.commands import (
    COMMANDS,
    QUERIES,
    TABLE_COMMANDS,
    Command,
    CommandSyntaxError,
    build_grammar,
    for_game,
    lookup,
)
from rules.grammar import CommandSpec, Grammar, OptionSpec
from rules.registry import get_ruleset, ruleset_ids

SPEEDWAY, TRACK = get_ruleset("speedway"), get_ruleset("track")
SPEEDWAY_MANEUVERS = next(o for o in lookup("move").options if o.name == "maneuver").choices


def test_every_command_fits_discords_limits():
    for spec in COMMANDS:
        assert 1 <= len(spec.description) <= 100, spec.name
        assert len(spec.options) <= 25, spec.name
        required_seen_last = [o.required for o in spec.options]
        assert required_seen_last == sorted(required_seen_last, reverse=True), "required options come first"
        for option in spec.options:
            assert 1 <= len(option.description) <= 100, (spec.name, option.name)
            assert len(option.choices) <= 25, (spec.name, option.name)
            assert option.name.islower() and len(option.name) <= 32


def test_the_grammar_is_the_table_plus_each_rulesets_own():
    names = {spec.name for spec in COMMANDS}
    assert names == {s.name for s in TABLE_COMMANDS} | {s.name for r in ruleset_ids()
                                                      for s in get_ruleset(r).grammar.commands}
    assert {"speed", "move", "fire", "odds"} <= {s.name for s in SPEEDWAY.grammar.commands}
    assert {s.name for s in TRACK.grammar.commands} == {"play", "discard", "hand"}
    new = {o.name for o in lookup("game new").options}
    assert {"arena", "seven_may_split", "joker_forced", "board", "rounds", "seed"} <= new
    assert {o.name for o in lookup("game join").options} == {"car", "vehicle", "pilot"}
    assert set(QUERIES) >= {"odds", "hand", "game status", "game log", "game export"}
    assert "play" not in QUERIES and "game new" not in QUERIES


def test_two_games_may_share_a_verb_with_options_of_their_own():
    toy_move = CommandSpec("move", "Toy: step one square", (
        OptionSpec("direction", "str", "Where to", required=True, choices=("north", "south")),
        OptionSpec("maneuver", "str", "Toy's own maneuvers", choices=("hop",)),
    ))
    seat = OptionSpec("car", "int", "Seat number", min_value=1, max_value=9)
    toy = replace(TRACK, id="toy", title="Toy", grammar=Grammar(commands=(toy_move,), join_options=(seat,)),
                  round_cap=None)
    shared = {spec.name: spec for spec in build_grammar((SPEEDWAY, toy))}
    move = {o.name: o for o in shared["move"].options}
    # One /move on Discord, with the options of both; what both declare fits either.
    assert {"maneuver", "plan", "skid", "direction"} <= set(move)
    assert set(move["maneuver"].choices) == set(SPEEDWAY_MANEUVERS) | {"hop"}
    assert not move["direction"].required  # Speedway's /move has no direction
    assert {o.name: o.kind for o in shared["game join"].options}["car"] == "str"  # a name in one, a number in the other
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


def test_a_game_cannot_take_a_table_command_or_mix_a_query_with_an_action():
    with pytest.raises(ValueError, match="table command"):
        build_grammar((replace(TRACK, id="x", grammar=Grammar(commands=(CommandSpec("undo", "mine"),)),
                               round_cap=None),))
    looks = replace(TRACK, id="x", grammar=Grammar(commands=(CommandSpec("move", "a look", query=True),)),
                    round_cap=None)
    with pytest.raises(ValueError, match="query in one game"):
        build_grammar((SPEEDWAY, looks))
