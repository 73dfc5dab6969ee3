"""The table's timers: a reminder and deadline clock for each player a game waits on, the table's
settings and a player's pause, which set them."""

from __future__ import annotations

from typing import Any

from bot.storage.store import GameRecord
from bot.table.clock.moments import moment
from bot.table.clock.personal import PlayerSettings
from bot.table.clock.settings import HOUR, DamagedSettings, TableSettings, grace_kept, in_grace, timer_for, updated
from bot.table.protocol.refusals import NoGame
from bot.table.protocol.replies import MESSAGE_LIMIT, Actor, Reply, clip
from bot.table.service.helping import setup_in_words
from bot.table.service.league_moves import paired_by
from bot.table.service.shared import Table, reads
from rules.engine import Ruleset
from rules.errors import GameError
from rules.registry import get_ruleset
from rules.seats import is_resigned
from rules.table import TablePhase

# What the host of a league's game may still set: reminders and quiet hours (the deadline, its action, the clock,
# pauses, graces, away hours and when a player counts as gone are the league's, the same for all its games)
LEAGUE_FREE = frozenset({"reminder_hours", "quiet_hours"})


class Timers:
    """Each waited-on player's reminder and deadline clock, and the settings and pauses that set them."""

    def __init__(self, table: Table):
        self._table = table

    async def sync_tx(self, ruleset: Ruleset, game: GameRecord, state: Any, force: bool = False,
                      acted: str | None = None, moved: bool = True, restart: str | None = None,
                      paused_before: float = 0.0) -> GameRecord:
        """A reminder and deadline clock for each person the game waits on: started when it starts
        waiting on them, kept while it still does in the same turn, dropped when it no longer does.
        A deadline measures how long the game has waited on a player without an action from them, so
        the clock of `acted`, who just acted and is still waited on, starts again. Under a time bank, a
        bank runs while its clock does; `acted` ending their wait is a move that earns the increment (not
        `moved`: an undo, which takes back what the undone move earned). `restart`: one player whose clock
        starts again (their pause began or ended; `paused_before`: when their pause ended before that), the
        others' running on. A grace's wait started again in the same turn (an action, a pause, new settings) runs
        at least what is left of it. The game record, its settings as written."""
        waiting = () if ruleset.is_finished(state) else ruleset.people_waited_on(state)
        key = ruleset.turn_key(state)
        # the waiting players' settings with the timers, in one trip: those whose clock starts are among them
        unknown = self._table.unread_settings(game.guild, waiting)
        if unknown:
            read, stored = await self._table.store.timers_and_settings_tx(game.id, game.guild, unknown)
            for player in unknown:
                self._table.knows_settings(game.guild, player, stored.get(player))
        else:
            read = await self._table.store.timers_tx(game.id)
        current = {t.player: t for t in read}
        ended = set(current) - set(waiting)
        for player in ended:
            await self._table.store.clear_timer_tx(game.id, player)
        settings = TableSettings.from_json(game.settings)
        starting = [p for p in waiting
                    if force or p in (acted, restart) or p not in current or current[p].turn_key != key]
        now = self._table.clock()
        own = await self.personal_tx(game, tuple(starting) + (tuple(ended) if settings.banked else ()))
        kept = settings.without_previews(ended | ({acted} if acted else set()))
        for player in sorted(ended | set(starting)):
            ends_wait = player in current and (player not in waiting or current[player].turn_key != key)
            if player != acted:
                increments = 0
            elif moved:
                increments = 1 if ends_wait else 0
            else:   # an undo: the undone move had ended their wait (they had no clock), so it earned one
                increments = -1 if player not in current else 0
            kept = kept.bank_stopped(player, now, own.get(player), increments)
        for player in starting:
            kept = kept.bank_started(player, max(now, kept.paused_until.get(player, 0.0)))
        if kept != settings:
            game = await self._table.store.set_settings_tx(game, kept.to_json())
        timers = {p: t for p, t in current.items() if p not in ended}
        for player in starting:
            timers[player] = timer_for(kept, game.id, game.channel, player, key, now, own.get(player))
            previous = current.get(player)
            if previous is not None and previous.turn_key == key and in_grace(previous):
                before = paused_before if player == restart else kept.paused_until.get(player, 0.0)
                timers[player] = grace_kept(kept, previous, timers[player], now, own.get(player), before)
            await self._table.store.set_timer_tx(timers[player])
        reads().timers = (game.id, game.version, timers, True)   # the reply's clock line reads them no more
        return game

    async def restart_tx(self, ruleset: Ruleset, game: GameRecord, state: Any, player: str,
                         after_deadline: bool = False) -> GameRecord:
        """The clock of a player who just acted and is still waited on in the same turn starts again (one
        write; the other players' clocks run on). After a deadline that played nothing, an empty bank waits
        as a grace would (not a deadline due at once, again and again); a grace's wait runs at least what is
        left of it. The game record, its settings as written."""
        settings = TableSettings.from_json(game.settings)
        now = self._table.clock()
        own = (await self.personal_tx(game, (player,))).get(player)
        kept = settings.without_previews({player}).bank_stopped(player, now, own)
        kept = kept.bank_started(player, max(now, kept.paused_until.get(player, 0.0)))
        if kept != settings:
            game = await self._table.store.set_settings_tx(game, kept.to_json())
        least = kept.grace_hours() * HOUR if after_deadline and kept.banked else None
        timer = timer_for(kept, game.id, game.channel, player, ruleset.turn_key(state), now, own, least)
        if kept.grace_used.get(player):   # their clock may be a grace's wait (read only then: a move's one write)
            previous = {t.player: t for t in await self._table.store.timers_tx(game.id)}.get(player)
            if previous is not None and previous.turn_key == timer.turn_key and in_grace(previous):
                timer = grace_kept(kept, previous, timer, now, own, kept.paused_until.get(player, 0.0))
        await self._table.store.set_timer_tx(timer)
        known, timers = reads(), {player: timer}
        if known.timers is not None and known.timers[0] == game.id:   # the others' run on as they were
            timers = {**known.timers[2], player: timer}
        known.timers = (game.id, game.version, timers, known.timers is not None and known.timers[0] == game.id
                        and known.timers[3])
        return game

    async def seats_renamed_tx(self, game: GameRecord, before: Any, after: Any) -> GameRecord:
        """A seat taken over under its new holder's id keeps what is the seat's in the table settings (its
        bank and grace used); the game record with them."""
        renamed = {old.id: new.id for old, new in zip(before.players, after.players, strict=False)
                   if old.id != new.id and old.name == new.name}
        if not renamed:
            return game
        try:
            settings = TableSettings.from_json(game.settings)
        except DamagedSettings:
            return game
        moved = settings.seats_renamed(renamed)
        return game if moved == settings else await self._table.store.set_settings_tx(game, moved.to_json())

    async def personal_tx(self, game: GameRecord, players: tuple[str, ...]) -> dict[str, PlayerSettings]:
        """The /me settings these players keep on the game's server (those who keep any)."""
        stored = await self._table.player_settings(game.guild, players)
        return {player: PlayerSettings.from_json(text) for player, text in stored.items()}

    async def settings(self, channel: str, actor: Actor, options: dict) -> Reply:
        """Show the table settings, or change them (the host or a server admin)."""
        async with self._table.write():
            game = await self._table.store.active_game_tx(channel)
            if game is None:
                raise NoGame()
            if not options:
                rules = setup_in_words(get_ruleset(game.ruleset), game.options)
                reader = (await self.personal_tx(game, (actor.id,))).get(actor.id)
                described = TableSettings.from_json(game.settings).describe(reader, self._table.clock())
                return Reply("shown", clip(f"{described}\n{rules}", MESSAGE_LIMIT), ephemeral=True)
            if actor.id != game.host and not actor.is_admin:
                raise GameError("Only the host or a server admin can change the table settings.")
            ruleset = get_ruleset(game.ruleset)
            state = ruleset.load_state(game.state)
            if set(options) - LEAGUE_FREE and state.phase != TablePhase.LOBBY:   # in its lobby the league sets it
                await self._league_clock(game)
            settings = updated(TableSettings.or_defaults(game.settings), options)   # damaged: set anew
            game = await self._table.store.set_settings_tx(game, settings.to_json())
            await self.sync_tx(ruleset, game, state, force=True)
        only_reminds = f" {ruleset.title} has no autopilot: at a deadline the table reminds the player and plays " \
            "for nobody." if (settings.deadline_hours or settings.banked) and ruleset.autopilot is None else ""
        return Reply("shown", f"Table settings changed by {actor.name}. {settings.describe()}{only_reminds}")

    async def _league_clock(self, game: GameRecord) -> None:
        """Refuse changing the clock of a running tournament's or season's game: it promises every game of it the
        same deadline, at which the autopilot plays, so none waits on an absent player for ever."""
        league = await paired_by(self._table.store, game.id)
        if league is not None:
            raise GameError(f"This is a game of {league}: its clock is the {league.kind}'s, the same for all its "
                            f"games (a {league.deadline_hours} h deadline a turn, then the autopilot plays it). Here "
                            f"/game settings changes only {' and '.join(sorted(LEAGUE_FREE))}.")

    async def pause(self, channel: str, actor: Actor, hours: int) -> Reply:
        """A player's vacation: their reminders and deadlines wait, up to the host's limit."""
        async with self._table.write():
            game = await self._table.store.active_game_tx(channel)
            if game is None:
                raise NoGame()
            ruleset = get_ruleset(game.ruleset)
            state = ruleset.load_state(game.state)
            if state.player(actor.id) is None:
                raise GameError("Only a player in this game can pause.")
            if is_resigned(state, actor.id):
                raise GameError("You resigned from this game: there is no clock of yours to pause.")
            settings = TableSettings.from_json(game.settings)
            before = settings.paused_until.get(actor.id, 0.0)
            if hours > settings.pause_limit_hours:
                raise GameError(f"The host allows pauses of up to {settings.pause_limit_hours:g} hours.")
            now = self._table.clock()
            if not hours and settings.paused_until.get(actor.id, 0.0) <= now:
                raise GameError("You have no pause running in this game: nothing to end (/game pause hours:N "
                                "starts one).")
            settings, until = settings.pause_for(actor.id, now, hours) if hours else (settings.unpaused(actor.id), now)
            game = await self._table.store.set_settings_tx(game, settings.to_json())
            await self.sync_tx(ruleset, game, state, restart=actor.id, paused_before=before)   # the others' run on
        if not hours:
            return Reply("shown", f"{actor.name} is back: reminders and deadlines run again.")
        if until < now + hours * HOUR:
            return Reply("shown", f"{actor.name} is away until {moment(until)} (their pause began "
                                  f"{moment(until - settings.pause_limit_hours * HOUR)}; the host allows "
                                  f"{settings.pause_limit_hours:g} h): their reminders and deadlines wait.")
        return Reply("shown", f"{actor.name} is away for {hours} h: their reminders and deadlines wait.")
