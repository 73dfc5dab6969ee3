"""The operator's controls and a member's /me forget through the real bot on the fake Discord (issue 39 item 12):
a member blocked with `pitboss block` gets one private refusal for a press and the game does not change; a member
seated in a running game is refused /me forget, and once the game ended, /me forget confirm:yes deletes their
settings and leaves the game verifying under a neutral name."""

from __future__ import annotations

import sqlite3

from bot.storage.privacy import Control, set_control
from bot.storage.store import Store
from bot.table.service.entry import GameService
from tests.e2e.fake_discord import DEFERRED_UPDATE, FakeDiscord
from tests.e2e.test_e2e_discord import (
    assert_nothing_unexpected,
    assert_private_refusal,
    assert_public_map,
    lobby_of_two,
    press,
    slash,
)


def private_words(exchange) -> str:
    """What a private command's answer said (its one follow-up after a private acknowledgement)."""
    assert not exchange.rejected, exchange.describe()
    (followup,) = exchange.followups
    assert followup.ephemeral, exchange.describe()
    return followup.content


async def test_a_blocked_press_is_refused_and_a_member_forgets_after_the_game(fake: FakeDiscord, start_bot,
                                                                              tmp_path, record_latency):
    (tmp_path / "bot").mkdir()
    db = str(tmp_path / "bot" / "pitboss.db")
    carol, bob = fake.users["carol"].id, fake.users["bob"].id
    store = await Store.open(db)   # as `pitboss block --user ID` stores it, before the bot starts
    await set_control(store, Control("user", str(carol), "spam"))
    await store.close()
    bot = start_bot()
    await lobby_of_two(fake, record_latency)
    started = assert_public_map(await slash(fake, "alice", "channel", "game start"), record_latency)

    pressed = await press(fake, "carol", "channel", started.message_id, "Speed 2")
    said = assert_private_refusal(pressed, record_latency, kind=DEFERRED_UPDATE)
    assert said == "The operator of this bot has blocked you from using it; nothing was changed."
    assert fake.message(started.message_id)["content"] == started.content   # the game did not move

    await slash(fake, "bob", "channel", "me settings", time_zone="Europe/Paris")
    seated = private_words(await slash(fake, "bob", "channel", "me forget", confirm="yes"))
    assert seated.startswith("You still play in 1 running game"), seated
    ended = await slash(fake, "alice", "channel", "game end")
    assert not ended.rejected and any("The game was ended by alice" in (r.body or {}).get("content", "")
                                      for r in ended.requests), ended.describe()
    done = private_words(await slash(fake, "bob", "channel", "me forget", confirm="yes"))
    assert done == "Forgotten: 1 personal record deleted, and your name and id replaced in 1 game.", done

    with sqlite3.connect(db) as conn:
        dumped = "\n".join(conn.iterdump())
    assert str(bob) not in dumped and '"bob"' not in dumped and "forgotten player" in dumped
    store = await Store.open(db)
    try:
        (game,) = await store.all_games()
        assert await GameService(store, render=None).replay_matches(game)   # what `pitboss verify` checks
    finally:
        await store.close()
    assert_nothing_unexpected(fake, bot)
