"""A result by agreement through the real bot on the fake Discord (issue 38 finding 15): `/game propose` posts one
question naming the proposal on its buttons, pinging those it asks; a No ends it, edited to say so; a later
proposal's Yes from everyone ends the game, and the question is edited to its outcome with its buttons gone."""

from __future__ import annotations

from tests.e2e.fake_discord import DEFERRED_UPDATE, FakeDiscord
from tests.e2e.test_e2e_discord import (
    assert_acknowledged,
    assert_nothing_unexpected,
    assert_public_map,
    buttons_of,
    lobby_of_two,
    press,
    slash,
)
from tests.e2e.test_e2e_rollback_votes import pinged, question_of


async def test_a_draw_proposed_refused_then_an_end_agreed_with_the_buttons(fake: FakeDiscord, bot, record_latency):
    await lobby_of_two(fake, record_latency)
    assert_public_map(await slash(fake, "alice", "channel", "game start"), record_latency)
    users = {name: fake.users[name].id for name in ("alice", "bob")}

    draw = question_of(await slash(fake, "alice", "channel", "game propose", result="draw"))
    assert pinged(fake, draw) == {users["bob"]}
    assert set(buttons_of(fake.message(draw))) == {"Yes, a draw", "No"}
    assert "alice proposes a draw: the game ends now, drawn among the players still in (alice, bob)" in \
        fake.message(draw)["content"]
    await press(fake, "bob", "channel", draw, "No")
    assert fake.message(draw)["content"].startswith("Refused: alice proposed a draw, and bob voted no")
    assert not buttons_of(fake.message(draw))

    end = question_of(await slash(fake, "bob", "channel", "game propose", result="end"))
    assert pinged(fake, end) == {users["alice"]}
    done = await press(fake, "alice", "channel", end, "Yes, end the game")
    assert_acknowledged(done, record_latency, DEFERRED_UPDATE)
    assert not done.rejected, done.describe()
    (told,) = [r.body["content"] for r in done.requests if r.files]   # the end, with its map (and the replay)
    assert "The table agreed to end the game: it ends with no winner." in told
    assert "Game over: ended by agreement, with no winner." in told
    assert fake.message(end)["content"].startswith("Approved: bob proposed ending the game with no winner")
    assert not buttons_of(fake.message(end))
    assert_nothing_unexpected(fake, bot)
