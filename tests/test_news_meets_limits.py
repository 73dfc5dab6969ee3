"""What reaches a player in long answers: a digest posted in the channel, `/games` of many games (whole lines,
within Discord's limit)."""

from __future__ import annotations

from pathlib import Path

from bot.storage.store import Store

# --- a digest of 50 games, to a member whose direct messages are closed -------------------------------

GUILD = "800000000000000001"
ANN, BEN = "100000000000000001", "100000000000000002"


async def test_a_closed_inbox_digest_of_50_games_is_posted_whole_lines_within_discords_limit(tmp_path: Path):
    from bot.chat.adapter import DMS_CLOSED
    from bot.chat.views import content_and_mentions
    from bot.table.protocol.commands import parse
    from bot.table.protocol.replies import Actor, Reply
    from bot.table.service.entry import GameService
    from tests.test_notify import T0
    from tests.test_player_clock import Clock

    clock = Clock(T0)
    store = await Store.open(str(tmp_path / "d.db"))
    service = GameService(store, render=None, clock=clock)

    async def run(user, line, channel):
        reply = await service.execute(channel, Actor(user, user), parse(line), guild=GUILD)
        assert reply.outcome != "refused", (line, reply.text)
        return reply

    try:
        await run(BEN, "/me settings notify:digest", "900000000000000000")
        for n in range(50):
            channel = str(900000000000000001 + n)
            for user, line in ((ANN, "/game new ruleset:track seed:4"), (ANN, "/game join"), (BEN, "/game join"),
                               (ANN, "/game start")):
                await run(user, line, channel)
        clock.now += 2 * 86400
        digests = [d for d in await service.due_digests() if d.player == BEN]
        assert digests, "no digest"
        (digest,) = digests
        assert "50 games wait on you" in digest.text
        # posted in the first game's channel, it lists that channel's game alone (its readers may not see the rest)
        assert digest.fallback.endswith("… and 49 more (/games lists them).") and digest.fallback.count("\n- ") == 1
        # the first time, the channel's ping says why it comes there (bot.chat.adapter._ping_instead)
        content, _mentions = content_and_mentions(Reply("shown", DMS_CLOSED, mentions=(BEN,),
                                                        ping_words=digest.fallback))
        assert len(content) <= 2000
        assert DMS_CLOSED in content, "the why was cut off: " + content[-200:]
        # no line of the digest is cut in the middle (a channel link, a game's line)
        shown = content.splitlines()
        for line in shown[1:]:
            assert line in digest.fallback.splitlines() or line == DMS_CLOSED, line
    finally:
        await store.close()


async def _fifty_games(tmp_path: Path, settings: str = ""):
    from bot.table.protocol.commands import parse
    from bot.table.protocol.replies import Actor
    from bot.table.service.entry import GameService
    from tests.test_notify import T0
    from tests.test_player_clock import Clock

    clock = Clock(T0)
    store = await Store.open(str(tmp_path / "f.db"))
    service = GameService(store, render=None, clock=clock)

    async def run(user, line, channel="900000000000000000"):
        reply = await service.execute(channel, Actor(user, user), parse(line), guild=GUILD)
        assert reply.outcome != "refused", (line, reply.text)
        return reply

    for n in range(50):
        channel = str(900000000000000001 + n)
        for user, line in ((ANN, "/game new ruleset:track seed:4"), (ANN, "/game join"), (BEN, "/game join")):
            await run(user, line, channel)
        if settings:
            await run(ANN, settings, channel)
        await run(ANN, "/game start", channel)
    return store, run


async def test_games_listing_50_games_is_cut_at_a_whole_line_never_inside_a_mention(tmp_path: Path):
    store, run = await _fifty_games(tmp_path, "/game settings deadline_hours:48")
    try:
        await run(BEN, "/me settings time_zone:Asia/Tokyo")
        listed = await run(BEN, "/games")
        assert len(listed.text) <= 2000
        for line in listed.text.splitlines():
            assert line.count("<") == line.count(">"), f"a mention or moment cut in two: {line[-80:]!r}"
            assert not line.endswith("…"), f"a game's line cut in the middle: {line[-80:]!r}"
    finally:
        await store.close()
