# ruff: noqa: F811  (the e2e fixtures, imported from tests/e2e/conftest.py, are the tests' parameters)
"""Games in Discord threads meeting other features: the real adapter against the fake Discord (tests/e2e), and
the service where the thread's meeting is the service's."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3

from bot.table.protocol.commands import parse
from bot.table.protocol.replies import Actor
from bot.table.service.entry import GameService
from bot.table.trust.guards import RateLimit
from rules.registry import get_ruleset
from tests.conftest import TABLE_TIME
from tests.e2e.conftest import bot, fake, record_latency, start_bot  # noqa: F401  (the e2e fixtures)
from tests.e2e.fake_discord import EPHEMERAL
from tests.e2e.test_e2e_discord import assert_public_map, slash


def _privately(exchange) -> str:
    """The words a member alone is answered (in the one response, or in ephemeral follow-ups); '' for none."""
    data = exchange.callback.body.get("data") or {} if exchange.callback is not None else {}
    if data.get("flags", 0) & EPHEMERAL and "content" in data:
        return data["content"]
    return "\n".join(f.content for f in exchange.followups if f.ephemeral)


async def test_a_new_game_refused_by_the_rate_limit_opens_no_empty_thread(fake, bot, record_latency):
    """A member over the new-table budget is told to slow down, yet every refused /new … thread:yes still leaves an
    empty thread in the channel: the flood limit does not hold back thread spam."""
    refused = 0
    for _ in range(7):
        answered = await slash(fake, "alice", "channel", "new speedway", thread="yes")
        if "faster than I take them" in _privately(answered):
            refused += 1
    assert refused >= 1, "the table budget (5 at once, then 1 a minute) never refused"
    games = 7 - refused
    assert len(fake.threads_created) == games, (
        f"{refused} refused /new … thread:yes left {len(fake.threads_created) - games} empty threads behind")


# --------------------------------------------------------------------------------------------
# The GM's private thread, through the service
# --------------------------------------------------------------------------------------------


async def _gm_race(service, channel: str = "c") -> None:
    for user, line in (("gina", "/game new ruleset:race gm:yes tuning:0 seed:7"),
                       ("alice", "/game join pilot:rookie vehicle:racing_swoop"),
                       ("bob", "/game join pilot:champion vehicle:podracer"), ("gina", "/game start")):
        reply = await service.execute(channel, Actor(user, user), parse(line))
        assert reply.outcome == "applied", (line, reply.text)


async def _taken_before_refused(service, channel: str, line: str, private_thread: bool, most: int = 60) -> int:
    """How many times the GM's `line` is taken in a row (the clock stopped) before the rate limit refuses it."""
    for count in range(most):
        reply = await service.execute(channel, Actor("gina", "gina"), parse(line), private_thread=private_thread)
        if "faster than I take them" in reply.text:
            return count
    return most


async def test_the_gms_thread_spends_the_rate_limit_twice_for_each_command(store):
    """A GM reading the DCs in their private thread is told they send commands too fast after half as many as in
    the channel, and each ruling there is charged though a move in the channel is free."""
    await _gm_race(GameService(store, render=None, clock=lambda: TABLE_TIME))
    frozen = RateLimit(clock=lambda: 1000.0)
    service = GameService(store, render=None, clock=lambda: TABLE_TIME, rate_limit=frozen)
    await service.link_gm_thread("c", Actor("gina", "gina"), "t1")
    in_channel = await _taken_before_refused(service, "c", "/dcs", private_thread=False)
    frozen.forget("gina")
    in_thread = await _taken_before_refused(service, "t1", "/dcs", private_thread=True)
    frozen.forget("gina")
    rulings = [await service.execute("t1", Actor("gina", "gina"), parse(f"/gm change:{1 - 2 * (i % 2)}"),
                                     private_thread=True) for i in range(40)]
    throttled = sum("faster than I take them" in r.text for r in rulings)
    assert (in_thread, throttled) == (in_channel, 0), (
        f"/dcs: {in_channel} taken in the channel, {in_thread} in the GM's thread; {throttled} of 40 rulings "
        f"(free in the channel: they move the game on) refused in the thread")


async def test_the_gm_of_a_race_played_in_a_thread_gets_a_private_gm_thread(fake, bot, record_latency):
    """The seated GM of a race opened with thread:yes asks for their private GM thread (/gm thread:yes, "the seated
    GM, on Discord") inside the game's own thread and is told to use it in "the game's text channel", where they
    are: no GM thread can ever be had for a game played in a thread."""
    await slash(fake, "carol", "channel", "new race", gm="yes", tuning=0, seed=4, thread="yes")
    (game_thread,) = fake.threads_created
    for name in ("alice", "bob"):
        assert_public_map(await slash(fake, name, game_thread, "game join", pilot="rookie", vehicle="racing_swoop"),
                          record_latency, title="Race")
    assert_public_map(await slash(fake, "carol", game_thread, "game start"), record_latency, title="Race")
    asked = await slash(fake, "carol", game_thread, "gm", thread="yes")
    private = [t for t in fake.threads_created if t.type == 12]
    assert len(private) == 1, f"no GM thread was opened; the GM was told: {_privately(asked)!r}"



async def test_a_new_gm_acting_in_the_old_gms_thread_is_not_answered_where_the_old_gm_reads(store):
    """The GM seat changes hands; the new GM (a moderator, who sees every private thread) types /dcs and a ruling in
    the old GM's private thread, and the answers are posted there, where the old GM, no longer the game's GM, is
    still a member and reads the new GM's secret DCs and changes."""
    service = GameService(store, render=None, clock=lambda: TABLE_TIME)
    await _gm_race(service)
    await service.link_gm_thread("c", Actor("gina", "gina"), "t1")
    for user, line in (("gina", "/game seat give to:dave"), ("dave", "/game seat take")):
        assert (await service.execute("c", Actor(user, user), parse(line))).outcome == "applied", line
    posted = []
    for line in ("/dcs", "/gm change:3"):
        reply = await service.execute("t1", Actor("dave", "dave"), parse(line), private_thread=True)
        if reply.outcome != "refused" and not reply.ephemeral:
            posted.append((line, reply.text[:80]))
    assert posted == [], f"posted in gina's GM thread t1 (gina still a member there): {posted}"

# --------------------------------------------------------------------------------------------
# A game's thread deleted
# --------------------------------------------------------------------------------------------


def _status(db, channel: str) -> str | None:
    """The status of the newest game the bot's database holds for `channel` (read beside the running bot)."""
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)) as conn:
        row = conn.execute("SELECT status FROM games WHERE channel = ? ORDER BY id DESC LIMIT 1", (channel,)).fetchone()
    return row[0] if row else None


def _delete_thread(fake, thread) -> None:
    """A moderator deletes a thread: Discord forgets it (its id answers 10003 Unknown Channel) and tells the bot
    with THREAD_DELETE on the gateway."""
    fake.snapshot(lambda f: f.channels.pop(f"thread-{thread.id}"))
    fake._blocking(fake._send_dispatch(fake._active_session(), "THREAD_DELETE", {
        "id": thread.id, "guild_id": fake.guild_id, "parent_id": thread.parent_id, "type": thread.type}))


async def test_a_game_whose_thread_was_deleted_does_not_hold_its_players_forever(fake, bot, record_latency):
    """A moderator deletes the thread a game is played in: the game runs on where nobody can reach it (no deadline
    by default), so its players can neither resign it nor have their data deleted: /me forget is refused, naming a
    game in a thread that no longer exists, for as long as the bot runs."""
    await slash(fake, "alice", "channel", "new speedway", seed=3, thread="yes")
    (thread,) = fake.threads_created
    for name in ("alice", "bob"):
        assert_public_map(await slash(fake, name, thread, "game join"), record_latency)
    assert_public_map(await slash(fake, "alice", thread, "game start"), record_latency)
    _delete_thread(fake, thread)
    for _ in range(600):   # until the gateway event reached the bot and the game ended (a bound, not a timing)
        if _status(bot.db, str(thread.id)) == "finished":
            break
        await asyncio.sleep(0.05)
    resigned = await slash(fake, "bob", "channel", "game resign", confirm="yes")
    assert "no game" in _privately(resigned).lower()   # the game's commands had only its thread
    forgotten = _privately(await slash(fake, "bob", "channel", "me forget", confirm="yes"))
    assert f"<#{thread.id}>" not in forgotten and "resign" not in forgotten, forgotten


# --------------------------------------------------------------------------------------------
# The thread a queued game opened in, before its first seat is confirmed
# --------------------------------------------------------------------------------------------


async def test_a_stranger_cannot_put_their_own_game_in_a_queued_games_thread(service):
    """A member who waited in no queue types /game new in the thread the queue opened for three Speedway players
    before any of them confirmed: the three confirm into the stranger's Track game, hosted by the stranger, and the
    queue starts it for them."""
    line = "/queue join ruleset:speedway players:3"
    for user in ("ann", "bob", "cat"):
        last = await service.execute("hall", Actor(user, user.title()), parse(line), guild="g1")
    (notice,) = last.notices
    thread = notice.channel
    await service.execute(thread, Actor("mal", "Mal"), parse("/game new ruleset:track"), guild="g1")
    for user in ("ann", "bob", "cat"):
        await service.execute(thread, Actor(user, user.title()), parse("/queue confirm"), guild="g1")
    game = await service._store.active_game(thread)
    state = get_ruleset(game.ruleset).load_state(game.state)
    seated = sorted(p.id for p in state.players)
    assert (game.ruleset, game.host) in {("speedway", "ann"), ("speedway", "bob"), ("speedway", "cat")}, (
        f"the queued Speedway game's thread holds mal's {game.ruleset} game, hosted by {game.host}, seating "
        f"{seated}, phase {state.phase}")
