"""Discord rank roles through the real bot on the fake Discord (issue 40 item 4): an admin turns a game's roles on,
the bot makes them and gives them by the ratings; a game ends, or a member forgets themselves, and the members whose
tier changed get theirs, for a counted number of requests; without Manage Roles, with its role below a tier role,
or with a role deleted by hand, the bot says exactly what it lacks, once, and changes nothing."""

from __future__ import annotations

import sqlite3

from tests.e2e.fake_discord import EPHEMERAL, FakeDiscord
from tests.e2e.test_e2e_discord import RESPONSE_TIMEOUT, assert_nothing_unexpected, slash

ROLE_KINDS = ("roles_get", "role_create", "role_delete", "member_role_add", "member_role_remove")
TIERS = ("Speedway Champion", "Speedway Top 3", "Speedway Top 10")


def private_to(fake: FakeDiscord, user: str) -> str:
    """The latest message only `user` sees in the channel."""
    return [m for m in fake.channel_messages("channel", viewer=user) if m["flags"] & EPHEMERAL][-1]["content"]


def held(fake: FakeDiscord) -> dict[str, list[str]]:
    """Who holds each tier role (to be read on the fake's loop: in a wait_for, or through snapshot)."""
    return {name: fake.holders_of(role_id) for name in TIERS if (role_id := fake.role_named(name)) is not None}


async def holding(fake: FakeDiscord, expected: dict[str, list[str]]) -> None:
    await fake.wait_for(lambda f: held(f) == expected or None, timeout=RESPONSE_TIMEOUT,
                        what=f"the tier roles held as {expected}")


async def told(fake: FakeDiscord, user: str, words: str) -> list[dict]:
    """The direct messages to `user` saying `words`, once there is one."""
    def found(f: FakeDiscord) -> list[dict] | None:
        inbox = f.dm_channels.get(f.users[user].id)
        return [m for m in f._messages.values() if inbox is not None and m["channel_id"] == inbox.id
                and words in m["content"]] or None
    return await fake.wait_for(found, timeout=RESPONSE_TIMEOUT, what=f"a direct message to {user} saying {words!r}")


async def test_rank_roles_follow_the_ratings_and_say_what_the_bot_lacks(fake, start_bot):
    bot = start_bot(env={"PITBOSS_TICK_SECONDS": "0.3", "PITBOSS_ROLES_SECONDS": "0.5"})
    ids = {name: fake.users[name].id for name in ("alice", "bob", "carol", "admin")}
    with sqlite3.connect(bot.db) as db:   # carol and the admin are rated; alice and bob one game short
        db.executemany("INSERT INTO ratings (guild, ruleset, member, mu, sigma, games)"
                       " VALUES (?, 'speedway', ?, ?, ?, ?)",
                       [(fake.guild_id, ids["carol"], 30.0, 2.0, 6), (fake.guild_id, ids["admin"], 15.0, 2.0, 5),
                        (fake.guild_id, ids["alice"], 25.0, 3.0, 4), (fake.guild_id, ids["bob"], 25.0, 3.0, 4)])

    await slash(fake, "bob", "channel", "league roles", ruleset="speedway", set="on")
    assert "Manage Server" in private_to(fake, "bob")
    mark = fake.mark()
    await slash(fake, "admin", "channel", "league roles", ruleset="speedway", set="on")
    assert "The Speedway rank roles are on" in private_to(fake, "admin")
    await holding(fake, {"Speedway Champion": ["carol"], "Speedway Top 3": ["admin"], "Speedway Top 10": []})
    made = [r.kind for r in fake.requests_since(mark) if r.kind in ROLE_KINDS]
    assert sorted(made) == ["member_role_add"] * 2 + ["role_create"] * 3 + ["roles_get"], made
    created = [r.body for r in fake.requests_since(mark) if r.kind == "role_create"]
    assert all(b["permissions"] == "0" and not b["hoist"] and not b["mentionable"] for b in created), created

    # a game ends: alice and bob reach five rated games; only the members whose tier changed are touched
    mark = fake.mark()
    await slash(fake, "alice", "channel", "new speedway", seed=7)
    await slash(fake, "alice", "channel", "game join")
    await slash(fake, "bob", "channel", "game join")
    await slash(fake, "alice", "channel", "game start")
    await slash(fake, "bob", "channel", "game resign", confirm="yes")
    await holding(fake, {"Speedway Champion": ["carol"], "Speedway Top 3": ["alice", "bob"],
                         "Speedway Top 10": ["admin"]})
    spent = [r.kind for r in fake.requests_since(mark) if r.kind in ROLE_KINDS]
    # one read of the roles, admin's Top 3 for Top 10 (two), alice's and bob's Top 3 (one each)
    assert sorted(spent) == ["member_role_add"] * 3 + ["member_role_remove", "roles_get"], spent
    await slash(fake, "carol", "channel", "league roles", ruleset="speedway")
    shown = private_to(fake, "carol")
    assert f"Speedway Top 3: <@{ids['alice']}>, <@{ids['bob']}>" in shown and "⚠" not in shown, shown

    # alice forgets herself: her role is taken off, and the admin moves up into the Top 3
    mark = fake.mark()
    await slash(fake, "alice", "channel", "me forget", confirm="yes")
    await holding(fake, {"Speedway Champion": ["carol"], "Speedway Top 3": ["admin", "bob"], "Speedway Top 10": []})
    spent = [r.kind for r in fake.requests_since(mark) if r.kind in ROLE_KINDS]
    assert sorted(spent) == ["member_role_add", "member_role_remove", "member_role_remove", "roles_get"], spent

    # the bot's role loses Manage Roles: turning roles on is refused naming it
    fake.edit_role(fake.bot_role, permissions=0)
    await slash(fake, "admin", "channel", "league roles", ruleset="speedway", set="on")
    assert "I need the Manage Roles permission" in private_to(fake, "admin")

    # a tier role dragged above the bot's own: said once to the admin who turned them on, nothing changed
    fake.edit_role(fake.bot_role, permissions=1 << 28)
    champion = fake.role_named("Speedway Champion")
    fake.edit_role(champion, position=10)
    mark = fake.mark()
    await slash(fake, "admin", "channel", "league roles", ruleset="speedway", set="on")
    (dm,) = await told(fake, "admin", "is not above it")
    assert "the role Speedway Champion: my highest role (Pitboss)" in dm["content"]
    await slash(fake, "carol", "channel", "league roles", ruleset="speedway")
    assert "⚠ I cannot give or take the role Speedway Champion" in private_to(fake, "carol")
    assert [r.kind for r in fake.requests_since(mark) if r.kind in ROLE_KINDS] == ["roles_get"]

    # a role deleted by hand: the game's roles pause, said once; turned on again, it is made anew
    fake.edit_role(champion, position=1)
    fake.delete_role_by_hand(fake.role_named("Speedway Top 10"))
    await slash(fake, "admin", "channel", "league roles", ruleset="speedway", set="on")
    await told(fake, "admin", "The role Speedway Top 10 was deleted by hand")
    await slash(fake, "admin", "channel", "league roles", ruleset="speedway", set="on")
    await holding(fake, {"Speedway Champion": ["carol"], "Speedway Top 3": ["admin", "bob"],
                         "Speedway Top 10": []})

    # off: the bot's roles are deleted
    await slash(fake, "admin", "channel", "league roles", ruleset="speedway", set="off")
    await fake.wait_for(lambda f: held(f) == {} or None, timeout=RESPONSE_TIMEOUT, what="the roles deleted")
    assert len(fake.direct_messages("admin")) == 2   # each trouble said once
    assert_nothing_unexpected(fake, bot)
