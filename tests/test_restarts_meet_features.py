"""A restart or a crash of the bot meeting other features: a deadline's claim, a tournament's round opening, a
rematch made, a game moved to another channel. After the restart the bot must resume one consistent game that
still waits on someone with a clock, and tell the channel what it never posted."""

from __future__ import annotations

import asyncio
import os
import signal
import sys

import pytest

from bot.storage.store import Store
from bot.table.protocol.commands import parse
from bot.table.protocol.replies import Actor
from bot.table.service.entry import GameService
from rules.registry import get_ruleset
from tests.conftest import ROOT
from tests.test_scheduler import HOUR, T0, Clock  # noqa: F401  (HOUR, T0: the clock's, for the files importing these)


class Crash(BaseException):
    """The process dies here: nothing after it runs, no finally of the service's catches it as a refusal."""


async def run(service, user, line, channel="chan-1", guild="g1"):
    return await service.execute(channel, Actor(user, user), parse(line), guild=guild)


async def posted(service, user, line, channel="chan-1"):
    """A command carried out and posted, as the chat adapter does: its turn message remembered."""
    reply = await run(service, user, line, channel)
    assert reply.outcome in ("applied", "shown"), (line, reply.text)
    if reply.outcome == "applied" and reply.game_id is not None and reply.turn_key and not reply.ephemeral:
        await service.remember_turn_message(reply.game_id, reply.turn_key, f"m{reply.version}", reply.text)
    return reply


# 1. A deadline claimed by the scheduler, the process killed before it played the turn


async def test_a_deadline_claimed_then_killed_before_it_fired_still_plays_after_the_restart(db_path, tmp_path):
    """The bot is killed between taking a deadline and playing it: after the restart the game waits on bob
    for ever, its status says "deadline passed" and the autopilot never plays."""
    clock = Clock()
    store = await Store.open(db_path)
    service = GameService(store, render=None, clock=clock)
    try:
        for user, line in (("alice", "/game new ruleset:speedway seed:7"), ("alice", "/game join car:brawler"),
                           ("bob", "/game join car:torch"), ("alice", "/game start"),
                           ("alice", "/game settings deadline_hours:1")):
            await posted(service, user, line)
        game = await store.active_game("chan-1")
        ruleset = get_ruleset(game.ruleset)
        (waiting,) = ruleset.acting_players(ruleset.load_state(game.state))
        version = game.version
    finally:
        await store.close()
    clock.advance(2)

    # the scheduler (another process, tests/deadline_driver.py) claims the due deadline and is SIGKILLed
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tests.deadline_driver", db_path, str(clock()), cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)}, stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    try:
        line = (await asyncio.wait_for(proc.stdout.readline(), 120)).decode().strip()
        assert line == "claimed 1", line + (await proc.stderr.read()).decode()
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        await proc.wait()

    store = await Store.open(db_path)   # the bot's start after the crash
    service = GameService(store, render=None, clock=clock)
    try:
        await service.unposted()
        played = []
        for _ in range(6):   # two days of scheduler rounds
            clock.advance(8)
            played += [n.reply.text for n in await service.run_due()]
        game = await store.active_game("chan-1")
        timers = await store.timers(game.id)
        moved_on = game.version > version
        live = [t for t in timers if t.player == waiting and t.deadline_due is not None]
        assert moved_on or live, (f"the game still waits on {waiting} at v{game.version} with no deadline running "
                                  f"({timers}); the scheduler sent {played}")
    finally:
        await store.close()


# 3. A rematch made, the process killed before its computer seat played and before its message was posted


async def test_a_rematch_made_just_before_a_crash_plays_on_and_is_announced_after_the_restart(db_path, monkeypatch):
    """The bot dies right after a rematch was made (its computer seat to move first): after the restart the
    new game waits on the computer for ever, and the channel is never told the rematch exists."""
    from bot.table.service import rematch as rematches
    from bot.table.service.acting import Acting

    monkeypatch.setattr(rematches, "new_seed", lambda: 2)   # the rematch's dice: its computer seat moves first
    clock = Clock()
    store = await Store.open(db_path)
    service = GameService(store, render=None, clock=clock)
    try:
        for line in ("/game new ruleset:speedway seed:3", "/game join", "/game add-ai", "/game start", "/game end"):
            await posted(service, "alice", line)
        real_play = Acting.play_computers

        async def crashing_play(self, *args, **kwargs):
            raise Crash("killed after the rematch was stored")

        monkeypatch.setattr(Acting, "play_computers", crashing_play)
        with pytest.raises(Crash):
            await run(service, "alice", "/game rematch")   # alice alone is asked: her proposal makes it
        monkeypatch.setattr(Acting, "play_computers", real_play)
        rematch = await store.active_game("chan-1")
        ruleset = get_ruleset(rematch.ruleset)
        assert ruleset.acting_players(ruleset.load_state(rematch.state)) == ("ai-1",)   # the computer moves first
    finally:
        await store.close()

    store = await Store.open(db_path)   # the restart
    service = GameService(store, render=None, clock=clock)
    try:
        told = [n.channel for n in await service.unposted()]
        for _ in range(4):
            clock.advance(1)
            told += [n.channel for n in await service.run_due()]
        game = await store.active_game("chan-1")
        waiting = ruleset.acting_players(ruleset.load_state(game.state))
        assert waiting != ("ai-1",), f"the rematch (game {game.id}) still waits on its computer seat alone"
        assert "chan-1" in told, "the channel was never told of its rematch"
    finally:
        await store.close()


# 4. A running game moved to another channel, the process killed before the move was posted


async def test_a_game_moved_just_before_a_crash_is_announced_in_its_new_channel_after_the_restart(db_path,
                                                                                                 monkeypatch):
    """The bot dies right after moving a running game (/game import) to another channel: after the restart
    nothing is posted anywhere, the new channel never shows the game and bob, whose turn it is, is never pinged."""
    from bot.table.protocol.commands import Command

    clock = Clock()
    store = await Store.open(db_path)
    service = GameService(store, render=None, clock=clock)
    try:
        for user, line in (("alice", "/game new ruleset:speedway seed:7"), ("alice", "/game join car:brawler"),
                           ("bob", "/game join car:torch"), ("alice", "/game start")):
            await posted(service, user, line)
        game = await store.active_game("chan-1")
        ruleset = get_ruleset(game.ruleset)
        waiting = ruleset.people_waited_on(ruleset.load_state(game.state))
        assert waiting == ("bob",)
        exported = await run(service, "alice", "/game export")

        async def crash(*args, **kwargs):
            raise Crash("killed after the move was stored")

        monkeypatch.setattr(service._table, "mark_if_computers_play_on", crash)
        with pytest.raises(Crash):
            await service.execute("chan-2", Actor("alice", "alice"),
                                  Command("game import", {"file": exported.files[0].data}), guild="g1")
        moved = await store.active_game("chan-2")
        assert moved is not None and await store.active_game("chan-1") is None   # the move was stored
    finally:
        await store.close()

    store = await Store.open(db_path)   # the restart
    service = GameService(store, render=None, clock=clock)
    try:
        notices = await service.unposted()
        assert [(n.channel, n.reply.mentions) for n in notices] == [("chan-2", ("bob",))], \
            f"after the restart: {[(n.channel, n.reply.text[:80]) for n in notices]}"
    finally:
        await store.close()


# 5. A rollback vote carried, the process killed before the rollback was posted


async def test_a_rollback_carried_just_before_a_crash_is_announced_after_the_restart(db_path, monkeypatch):
    """The bot dies right after the last yes carried a rollback within bob's turn: after the restart nothing is
    posted, so the channel's turn message still shows bob's set-aside speed as played and the vote still open."""
    from bot.table.service.acting import Acting

    clock = Clock()
    store = await Store.open(db_path)
    service = GameService(store, render=None, clock=clock)
    try:
        for user, line in (("alice", "/game new ruleset:speedway seed:7"), ("alice", "/game join car:brawler"),
                           ("bob", "/game join car:torch"), ("alice", "/game start"), ("bob", "/speed value:2")):
            await posted(service, user, line)
        shown = await store.turn_message((await store.active_game("chan-1")).id)
        assert "bob set speed 0 -> 2" in shown.body   # the channel shows bob's speed on his turn's message
        asked = await run(service, "alice", "/game rollback to:3")
        assert asked.outcome == "shown" and asked.vote_proposal, asked.text
        await service.remember_vote_message(asked.game_id, asked.vote_proposal, "m-vote")   # the vote posted
        real_play = Acting.play_computers

        async def crashing_play(self, *args, **kwargs):
            raise Crash("killed after the rollback was stored")

        monkeypatch.setattr(Acting, "play_computers", crashing_play)
        with pytest.raises(Crash):
            await run(service, "bob", "/game rollback vote:yes")
        monkeypatch.setattr(Acting, "play_computers", real_play)
        game = await store.active_game("chan-1")
        assert await store.rollbacks(game.id) == 1 and await store.rollback_vote(game.id) is None   # carried, stored
    finally:
        await store.close()

    store = await Store.open(db_path)   # the restart
    service = GameService(store, render=None, clock=clock)
    try:
        notices = await service.unposted()
        assert [n.channel for n in notices] == ["chan-1"], \
            "the rollback is never posted: the channel still shows bob's speed 2, set aside, as played"
    finally:
        await store.close()


# 6. A resignation that ends the game, the process killed before the end was posted


async def test_a_game_ended_by_a_resignation_just_before_a_crash_is_announced_after_the_restart(db_path):
    """The bot dies between storing bob's resignation (which ends the duel: alice wins) and posting it: after the
    restart the channel still shows bob's turn with its buttons; nobody is told the game is over or who won."""
    clock = Clock()
    store = await Store.open(db_path)
    service = GameService(store, render=None, clock=clock)
    try:
        for user, line in (("alice", "/game new ruleset:speedway seed:7"), ("alice", "/game join car:brawler"),
                           ("bob", "/game join car:torch"), ("alice", "/game start")):
            await posted(service, user, line)
        resigned = await run(service, "bob", "/game resign confirm:yes")   # carried out ...
        assert resigned.outcome == "applied", resigned.text
        game = await store.latest_game("chan-1")
        assert game.status == "finished"
    finally:
        await store.close()                      # ... and the process killed before posting it

    store = await Store.open(db_path)   # the restart
    service = GameService(store, render=None, clock=clock)
    try:
        notices = await service.unposted()
        assert [n.channel for n in notices] == ["chan-1"], \
            "the end of the game is never posted: the channel still shows bob's turn"
    finally:
        await store.close()


# Guard: the turn posted after a restart shows no hand


async def test_the_turn_posted_after_a_restart_shows_nobodys_track_hand(db_path):
    """Guard (passes): the notice a restart posts for a Track move it never posted names no card of any hand,
    in its words, its alt text or its buttons."""
    clock = Clock()
    store = await Store.open(db_path)
    service = GameService(store, render=None, clock=clock)
    try:
        for user, line in (("alice", "/game new ruleset:track seed:5"), ("alice", "/game join"),
                           ("bob", "/game join"), ("alice", "/game start")):
            await posted(service, user, line)
        game = await store.active_game("chan-1")
        ruleset = get_ruleset("track")
        state = ruleset.load_state(game.state)
        (mover,) = ruleset.acting_players(state)
        line = ruleset.legal_actions(state, mover)[0].command
        assert (await run(service, mover, line)).outcome == "applied", line   # carried out, never posted
    finally:
        await store.close()

    store = await Store.open(db_path)
    service = GameService(store, render=None, clock=clock)
    try:
        (notice,) = await service.unposted()
        state = ruleset.load_state((await store.active_game("chan-1")).state)
        shown = " ".join([notice.reply.text, notice.reply.alt_text or "",
                          *(f"{b.label} {b.custom_id}" for b in notice.reply.buttons)])
        for hand in state.hands:
            for card in hand.cards:
                assert card not in shown.split() and f"play {card}" not in shown, (hand.player, card, shown)
        assert not notice.reply.legal, "the waited-on player's legal plays (their hand) in a public notice"
    finally:
        await store.close()
