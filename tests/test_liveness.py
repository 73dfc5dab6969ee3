"""The game never stands still (issue 36, item 6): at a table with deadlines where the absent players never
act, firing every due deadline moves the game on until it ends, and each game always keeps a live timer
(one with a deadline) for every person it waits on. Every autopilot plays only what the game lists as
legal; an autopilot's refused step falls back to a legal action and never leaves the game without a clock."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.storage.store import Store
from bot.table.protocol.commands import Command, parse
from bot.table.protocol.replies import Actor
from bot.table.service.entry import GameService
from rules.registry import get_ruleset, ruleset_ids

HOUR = 3600.0
T0 = 1_800_000_000.0   # 2027-01-15 08:00 UTC
MAX_DEADLINES = 400    # a short game of absent players ends well within this many deadlines
ROUNDS = {"speedway": "rounds:12", "battlecars": "rounds:6", "track": "rounds:40", "race": ""}


class Clock:
    def __init__(self, now: float = T0):
        self.now = now

    def __call__(self) -> float:
        return self.now


async def run(service, user, line, channel="chan-1"):
    return await service.execute(channel, Actor(user, user), parse(line), guild="g1")


async def live_timers(store, ruleset, game, autopilot_checked: bool = True) -> None:
    """Every person the game waits on has a timer with a deadline, and the autopilot would play for them
    only what the game lists as legal."""
    state = ruleset.load_state(game.state)
    waiting = [p for p in ruleset.acting_players(state) if not ruleset.is_computer(state, p)]
    timers = {t.player: t for t in await store.timers(game.id)}
    for player in waiting:
        for passive in (False, True) if autopilot_checked else ():
            played = ruleset.autopilot.play(state, player, passive)
            assert played in [o.action for o in ruleset.legal_actions(state, player)], (state.phase, played)
        assert player in timers and timers[player].deadline_due is not None, (player, state.phase, timers)


async def absent_table(db_path, ruleset_id: str, seed: int, humans: int, computers: int):
    """A game with a 1-hour deadline of `humans` people who join and never act again, and some computers."""
    clock = Clock()
    store = await Store.open(db_path)
    service = GameService(store, render=None, clock=clock)
    plan = get_ruleset(ruleset_id).selfplay
    assert plan is not None
    rng = random.Random(seed)
    seats = plan.seats(rng)
    options = " ".join(o for o in plan.new_options(rng).split() if not o.startswith("rounds:"))
    new = await run(service, "p0", f"/game new ruleset:{ruleset_id} seed:{seed} {options} {ROUNDS[ruleset_id]}")
    assert new.outcome == "applied", new.text
    assert (await run(service, "p0", "/game settings deadline_hours:1")).outcome == "shown"
    humans = min(humans, len(seats))
    for index in range(min(humans + computers, len(seats))):
        line = seats[index]
        user = f"p{index}"
        if index < humans:
            line = line.replace("/game add-ai", "/game join")
        reply = await run(service, "p0" if index >= humans else user, line)
        assert reply.outcome == "applied", reply.text
    started = await run(service, "p0", "/game start")
    assert started.outcome == "applied", started.text
    return clock, store, service


async def play_out_by_deadlines(clock, store, service) -> int:
    """Fire due deadlines until the game ends: each one moves it on. The deadlines fired."""
    for fired in range(MAX_DEADLINES):
        game = await store.latest_game("chan-1")
        ruleset = get_ruleset(game.ruleset)
        if game.status == "finished":
            return fired
        await live_timers(store, ruleset, game)
        clock.now += 1.01 * HOUR
        await service.run_due()
        after = await store.latest_game("chan-1")
        assert after.version > game.version, f"the deadline did not move {game.ruleset} on"
    raise AssertionError(f"not over after {MAX_DEADLINES} deadlines")


@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))
@given(ruleset_id=st.sampled_from([r for r in ruleset_ids() if get_ruleset(r).selfplay is not None]),
       seed=st.integers(0, 10_000), humans=st.integers(1, 3), computers=st.integers(0, 1))
def test_deadlines_alone_carry_any_game_to_its_end(tmp_path_factory, caplog, ruleset_id, seed, humans, computers):
    import asyncio

    caplog.clear()

    async def check():
        db = str(tmp_path_factory.mktemp("live") / "pitboss.db")
        clock, store, service = await absent_table(db, ruleset_id, seed, max(humans, 2 - computers), computers)
        try:
            await play_out_by_deadlines(clock, store, service)
            game = await store.latest_game("chan-1")
            assert await service.replay_matches(game)
        finally:
            await store.close()
    asyncio.run(check())
    assert [r.getMessage() for r in caplog.records if r.name == "pitboss.deadlines"] == []   # no pick refused


# --- Speedway: the autopilot keeps a ram's obligations ------------------------------------------------------

def test_speedways_autopilot_spares_its_own_car_after_a_ram_and_turns_when_it_must():
    from rules.speedway.actions import ChooseRam, Move
    from rules.speedway.ruleset import SPEEDWAY, legal_actions
    from tests.test_speedway_collisions import act, car_of, ram

    won, _ = act(ram(1), "alice", Move("normal"))   # seed 1: alice, the attacker, won the roll-off
    assert won.pending_ram.chooser == "alice"
    assert SPEEDWAY.autopilot.play(won, "alice", False) == ChooseRam("B")   # not A: that would turn her own car
    lost, _ = act(ram(8), "alice", Move("normal"))  # seed 8: bob, the defender, won it
    assert SPEEDWAY.autopilot.play(lost, "bob", False) == ChooseRam("A")
    turning, _ = act(won, "alice", ChooseRam("A"))
    assert car_of(turning, "alice").must_turn
    legal = [option.action for option in legal_actions(turning, "alice")]
    for passive in (False, True):
        played = SPEEDWAY.autopilot.play(turning, "alice", passive)
        assert played in legal and played.maneuver.startswith("turn-")


async def duel_pit_with_an_absent_carol(db_path):
    """Seed 14 on the Duel Pit, alice/carol/bob joined in that order, a 12-hour deadline: alice and bob play
    as the computer would, carol plays her first turn and never again (issue 36's reproduction)."""
    from rules.speedway import ai

    clock = Clock()
    store = await Store.open(db_path)
    service = GameService(store, render=None, clock=clock)
    for user, line in (("alice", "/game new ruleset:speedway seed:14 arena:duel"),
                       ("alice", "/game settings deadline_hours:12"), ("alice", "/game join"),
                       ("carol", "/game join"), ("bob", "/game join"), ("alice", "/game start")):
        assert (await run(service, user, line)).outcome in ("applied", "shown")
    return clock, store, service, ai


async def test_a_ram_that_obliges_an_absent_drivers_car_to_turn_never_stalls_the_game(db_path):
    clock, store, service, ai = await duel_pit_with_an_absent_carol(db_path)
    ruleset = get_ruleset("speedway")
    carol_played = carol_done = False
    try:
        for _ in range(2000):
            game = await store.latest_game("chan-1")
            state = ruleset.load_state(game.state)
            if game.status == "finished" or state.round > 6:
                break
            (player,) = ruleset.acting_players(state)
            carol_done = carol_done or carol_played and player != "carol"   # her first turn is over
            if player != "carol" or not carol_done:
                legal = [option.command for option in ruleset.legal_actions(state, player)]
                carol_played = carol_played or player == "carol"
                reply = await run(service, player, ai.choose_command(state, player, legal))
                assert reply.outcome == "applied", reply.text
                continue
            await live_timers(store, ruleset, game)
            clock.now += 12.01 * HOUR
            notices = await service.run_due()
            assert any("deadline passed" in notice.reply.text for notice in notices)
            assert (await store.latest_game("chan-1")).version > game.version   # the deadline moved it on
        assert state.round > 6
        game = await store.latest_game("chan-1")
        rams = [record.action for record in await store.actions(game.id)
                if record.actor == "carol" and "ChooseRam" in record.action]
        assert rams == ['{"outcome":"B","type":"ChooseRam"}']   # her car rammed and won: she spared it the Turn
        assert await service.replay_matches(game)
    finally:
        await store.close()


# --- the deadline path: a refused step falls back, and the clock never stops ---------------------------------

def broken_autopilot(monkeypatch, play) -> None:
    """Speedway with an autopilot that plays `play(state, player, passive)` (a bug on purpose)."""

    from rules import registry
    from rules.engine import Autopilot

    speedway = get_ruleset("speedway")
    monkeypatch.setitem(registry._LOADED, "speedway", speedway.variant(autopilot=Autopilot(play, lambda _: "oddly")))


async def speedway_duel_with_a_deadline(db_path):
    clock = Clock()
    store = await Store.open(db_path)
    service = GameService(store, render=None, clock=clock)
    for user, line in (("alice", "/game new ruleset:speedway seed:2"), ("alice", "/game settings deadline_hours:2"),
                       ("alice", "/game join"), ("bob", "/game join"), ("alice", "/game start")):
        assert (await run(service, user, line)).outcome in ("applied", "shown")
    return clock, store, service


async def test_an_autopilot_step_the_game_refuses_falls_back_to_a_legal_action(db_path, monkeypatch, caplog):
    from rules.speedway.actions import EndTurn

    broken_autopilot(monkeypatch, lambda state, player, passive: EndTurn())   # not legal in Upkeep
    clock, store, service = await speedway_duel_with_a_deadline(db_path)
    try:
        clock.now += 2.01 * HOUR
        (notice,) = [n for n in await service.run_due() if "deadline passed" in n.reply.text]
        assert "alice's deadline passed" in notice.reply.text and "keeps speed 0" in notice.reply.text
        game = await store.latest_game("chan-1")
        state = get_ruleset("speedway").load_state(game.state)
        # the whole turn, passed on (alice is pinged too: the autopilot played for her)
        assert state.active_player == "bob" and notice.reply.mentions == ("bob", "alice")
        assert "not a legal action" in caplog.text   # the bug is logged
        await live_timers(store, get_ruleset("speedway"), game, autopilot_checked=False)
    finally:
        await store.close()


async def test_a_deadline_whose_autopilot_plays_nothing_keeps_the_players_clock(db_path, monkeypatch):
    broken_autopilot(monkeypatch, lambda state, player, passive: None)
    clock, store, service = await speedway_duel_with_a_deadline(db_path)
    try:
        for _ in range(2):   # each deadline comes round again: the game is never left without a clock
            clock.now += 2.01 * HOUR
            await service.run_due()
            game = await store.latest_game("chan-1")
            (timer,) = await store.timers(game.id)
            assert timer.player == "alice" and timer.deadline_due is not None and timer.deadline_due > clock.now
    finally:
        await store.close()


async def test_a_step_refused_mid_turn_keeps_what_was_played_and_tells_it(db_path, monkeypatch):
    from rules.speedway.actions import EndTurn, SetSpeed

    def play(state, player, passive):   # sets a speed, then ends the turn with every Move still to make
        if state.deciding_player != player:
            return None
        return SetSpeed(2) if state.phase == "upkeep" else EndTurn()

    broken_autopilot(monkeypatch, play)
    clock, store, service = await speedway_duel_with_a_deadline(db_path)
    try:
        clock.now += 2.01 * HOUR
        (notice,) = [n for n in await service.run_due() if "deadline passed" in n.reply.text]
        assert "alice set speed 0 -> 2" in notice.reply.text, notice.reply.text   # the part played is told ...
        assert notice.reply.text.count("alice: normal") == 2, notice.reply.text   # ... and the turn is finished
        assert notice.reply.mentions == ("bob", "alice")
        await live_timers(store, get_ruleset("speedway"), await store.latest_game("chan-1"), autopilot_checked=False)
    finally:
        await store.close()


def busy_once_at_computer_move(monkeypatch, nth: int) -> list[int]:
    """The database stays busy at the `nth` computer's move, once (Acting.apply raises StoreBusy, as it does
    after its own retries): the calls made, for the test to see it happened."""
    from bot.storage.store import StoreBusy
    from bot.table.service.acting import Acting

    calls: list[int] = []
    apply = Acting.apply

    async def busy_once(self, channel, actor_id, command, *args, **kwargs):
        if command is None and actor_id.startswith("ai-"):
            calls.append(1)
            if len(calls) == nth:
                raise StoreBusy()
        return await apply(self, channel, actor_id, command, *args, **kwargs)
    monkeypatch.setattr(Acting, "apply", busy_once)
    return calls


def waits_on_computers_only(game) -> bool:
    ruleset = get_ruleset(game.ruleset)
    state = ruleset.load_state(game.state)
    waiting = ruleset.acting_players(state)
    return game.status == "active" and bool(waiting) and all(ruleset.is_computer(state, p) for p in waiting)


async def test_computers_stopped_by_a_busy_database_are_played_on_by_the_next_scheduler_round(db_path, monkeypatch):
    """A person's move is stored and answered as played when the computers after it meet a busy database; the
    game then waits on a computer seat, which has no deadline: the next scheduler round plays on."""
    clock, store, service = await absent_table(db_path, "speedway", 3, humans=1, computers=2)
    try:
        calls = busy_once_at_computer_move(monkeypatch, 3)
        handed = await run(service, "p0", "/game seat computer")   # every seat a computer's now
        assert handed.outcome == "applied" and "computer plays" in handed.text, handed.text
        assert len(calls) == 3
        stalled = await store.latest_game("chan-1")
        assert waits_on_computers_only(stalled) and await store.timers(stalled.id) == []
        (notice,) = [n for n in await service.run_due() if n.channel == "chan-1"]
        assert notice.reply.outcome == "applied" and "play on" in notice.reply.text
        assert (await store.latest_game("chan-1")).status == "finished"
        assert await service.run_due() == []   # played on once
    finally:
        await store.close()


async def test_computers_stopped_before_a_restart_are_played_on_after_it(db_path, monkeypatch):
    """The stalled game is found again on start (its turn message shows the stalled turn): the first scheduler
    round after the restart plays on."""
    clock, store, service = await absent_table(db_path, "speedway", 3, humans=1, computers=2)
    try:
        busy_once_at_computer_move(monkeypatch, 3)
        game = await store.latest_game("chan-1")
        assert (await run(service, "p0", "/game seat computer")).outcome == "applied"
        stalled = await store.latest_game("chan-1")
        state = get_ruleset("speedway").load_state(stalled.state)
        await store.set_turn_message(game.id, get_ruleset("speedway").turn_key(state), "m1")   # posted
        restarted = GameService(store, render=None, clock=clock)
        assert await restarted.unposted() == []   # no turn to post again: the computers' move is next
        (notice,) = [n for n in await restarted.run_due() if n.channel == "chan-1"]
        assert "play on" in notice.reply.text and (await store.latest_game("chan-1")).status == "finished"
    finally:
        await store.close()


async def test_a_stalled_game_moved_to_another_channel_is_played_on_there(db_path, monkeypatch):
    """The host moves the stalled game (its export imported elsewhere) before the scheduler's round: the
    computers play on where it went, and its old channel hears nothing more."""
    clock, store, service = await absent_table(db_path, "speedway", 3, humans=1, computers=2)
    try:
        busy_once_at_computer_move(monkeypatch, 3)
        assert (await run(service, "p0", "/game seat computer")).outcome == "applied"
        assert waits_on_computers_only(await store.latest_game("chan-1"))
        exported = await run(service, "p0", "/game export")
        imported = Command("game import", {"file": exported.files[0].data})
        moved = await service.execute("chan-2", Actor("p0", "p0"), imported, guild="g1")
        assert moved.outcome == "applied", moved.text
        notices = await service.run_due()
        (notice,) = [n for n in notices if n.channel == "chan-2"]
        assert "play on" in notice.reply.text and (await store.latest_game("chan-2")).status == "finished"
        assert not [n for n in notices if n.channel == "chan-1"]
    finally:
        await store.close()


async def test_computers_that_play_a_commands_bound_without_an_end_say_so(db_path, monkeypatch, caplog):
    """Computer seats alone that reach one command's bound of actions stop there, and the channel is told how the
    game goes on (a person takes a seat back, or the host ends it); the operator's log says so too."""
    from bot.table.service import acting

    monkeypatch.setattr(acting, "MAX_COMPUTER_ACTIONS", 7)
    clock, store, service = await absent_table(db_path, "speedway", 3, humans=1, computers=2)
    try:
        handed = await run(service, "p0", "/game seat computer")
        assert handed.outcome == "applied"
        assert "The computer seats played 7 actions and the game has not ended" in handed.text, handed.text
        assert "/game seat take" in handed.text and "played 7 actions without an end" in caplog.text
        assert waits_on_computers_only(await store.latest_game("chan-1"))
    finally:
        await store.close()


async def test_computers_that_played_the_bound_wait_after_a_restart_and_a_move_as_the_channel_was_told(
        db_path, monkeypatch):
    """Computer seats alone that played one command's whole bound without an end are not played on by the
    restart's scheduler (each restart played another bound's worth), nor where the game is moved: the game
    waits for a person to take a seat back, or for the host to end it, as the reply said."""
    from bot.table.service import acting

    monkeypatch.setattr(acting, "MAX_COMPUTER_ACTIONS", 7)
    clock, store, service = await absent_table(db_path, "speedway", 3, humans=1, computers=2)
    try:
        game = await store.latest_game("chan-1")
        assert "played 7 actions" in (await run(service, "p0", "/game seat computer")).text
        bounded = await store.latest_game("chan-1")
        state = get_ruleset("speedway").load_state(bounded.state)
        await store.set_turn_message(game.id, get_ruleset("speedway").turn_key(state), "m1")   # posted
        restarted = GameService(store, render=None, clock=clock)
        assert await restarted.unposted() == [] and await restarted.run_due() == []
        assert await store.latest_game("chan-1") == bounded   # not one action more
        exported = await run(restarted, "p0", "/game export")
        moved = await restarted.execute("chan-2", Actor("p0", "p0"),
                                        Command("game import", {"file": exported.files[0].data}), guild="g1")
        assert moved.outcome == "applied", moved.text
        assert not [n for n in await restarted.run_due() if n.channel == "chan-2"]
        there = await store.latest_game("chan-2")
        assert waits_on_computers_only(there) and there.state == bounded.state
        taken = await run(restarted, "p0", "/game seat take", channel="chan-2")
        assert taken.outcome == "applied", taken.text   # a person takes their seat back: the game goes on
    finally:
        await store.close()


async def test_computers_stopped_short_after_a_bound_and_a_seat_taken_back_are_played_on_after_a_restart(
        db_path, monkeypatch):
    """The bound's mark is of the game as it stood: a person who takes their seat back and hands it to the
    computer again, whose computers then stop short of the bound (a busy database), is played on after a
    restart like any other stalled game."""
    from bot.table.service import acting

    monkeypatch.setattr(acting, "MAX_COMPUTER_ACTIONS", 7)
    clock, store, service = await absent_table(db_path, "speedway", 3, humans=1, computers=2)
    try:
        assert "played 7 actions" in (await run(service, "p0", "/game seat computer")).text
        assert (await run(service, "p0", "/game seat take")).outcome == "applied"
        busy_once_at_computer_move(monkeypatch, 1)
        handed = await run(service, "p0", "/game seat computer")
        assert handed.outcome == "applied" and "played 7 actions" not in handed.text, handed.text
        stalled = await store.latest_game("chan-1")
        assert waits_on_computers_only(stalled)
        state = get_ruleset("speedway").load_state(stalled.state)
        await store.set_turn_message(stalled.id, get_ruleset("speedway").turn_key(state), "m1")   # posted
        restarted = GameService(store, render=None, clock=clock)
        assert await restarted.unposted() == []
        (notice,) = [n for n in await restarted.run_due() if n.channel == "chan-1"]
        assert "play on" in notice.reply.text and (await store.latest_game("chan-1")).version > stalled.version
    finally:
        await store.close()
