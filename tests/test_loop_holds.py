"""No command holds the event loop over a whole log or every move a player made (issue 39 item 5): /stats
reckons the time to move in the database, a rollback of a long game numbers its actions without judging
each one on the loop and sends its log to the long-job worker in slices, and another channel is answered
while either one's long part is still running."""

from __future__ import annotations

import asyncio
import functools
import statistics
import threading
from datetime import UTC, datetime, timedelta

import pytest

from bot.cli.bench_stall import SEED, circling_log, prepared_game, store_prepared
from bot.table.jobs import heavy_jobs
from bot.table.protocol.commands import parse
from bot.table.protocol.replies import Actor
from bot.table.service import rollback, standings
from rules.codec import dumps, encode_state, encode_tagged
from rules.engine import replay_with_events
from rules.registry import get_ruleset

BACKENDS = ("sqlite", "postgres")   # the time to move is reckoned in each dialect's SQL
GUILD = "loop-server"
LONG = 2_500   # actions in the long game: more than two of the slices a log crosses to the worker in


def _finished_log(length: int) -> list:
    """A Speedway duel of `length` circling actions that ben then resigns: ann wins."""
    ruleset = get_ruleset("speedway")
    resign = parse("/game resign confirm:yes")
    return [*circling_log("ann", "ben", length)[:-1], ("ben", ruleset.command_to_action(resign.name, resign.options))]


async def _store_finished(store, channel: str, log: list) -> int:
    ruleset = get_ruleset("speedway")
    first, state, events = replay_with_events(ruleset, {}, SEED, "ann", log)
    entries = [(actor, dumps(encode_tagged(action)), dumps([encode_tagged(e) for e in happened]))
               for (actor, action), happened in zip(log, events)]
    async with store.transaction():
        game = await store.create_game_tx(channel, "speedway", "ann", SEED, "{}", encode_state(first), GUILD)
        await store.append_log_tx(game, entries, encode_state(state), "finished")
        await store.add_seats_tx(game.id, ("ann", "ben"))
    return game.id


async def test_stats_reckons_the_time_to_move_in_the_database_and_gets_it_right(service, store):
    log = _finished_log(41)
    start = datetime(2026, 12, 1, tzinfo=UTC)
    waits: list[float] = []
    for number in range(3):
        game_id = await _store_finished(store, f"done-{number}", log)
        at = start + timedelta(days=number)
        for seq in range(1, len(log) + 1):   # uneven gaps, each game its own
            gap = timedelta(minutes=(seq * (number + 3)) % 11 + 1)
            if log[seq - 1][0] == "ann" and seq > 1:
                waits.append(gap.total_seconds())
            at += gap
            await store.driver.execute("UPDATE actions SET created_at = ? WHERE game_id = ? AND seq = ?",
                                       (at.isoformat(timespec="seconds"), game_id, seq))
    # the games stored here by hand are rated first, as their ends would have rated them (issue 40 item 3):
    # what /stats reads is then its own rows alone
    await service.execute("elsewhere", Actor("zed", "zed"), parse("/standings ruleset:speedway"), guild=GUILD)
    fetched: list[int] = []
    real_fetchall, real_fetchone = store.driver.fetchall, store.driver.fetchone

    async def fetchall(sql, params=()):
        rows = await real_fetchall(sql, params)
        fetched.append(len(rows))
        return rows

    async def fetchone(sql, params=()):
        row = await real_fetchone(sql, params)
        fetched.append(row is not None)
        return row

    store.driver.fetchall, store.driver.fetchone = fetchall, fetchone
    reply = await service.execute("elsewhere", Actor("ann", "ann"), parse("/stats"), guild=GUILD)
    store.driver.fetchall, store.driver.fetchone = real_fetchall, real_fetchone
    assert f"median time to move {standings._duration(statistics.median(waits))}" in reply.text, reply.text
    assert "3 games, 3 won" in reply.text
    # ann's 57 timed moves stay in the database: what reaches the event loop is a handful of rows
    assert len(waits) == 57 and sum(fetched) < 10, fetched


@pytest.mark.rules_only
async def test_another_channel_is_answered_while_stats_reads_the_games(service, store, monkeypatch):
    await _store_finished(store, "done", _finished_log(21))
    await _status_game(service)
    held, loop_thread, ran_on = threading.Event(), threading.get_ident(), []
    real_records = standings.records

    def slow_records(games):
        ran_on.append(threading.get_ident())
        held.wait(10)
        return real_records(games)

    monkeypatch.setattr(standings, "records", slow_records)
    stats = asyncio.create_task(service.execute("elsewhere", Actor("ann", "ann"), parse("/stats"), guild=GUILD))
    try:
        status = await service.execute("other", Actor("cat", "cat"), parse("/game status"))
        assert status.outcome == "shown" and not stats.done()
    finally:
        held.set()
    assert "1 game, 1 won" in (await stats).text
    assert ran_on and loop_thread not in ran_on


async def _status_game(service) -> None:
    for user, line in (("cat", "/game new ruleset:speedway seed:1"), ("cat", "/game join"), ("dan", "/game join")):
        assert (await service.execute("other", Actor(user, user), parse(line))).outcome == "applied"


@functools.cache
def _long_log():
    """The long game, played once for all the tests here."""
    return prepared_game(circling_log("ann", "ben", LONG + 1)[:-1], "ann")


async def _long_game(service, store) -> None:
    await store_prepared(store, "long", _long_log(), "active", "ann", GUILD)
    await _status_game(service)


async def _roll_back(service, to: int):
    proposed = await service.execute("long", Actor("ann", "ann"), parse(f"/game rollback to:{to}"))
    assert proposed.outcome == "shown", proposed.text
    return await service.execute("long", Actor("ben", "ben"), parse("/game rollback vote:yes"))


@pytest.mark.rules_only
@pytest.mark.parametrize("hides_actions", [False, True])
async def test_a_rollback_of_a_long_game_judges_and_packs_its_log_off_the_loop(service, store, monkeypatch,
                                                                                 hides_actions):
    """The channel's numbering of a long log is every action's (a game that hides none) or judged on a
    thread; the log crosses to the worker as pickled slices of at most PACKED_ROWS rows."""
    await _long_game(service, store)
    loop_thread, judged, sent = threading.get_ident(), [], []
    real_seen_log, real_run = rollback.seen_log, service._table.heavy.run

    def seen_log(ruleset, state, records, viewer):
        judged.append((threading.get_ident(), len(records)))
        return real_seen_log(ruleset, state, records, viewer)

    async def run(job, *args, items=0):
        sent.extend(arg for arg in args if isinstance(arg, (list, heavy_jobs.PackedLog)))
        return await real_run(job, *args, items=items)

    monkeypatch.setattr(rollback, "seen_log", seen_log)
    monkeypatch.setattr(rollback, "hides_whole_actions", lambda ruleset, state: hides_actions, raising=False)
    monkeypatch.setattr(service._table.heavy, "run", run)
    done = await _roll_back(service, LONG - 5)
    assert done.outcome == "applied" and "roll back to #2495" in done.text, done.text
    assert not [size for thread, size in judged if thread == loop_thread and size > 100], judged
    assert bool(judged) == hides_actions
    logs = [arg for arg in sent if isinstance(arg, heavy_jobs.PackedLog)]
    assert logs and not [arg for arg in sent if isinstance(arg, list) and len(arg) > 100]
    assert all(len(logs[0].slices) > 2 and len(rows) <= heavy_jobs.PACKED_ROWS
               for packed in logs for rows in map(heavy_jobs.pickle.loads, packed.slices))
    assert sum(len(heavy_jobs.pickle.loads(piece)) for piece in logs[0].slices) == LONG - 5


@pytest.mark.rules_only
async def test_another_channel_is_answered_while_a_long_game_is_rolled_back(service, store, monkeypatch):
    await _long_game(service, store)
    held, ran_on = threading.Event(), []
    real_rebuilt = heavy_jobs.rebuilt_snapshot

    def slow_rebuilt(*args):
        ran_on.append(threading.get_ident())
        if len(ran_on) > 1:   # the vote's own rebuild (the proposal's ran at once)
            held.wait(10)
        return real_rebuilt(*args)

    monkeypatch.setattr(heavy_jobs, "rebuilt_snapshot", slow_rebuilt)
    assert (await service.execute("long", Actor("ann", "ann"), parse(f"/game rollback to:{LONG - 5}"))
            ).outcome == "shown"
    voted = asyncio.create_task(service.execute("long", Actor("ben", "ben"), parse("/game rollback vote:yes")))
    try:
        status = await service.execute("other", Actor("cat", "cat"), parse("/game status"))
        assert status.outcome == "shown" and not voted.done()
    finally:
        held.set()
    assert (await voted).outcome == "applied"
    assert threading.get_ident() not in ran_on


@pytest.mark.rules_only
async def test_a_seat_given_in_a_long_game_played_within_the_hour_is_judged_off_the_loop(service, store, monkeypatch):
    """The seat powers read the log back an hour: a long game played in the last hour is read whole, and its
    judgement (how often the seat changed hands, whether its player is gone) runs on a thread."""
    from bot.table.service import seat_powers

    await _long_game(service, store)
    judged_on, real = [], seat_powers._not_too_often

    def not_too_often(entries, ages, seat):
        judged_on.append((threading.get_ident(), len(entries)))
        return real(entries, ages, seat)

    monkeypatch.setattr(seat_powers, "_not_too_often", not_too_often)
    given = await service.execute("long", Actor("ben", "ben"), parse("/game seat give to:cat"))
    assert given.outcome == "applied", given.text
    assert judged_on == [(judged_on[0][0], LONG)] and judged_on[0][0] != threading.get_ident()


async def test_a_member_of_many_running_games_is_refused_forgetting_without_a_snapshot_read(service, store,
                                                                                         monkeypatch):
    """/me forget refusing a member of many running games counts their seats in the database: no game's state
    is decoded or even read (it was each game's, on a thread that held the GIL while the loop waited). A seat
    resigned or given away is no seat; a game the member hosts is one, seated or not."""
    from bot.cli.bench_stall import store_server
    from rules.engine import Ruleset

    await store_server(store, GUILD, "ann", 12)   # chan-server-0..11: ann hosts, ann and rival seated
    for channel, lines in (("resigned", ["/game resign confirm:yes"]),
                           ("given", ["/game seat give to:eve", ("eve", "/game seat take")])):
        for user, line in (("cat", "/game new ruleset:speedway seed:1"), ("cat", "/game join"), ("ann", "/game join"),
                           ("dan", "/game join"), ("cat", "/game start"), *(("ann", x) if isinstance(x, str) else x
                                                                           for x in lines)):
            assert (await service.execute(channel, Actor(user, user), parse(line))).outcome == "applied", line
    for user, line in (("ann", "/game new ruleset:speedway seed:1"), ("cat", "/game join")):   # hosted, unseated
        assert (await service.execute("hosted", Actor(user, user), parse(line))).outcome == "applied", line
    decoded, snapshots_read = [], []
    real_load, real_fetchall, real_fetchone = Ruleset.load_state, store.driver.fetchall, store.driver.fetchone

    def load_state(ruleset, text):
        decoded.append(ruleset.id)
        return real_load(ruleset, text)

    def read(rows):
        snapshots_read.extend(v for row in rows for v in row if isinstance(v, str) and v.startswith('{"schema"'))
        return rows

    async def fetchall(sql, params=()):
        return read(await real_fetchall(sql, params))

    async def fetchone(sql, params=()):
        row = await real_fetchone(sql, params)
        return read([row] if row else []) and row

    monkeypatch.setattr(Ruleset, "load_state", load_state)
    monkeypatch.setattr(store.driver, "fetchall", fetchall)
    monkeypatch.setattr(store.driver, "fetchone", fetchone)
    named = ", ".join(f"chan-server-{n}" for n in range(10))   # the first ten, in the order they began
    for user, games in (("rival", 12), ("ann", 13)):
        reply = await service.execute("elsewhere", Actor(user, user), parse("/me forget"), guild=GUILD)
        assert reply.outcome == "refused", reply.text
        assert f"You still play in {games} running games ({named}): your seat" in reply.text, reply.text
    assert decoded == [] and snapshots_read == []
    dan = await service.execute("elsewhere", Actor("dan", "dan"), parse("/me forget"), guild=GUILD)
    assert "still play in 2 running games (resigned, given)" in dan.text, dan.text
    assert (await service.execute("x", Actor("eve", "eve"), parse("/me forget"))).outcome == "refused"
    asked = await service.execute("x", Actor("bob", "bob"), parse("/me forget"))
    assert asked.outcome == "shown" and "in the 0 games you played" in asked.text, asked.text


def test_the_stall_bench_runs_every_table_command_as_itself():
    """`pitboss bench --stall` measures every table command (each game's own are found by playing it): a new
    one without a scene there fails here, as the bench itself says NOT COVERED."""
    from bot.cli.bench_stall import ANN, _table_scenes
    from bot.table.protocol.commands import TABLE_COMMANDS, Command

    scenes = _table_scenes("long", "imported", "new", 100, b"{}", (ANN, parse("/end")))
    typed = [(name, line if isinstance(line, Command) else parse(line)) for name, _channel, _actor, line in scenes]
    assert {name for name, _ in typed} - {"end"} == {spec.name for spec in TABLE_COMMANDS}
    assert all(command.name == name for name, command in typed)


def test_a_hold_is_judged_on_the_loops_cpu_and_its_wall_time_less_its_wait_for_a_core():
    """On a busy machine a step's wall time counts other processes' turns on the core: a hold passes when
    waits for a core put it over (the loop's own, or those of a GIL holder that did not run; that one named),
    and fails on the loop's own CPU, or on a wait for the GIL while a thread of the bot ran."""
    from bot.cli.bench_stall import Run, _verdict

    def run(hold: float, cpu: float, ready: float, others: float = 0.0) -> Run:
        return Run(0.5, hold, cpu, ready, others, cpu, hold - ready, min(hold - ready, cpu + others), cpu, 0.01)

    assert _verdict([run(0.004, 0.003, 0.0), run(0.015, 0.002, 0.010)]) == "ok"
    assert _verdict([run(0.040, 0.003, 0.036)]) == "ok (wall: waited for a core)"
    assert _verdict([run(0.029, 0.003, 0.0, others=0.002)]) == "ok (wall: blocked while no thread of the bot ran)"
    assert _verdict([run(0.004, 0.003, 0.0), run(0.029, 0.003, 0.001, others=0.025)]) == "OVER"   # a thread ran
    assert _verdict([run(0.060, 0.025, 0.035)]) == "OVER"   # the loop's own work
