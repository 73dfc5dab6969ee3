"""Discord rank roles kept up to date (issue 40 item 4): the service says who should hold which tier
(bot.table.service.rank_roles); this makes the roles and gives or takes them.

A server is looked at when its ratings changed or its roles were turned on or off, no sooner than ROLES_SECONDS
after its last look (env PITBOSS_ROLES_SECONDS): any number of games ended meanwhile cost one look, from the
latest ratings. A look costs one request to read the server's roles, then one for each role made or deleted and
one for each member's tier role given or taken (at most 10 members hold a tier of a game). What the bot cannot do
(Manage Roles missing, its highest role not above a tier role, a role deleted by hand) is found from the roles
read, before any request it would be refused, and said once to the one who turned the roles on; it is looked at
again only when the ratings change, never in a loop.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable
from typing import Any

import discord

from bot.chat.pacing import PacedLooks
from bot.table.protocol.replies import Direct
from bot.table.service.rank_roles import KindPlan, RankRoles, problem_words

DEFAULT_ROLES_SECONDS = 30.0
REASON = "Pitboss rank roles (/league roles)"


def roles_seconds() -> float:
    """The least time between two looks at one server's rank roles (env PITBOSS_ROLES_SECONDS)."""
    return float(os.environ.get("PITBOSS_ROLES_SECONDS", DEFAULT_ROLES_SECONDS))


class Standing:
    """What the bot may do with a server's roles, from the roles read: Manage Roles, and its highest role."""

    def __init__(self, guild: discord.Guild, roles: dict[str, dict]):
        me = guild.me
        mine = [roles[str(r.id)] for r in (me.roles if me is not None else []) if str(r.id) in roles]
        everyone = roles.get(str(guild.id), {"permissions": "0", "position": 0, "name": "@everyone"})
        permissions = int(everyone["permissions"])
        for role in mine:
            permissions |= int(role["permissions"])
        self.owner = me is not None and guild.owner_id == me.id
        granted = discord.Permissions(permissions)
        self.manages = self.owner or granted.manage_roles or granted.administrator
        top = max(mine, key=lambda r: int(r["position"]), default=everyone)
        self.top, self.top_name = int(top["position"]), str(top["name"])

    def above(self, role: dict) -> bool:
        """Whether the bot's highest role is above `role` (so it may give, take or delete it)."""
        return self.owner or int(role["position"]) < self.top


class RoleKeeper:
    """Keeps the servers' rank roles: one task per server while it has a look due."""

    def __init__(self, client: Any, service: Callable[[], RankRoles], send: Callable[[list[Direct]], Any],
                 seconds: float | None = None):
        self._client, self._service, self._send = client, service, send
        self._looks = PacedLooks(roles_seconds() if seconds is None else seconds, self.look, "the rank roles")

    def touch(self, guilds: Iterable[str]) -> None:
        """These servers' rank roles are to be looked at (once their pause since the last look is over); a server
        this process does not serve is left to the one that does."""
        for guild in guilds:
            if guild.isdigit() and self._client.get_guild(int(guild)) is not None:
                self._looks.touch(guild)

    async def look(self, guild: str) -> bool:
        """Bring one server's rank roles up to date, and tell what the bot could not do (once): whether it made
        a request."""
        found = self._client.get_guild(int(guild))
        if found is None:
            return False
        rank_roles = self._service()
        plan = await rank_roles.plan(guild)
        if not plan.kinds and not plan.drops:
            return False
        http = self._client.http
        roles = {str(r["id"]): r for r in await http.get_roles(found.id)}
        standing = Standing(found, roles)
        told = [await self._kind(found, kind, roles, standing) for kind in plan.kinds]
        if standing.manages:
            for role_id, member in plan.drops:   # a forgotten member's role taken off
                role = roles.get(role_id)
                if role is not None and standing.above(role):
                    with contextlib.suppress(discord.NotFound):
                        await http.remove_role(found.id, int(member), int(role_id), reason=REASON)
                elif role is not None:
                    continue   # kept until the bot may (said for the game kind's roles)
                await rank_roles.dropped(guild, role_id, member)
        await self._send([direct for direct in told if direct is not None])
        return True

    async def _kind(self, guild: discord.Guild, kind: KindPlan, roles: dict[str, dict],
                    standing: Standing) -> Direct | None:
        """One game kind's roles: taken down, or made and given; what could not be done, as news to tell."""
        rank_roles, http, key = self._service(), self._client.http, str(guild.id)
        if kind.status == "paused":
            return None
        if not standing.manages:
            return await rank_roles.trouble(key, kind.ruleset, problem_words("manage_roles", kind.ruleset))
        for tier, role_id in kind.role_ids.items():
            role = roles.get(role_id)
            if role is None:
                if kind.status == "on":   # deleted by hand: paused, nothing made behind the admins' backs
                    return await rank_roles.lost(key, kind.ruleset, tier)
                continue
            if not standing.above(role):
                return await rank_roles.trouble(key, kind.ruleset, problem_words(
                    "hierarchy", kind.ruleset, str(role["name"]), standing.top_name))
        if kind.status == "off":
            for role_id in kind.role_ids.values():
                if role_id in roles:
                    with contextlib.suppress(discord.NotFound):
                        await http.delete_role(guild.id, int(role_id), reason=REASON)
            await rank_roles.taken_down(key, kind.ruleset)
            return None
        ids = dict(kind.role_ids)
        for tier, name in kind.to_make:   # made at the bottom of the list: below the bot's own role
            made = await http.create_role(guild.id, reason=REASON, name=name, permissions="0", color=0, hoist=False,
                                          mentionable=False)
            ids[tier] = str(made["id"])
            await rank_roles.made(key, kind.ruleset, tier, ids[tier])
        held: dict[str, str | None] = {}
        try:
            for change in kind.changes:
                try:
                    if change.held is not None:
                        await http.remove_role(guild.id, int(change.member), int(ids[change.held]), reason=REASON)
                    if change.due is not None:
                        await http.add_role(guild.id, int(change.member), int(ids[change.due]), reason=REASON)
                    held[change.member] = change.due
                except discord.NotFound:   # left the server: nothing to give or take
                    held[change.member] = None
        except discord.Forbidden as refused:   # changed since the roles were read: said, looked at again later
            return await rank_roles.trouble(key, kind.ruleset, problem_words(f"Discord's {refused.code}",
                                                                             kind.ruleset))
        finally:
            await rank_roles.held(key, kind.ruleset, held)
        return await rank_roles.trouble(key, kind.ruleset, "")
