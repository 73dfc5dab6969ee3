"""The per-user rate limit, and the token kept out of every log line."""

from __future__ import annotations

import io
import logging

from bot.table.protocol.commands import parse
from bot.table.protocol.replies import Actor
from bot.table.service.entry import GameService
from bot.table.trust.guards import RateLimit, Redactor, redacting_handler

TOKEN = "MTAxOTk5.fake-bot-token.abcdefghijklmnop"


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_burst_then_a_steady_rate_per_user():
    clock = FakeClock()
    limit = RateLimit(burst=3, per_second=0.5, clock=clock)
    assert [limit.wait_needed("eve") for _ in range(3)] == [0.0, 0.0, 0.0]
    assert limit.wait_needed("eve") == 2.0  # one token refills in two seconds
    assert limit.wait_needed("ann") == 0.0  # others are not held back
    clock.now += 2.0
    assert limit.wait_needed("eve") == 0.0
    assert limit.wait_needed("eve") > 0


async def test_a_flood_is_refused_privately_and_changes_nothing(store):
    clock = FakeClock()
    service = GameService(store, render=None, rate_limit=RateLimit(burst=4, per_second=1.0, clock=clock))
    eve, ann = Actor("eve", "eve"), Actor("ann", "ann")
    await service.execute("chan-1", ann, parse("/game new ruleset:speedway seed:3"))
    lines = ["/game status"] * 4 + ["/game join", "/game status"]
    replies = [await service.execute("chan-1", eve, parse(line)) for line in lines]
    assert [r.outcome for r in replies] == ["shown"] * 4 + ["refused", "refused"]
    assert all(r.ephemeral and "faster than I take them; try again in 1 s" in r.text for r in replies[4:])
    assert (await store.active_game("chan-1")).version == 0  # the join was never carried out
    assert (await service.execute("chan-1", ann, parse("/game join"))).outcome == "applied"
    clock.now += 1.0
    assert "faster" not in (await service.execute("chan-1", eve, parse("/game status"))).text


def test_the_token_never_reaches_a_log_line():
    out = io.StringIO()
    log = logging.getLogger("pitboss.test-redaction")
    log.propagate = False
    handler = redacting_handler(TOKEN, handler=logging.StreamHandler(out))
    handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
    log.addHandler(handler)
    try:
        log.warning("logging in with %s", TOKEN)
        log.error(f"Authorization: Bot {TOKEN}")
        try:
            raise RuntimeError(f"HTTP 401 for token {TOKEN}")
        except RuntimeError:
            log.exception("login failed")
    finally:
        log.removeHandler(handler)
    text = out.getvalue()
    assert TOKEN not in text and text.count("[redacted]") == 3
    assert "RuntimeError: HTTP 401 for token [redacted]" in text


def test_short_or_empty_secrets_redact_nothing():
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "plain text", None, None)
    assert Redactor(["", "abc"]).filter(record) and record.getMessage() == "plain text"


def test_display_names_lose_markup_mentions_and_line_breaks():
    from bot.table.trust.guards import NAME_LIMIT, plain_name

    assert plain_name("@everyone") == "everyone"
    assert plain_name("<@&123456789> boss") == "&123456789 boss"  # no longer a role mention
    assert plain_name("**big**\n# heading `code` ||x||") == "big heading code x"
    assert plain_name("[link](https://evil.example)") == "linkhttps//evil.example"
    assert plain_name("\u202e\u0000\t") == "player"
    assert plain_name("Zoë 🚗 Racer") == "Zoë 🚗 Racer"
    assert len(plain_name("x" * 500)) == NAME_LIMIT


async def test_a_hostile_display_name_reaches_the_table_as_plain_words(store):
    from bot.table.trust.guards import plain_name

    service = GameService(store, render=None)
    host = Actor("1", plain_name("@here <@&42> **Host**\nline2"))
    created = await service.execute("chan-1", host, parse("/game new ruleset:track"))
    joined = await service.execute("chan-1", host, parse("/game join"))
    for reply in (created, joined):
        assert "@" not in reply.text and "<" not in reply.text and "**" not in reply.text
    assert "here &42 Host line2 joined" in joined.text


async def test_playing_fast_is_not_flooding(store):
    """Moves that change the game give their token back; looks and refusals do not."""
    clock = FakeClock()
    service = GameService(store, render=None, rate_limit=RateLimit(burst=2, per_second=0.1, clock=clock))
    ann = Actor("ann", "ann")
    await service.execute("chan-1", ann, parse("/game new ruleset:speedway seed:3"))
    joins = [await service.execute("chan-1", ann, parse("/game join")) for _ in range(4)]
    assert [r.outcome for r in joins] == ["applied"] * 4  # four cars, never limited
    looks = [await service.execute("chan-1", ann, parse("/game status")) for _ in range(3)]
    # /game new is not play: its token is not given back, so one look is left of the burst of two.
    assert [r.outcome for r in looks] == ["shown", "refused", "refused"]
