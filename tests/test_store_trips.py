"""A write transaction in few trips to the database (issue 39): its BEGIN goes with its first statement, and
the writes whose row count nobody reads (a logged action's row, a timer) go with the next statement or the
COMMIT, read back inside the transaction, committed with it, or undone with it."""

from __future__ import annotations

import pytest

from bot.storage.store import Store, Timer, VersionConflict

BACKENDS = ("sqlite", "postgres")


async def _game(store: Store) -> int:
    async with store.transaction():
        game = await store.create_game_tx("c", "speedway", "ann", 1, "{}", "{}")
    return game.id


async def test_a_write_left_for_later_is_read_back_and_committed_with_its_transaction(store: Store) -> None:
    game = await _game(store)
    timer = Timer(game, "c", "ann", "k", 10.0, 20.0, "t")
    async with store.transaction():
        await store.set_timer_tx(timer)
        assert await store.timers_tx(game) == [timer]   # the next statement sees it
        await store.set_timer_tx(Timer(game, "c", "ben", "k", None, None, "u"))
    assert [t.player for t in await store.timers(game)] == ["ann", "ben"]   # committed without a read after it
    async with store.transaction():
        await store.clear_timer_tx(game, "ann")
    assert [t.player for t in await store.timers(game)] == ["ben"]


async def test_a_write_left_for_later_is_undone_with_its_transaction(store: Store) -> None:
    game = await _game(store)
    with pytest.raises(RuntimeError):
        async with store.transaction():
            await store.set_timer_tx(Timer(game, "c", "ann", "k", 10.0, 20.0, "t"))
            raise RuntimeError("refused")
    assert await store.timers(game) == []
    async with store.transaction():   # a transaction that reads and writes nothing commits nothing
        pass
    assert await store.timers(game) == []


@pytest.mark.sqlite_only
async def test_a_write_transaction_takes_one_trip_per_read_and_one_to_commit(store: Store) -> None:
    game = await _game(store)
    connection = store.driver._db   # type: ignore[attr-defined]
    trips = []
    original = connection._execute

    async def counted(fn, *args, **kwargs):
        trips.append(fn)
        return await original(fn, *args, **kwargs)

    connection._execute = counted
    try:
        async with store.transaction():
            assert await store.timers_tx(game) == []   # with the BEGIN
            await store.set_timer_tx(Timer(game, "c", "ann", "k", 10.0, 20.0, "t"))
            await store.clear_timer_tx(game, "ben")
    finally:
        del connection._execute
    assert len(trips) == 2   # BEGIN and the read; the two writes and the COMMIT
    assert [t.player for t in await store.timers(game)] == ["ann"]


async def _counting_trips(store: Store) -> list:
    """The trips to the SQLite connection's thread from now on (one entry each)."""
    connection = store.driver._db   # type: ignore[attr-defined]
    trips: list = []
    original = connection._execute

    async def counted(fn, *args, **kwargs):
        trips.append(fn)
        return await original(fn, *args, **kwargs)

    connection._execute = counted
    return trips


@pytest.mark.sqlite_only
async def test_a_move_is_read_in_one_trip_and_written_in_the_commits(store: Store) -> None:
    game = await _game(store)
    trips = await _counting_trips(store)
    try:
        async with store.transaction():
            record, _voting, _followed, _own = await store.active_game_for_move_tx("c", "ann")   # with the BEGIN
            assert record is not None
            moved = await store.append_action_tx(record, "ann", '{"type":"A"}', "[]", '{"moved":1}', "active")
            await store.set_timer_tx(Timer(game, "c", "ann", "k", 10.0, 20.0, "t"))
    finally:
        del store.driver._db._execute   # type: ignore[attr-defined]
    assert len(trips) == 2   # the snapshot's versioned write, the log's row and the timer go with the COMMIT
    stored = await store.game(game)
    assert stored is not None and (stored.version, stored.state) == (moved.version, '{"moved":1}') == (1, '{"moved":1}')
    assert [a.actor for a in await store.actions(game)] == ["ann"]


async def test_a_stale_move_left_for_later_undoes_its_whole_transaction(store: Store) -> None:
    game = await _game(store)
    stale = await store.game(game)
    assert stale is not None
    async with store.transaction():
        await store.append_action_tx(stale, "ann", '{"type":"A"}', "[]", '{"moved":1}', "active")
    with pytest.raises(VersionConflict):
        async with store.transaction():
            await store.append_action_tx(stale, "ben", '{"type":"B"}', "[]", '{"moved":2}', "active")
            await store.set_timer_tx(Timer(game, "c", "ben", "k", 10.0, 20.0, "t"))
    stored = await store.game(game)
    assert stored is not None and (stored.version, stored.state) == (1, '{"moved":1}')
    assert [a.actor for a in await store.actions(game)] == ["ann"] and await store.timers(game) == []
