"""The seated GM (/new race gm:yes) against the table's clocks: an /undo of a private ruling or a note, and a move
of the race to another channel, must not restart the deadline the racers see."""

from __future__ import annotations

import pytest

from bot.table.protocol.commands import Command, parse
from bot.table.protocol.replies import Actor
from bot.table.service.entry import GameService
from rules.race.ruleset import RULESET
from tests.test_plugin_toy import HOUR, Clock

CHANNEL = "race"


async def _do(service, user: str, line: str, channel: str = CHANNEL, admin: bool = False):
    return await service.execute(channel, Actor(user, user, admin), parse(line), guild="g1")


async def _state(service, channel: str = CHANNEL):
    game = await service._store.active_game(channel) or await service._store.latest_game(channel)
    return RULESET.load_state(game.state)


async def gm_race(store, clock: Clock, settings: str = "/game settings deadline_hours:6", seed: int = 7):
    """gina the GM, alice and bob racing, started: the race waits on gina readying the first section."""
    service = GameService(store, render=None, clock=clock)
    for user, line in (("gina", f"/game new ruleset:race gm:yes tuning:0 seed:{seed}"),
                       ("alice", "/game join pilot:rookie vehicle:racing_swoop"),
                       ("bob", "/game join pilot:champion vehicle:podracer"), ("gina", settings),
                       ("gina", "/game start")):
        assert (await _do(service, user, line)).outcome in ("applied", "shown"), line
    return service


async def _clock_lines(service) -> list[str]:
    """The ⏰ line a racer reads now in /game status, and the clock /games shows them."""
    status = (await _do(service, "bob", "/game status")).text.splitlines()[-1]
    games = (await _do(service, "bob", "/games")).text
    return [status, games[games.index("⏰"):]]


@pytest.mark.parametrize("ruling", ["/gm change:2", "/gm racer:alice tell:\"mind the wind\""])
async def test_the_gm_undoing_a_ruling_or_a_note_does_not_restart_the_gms_clock(store, ruling):
    """gina readies the first section: her deadline (6 h) is on every racer's /game status and /games. Five hours
    in she changes the DC privately, or sends alice a note (neither moves a clock: acting.apply restarts none for
    an action the channel may not learn of, nor for a note, which "takes no turn and starts or resets no timer"),
    then takes it back with /undo. Her deadline must still fall at 6 h; instead the undo restarts her clock
    (acting.undo calls Timers.sync_tx with acted=gina, and she is still waited on), so it jumps to 11 h: the racers
    read from the ⏰ line that she ruled in secret, and a GM can put off her deadline for ever by ruling and
    undoing."""
    clock = Clock()
    service = await gm_race(store, clock)
    clock.now += 5 * HOUR
    before = await _clock_lines(service)
    assert before[0].startswith("⏰ gina: deadline"), before
    assert (await _do(service, "gina", ruling)).outcome == "applied"
    assert await _clock_lines(service) == before   # the ruling itself moves no clock
    undone = await _do(service, "gina", "/undo")
    assert undone.outcome == "applied", undone.text
    assert await _clock_lines(service) == before


async def test_moving_the_race_does_not_give_the_waited_on_gm_a_fresh_deadline(store):
    """gina, the GM (and so the host), has 6 h to ready the section; 5 h in she exports the race and imports it in
    another channel (/game import: the game moves with its table settings). Nothing was played: the race still
    waits on her in the same turn, so her deadline must still fall at 6 h, as /game status said before the move.
    Relocation's Timers.sync_tx(force=True) starts every waited-on clock anew: her deadline moves to 11 h, and a
    GM who moves the race before each deadline never meets one (the racers' deadlines likewise)."""
    clock = Clock()
    service = await gm_race(store, clock)
    clock.now += 5 * HOUR
    before = (await _do(service, "alice", "/game status")).text.splitlines()[-1]
    assert before.startswith("⏰ gina: deadline"), before
    exported = await _do(service, "gina", "/game export")
    moved = await service.execute("elsewhere", Actor("gina", "gina"),
                                  Command("game import", {"file": exported.files[0].data}), guild="g1")
    assert moved.outcome == "applied", moved.text
    after = (await _do(service, "alice", "/game status", channel="elsewhere")).text.splitlines()[-1]
    assert after == before, (before, after)
