"""Shared fixtures: a real SQLite store and service on a temporary file."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.commands import parse
from bot.service import Actor, GameService
from bot.store import Store

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def db_path(tmp_path: Path) -> str:
    return str(tmp_path / "pitboss.db")


@pytest.fixture
async def store(db_path: str):
    opened = await Store.open(db_path)
    yield opened
    await opened.close()


@pytest.fixture
def service(store: Store) -> GameService:
    return GameService(store)


class Table:
    """Drive one channel's game by typed commands, as players would."""

    def __init__(self, service: GameService, channel: str = "chan-1"):
        self.service = service
        self.channel = channel

    async def __call__(self, user: str, line: str, admin: bool = False):
        return await self.service.execute(self.channel, Actor(user, user, admin), parse(line))


@pytest.fixture
def table(service: GameService) -> Table:
    return Table(service)


def run_pitboss(*args: str, cwd: Path | None = None, stdin: str | None = None,
                env: dict | None = None) -> subprocess.CompletedProcess:
    """Run the pitboss command line in a fresh interpreter, as a user would."""
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.run([sys.executable, "-m", "bot", *args], cwd=cwd, input=stdin,
                           capture_output=True, text=True, env=full_env, timeout=120)
