"""The command grammar: the table's commands plus each ruleset's, within Discord's limits."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot.commands import COMMANDS, QUERIES, TABLE_COMMANDS, build_grammar, lookup
from rules.engine import get_ruleset, ruleset_ids
from rules.grammar import CommandSpec, Grammar, OptionSpec

SPEEDWAY, TRACK = get_ruleset("speedway"), get_ruleset("track")


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
    assert {"arena", "seven_may_split", "joker_forced", "rounds", "seed"} <= new
    assert {o.name for o in lookup("game join").options} == {"car"}
    assert set(QUERIES) >= {"odds", "hand", "game status", "game log", "game export"}
    assert "play" not in QUERIES and "game new" not in QUERIES


def test_two_rulesets_may_not_declare_one_command_or_option_differently():
    clash = replace(TRACK, id="clash", grammar=Grammar(commands=(CommandSpec("move", "Another /move"),)))
    with pytest.raises(ValueError, match="/move is declared twice"):
        build_grammar((SPEEDWAY, clash))
    other_car = OptionSpec("car", "str", "A different car option")
    clash = replace(TRACK, id="clash", grammar=Grammar(join_options=(other_car,)))
    with pytest.raises(ValueError, match="option car: declared differently"):
        build_grammar((SPEEDWAY, clash))
    same_car = SPEEDWAY.grammar.join_options
    friendly = replace(TRACK, id="friendly", grammar=Grammar(join_options=same_car))
    assert build_grammar((SPEEDWAY, friendly))
