"""The game contract (issue 37 item 1): a game is a Ruleset subclass with defaults, the referee and a turn
check inside it, each fact declared once, and a required example opening that starts it through the real
service."""

from __future__ import annotations

import pytest

from bot.table.protocol.commands import parse
from bot.table.protocol.replies import Actor
from rules.engine import ExampleOpening, Ruleset
from rules.errors import NotSeated, NotYourTurn
from rules.registry import get_ruleset, ruleset_ids
from rules.table import EndGame, Resign, TablePhase, TakeOver
from tests.toy.rules import Declare, Join, Start, Toy


@pytest.mark.parametrize("ruleset_id", ruleset_ids())
async def test_every_registered_games_example_opening_starts_it_waiting_on_a_players_move(service, store,
                                                                                          ruleset_id):
    ruleset = get_ruleset(ruleset_id)
    opening = ruleset.example
    for player, line in opening.lines(ruleset_id, seed=3):
        reply = await service.execute(f"ex-{ruleset_id}", Actor(player, player), parse(line))
        assert reply.outcome == "applied", (line, reply.text)
    state = ruleset.load_state((await store.active_game(f"ex-{ruleset_id}")).state)
    seated = {seat.id for seat in state.players}
    assert len(seated) >= 2 and seated <= {player for player, _ in opening.commands}
    waiting = ruleset.acting_players(state)
    assert waiting and not ruleset.is_finished(state)
    assert any(a.action is not None for a in ruleset.legal_actions(state, waiting[0]))


def test_a_game_without_an_example_opening_or_a_core_operation_cannot_be_made():
    own = {name: value for name, value in vars(Toy).items() if not name.startswith("__")}
    with pytest.raises(TypeError, match="example"):
        type("NoExample", (Ruleset,), {k: v for k, v in own.items() if k != "example"})()
    with pytest.raises(TypeError, match="prompt"):
        type("NoPrompt", (Ruleset,), {k: v for k, v in own.items() if k != "prompt"})()
    with pytest.raises(ValueError, match="two players"):
        ExampleOpening("", (("ann", "/game join"), ("ann", "/game start")))


class Plain(Toy):
    """The toy with the contract's defaults: the base's turn check, and an after-step that notes its calls."""

    check_turn = Ruleset.check_turn
    calls: list = []

    def after(self, state, actor, action):
        self.calls.append((actor, action))
        return state, ()


def test_the_turn_is_checked_by_default_and_the_after_step_is_told_the_action_but_not_run_in_the_lobby():
    game = Plain()
    state = game.setup({}, 1, "ann")
    for actor, action in (("ann", Join("ann")), ("ben", Join("ben")), ("ann", Start())):
        state, _ = game.apply(state, actor, action)
    assert game.calls == []
    state, _ = game.apply(state, "ann", Declare("north"))
    assert game.calls == [("ann", Declare("north"))]
    with pytest.raises(NotYourTurn):
        game.apply(state, "ann", Declare("east"))
    with pytest.raises(NotSeated):
        game.apply(state, "zed", Declare("east"))


def test_each_fact_is_declared_once():
    toy, track = get_ruleset("toy"), get_ruleset("track")
    state = toy.setup({}, 1, "ann")
    # The table's commands are every game's, translated in one place.
    assert toy.command_to_action("game end", {"by_admin": True}) == EndGame(True)
    assert track.command_to_action("game takeover", {}) == TakeOver(False)
    assert toy.command_to_action("game resign", {"player": "ben"}) == Resign("ben")
    # Over is what the phase table says is after the game; the game's finished phase is the table's.
    ended, _ = toy.apply(state, "ann", EndGame())
    assert toy.is_finished(ended) and not toy.is_finished(state) and toy.finished == TablePhase.FINISHED
    # The referee lets the computer take a seat exactly where the game has computer seats.
    assert track.computer_refuses(state, "ann") == ""
    assert track.variant(computer=None).computer_refuses(state, "ann") == "This game has no computer player."
