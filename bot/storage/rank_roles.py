"""Discord rank roles in the database (migration 25, issue 40 item 4): per server and game kind whether they are
on, the role the bot made for each tier, who holds which tier as the bot gave it, and the roles still to take
off forgotten members (bot.table.service.rank_roles decides what goes in)."""

from __future__ import annotations

from dataclasses import dataclass

from bot.storage.store import Store


@dataclass(frozen=True)
class RoleSetting:
    """A server's rank roles of one game kind: on, paused (a role deleted by hand) or being taken down ('off'),
    who turned them on and in which channel, and what the bot last could not do ('' when nothing)."""

    guild: str
    ruleset: str
    status: str
    turned_on_by: str
    channel: str
    problem: str


_SETTING = "SELECT guild, ruleset, status, turned_on_by, channel, problem FROM rank_roles"


async def settings(store: Store, guild: str) -> list[RoleSetting]:
    """Every game kind of a server with rank roles (on, paused or being taken down), by game kind."""
    rows = await store.driver.fetchall(f"{_SETTING} WHERE guild = ? ORDER BY ruleset", (guild,))
    return [RoleSetting(*row) for row in rows]


async def setting(store: Store, guild: str, ruleset: str) -> RoleSetting | None:
    """A server's rank roles of one game kind, or None (never turned on, or taken down)."""
    row = await store.driver.fetchone(f"{_SETTING} WHERE guild = ? AND ruleset = ?", (guild, ruleset))
    return RoleSetting(*row) if row else None


async def turn_on(store: Store, guild: str, ruleset: str, member: str, channel: str) -> None:
    """Rank roles of one game kind on, by `member` in `channel`: what the bot could not do before is forgotten,
    and the roles are looked at."""
    async with store.transaction():
        await store.driver.execute(
            "INSERT INTO rank_roles (guild, ruleset, status, turned_on_by, channel, problem, due)"
            " VALUES (?, ?, 'on', ?, ?, '', 1) ON CONFLICT (guild, ruleset) DO UPDATE SET status = 'on',"
            " turned_on_by = excluded.turned_on_by, channel = excluded.channel, problem = '', due = 1",
            (guild, ruleset, member, channel))


async def set_status(store: Store, guild: str, ruleset: str, status: str) -> bool:
    """Pause a game kind's rank roles, or have them taken down ('off'); False when it has none."""
    async with store.transaction():
        return await store.driver.execute("UPDATE rank_roles SET status = ?, due = 1 WHERE guild = ? AND ruleset = ?",
                                          (status, guild, ruleset)) > 0


async def mark_due_tx(store: Store, guild: str) -> None:
    """The server's ratings changed: its rank roles are looked at (a no-op for a server with none)."""
    await store.driver.execute("UPDATE rank_roles SET due = 1 WHERE guild = ? AND due = 0", (guild,))


async def due_guilds(store: Store) -> list[str]:
    """The servers whose rank roles are to be looked at."""
    rows = await store.driver.fetchall("SELECT DISTINCT guild FROM rank_roles WHERE due = 1 ORDER BY guild")
    return [guild for (guild,) in rows]


async def all_guilds(store: Store) -> list[str]:
    """Every server with rank roles."""
    rows = await store.driver.fetchall("SELECT DISTINCT guild FROM rank_roles ORDER BY guild")
    return [guild for (guild,) in rows]


async def take_due(store: Store, guild: str) -> None:
    """The server's rank roles are being looked at now (a change from here on marks them due again)."""
    async with store.transaction():
        await store.driver.execute("UPDATE rank_roles SET due = 0 WHERE guild = ?", (guild,))


async def role_ids(store: Store, guild: str, ruleset: str) -> dict[str, str]:
    """The roles the bot made for a game kind's tiers, by tier."""
    rows = await store.driver.fetchall("SELECT tier, role_id FROM rank_role_ids WHERE guild = ? AND ruleset = ?",
                                       (guild, ruleset))
    return dict(rows)


async def set_role_id(store: Store, guild: str, ruleset: str, tier: str, role_id: str | None) -> None:
    """The role the bot made for a tier (None: it is gone, and nobody holds that tier any more)."""
    async with store.transaction():
        if role_id is None:
            await store.driver.execute("DELETE FROM rank_role_ids WHERE guild = ? AND ruleset = ? AND tier = ?",
                                       (guild, ruleset, tier))
            await store.driver.execute("DELETE FROM rank_role_holders WHERE guild = ? AND ruleset = ? AND tier = ?",
                                       (guild, ruleset, tier))
            return
        await store.driver.execute(
            "INSERT INTO rank_role_ids (guild, ruleset, tier, role_id) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (guild, ruleset, tier) DO UPDATE SET role_id = excluded.role_id",
            (guild, ruleset, tier, role_id))


async def holders(store: Store, guild: str, ruleset: str) -> dict[str, str]:
    """Who holds which tier of a game kind, as the bot gave them: {member: tier}."""
    rows = await store.driver.fetchall("SELECT member, tier FROM rank_role_holders WHERE guild = ? AND ruleset = ?",
                                       (guild, ruleset))
    return dict(rows)


async def set_holders(store: Store, guild: str, ruleset: str, held: dict[str, str | None]) -> None:
    """The tiers the bot gave or took: {member: their tier now, None for none}."""
    async with store.transaction():
        for member, tier in held.items():
            if tier is None:
                await store.driver.execute(
                    "DELETE FROM rank_role_holders WHERE guild = ? AND ruleset = ? AND member = ?",
                    (guild, ruleset, member))
            else:
                await store.driver.execute(
                    "INSERT INTO rank_role_holders (guild, ruleset, member, tier) VALUES (?, ?, ?, ?)"
                    " ON CONFLICT (guild, ruleset, member) DO UPDATE SET tier = excluded.tier",
                    (guild, ruleset, member, tier))


async def set_problem(store: Store, guild: str, ruleset: str, problem: str) -> bool:
    """What the bot could not do for a game kind's roles now ('' when it did all): True when it is news."""
    async with store.transaction():
        return await store.driver.execute(
            "UPDATE rank_roles SET problem = ? WHERE guild = ? AND ruleset = ? AND problem <> ?",
            (problem, guild, ruleset, problem)) > 0


async def taken_down(store: Store, guild: str, ruleset: str) -> None:
    """A game kind's rank roles are gone from the server: nothing of them is kept."""
    async with store.transaction():
        for table in ("rank_roles", "rank_role_ids", "rank_role_holders"):
            await store.driver.execute(f"DELETE FROM {table} WHERE guild = ? AND ruleset = ?", (guild, ruleset))


async def drops(store: Store, guild: str) -> list[tuple[str, str]]:
    """The rank roles still to take off forgotten members on a server: (role id, member)."""
    rows = await store.driver.fetchall("SELECT role_id, member FROM rank_role_drops WHERE guild = ?"
                                       " ORDER BY role_id, member", (guild,))
    return [(role_id, member) for role_id, member in rows]


async def dropped(store: Store, guild: str, role_id: str, member: str) -> None:
    """A forgotten member's rank role is off (or gone): its last trace goes."""
    async with store.transaction():
        await store.driver.execute("DELETE FROM rank_role_drops WHERE guild = ? AND role_id = ? AND member = ?",
                                   (guild, role_id, member))


async def forget_member_tx(store: Store, member: str) -> None:
    """A member is forgotten (inside the caller's transaction): the rank roles they hold are to be taken off (all
    that is kept of them until the bot has), and every server they were rated on looks at its roles again (the
    others move up). Their holder rows go with the personal rows (bot.storage.privacy.PERSONAL)."""
    await store.driver.execute(
        "INSERT INTO rank_role_drops (guild, role_id, member) SELECT h.guild, i.role_id, h.member"
        " FROM rank_role_holders h JOIN rank_role_ids i ON i.guild = h.guild AND i.ruleset = h.ruleset"
        " AND i.tier = h.tier WHERE h.member = ? ON CONFLICT (guild, role_id, member) DO NOTHING", (member,))
    await store.driver.execute(
        "UPDATE rank_roles SET due = 1 WHERE guild IN (SELECT guild FROM rank_role_holders WHERE member = ?"
        " UNION SELECT guild FROM ratings WHERE member = ?)", (member, member))
