"""A move's picture is drawn while the move is written (Pictures.draw_ahead): it must be exactly the picture
drawn after the write, and a picture started for a state the reply does not show is dropped."""

from __future__ import annotations

import pytest

from bot.cli.bench_games import _opening, script
from bot.table.protocol.commands import parse
from bot.table.service.pictures import DrawnAhead, Pictures
from rules.registry import GAMES, get_ruleset


@pytest.mark.parametrize("ruleset_id", GAMES)
async def test_a_picture_drawn_ahead_is_the_one_drawn_after_the_write(service, store, monkeypatch, ruleset_id):
    ruleset = get_ruleset(ruleset_id)
    made: list[DrawnAhead] = []
    draw_ahead = Pictures.draw_ahead

    def counted(self, *args):
        ahead = draw_ahead(self, *args)
        if ahead is not None:
            made.append(ahead)
        return ahead
    monkeypatch.setattr(Pictures, "draw_ahead", counted)
    channel = f"ahead-{ruleset_id}"
    for actor, line in _opening(ruleset, 7):
        assert (await service.execute(channel, actor, parse(line))).outcome == "applied"
    pictures = service._acting._pictures
    made.clear()
    posted = 0
    for actor, line in script(ruleset, 7, 30):
        reply = await service.execute(channel, actor, parse(line))
        assert reply.outcome == "applied", (line, reply.text)
        if reply.image is None:
            continue
        posted += 1
        game = await store.active_game(channel) or await store.latest_game(channel)
        after = await pictures.with_map(ruleset, game, ruleset.load_state(game.state), "applied", "")
        assert reply.image == after.image, line
    # every picture posted was the one drawn ahead (no computer seat here, every move one step)
    assert posted >= 10 and len(made) == posted
    assert all(a.drawn.done() and not a.drawn.cancelled() for a in made)


async def test_a_picture_started_for_a_move_a_computer_answers_is_not_the_one_posted(service, store):
    """A move after which a computer seat plays at once draws no picture ahead (it would show the state
    before the computer's move); the reply's picture is of the state after it."""
    for user, line in (("alice", "/game new ruleset:speedway seed:4"), ("alice", "/game join car:Brawler"),
                       ("alice", "/game add-ai"), ("alice", "/game start")):
        assert (await service.execute("with-ai", _actor(user), parse(line))).outcome == "applied"
    ruleset = get_ruleset("speedway")
    pictures = service._acting._pictures
    for _ in range(6):
        game = await store.active_game("with-ai")
        state = ruleset.load_state(game.state)
        mine = [a for a in ruleset.legal_actions(state, "alice") if a.action is not None]
        reply = await service.execute("with-ai", _actor("alice"), parse(mine[0].command))
        assert reply.outcome == "applied"
        game = await store.active_game("with-ai")
        after = await pictures.with_map(ruleset, game, ruleset.load_state(game.state), "applied", "")
        assert reply.image == after.image


def _actor(name: str):
    from bot.table.protocol.replies import Actor

    return Actor(name, name)


async def test_a_picture_that_cannot_start_ahead_never_stops_the_move(service, store, monkeypatch):
    """Starting a move's picture ahead of its write fails (say no render process could start): the move is
    written all the same, and its reply draws the picture after the write."""
    from bot.table.jobs.drawing import Drawing

    ruleset = get_ruleset("speedway")
    for actor, line in _opening(ruleset, 7):
        assert (await service.execute("ahead-fails", actor, parse(line))).outcome == "applied"
    started = Drawing.picture
    calls = []

    def fails_first(self, *args):
        calls.append(args)
        if len(calls) == 1:
            raise OSError("fork failed")
        return started(self, *args)
    monkeypatch.setattr(Drawing, "picture", fails_first)
    actor, line = script(ruleset, 7, 1)[0]
    before = (await store.active_game("ahead-fails")).version
    reply = await service.execute("ahead-fails", actor, parse(line))
    assert reply.outcome == "applied" and reply.image is not None and len(calls) == 2
    assert (await store.active_game("ahead-fails")).version == before + 1
