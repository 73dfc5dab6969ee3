"""A time bank counted in a player's waking hours (issue 38 finding 13): how much of a stretch of time lies
outside their own away hours, and when a bank of waking seconds runs out."""

from __future__ import annotations

from bot.table.clock.personal import PlayerSettings, is_away, next_top

HOUR = 3600.0


def _next_top(moment: float, personal: PlayerSettings) -> tuple[float, bool]:
    """The end of the stretch from `moment` that is away or not as a whole (to the next top of an hour in the
    player's own time, or a change of their UTC offset before it), and whether it is in their away hours."""
    return next_top(moment, personal.zone), is_away(personal, moment)


def waking_seconds(personal: PlayerSettings | None, start: float, end: float) -> float:
    """The seconds of [start, end) outside the player's away hours (all of them for a player without)."""
    if end <= start:
        return 0.0
    if personal is None or personal.away is None:
        return end - start
    total, moment = 0.0, start
    while moment < end:
        top, away = _next_top(moment, personal)
        if not away:
            total += min(top, end) - moment
        moment = top
    return total


def runs_out(personal: PlayerSettings | None, start: float, seconds: float) -> float:
    """When a bank of `seconds` started at `start` is spent, counting only the player's waking time (an
    empty bank at a start inside their away hours runs out when those end)."""
    if personal is None or personal.away is None:
        return start + max(0.0, seconds)
    left, moment = max(0.0, seconds), start
    while True:
        top, away = _next_top(moment, personal)
        if not away:
            if top - moment >= left:
                return moment + left
            left -= top - moment
        moment = top


def hours_minutes(seconds: float) -> str:
    """A bank's balance as hours:minutes ('5:07'), rounded down to the minute."""
    minutes = int(max(0.0, seconds) // 60)
    return f"{minutes // 60}:{minutes % 60:02d}"
