"""What the read-only table commands answer, in words: a page of the log, the games a player is in, a
verification. (bot.table.service.asking runs them; the export file is bot.table.trust.export.)"""

from __future__ import annotations

from typing import Any

from bot.storage.store import GameRecord, Timer
from bot.table.clock.moments import moment, player_clock
from bot.table.clock.personal import PlayerSettings, local, zone_named
from bot.table.clock.settings import TableSettings
from bot.table.protocol.replies import MESSAGE_LIMIT, Reply, clip, whole_lines
from bot.table.trust.commitment import commitment, reveal
from bot.table.trust.export import events_of
from bot.table.trust.seen import SeenAction
from rules.engine import Ruleset, describe_events
from rules.seats import holder_name

DEFAULT_LOG_COUNT = 10


CHANNEL_NUMBERS = ("Your numbers count the actions only you know of; the channel's, which /game rollback to: "
                   "takes, are in brackets.")


def game_log(ruleset: Ruleset, seen: list[SeenAction], before: int | None = None, first: int = 1,
             command: str = "/game log", channel: dict[int, int] | None = None) -> Reply:
    """The actions' events (a viewer's view of the most recent ones, or of those before #`before`, when
    paging back), dice included, privately. What does not fit in one message is left to the next page
    (down to #`first`), which the reply names as `command` with before:. `channel` (stored number ->
    the channel's), for a viewer who knows of actions the channel does not (a seated GM): each line also
    gives the channel's number, the one /game rollback to: takes."""
    if not seen:
        text = "Nothing has happened in this game yet." if before is None else f"Nothing is logged before #{before}."
        return Reply("shown", text, ephemeral=True)
    lines = [_numbered(s, channel) + describe_events(events_of(ruleset, s.record)) for s in seen]
    footer_room = 80 + (len(CHANNEL_NUMBERS) + 1 if channel is not None else 0)
    shown: list[str] = []
    for line in reversed(lines):    # the newest first, as many whole lines as fit
        if sum(len(x) + 1 for x in shown) + len(line) + 1 > MESSAGE_LIMIT - footer_room and shown:
            break
        shown.insert(0, clip(line, MESSAGE_LIMIT - footer_room))
    oldest = seen[len(seen) - len(shown)].number
    text = "\n".join(shown)
    if oldest > first:
        text += f"\nEarlier: {command} before:{oldest}"
    if channel is not None:
        text = f"{CHANNEL_NUMBERS}\n{text}"
    return Reply("shown", text, ephemeral=True)


def _numbered(seen: SeenAction, channel: dict[int, int] | None) -> str:
    """An action's number as its viewer counts it, and the channel's beside it where they differ."""
    if channel is None:
        return f"#{seen.number} "
    public = channel.get(seen.record.seq)
    if public is None:
        return f"#{seen.number} (only you know of it) "
    return f"#{seen.number} " if public == seen.number else f"#{seen.number} [#{public}] "


def log_page(seen: list[SeenAction], count: int | None, before: int | None) -> list[SeenAction]:
    """The last `count` of a viewer's actions, those numbered below `before` when paging back."""
    if before is not None:
        seen = [s for s in seen if s.number < before]
    return seen[-(count or DEFAULT_LOG_COUNT):]


def games_of(player_id: str, games: list[GameRecord], rulesets: dict[str, Ruleset],
             timers: list[Timer] | None = None, now: float = 0.0, reader: PlayerSettings | None = None) -> Reply:
    """The running games on this server that a player sits in, with whose turn it is and when the game's
    deadline falls (also in the asker's own time zone, when their /me settings name one); where a game
    waits on them, their next reminder too."""
    by_game: dict[int, dict[str, Timer]] = {}
    for timer in timers or ():
        by_game.setdefault(timer.game_id, {})[timer.player] = timer
    lines = []
    for game in games:
        ruleset = rulesets[game.ruleset]
        state = ruleset.load_state(game.state)
        if state.player(player_id) is None:
            continue
        waiting = ruleset.acting_players(state)
        clocks = by_game.get(game.id, {})
        away = TableSettings.or_defaults(game.settings).paused_until
        if player_id in waiting:
            clock = player_clock(clocks.get(player_id), away.get(player_id, 0.0), now)
            mine = " — your turn!" + (f" ⏰ {clock}{_own_time(clocks.get(player_id), reader)}." if clock else "")
        else:
            mine = _their_deadlines(state, waiting, clocks, away, now, reader)
        lines.append(f"<#{game.channel}> {ruleset.title}: {clip(ruleset.prompt(state), 150)}{mine}")
    if not lines:
        return Reply("shown", "You are not playing in any running game on this server.", ephemeral=True)
    shown = whole_lines(lines, MESSAGE_LIMIT - 40)   # whole lines: never a mention or a deadline cut in two
    more = f"\n… and {len(lines) - len(shown)} more (/game status in each)" if len(shown) < len(lines) else ""
    return Reply("shown", "\n".join(shown) + more, ephemeral=True)


def _their_deadlines(state: Any, waiting: tuple[str, ...], clocks: dict[str, Timer], away: dict[str, float],
                     now: float, reader: PlayerSettings | None) -> str:
    """When the deadline of each player a game waits on falls (the same deadline once): '' when none runs."""
    named: dict[str, list[str]] = {}
    for player in waiting:
        timer = clocks.get(player)
        if timer is None or timer.deadline_due is None:
            continue
        paused = away.get(player, 0.0)
        words = f"deadline {moment(timer.deadline_due)}{_own_time(timer, reader)}"
        if paused > now:
            words = f"away until {moment(paused)}, then {words}"
        named.setdefault(words, []).append(holder_name(state, player))   # "ben's seat (dave)"
    parts = [f"{', '.join(names)}: {words}" for words, names in named.items()]
    return f" ⏰ {'; '.join(parts)}." if parts else ""


def _own_time(timer: Timer | None, reader: PlayerSettings | None) -> str:
    """A deadline as the asker's own clock reads it, when their /me settings name a time zone (Discord shows a
    moment in the device's zone; the command line in UTC)."""
    if timer is None or timer.deadline_due is None or reader is None or reader.time_zone == "UTC":
        return ""
    when = local(timer.deadline_due, reader.zone)
    return f" ({when:%a} {when.day} {when:%b %H:%M} {zone_named(when, reader.time_zone)})"


def verification(game: GameRecord, replays: bool, finished: bool, count: int, lines: int = 0) -> Reply:
    """Whether every roll re-runs to the stored game (its `count` actions, as the asker counts them, and
    the `lines` its rollbacks set aside), and the revealed seed once it is over."""
    if not replays:
        return Reply("shown", f"Game {game.id} does NOT replay to its stored state: please report this.",
                     ephemeral=True)
    aside = f", and each of the {lines} lines its rollbacks set aside to where it stood," if lines > 1 else \
        ", and the line its rollback set aside to where it stood," if lines else ""
    text = f"Game {game.id}: replaying all {count} actions from the seed{aside} rebuilds the table exactly."
    if finished:
        text += " " + reveal(game.seed)
    else:
        text += f" The seed stays secret until the end (commitment sha256 {commitment(game.seed)[:16]}…)."
    return Reply("shown", text, ephemeral=True)
