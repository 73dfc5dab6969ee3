"""End to end: `/game status view:closeup` through an unmodified `pitboss run` and the fake Discord gives
its asker, privately, a close-up at most 640 px wide; the channel's messages keep the full map."""

from __future__ import annotations

import io

from PIL import Image

from images.closeup import MAX_WIDTH
from tests.e2e.fake_discord import EPHEMERAL
from tests.e2e.test_e2e_discord import assert_nothing_unexpected, assert_public_map, lobby_of_two, slash


async def test_game_status_view_closeup_is_a_private_picture_for_a_phone(fake, bot, record_latency):
    await lobby_of_two(fake, record_latency)
    started = assert_public_map(await slash(fake, "alice", "channel", "game start"), record_latency)
    asked = await slash(fake, "bob", "channel", "game status", view="closeup")
    assert not asked.rejected, asked.describe()
    uploads = [(r, f) for r in asked.requests for f in r.files]
    assert len(uploads) == 1, asked.describe()
    (record, upload), = uploads
    body = record.body or {}
    flags = int((body.get("data") or body).get("flags") or 0)   # an interaction callback, or a follow-up
    assert upload.filename.endswith(".png") and flags & EPHEMERAL, asked.describe()
    width, height = Image.open(io.BytesIO(upload.data)).size
    assert width <= MAX_WIDTH and height <= width
    assert started.png != upload.data and Image.open(io.BytesIO(started.png)).size[0] > MAX_WIDTH
    public = fake.channel_messages("channel")
    assert public and all(not (m.get("flags") or 0) & EPHEMERAL for m in public)   # nothing of it in the channel
    assert_nothing_unexpected(fake, bot)
