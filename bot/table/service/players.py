"""`/me`: one player's own clock across all their games on a server: their settings (time zone, away
hours, reminders, where their pings go), and a pause of every running game at once (`/me away`) that
`/me back` ends, each announced in the games' channels."""

from __future__ import annotations

from dataclasses import replace

from bot.storage.store import GameRecord
from bot.table.clock.moments import moment
from bot.table.clock.personal import PlayerSettings, parse_hours, parse_notify, parse_view, parse_zone
from bot.table.clock.settings import HOUR, DamagedSettings, TableSettings
from bot.table.protocol.replies import MESSAGE_LIMIT, Actor, Notice, Reply, clip
from bot.table.service.digests import schedule_digest
from bot.table.service.shared import Table, channel_mention
from bot.table.service.timers import Timers
from rules.errors import GameError
from rules.registry import get_ruleset
from rules.seats import is_resigned
from rules.table import plural

_NOTIFY_WORDS = {
    "dm": " Your turn pings and reminders come by direct message (inside your away hours they wait, as in the "
          "channel); if your direct messages are closed to me, they come in the game's channel, and I say so once.",
    "digest": " No game pings you now: one direct message a day lists each game here waiting on you, with its "
              "deadline in your time.",
}


class PlayerClocks:
    """The /me commands: a player's settings on a server, and their pause of all their games there."""

    def __init__(self, table: Table, timers: Timers):
        self._table, self._timers = table, timers

    async def settings(self, actor: Actor, guild: str, options: dict) -> Reply:
        """Show the player's settings (and their running pauses), or change them; a change counts from
        each game's next wait on them, so it can never lengthen a turn already under way."""
        stored = await self._table.store.player_settings_tx(guild, (actor.id,))
        current = PlayerSettings.from_json(stored.get(actor.id))
        if not options:
            paused = [f"{self._where(game)} until {moment(until)}" for game, until in await self._paused(actor, guild)]
            away = f"\nAway (/me away) in {', '.join(paused)}." if paused else ""
            return Reply("shown", clip(f"Your settings on this server. {current.describe()}{away}\n"
                                       f"Change them with /me settings time_zone: away: reminder_hours: view: notify:.",
                                       MESSAGE_LIMIT), ephemeral=True)
        changes: dict = {}
        if "time_zone" in options:
            changes["time_zone"] = parse_zone(options["time_zone"])
        if "away" in options:
            changes["away"] = parse_hours(options["away"], "away")
        if "reminder_hours" in options:
            changes["reminder_hours"] = float(options["reminder_hours"]) or None
        if "view" in options:
            changes["view"] = parse_view(options["view"])
        if "notify" in options:
            changes["notify"] = parse_notify(options["notify"])
        chosen = replace(current, **changes)
        if (chosen.time_zone, chosen.away) != (current.time_zone, current.away):
            await self._settle_banks(actor, guild, current)
        await self._table.store.set_player_settings(guild, actor.id, chosen.to_json())
        if "notify" in options or chosen.notify == "digest":   # the digest's hour follows their zone and away hours
            await schedule_digest(self._table, guild, actor.id, chosen)
        if "notify" in options:
            await self._table.store.forget_dms_closed(guild, actor.id)
        clock = " They count from your next turn in each game (a running time bank counts by them from now)." \
            if set(options) - {"view", "notify"} else ""
        return Reply("shown", f"Saved. {chosen.describe()}{clock}{_NOTIFY_WORDS.get(chosen.notify, '')}",
                     ephemeral=True)

    async def away(self, actor: Actor, guild: str, hours: int) -> Reply:
        """Pause the player's reminders and deadlines in every running game they sit in on this server,
        each up to its table's pause limit, and say so in each game's channel."""
        games = await self._seated_games(actor, guild)
        if not games:
            raise GameError("You sit in no running game on this server: there is nothing to pause.")
        lines, notices = [], []
        for game in games:
            settings = TableSettings.or_defaults(game.settings)
            allowed = min(float(hours), settings.pause_limit_hours)
            if allowed <= 0:
                lines.append(f"- {self._where(game)}: its table allows no pauses.")
                continue
            until = await self._set_pause(game, actor.id, allowed)
            if until is None:
                continue
            renewed = until - settings.pause_limit_hours * HOUR < self._table.clock()   # capped from an earlier start
            cut = "" if until >= self._table.clock() + hours * HOUR else \
                f" (its table allows up to {settings.pause_limit_hours:g} h{' from when your pause began' * renewed})"
            lines.append(f"- {self._where(game)}: until {moment(until)}{cut}.")
            notices.append(Notice(game.channel, Reply("shown", f"{actor.name} is away (/me away) until "
                                                               f"{moment(until)}: their reminders and deadlines "
                                                               f"in this game wait until then.")))
        if not notices:
            return Reply("shown", clip("Nothing was paused:\n" + "\n".join(lines), MESSAGE_LIMIT), ephemeral=True)
        paused = plural(len(notices), "game", "games")
        text = clip(f"You are away in {paused}; /me back ends it.\n" + "\n".join(lines), MESSAGE_LIMIT)
        return Reply("applied", text, ephemeral=True, notices=tuple(notices))

    async def back(self, actor: Actor, guild: str) -> Reply:
        """End the player's pauses in every game on this server, and say so in each game's channel."""
        paused = await self._paused(actor, guild)
        notices = [Notice(game.channel, Reply("shown", f"{actor.name} is back: their reminders and deadlines "
                                                       f"in this game run again."))
                   for game, _until in paused if await self._set_pause(game, actor.id, None) is not None]
        if not notices:
            raise GameError("You are not away in any game on this server.")
        return Reply("applied", f"Welcome back: your clock runs again in {plural(len(notices), 'game', 'games')}.",
                     ephemeral=True, notices=tuple(notices))

    async def _settle_banks(self, actor: Actor, guild: str, before: PlayerSettings) -> None:
        """Each time bank of the player's running on this server charged until now by the settings they had: a new
        time zone or away hours count from now on, and never give back time already spent."""
        for game in await self._table.store.active_games_of(guild, actor.id):
            async with self._table.write():
                fresh = await self._table.store.active_game_tx(game.channel)
                if fresh is None or fresh.id != game.id:
                    continue
                try:
                    settings = TableSettings.from_json(fresh.settings)
                except DamagedSettings:
                    continue
                settled = settings.bank_settled(actor.id, self._table.clock(), before)
                if settled != settings:
                    await self._table.store.set_settings_tx(fresh, settled.to_json())

    async def _seated_games(self, actor: Actor, guild: str) -> list[GameRecord]:
        """The running games on this server where the player holds a seat now (not resigned: a resigned seat has no
        clock of theirs to pause)."""
        games = await self._table.store.active_games_of(guild, actor.id)
        states = [(g, self._table.snapshots.load(get_ruleset(g.ruleset), g.state)) for g in games]
        return [g for g, state in states if state.player(actor.id) and not is_resigned(state, actor.id)]

    async def _paused(self, actor: Actor, guild: str) -> list[tuple[GameRecord, float]]:
        """The player's games on this server whose pause for them still runs, with its end."""
        now = self._table.clock()
        found = []
        for game in await self._seated_games(actor, guild):
            until = TableSettings.or_defaults(game.settings).paused_until.get(actor.id, 0.0)
            if until > now:
                found.append((game, until))
        return found

    async def _set_pause(self, game: GameRecord, player: str, hours: float | None) -> float | None:
        """Pause one player in one game for `hours` (capped from when their pause began: TableSettings.pause_for),
        or with None end their pause, restarting the clocks as /game pause does; when the pause ends (now, for
        an end), or None when the game ended or moved meanwhile, or its settings are damaged."""
        async with self._table.write():
            fresh = await self._table.store.active_game_tx(game.channel)
            if fresh is None or fresh.id != game.id:
                return None
            try:
                settings = TableSettings.from_json(fresh.settings)
            except DamagedSettings:
                return None
            now, before = self._table.clock(), settings.paused_until.get(player, 0.0)
            settings, until = (settings.unpaused(player), now) if hours is None else \
                settings.pause_for(player, now, hours)
            fresh = await self._table.store.set_settings_tx(fresh, settings.to_json())
            ruleset = get_ruleset(fresh.ruleset)
            await self._timers.sync_tx(ruleset, fresh, self._table.snapshots.load(ruleset, fresh.state), restart=player,
                                       paused_before=before)
        return until

    @staticmethod
    def _where(game: GameRecord) -> str:
        return f"{get_ruleset(game.ruleset).title} in {channel_mention(game.channel)}"
