"""Rollback votes through the real bot on the fake Discord (issue 36, items 3, 4 and 14): a seat handed to the
computer still votes through its player; an older proposal's Yes, pressed from a client that still shows it,
is refused and changes nothing; a vote is one question message, edited as it goes and to its outcome, that
pings each person it asks once; an approved rollback marks the turn messages it set aside."""

from __future__ import annotations

import copy

from tests.e2e.fake_discord import DEFERRED_UPDATE, EPHEMERAL, MESSAGE_COMPONENT, Exchange, FakeDiscord, _public_message
from tests.e2e.test_e2e_discord import (
    RESPONSE_TIMEOUT,
    assert_nothing_unexpected,
    assert_private_refusal,
    assert_public_map,
    buttons_of,
    lobby_of_two,
    next_player,
    press,
    slash,
)
from tests.e2e.test_e2e_seat_powers import time_passes

YES = "Yes, roll back"


def question_of(asked: Exchange) -> str:
    """The id of the one public message a proposal posted."""
    assert not asked.rejected, asked.describe()
    (question,) = [r for r in asked.requests if r.kind == "followup" and not r.body.get("flags", 0) & EPHEMERAL]
    return str(question.response["id"])


async def stale_press(fake: FakeDiscord, user: str, shown: dict, label: str) -> Exchange:
    """A press from a client still showing `shown`, a message as it was before the bot edited it."""
    custom_id = buttons_of(shown)[label]

    def build() -> tuple[dict, dict]:
        return {"custom_id": custom_id, "component_type": 2}, _public_message(shown)

    interaction = await fake._bridge(fake._dispatch_interaction(   # unchecked against the message
        MESSAGE_COMPONENT, fake.users[user], fake.channels["channel"], f"click {custom_id}", build))
    return await fake.responses(interaction, timeout=RESPONSE_TIMEOUT)


def pinged(fake: FakeDiscord, message_id: str) -> set[str]:
    return {user for message, user in fake.notifications() if message == message_id}


async def play(fake: FakeDiscord, shown, moves: int, record_latency) -> list:
    """`moves` turns of whoever the game waits on (a speed of 0, or the end of a turn with nothing left)."""
    played = []
    for _ in range(moves):
        waits = next(line for line in shown.content.splitlines() if line.startswith("Next:"))
        verb, options = ("end", {}) if "/end the turn" in waits else ("speed", {"value": "0"})
        shown = assert_public_map(await slash(fake, next_player(shown), "channel", verb, **options), record_latency)
        played.append(shown)
    return played


async def test_an_old_proposals_yes_is_refused_and_a_vote_is_one_edited_message(fake, bot, record_latency):
    """Items 4, 14 and 3: alice proposes to:6, carol votes no and proposes to:4; bob's Yes on alice's message
    is refused; each question pings those it asks once, a yes edits it, and the approved rollback leaves it
    saying so with no buttons, the turn messages it set aside marked. Then alice, the host, gives bob's seat
    to the computer: her next proposal still waits on bob."""
    await lobby_of_two(fake, record_latency)
    assert_public_map(await slash(fake, "carol", "channel", "game join"), record_latency)
    shown = assert_public_map(await slash(fake, "alice", "channel", "game start"), record_latency)
    turns = [played.message_id for played in await play(fake, shown, 4, record_latency)]
    users = {name: fake.users[name].id for name in ("alice", "bob", "carol")}
    first = question_of(await slash(fake, "alice", "channel", "game rollback", to=6))
    assert pinged(fake, first) == {users["bob"], users["carol"]}
    as_shown = copy.deepcopy(fake.message(first))
    await press(fake, "carol", "channel", first, "No")
    assert fake.message(first)["content"].startswith("Refused: alice proposed rolling the game back to #6")
    assert not buttons_of(fake.message(first))
    second = question_of(await slash(fake, "carol", "channel", "game rollback", to=4))
    assert pinged(fake, second) == {users["alice"], users["bob"]}

    refused = await stale_press(fake, "bob", as_shown, YES)
    assert_private_refusal(refused, record_latency, "That vote is over.", kind=DEFERRED_UPDATE)
    assert not any("The table voted" in m["content"] for m in fake.public_history("channel"))

    public = len(fake.public_history("channel"))
    await press(fake, "bob", "channel", second, YES)
    assert len(fake.public_history("channel")) == public   # the yes edited the question; nothing new, no ping
    assert "Yes so far: carol, bob. Waiting on alice" in fake.message(second)["content"]
    done = assert_public_map(await press(fake, "alice", "channel", second, YES), record_latency, kind=DEFERRED_UPDATE)
    assert "The table voted to roll back to #4" in done.content
    assert fake.message(second)["content"].startswith("Approved: carol proposed rolling the game back to #4")
    assert not buttons_of(fake.message(second))
    marked = [fake.message(m) for m in dict.fromkeys(turns)]
    assert marked and all(m["content"].startswith(("Set aside by the rollback to #4", "What follows #4 here"))
                          and not buttons_of(m) for m in marked), [m["content"] for m in marked]

    time_passes(bot.db, 73)   # bob is gone: the host may act on his seat
    assert_public_map(await slash(fake, "alice", "channel", "game seat computer", player="bob"), record_latency)
    await play(fake, done, 1, record_latency)
    third = question_of(await slash(fake, "alice", "channel", "game rollback", to=6))
    assert pinged(fake, third) == {users["bob"], users["carol"]}
    assert "Waiting on bob, carol" in fake.message(third)["content"]
    assert_nothing_unexpected(fake, bot)
