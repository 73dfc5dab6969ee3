"""/game sheet: the full car sheets on request, privately or to the channel, and with the final results."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from bot.table.protocol.commands import CommandSyntaxError


async def seated(table):
    for user, line in (("alice", "/game new ruleset:speedway seed:3"), ("alice", "/game join car:brawler"),
                       ("bob", "/game join car:torch"), ("alice", "/game start")):
        reply = await table(user, line)
        assert reply.outcome == "applied", reply.text


def size(data: bytes) -> tuple[int, int]:
    return Image.open(io.BytesIO(data)).size


async def test_sheets_are_private_unless_asked_public_and_name_one_car_or_all(table):
    await seated(table)
    every = await table("carol", "/game sheet")                 # a spectator may look too
    assert every.outcome == "shown" and every.ephemeral and every.text == "Every car's sheet."
    (attachment,) = every.files
    assert attachment.filename.endswith(".png") and attachment.description
    one = await table("alice", "/game sheet car:bob public:true")
    assert not one.ephemeral and one.text == "The sheet of bob."
    assert size(one.files[0].data)[0] == size(attachment.data)[0] and one.files[0].data != attachment.data
    assert (await table("alice", "/game sheet car:c2")).files[0].data == one.files[0].data


async def test_a_wrong_car_or_a_game_without_sheets_is_refused_and_nothing_changes(table, store):
    await seated(table)
    version = (await store.active_game("chan-1")).version
    refused = await table("alice", "/game sheet car:nobody")
    assert refused.outcome == "refused" and "No car called 'nobody'" in refused.text and not refused.files
    with pytest.raises(CommandSyntaxError, match="public: must be one of true, false"):
        await table("alice", "/game sheet public:maybe")
    assert (await store.active_game("chan-1")).version == version
    await table("alice", "/game end")
    await table("alice", "/game new ruleset:track")
    refused = await table("alice", "/game sheet")
    assert refused.outcome == "refused" and refused.text == "Track (the card race) has no car sheets."


async def test_the_final_results_carry_every_cars_sheet(table):
    await seated(table)
    ended = await table("alice", "/game end")
    assert ended.outcome == "applied" and ended.image is not None
    assert [f.filename for f in ended.files] == ["pitboss-final-sheets.png"]
    after = await table("alice", "/game sheet")                 # and on request once it is over
    assert after.outcome == "shown" and after.files
