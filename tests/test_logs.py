"""What `pitboss run` writes to its log (issue 39, item 11): plain lines where standard error is no terminal
(Docker's log), a first line with the release and the database (its password masked), and a reconnect
attempt in one line."""

from __future__ import annotations

import io
import logging

import discord
import pytest

from bot.chat import logs
from bot.version import VERSION

TOKEN = "fake.token.value"


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def root_logger():
    """The root logger as it was, back after the test (set_up adds a handler to it)."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield root
    root.handlers[:] = handlers
    root.setLevel(level)


def _logged(stream: io.StringIO, target: str = "pitboss.db") -> str:
    logs.set_up(TOKEN, target, stream=stream)
    logging.getLogger("pitboss.discord").info("ready with token %s", TOKEN)
    return stream.getvalue()


def test_no_colour_codes_where_standard_error_is_no_terminal(root_logger, monkeypatch):
    monkeypatch.setattr(discord.utils, "is_docker", lambda: True)   # discord.py colours any stream there
    text = _logged(io.StringIO())
    assert "pitboss.discord: ready with token" in text and "\x1b[" not in text, repr(text)
    assert TOKEN not in text


def test_colour_stays_on_a_terminal(root_logger):
    assert "\x1b[" in _logged(_Terminal())


def test_the_first_line_names_the_release_and_the_database_without_its_password():
    assert logs.start_line("/data/pitboss.db") == f"Pitboss {VERSION} starting: SQLite database /data/pitboss.db"
    line = logs.start_line("postgresql://pitboss:s3cret@db:5432/pitboss")
    assert line == f"Pitboss {VERSION} starting: PostgreSQL database postgresql://pitboss:***@db:5432/pitboss"


def test_a_reconnect_attempt_is_one_line(root_logger):
    stream = io.StringIO()
    logs.set_up(TOKEN, "pitboss.db", stream=stream)
    try:
        raise OSError("Connect call failed")
    except OSError:
        logging.getLogger("discord.client").exception("Attempting a reconnect in %.2fs", 2.5)
    assert stream.getvalue().splitlines()[-1].endswith(
        "discord.client: Attempting a reconnect in 2.50s (OSError: Connect call failed)")
    assert "Traceback" not in stream.getvalue()
