"""A tournament through the real bot on the fake Discord (issue 40 item 4): four members press the announcement's
Join, the creator starts it, and the bot opens each round's games in public threads of the channel with everyone
seated; the computer plays every seat, the bot's scheduler carries the results into the final, and the channel
is told the final table. The requests the tournament itself spends are counted."""

from __future__ import annotations

from tests.e2e.fake_discord import FakeDiscord
from tests.e2e.fake_limits import is_global_bound
from tests.e2e.test_e2e_discord import RESPONSE_TIMEOUT, assert_nothing_unexpected, press, slash

MEMBERS = ("alice", "bob", "carol", "dave")
GAMES = 3            # an elimination of four duellists: two games, then the final
# global-bound requests a game costs beyond its players' own commands: its thread, its setup and start
# messages, and its share of the round's line in the channel (and of the final table's)
A_GAME_BUDGET = 4


def said(words: str, channel: str = "channel"):
    """A wait_for test: the messages in `channel` (a name or a thread's id) saying `words` (read on the fake's loop)."""
    def found(fake: FakeDiscord) -> list[dict]:
        channel_id = fake.channels[channel].id if channel in fake.channels else channel
        return [m for m in fake._messages.values() if m["channel_id"] == channel_id and words in m["content"]]
    return found


async def _computer_plays(fake: FakeDiscord, threads: list) -> None:
    for thread in threads:
        await fake.wait_for(said("The game started", thread.id), timeout=RESPONSE_TIMEOUT,
                            what="the game's start in its thread")
        for name in MEMBERS:   # a member not seated there is refused, privately, and nothing changes
            await slash(fake, name, thread, "game seat computer")


async def test_a_tournament_of_four_is_played_out_by_the_computer_to_its_final_table(fake, start_bot):
    bot = start_bot(env={"PITBOSS_TICK_SECONDS": "0.5"})
    fake.add_user("dave")
    made = await slash(fake, "alice", "channel", "tournament new", ruleset="speedway", format="elimination",
                       players=4, setup="arena:duel rounds:100")
    assert not made.rejected, made.describe()
    shown = [made.original] if made.original else []
    (announced,) = [m for m in shown + [f.message for f in made.followups] if "**Tournament 1**" in m["content"]]
    for name in MEMBERS:
        joined = await press(fake, name, "channel", announced["id"], "Join")
        assert not joined.rejected, joined.describe()
    mark = fake.mark()
    started = await slash(fake, "alice", "channel", "tournament start")
    assert not started.rejected, started.describe()
    await fake.wait_for(lambda f: len(f.threads_created) >= 2 or None, timeout=RESPONSE_TIMEOUT, what="round 1")
    first_round = list(fake.threads_created)
    assert all(t.parent_id == fake.channels["channel"].id and "tournament 1" in t.name for t in first_round)
    await _computer_plays(fake, first_round)
    await fake.wait_for(lambda f: len(f.threads_created) >= 3 or None, timeout=RESPONSE_TIMEOUT, what="the final")
    await _computer_plays(fake, fake.threads_created[2:])
    (final,) = await fake.wait_for(said("Tournament 1 is over."), timeout=RESPONSE_TIMEOUT, what="the final table")
    assert "Final table (round reached):\n1. " in final["content"]
    assert len(fake.threads_created) == GAMES
    spent = [r.kind for r in fake.requests_since(mark) if is_global_bound(r.kind)]
    seats = GAMES * 2 * len(MEMBERS)   # each member's seat computer in each thread: answered on its own token
    print(f"\nthe tournament from its start to its final table: {len(spent)} global-bound requests, {seats} commands")
    assert len(spent) <= A_GAME_BUDGET * GAMES, spent
    assert_nothing_unexpected(fake, bot)
