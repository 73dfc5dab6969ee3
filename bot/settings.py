"""A table's own settings (reminders, deadlines, quiet hours, pauses) and the timers they imply."""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field, replace

from bot.store import Timer
from rules.errors import BadOption

HOUR = 3600.0
# A computer seat or an autopilot plays on until a person must act; this bounds one command's work.
MAX_COMPUTER_ACTIONS = 20_000
DEADLINE_ACTIONS = ("autopilot", "skip")
_QUIET = re.compile(r"^(\d{1,2})-(\d{1,2})$")


@dataclass(frozen=True)
class TableSettings:
    """Humane defaults: a reminder after 12 hours, no deadline unless the host sets one."""

    reminder_hours: float = 12.0
    deadline_hours: float | None = None
    deadline_action: str = "autopilot"  # autopilot: keep speed, drive straight; skip: brake, drive straight
    quiet_hours: tuple[int, int] | None = None  # UTC hours [start, end): no reminders or deadlines then
    pause_limit_hours: float = 168.0
    paused_until: dict[str, float] = field(default_factory=dict)

    @classmethod
    def from_json(cls, text: str) -> "TableSettings":
        raw = json.loads(text or "{}")
        if raw.get("quiet_hours") is not None:
            raw["quiet_hours"] = tuple(raw["quiet_hours"])
        return cls(**raw)

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    def describe(self) -> str:
        deadline = f"{self.deadline_hours:g} h, then {self.deadline_action}" if self.deadline_hours else "none"
        quiet = f"{self.quiet_hours[0]:02d}:00-{self.quiet_hours[1]:02d}:00 UTC" if self.quiet_hours else "none"
        return (f"Reminder after {self.reminder_hours:g} h; deadline: {deadline}; quiet hours: {quiet}; "
                f"pauses up to {self.pause_limit_hours:g} h.")


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
    return replace(settings, **changes)


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
              now: float) -> Timer:
    """The reminder and deadline for a turn that starts now, after any pause and quiet hours."""
    start = max(now, settings.paused_until.get(player, 0.0))
    reminder = out_of_quiet(settings, start + settings.reminder_hours * HOUR)
    deadline = out_of_quiet(settings, start + settings.deadline_hours * HOUR) if settings.deadline_hours else None
    return Timer(game_id, channel, player, turn_key, reminder, deadline)
