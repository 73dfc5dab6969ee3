"""End to end (issue 36, item 12): the bot SIGKILLed after carrying out a move that passes the turn, before its
message was posted, pings the next player when it starts again."""

from __future__ import annotations

import asyncio

from tests.e2e.test_e2e_discord import assert_nothing_unexpected, assert_public_map, lobby_of_two, next_player, slash

WAIT = 15.0   # seconds: a bound on each wait for the bot, far above what it takes


async def _until(check, what: str):
    for _ in range(int(WAIT / 0.05)):
        if found := check():
            return found
        await asyncio.sleep(0.05)
    raise AssertionError(f"never: {what}")


async def test_a_move_killed_before_it_was_posted_pings_the_next_player_on_restart(fake, bot, restart_bot,
                                                                                   record_latency):
    await lobby_of_two(fake, record_latency)
    started = assert_public_map(await slash(fake, "alice", "channel", "game start"), record_latency)
    mover = next_player(started)
    waiting = "bob" if mover == "alice" else "alice"
    assert_public_map(await slash(fake, mover, "channel", "speed", value="0"), record_latency)   # standing still
    deleted = len(fake.requests("delete_original"))
    fake.hold["delete_original"] = 10.0   # Discord is slow to take the "thinking…" away: the move is stored, unposted
    await fake.send_slash(mover, "channel", "end", {})   # the turn passes
    await _until(lambda: len(fake.requests("delete_original")) > deleted, "the move was carried out")
    pinged_before = len(fake.notifications())
    await restart_bot(sigkill=True)

    def announced():
        return [fake.message(mid)["content"] for mid, user in fake.notifications()[pinged_before:]
                if user == fake.users[waiting].id]

    (content,) = await _until(announced, f"{waiting} was pinged after the restart")
    assert "Back after a restart" in content and f"Next: Round 1, {waiting}" in content, content
    assert_nothing_unexpected(fake, bot)
