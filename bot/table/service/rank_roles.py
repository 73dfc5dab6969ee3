"""Discord rank roles (issue 40 item 4): `/league roles` turns them on or off per game kind, and this room decides
who should hold which tier; the Discord adapter (bot.chat.rank_roles) makes the roles and gives them.

Rulings (docs/league.md):
- Three tiers a game kind, among the server's members whose rating is not provisional (PROVISIONAL_GAMES rated
  games or more), ranked as /standings ranks them (ordinal, highest first; then id): the first is Champion,
  the 2nd and 3rd Top 3, the 4th to the 10th Top 10. A member holds one tier role a game kind at most (their
  best), so at most 10 members hold one: a game's end changes a bounded number of roles.
- Roles are looked at when the ratings change (a game rated, a rebuild, a member forgotten) and when they are
  turned on or off; the transport coalesces (the latest ratings win) and tells the one who turned them on,
  once, what it could not do (a permission, the role order, a role deleted by hand), which /league roles shows.
- A role deleted by hand pauses that game kind's roles (no role is made again behind an admin's back) until
  someone with Manage Server turns them on again; off takes the bot's roles of that game kind away.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.storage import rank_roles as stored
from bot.storage import ratings as rated_stored
from bot.storage.privacy import FORGOTTEN
from bot.storage.rank_roles import RoleSetting
from bot.storage.ratings import Rating
from bot.table.protocol.replies import MESSAGE_LIMIT, Actor, Direct, Reply, clip
from bot.table.service.ratings import PROVISIONAL_GAMES
from bot.table.service.shared import Table, channel_mention
from rules.errors import GameError
from rules.registry import get_ruleset, ruleset_ids

# (tier, the words its role's name ends with, the last rank it holds), best first
TIERS: tuple[tuple[str, str, int], ...] = (("champion", "Champion", 1), ("top3", "Top 3", 3), ("top10", "Top 10", 10))
TIER_WORDS = {tier: words for tier, words, _ in TIERS}
DISCORD_ONLY = ("Rank roles are given on Discord only: here this shows who would hold which tier.")


def short_title(ruleset: str) -> str:
    """A game's title without its gloss in brackets: what its role names start with."""
    return get_ruleset(ruleset).title.split(" (")[0]


def role_name(ruleset: str, tier: str) -> str:
    """A tier role's name on the server: the game's short title and the tier ('GAME Champion')."""
    return f"{short_title(ruleset)} {TIER_WORDS[tier]}"[:100]


def tiers_of(ratings: list[Rating]) -> dict[str, str]:
    """Who should hold which tier of one game kind: {member: tier}, from its ratings (the provisional left out)."""
    ranked = sorted((r for r in ratings if r.games >= PROVISIONAL_GAMES), key=lambda r: (-r.ordinal, r.member))
    held = {}
    for rank, rating in enumerate(ranked, start=1):
        tier = next((t for t, _words, last in TIERS if rank <= last), None)
        if tier is None:
            break
        held[rating.member] = tier
    return held


def problem_words(kind: str, ruleset: str, role: str = "", mine: str = "") -> str:
    """What the bot lacks to keep a game kind's rank roles, said exactly (`kind`: what went wrong)."""
    title = short_title(ruleset)
    if kind == "manage_roles":
        return (f"I cannot keep the {title} rank roles: I need the Manage Roles permission on this server "
                f"(Server Settings → Roles → my role).")
    if kind == "hierarchy":
        return (f"I cannot give or take the role {role}: my highest role ({mine}) is not above it. Drag my role "
                f"above the {title} rank roles in Server Settings → Roles.")
    if kind == "deleted":
        return (f"The role {role} was deleted by hand, so the {title} rank roles are paused. /league roles "
                f"ruleset:{ruleset} set:on makes it again; set:off takes the others away.")
    return f"Discord refused a change of the {title} rank roles ({kind}); I try again when the ratings change."


@dataclass(frozen=True)
class Change:
    """One member's tier role of a game kind to change: the tier they hold now and the one they should (None:
    none)."""

    member: str
    held: str | None
    due: str | None


@dataclass(frozen=True)
class KindPlan:
    """What one game kind's rank roles need: made (tiers without a role yet, by name), taken down (`off`), or
    each member's change."""

    ruleset: str
    status: str
    role_ids: dict[str, str]
    to_make: tuple[tuple[str, str], ...]   # (tier, role name)
    changes: tuple[Change, ...]


@dataclass(frozen=True)
class RolePlan:
    """A server's rank roles to bring up to date: each game kind's, and the roles to take off forgotten members."""

    guild: str
    kinds: tuple[KindPlan, ...]
    drops: tuple[tuple[str, str], ...]   # (role id, member)


class RankRoles:
    """`/league roles`, and what the transport asks to keep the roles up to date."""

    def __init__(self, table: Table):
        self._table = table
        self._touched: set[str] = set()   # servers whose roles were turned on or off here: looked at at once

    def take_touched(self) -> set[str]:
        """The servers whose rank roles this process turned on or off since the last time asked."""
        touched, self._touched = self._touched, set()
        return touched

    async def command(self, actor: Actor, guild: str, channel: str, ruleset: str | None, turn: str | None) -> Reply:
        """`/league roles [ruleset:] [set:on|off]`: the server's rank roles, or one game kind's turned on or off
        (Manage Server)."""
        store = self._table.store
        if ruleset is None:
            if turn is not None:
                raise GameError(f"ruleset: which game's rank roles to turn {turn} ({', '.join(ruleset_ids())}).")
            return Reply("shown", clip(await self._overview(guild), MESSAGE_LIMIT), ephemeral=True)
        if ruleset not in ruleset_ids():
            raise GameError(f"ruleset: one of {', '.join(ruleset_ids())}.")
        title = short_title(ruleset)
        current = await stored.setting(store, guild, ruleset)
        if turn is None:
            return Reply("shown", clip(await self._state(guild, ruleset, current), MESSAGE_LIMIT), ephemeral=True)
        if not actor.is_admin:
            raise GameError("Only a member with Manage Server turns rank roles on or off.")
        if turn == "off":
            if current is None or current.status == "off":
                raise GameError(f"The {title} rank roles are not on here; nothing changed.")
            await stored.set_status(store, guild, ruleset, "off")
            self._touched.add(guild)
            return Reply("shown", f"The {title} rank roles are off: I take their roles away"
                                  f"{'' if _on_discord(guild) else ' (on Discord)'}.", ephemeral=True)
        await stored.turn_on(store, guild, ruleset, actor.id, channel)
        self._touched.add(guild)
        names = ", ".join(role_name(ruleset, tier) for tier, _w, _l in TIERS)
        lines = [f"The {title} rank roles are on: I make the roles {names} (no permissions, not shown apart, "
                 f"nobody may mention them) and give them as the ratings change; what I cannot do I tell you once."]
        lines.append(await self._holders_words(guild, ruleset))
        if not _on_discord(guild):
            lines.append(DISCORD_ONLY)
        return Reply("shown", clip("\n".join(lines), MESSAGE_LIMIT), ephemeral=True)

    async def _overview(self, guild: str) -> str:
        kinds = await stored.settings(self._table.store, guild)
        lines = [f"Rank roles on this server. {TIERS_SAID}"]
        if not kinds:
            lines.append("None are on. A member with Manage Server turns a game's on with /league roles ruleset:GAME "
                         "set:on (I need the Manage Roles permission).")
        for kind in kinds:
            lines.append(f"- {short_title(kind.ruleset)}: {_status_words(kind)}")
        if not _on_discord(guild):
            lines.append(DISCORD_ONLY)
        return "\n".join(lines)

    async def _state(self, guild: str, ruleset: str, current: RoleSetting | None) -> str:
        title = short_title(ruleset)
        lines = [f"The {title} rank roles here: {_status_words(current) if current else 'off'}. {TIERS_SAID}"]
        lines.append(await self._holders_words(guild, ruleset))
        if not _on_discord(guild):
            lines.append(DISCORD_ONLY)
        return "\n".join(lines)

    async def _holders_words(self, guild: str, ruleset: str) -> str:
        """Who should hold which tier now, by the ratings."""
        due = tiers_of(await rated_stored.ratings_of_kind(self._table.store, guild, ruleset))
        if not due:
            return f"Nobody holds a tier yet: a tier needs {PROVISIONAL_GAMES} rated games of it."
        lines = ["By the ratings now:"]
        for tier, _words, _last in TIERS:
            members = [_member(m) for m, t in due.items() if t == tier]
            if members:
                lines.append(f"{role_name(ruleset, tier)}: {', '.join(members)}")
        return "\n".join(lines)

    async def due_guilds(self) -> list[str]:
        """The servers whose rank roles are to be looked at (their ratings changed, or they were turned on or off)."""
        return await stored.due_guilds(self._table.store)

    async def kept_guilds(self) -> list[str]:
        """Every server with rank roles (the transport looks at each once when it starts)."""
        return await stored.all_guilds(self._table.store)

    async def plan(self, guild: str) -> RolePlan:
        """What a server's rank roles need now; from here on a change of its
        ratings asks for another look."""
        store = self._table.store
        await stored.take_due(store, guild)
        kinds = []
        for kind in await stored.settings(store, guild):
            ids = await stored.role_ids(store, guild, kind.ruleset)
            if kind.status != "on":
                kinds.append(KindPlan(kind.ruleset, kind.status, ids, (), ()))
                continue
            held = await stored.holders(store, guild, kind.ruleset)
            due = tiers_of(await rated_stored.ratings_of_kind(store, guild, kind.ruleset))
            changes = tuple(Change(m, held.get(m), due.get(m)) for m in sorted(set(held) | set(due))
                            if held.get(m) != due.get(m))
            to_make = tuple((tier, role_name(kind.ruleset, tier)) for tier, _w, _l in TIERS if tier not in ids)
            kinds.append(KindPlan(kind.ruleset, kind.status, ids, to_make, changes))
        return RolePlan(guild, tuple(kinds), tuple(await stored.drops(store, guild)))

    async def made(self, guild: str, ruleset: str, tier: str, role_id: str) -> None:
        """The transport made a tier's role."""
        await stored.set_role_id(self._table.store, guild, ruleset, tier, role_id)

    async def held(self, guild: str, ruleset: str, changes: dict[str, str | None]) -> None:
        """The transport gave or took these members' tier roles: {member: the tier they hold now}."""
        await stored.set_holders(self._table.store, guild, ruleset, changes)

    async def dropped(self, guild: str, role_id: str, member: str) -> None:
        """The transport took a forgotten member's rank role off (or found it gone)."""
        await stored.dropped(self._table.store, guild, role_id, member)

    async def taken_down(self, guild: str, ruleset: str) -> None:
        """The transport took a game kind's roles away (rank roles off): nothing of them is kept."""
        await stored.taken_down(self._table.store, guild, ruleset)

    async def lost(self, guild: str, ruleset: str, tier: str) -> Direct | None:
        """A tier's role was deleted by hand: the game kind's rank roles pause, and the one who turned them on
        is told once."""
        store = self._table.store
        await stored.set_role_id(store, guild, ruleset, tier, None)
        await stored.set_status(store, guild, ruleset, "paused")
        await stored.take_due(store, guild)
        return await self.trouble(guild, ruleset, problem_words("deleted", ruleset, role_name(ruleset, tier)))

    async def trouble(self, guild: str, ruleset: str, problem: str) -> Direct | None:
        """What the transport could not do for a game kind's roles ('' when it did all): the message telling the
        one who turned them on, when it is news (so it is said once), else None."""
        store = self._table.store
        if not await stored.set_problem(store, guild, ruleset, problem) or not problem:
            return None
        kind = await stored.setting(store, guild, ruleset)
        if kind is None or kind.turned_on_by == FORGOTTEN:   # the member who turned them on was forgotten
            return None
        return Direct(kind.turned_on_by, f"Rank roles on your server: {problem}", guild, kind.channel,
                      f"(rank roles) {problem}")


TIERS_SAID = ("The tiers, among the members whose rating of the game is not provisional: Champion (1st), Top 3 "
              "(2nd and 3rd), Top 10 (4th to 10th).")


def _status_words(kind: RoleSetting) -> str:
    """A game kind's rank roles as /league roles says them: on, paused or being taken down, and their trouble."""
    said = {"on": "on", "paused": "paused", "off": "being taken away"}[kind.status]
    where = f" (turned on by {_member(kind.turned_on_by)} in {channel_mention(kind.channel)})"
    trouble = f" ⚠ {kind.problem}" if kind.problem else ""
    return said + where + trouble


def _member(member: str) -> str:
    return f"<@{member}>" if member.isdigit() else member


def _on_discord(guild: str) -> bool:
    """Whether a server is a Discord one (the command line's has no id)."""
    return guild.isdigit()
