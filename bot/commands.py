"""The command grammar both adapters share: names, options, types and choices, and a text parser."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field

from rules.engine import ruleset_ids
from rules.speedway.driving import SLIDE, maneuver_choices
from rules.speedway.ruleset import RAM_OUTCOMES, SKID_CHOICES
from rules.speedway import data as speedway_data

MAX_OPTION_LENGTH = 100
WEAPON_MOUNTS = tuple(m.lower() for m in speedway_data.MOUNTS)
# Commands that only read the game (answered privately, never logged).
QUERIES = ("game status", "game log", "game export", "game verify", "game replay", "odds", "hand")


class CommandSyntaxError(ValueError):
    """Unknown command, unknown option, missing or malformed value: exit status 2 on the command line."""


@dataclass(frozen=True)
class OptionSpec:
    """One command option, as on Discord: name, type, description, choices, range."""

    name: str
    kind: str  # "str" or "int"
    description: str
    required: bool = False
    choices: tuple[str, ...] = ()
    min_value: int | None = None
    max_value: int | None = None
    suggest: bool = False  # Discord offers what is legal now (autocomplete) instead of fixed choices


@dataclass(frozen=True)
class CommandSpec:
    """A slash command (or a subcommand of /game)."""

    name: str  # "game new", "move"
    description: str
    options: tuple[OptionSpec, ...] = ()

    @property
    def path(self) -> tuple[str, ...]:
        return tuple(self.name.split())


@dataclass(frozen=True)
class Command:
    """A parsed command: its name and typed option values."""

    name: str
    options: dict = field(default_factory=dict)


COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec("game new", "Create a game in this channel", (
        OptionSpec("ruleset", "str", "Which game to play", required=True, choices=ruleset_ids()),
        OptionSpec("seed", "int", "Dice seed, to replay a game exactly (random if omitted)",
                   min_value=0, max_value=2**53 - 1),
        OptionSpec("arena", "str", "Speedway arena", choices=speedway_data.arena_ids()),
        OptionSpec("rounds", "int", "Declare a draw after this many rounds (no limit if omitted)",
                   min_value=1, max_value=1000),
    )),
    CommandSpec("game join", "Take a seat in this channel's game", (
        OptionSpec("car", "str", "Car design", choices=tuple(speedway_data.car_designs())),
    )),
    CommandSpec("game add-ai", "Seat a computer driver (host, before the start)", (
        OptionSpec("car", "str", "Car design", choices=tuple(speedway_data.car_designs())),
    )),
    CommandSpec("game start", "Start the game: place cars and roll the turn order (host)"),
    CommandSpec("game status", "Show the map and whose turn it is"),
    CommandSpec("game end", "End this channel's game (host or server admin)"),
    CommandSpec("game takeover", "Become the host of this channel's game (Manage Server)"),
    CommandSpec("game log", "Recent events of this channel's game, with their dice", (
        OptionSpec("count", "int", "How many recent actions (default 10)", min_value=1, max_value=100),
    )),
    CommandSpec("game export", "The game's action log as a JSON file"),
    CommandSpec("game import", "Continue (or re-play) an exported game in this channel", (
        OptionSpec("file", "file", "A JSON file made by /game export", required=True),
    )),
    CommandSpec("game replay", "An animated GIF of the whole game so far"),
    CommandSpec("game verify", "Re-run every roll from the seed and check the stored game"),
    CommandSpec("game settings", "Show or change reminders, the turn deadline and quiet hours (host)", (
        OptionSpec("reminder_hours", "int", "Remind the waiting player after this many hours",
                   min_value=1, max_value=720),
        OptionSpec("deadline_hours", "int", "Turn deadline in hours (0: none)", min_value=0, max_value=720),
        OptionSpec("deadline_action", "str", "At the deadline: autopilot (keep speed, drive straight) or "
                   "skip (brake, drive straight)", choices=("autopilot", "skip")),
        OptionSpec("quiet_hours", "str", "No reminders or deadlines in these UTC hours, e.g. 22-7, or none"),
        OptionSpec("pause_limit_hours", "int", "The longest /game pause a player may take",
                   min_value=0, max_value=2160),
    )),
    CommandSpec("game pause", "Pause your deadlines and reminders for a while (0 ends the pause)", (
        OptionSpec("hours", "int", "How many hours", required=True, min_value=0, max_value=2160),
    )),
    CommandSpec("games", "Your running games on this server, and whose turn it is"),
    CommandSpec("undo", "Take back your own last action (only if no dice were rolled since)"),
    CommandSpec("speed", "Upkeep: set your car's speed for this turn", (
        OptionSpec("value", "int", "New speed, within your Brakes and Engine", required=True,
                   min_value=0, max_value=99),
    )),
    CommandSpec("move", "One Move, or a whole turn as a plan", (
        OptionSpec("maneuver", "str", "Maneuver (slide when out of control)",
                   choices=maneuver_choices() + (SLIDE,), suggest=True),
        OptionSpec("skid", "str", "Answer skids in advance", choices=SKID_CHOICES),
        OptionSpec("plan", "str", "Several Moves in order, e.g. normal,turn-left,normal"),
        OptionSpec("fire", "str", "Fire after the plan, e.g. front@bob"),
        OptionSpec("preview", "str", "yes: show the planned path privately first, with Confirm",
                   choices=("yes", "no")),
    )),
    CommandSpec("skid", "Answer a skid (accept, resist) or a chance to swipe (swipe, continue)", (
        OptionSpec("choice", "str", "accept: slide, stay in control; resist: Driver Roll; swipe: bump the car",
                   required=True, choices=SKID_CHOICES),
    )),
    CommandSpec("fire", "Fire an offensive weapon at a car", (
        OptionSpec("weapon", "str", "Which mount fires", required=True, choices=WEAPON_MOUNTS, suggest=True),
        OptionSpec("target", "str", "The target car or its driver", required=True, suggest=True),
    )),
    CommandSpec("drop", "Deploy a defensive weapon (mines, oil, smoke) behind your car", (
        OptionSpec("weapon", "str", "Which mount", required=True, choices=WEAPON_MOUNTS),
    )),
    CommandSpec("end", "End your car's movement once its Moves are spent"),
    CommandSpec("ram", "Choose the ramming outcome after winning the roll-off", (
        OptionSpec("outcome", "str", "A: the attacker must turn next; B: the defender pivots away",
                   required=True, choices=RAM_OUTCOMES),
    )),
    CommandSpec("play", "Track: play a card from your hand (see /hand for what you can play)", (
        OptionSpec("card", "str", "The card, e.g. 7H, AS, 10D, JK for a joker", required=True),
        OptionSpec("car", "str", "Which car: c1..c5, or pits to come out"),
        OptionSpec("move", "str", "out, 1 or 11 for an Ace, 10 for a face card, swap for a Joker"),
        OptionSpec("split", "str", "Split a 7 between two cars, e.g. c1:4,c3:3"),
        OptionSpec("target", "str", "The opponent's car a Joker swaps with, e.g. c4"),
    )),
    CommandSpec("discard", "Track: no card can move a car: discard one and draw", (
        OptionSpec("card", "str", "The card to discard", required=True),
    )),
    CommandSpec("hand", "Track: your cards and what you can play, privately"),
    CommandSpec("odds", "The chance of a shot or of resisting a skid (changes nothing)", (
        OptionSpec("weapon", "str", "Which mount would fire", choices=WEAPON_MOUNTS, suggest=True),
        OptionSpec("target", "str", "The target car or its driver", suggest=True),
        OptionSpec("maneuver", "str", "A maneuver you are considering", choices=maneuver_choices(), suggest=True),
    )),
)

BY_NAME = {spec.name: spec for spec in COMMANDS}
_OPTION = re.compile(r"^([a-z_-]+):(.*)$", re.S)


def move_names() -> tuple[str, ...]:
    """Every maneuver name /move accepts."""
    return next(o for o in BY_NAME["move"].options if o.name == "maneuver").choices


def lookup(name: str) -> CommandSpec:
    """The spec of a command by its space-separated name."""
    try:
        return BY_NAME[name]
    except KeyError:
        known = ", ".join("/" + n for n in BY_NAME)
        raise CommandSyntaxError(f"Unknown command /{name}. Commands: {known}.") from None


def coerce(spec: CommandSpec, raw: dict[str, object], read_file=None) -> Command:
    """Check option names, presence, types, ranges and choices; return a typed Command.

    `read_file(path) -> bytes` lets the command line name a file where Discord attaches one.
    """
    by_name = {o.name: o for o in spec.options}
    values: dict[str, object] = {}
    for name, value in raw.items():
        option = by_name.get(name)
        if option is None:
            allowed = ", ".join(by_name) or "none"
            raise CommandSyntaxError(f"/{spec.name} has no option '{name}' (options: {allowed}).")
        if option.kind == "file" and isinstance(value, str) and read_file is not None:
            value = read_file(value)
        values[name] = _coerce_value(spec, option, value)
    missing = [o.name for o in spec.options if o.required and o.name not in values]
    if missing:
        raise CommandSyntaxError(f"/{spec.name} needs {', '.join(m + ':' for m in missing)}.")
    return Command(spec.name, values)


def _coerce_value(spec: CommandSpec, option: OptionSpec, value: object) -> object:
    if option.kind == "file":
        if not isinstance(value, (bytes, bytearray)):
            raise CommandSyntaxError(f"{option.name}: attach a file.")
        return bytes(value)
    text = str(value).strip()
    if len(text) > MAX_OPTION_LENGTH:
        raise CommandSyntaxError(f"{option.name}: is too long.")
    if option.kind == "int":
        if isinstance(value, bool) or not re.fullmatch(r"-?\d{1,16}", text):
            raise CommandSyntaxError(f"{option.name}: must be a whole number.")
        number = int(text)
        if option.min_value is not None and number < option.min_value or \
                option.max_value is not None and number > option.max_value:
            raise CommandSyntaxError(
                f"{option.name}: must be between {option.min_value} and {option.max_value}.")
        return number
    if option.choices and text not in option.choices:
        raise CommandSyntaxError(f"{option.name}: must be one of {', '.join(option.choices)}.")
    return text


def parse(line: str, read_file=None) -> Command:
    """Parse a command typed as in Discord, e.g. '/move maneuver:turn-left'."""
    try:
        words = shlex.split(line.strip())
    except ValueError as exc:
        raise CommandSyntaxError(f"Could not read that command: {exc}.") from None
    if not words or not words[0].startswith("/"):
        raise CommandSyntaxError("Commands start with /, e.g. /game status.")
    name_parts = [words[0][1:]]
    rest = words[1:]
    if name_parts[0] == "game" and rest and ":" not in rest[0]:
        name_parts.append(rest.pop(0))
    spec = lookup(" ".join(name_parts))
    raw: dict[str, object] = {}
    for word in rest:
        match = _OPTION.match(word)
        if not match:
            raise CommandSyntaxError(f"'{word}' is not an option; write name:value.")
        if match.group(1) in raw:
            raise CommandSyntaxError(f"Option {match.group(1)}: given twice.")
        raw[match.group(1)] = match.group(2)
    return coerce(spec, raw, read_file)
