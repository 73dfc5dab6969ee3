"""Databases made by earlier releases load, verify and play on with today's code (tests/fixtures)."""

from __future__ import annotations

import shutil

import pytest

from bot.storage.store import Store
from bot.table.commands import parse
from bot.table.replies import Actor
from bot.table.service import GameService
from rules.codec import decode_state
from rules.registry import get_ruleset
from tests.conftest import ROOT, run_pitboss

FIXTURES = ("release8.db", "release9.db")  # stop 8 (schema 5), stop 9 (schema 6, rules revision 2)


@pytest.fixture(params=FIXTURES)
def old_database(request, tmp_path) -> str:
    path = tmp_path / request.param
    shutil.copyfile(ROOT / "tests" / "fixtures" / request.param, path)
    return str(path)


async def test_every_stored_game_verifies_and_the_running_ones_play_on(old_database):
    store = await Store.open(old_database)
    try:
        service = GameService(store, render=None)
        games = await store.all_games()
        assert len(games) == 5
        for game in games:
            assert await service.replay_matches(game), (game.id, game.channel)
        for game in [g for g in games if g.status == "active"]:
            ruleset = get_ruleset(game.ruleset)
            state = decode_state(ruleset.state_type, game.state)
            player = ruleset.acting_players(state)[0]
            command = ruleset.legal_actions(state, player)[0].command
            reply = await service.execute(game.channel, Actor(player, player), parse(command), guild="guild-1")
            assert reply.outcome == "applied", (game.channel, command, reply.text)
            assert await service.replay_matches(await store.active_game(game.channel))
    finally:
        await store.close()


def test_pitboss_verify_passes_on_an_old_database(old_database, tmp_path):
    result = run_pitboss("verify", "--db", old_database, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "5 games checked, 0 mismatches" in result.stdout
