"""A plan previewed for the deadline is played only on the position it was previewed on: a rollback drops it."""

from __future__ import annotations

from tests.test_grace_and_bank import deadline_notices, duel, kinds


async def test_a_preview_made_before_a_rollback_is_not_played_on_the_rolled_back_position(store):
    service, clock, table = await duel(store, "/game settings deadline_hours:6")
    records = await store.actions((await store.active_game("chan-1")).id)
    back_to = len(records)   # action #N: alice's speed set, no Move yet
    assert (await table("alice", "/move maneuver:normal")).outcome == "applied"
    preview = await table("alice", "/move plan:normal,normal preview:yes")   # from one hex on
    assert preview.outcome == "shown"
    proposed = await table("alice", f"/game rollback to:{back_to}")
    assert proposed.outcome in ("applied", "shown"), proposed.text
    voted = await table("bob", "/game rollback vote:yes")
    assert voted.outcome == "applied", voted.text
    assert await kinds(store) == []   # back before alice's Move: a position the preview was not drawn on
    (played,) = await deadline_notices(service, clock, 6.5)
    assert "the plan they previewed is played" not in played, played
