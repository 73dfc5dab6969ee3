"""Tournaments as stored, on SQLite and PostgreSQL: made, read, written by one writer at a time, and the
games that belong to each."""

import pytest

from bot.storage import tournaments
from bot.storage.store import VersionConflict
from bot.table.league import tournament as course

BACKENDS = ("sqlite", "postgres")   # stored: both backends (tests/conftest.py)


async def _game(store, channel: str) -> int:
    async with store.transaction():
        game = await store.create_game_tx(channel, "speedway", "host", 7, "{}", "{}", "g1")
    return game.id


async def test_a_tournament_is_stored_read_back_and_listed_by_server(store):
    made = await tournaments.create(store, "g1", "c1", "speedway", "{}", "alice", 0.1,
                                    course.dump(course.new("elimination", 2, 8)))
    other = await tournaments.create(store, "g2", "c9", "track", "{}", "bob", None,
                                     course.dump(course.new("round-robin", 2, 4)))
    assert await tournaments.get(store, made.id) == made
    assert [t.id for t in await tournaments.of_guild(store, "g1")] == [made.id]
    assert (await tournaments.get(store, other.id)).gate is None
    assert await tournaments.get(store, made.id + other.id + 1) is None


async def test_a_second_writer_of_the_same_version_is_turned_back(store):
    made = await tournaments.create(store, "g1", "c1", "speedway", "{}", "alice", None,
                                    course.dump(course.new("elimination", 2, 8)))
    async with store.transaction():
        saved = await tournaments.save_tx(store, made, "running", made.course)
    with pytest.raises(VersionConflict):
        async with store.transaction():
            await tournaments.save_tx(store, made, "finished", made.course)
    again = await tournaments.get(store, made.id)
    assert again == saved and again.status == "running" and again.version == 2
    assert [t.id for t in await tournaments.of_guild(store, "g1", ("finished",))] == []


async def test_a_game_knows_its_tournament(store):
    made = await tournaments.create(store, "g1", "c1", "speedway", "{}", "alice", None,
                                    course.dump(course.new("round-robin", 2, 4)))
    game_id, loose = await _game(store, "t1"), await _game(store, "t2")
    async with store.transaction():
        await tournaments.link_game_tx(store, made.id, game_id)
    assert await tournaments.of_game(store, game_id) == made
    assert await tournaments.of_game(store, loose) is None
    await tournaments.set_message(store, made.id, "555")
    assert (await tournaments.get(store, made.id)).message_id == "555"
