"""Only the live turn message carries live buttons (issue 38, item 6): a public /game status posted with the
acting player's buttons becomes the turn's message, so a press on it is played there; the message it
supersedes loses its buttons and its clock (item 5), by an interaction's route, not the global-bound channel."""

from __future__ import annotations

from tests.e2e.fake_discord import DEFERRED_UPDATE
from tests.e2e.test_e2e_discord import (
    assert_nothing_unexpected,
    assert_public_map,
    buttons_of,
    lobby_of_two,
    next_player,
    press,
    slash,
)


async def test_a_public_status_becomes_the_live_turn_message(fake, bot, record_latency):
    await lobby_of_two(fake, record_latency)
    started = assert_public_map(await slash(fake, "alice", "channel", "game start"), record_latency)
    active = next_player(started)
    assert "⏰" in started.content and started.buttons
    channel_edits = len(fake.requests("channel_message_edit"))

    status = assert_public_map(await slash(fake, "carol", "channel", "game status"), record_latency)
    assert status.via == "followup" and "Speed 1" in status.buttons
    old = fake.message(started.message_id)
    assert old["components"] == [] and "The game started" in old["content"]
    assert "⏰" not in old["content"] and "<t:" not in old["content"] and "Next: " not in old["content"]
    assert len(fake.requests("channel_message_edit")) == channel_edits   # the retirement spent no global request

    # a press on the status is played on it (its own interaction edits it), not on the message above
    sped = assert_public_map(await press(fake, active, "channel", status.message_id, "Speed 1"), record_latency,
                             kind=DEFERRED_UPDATE)
    assert sped.via == "edit_original" and sped.message_id == status.message_id
    assert f"{active} set speed 0 -> 1" in fake.message(status.message_id)["content"]
    moved = assert_public_map(await press(fake, active, "channel", status.message_id, "normal"), record_latency,
                              kind=DEFERRED_UPDATE)
    assert moved.via == "followup" and moved.message_id != status.message_id   # the turn passed
    left = fake.message(status.message_id)
    assert left["components"] == [] and "⏰" not in left["content"] and f"{active} set speed" in left["content"]
    assert buttons_of(fake.message(moved.message_id))   # the one live message
    assert_nothing_unexpected(fake, bot)
