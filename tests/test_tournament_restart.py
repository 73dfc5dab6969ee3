"""A crash while a tournament's or a season's game is being opened (made, but not yet seated, timed and started): after
the restart the league finishes it, once, without a second game or thread (the helpers are
tests/test_restarts_meet_features.py's)."""

from __future__ import annotations

import pytest

from bot.storage.store import Store
from bot.table.protocol.commands import parse
from bot.table.protocol.replies import Actor
from bot.table.service.entry import GameService
from rules.registry import get_ruleset
from tests.test_restarts_meet_features import HOUR, T0, Clock, Crash, posted, run  # noqa: F401


async def four_signed_up(service) -> int:
    """A Speedway elimination tournament of four in the channel "hall", ann, bob, cat and dan signed up: its number."""
    made = await run(service, "ann", "/tournament new ruleset:speedway format:elimination players:4 "
                                       "setup:'arena:duel rounds:100'", "hall")
    (join,) = made.buttons
    for member in ("ann", "bob", "cat", "dan"):
        assert (await service.press("hall", Actor(member, member), join.custom_id, guild="g1")).outcome == "applied"
    return int(join.custom_id.split(":")[1])


# A tournament's round opening, the process killed half-way through opening a table


async def test_a_tournament_table_half_opened_by_a_crash_is_started_after_the_restart(db_path, monkeypatch):
    """The bot dies after a tournament's game was made and linked but before its deadline and start: after the
    restart the game stays in its lobby for ever, untimed, and the tournament never gets past round 1."""
    from bot.storage import tournaments as stored
    from bot.table.league import tournament as course
    from bot.table.service.timers import Timers

    clock = Clock()
    store = await Store.open(db_path)
    service = GameService(store, render=None, clock=clock)
    try:
        number = await four_signed_up(service)
        real_settings = Timers.settings

        async def crashing_settings(self, *args, **kwargs):
            raise Crash("killed while the tournament's first game was being set up")

        monkeypatch.setattr(Timers, "settings", crashing_settings)
        with pytest.raises(Crash):
            await run(service, "ann", "/tournament start", "hall")
        monkeypatch.setattr(Timers, "settings", real_settings)
    finally:
        await store.close()

    store = await Store.open(db_path)   # the restart
    service = GameService(store, render=None, clock=clock)
    try:
        await service.unposted()
        for _ in range(8):   # days of scheduler rounds, far past any retry
            clock.advance(6)
            await service.run_due()
        plan = course.load((await stored.get(store, number)).course)
        stuck = await _stuck(store, [table.game_id for table in plan.tables if table.game_id])
        assert plan.tables[0].game_id, "the crashed table's game was linked to the tournament"
        assert stuck == [], f"tournament games stuck after the restart (in the lobby, or untimed): {stuck}"
    finally:
        await store.close()


async def test_a_season_game_half_opened_by_a_crash_is_started_after_the_restart(db_path, monkeypatch):
    """The same crash in a season's pairing (it opens its games as a tournament does): after the restart its game is
    seated, timed and started, and no second game is paired for its members."""
    from bot.storage import seasons as stored
    from bot.table.service.timers import Timers

    clock = Clock()
    store = await Store.open(db_path)
    service = GameService(store, render=None, clock=clock)
    try:
        made = await service.execute("hall", Actor("boss", "boss", True), parse(
            "/league new ruleset:speedway season_days:7 max_games:1 setup:'arena:duel rounds:100'"), guild="g1")
        assert made.outcome == "applied", made.text
        await run(service, "ann", "/league join", "hall")

        async def crashing_settings(self, *args, **kwargs):
            raise Crash("killed while the season's game was being set up")

        with monkeypatch.context() as patched:
            patched.setattr(Timers, "settings", crashing_settings)
            with pytest.raises(Crash):
                await run(service, "bob", "/league join", "hall")
    finally:
        await store.close()

    store = await Store.open(db_path)   # the restart
    service = GameService(store, render=None, clock=clock)
    try:
        await service.unposted()
        for _ in range(8):
            clock.advance(6)
            await service.run_due()
        games = await stored.games(store, 1)
        assert len(games) == 1 and games[0].game_id, f"the season paired {games}"
        stuck = await _stuck(store, [games[0].game_id])
        assert stuck == [], f"season games stuck after the restart (in the lobby, or untimed): {stuck}"
    finally:
        await store.close()


async def _stuck(store, game_ids: list[int]) -> list[tuple]:
    """The games among these still running in their lobby, or with no deadline running."""
    from rules.table import TablePhase

    stuck = []
    for game_id in game_ids:
        game = await store.game(game_id)
        state = get_ruleset(game.ruleset).load_state(game.state)
        timers = [t for t in await store.timers(game.id) if t.deadline_due is not None]
        if game.status == "active" and (state.phase == TablePhase.LOBBY or not timers):
            stuck.append((game.id, game.channel, state.phase, timers))
    return stuck


