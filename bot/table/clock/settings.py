"""A table's own settings (reminders, deadlines, quiet hours, pauses) and the timers they imply."""

from __future__ import annotations

import json
import math
import re
import secrets
import typing
from dataclasses import asdict, dataclass, field, replace
from functools import cache, lru_cache

from bot.storage.store import Timer
from bot.table.clock.bank import runs_out, waking_seconds
from bot.table.clock.personal import PlayerSettings, hours_in_zone, out_of_away
from rules.codec import CodecError, from_plain
from rules.errors import BadOption, GameError

HOUR = 3600.0
# A computer seat or an autopilot plays on until a person must act; this bounds one command's work.
MAX_COMPUTER_ACTIONS = 20_000
DEADLINE_ACTIONS = ("autopilot", "skip")
MAX_TURN_HOURS = 720  # the longest reminder delay or deadline (/game settings allows 1-720)
MAX_PAUSE_HOURS = 2160
MAX_AWAY_LIMIT_HOURS = 24   # away hours are part of a day
MAX_GRACE = 3   # missed deadlines a table may excuse per player per game (/game settings grace:)
GRACE_HOURS = 24.0   # how long a grace extends a deadline when the table sets no deadline_hours (a bank's)
CLOCKS = ("deadline", "bank")   # a flat deadline per wait, or a time bank per player
MAX_BANK_HOURS = 2160
_QUIET = re.compile(r"^(\d{1,2})-(\d{1,2})$")


class DamagedSettings(GameError):
    """A table's stored settings that cannot be read: refused whole, never guessed at."""

    def __init__(self, why: str):
        super().__init__(f"This table's settings cannot be read ({why}). "
                         f"The host can set them again with /game settings.")


@dataclass(frozen=True)
class TableSettings:
    """Humane defaults: a reminder after 12 hours, no deadline unless the host sets one, and a player who
    has not acted for 72 hours counts as gone (the host or an admin may then act on their seat)."""

    reminder_hours: float = 12.0
    deadline_hours: float | None = None
    deadline_action: str = "autopilot"  # the game's autopilot as is, or at its most passive (skip)
    quiet_hours: tuple[int, int] | None = None  # UTC hours [start, end): no reminders or deadlines then
    pause_limit_hours: float = 168.0
    paused_until: dict[str, float] = field(default_factory=dict)
    # the most a player's away hours (/me settings away:) may push their deadline
    away_limit_hours: float = 12.0
    gone_hours: float = 72.0   # silent this long, a player counts as gone (rules.seats)
    # when each player's pause began: a pause renewed (or ended and begun again) before the limit has run
    # from then ends no later than that (the limit holds across renewals)
    paused_since: dict[str, float] = field(default_factory=dict)
    # grace (issue 38 finding 12): a player's first `grace` missed deadlines in a game each extend that
    # deadline once; `grace_used` counts them per seat, as table history (a rollback does not restore it)
    grace: int = 0
    grace_used: dict[str, int] = field(default_factory=dict)
    # a plan each player previewed but did not confirm: (turn key, the plan as its Confirm button encodes it),
    # played at their deadline instead of the autopilot's choice while it is still legal
    previewed: dict[str, tuple[str, str]] = field(default_factory=dict)
    # the clock (issue 38 finding 13): a flat deadline per wait, or each seat's time bank, spent only while the
    # game waits on it and outside its player's away hours; a move adds the increment, up to the cap
    clock: str = "deadline"
    bank_hours: float | None = None
    increment_hours: float = 0.0
    cap_hours: float | None = None   # None: the bank's own size
    banks: dict[str, float] = field(default_factory=dict)   # seconds left, as of when it last stopped or started
    bank_since: dict[str, float] = field(default_factory=dict)   # each seat whose bank runs: since when

    def __post_init__(self) -> None:
        _check_range("reminder_hours", self.reminder_hours, 1, MAX_TURN_HOURS)
        if self.deadline_hours is not None:
            _check_range("deadline_hours", self.deadline_hours, 1, MAX_TURN_HOURS)
        if self.deadline_action not in DEADLINE_ACTIONS:
            raise ValueError(f"deadline_action is {self.deadline_action!r}, not one of {', '.join(DEADLINE_ACTIONS)}")
        if self.quiet_hours is not None:
            start, end = self.quiet_hours
            if not (0 <= start <= 23 and 0 <= end <= 23) or start == end:
                raise ValueError(f"quiet_hours {start}-{end} are not two different hours of 0-23")
        _check_range("pause_limit_hours", self.pause_limit_hours, 0, MAX_PAUSE_HOURS)
        _check_range("away_limit_hours", self.away_limit_hours, 0, MAX_AWAY_LIMIT_HOURS)
        _check_range("gone_hours", self.gone_hours, 1, MAX_TURN_HOURS)
        if not 0 <= self.grace <= MAX_GRACE:
            raise ValueError(f"grace is {self.grace!r}, not 0-{MAX_GRACE}")
        if any(not player or not 0 <= used <= MAX_GRACE for player, used in self.grace_used.items()):
            raise ValueError(f"grace_used is {self.grace_used!r}")
        if self.clock not in CLOCKS:
            raise ValueError(f"clock is {self.clock!r}, not one of {', '.join(CLOCKS)}")
        if self.clock == "bank" and self.bank_hours is None:
            raise ValueError("a bank clock without bank_hours")
        if self.bank_hours is not None:
            _check_range("bank_hours", self.bank_hours, 1, MAX_TURN_HOURS)
        _check_range("increment_hours", self.increment_hours, 0, MAX_TURN_HOURS)
        if self.cap_hours is not None:
            _check_range("cap_hours", self.cap_hours, self.bank_hours or 1, MAX_BANK_HOURS)
        for name, moments in (("paused_until", self.paused_until), ("paused_since", self.paused_since),
                              ("banks", self.banks), ("bank_since", self.bank_since)):
            for player, until in moments.items():
                if not player or not math.isfinite(until) or until < 0:
                    raise ValueError(f"{name} has {player!r}: {until!r}")

    def for_a_new_game(self) -> TableSettings:
        """These settings for another game at the table (a rematch): the clock as set, every bank full again and
        every grace unused, no plan previewed (what a player spent or saved belonged to the game that ended)."""
        return replace(self, banks={}, bank_since={}, grace_used={}, previewed={})

    def pause_for(self, player: str, now: float, hours: float) -> tuple[TableSettings, float]:
        """These settings with `player` paused for `hours` from `now`, and when the pause ends: no later than
        the table's limit after their pause began, however often it is renewed or ended and begun again
        meanwhile (a pause begun once the limit has run since the last began starts anew)."""
        since = self.paused_since.get(player, -math.inf)
        if since + self.pause_limit_hours * HOUR <= now:
            since = now
        until = min(now + hours * HOUR, since + self.pause_limit_hours * HOUR)
        return replace(self, paused_until={**self.paused_until, player: until},
                       paused_since={**self.paused_since, player: since}), until

    def unpaused(self, player: str) -> TableSettings:
        """These settings with `player`'s pause ended (when it began is kept: the limit still counts from it)."""
        return replace(self, paused_until={p: t for p, t in self.paused_until.items() if p != player})

    @classmethod
    def or_defaults(cls, text: str) -> TableSettings:
        """The stored settings, or the defaults where they cannot be read (to show a clock by, or to set
        anew over)."""
        try:
            return cls.from_json(text)
        except DamagedSettings:
            return cls()

    @classmethod
    def from_json(cls, text: str) -> TableSettings:
        """Decode stored settings through the codec, every field checked (each text once: a move reads its
        game's settings in several places, and settings are frozen).

        Raises DamagedSettings (a refusal) for anything this code or an earlier release could not have written.
        """
        return _decoded(text) if cls is TableSettings else cls._decode(text)

    @classmethod
    def _decode(cls, text: str) -> TableSettings:
        try:
            raw = json.loads(text or "{}")
            if not isinstance(raw, dict):
                raise ValueError("not an object")
            types = _field_types()
            unknown = sorted(set(raw) - set(types))
            if unknown:
                raise ValueError(f"unknown {', '.join(map(repr, unknown))}")
            values = {}
            for name, value in raw.items():
                try:
                    values[name] = from_plain(types[name], value)
                except CodecError as exc:
                    raise ValueError(f"{name}: {exc}") from None
            return cls(**values)
        except (ValueError, RecursionError) as exc:  # JSONDecodeError is a ValueError
            raise DamagedSettings(str(exc)[:200]) from None

    def to_json(self) -> str:
        plain = asdict(self)
        for name in _LATER_FIELDS:   # at their defaults, settings are written as before these fields were added
            if plain[name] == _DEFAULTS[name]:
                del plain[name]
        return json.dumps(plain, sort_keys=True)

    @property
    def banked(self) -> bool:
        """Whether each seat's clock is a time bank (not a flat deadline)."""
        return self.clock == "bank" and self.bank_hours is not None

    def bank_left(self, player: str, now: float, personal: PlayerSettings | None) -> float:
        """The seconds left in `player`'s bank at `now` (a full bank for a seat that has not spent any)."""
        assert self.bank_hours is not None
        left = self.banks.get(player, self.bank_hours * HOUR)
        since = self.bank_since.get(player)
        return max(0.0, left - waking_seconds(personal, since, now)) if since is not None else left

    def bank_stopped(self, player: str, now: float, personal: PlayerSettings | None,
                     increments: int = 0) -> TableSettings:
        """These settings with `player`'s bank stopped at `now` (what ran is spent), plus the increment when
        they (or the table in their name) moved (`increments` 1, up to the cap), or less it when that move
        was undone (-1)."""
        if not self.banked or (player not in self.bank_since and not increments):
            return self
        left = self.bank_left(player, now, personal)
        if increments:
            assert self.bank_hours is not None
            left = min(max(0.0, left + increments * self.increment_hours * HOUR),
                       (self.cap_hours or self.bank_hours) * HOUR)
        return replace(self, banks={**self.banks, player: left},
                       bank_since={p: t for p, t in self.bank_since.items() if p != player})

    def bank_started(self, player: str, start: float) -> TableSettings:
        """These settings with `player`'s bank running from `start` (a pause's end, or now)."""
        return replace(self, bank_since={**self.bank_since, player: start}) if self.banked else self

    def bank_settled(self, player: str, now: float, personal: PlayerSettings | None) -> TableSettings:
        """These settings with `player`'s running bank charged until `now` by `personal` (the settings the player had
        meanwhile), and running on from `now`."""
        since = self.bank_since.get(player)
        if not self.banked or since is None or since >= now:
            return self
        return self.bank_stopped(player, now, personal).bank_started(player, now)

    def seats_renamed(self, renamed: dict[str, str]) -> TableSettings:
        """These settings with what belongs to a seat (its bank, its grace used) under the seat's new player id
        (a seat taken over by another member: the seat keeps its bank; the old holder's pause is theirs)."""
        def moved(kept: dict) -> dict:
            return {renamed.get(player, player): value for player, value in kept.items()}
        return replace(self, banks=moved(self.banks), bank_since=moved(self.bank_since),
                       grace_used=moved(self.grace_used),
                       previewed={p: v for p, v in self.previewed.items() if p not in renamed})

    def grace_hours(self) -> float:
        """How long a grace extends a missed deadline: the table's deadline_hours (24 h when it sets none)."""
        return self.deadline_hours or GRACE_HOURS

    def graced(self, player: str) -> TableSettings:
        """These settings with one more of `player`'s graces used."""
        return replace(self, grace_used={**self.grace_used, player: self.grace_used.get(player, 0) + 1})

    def without_previews(self, players: set[str]) -> TableSettings:
        """These settings without these players' previewed plans (they acted, or the wait ended)."""
        if not players & set(self.previewed):
            return self
        return replace(self, previewed={p: plan for p, plan in self.previewed.items() if p not in players})

    def with_preview(self, player: str, preview: tuple[str, str] | None) -> TableSettings:
        """These settings keeping `player`'s previewed plan (None: dropping it)."""
        kept = {p: plan for p, plan in self.previewed.items() if p != player}
        return replace(self, previewed={**kept, player: preview} if preview is not None else kept)

    def describe(self, reader: PlayerSettings | None = None, now: float = 0.0) -> str:
        """The settings in words; the quiet hours also in the `reader`'s own time zone, as they fall today."""
        deadline = f"{self.deadline_hours:g} h, then {self.deadline_action}" if self.deadline_hours else "none"
        if self.banked:
            assert self.bank_hours is not None
            deadline = f"a time bank of {self.bank_hours:g} h a player (counted outside their away hours), " \
                f"+{self.increment_hours:g} h a move up to {self.cap_hours or self.bank_hours:g} h; when it is " \
                f"empty, {self.deadline_action}"
        quiet = f"{self.quiet_hours[0]:02d}:00-{self.quiet_hours[1]:02d}:00 UTC" if self.quiet_hours else "none"
        if self.quiet_hours and reader is not None and reader.time_zone != "UTC":
            quiet += f" ({hours_in_zone(self.quiet_hours, reader.zone, now)} in {reader.time_zone})"
        grace = f"{self.grace} missed deadline{'s' if self.grace != 1 else ''} per player extended by " \
            f"{self.grace_hours():g} h first" if self.grace else "none"
        return (f"Reminder after {self.reminder_hours:g} h; deadline: {deadline}; grace: {grace}; quiet hours: "
                f"{quiet}; pauses up to {self.pause_limit_hours:g} h; away hours may push a deadline up to "
                f"{self.away_limit_hours:g} h; a player silent for {self.gone_hours:g} h counts as gone (the host "
                f"may then act on their seat).")


@cache
def _field_types() -> dict[str, typing.Any]:
    return typing.get_type_hints(TableSettings)


# fields added after settings were first stored: left out of what is written while at their defaults
_LATER_FIELDS = ("paused_since", "grace", "grace_used", "previewed", "clock", "bank_hours", "increment_hours",
                 "cap_hours", "banks", "bank_since")


@lru_cache(maxsize=256)
def _decoded(text: str) -> TableSettings:
    """TableSettings.from_json, kept for the texts read lately (DamagedSettings is raised, never kept)."""
    return TableSettings._decode(text)


def _check_range(name: str, hours: float, low: float, high: float) -> None:
    if not low <= hours <= high:  # also refuses NaN
        raise ValueError(f"{name} is {hours!r}, not {low}-{high}")


_DEFAULTS = asdict(TableSettings())


def updated(settings: TableSettings, options: dict) -> TableSettings:
    """Apply `/game settings` options; a refusal names the bad one."""
    changes: dict = {}
    if "reminder_hours" in options:
        changes["reminder_hours"] = float(options["reminder_hours"])
    if "deadline_hours" in options:
        changes["deadline_hours"] = float(options["deadline_hours"]) or None
    if "deadline_action" in options:
        changes["deadline_action"] = options["deadline_action"]
    if "pause_limit_hours" in options:
        changes["pause_limit_hours"] = float(options["pause_limit_hours"])
    if "quiet_hours" in options:
        changes["quiet_hours"] = parse_quiet(options["quiet_hours"])
    if "away_limit_hours" in options:
        changes["away_limit_hours"] = float(options["away_limit_hours"])
    if "gone_hours" in options:
        changes["gone_hours"] = float(options["gone_hours"])
    changes.update(_clock_changes(settings, options))
    if "grace" in options:
        changes["grace"] = int(options["grace"])
        if not 0 <= changes["grace"] <= MAX_GRACE:
            raise BadOption(f"grace: 0-{MAX_GRACE} missed deadlines per player.")
    return replace(settings, **changes)


_BANK_OPTIONS = ("bank_hours", "increment_hours", "cap_hours")


def _clock_changes(settings: TableSettings, options: dict) -> dict:
    """The clock options of `/game settings`: clock:bank with its hours (every bank starts full again when its
    size changes), or clock:deadline (the banks are dropped); short refusals for what does not fit."""
    clock = options.get("clock", settings.clock)
    given = {name: float(options[name]) for name in _BANK_OPTIONS if name in options}
    if clock not in CLOCKS:
        raise BadOption(f"clock: {' or '.join(CLOCKS)}.")
    if clock == "deadline":
        if given:
            raise BadOption(f"{', '.join(given)}: a time bank's; add clock:bank.")
        return {"clock": "deadline", "bank_hours": None, "increment_hours": 0.0, "cap_hours": None, "banks": {},
                "bank_since": {}} if settings.clock != "deadline" else {}
    bank = given.get("bank_hours", settings.bank_hours)
    if bank is None:
        raise BadOption("clock:bank needs bank_hours:B, the hours each player's bank starts with.")
    kept = settings.cap_hours if settings.cap_hours is not None and settings.cap_hours >= bank else None
    cap = given.get("cap_hours", kept)
    if cap is not None and cap < bank:
        raise BadOption(f"cap_hours ({cap:g}) must be at least bank_hours ({bank:g}).")
    changes: dict = {"clock": "bank", "bank_hours": bank, "cap_hours": cap,
                     "increment_hours": given.get("increment_hours", settings.increment_hours)}
    if bank != settings.bank_hours or settings.clock != "bank":
        changes.update(banks={}, bank_since={})   # every bank starts full
    return changes


def parse_quiet(text: str) -> tuple[int, int] | None:
    """'22-7' -> (22, 7); 'none' -> None."""
    if text.strip().lower() in ("none", "off", ""):
        return None
    match = _QUIET.match(text.strip())
    if not match or not all(0 <= int(h) <= 23 for h in match.groups()) or match.group(1) == match.group(2):
        raise BadOption("quiet_hours: write START-END in UTC hours, e.g. 22-7, or none.")
    return int(match.group(1)), int(match.group(2))


def _in_quiet(quiet: tuple[int, int], moment: float) -> bool:
    hour = int(moment // HOUR) % 24
    start, end = quiet
    return start <= hour < end if start < end else hour >= start or hour < end


def out_of_quiet(settings: TableSettings, moment: float) -> float:
    """The first moment at or after `moment` outside the quiet hours."""
    if settings.quiet_hours is None:
        return moment
    while _in_quiet(settings.quiet_hours, moment):
        moment = (moment // HOUR + 1) * HOUR
    return moment


def timer_for(settings: TableSettings, game_id: int, channel: str, player: str, turn_key: str,
              now: float, personal: PlayerSettings | None = None, least: float | None = None) -> Timer:
    """The reminder and deadline for a wait that starts now (a turn begins, or the player just acted),
    after any pause, the table's quiet hours and the player's own away hours, with a token of its own.
    The player's settings may set their reminder's delay; their away hours push a deadline out of them
    by at most the table's away_limit_hours. Under a time bank the deadline is when their bank runs out,
    counted outside their away hours (`least`: a wait of that many waking seconds, whatever the bank holds) and
    then moved out of the quiet hours and never into the away hours, and a bank that runs out before the
    reminder's delay brings the reminder forward, to when a quarter of the wait is left (a nearly spent bank
    would otherwise never be reminded of)."""
    start = max(now, settings.paused_until.get(player, 0.0))
    reminder = _settled(settings, personal, start + _reminder_delay(settings, personal) * HOUR)
    deadline = None
    if settings.banked:
        left = settings.bank_left(player, start, personal) if least is None else max(least, 0.0)
        deadline = _settled(settings, personal, runs_out(personal, start, left))
        if reminder > deadline - reminder_lead(settings):   # the bank runs out first: remind with a quarter left
            reminder = _settled(settings, personal, start + (deadline - start) * 3 / 4)
    elif settings.deadline_hours:
        deadline = _flat_deadline(settings, personal, start + settings.deadline_hours * HOUR)
    return Timer(game_id, channel, player, turn_key, reminder, deadline, secrets.token_hex(8))


def _reminder_delay(settings: TableSettings, personal: PlayerSettings | None) -> float:
    """The hours before a reminder: the player's own delay, else the table's."""
    return personal.reminder_hours if personal is not None and personal.reminder_hours else settings.reminder_hours


def _flat_deadline(settings: TableSettings, personal: PlayerSettings | None, due: float) -> float:
    """A flat deadline due at `due`, out of the quiet hours, and out of the player's away hours by at most the
    table's away_limit_hours."""
    due = out_of_quiet(settings, due)
    return out_of_quiet(settings, min(out_of_away(personal, due), due + settings.away_limit_hours * HOUR))


GRACE_TOKEN = "grace-"   # a timer's token begins so when a grace extended its deadline: not extended again


def extended_timer(settings: TableSettings, timer: Timer, now: float, personal: PlayerSettings | None) -> Timer:
    """A missed deadline extended by a grace: a new wait of the grace's length from `now`, out of the quiet and
    away hours as any deadline, its token marked so the new deadline is not extended again."""
    return _grace_wait(settings, timer, now, settings.grace_hours() * HOUR, personal)


def in_grace(timer: Timer) -> bool:
    """Whether `timer` waits out a grace (its deadline one a grace extended, not yet claimed)."""
    return timer.token.startswith(GRACE_TOKEN) and timer.deadline_due is not None


def grace_kept(settings: TableSettings, timer: Timer, fresh: Timer, now: float, personal: PlayerSettings | None,
               paused_before: float) -> Timer:
    """The timer for a grace's wait `timer` started again in the same turn (a pause began or ended, the table's
    settings changed, the player acted): `fresh`, unless what was left of the grace runs out later (an empty bank's
    fresh deadline comes at once); then a grace's wait of what was left, from the end of any pause, its token still
    marked. What was left is counted from `now`, or from `paused_before`, the end of a pause it was pushed past."""
    assert timer.deadline_due is not None
    left = max(0.0, timer.deadline_due - max(now, paused_before))
    start = max(now, settings.paused_until.get(timer.player, 0.0))
    if fresh.deadline_due is None or _flat_deadline(settings, personal, start + left) <= fresh.deadline_due:
        return fresh
    return _grace_wait(settings, fresh, start, left, personal)


def _grace_wait(settings: TableSettings, timer: Timer, start: float, seconds: float,
                personal: PlayerSettings | None) -> Timer:
    """A grace's wait of `seconds` from `start`: its reminder as any, its deadline a flat one's (whatever the
    table's clock), its token marked so that deadline is not extended again."""
    reminder = _settled(settings, personal, start + _reminder_delay(settings, personal) * HOUR)
    deadline = _flat_deadline(settings, personal, start + seconds)
    return Timer(timer.game_id, timer.channel, timer.player, timer.turn_key, reminder, deadline,
                 GRACE_TOKEN + secrets.token_hex(8))


def _settled(settings: TableSettings, personal: PlayerSettings | None, moment: float) -> float:
    """The first moment at or after `moment` outside both the table's quiet hours and the player's away
    hours (which may border each other)."""
    for _ in range(8):
        moved = out_of_away(personal, out_of_quiet(settings, moment))
        if moved == moment:
            break
        moment = moved
    return moment


def back_from_away(settings: TableSettings, personal: PlayerSettings | None, moment: float) -> float:
    """When a player away at `moment` may be pinged: out of their away hours and the table's quiet hours."""
    return _settled(settings, personal, moment)


def reminder_lead(settings: TableSettings) -> float:
    """The least a reminder must leave before an autopilot's deadline to be worth sending (seconds): an hour,
    or a quarter of a deadline shorter than four hours; none without a deadline."""
    return min(HOUR, settings.deadline_hours * HOUR / 4) if settings.deadline_hours else 0.0
