"""Moments in replies: each waited-on player's deadline and next reminder, written as Discord timestamps
(`<t:UNIX:f>` and `<t:UNIX:R>`), which every Discord client shows in its reader's own time zone and
language; the command line reads them out as ISO times with "in 3 h"."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime

from bot.storage.store import Timer
from bot.table.clock.bank import hours_minutes
from bot.table.clock.settings import GRACE_TOKEN, TableSettings

# A moment as the service writes it: the date and time, then how long from now, both Discord's.
_MOMENT = re.compile(r"<t:(\d{1,12}):f> \(<t:\1:R>\)")


def moment(unix: float) -> str:
    """`unix` (epoch seconds) as Discord shows a moment to each reader: their own date and time, and how
    long from now."""
    second = int(unix)
    return f"<t:{second}:f> (<t:{second}:R>)"


def clock_line(waiting: Iterable[str], timers: Iterable[Timer], settings: TableSettings, name: Callable[[str], str],
               now: float, lead: float = 0.0, banks: Mapping[str, float] | None = None) -> str:
    """When each waited-on player's deadline falls and their next reminder comes, or until when they are
    away (a pause): '' when no clock runs for anyone waited on. A reminder due less than `lead` before the
    deadline is not shown: it is not sent (bot.table.service.deadlines). Under a time bank, `banks` holds
    the seconds left in each waited-on player's bank now, shown with when it runs out."""
    by_player = {t.player: t for t in timers}
    clocks: dict[str, list[str]] = {}   # the same clock once, for everyone it runs for (six racers at the start)
    for player in waiting:
        timer = by_player.get(player)
        bank = banks.get(player) if banks is not None else None
        if timer is not None and timer.deadline_due is None and (settings.deadline_hours or settings.banked):
            # the table has deadlines and this one was claimed (several fall due at once: a step played
            # together, or a game with no autopilot): not "no deadline"
            clocks.setdefault("deadline passed", []).append(name(player))
            continue
        if words := player_clock(timer, settings.paused_until.get(player, 0.0), now, lead, bank):
            clocks.setdefault(words + grace_words(settings, player, timer), []).append(name(player))
    parts = [f"{', '.join(names)}: {words}" for words, names in clocks.items()]
    return f"⏰ {'; '.join(parts)}." if parts else ""


def player_clock(timer: Timer | None, away_until: float, now: float, lead: float = 0.0,
                 bank: float | None = None) -> str:
    """One waited-on player's clock in words: 'deadline …, reminder …', 'away until … (then deadline …)',
    'reminder …, no deadline', under a time bank 'bank 5:30 left, runs out …', or '' when none runs."""
    deadline = timer.deadline_due if timer is not None else None
    reminder = timer.reminder_due if timer is not None else None
    if bank is not None and deadline is not None and timer is not None:
        spent = bank <= 0 or timer.token.startswith(GRACE_TOKEN)
        ends = f"bank empty, deadline {moment(deadline)}" if spent else \
            f"bank {hours_minutes(bank)} left, runs out {moment(deadline)}"
        return f"away until {moment(away_until)}, then {ends}" if away_until > now else ends
    if away_until > now:
        return f"away until {moment(away_until)}" + (f", then deadline {moment(deadline)}" if deadline else "")
    if deadline is not None:
        sent = reminder is not None and reminder < deadline and deadline - reminder >= lead
        soon = f", reminder {moment(reminder)}" if sent and reminder is not None else ""
        return f"deadline {moment(deadline)}{soon}"
    return f"reminder {moment(reminder)}, no deadline" if reminder is not None else ""


def grace_words(settings: TableSettings, player: str, timer: Timer | None) -> str:
    """What a missed deadline brings, where the table grants grace: ' (then grace: +6 h, 1 of 2 left)' while
    the player has some and this deadline is not already one a grace extended."""
    if not settings.grace or timer is None or timer.deadline_due is None:
        return ""
    if timer.token.startswith(GRACE_TOKEN):
        return " (extended by grace: then the autopilot)"
    left = settings.grace - settings.grace_used.get(player, 0)
    return f" (then grace: +{settings.grace_hours():g} h, {left} of {settings.grace} left)" if left > 0 else ""


def plain_moments(text: str, now: float | None = None) -> str:
    """`text` with each Discord moment read out for the command line: '2026-12-03 18:00 UTC (in 3 h)'."""
    at = time.time() if now is None else now

    def read_out(match: re.Match) -> str:
        unix = int(match.group(1))
        when = datetime.fromtimestamp(unix, UTC).strftime("%Y-%m-%dT%H:%MZ")
        return f"{when} ({_from_now(unix - at)})"
    return _MOMENT.sub(read_out, text)


def _from_now(seconds: float) -> str:
    """'in 3 h', 'in 25 min', 'in 2 days', or '5 min ago'."""
    span = abs(seconds)
    if span < 90:
        words = "a minute" if span >= 45 else "a moment"
    elif span < 90 * 60:
        words = f"{round(span / 60)} min"
    elif span < 36 * 3600:
        words = f"{round(span / 3600)} h"
    else:
        words = f"{round(span / 86400)} days"
    return f"in {words}" if seconds >= 0 else f"{words} ago"
