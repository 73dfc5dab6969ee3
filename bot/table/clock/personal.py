"""A player's own clock on one server (`/me settings`): their time zone, their away hours each day in
their own time, and how long before a reminder may come; and the moments these move."""

from __future__ import annotations

import difflib
import json
import math
import re
import typing
import zoneinfo
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from functools import cache

from rules.codec import CodecError, from_plain
from rules.errors import BadOption

HOUR = 3600.0
MAX_REMINDER_HOURS = 720
MAX_ZONE_LENGTH = 64
ZONE_OFFERS = 25   # Discord shows at most 25 autocomplete choices
_OFFSET = re.compile(r"(?i)(?:utc|gmt)([+-])(\d{1,2})")
VIEWS = ("full", "closeup")   # how a player's own pictures are drawn (`/me settings view:`, `/game status view:`)
NOTIFY = ("channel", "dm", "digest")   # where a player's pings go (`/me settings notify:`)
DIGEST_HOUR = 8   # a digest player with no away hours gets their digest at 08:00 of their own day
_HOURS = re.compile(r"^(\d{1,2})(?::00)?-(\d{1,2})(?::00)?$")


@dataclass(frozen=True)
class PlayerSettings:
    """One player's settings on one server; the defaults change nothing of the table's clock."""

    time_zone: str = "UTC"
    away: tuple[int, int] | None = None    # hours [start, end) of each day in `time_zone`: no pings then
    reminder_hours: float | None = None    # their reminder comes after this many hours (None: the table's)
    view: str = "full"   # their private pictures (status, plan previews): the whole map, or a close-up for a phone
    # their pings: in the game's channel, by direct message, or none but one digest a day (stored only when
    # not "channel", so a row stays as older releases wrote and read it)
    notify: str = "channel"

    def __post_init__(self) -> None:
        if self.time_zone not in zone_names():
            raise ValueError(f"time_zone {self.time_zone!r} is no IANA time zone")
        if self.away is not None:
            start, end = self.away
            if not (0 <= start <= 23 and 0 <= end <= 23) or start == end:
                raise ValueError(f"away {start}-{end} are not two different hours of 0-23")
        if self.reminder_hours is not None and not 1 <= self.reminder_hours <= MAX_REMINDER_HOURS:
            raise ValueError(f"reminder_hours is {self.reminder_hours!r}, not 1-{MAX_REMINDER_HOURS}")
        if self.view not in VIEWS:
            raise ValueError(f"view is {self.view!r}, not one of {', '.join(VIEWS)}")
        if self.notify not in NOTIFY:
            raise ValueError(f"notify is {self.notify!r}, not one of {', '.join(NOTIFY)}")

    @classmethod
    def from_json(cls, text: str | None) -> PlayerSettings:
        """Stored settings, every field checked; the default for a field that cannot be read, and the defaults for
        a row that cannot (a player's settings only ever move their own pings, so a damaged row must not stop a
        game; a time zone this machine no longer knows must not cost them their away hours and digest too)."""
        try:
            raw = json.loads(text or "{}")
        except (ValueError, RecursionError):
            return cls()
        if not isinstance(raw, dict):
            return cls()
        kept = {}
        for name, value in raw.items():
            if name not in _field_types():
                continue
            try:
                kept[name] = from_plain(_field_types()[name], value)
                cls(**{name: kept[name]})   # each field's own check (a zone this machine knows)
            except (ValueError, TypeError, CodecError, RecursionError, LookupError):
                kept.pop(name, None)
        try:
            return cls(**kept)
        except (ValueError, TypeError, LookupError):   # fields each valid alone, not together
            return cls()

    def to_json(self) -> str:
        fields = asdict(self)
        if self.notify == "channel":
            del fields["notify"]
        return json.dumps(fields, sort_keys=True)

    @property
    def zone(self) -> zoneinfo.ZoneInfo:
        return zoneinfo.ZoneInfo(self.time_zone)

    def describe(self) -> str:
        """The settings in words, for `/me settings`."""
        away = f"{self.away[0]:02d}:00-{self.away[1]:02d}:00 your time" if self.away else "none"
        reminder = f"after {self.reminder_hours:g} h" if self.reminder_hours else "as each table sets"
        pictures = "close-ups for a phone (view:closeup)" if self.view == "closeup" else "the full map"
        return (f"Time zone: {self.time_zone}; away hours: {away}; reminders: {reminder}; "
                f"your private pictures: {pictures}; your pings: {self.notify_words()}.")

    def notify_words(self) -> str:
        """Where this player's pings go, in words."""
        if self.notify == "dm":
            return "by direct message (notify:dm)"
        if self.notify == "digest":
            return f"none, but one digest a day at {self.digest_hour():02d}:00 your time (notify:digest)"
        return "in each game's channel"

    def digest_hour(self) -> int:
        """The hour of their own day a digest comes: when their away hours end, else DIGEST_HOUR."""
        return self.away[1] if self.away is not None else DIGEST_HOUR


@cache
def _field_types() -> dict[str, typing.Any]:
    return typing.get_type_hints(PlayerSettings)


_NOT_ZONES = frozenset({"localtime", "Factory", "posixrules"})   # the machine's own zone, a placeholder, a template
_NOT_ZONE_TREES = ("posix/", "right/")   # copies of the zones, the latter counting leap seconds


@cache
def zone_names() -> frozenset[str]:
    """Every IANA time zone name this machine knows (the tzdata package where the system has none), without the
    files a system keeps beside them that name no zone."""
    known = zoneinfo.available_timezones() | {"UTC"}
    return frozenset(n for n in known if n not in _NOT_ZONES and not n.startswith(_NOT_ZONE_TREES))


@cache
def _by_key() -> dict[str, str]:
    return {name.casefold(): name for name in zone_names()}


def parse_zone(text: str) -> str:
    """An IANA time zone name as typed (any case, spaces for underscores), or a refusal naming the
    nearest ones."""
    typed = " ".join(str(text).split())[:MAX_ZONE_LENGTH]
    found = _by_key().get(typed.replace(" ", "_").casefold())
    if found is not None:
        return found
    offset = _OFFSET.fullmatch(typed.replace(" ", ""))
    if offset:   # 'UTC+2': IANA's fixed zones count the other way (Etc/GMT-2 is two hours ahead of UTC)
        sign, hours = offset.groups()
        flipped = f"Etc/GMT{'-' if sign == '+' else '+'}{int(hours)}"
        hint = f" A fixed offset is written {flipped} (IANA's sign is the other way), though a city's zone also " \
               f"keeps its summer time." if flipped in zone_names() else ""
        raise BadOption(f"time_zone: an IANA time zone such as Europe/Paris or America/New_York.{hint}")
    near = difflib.get_close_matches(typed.replace(" ", "_").casefold(), list(_by_key()), n=3, cutoff=0.6)
    hint = f" Did you mean {', '.join(_by_key()[n] for n in near)}?" if near else ""
    raise BadOption(f"time_zone: an IANA time zone such as Europe/Paris or America/New_York.{hint}")


def zone_offers(typed: str) -> list[tuple[str, str]]:
    """Time zones for autocomplete: those starting with what was typed first, then those containing it."""
    key = typed.strip().replace(" ", "_").casefold()
    names = sorted(zone_names())
    starting = [n for n in names if n.casefold().startswith(key)]
    within = [n for n in names if key in n.casefold() and n not in starting]
    return [(name, name) for name in (starting + within)[:ZONE_OFFERS]]


def parse_hours(text: str, option: str) -> tuple[int, int] | None:
    """'23-07' (or '23:00-07:00') -> (23, 7); 'none' -> None; a refusal naming `option` otherwise."""
    if str(text).strip().lower() in ("none", "off", ""):
        return None
    match = _HOURS.match(str(text).strip())
    if not match or not all(0 <= int(h) <= 23 for h in match.groups()) or int(match.group(1)) == int(match.group(2)):
        raise BadOption(f"{option}: write START-END in whole hours of your day, e.g. 23-07, or none.")
    return int(match.group(1)), int(match.group(2))


def parse_view(text: str) -> str:
    """'full' or 'closeup' as typed (any case), or a short refusal."""
    typed = str(text).strip().lower().replace("-", "").replace(" ", "")
    if typed not in VIEWS:
        raise BadOption("view: full (the whole map) or closeup (a piece of it for a phone).")
    return typed


def parse_notify(text: str) -> str:
    """'channel', 'dm' or 'digest' as typed (any case), or a short refusal."""
    typed = str(text).strip().lower()
    if typed not in NOTIFY:
        raise BadOption("notify: channel (pings in each game's channel), dm (by direct message) or digest (one "
                        "message a day).")
    return typed


def next_digest(personal: PlayerSettings, after: float) -> float:
    """The first moment after `after` when the player's digest hour begins in their own time (a summer-time
    change moves it with them; an hour a change skips comes as the clock jumps past it)."""
    zone = personal.zone
    day = local(after, zone).date()
    for offset in range(3):
        wall = datetime.combine(day + timedelta(days=offset), datetime.min.time()).replace(
            hour=personal.digest_hour(), tzinfo=zone)
        moment = wall.astimezone(UTC).timestamp()
        if moment > after:
            return moment
    return after + 24 * HOUR


def _within(hours: tuple[int, int], hour: int) -> bool:
    start, end = hours
    return start <= hour < end if start < end else hour >= start or hour < end


def local(moment: float, zone: zoneinfo.ZoneInfo) -> datetime:
    return datetime.fromtimestamp(moment, UTC).astimezone(zone)


def is_away(personal: PlayerSettings | None, moment: float) -> bool:
    """Whether `moment` is inside the player's away hours, in their own time."""
    return personal is not None and personal.away is not None and \
        _within(personal.away, local(moment, personal.zone).hour)


def next_top(moment: float, zone: zoneinfo.ZoneInfo) -> float:
    """The first moment after `moment` when the hour on `zone`'s clocks may change: the next top of an hour
    there, or sooner the moment its UTC offset changes (Pacific/Chatham's clocks go back at 03:45)."""
    when = local(moment, zone)
    top = moment + HOUR - (when.minute * 60 + when.second + when.microsecond / 1e6)
    offset = when.utcoffset()
    if local(top, zone).utcoffset() == offset:
        return top
    before, after = math.floor(moment), math.ceil(top)   # offsets change on a whole second: find it
    while after - before > 1:
        middle = (before + after) // 2
        before, after = (middle, after) if local(middle, zone).utcoffset() == offset else (before, middle)
    return float(after)


def out_of_away(personal: PlayerSettings | None, moment: float) -> float:
    """The first moment at or after `moment` outside the player's away hours (in their own time, so a
    change of summer time moves it with them)."""
    if personal is None or personal.away is None:
        return moment
    for _ in range(48):   # an away stretch is under a day; a day has at most 25 local hours, each cut once at most
        if not is_away(personal, moment):
            return moment
        moment = next_top(moment, personal.zone)
    return moment


def zone_named(when: datetime, time_zone: str) -> str:
    """`time_zone` with what its clocks call the time at `when` ('America/New_York EST'): the night they go
    back, one local time comes twice, and this says which."""
    abbreviation = when.tzname()
    return f"{time_zone} {abbreviation}" if abbreviation and abbreviation != time_zone else time_zone


def hours_in_zone(hours: tuple[int, int], zone: zoneinfo.ZoneInfo, now: float) -> str:
    """UTC hours [start, end) as the times they are today in `zone`: '23:00-08:00'."""
    midnight = math.floor(now / 86400) * 86400
    start, end = (local(midnight + h * HOUR, zone) for h in hours)
    return f"{start:%H:%M}-{end:%H:%M}"
