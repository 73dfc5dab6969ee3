"""Nobody waits forever: reminders, deadlines with the autopilot, quiet hours and pauses, restarts."""

from __future__ import annotations

import os
import sys

import pytest

from bot.storage.store import Store
from bot.table.protocol.commands import parse
from bot.table.protocol.replies import Actor
from bot.table.service.entry import GameService
from rules.codec import decode_state
from rules.speedway.state import SpeedwayState

BACKENDS = ("sqlite", "postgres")  # every test here runs on both (tests/conftest.py)

HOUR = 3600.0
T0 = 1_800_000_000.0  # 2027-01-15 08:00 UTC: a fixed, daytime starting clock


class Clock:
    def __init__(self, now: float = T0):
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, hours: float) -> None:
        self.now += hours * HOUR


async def make(db_path, clock):
    store = await Store.open(db_path)
    return store, GameService(store, render=None, clock=clock)


async def run(service, user, line, channel="chan-1"):
    return await service.execute(channel, Actor(user, user), parse(line))


async def start_game(service, seed=7):
    await run(service, "alice", f"/game new ruleset:speedway seed:{seed}")
    await run(service, "alice", "/game join car:brawler")
    await run(service, "bob", "/game join car:torch")
    await run(service, "alice", "/game start")


async def waiting_on(store) -> str:
    game = await store.active_game("chan-1")
    return decode_state(SpeedwayState, game.state).deciding_player


async def test_a_reminder_after_twelve_hours_sent_once_even_across_a_restart(db_path):
    clock = Clock()
    store, service = await make(db_path, clock)
    await start_game(service)
    player = await waiting_on(store)
    clock.advance(11.9)
    assert await service.run_due() == []
    clock.advance(0.2)
    (notice,) = await service.run_due()
    assert notice.channel == "chan-1" and notice.reply.mention == player
    assert "Reminder: the game is waiting for" in notice.reply.text
    assert await service.run_due() == []
    await store.close()
    store, service = await make(db_path, clock)  # a restart: nothing is sent twice
    clock.advance(1)
    assert await service.run_due() == []
    await store.close()


async def test_no_deadline_unless_the_host_sets_one_then_the_autopilot_drives(db_path):
    clock = Clock()
    store, service = await make(db_path, clock)
    await start_game(service)
    clock.advance(200)
    notices = await service.run_due()
    assert [n.reply.text.startswith("Reminder") for n in notices] == [True]  # a reminder, no deadline
    refused = await run(service, "bob" if await waiting_on(store) == "alice" else "alice",
                        "/game settings deadline_hours:24")
    host = await run(service, "alice", "/game settings deadline_hours:24 deadline_action:autopilot")
    assert refused.outcome == "refused" or refused.text.startswith("Table settings")  # bob is no host
    assert "deadline: 24 h, then autopilot" in host.text
    player = await waiting_on(store)
    clock.advance(23)
    reminded = await service.run_due()
    assert [n for n in reminded if "deadline passed" in n.reply.text] == []
    assert len(reminded) == 1 and "Your deadline: <t:" in reminded[0].reply.text   # it says when it falls
    clock.advance(1.5)
    (notice,) = [n for n in await service.run_due() if "deadline passed" in n.reply.text]
    assert f"{player}'s deadline passed" in notice.reply.text
    assert "keeps speed 0" in notice.reply.text  # autopilot keeps the speed it had
    after = await waiting_on(store)
    assert after != player and notice.reply.mention == after
    game = await store.active_game("chan-1")
    assert await service.replay_matches(game)
    await store.close()


async def test_skip_brakes_hard_and_drives_straight(db_path):
    clock = Clock()
    store, service = await make(db_path, clock)
    await run(service, "alice", "/game new ruleset:speedway seed:7")
    await run(service, "alice", "/game settings deadline_hours:6 deadline_action:skip")
    await run(service, "alice", "/game join car:brawler")
    await run(service, "bob", "/game join car:torch")
    await run(service, "alice", "/game start")
    player = await waiting_on(store)
    clock.advance(6.5)
    (notice,) = [n for n in await service.run_due() if "deadline passed" in n.reply.text]
    assert f"{player}'s deadline passed" in notice.reply.text and "braking hard" in notice.reply.text
    assert await waiting_on(store) != player
    await store.close()


def test_autopilot_commands_follow_the_rules():
    from dataclasses import replace

    from rules.speedway.actions import EndTurn, Move, SetSpeed
    from rules.speedway.ruleset import SPEEDWAY
    from tests.speedway_fixtures import driving, upkeep

    play = SPEEDWAY.autopilot.play
    state = upkeep(speed=4)
    assert play(state, "alice", False) == SetSpeed(4)
    assert play(state, "alice", True) == SetSpeed(1)
    assert play(state, "bob", False) is None
    moving = driving(speed=3)
    assert play(moving, "alice", False) == Move("normal")
    skidding = replace(moving, cars=tuple(replace(c, in_control=False, skid=0) if c.owner == "alice" else c
                                          for c in moving.cars))
    assert play(skidding, "alice", False) == Move("slide")
    assert play(replace(moving, moves_left=0), "alice", False) == EndTurn()


async def test_quiet_hours_hold_reminders_until_morning(db_path):
    clock = Clock(T0 + 10 * HOUR)  # 18:00 UTC
    store, service = await make(db_path, clock)
    await run(service, "alice", "/game new ruleset:speedway seed:3")
    await run(service, "alice", "/game settings quiet_hours:22-7 reminder_hours:6")
    await run(service, "alice", "/game join")
    await run(service, "bob", "/game join")
    await run(service, "alice", "/game start")  # waits from 18:00: the reminder would fall at 00:00
    clock.advance(6.5)
    assert await service.run_due() == []
    clock.now = T0 + 23 * HOUR + 10  # 07:00:10 UTC the next morning
    assert len(await service.run_due()) == 1
    await store.close()


async def test_a_pause_holds_the_clock_within_the_hosts_limit(db_path):
    clock = Clock()
    store, service = await make(db_path, clock)
    await start_game(service)
    player = await waiting_on(store)
    too_long = await run(service, player, "/game pause hours:500")
    assert too_long.outcome == "refused" and "up to 168 hours" in too_long.text
    bystander = await run(service, "carol", "/game pause hours:5")
    assert bystander.outcome == "refused"
    paused = await run(service, player, "/game pause hours:48")
    assert "away for 48 h" in paused.text
    clock.advance(59)
    assert await service.run_due() == []
    clock.advance(1.5)  # 48 h of pause + 12 h of reminder
    assert len(await service.run_due()) == 1
    await store.close()


async def test_a_finished_game_has_no_timer(db_path):
    clock = Clock()
    store, service = await make(db_path, clock)
    await start_game(service)
    await run(service, "alice", "/game end")
    clock.advance(100)
    assert await service.run_due() == []
    game = await store.latest_game("chan-1")
    assert await store.timer(game.id) is None
    await store.close()


@pytest.mark.slow
async def test_several_processes_ticking_at_once_send_each_due_reminder_once(db_path, tmp_path):
    """Four `pitboss tick` processes on one database at the same moment: the claims never overlap."""
    import asyncio
    import re

    from tests.conftest import ROOT

    store, service = await make(db_path, Clock())
    channels = [f"chan-{i}" for i in range(12)]
    for channel in channels:
        for user, line in (("alice", "/game new ruleset:speedway seed:7"), ("alice", "/game join car:brawler"),
                           ("bob", "/game join car:torch"), ("alice", "/game start")):
            await service.execute(channel, Actor(user, user), parse(line))
    async with store.transaction():
        await store.driver.execute("UPDATE player_timers SET reminder_due = 1")  # all due long ago
    await store.close()

    async def tick() -> str:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", "tick", "--db", db_path, cwd=tmp_path,
            env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE)
        out, err = await asyncio.wait_for(proc.communicate(), timeout=120)
        assert proc.returncode == 0, err.decode()
        return out.decode()

    outputs = await asyncio.gather(*(tick() for _ in range(4)))
    sent = [channel for out in outputs for channel in re.findall(r"^\[channel (\S+)\]", out, re.M)]
    assert sorted(sent) == sorted(channels), outputs  # every reminder, each exactly once
    assert all("Reminder: the game is waiting for" in out for out in outputs if "[channel" in out)
    store = await Store.open(db_path)
    try:
        again = await GameService(store, render=None).run_due()
        assert again == []  # nothing left to send
    finally:
        await store.close()


# --- a deadline is fair (issue 23, item 5) -----------------------------------------------------------------

async def _speedway_with_a_deadline(service, store, hours: int = 1) -> None:
    """A duel with a deadline, waiting on bob's first speed."""
    await start_game(service)
    assert "deadline" in (await run(service, "alice", f"/game settings deadline_hours:{hours}")).text
    assert await waiting_on(store) == "bob"


async def _act_as_waiting(service, store) -> tuple[str, str]:
    """The waited-on player sets the highest speed open to them, which keeps the turn theirs (their
    Moves follow, in the same turn): (who, what)."""
    from rules.registry import get_ruleset

    game = await store.active_game("chan-1")
    ruleset = get_ruleset(game.ruleset)
    state = ruleset.load_state(game.state)
    player = ruleset.acting_players(state)[0]
    line = ruleset.legal_actions(state, player)[-1].command
    assert line.startswith("/speed value:") and line != "/speed value:0", line
    assert (await run(service, player, line)).outcome == "applied", line
    return player, line


def _autopiloted(notices) -> list[str]:
    return [n.reply.text for n in notices if "deadline passed" in n.reply.text]


async def test_a_deadline_counts_from_the_players_own_last_action(db_path):
    """Two hours into a one-hour deadline the player acts, and the turn still waits on them: the next
    tick must not play on for them. Their clock started again when they acted."""
    clock = Clock()
    store, service = await make(db_path, clock)
    try:
        await _speedway_with_a_deadline(service, store)
        clock.advance(2)
        player, _line = await _act_as_waiting(service, store)
        assert await waiting_on(store) == player            # the same turn: now the move
        assert _autopiloted(await service.run_due()) == []
        clock.advance(0.9)
        assert _autopiloted(await service.run_due()) == []
        clock.advance(0.2)                                  # an hour without an action from them
        (played,) = _autopiloted(await service.run_due())
        assert played.startswith(f"{player}'s deadline passed")
    finally:
        await store.close()


async def test_a_claim_taken_before_the_player_acted_sends_nothing(db_path):
    """A second process claims the due deadline; the player acts in the first before it is sent: the
    claim does nothing, and the player's clock runs from their action."""
    clock = Clock()
    store, service = await make(db_path, clock)
    other = await Store.open(db_path)   # another process's connection and scheduler
    try:
        await _speedway_with_a_deadline(service, store)
        clock.advance(2)
        claimed = await other.claim_due(clock())
        assert [kind for kind, _timer in claimed] == ["deadline"]
        player, _line = await _act_as_waiting(service, store)
        assert await GameService(other, render=None, clock=clock).send_claimed(claimed) == []
        game = await store.active_game("chan-1")
        actions = await store.actions(game.id)
        assert actions[-1].actor == player                # the player's own action is the last one
        (timer,) = await store.timers(game.id)
        assert timer.deadline_due == clock() + HOUR        # counted from the action
    finally:
        await other.close()
        await store.close()


async def test_another_players_action_leaves_a_simultaneous_deadline_claimed(db_path):
    """Battlecars counters are set together: bob setting his after alice's deadline was claimed does not
    cancel hers (the game moved on, but not for her), and the autopilot sets hers."""
    clock = Clock()
    store, service = await make(db_path, clock)
    other = await Store.open(db_path)
    try:
        for user, line in (("alice", "/game new ruleset:battlecars seed:3"), ("alice", "/game join vehicle:rammer"),
                           ("bob", "/game join vehicle:tank"), ("carol", "/game join vehicle:bike1"),
                           ("alice", "/game start")):
            assert (await run(service, user, line)).outcome == "applied", line
        await run(service, "alice", "/game settings deadline_hours:1")
        clock.advance(2)
        claimed = await other.claim_due(clock())
        assert sorted(t.player for kind, t in claimed if kind == "deadline") == ["alice", "bob", "carol"]
        assert (await run(service, "bob", "/speed value:1")).outcome == "applied"
        sent = await GameService(other, render=None, clock=clock).send_claimed(claimed)
        played = _autopiloted(sent)
        assert [text.split("'")[0] for text in played] == ["alice", "carol"], played
    finally:
        await other.close()
        await store.close()


@pytest.mark.slow
async def test_a_claim_in_another_process_is_stale_once_the_player_acts(db_path, tmp_path):
    """The same across two real processes: a scheduler process claims, the player acts here, then the
    scheduler sends nothing. Without the action it plays the turn (the test can fail)."""
    import asyncio

    from tests.conftest import ROOT

    async def scheduler(now: float, act) -> list[str]:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "tests.deadline_driver", db_path, str(now), cwd=tmp_path,
            env={**os.environ, "PYTHONPATH": str(ROOT)}, stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        assert (await asyncio.wait_for(proc.stdout.readline(), 120)).decode().strip() == "claimed 1"
        await act()
        out, err = await asyncio.wait_for(proc.communicate(b"go\n"), 120)
        assert proc.returncode == 0, err.decode()
        return out.decode().splitlines()

    async def nothing() -> None:
        return None

    for acts in (True, False):
        clock = Clock()
        store, service = await make(db_path, clock)
        try:
            if acts is False:
                assert (await run(service, "alice", "/game end")).outcome == "applied"
            await _speedway_with_a_deadline(service, store)
            clock.advance(2)

            async def act() -> None:
                await _act_as_waiting(service, store)

            said = await scheduler(clock(), act if acts else nothing)
        finally:
            await store.close()
        if acts:
            assert said == ["sent 0"], said
        else:
            assert said[0] == "sent 1" and "deadline passed" in said[1], said
