"""The queue through the real bot on the fake Discord (issue 40 item 2): three members join a queue privately; the
third fills it and the bot opens a public thread off the channel with one message pinging the three, with Confirm
and Decline buttons; one declines and the seat goes to a fourth who was waiting (pinged in one message); the
confirmations start the game. The requests the queue's pings and muster cost are counted: one message in the
thread pings everyone asked, never a direct message a member."""

from __future__ import annotations

from tests.e2e.fake_discord import DEFERRED_UPDATE
from tests.e2e.fake_limits import Spent, is_global_bound
from tests.e2e.test_e2e_discord import assert_nothing_unexpected, buttons_of, press, slash

QUEUE = {"ruleset": "speedway", "players": 3}
MUSTER_BUDGET = 4   # global-bound requests for the whole muster: the thread, its asking message, the offer on


def pinged(fake, message_id: str) -> set[str]:
    return {user for message, user in fake.notifications() if message == message_id}


async def test_a_queue_of_three_opens_a_thread_musters_and_starts_the_game(fake, bot):
    fake.add_user("dave")
    for name in ("alice", "bob"):
        waiting = await slash(fake, name, "channel", "queue join", **QUEUE)
        assert not waiting.rejected and "wait" in waiting.describe(), waiting.describe()
    assert fake.threads_created == [] and fake.public_history("channel") == []   # waiting is private
    mark = fake.mark()
    filled = await slash(fake, "carol", "channel", "queue join", **QUEUE)
    assert not filled.rejected, filled.describe()
    (thread,) = fake.threads_created
    assert thread.parent_id == fake.channels["channel"].id and "queue #1" in thread.name
    (asking,) = fake.channel_messages(thread)
    ids = {name: fake.users[name].id for name in ("alice", "bob", "carol", "dave")}
    assert pinged(fake, asking["id"]) == {ids["alice"], ids["bob"], ids["carol"]}
    assert set(buttons_of(asking)) == {"Confirm my seat", "Decline"}
    assert "seed" not in asking["content"].lower()
    await slash(fake, "dave", "channel", "queue join", **QUEUE)   # waits for the next one

    await press(fake, "alice", thread, asking["id"], "Confirm my seat")
    declined = await press(fake, "bob", thread, asking["id"], "Decline")
    assert declined.callback.body["type"] == DEFERRED_UPDATE
    offered = [m for m in fake.channel_messages(thread) if "bob declined" in m["content"]]
    assert len(offered) == 1 and pinged(fake, offered[0]["id"]) == {ids["dave"]}
    await press(fake, "carol", thread, asking["id"], "Confirm my seat")
    await press(fake, "dave", thread, offered[0]["id"], "Confirm my seat")
    started = [m for m in fake.channel_messages(thread) if "Every seat is taken: the game starts." in m["content"]]
    assert len(started) == 1 and "Round 1" in started[0]["content"], [m["content"][:80] for m in
                                                                     fake.channel_messages(thread)]
    spent = Spent.of(fake.requests_since(mark), 1)
    print(f"\nthe queue's muster, from the filling join to the start: {spent}")
    global_bound = [r.kind for r in fake.requests_since(mark) if is_global_bound(r.kind)]
    assert len(global_bound) <= MUSTER_BUDGET, global_bound
    assert not any("dm" in kind for kind in global_bound), global_bound   # no direct message in a loop
    assert all(fake.direct_messages(name) == [] for name in ids)
    # the press that started the game took the buttons off the message pressed, riding its own response (counted
    # above); the first message's buttons, pressed after the start, answer privately and come off the same way
    assert buttons_of(fake.message(offered[0]["id"])) == {}
    mark = fake.mark()
    late = await press(fake, "carol", thread, asking["id"], "Confirm my seat")
    assert "This muster is over: the game started." in [f.content for f in late.followups if f.ephemeral], \
        late.describe()
    kept = fake.message(asking["id"])
    assert buttons_of(kept) == {} and kept["content"] == asking["content"]   # its words stay
    assert [r.kind for r in fake.requests_since(mark) if is_global_bound(r.kind)] == []
    assert_nothing_unexpected(fake, bot)
