"""A table's pause limit holds across renewals (issue 36, item 15): `/me away` (or `/game pause`) asked again
while a pause runs, or after `/me back`, ends no later than the limit after the pause began; once the limit has
run since then, a pause starts anew."""

from __future__ import annotations

from bot.storage.store import Store
from bot.table.clock.moments import moment
from bot.table.service.entry import GameService
from tests.test_player_clock import HOUR, T0, Clock, run, speedway_waiting_on_alice


async def _deadline(store) -> float:
    (timer,) = await store.timers((await store.active_game("chan-1")).id)
    return timer.reminder_due


async def test_renewing_a_pause_never_takes_it_past_the_tables_limit(db_path):
    clock = Clock()
    store = await Store.open(db_path)
    try:
        service = GameService(store, render=None, clock=clock)
        await speedway_waiting_on_alice(service, settings_line="/game settings pause_limit_hours:10")
        assert (await run(service, "alice", "/me away hours:8")).outcome == "applied"
        clock.now = T0 + 7 * HOUR
        renewed = await run(service, "alice", "/me away hours:8")
        assert f"until {moment(T0 + 10 * HOUR)} (its table allows up to 10 h from when your pause began)" \
            in renewed.text, renewed.text
        assert await _deadline(store) == T0 + 22 * HOUR   # the reminder after the capped pause, not T0 + 27 h
        clock.now = T0 + 8 * HOUR
        assert (await run(service, "alice", "/me back")).outcome == "applied"
        again = await run(service, "alice", "/me away hours:8")   # back and away again: the same pause
        assert f"until {moment(T0 + 10 * HOUR)}" in again.text, again.text
        paused = await run(service, "alice", "/game pause hours:9")   # the channel's own pause, the same limit
        assert f"alice is away until {moment(T0 + 10 * HOUR)}" in paused.text, paused.text
        clock.now = T0 + 10 * HOUR   # the limit has run: a new pause
        fresh = await run(service, "alice", "/me away hours:8")
        assert f"until {moment(T0 + 18 * HOUR)}." in fresh.text, fresh.text
        assert await _deadline(store) == T0 + 30 * HOUR
    finally:
        await store.close()
