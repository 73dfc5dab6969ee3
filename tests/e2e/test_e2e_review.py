"""A finished game's review on the fake Discord (issue 40 item 5): refused privately while the game runs;
after the end, the final message's Review button gives whoever presses it (a spectator too) the review and
its chart privately, the same as /game review, and the final message stays as it was."""

from __future__ import annotations

from bot.table.service.review import NOT_YET
from tests.e2e.fake_discord import DEFERRED_UPDATE
from tests.e2e.test_e2e_discord import (
    assert_nothing_unexpected,
    assert_png,
    assert_public_map,
    buttons_of,
    lobby_of_two,
    press,
    slash,
)


async def test_the_final_messages_review_button_gives_the_review_and_its_chart_privately(fake, bot,
                                                                                         record_latency):
    await lobby_of_two(fake, record_latency)
    assert_public_map(await slash(fake, "alice", "channel", "game start"), record_latency)
    early = await slash(fake, "alice", "channel", "game review")   # the host too: answered privately, deferred so
    assert early.callback.body == {"type": 5, "data": {"flags": 64}}   # (a private query may take a while)
    (refused,) = early.followups
    assert refused.ephemeral and refused.content == NOT_YET and not refused.files
    assert not (await slash(fake, "alice", "channel", "game end")).rejected
    final = fake.public_history("channel")[-1]
    assert set(buttons_of(final)) == {"Rematch", "Review"}
    pressed = await press(fake, "carol", "channel", str(final["id"]), "Review")
    asked = await slash(fake, "bob", "channel", "game review")
    assert pressed.callback.body["type"] == DEFERRED_UPDATE   # a press is acknowledged without a word
    (followup,) = [f for f in pressed.followups if f.files]
    (typed,) = [f for f in asked.followups if f.files]
    assert typed.ephemeral and typed.content == followup.content and typed.files[0].data == followup.files[0].data
    assert followup.ephemeral and "**Review of Speedway game 1**" in followup.content
    assert "The chart: each seat's damage boxes left by round." in followup.content
    (chart,) = followup.files
    assert chart.filename == "pitboss-review-1.png"
    assert_png(chart.data)
    assert fake.message(str(final["id"]))["content"] == final["content"]   # the final message is left as it was
    assert_nothing_unexpected(fake, bot)
