"""Open tables (issue 40 item 1): /lfg lists a server's public lobbies with a seat free, privately, with a Join
each that seats the presser as /game join in the game's channel would; /league board names the channel of the
server's one board message, updated only when its words change."""

from __future__ import annotations

import pytest

from bot.table.protocol.commands import parse
from bot.table.protocol.replies import Actor, Reply
from bot.table.service.league import SHOWN
from tests.conftest import exec_in

BACKENDS = ("sqlite", "postgres")   # the listings and the board are stored: both backends (tests/conftest.py)
G = "g1"


async def do(service, channel: str, user: str, line: str, *, guild: str = G, admin: bool = False,
             private_thread: bool = False) -> Reply:
    return await service.execute(channel, Actor(user, user, admin), parse(line), guild=guild,
                                 private_thread=private_thread)


async def must(service, channel: str, user: str, line: str, **kw) -> Reply:
    reply = await do(service, channel, user, line, **kw)
    assert reply.outcome == "applied", (line, reply.text)
    return reply


def joins(reply: Reply) -> dict[str, str]:
    """The listing's Join buttons: label -> custom id."""
    return {b.label: b.custom_id for b in reply.buttons}


async def test_lfg_lists_public_lobbies_with_a_seat_free_and_join_seats_the_presser_as_game_join(service):
    await must(service, "c1", "ann", "/new speedway arena:duel seed:987654321")
    await must(service, "c1", "ann", "/game join")
    await must(service, "c2", "bob", "/new battlecars public:no")             # private: never listed
    await must(service, "c3", "cat", "/new track", private_thread=True)       # a private thread: not by default
    await must(service, "c4", "dan", "/new track public:yes", private_thread=True)
    await must(service, "c5", "eve", "/new race gm:yes", guild="g2")          # another server's
    listing = await do(service, "lobby", "zed", "/lfg")
    assert listing.outcome == "shown" and listing.ephemeral
    assert "Speedway** (arena:duel) · 1/4 seats · host ann · in c1" in listing.text
    assert "Track (the card race)** · 0/2 seats · host dan · in c4" in listing.text
    assert "Battlecars" not in listing.text and "cat" not in listing.text and "Race" not in listing.text
    assert "987654321" not in listing.text and "seed" not in listing.text   # the seed stays the dice's
    assert list(joins(listing)) == ["Join 1: Speedway", "Join 4: Track (the card race)"]   # by game number

    joined = await service.press("lobby", Actor("zed", "zed"), joins(listing)["Join 1: Speedway"], guild=G)
    assert joined.outcome == "applied" and joined.ephemeral and "You joined the Speedway game in c1" in joined.text
    assert "The host starts it there." in joined.text   # an ordinary lobby, not a queued game's
    (told,) = joined.notices   # the game's channel is told as of a /game join there
    assert told.channel == "c1" and told.reply.text.startswith("zed joined with a Brawler.")
    assert not told.reply.ephemeral
    status = await do(service, "c1", "zed", "/game status")
    assert "zed" in status.text
    again = await service.press("lobby", Actor("zed", "zed"), joins(listing)["Join 1: Speedway"], guild=G)
    assert again.outcome == "refused" and "You already sit at that table" in again.text
    elsewhere = await service.press("lobby", Actor("yan", "yan"), joins(listing)["Join 1: Speedway"], guild="g2")
    assert elsewhere.outcome == "refused" and "not one of this server's" in elsewhere.text
    assert "1/4" not in (await do(service, "lobby", "zed", "/lfg")).text   # 2/4 now
    typed = await do(service, "lobby", "yan", "/lfg game:999")
    assert typed.outcome == "refused" and "not one of this server's" in typed.text


async def test_a_lobby_that_filled_started_ended_or_moved_is_said_so_and_leaves_the_listing(service):
    await must(service, "t", "ann", "/new track")
    await must(service, "t", "ann", "/game join")
    await must(service, "s", "bob", "/new speedway")
    await must(service, "s", "bob", "/game join")
    await must(service, "e", "cat", "/new battlecars")
    listing = await do(service, "x", "zed", "/lfg")
    track, speedway, battlecars = (joins(listing)[label] for label in
                                   ("Join 1: Track (the card race)", "Join 2: Speedway", "Join 3: Battlecars"))
    await must(service, "t", "ben", "/game join")                            # full
    full = await service.press("x", Actor("zed", "zed"), track, guild=G)
    assert full.outcome == "refused" and "filled up since" in full.text
    await must(service, "s", "dan", "/game join")
    await must(service, "s", "bob", "/game start")                           # started
    started = await service.press("x", Actor("zed", "zed"), speedway, guild=G)
    assert started.outcome == "refused" and "started since" in started.text
    await must(service, "e", "cat", "/game end")                             # ended by its host
    ended = await service.press("x", Actor("zed", "zed"), battlecars, guild=G)
    assert ended.outcome == "refused" and "ended" in ended.text
    assert "No open tables" in (await do(service, "x", "zed", "/lfg")).text
    # a started game is closed for good: a rollback never brings it back to its lobby
    rollback = await do(service, "s", "bob", "/game rollback to:0")
    assert rollback.outcome == "refused"
    assert "No open tables" in (await do(service, "x", "zed", "/lfg")).text


async def test_a_lobby_refuses_a_rollback_and_its_host_cannot_be_forgotten_while_it_is_listed(service):
    await must(service, "c", "ann", "/new speedway")
    await must(service, "c", "ann", "/game join")
    assert (await do(service, "c", "ann", "/game rollback to:0")).outcome == "refused"
    forgotten = await do(service, "c", "ann", "/me forget confirm:yes")
    assert forgotten.outcome == "refused" and "running game" in forgotten.text
    assert "host ann" in (await do(service, "x", "zed", "/lfg")).text


async def test_a_blocked_member_is_refused_a_join_and_nothing_changes(service):
    await must(service, "c", "ann", "/new track")
    listing = await do(service, "x", "zed", "/lfg")
    await service.control("user", "zed", on=True)
    (join,) = joins(listing).values()
    refused = await service.press("x", Actor("zed", "zed"), join, guild=G)
    assert refused.outcome == "refused" and "blocked" in refused.text
    assert (await do(service, "x", "zed", "/lfg game:1")).outcome == "refused"
    await service.control("user", "zed", on=False)
    await service.control("command", "game join", on=True)   # the operator turned /game join off: Join too
    turned_off = await service.press("x", Actor("zed", "zed"), join, guild=G)
    assert turned_off.outcome == "refused" and "/game join off" in turned_off.text
    await service.control("command", "game join", on=False)
    assert "0/2 seats" in (await do(service, "x", "yan", "/lfg")).text


async def test_the_listing_is_bounded_to_one_message_and_says_how_many_more(service):
    for number in range(SHOWN + 3):
        await must(service, f"c{number}", f"host{number}", "/new track")
    listing = await do(service, "x", "zed", "/lfg")
    assert len(listing.buttons) == SHOWN and len(listing.text) <= 2000
    assert "… and 3 more" in listing.text


async def test_league_board_takes_manage_server_and_its_words_change_only_with_the_lobbies(service):
    assert "keeps no board" in (await do(service, "x", "ann", "/league board")).text
    refused = await do(service, "x", "ann", "/league board channel:<#123>")
    assert refused.outcome == "refused" and "Manage Server" in refused.text
    service.boards_changed()
    kept = await do(service, "x", "ann", "/league board channel:<#123>", admin=True)
    assert kept.outcome == "shown" and "<#123>" in kept.text
    assert await service.board_channel(G) == "123" and await service.board_channel("g2") is None
    assert service.boards_changed() == {G}
    first = await service.board_update(G)
    assert first is not None and first.message_id == "" and "None right now" in first.text
    await service.board_posted(first, "m1")
    assert await service.board_update(G) is None                 # unchanged: no edit
    await must(service, "c", "bob", "/new track")
    assert service.boards_changed() == {G}
    second = await service.board_update(G)
    assert second is not None and second.message_id == "m1" and "0/2 seats · host bob" in second.text
    assert [b.custom_id for b in second.buttons] == [f"pj:{(await service.open_tables(G))[0].game_id}:0:0"]
    # a join taken back (/undo, not one of the lobby's commands) frees the seat: the board is looked at again
    await must(service, "c", "ann", "/game join")
    service.boards_changed()
    await must(service, "c", "ann", "/undo")
    assert service.boards_changed() == {G}
    assert "<#123>" in (await do(service, "x", "ann", "/league board")).text
    off = await do(service, "x", "ann", "/league board off:yes", admin=True)
    assert off.outcome == "shown" and "no longer kept" in off.text
    assert await service.board_update(G) is None and await service.board_channel(G) is None


@pytest.mark.rules_only
def test_the_command_line_lists_and_joins_open_tables(tmp_path):
    db = str(tmp_path / "t.db")
    exec_in(db, tmp_path, "lobby")("ann", "/new track")
    listed = exec_in(db, tmp_path, "elsewhere")("zed", "/lfg")
    assert "private: **Open tables**" in listed and "host ann · in lobby" in listed and "/lfg game:NUMBER" in listed
    joined = exec_in(db, tmp_path, "elsewhere")("zed", "/lfg game:1")
    assert "You joined the Track (the card race) game in lobby" in joined and "[channel lobby] zed joined." in joined


async def test_a_lobby_moved_to_another_channel_is_listed_there(service):
    from bot.table.protocol.commands import Command

    await must(service, "old", "ann", "/new speedway")
    await must(service, "old", "ann", "/game join")
    exported = await do(service, "old", "ann", "/game export")
    moved = await service.execute("new", Actor("ann", "ann"), Command("game import", {"file": exported.files[0].data}),
                                  guild=G)
    assert moved.outcome == "applied", moved.text
    assert service.boards_changed() == {G}
    listing = await do(service, "x", "zed", "/lfg")
    assert "in new" in listing.text and "in old" not in listing.text and len(listing.buttons) == 1
    joined = await service.press("x", Actor("zed", "zed"), listing.buttons[0].custom_id, guild=G)
    assert joined.outcome == "applied" and joined.notices[0].channel == "new"
