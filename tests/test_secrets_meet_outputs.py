"""Hidden information where it meets the table's other features: a rematch and a resignation. Each test plays a
real game through the service on a real SQLite store and reads what a player is given."""

from __future__ import annotations

import json

from bot.table.protocol.commands import Command, parse
from bot.table.protocol.replies import Actor
from bot.table.service.entry import GameService
from rules.registry import get_ruleset
from tests.conftest import TABLE_TIME
from tests.test_race_table import OWN_TRACK  # the group's own track, a boost trap in its first section

CHANNEL = "secrets"
RACE = get_ruleset("race")



def _quiet(store) -> GameService:
    return GameService(store, render=None, clock=lambda: TABLE_TIME)


async def _do(service: GameService, user: str, line: str | Command):
    command = parse(line) if isinstance(line, str) else line
    return await service.execute(CHANNEL, Actor(user, user), command)


async def _must(service: GameService, user: str, line: str | Command):
    reply = await _do(service, user, line)
    assert reply.outcome in ("applied", "shown"), (user, line, reply.text)
    return reply


def _export(reply) -> dict:
    (attached,) = reply.files
    return json.loads(attached.data)


async def test_a_rematch_on_the_gms_own_track_keeps_its_traps_from_the_racers(store):
    """gina (the GM) races alice and bob on her own track with a planted boost trap; the race ends and all three
    agree to a rematch, which runs on the same track. While it runs, the track is the GM's: bob's export of it
    says Withheld. But `/game export game:1` (the finished first race, in the same channel) hands bob the very
    file: the trap, its DC and where it lies."""
    service = _quiet(store)
    await _must(service, "gina", "/game new ruleset:race gm:yes tuning:0")
    await _must(service, "gina", Command("custom", {"file": OWN_TRACK}))
    await _must(service, "alice", "/game join pilot:rookie vehicle:racing_swoop")
    await _must(service, "bob", "/game join pilot:veteran vehicle:podracer")
    await _must(service, "gina", "/game start")
    first = (await store.active_game(CHANNEL)).id
    await _must(service, "gina", "/game end")
    for user in ("gina", "alice", "bob"):
        await _must(service, user, "/game rematch")
    rematch = await store.active_game(CHANNEL)
    assert rematch is not None and rematch.id != first
    assert RACE.load_state(rematch.state).the_track.name == "Secret Loop"   # the same secret track, raced again
    running = json.dumps(_export(await _must(service, "bob", "/game export")))
    assert "boost_trap" not in running and "Withheld" in running             # the running race keeps it
    earlier = json.dumps(_export(await _must(service, "bob", f"/game export game:{first}")))
    assert "boost_trap" not in earlier, "bob reads the rematch's hidden trap in the first race's export"


async def test_a_resigned_drivers_counter_that_was_never_turned_up_stays_face_down(store):
    """bob sets his counter (R) face down, then resigns before the others set theirs: his driver leaves "with any
    counter they had set", and the reveal turns up alice's and carl's only. The counter nobody ever saw must stay
    withheld from carl; from the reveal on, his export shows it."""
    service = _quiet(store)
    for user, line in (("alice", "/game new ruleset:battlecars seed:3"), ("alice", "/game join vehicle:interceptor"),
                       ("bob", "/game join vehicle:tank"), ("carl", "/game join vehicle:rammer"),
                       ("alice", "/game start"), ("bob", "/speed value:R"), ("bob", "/game resign confirm:yes"),
                       ("alice", "/speed value:2")):
        await _must(service, user, line)
    revealed = await _must(service, "carl", "/speed value:1")
    assert "Speed counters revealed: alice 2, carl 1." in revealed.text   # bob's was never turned up
    actions = _export(await _must(service, "carl", "/game export"))["actions"]
    bobs = [a["action"] for a in actions if a["actor"] == "bob" and a["action"]["type"] in ("SetSpeed", "Withheld")]
    assert bobs == [{"type": "Withheld", "stands_for": "a speed counter, face down"}], bobs
