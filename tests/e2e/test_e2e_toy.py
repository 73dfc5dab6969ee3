"""End to end: the toy plug-in game (PITBOSS_GAMES=tests.toy, set by tests/conftest.py and inherited by
the bot process) is played on the fake Discord: its own /move beside Speedway's, a secret simultaneous
round declared through the public "Your move (private)" button, and the reveal."""

from __future__ import annotations

import sqlite3

from rules.codec import decode_state
from tests.e2e.menus import press_in_menu, private_menu
from tests.e2e.test_e2e_discord import (
    RESPONSE_TIMEOUT,
    assert_nothing_unexpected,
    assert_private_refusal,
    assert_public_map,
    slash,
)
from tests.e2e.test_e2e_long_games import all_buttons, poll
from tests.e2e.test_e2e_track import public_text
from tests.toy.rules import ToyState


def read_state(db_path) -> ToyState:
    with sqlite3.connect(db_path) as db:
        (state,) = db.execute("SELECT state FROM games").fetchone()
    return decode_state(ToyState, state)


async def declare(fake, player: str, public_message: dict, direction: str) -> None:
    """Press the public choices button, then the direction in the private menu it opens."""
    menu, buttons = await private_menu(fake, player, public_message)
    assert menu.ephemeral and "only you see this" in menu.content
    assert list(buttons) == ["North", "South", "East", "West"]
    played = await press_in_menu(fake, player, menu, buttons[direction])
    assert not played.rejected and not any(f.ephemeral for f in played.followups), played.describe()


async def test_a_toy_round_is_declared_secretly_by_buttons_and_revealed(fake, bot, record_latency):
    made = assert_public_map(await slash(fake, "alice", "channel", "new toy"), record_latency,
                             title="Toy")
    assert "New Toy game" in made.content
    for name in ("alice", "bob"):
        assert_public_map(await slash(fake, name, "channel", "game join"), record_latency, title="Toy")
    started = assert_public_map(await slash(fake, "alice", "channel", "game start"), record_latency, title="Toy")
    bob = fake.users["bob"].id
    assert started.content.startswith(f"<@{bob}> your turn.")  # the other waiting player is pinged
    assert list(started.buttons) == ["Your move (private)"]

    await declare(fake, "bob", fake.message(started.message_id), "East")
    await poll(lambda: len(read_state(bot.db).declared) == 1, RESPONSE_TIMEOUT, "bob's declaration stored")
    assert "east" not in public_text(fake, "channel").lower()  # secret until everyone has declared

    latest = [m for m in fake.channel_messages("channel") if all_buttons(m)][-1]
    await declare(fake, "alice", latest, "North")
    await poll(lambda: read_state(bot.db).round == 1, RESPONSE_TIMEOUT, "the round revealed")
    assert "Revealed: alice north, bob east." in public_text(fake, "channel")
    assert [(p.x, p.y) for p in read_state(bot.db).players] == [(0, 3), (2, 4)]

    # Speedway's /move options are refused at this table, privately.
    refused = await slash(fake, "alice", "channel", "move", maneuver="normal")
    assert "not an option" in assert_private_refusal(refused, record_latency)
    assert_nothing_unexpected(fake, bot)
