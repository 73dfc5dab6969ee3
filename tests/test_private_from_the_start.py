"""An answer that may be private is acknowledged privately from the first moment (issue 36, item 11): `/undo`
and `/game status view:closeup` never show the channel a "thinking…" placeholder that is then deleted, even
when the answer misses the quick-answer window (forced here: the harness's interactions are never fresh, and
the window is shut)."""

from __future__ import annotations

import pytest

from bot.chat import adapter
from rules.registry import get_ruleset
from tests.test_discord_adapter import ALICE, BOB, DEFERRED_CHANNEL_MESSAGE, EPHEMERAL, harness  # noqa: F401

PRIVATE_DEFERRAL = {"type": DEFERRED_CHANNEL_MESSAGE, "data": {"flags": EPHEMERAL}}


@pytest.fixture(autouse=True)
def no_quick_answer(monkeypatch):
    monkeypatch.setattr(adapter, "QUICK_ANSWER_SECONDS", 0.0)


async def _speedway(harness) -> None:   # noqa: F811 - the fixture, imported
    for player, command in ((ALICE, "new speedway"), (ALICE, "game join"), (BOB, "game join"),
                            (ALICE, "game start")):
        await harness.run(player, command, **({"seed": 7} if command == "new speedway" else {}))


async def test_an_undo_refused_and_a_close_up_are_private_from_the_first_moment(harness):   # noqa: F811
    await _speedway(harness)
    for player, command, values in ((BOB, "undo", {}), (ALICE, "game status", {"view": "closeup"})):
        requests = await harness.run(player, command, **values)
        assert requests[0].is_callback and requests[0].json == PRIVATE_DEFERRAL, (command, requests)
        assert not any(r.is_delete_original for r in requests), (command, requests)   # no public placeholder
        assert all(r.flags & EPHEMERAL for r in requests[1:] if r.is_followup), (command, requests)
    plain = await harness.run(ALICE, "game status")   # the channel's status stays public
    assert plain[0].json == {"type": DEFERRED_CHANNEL_MESSAGE}


async def test_an_undo_the_channel_may_see_is_still_said_in_the_channel(harness):   # noqa: F811
    await _speedway(harness)
    game = await harness.game()
    ruleset = get_ruleset(game.ruleset)
    (acting,) = ruleset.acting_players(ruleset.load_state(game.state))
    player = ALICE if acting == str(ALICE.id) else BOB
    await harness.run(player, "speed", value=3)
    requests = await harness.run(player, "undo")
    assert requests[0].json == PRIVATE_DEFERRAL
    said = [r for r in requests if not r.is_callback and not r.flags & EPHEMERAL]
    assert any("Undone" in (r.json or {}).get("content", "") for r in said), requests
    assert len(await harness.store.actions(game.id)) == game.version   # the speed was taken back


async def test_a_status_a_players_own_settings_make_a_close_up_is_private_from_the_first_moment(harness):  # noqa: F811
    await _speedway(harness)
    await harness.run(BOB, "me settings", view="closeup")
    requests = await harness.run(BOB, "game status")
    assert requests[0].json == PRIVATE_DEFERRAL, requests
    assert not any(r.is_delete_original for r in requests), requests
