"""A crash between carrying out a move and posting it (issue 36, item 12): on start the bot posts the turn of
every game whose last move never reached the channel, pinging whom it waits on; once, and never for a game
whose turn message is up to date."""

from __future__ import annotations

from bot.storage.store import Store
from bot.table.protocol.commands import parse
from bot.table.protocol.replies import Actor
from bot.table.service.entry import GameService

BACKENDS = ("sqlite", "postgres")


async def posted(service, user, line, channel="chan-1"):
    """A command carried out and posted, as the chat adapter does: its turn message remembered."""
    reply = await service.execute(channel, Actor(user, user), parse(line), guild="g1")
    assert reply.outcome == "applied", reply.text
    await service.remember_turn_message(reply.game_id, reply.turn_key, f"m{reply.version}", reply.text)
    return reply


async def test_a_move_a_crash_kept_from_the_channel_is_announced_on_start(db_path):
    store = await Store.open(db_path)
    service = GameService(store, render=None)
    for user, line in (("alice", "/game new ruleset:speedway seed:2"), ("alice", "/game join"),
                       ("bob", "/game join"), ("alice", "/game start")):
        await posted(service, user, line)
    await service.execute("chan-2", Actor("cal", "cal"), parse("/game new ruleset:track"))   # never posted: no chat
    assert await service.unposted() == []        # every move was posted
    await posted(service, "alice", "/speed value:0")   # standing still, she may still drop her mines ...
    ended = await service.execute("chan-1", Actor("alice", "alice"), parse("/end"))   # carried out ...
    assert ended.outcome == "applied" and ended.mentions == ("bob",)   # (alice's turn is over)
    await store.close()                           # ... and the process killed before posting it

    store = await Store.open(db_path)
    service = GameService(store, render=None)     # the start after the crash
    (notice,) = await service.unposted()
    assert notice.channel == "chan-1" and notice.reply.mentions == ("bob",)
    assert notice.reply.text.startswith("Back after a restart") and "Next: Round 1, bob" in notice.reply.text
    assert notice.reply.turn_key == ended.turn_key and notice.reply.buttons   # bob's turn, with its buttons
    await service.remember_turn_message(notice.reply.game_id, notice.reply.turn_key, "m-notice")  # posted
    await store.close()

    store = await Store.open(db_path)
    service = GameService(store, render=None)     # another start: nothing is announced twice
    assert await service.unposted() == []
    await store.close()
