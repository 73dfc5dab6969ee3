"""The worlds the whole-table model test (tests/test_table_model.py) drives: one game's database on a real
SQLite store, its service on a clock the test moves, and what a viewer reads of it through its doors."""

from __future__ import annotations

import asyncio
import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from bot.storage.store import ActionRecord, GameRecord, Store
from bot.table.protocol.commands import Command, parse
from bot.table.protocol.replies import Actor, Reply
from bot.table.service.entry import GameService
from rules.codec import decode_tagged
from rules.registry import get_ruleset
from tests.conftest import TABLE_TIME
from tests.test_secrets import _face

# The doors a viewer reads a game by (tests/test_secrets.py's LOOKS, less the ones that only re-render
# what these show): pictures are left out, their alt text is kept.
DOORS = ("/game export", "/game log count:100", "/game status", "/game catchup", "/lfg")


class Clock:
    """The table's clock, moved by the test."""

    def __init__(self) -> None:
        self.now = TABLE_TIME

    def __call__(self) -> float:
        return self.now


class World:
    """One game's database and its service: commands in, replies out, on the test's event loop."""

    def __init__(self, folder: str, name: str, clock: Clock, loop: asyncio.AbstractEventLoop):
        self.path = str(Path(folder) / f"{name}.db")
        self.clock, self.loop = clock, loop
        self.store: Store | None = None

    def open(self) -> World:
        self.store = self.run(Store.open(self.path))
        self.service = GameService(self.store, render=None, clock=self.clock)
        return self

    def close(self) -> None:
        if self.store is not None:
            self.run(self.store.close())
            self.store = None

    def copy_to(self, other: World) -> None:
        """Make `other` this world's twin (the same database, byte for byte)."""
        other.close()
        Path(other.path).unlink(missing_ok=True)
        assert self.store is not None
        self.run(self.store.backup(other.path))
        other.open()

    def run(self, work: Any) -> Any:
        return self.loop.run_until_complete(work)

    def do(self, channel: str, user: str, line: str | Command, admin: bool = False) -> Reply:
        command = parse(line) if isinstance(line, str) else line
        return self.run(self.service.execute(channel, Actor(user, user, admin), command))

    def press(self, channel: str, user: str, custom_id: str) -> Reply:
        return self.run(self.service.press(channel, Actor(user, user), custom_id))

    def due(self) -> list:
        return self.run(self.service.run_due())

    def age_log(self, seconds: float) -> None:
        """Every logged action `seconds` older: the log's stamps (the wall clock's, which tell how long a
        player has been silent) keep step with the test's clock as it moves on."""
        assert self.store is not None
        store = self.store

        async def aged() -> None:
            rows = await store.driver.fetchall("SELECT game_id, seq, created_at FROM actions")
            async with store.transaction():
                for game, seq, created in rows:
                    moved = (datetime.fromisoformat(created) - timedelta(seconds=seconds)).isoformat(timespec="seconds")
                    await store.driver.execute("UPDATE actions SET created_at = ? WHERE game_id = ? AND seq = ?",
                                               (moved, game, seq))
        self.run(aged())

    def game(self, channel: str) -> GameRecord | None:
        assert self.store is not None
        return self.run(self.store.active_game(channel)) or self.run(self.store.latest_game(channel))

    def log(self, game: GameRecord) -> list[ActionRecord]:
        assert self.store is not None
        return self.run(self.store.game_and_actions(game.id))[1]

    def state(self, game: GameRecord) -> Any:
        return get_ruleset(game.ruleset).load_state(game.state)

    def looks(self, channel: str, viewer: str, rollbacks: int) -> dict[str, tuple]:
        """What `viewer` reads of the channel's game through every door (each set-aside line too)."""
        lines = DOORS + tuple(f"/game log set_aside:{n}" for n in range(1, rollbacks + 1))
        return {line: _face(self.do(channel, viewer, line)) for line in lines}

    def rollbacks(self, game: GameRecord) -> int:
        assert self.store is not None
        return self.run(self.store.rollbacks(game.id))


def decoded(game: GameRecord, record: ActionRecord) -> Any:
    """A logged action as its game's rules read it."""
    return decode_tagged(get_ruleset(game.ruleset).actions, json.loads(record.action))
