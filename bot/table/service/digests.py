"""The daily digest (`/me settings notify:digest`): one direct message a day, when the player's away hours
end (at DIGEST_HOUR of their day without any), listing each game on the server that waits on them with its
deadline in their own time. Its moment is kept in the store and claimed before it is sent, so a restart
neither loses one nor sends one twice, and a bot that was down sends one, not one for each day missed."""

from __future__ import annotations

from bot.storage.store import StoreBusy
from bot.table.clock.personal import PlayerSettings, local, next_digest, zone_named
from bot.table.protocol.replies import MESSAGE_LIMIT, Direct, clip, whole_lines
from bot.table.service.shared import Table, channel_link
from rules.registry import get_ruleset
from rules.table import plural


async def schedule_digest(table: Table, guild: str, player: str, personal: PlayerSettings) -> None:
    """The player's next digest on a server, from their settings now (none unless they chose notify:digest)."""
    due = next_digest(personal, table.clock()) if personal.notify == "digest" else None
    await table.store.set_digest_due(guild, player, due)


class Digests:
    """Each digest player's daily message, when it falls due."""

    def __init__(self, table: Table):
        self._table = table

    async def due(self) -> list[Direct]:
        """The digests due now, each claimed and its next one set in the same transaction (a player who
        chose another notify: meanwhile gets none, and no more); a digest with no game to list is not sent."""
        store = self._table.store
        now = self._table.clock()
        taken: list[tuple[str, str, PlayerSettings]] = []
        try:
            async with store.transaction():
                for guild, player, _due in await store.claim_digests_tx(now):
                    personal = PlayerSettings.from_json((await store.player_settings_tx(guild, (player,))).get(player))
                    wanted = personal.notify == "digest"
                    await store.set_digest_due_tx(guild, player, next_digest(personal, now) if wanted else None)
                    if wanted:
                        taken.append((guild, player, personal))
        except StoreBusy:
            return []   # claimed by nobody: the next tick takes them
        found = [await self._digest(guild, player, personal) for guild, player, personal in taken]
        return [direct for direct in found if direct is not None]

    async def _digest(self, guild: str, player: str, personal: PlayerSettings) -> Direct | None:
        """One player's digest: each running game on the server waiting on them, soonest deadline first."""
        store = self._table.store
        games = {game.id: game for game in await store.active_games_of(guild, player)}
        timers = [t for t in await store.timers_of_games(list(games)) if t.player == player]
        if not timers:
            return None
        timers.sort(key=lambda t: (t.deadline_due is None, t.deadline_due or 0.0, t.game_id))
        lines = []
        for timer in timers:
            game = games[timer.game_id]
            ruleset = get_ruleset(game.ruleset)
            prompt = ruleset.prompt(self._table.snapshots.load(ruleset, game.state))
            if timer.deadline_due is None:
                deadline = "no deadline"
            else:
                when = local(timer.deadline_due, personal.zone)
                deadline = f"deadline {when:%a %d %b %H:%M} {zone_named(when, personal.time_zone)}"
            lines.append(clip(f"- **{ruleset.title}** in {channel_link(guild, game.channel)}: {deadline}. {prompt}",
                              300))
        head = f"Your daily digest: {plural(len(timers), 'game waits', 'games wait')} on you."
        # its channel form (direct messages closed) is read by all in its first game's channel: only their games
        first = games[timers[0].game_id].channel
        here = [line for line, timer in zip(lines, timers, strict=True) if games[timer.game_id].channel == first]
        return Direct(player, _listed(head, lines, MESSAGE_LIMIT), guild, first,
                      _listed(head, here, MESSAGE_LIMIT - CHANNEL_NOTE_ROOM, len(lines)))


# What the digest's channel form (the member's direct messages closed) leaves for the mention before it and the
# one-time word why it is posted there (bot.chat.adapter.DMS_CLOSED, 240 characters): cut whole lines, never that.
CHANNEL_NOTE_ROOM = 320


def _listed(head: str, lines: list[str], room: int, waiting: int | None = None) -> str:
    """The digest's head and as many whole lines as fit in `room` characters, and how many more of the `waiting`
    games (all of them listed in `lines` unless said) wait."""
    kept = whole_lines(lines, room - len(head) - 40)
    unlisted = (len(lines) if waiting is None else waiting) - len(kept)
    more = f"\n… and {unlisted} more (/games lists them)." if unlisted else ""
    return "\n".join([head, *kept]) + more
