"""An import re-runs only what its own log accounts for, and says what it did in one wording (issue 36, item 15):
set-aside lines no rollback of the log made are refused before any is re-run, and a finished game imported
reads "N actions", the channel's count, whether this bot holds it (a copy) or re-plays the file."""

from __future__ import annotations

import json

from bot.storage.store import Store
from bot.table.protocol.commands import Command
from bot.table.protocol.replies import Actor
from bot.table.service.entry import GameService
from tests.conftest import TABLE_TIME
from tests.test_rollback import play, run, started


async def _finished_with_a_rollback(service, store) -> dict:
    await started(service, "battlecars")
    await play(service, store, "battlecars", 8)
    await run(service, "ann", "/game rollback to:4")
    assert (await run(service, "ben", "/game rollback vote:yes")).outcome == "applied"
    await play(service, store, "battlecars", 3, seed=4)
    assert (await run(service, "ann", "/game end")).outcome == "applied"
    return json.loads((await run(service, "ann", "/game export")).files[0].data)


async def _imported(service, document: dict, channel: str):
    data = json.dumps(document).encode()
    return await service.execute(channel, Actor("ann", "ann"), Command("game import", {"file": data}))


async def test_set_aside_lines_the_log_does_not_account_for_are_refused(service, store, tmp_path):
    document = await _finished_with_a_rollback(service, store)
    elsewhere = await Store.open(str(tmp_path / "other.db"))   # another bot: the file is re-played
    try:
        other = GameService(elsewhere, render=None, clock=lambda: TABLE_TIME)
        invented = dict(document, set_aside=[dict(document["set_aside"][0], rollback=k) for k in range(1, 21)])
        refused = await _imported(other, invented, "invented")
        assert refused.outcome == "refused", refused.text
        assert "is logged where its set-aside actions begin" in refused.text, refused.text
        moved = dict(document, set_aside=[dict(document["set_aside"][0], rollback=2)])   # numbered past the log's
        assert "numbered 1, 2, 3" in (await _imported(other, moved, "moved")).text
        early = [dict(a, seq=a["seq"] - 1) for a in document["set_aside"][0]["actions"]]   # begins a step early
        shifted = dict(document, set_aside=[dict(document["set_aside"][0], actions=early)])
        assert "no rollback 1 is logged where" in (await _imported(other, shifted, "shifted")).text
        assert await elsewhere.latest_game("invented") is None and await elsewhere.latest_game("shifted") is None
        genuine = await _imported(other, document, "genuine")   # (once this bot holds game 1, it is copied)
        assert genuine.outcome == "applied", genuine.text
    finally:
        await elsewhere.close()


async def test_a_finished_game_imported_is_worded_alike_on_the_bot_that_holds_it_and_on_another(service, store,
                                                                                               tmp_path):
    document = await _finished_with_a_rollback(service, store)
    elsewhere = await Store.open(str(tmp_path / "other.db"))
    try:
        replayed = await _imported(GameService(elsewhere, render=None, clock=lambda: TABLE_TIME), document, "x")
    finally:
        await elsewhere.close()
    copied = await _imported(service, document, "copied")
    count = len(document["actions"])   # the channel's count of actions, as its /game log numbers them
    for reply in (copied, replayed):
        assert f"re-played here from its log: {count} actions (finished)." in reply.text, reply.text
