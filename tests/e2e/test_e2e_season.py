"""A league season through the real bot on the fake Discord (issue 40 item 4): a manager runs a season, four members
press the announcement's Join, and the bot pairs them into games opened in public threads of the channel with
everyone seated; the computer plays the seats out, the bot's scheduler pairs them again (nobody with whom they just
played), and `/league end` gives the final standings. The requests a paired game costs are counted."""

from __future__ import annotations

from tests.e2e.fake_limits import is_global_bound
from tests.e2e.test_e2e_discord import RESPONSE_TIMEOUT, assert_nothing_unexpected, press, slash
from tests.e2e.test_e2e_tournament import MEMBERS, _computer_plays

# global-bound requests a paired game costs beyond its players' own commands: its thread, its setup and start
# messages, and its share of the pairing's line in the channel
A_GAME_BUDGET = 4


async def test_a_season_pairs_its_members_into_threads_and_ends_with_its_standings(fake, start_bot):
    bot = start_bot(env={"PITBOSS_TICK_SECONDS": "0.5"})
    fake.add_user("dave")
    refused = await slash(fake, "alice", "channel", "league new", ruleset="speedway", season_days=7, max_games=1,
                          setup="arena:duel")
    assert refused.rejected or "manages the server" in refused.describe()
    made = await slash(fake, "admin", "channel", "league new", ruleset="speedway", season_days=7, max_games=1,
                       setup="arena:duel rounds:100")
    assert not made.rejected, made.describe()
    shown = [made.original] if made.original else []
    (announced,) = [m for m in shown + [f.message for f in made.followups] if "**Season 1**" in m["content"]]
    mark = fake.mark()
    for name in MEMBERS:
        joined = await press(fake, name, "channel", announced["id"], "Join")
        assert not joined.rejected, joined.describe()
    await fake.wait_for(lambda f: len(f.threads_created) >= 2 or None, timeout=RESPONSE_TIMEOUT, what="two games")
    first = list(fake.threads_created)
    assert all(t.parent_id == fake.channels["channel"].id and "season 1" in t.name for t in first)
    spent = [r.kind for r in fake.requests_since(mark) if is_global_bound(r.kind)]
    print(f"\nfour joins and two paired games: {len(spent)} global-bound requests")
    assert len(spent) <= A_GAME_BUDGET * 2, spent
    await _computer_plays(fake, first)
    await fake.wait_for(lambda f: len(f.threads_created) >= 4 or None, timeout=RESPONSE_TIMEOUT,
                        what="the pairing after the first games ended")
    ended = await slash(fake, "admin", "channel", "league end")
    assert not ended.rejected, ended.describe()
    assert "Season 1** of Speedway is over" in ended.describe()
    assert len(fake.threads_created) == 4
    assert_nothing_unexpected(fake, bot)
