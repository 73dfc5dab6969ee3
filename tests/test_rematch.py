"""`/game rematch` (issue 38 finding 14): after a game ends, the same game, options, cars and seats again with new
dice and the seat order turned by one; every person seated at the end says yes or no; a no leaves that seat
open in the new game's lobby; the finished game keeps its record."""

from __future__ import annotations

import json

import pytest

from bot.table.protocol.commands import parse
from bot.table.protocol.replies import REMATCH_PREFIX, Actor
from bot.table.service import rematch
from rules.registry import get_ruleset
from tests.examples import games, lines, third_join

CHANNEL = "again"
SEED = 5


async def run(service, user, line, channel=CHANNEL):
    return await service.execute(channel, Actor(user, user), parse(line))


async def press(service, user, custom_id, channel=CHANNEL):
    return await service.press(channel, Actor(user, user), custom_id)


@pytest.fixture(autouse=True)
def fixed_seed(monkeypatch):
    """The rematch's dice are fixed, as a test's are."""
    monkeypatch.setattr(rematch, "new_seed", lambda: 77)


async def ended(service, store, game, extra=()):
    """The example opening of `game` (with `extra` lines before its start), ended by its host: the final
    reply."""
    opening = lines(game, SEED, start=False)
    for user, line in [*opening, *extra, lines(game, SEED)[-1]]:
        assert (await run(service, user, line)).outcome == "applied", (user, line)
    host = get_ruleset(game).example.host
    final = await run(service, host, "/game end")
    assert final.outcome == "applied", final.text
    return final


def seated(store_state):
    return [(p.id, p.name) for p in store_state.players]


@pytest.mark.parametrize("game", games())
async def test_a_rematch_of_every_game_turns_the_seats_and_starts_when_all_said_yes(service, store, game):
    """Every game: the final message has a Rematch button; it proposes; the other player's yes makes the new game,
    started, with the same options and the seats turned by one; the finished game keeps its record."""
    final = await ended(service, store, game)
    button = next(b for b in final.buttons if b.label == "Rematch")
    old = await store.latest_game(CHANNEL)
    ruleset = get_ruleset(game)
    before = ruleset.load_state(old.state)
    people = [p.id for p in before.players if not p.id.startswith("ai-") and p.id != before.host] or \
        [p.id for p in before.players if not p.id.startswith("ai-")]
    proposer = get_ruleset(game).example.host
    asked = await press(service, proposer, button.custom_id)
    assert asked.outcome == "shown" and not asked.ephemeral, asked.text
    assert "proposes a rematch" in asked.text and proposer not in asked.mentions
    assert await store.active_game(CHANNEL) is None   # nothing made before everyone answered
    for person in [p for p in people if p != proposer]:
        reply = await run(service, person, "/game rematch")
    assert reply.outcome == "applied", reply.text
    new = await store.active_game(CHANNEL)
    assert new is not None and new.id != old.id and new.seed == 77 and f"game {new.id}" in reply.text
    after = ruleset.load_state(new.state)
    assert after.phase != "lobby"
    racers = [name for _id, name in seated(before) if (_id, name) in seated(after)]
    old_order = [n for _i, n in seated(before) if n in racers]
    assert [n for _i, n in seated(after) if n in racers] == old_order[1:] + old_order[:1]
    kept = {k: v for k, v in json.loads(old.options).items() if k != "revision"}
    assert {k: v for k, v in json.loads(new.options).items() if k != "revision"} == kept
    finished = await store.game(old.id)
    assert finished.status == "finished" and finished.state == old.state
    assert (await service.replay_matches(new)) and (await service.replay_matches(finished))
