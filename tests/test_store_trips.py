"""A write transaction in few trips to the database (issue 39): its BEGIN goes with its first statement, and
the writes whose row count nobody reads (a logged action's row, a timer) go with the next statement or the
COMMIT, read back inside the transaction, committed with it, or undone with it."""

from __future__ import annotations

import pytest

from bot.storage.store import Store, Timer

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
