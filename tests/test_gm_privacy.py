"""A seated GM's private rulings leave no trace a racer can read (issue 36, item 7): two races that differ only
by the GM's private rulings read the same to a racer through `/undo`'s refusal, the export after a rollback
and the set-aside log."""

from __future__ import annotations

import json
import random
from pathlib import Path

from bot.storage.store import Store
from bot.table.protocol.commands import parse
from bot.table.protocol.replies import Actor, Reply
from bot.table.service.entry import GameService
from rules.registry import get_ruleset
from tests.conftest import TABLE_TIME

RACE = get_ruleset("race")
RULINGS = ("/gm change:3", "/gm change:-3", "/gm change:0")   # three rulings, the section as it was
QUIET = ("/act maneuver:none", "/feature attempt:no", "/coast", "/steady", "/stabilize attempt:no",
         "/react reaction:none")   # moves that roll no dice


def _face(reply: Reply) -> tuple:
    return (reply.outcome, reply.text, reply.ephemeral, reply.mentions,
            tuple((f.filename, f.data) for f in reply.files))


class World:
    """One race in a database of its own, the GM's rulings its only difference from another."""

    def __init__(self, store: Store):
        self.store = store
        self.service = GameService(store, render=None, clock=lambda: TABLE_TIME)

    async def do(self, user: str, line: str) -> Reply:
        return await self.service.execute("c", Actor(user, user), parse(line))

    async def must(self, user: str, line: str) -> Reply:
        reply = await self.do(user, line)
        assert reply.outcome == "applied", (user, line, reply.text)
        return reply

    async def state(self):
        return RACE.load_state((await self.store.latest_game("c")).state)

    async def to_gm_step(self, rng: random.Random, quiet: bool = False) -> str:
        """Racers play seeded moves (`quiet`: one that rolls no dice where there is one) until the GM readies
        the next section; who acted last."""
        last = ""
        for _ in range(300):
            state = await self.state()
            waiting = RACE.acting_players(state)
            if waiting == ("gina",) and state.phase.name == "GM":
                return last
            if waiting == ("gina",):
                await self.must("gina", "/gm approve:yes")
                continue
            last = rng.choice(sorted(waiting))
            legal = [a.command for a in RACE.legal_actions(state, last)]
            await self.must(last, rng.choice([c for c in legal if quiet and c in QUIET] or legal))
        raise AssertionError("the race never reached the GM's next step")


async def _race(store: Store, rulings: tuple[str, ...]) -> dict[str, tuple]:
    """A race with its GM's `rulings` at each GM step: what alice and bob read through the doors of item 7."""
    world = World(store)
    await world.must("gina", "/game new ruleset:race gm:yes tuning:0 seed:7")
    await world.must("alice", "/game join pilot:rookie vehicle:racing_swoop")
    await world.must("bob", "/game join pilot:champion vehicle:podracer")
    await world.must("gina", "/game start")
    rng = random.Random(5)
    for ruling in rulings:
        assert (await world.must("gina", ruling)).ephemeral
    await world.must("gina", "/gm reveal:yes")
    kept = len(json.loads((await world.do("alice", "/game export")).files[0].data)["actions"])
    last = await world.to_gm_step(rng)
    seen: dict[str, tuple] = {"last racer": (last,)}
    for ruling in rulings:   # the racer who handed the turn over asks to take it back, after the GM ruled
        await world.must("gina", ruling)
    seen["undo"] = (_face(await world.do("alice", "/undo")), _face(await world.do("bob", "/undo")))
    await world.must("gina", "/gm reveal:yes")
    await world.to_gm_step(rng)
    await world.do("alice", f"/game rollback to:{kept}")
    await world.do("bob", "/game rollback vote:yes")
    await world.must("gina", "/game rollback vote:yes")
    for racer in ("alice", "bob"):
        seen[f"{racer} export"] = _face(await world.do(racer, "/game export"))
        seen[f"{racer} set aside"] = _face(await world.do(racer, "/game log set_aside:1 count:100"))
        seen[f"{racer} log"] = _face(await world.do(racer, "/game log count:100"))
    return seen


async def test_a_racer_reads_the_same_undo_export_and_set_aside_log_whatever_the_gm_ruled_privately(tmp_path: Path):
    a, b = await Store.open(str(tmp_path / "a.db")), await Store.open(str(tmp_path / "b.db"))
    try:
        plain, ruled = await _race(a, ()), await _race(b, RULINGS)
        gm_export = await World(b).do("gina", "/game export")
    finally:
        await a.close()
        await b.close()
    assert plain["undo"][0][0] == "refused" and plain["undo"][1][0] == "refused"
    for door in plain:
        assert plain[door] == ruled[door], door
    # the doors did open onto the set-aside actions, numbered as the racers count them
    exported = json.loads(plain["alice export"][4][0][1])
    aside = exported["set_aside"][0]["actions"]
    assert aside[0]["seq"] == exported["actions"][-1]["action"]["to"] + 1
    assert plain["alice set aside"][1].startswith("Set aside by rollback 1:\n#")
    # while the GM's own export counts every ruling (6 at two GM steps, 3 of them set aside)
    gm = json.loads(gm_export.files[0].data)
    assert len(gm["actions"]) + len(gm["set_aside"][0]["actions"]) == \
        len(exported["actions"]) + len(aside) + 2 * len(RULINGS)


async def _quiet_undo(store: Store, rulings: tuple[str, ...]) -> tuple:
    """Racers who roll no dice hand the turn to the GM, who rules privately (or not): the last racer's /undo."""
    world = World(store)
    await world.must("gina", "/game new ruleset:race gm:yes tuning:0 seed:4")
    await world.must("alice", "/game join pilot:rookie vehicle:racing_swoop")
    await world.must("bob", "/game join pilot:champion vehicle:podracer")
    await world.must("gina", "/game start")
    await world.must("gina", "/gm reveal:yes")
    last = await world.to_gm_step(random.Random(1), quiet=True)
    for ruling in rulings:
        await world.must("gina", ruling)
    return last, _face(await world.do(last, "/undo"))


async def test_an_action_that_handed_the_turn_to_the_gm_is_not_taken_back_whether_or_not_they_ruled(tmp_path: Path):
    a, b = await Store.open(str(tmp_path / "a.db")), await Store.open(str(tmp_path / "b.db"))
    try:
        plain, ruled = await _quiet_undo(a, ()), await _quiet_undo(b, RULINGS[:1])
    finally:
        await a.close()
        await b.close()
    assert plain == ruled
    assert plain[1][:2] == ("refused", "That cannot be undone: it passed the turn to gina.")
