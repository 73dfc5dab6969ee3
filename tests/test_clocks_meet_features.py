"""The clocks of absent players where they meet other features: another's pause, a resigned seat, a GM away, a
stored time zone this machine no longer knows."""

from __future__ import annotations

from bot.table.protocol.commands import parse
from bot.table.protocol.replies import Actor
from bot.table.service.entry import GameService
from tests.test_grace_and_bank import duel
from tests.test_scheduler import HOUR, T0, Clock


async def timers_of(store):
    game = await store.active_game("chan-1")
    return {t.player: t for t in await store.timers(game.id)}


async def test_another_players_pause_does_not_restart_the_waited_on_players_deadline(store):
    service, clock, table = await duel(store, "/game settings deadline_hours:6")
    before = (await timers_of(store))["alice"].deadline_due
    assert before == T0 + 6 * HOUR
    clock.advance(5)
    assert (await table("bob", "/game pause hours:1")).outcome == "shown"
    assert (await timers_of(store))["alice"].deadline_due == before   # bob's pause is not alice's


async def test_another_players_me_away_does_not_restart_the_waited_on_players_deadline(store):
    service, clock, table = await duel(store, "/game settings deadline_hours:6")
    before = (await timers_of(store))["alice"].deadline_due
    clock.advance(5)
    assert (await table("bob", "/me away hours:1")).outcome == "applied"
    assert (await timers_of(store))["alice"].deadline_due == before


async def race_at_gm(store, clock, settings_line="/game settings deadline_hours:6"):
    import random

    from rules.registry import get_ruleset
    service = GameService(store, render=None, clock=clock)

    async def run(user, line):
        return await service.execute("race", Actor(user, user), parse(line), guild="g1")
    for user, line in (("gina", "/game new ruleset:race gm:yes tuning:0 seed:7"),
                       ("alice", "/game join pilot:rookie vehicle:racing_swoop"),
                       ("bob", "/game join pilot:champion vehicle:podracer"), ("gina", settings_line),
                       ("gina", "/game start")):
        assert (await run(user, line)).outcome in ("applied", "shown"), line
    ruleset, rng = get_ruleset("race"), random.Random(1)
    for _ in range(200):
        state = ruleset.load_state((await store.active_game("race")).state)
        waiting = ruleset.acting_players(state)
        if waiting == ("gina",) and state.phase.name == "GM":
            return service, run
        player = rng.choice(waiting)
        if player == "gina":
            await run("gina", "/gm approve:yes")
            continue
        await run(player, rng.choice(ruleset.legal_actions(state, player)).command)
    raise AssertionError("no GM phase")


async def test_a_gm_away_still_has_a_timer_and_the_deadline_moves_the_race_on(store):
    clock = Clock()
    service, run = await race_at_gm(store, clock)
    game = await store.active_game("race")
    (timer,) = await store.timers(game.id)
    assert timer.player == "gina" and timer.deadline_due is not None
    away = await run("gina", "/me away hours:10")
    assert away.outcome == "applied", away.text
    (timer,) = await store.timers(game.id)
    assert timer.deadline_due is not None and timer.deadline_due >= clock.now + 10 * HOUR
    clock.advance(17)
    notes = [n.reply for n in await service.run_due()]
    assert any("deadline passed" in n.text for n in notes), [n.text[:80] for n in notes]


async def _carol_resigned(store):
    """Alice, Bob and Carol's Speedway game, started, Carol resigned: the command of a player in it."""
    service = GameService(store, render=None, clock=Clock())

    async def run(user, line):
        return await service.execute("c", Actor(user, user), parse(line), guild="g1")
    for user, line in (("alice", "/game new ruleset:speedway seed:2"), ("alice", "/game join car:brawler"),
                       ("bob", "/game join car:torch"), ("carol", "/game join car:torch"),
                       ("alice", "/game start"), ("carol", "/game resign confirm:yes")):
        assert (await run(user, line)).outcome == "applied", line
    return run


async def test_a_resigned_player_cannot_pause_a_game_they_left(store):
    run = await _carol_resigned(store)
    paused = await run("carol", "/game pause hours:5")
    assert paused.outcome == "refused" and "resigned" in paused.text, paused.text


async def test_me_away_does_not_announce_a_pause_in_a_game_the_player_resigned(store):
    run = await _carol_resigned(store)
    away = await run("carol", "/me away hours:5")
    assert away.outcome == "refused", (away.text, [n.reply.text for n in away.notices])


def test_a_time_zone_this_machine_no_longer_knows_drops_only_the_zone():
    """A zone name tzdata dropped (US/Pacific-New went in 2020) or another machine lacks: the player's away hours
    and notify:digest must not silently fall back to 'ping me in the channel at any hour'."""
    from bot.table.clock.personal import PlayerSettings
    kept = PlayerSettings.from_json('{"time_zone": "US/Pacific-New", "away": [23, 7], "notify": "digest"}')
    assert kept.notify == "digest" and kept.away == (23, 7), kept


async def test_ending_a_pause_nobody_took_is_refused_not_announced_as_a_return(store):
    """`/game pause hours:0` from a player who never paused told the channel "alice is back" (and restarted their
    clock): it is refused now and changes nothing; after a real pause it ends it."""
    service, clock, table = await duel(store, "/game settings deadline_hours:6")
    before = (await timers_of(store))["alice"]
    clock.advance(2)
    refused = await table("alice", "/game pause hours:0")
    assert refused.outcome == "refused" and "no pause" in refused.text and "is back" not in refused.text
    assert (await timers_of(store))["alice"] == before
    assert (await table("bob", "/game pause hours:1")).outcome == "shown"
    assert "bob is back" in (await table("bob", "/game pause hours:0")).text
