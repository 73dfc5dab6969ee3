"""A move the race lists is a move it accepts typed as listed (issue 36, item 15): a racer between two others
is offered an attack on each, never a bare `/act maneuver:attack` it would refuse as naming nobody."""

from __future__ import annotations

from bot.table.protocol.commands import for_game, parse
from rules.race.ruleset import RULESET
from tests.race_helpers import race, turn_of


def _typed(line: str):
    command = for_game(RULESET, parse(line))
    return RULESET.command_to_action(command.name, command.options)


def test_every_listed_action_of_a_racer_between_two_others_is_accepted_typed_as_listed():
    for seed in range(1, 6):
        state = turn_of(race("ann", "bob", "cy", seed=seed), "r2")   # bob, with a racer ahead and one behind
        listed = RULESET.legal_actions(state, "bob")
        attacks = [a for a in listed if a.command.startswith("/act maneuver:attack")]
        assert [a.command for a in attacks] == ["/act maneuver:attack target:r1", "/act maneuver:attack target:r3"]
        assert [a.label.split()[-1] for a in attacks] == ["ann", "cy"]
        for offered in listed:
            after, _events = RULESET.apply(state, "bob", _typed(offered.command))   # refused: an exception
            shot = [e for e in _events if "attack with" in str(getattr(e, "purpose", ""))]
            if offered in attacks:
                assert shot and offered.label.split()[-1] in str(_events), offered.command


def test_a_racer_with_one_target_is_offered_the_attack_alone():
    state = turn_of(race("ann", "bob", seed=1), "r2")
    attacks = [a.command for a in RULESET.legal_actions(state, "bob") if "attack" in a.command]
    assert attacks == ["/act maneuver:attack"]
    RULESET.apply(state, "bob", _typed(attacks[0]))
