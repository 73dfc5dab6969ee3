"""The command grammar both adapters share: names, options, types and choices, and a text parser."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field

from rules.engine import Ruleset, get_ruleset, ruleset_ids
from rules.grammar import CommandSpec, OptionSpec

__all__ = ["COMMANDS", "Command", "CommandSpec", "CommandSyntaxError", "OptionSpec", "QUERIES", "coerce",
           "foreign_to", "lookup", "parse"]

MAX_OPTION_LENGTH = 100


class CommandSyntaxError(ValueError):
    """Unknown command, unknown option, missing or malformed value: exit status 2 on the command line."""


@dataclass(frozen=True)
class Command:
    """A parsed command: its name and typed option values."""

    name: str
    options: dict = field(default_factory=dict)


# The table's own commands, the same for every game; each ruleset adds its commands and options.
TABLE_COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec("game new", "Create a game in this channel", (
        OptionSpec("ruleset", "str", "Which game to play", required=True, choices=ruleset_ids()),
        OptionSpec("seed", "int", "Dice seed, to replay a game exactly (random if omitted)",
                   min_value=0, max_value=2**53 - 1),
        OptionSpec("rounds", "int", "Declare a draw after this many rounds (no limit if omitted)",
                   min_value=1, max_value=1000),
    )),
    CommandSpec("game join", "Take a seat in this channel's game"),
    CommandSpec("game add-ai", "Seat a computer player (host, before the start)"),
    CommandSpec("game start", "Start the game: seat order, first deal or placement (host)"),
    CommandSpec("game status", "Show the table and whose turn it is", query=True),
    CommandSpec("game end", "End this channel's game (host or server admin)"),
    CommandSpec("game takeover", "Become the host of this channel's game (Manage Server)"),
    CommandSpec("game log", "Recent events of this channel's game, with their dice", (
        OptionSpec("count", "int", "How many recent actions (default 10)", min_value=1, max_value=100),
    ), query=True),
    CommandSpec("game export", "The game's action log as a JSON file", query=True),
    CommandSpec("game import", "Continue (or re-play) an exported game in this channel", (
        OptionSpec("file", "file", "A JSON file made by /game export", required=True),
    )),
    CommandSpec("game replay", "An animated GIF of the whole game so far", query=True),
    CommandSpec("game verify", "Re-run every roll from the seed and check the stored game", query=True),
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
)
# Commands whose options come partly from the rulesets (a ruleset's grammar names which).
_EXTENDED = {"game new": lambda g: g.new_options, "game join": lambda g: g.join_options,
             "game add-ai": lambda g: g.join_options}


def _add_options(spec: CommandSpec, extra: tuple[OptionSpec, ...]) -> CommandSpec:
    """`spec` with `extra` options appended; an option two rulesets share must be declared identically."""
    options = list(spec.options)
    for option in extra:
        same = next((o for o in options if o.name == option.name), None)
        if same is None:
            options.append(option)
        elif same != option:
            raise ValueError(f"/{spec.name} option {option.name}: declared differently by two rulesets")
    return CommandSpec(spec.name, spec.description, tuple(options), spec.query)


def build_grammar(rulesets: tuple[Ruleset, ...]) -> tuple[CommandSpec, ...]:
    """Every command Discord and the command line know: the table's, extended and joined by each ruleset's."""
    by_name = {spec.name: spec for spec in TABLE_COMMANDS}
    for ruleset in rulesets:
        for name, extra in _EXTENDED.items():
            by_name[name] = _add_options(by_name[name], extra(ruleset.grammar))
        for spec in ruleset.grammar.commands:
            if spec.name in by_name:
                raise ValueError(f"/{spec.name} is declared twice (by {ruleset.id} and another)")
            by_name[spec.name] = spec
    return tuple(by_name.values())


COMMANDS = build_grammar(tuple(get_ruleset(r) for r in ruleset_ids()))
QUERIES = tuple(spec.name for spec in COMMANDS if spec.query)
_TABLE_BY_NAME = {spec.name: spec for spec in TABLE_COMMANDS}
SERVICE_OPTIONS = frozenset({"name", "by_admin"})  # added by the service from the actor, never typed


def foreign_to(ruleset: Ruleset, command: Command) -> str | None:
    """Why `command` does not fit a game of `ruleset` (another game's command or option), or None."""
    grammar = ruleset.grammar
    own = {spec.name: spec for spec in grammar.commands}
    if command.name not in _TABLE_BY_NAME and command.name not in own:
        names = ", ".join("/" + spec.name for spec in grammar.commands)
        return f"/{command.name} is not part of {ruleset.title}. Its commands: {names}."
    base = own.get(command.name) or _TABLE_BY_NAME[command.name]
    allowed = {o.name for o in base.options} | SERVICE_OPTIONS
    if command.name in _EXTENDED:
        allowed |= {o.name for o in _EXTENDED[command.name](grammar)}
    extra = sorted(set(command.options) - allowed)
    if extra:
        return f"{', '.join(e + ':' for e in extra)} is not an option of /{command.name} in {ruleset.title}."
    return None


BY_NAME = {spec.name: spec for spec in COMMANDS}
_OPTION = re.compile(r"^([a-z_-]+):(.*)$", re.S)


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
