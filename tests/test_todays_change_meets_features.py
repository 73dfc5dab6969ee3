"""Today's change (crash recovery, thread deletion, tournaments' crash recovery) meeting the table's other features:
what a player, a GM or a server admin would see go wrong where two of them meet."""

from __future__ import annotations

import pytest

from bot.storage.store import Store
from bot.table.service.entry import GameService
from rules.registry import get_ruleset
from tests.test_restarts_meet_features import HOUR, T0, Clock, Crash, posted, run  # noqa: F401
from tests.test_tournament_restart import four_signed_up


async def test_a_game_ended_by_its_deleted_channel_is_not_announced_there_after_every_restart(db_path):
    """A game whose thread was deleted (channel_gone ended it) is 'announced' again on each start for a week: the
    bot posts "Back after a restart: the last move was carried out ..." to a channel that no longer exists."""
    clock = Clock()
    store = await Store.open(db_path)
    service = GameService(store, render=None, clock=clock)
    try:
        for user, line in (("alice", "/game new ruleset:speedway seed:7"), ("alice", "/game join car:brawler"),
                           ("bob", "/game join car:torch"), ("alice", "/game start")):
            await posted(service, user, line)
        assert await service.unposted() == []   # every move was posted
        assert await service.channel_gone("chan-1")   # the thread was deleted: the game ends (nothing can be posted)
        assert (await store.latest_game("chan-1")).status == "finished"
    finally:
        await store.close()

    store = await Store.open(db_path)   # a restart, any day of the week after
    service = GameService(store, render=None, clock=clock)
    try:
        notices = await service.unposted()
        assert [n.channel for n in notices] == [], \
            f"posted after the restart to the deleted channel: {[(n.channel, n.reply.text[:80]) for n in notices]}"
    finally:
        await store.close()


async def test_a_stranger_who_joined_a_half_opened_tournament_game_is_not_seated_in_it(db_path, monkeypatch):
    """The bot dies after a tournament's game was made in its thread but before its members were seated; a passer-by
    types /game join in the thread meanwhile; the scheduler's recovery then starts the tournament game with the
    stranger seated in it, playing a tournament member."""
    from bot.storage import tournaments as stored
    from bot.table.league import tournament as course
    from bot.table.service.paired import PairedGames

    clock = Clock()
    store = await Store.open(db_path)
    service = GameService(store, render=None, clock=clock)
    try:
        number = await four_signed_up(service)

        async def crashing_finish(self, *args, **kwargs):
            raise Crash("killed after the tournament's first game was made, before anyone was seated")

        with monkeypatch.context() as patched:
            patched.setattr(PairedGames, "finish", crashing_finish)
            with pytest.raises(Crash):
                await run(service, "ann", "/tournament start", "hall")
        plan = course.load((await stored.get(store, number)).course)
        table = plan.tables[0]
        assert table.game_id
        thread = (await store.game(table.game_id)).channel
        joined = await run(service, "zed", "/game join car:torch", thread)   # a passer-by in the open thread
    finally:
        await store.close()

    store = await Store.open(db_path)   # the restart
    service = GameService(store, render=None, clock=clock)
    try:
        await service.unposted()
        for _ in range(4):   # scheduler rounds, past the retry
            clock.advance(1)
            await service.run_due()
        game = await store.game(table.game_id)
        state = get_ruleset(game.ruleset).load_state(game.state)
        seated = {p.id for p in state.players}
        assert "zed" not in seated, (f"the tournament's game {game.id} (table {table.members}) started with the "
                                     f"passer-by zed seated ({joined.outcome}: {joined.text[:80]}); seats: {seated}")
    finally:
        await store.close()
