"""Where the ways the bot reaches a player (turn pings, direct messages, the daily digest, away hours, follows,
the queue's and the league's pings) meet seats changing hands, the scheduler's league work, moved games and
forgotten or blocked members."""

from __future__ import annotations

from bot.storage.store import Store
from bot.table.clock.settings import HOUR
from bot.table.protocol.commands import parse
from bot.table.protocol.replies import Actor
from bot.table.service.entry import GameService
from tests.test_player_clock import Clock

T0 = 1_800_000_000.0   # 2027-01-15 08:00 UTC
G = "g1"


async def opened(db_path, now=T0):
    clock = Clock(now)
    store = await Store.open(db_path)
    return clock, store, GameService(store, render=None, clock=clock)


async def run(service, user, line, channel="f", guild=G, admin=False):
    return await service.execute(channel, Actor(user, user, admin), parse(line), guild=guild)


async def must(service, user, line, channel="f", guild=G, admin=False):
    reply = await run(service, user, line, channel, guild, admin)
    assert reply.outcome in ("applied", "shown"), (line, reply.text)
    return reply


# --- a host hands a gone player's seat to the computer, which plays its turn -------------------------------


async def test_the_next_player_is_pinged_when_the_host_hands_a_gone_seat_to_the_computer(db_path):
    """cat missed her deadline; the host gives her seat to the computer, which plays her turn at once and the game
    now waits on ben: the message pings only cat ("someone acted on your seat"), never ben, whose turn it is."""
    clock, store, service = await opened(db_path)
    for user, line in (("ann", "/game new ruleset:speedway seed:3"), ("ann", "/game join"), ("ben", "/game join"),
                       ("cat", "/game join"), ("ann", "/game settings deadline_hours:1")):
        await must(service, user, line)
    await must(service, "ann", "/game start")
    for _ in range(2):   # ann's and cat's deadlines pass: the autopilot plays; ben's turn, then cat's again
        clock.now += 1.5 * HOUR
        await service.run_due()
    clock.now += 1.5 * HOUR
    await service.run_due()   # ben's deadline too: now it waits on cat, who is gone (past a deadline)
    assert (await run(service, "zed", "/game status")).waiting_on == ("cat",)
    handed = await run(service, "ann", "/game seat computer player:cat")
    assert handed.outcome == "applied", handed.text
    assert handed.waiting_on == ("ben",)   # the computer played cat's turn: ben's turn now
    assert "cat" in handed.mentions   # cat is told what was done to her seat
    assert "ben" in handed.mentions, (handed.mentions, handed.ping_words)   # and ben that it is his turn
    await store.close()


# --- the scheduler's league work: a season's next pairing, the queue's second match ------------------------


async def test_a_seasons_game_paired_by_the_scheduler_pings_a_dm_member_by_direct_message(store):
    """Four members who chose notify:dm: the season's first games (paired as they join, a command) reach them by
    direct message, but the games the scheduler pairs next @-mention them in the thread instead."""
    from tests.test_seasons import MEMBERS, Clock, _computer_plays_out, _running, _season

    service = GameService(store, clock=Clock())
    for member in MEMBERS:
        await must(service, member, "/me settings notify:dm", channel="hall")
    number = await _season(service)
    await _computer_plays_out(service, number)
    posted = await service.run_due()   # the scheduler pairs them again
    starts = [n.reply for n in posted if n.channel.startswith("hall-s") and n.reply.waiting_on]
    assert len(starts) == 2 and len(await _running(service, number)) == 2
    for start in starts:
        assert start.waiting_on[0] in MEMBERS
        assert start.mentions == (), start.mentions   # a notify:dm member is not @-mentioned in the thread
        assert [d.player for d in start.direct] == list(start.waiting_on)   # but told by direct message


async def test_a_muster_the_scheduler_opens_sends_a_dm_members_ping_by_direct_message(store):
    """cat chose notify:dm; her queue fills while ann still plays a queued game, and the scheduler opens it once
    ann is free: its muster @-mentions cat in the thread (a muster the command opens sends her a direct message)."""
    from tests.test_queue import Clock as QueueClock
    from tests.test_queue import confirmed
    from tests.test_queue import opened as queue_opened

    service = GameService(store, clock=QueueClock())
    await must(service, "cat", "/me settings notify:dm", channel="hall")
    thread, _asking = await queue_opened(service, ["ann", "bob"], "/queue join ruleset:speedway players:2")
    await must(service, "ann", "/queue join ruleset:battlecars players:2", channel="hall")
    await must(service, "cat", "/queue join ruleset:battlecars players:2", channel="hall")
    await confirmed(service, "ann", thread)
    await confirmed(service, "bob", thread)
    await must(service, "ann", "/game end", channel=thread)
    (notice,) = await service.run_due()
    assert "Battlecars, 2 players" in notice.reply.text
    assert "cat" not in notice.reply.mentions, notice.reply.mentions
    assert [d.player for d in notice.reply.direct] == ["cat"]


# --- the daily digest meets a seat change's own message ----------------------------------------------------


async def test_a_digest_player_gets_no_turn_ping_when_the_other_player_hands_his_seat_to_the_computer(db_path):
    """ann takes one digest a day ("no turn pings"); ben gives his own seat to the computer on his turn, which plays
    it and hands the turn to ann: the seat change's message sends ann her turn by direct message all the same."""
    clock, store, service = await opened(db_path)
    await must(service, "ann", "/me settings notify:digest")
    for user, line in (("ann", "/game new ruleset:track seed:3"), ("ann", "/game join"), ("ben", "/game join")):
        await must(service, user, line)
    assert (await must(service, "ann", "/game start")).waiting_on == ("ben",)
    handed = await must(service, "ben", "/game seat computer")
    assert handed.waiting_on == ("ann",) and "computer plays ben's seat" in handed.text
    assert "ann" not in handed.mentions
    assert [d.player for d in handed.direct] == [], [d.text[:80] for d in handed.direct]   # her digest tells her
    await store.close()


# --- a digest to a member whose direct messages are closed -------------------------------------------------


async def test_a_closed_inbox_digest_posted_in_one_games_channel_does_not_list_a_private_threads_game(db_path):
    """ann plays one Track game in the public channel f and one in a private thread t (only its members see it);
    her direct messages are closed, so her digest is posted in f, the channel of its first game: it lists the
    private thread's game there too, its channel and what it waits on, for everyone in f to read."""
    clock, store, service = await opened(db_path)
    await must(service, "ann", "/me settings notify:digest")
    for channel, private, settings in (("f", False, "/game settings deadline_hours:48"), ("t", True, "")):
        for user, line in (("ann", "/game new ruleset:track seed:3"), ("ann", "/game join"), ("ben", "/game join")):
            reply = await service.execute(channel, Actor(user, user), parse(line), guild=G, private_thread=private)
            assert reply.outcome == "applied", reply.text
        if settings:
            await must(service, "ann", settings, channel)
        await must(service, "ann", "/game start", channel)
        own = await service.own_choices(channel, "ben")
        await must(service, "ben", own[0].command, channel)   # now it waits on ann
    clock.now += 24 * HOUR
    (digest,) = await service.due_digests()
    assert digest.channel == "f" and "2 games wait on you" in digest.text   # her own direct message lists both
    assert " in t:" not in digest.fallback, digest.fallback   # what f's channel reads names only f's game
    await store.close()


# --- a moved game's old channel and its followers ------------------------------------------------------------


async def test_a_moved_game_pings_only_its_round_followers_who_still_watch_it(db_path):
    """zed follows each round, yan only the end, and dan followed and then joined (a player now, pinged on his
    turns): the move's word in the old channel pings zed alone, as a new round would."""
    from bot.table.protocol.commands import Command

    clock, store, service = await opened(db_path)
    for user, line in (("ann", "/game new ruleset:speedway seed:5"), ("ann", "/game join car:brawler"),
                       ("zed", "/game follow"), ("yan", "/game follow mode:end"), ("dan", "/game follow"),
                       ("dan", "/game join car:brawler"), ("ann", "/game start")):
        await must(service, user, line)
    exported = await must(service, "ann", "/game export")
    moved = await service.execute("after", Actor("ann", "ann"),
                                  Command("game import", {"file": exported.files[0].data}), guild=G)
    assert moved.outcome == "applied", moved.text
    (told,) = moved.notices
    assert told.channel == "f" and "moved to after" in told.reply.text
    assert told.reply.mentions == ("zed",), told.reply.mentions
    await store.close()
