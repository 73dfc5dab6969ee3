"""End to end: PostgreSQL out of reach under a running bot (issue 39, item 11). Commands meanwhile are
answered privately that the database is not answering; the log says the outage in one line when it begins
and one when the server answers again, with no traceback a failed request; play goes on afterwards."""

from __future__ import annotations

import asyncio
import subprocess

import pytest

from tests import postgres_server
from tests.e2e.fake_discord import Exchange
from tests.e2e.test_e2e_discord import RESPONSE_TIMEOUT, assert_public_map

NOT_ANSWERING = "my database is not answering just now"


@pytest.fixture
def own_postgres():
    """A PostgreSQL server of this test's own: it is stopped and started again under the bot."""
    try:
        server = postgres_server.start()
    except (FileNotFoundError, subprocess.CalledProcessError) as exc:
        pytest.skip(f"PostgreSQL is not available on this machine ({exc})")
    try:
        yield server
    finally:
        server.stop()


def _texts(exchange: Exchange) -> str:
    """Every word the bot sent for one interaction: its response's and its follow-ups'."""
    data = [((record.body or {}).get("data") or {}).get("content") or "" for record in exchange.callbacks]
    return "\n".join(data + [followup.content for followup in exchange.followups])


async def test_a_postgresql_outage_is_one_line_when_it_begins_and_one_when_it_ends(fake, own_postgres, start_bot,
                                                                                     record_latency):
    bot = start_bot(db=own_postgres.url, env={"PITBOSS_TICK_SECONDS": "0.3"})   # the scheduler meets it too
    created = await fake.send_slash("alice", "channel", "new speedway", {"seed": 3})
    assert_public_map(await fake.responses(created, timeout=RESPONSE_TIMEOUT), record_latency)

    await asyncio.to_thread(own_postgres.halt)
    for command in ("game status", "game join", "game status"):
        sent = await fake.send_slash("bob", "channel", command, {})
        exchange = await fake.until(sent, lambda e: NOT_ANSWERING in _texts(e), timeout=RESPONSE_TIMEOUT)
        assert NOT_ANSWERING in _texts(exchange), exchange.describe()
    await asyncio.sleep(1.0)   # a few scheduler rounds meet the outage as well
    await asyncio.to_thread(own_postgres.resume)

    for _ in range(20):   # the first command after the server is back may still meet the pool reconnecting
        sent = await fake.send_slash("bob", "channel", "game join", {})
        exchange = await fake.responses(sent, timeout=RESPONSE_TIMEOUT)
        if NOT_ANSWERING not in _texts(exchange):
            break
        await asyncio.sleep(0.5)
    assert "bob joined" in assert_public_map(exchange, record_latency).content   # play goes on

    log = bot.log_text()
    assert log.count("PostgreSQL is out of reach") == 1, bot.log_tail()
    assert log.count("PostgreSQL answers again") == 1, bot.log_tail()
    assert "Traceback" not in log, bot.log_tail()
