"""Pictures of every game to check rendering with: states along self-played games, with their events."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

from bot.cli.selfplay import play_one, selfplay_games
from bot.storage.store import Store
from bot.table.jobs.heavy_jobs import replayed_states
from bot.table.service.entry import GameService
from bot.table.trust.export import events_of
from rules.registry import get_ruleset


async def _played(db_path: str, every: int) -> list[tuple[str, object, tuple]]:
    store = await Store.open(db_path)
    try:
        service = GameService(store, render=None)
        frames = []
        for ruleset_id in selfplay_games():
            await play_one(service, store, ruleset_id, 0, 3)
            game = await store.latest_game(f"selfplay-{ruleset_id}-3-0")
            records = await store.actions(game.id)
            ruleset = get_ruleset(ruleset_id)
            states = replayed_states(ruleset, game, records)[1:]
            pairs = list(zip(states, records))
            picked = list(range(0, len(pairs), every))
            if picked and picked[-1] != len(pairs) - 1:
                picked.append(len(pairs) - 1)   # the game's end too, whatever its length
            for state, record in (pairs[i] for i in picked):
                frames.append((ruleset_id, ruleset.view(state, None), events_of(ruleset, record)))
        return frames
    finally:
        await store.close()


def game_frames(every: int = 15) -> list[tuple[str, object, tuple]]:
    """(ruleset id, public view, last events) at every `every`th action of one self-played game of each
    game the computer can play alone, and at its last (fixed seeds: the same frames in any process)."""
    with tempfile.TemporaryDirectory() as folder:
        return asyncio.run(_played(str(Path(folder) / "frames.db"), every))
