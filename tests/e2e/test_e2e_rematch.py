"""A rematch through the real bot on the fake Discord (issue 38 finding 14): the final message's Rematch button
proposes it in one public question that pings the other player; a member not seated is refused privately; the
other player's Yes starts the new game, and the question is edited to say so, its buttons gone, as the final
message's Rematch button is."""

from __future__ import annotations

from tests.e2e.fake_discord import DEFERRED_UPDATE
from tests.e2e.test_e2e_discord import (
    assert_nothing_unexpected,
    assert_private_refusal,
    assert_public_map,
    buttons_of,
    lobby_of_two,
    press,
    slash,
)
from tests.e2e.test_e2e_rollback_votes import pinged, question_of


async def test_the_final_messages_rematch_button_and_the_answers_start_the_new_game(fake, bot, record_latency):
    await lobby_of_two(fake, record_latency)
    assert_public_map(await slash(fake, "alice", "channel", "game start"), record_latency)
    assert not (await slash(fake, "alice", "channel", "game end")).rejected
    final = fake.public_history("channel")[-1]   # the map and the final sheets
    assert "The game was ended by alice" in final["content"] and set(buttons_of(final)) == {"Rematch", "Review"}
    question = question_of(await press(fake, "alice", "channel", str(final["id"]), "Rematch"))
    assert pinged(fake, question) == {fake.users["bob"].id}
    assert "alice proposes a rematch of game 1" in fake.message(question)["content"]
    assert set(buttons_of(fake.message(question))) == {"Yes, rematch", "No thanks"}
    refused = await press(fake, "carol", "channel", question, "Yes, rematch")
    assert "Only the players seated" in assert_private_refusal(refused, record_latency, kind=DEFERRED_UPDATE)
    started = assert_public_map(await press(fake, "bob", "channel", question, "Yes, rematch"), record_latency,
                                kind=DEFERRED_UPDATE)
    assert "Rematch of game 1: game 2, Speedway" in started.content and "Next: Round 1" in started.content
    assert started.message_id != question
    assert fake.message(question)["content"] == "Agreed: the rematch of game 1 is game 2, below."
    assert not buttons_of(fake.message(question))
    # the final message keeps its words and loses its Rematch button: the game's one rematch is made (its
    # Review stays: it reads game 1 by its number)
    assert list(buttons_of(fake.message(final["id"]))) == ["Review"], fake.message(final["id"])
    assert fake.message(final["id"])["content"] == final["content"]
    reviewed = await press(fake, "carol", "channel", str(final["id"]), "Review")   # game 1's, while game 2 runs
    (review,) = [f for f in reviewed.followups if f.files]
    assert review.ephemeral and review.content.startswith("**Review of Speedway game 1**"), review.content
    assert_nothing_unexpected(fake, bot)
