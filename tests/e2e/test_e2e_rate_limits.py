"""End to end: many channels play at once against the fake Discord's rate limits (issue 28, item 7).

A move spends no request of Discord's global limit while it can go through an interaction: a press
edits the message it is on through its own response, and a turn message is edited (or retired) through
the webhook of the interaction that posted it while that token lives. When the token is dead, the
channel route takes over, paced under the global limit: no global 429, however many channels play.
"""

from __future__ import annotations

import asyncio
import collections
import re

from tests.e2e.fake_discord import FakeDiscord
from tests.e2e.fake_limits import INTERACTION_KINDS, is_global_bound
from tests.e2e.test_e2e_discord import assert_nothing_unexpected, buttons_of

TABLES = 24
ANSWER_TIMEOUT = 120.0   # a bound on each wait: two dozen channels share a two-core machine
TOKEN_DEAD = 16 * 60.0   # seconds the fake's clock moves on: past an interaction token's 15 minutes


async def answered(fake: FakeDiscord, interaction_id: str) -> None:
    await fake.responses(interaction_id, timeout=ANSWER_TIMEOUT)


def tables(fake: FakeDiscord) -> list[str]:
    """TABLES channels, each with two players of its own (one member's commands in every channel at once
    would meet the bot's own flood guard)."""
    names = []
    for n in range(TABLES):
        names.append(fake.add_channel(f"table-{n}").name)
        fake.add_user(f"host{n}")
        fake.add_user(f"guest{n}")
    return names


async def set_up(fake: FakeDiscord, table: str) -> None:
    host, guest = table.replace("table-", "host"), table.replace("table-", "guest")
    for user, command, options in ((host, "new speedway", {"seed": 7}), (host, "game join", {}),
                                   (guest, "game join", {}), (host, "game start", {})):
        await answered(fake, await fake.send_slash(user, table, command, options))


def turn_message(fake: FakeDiscord, table: str) -> tuple[dict, str]:
    """The table's current turn message and the name of the player it pings."""
    shown = fake.channel_messages(table)
    assert [m for m in shown if m.get("components")], [(m["content"][:80], m.get("components")) for m in shown]
    message = [m for m in shown if m.get("components")][-1]
    pinged = re.match(r"<@(\d+)> your turn\.", message["content"])
    assert pinged, message["content"]
    (player,) = [name for name, user in fake.users.items() if user.id == pinged.group(1)]
    return message, player


async def play_turn(fake: FakeDiscord, table: str, *, press: bool) -> str:
    """Speed 1 (by its button, or by /speed), then /move normal, which passes the turn; who played."""
    message, player = turn_message(fake, table)
    if press:
        await answered(fake, await fake.click(player, table, message["id"], buttons_of(message)["Speed 1"]))
    else:
        await answered(fake, await fake.send_slash(player, table, "speed", {"value": "1"}))
    await answered(fake, await fake.send_slash(player, table, "move", {"maneuver": "normal"}))
    return player


def per_move(before: dict[str, int], after: dict[str, int], moves: int) -> dict[str, float]:
    spent = collections.Counter(after)
    spent.subtract(before)
    return {kind: round(count / moves, 2) for kind, count in sorted(spent.items()) if count}


def assert_turns_played(fake: FakeDiscord, table: str, turns: int) -> None:
    public = fake.channel_messages(table)
    assert len(public) == 2 + turns, [m["content"][:60] for m in public]   # the lobby, one message a turn
    assert all(not m.get("components") for m in public[:-1])   # every earlier message retired
    for played in public[1:-1]:   # each turn's message: its speed; the next message opens with its move
        assert "set speed 0 -> 1" in played["content"], played["content"]
    for moved in public[2:]:
        assert ": normal" in moved["content"], moved["content"]


async def test_many_channels_move_through_interactions_without_a_global_429(fake, start_bot):
    names = tables(fake)
    bot = start_bot()
    await asyncio.gather(*(set_up(fake, table) for table in names))
    before = fake.request_counts()
    for press in (True, False):   # a turn begun by a button, then one by slash commands
        await asyncio.gather(*(play_turn(fake, table, press=press) for table in names))
    spent = per_move(before, fake.request_counts(), moves=4 * TABLES)
    print(f"requests per move by kind, {TABLES} channels at once: {spent}")
    assert fake.rate_limited() == {}, fake.rate_limited()   # no 429 at all: global or a route's
    # Every move went through interaction routes: not one request of the global limit.
    assert {kind for kind in spent if is_global_bound(kind)} == set(), spent
    assert set(spent) <= INTERACTION_KINDS
    assert spent["callback"] == 1.0    # each move acknowledged once
    assert spent["edit_original"] == 0.25   # the press edits the message it is on, by its own response
    assert spent["edit_followup"] == 0.75   # /speed's edit and each turn's retire, by the poster's token
    for table in names:
        assert_turns_played(fake, table, turns=2)
    assert_nothing_unexpected(fake, bot)


async def test_tokens_dead_unknown_to_the_bot_cost_no_global_request_and_the_channel_route_is_paced(fake, start_bot):
    """Tokens Discord killed while the bot's clock says they live (fake.expire_tokens): each turn message's
    dead token is tried once (401), then the move's own interaction posts the turn anew, and no move spends
    a request of the global limit (issue 39, item 7). A public /game status, which must take the live
    buttons off the message it supersedes, then edits it through the channel route: with the fake's global
    limit at 10 a second and the bot pacing itself to 8, two dozen channels at once meet no global 429."""
    names = tables(fake)
    fake.limits.global_limit = 10
    bot = start_bot(env={"PITBOSS_GLOBAL_RATE": "8"})
    await asyncio.gather(*(set_up(fake, table) for table in names))
    before = fake.request_counts()
    fake.expire_tokens()   # every turn message's token is now dead; the moves' own tokens are new
    await asyncio.gather(*(play_turn(fake, table, press=False) for table in names))
    spent = per_move(before, fake.request_counts(), moves=2 * TABLES)
    print(f"requests per move by kind, tokens dead, {TABLES} channels at once: {spent}")
    assert {kind for kind in spent if is_global_bound(kind)} == set(), spent
    dead = [r for r in fake.requests("edit_followup") if r.status == 401]
    assert len(dead) == TABLES, len(dead)   # each dead token tried once, by /speed
    assert spent["edit_followup"] == 1.0, spent   # that try, and /move retiring /speed's message by its live token
    for table in names:
        started, sped, moved = fake.channel_messages(table)[1:]
        assert started["components"] and "⏰" in started["content"]   # superseded: left until a press retires it
        assert not sped["components"] and "set speed 0 -> 1" in sped["content"]
        assert moved["components"] and ": normal" in moved["content"]

    fake.expire_tokens()
    edits = fake.request_counts().get("channel_message_edit", 0)

    async def status(table: str) -> None:
        await answered(fake, await fake.send_slash(table.replace("table-", "host"), table, "game status"))

    await asyncio.gather(*(status(table) for table in names))
    await fake.wait_for(lambda f: f.limits.counts["channel_message_edit"] - edits >= TABLES, ANSWER_TIMEOUT,
                        "every superseded message retired")   # paced: a few seconds
    await asyncio.sleep(0.5)   # and no more
    assert fake.request_counts().get("channel_message_edit", 0) - edits == TABLES
    assert fake.rate_limited().get("global", 0) == 0, fake.rate_limited()
    for table in names:   # the status is the turn's message now, the one it superseded retired
        *_, moved, shown = fake.channel_messages(table)
        assert not moved["components"] and shown["components"] and "⏰" in shown["content"]
    assert "Traceback" not in bot.log_text(), bot.log_tail()
