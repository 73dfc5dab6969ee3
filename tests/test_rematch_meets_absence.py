"""A rematch seats only those who said yes: a member blocked or forgotten since the game, never asked, leaves their
seat open (the game then waits in its lobby for anyone to join), as a no does."""

from __future__ import annotations

import pytest

from bot.table.protocol.commands import parse
from bot.table.protocol.replies import Actor
from bot.table.service import rematch
from rules.registry import get_ruleset
from tests.examples import lines, third_join

CHANNEL = "review"
SEED = 5


async def run(service, user, line, channel=CHANNEL, admin=False):
    return await service.execute(channel, Actor(user, user, admin), parse(line), guild="g")


@pytest.fixture(autouse=True)
def fixed_seed(monkeypatch):
    monkeypatch.setattr(rematch, "new_seed", lambda: 77)


async def three_of(service, game, seed=SEED):
    opening = lines(game, seed, start=False)
    for user, line in [*opening, third_join(game), lines(game, seed)[-1]]:
        assert (await run(service, user, line)).outcome == "applied", (user, line)


async def test_a_rematch_does_not_seat_a_member_blocked_before_it_was_proposed(service, store):
    """A Battlecars game of three ends; the operator blocks cal; ann proposes a rematch (cal, blocked, is not
    asked) and ben says yes. The rematch is made: cal never agreed and cannot play (every command of his is
    refused), so his seat must stay open, as a no leaves it. rematch._made seats everyone not in `declined`,
    and cal, never asked, never answered: he is seated and the game starts waiting on a member who cannot act."""
    await three_of(service, "battlecars")
    assert (await run(service, "ann", "/game end")).outcome == "applied"
    assert (await service.control("user", "cal", True)).outcome == "shown"
    asked = await run(service, "ann", "/game rematch")
    assert "cal" not in asked.mentions, asked.text
    made = await run(service, "ben", "/game rematch")
    assert made.outcome == "applied", made.text
    state = get_ruleset("battlecars").load_state((await store.active_game(CHANNEL)).state)
    assert state.player("cal") is None, (made.text, [p.id for p in state.players])


async def test_a_rematch_does_not_seat_the_pseudonym_of_a_member_who_forgot_themselves(service, store):
    """cal resigns a Battlecars game of three and has the bot forget him; the game ends and ann and ben agree to a
    rematch (cal's pseudonym is not asked). /me forget's ruling: his seat opens in the next game. _made seats every
    seat whose holder is not in `declined`, and the pseudonym never answered: the new game seats `forgotten-…`,
    an id nobody can play, and starts waiting on it."""
    await three_of(service, "battlecars")
    assert (await run(service, "cal", "/game resign confirm:yes")).outcome == "applied"
    assert (await run(service, "cal", "/me forget confirm:yes")).outcome != "refused"
    assert (await run(service, "ann", "/game end")).outcome == "applied"
    assert (await run(service, "ann", "/game rematch")).outcome == "shown"
    made = await run(service, "ben", "/game rematch")
    assert made.outcome == "applied", made.text
    state = get_ruleset("battlecars").load_state((await store.active_game(CHANNEL)).state)
    assert not [p.id for p in state.players if p.id.startswith("forgotten-")], [p.id for p in state.players]
