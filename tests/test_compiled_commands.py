"""Commands routed by type (issue 37 item 4): every command of the grammar compiles into a type the
service has one handler for, the table's queries each one answer, and a game's moves go to its rules."""

from __future__ import annotations

import pytest

from bot.table.protocol import compiled as typed
from bot.table.protocol.commands import TABLE_COMMANDS, Command, command_table, parse
from rules.registry import rulesets

# The table commands whose outcome the game's rules referee (rules.seats.seat_command_action).
REFEREED = {"game join", "game add-ai", "game start", "game end", "game takeover", "game resign", "game seat give",
            "game seat take", "game seat computer"}


def test_every_command_of_the_grammar_has_one_handler_in_the_service(service):
    for spec in command_table().commands:
        compiled = typed.compiled(_with_required(spec.name))
        handler = typed.handler_of(service._handlers, compiled)
        assert callable(handler), spec.name
        if spec.query and not isinstance(compiled, typed.Query):   # read elsewhere than Asking.query
            assert type(compiled) in service._handlers, spec.name


def _with_required(name: str) -> Command:
    """Command `name` with a value for each option it requires (what the parser makes sure of)."""
    samples = {"int": 1, "file": b"{}"}
    spec = command_table().by_name[name]
    return Command(name, {o.name: samples.get(o.kind, o.choices[0] if o.choices else "x")
                          for o in spec.options if o.required})


def test_each_table_query_has_its_own_answer(service):
    answers = service._asking._answers
    for spec in TABLE_COMMANDS:
        compiled = typed.compiled(_with_required(spec.name))
        if isinstance(compiled, typed.Query):
            assert spec.name in command_table().queries and type(compiled) in answers, spec.name
    own = [name for game in rulesets() for name in game.queries]
    assert own and all(type(typed.compiled(Command(name, {}))) is typed.GameQuery for name in own)
    assert typed.GameQuery in answers


def test_the_table_commands_each_compile_into_their_own_type_and_moves_stay_the_games():
    table = {spec.name for spec in TABLE_COMMANDS} - REFEREED
    kinds = {spec: type(typed.compiled(_with_required(spec))) for spec in table}
    assert typed.Play not in kinds.values() and typed.GameQuery not in kinds.values()
    assert all(spec in kind.names for spec, kind in kinds.items())
    for name in REFEREED | {spec.name for game in rulesets() for spec in game.grammar.commands if not spec.query}:
        assert type(typed.compiled(Command(name, {}))) is typed.Play, name


def test_options_become_typed_fields():
    assert typed.compiled(parse("/game pause hours:3")) == typed.Pause(hours=3)
    assert typed.compiled(parse("/rules topic:finish")) == typed.Rules(topic="finish", page=1)
    assert typed.compiled(parse("/game follow")) == typed.Follow(mode="round")
    assert typed.compiled(parse("/help command:move")) == typed.Help(command="move")
    assert typed.compiled(parse("/new track seed:3")) == typed.NewGame({"ruleset": "track", "seed": 3})
    assert typed.compiled(parse("/game new ruleset:track seed:3")) == typed.NewGame({"ruleset": "track", "seed": 3})
    move = parse("/speed value:2")
    assert typed.compiled(move) == typed.Play(move)


def test_a_name_compiles_into_one_type_only():
    with pytest.raises(ValueError, match="already compiled"):
        typed.named("game pause")(type("Again", (typed.TableCommand,), {}))

