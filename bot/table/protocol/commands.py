"""The command grammar both adapters share: names, options, types and choices, and a text parser."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field, replace

from bot.table.plugins import load_plugins
from rules.engine import Ruleset
from rules.grammar import CommandSpec, OptionSpec
from rules.registry import ruleset_ids, rulesets

__all__ = ["COMMANDS", "Command", "CommandSpec", "CommandSyntaxError", "OptionSpec", "QUERIES", "coerce",
           "for_game", "foreign_to", "game_spec", "lookup", "parse"]

load_plugins()  # games from outside the project register before the grammar (and its game list) is built

MAX_OPTION_LENGTH = 100
MAX_DISCORD_OPTIONS = 25


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
    )),
    CommandSpec("game join", "Take a seat in this channel's game"),
    CommandSpec("game add-ai", "Seat a computer player (host, before the start)"),
    CommandSpec("game start", "Start the game: seat order, first deal or placement (host)"),
    CommandSpec("game status", "Show the table and whose turn it is", query=True),
    CommandSpec("game end", "End this channel's game (host or server admin)"),
    CommandSpec("game takeover", "Become the host of this channel's game (Manage Server)"),
    CommandSpec("game log", "Recent events of this channel's game, with their dice", (
        OptionSpec("count", "int", "How many recent actions (default 10)", min_value=1, max_value=100),
        OptionSpec("before", "int", "Page back: the actions before this number (#N in the log)", min_value=1,
                   max_value=2**31),
    ), query=True),
    CommandSpec("game export", "The game's action log as a JSON file", query=True),
    CommandSpec("game import", "Continue (or re-play) an exported game in this channel", (
        OptionSpec("file", "file", "A JSON file made by /game export", required=True),
    )),
    CommandSpec("game replay", "An animated GIF of the whole game so far", query=True),
    CommandSpec("game sheet", "The full sheets of the cars, privately unless you choose public", (
        OptionSpec("car", "str", "One car, by its id or name (every car if left out)"),
        OptionSpec("public", "str", "Show the sheets to the whole channel", choices=("true", "false")),
    ), query=True),
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
_TABLE_NAMES = frozenset(spec.name for spec in TABLE_COMMANDS)


def _merged_option(first: OptionSpec, other: OptionSpec) -> OptionSpec:
    """One option two games declare differently: Discord shows it once, as loose as either needs
    (the union of choices, the widest range, text if the kinds differ); each game's own declaration
    is then checked once the channel's game is known (`for_game`)."""
    if first == other:
        return first
    kind = first.kind if first.kind == other.kind else "str"
    choices = tuple(dict.fromkeys(first.choices + other.choices)) if first.choices and other.choices else ()
    low = min(first.min_value, other.min_value) \
        if first.min_value is not None and other.min_value is not None else None
    high = max(first.max_value, other.max_value) \
        if first.max_value is not None and other.max_value is not None else None
    return OptionSpec(first.name, kind, _either(first.description, other.description),
                      first.required and other.required, choices,
                      low if kind == "int" else None, high if kind == "int" else None,
                      first.suggest or other.suggest or (bool(first.choices or other.choices) and not choices))


def _either(first: str, other: str) -> str:
    """One description for what two games say differently (Discord shows at most 100 characters)."""
    return first if first == other else f"{first} / {other}"[:100]


def _merged(spec: CommandSpec, extra: tuple[OptionSpec, ...], description: str | None = None,
            between_games: bool = False, private_with: tuple[str, ...] = ()) -> CommandSpec:
    """`spec` with `extra` options added; an option both declare becomes one that fits either. An
    option only one game has is optional on Discord: the other game's players never give it (each
    game's own declaration still requires it, in `for_game`)."""
    options = {o.name: o for o in spec.options}
    theirs = {o.name for o in extra}
    for option in extra:
        options[option.name] = _merged_option(options[option.name], option) if option.name in options \
            else replace(option, required=False)
    if between_games:
        options = {name: o if name in theirs else replace(o, required=False) for name, o in options.items()}
    if len(options) > MAX_DISCORD_OPTIONS:
        raise ValueError(f"/{spec.name} would have {len(options)} options; Discord takes {MAX_DISCORD_OPTIONS}")
    ordered = sorted(options.values(), key=lambda o: not o.required)  # Discord wants required ones first
    private = spec.private_with + tuple(p for p in private_with if p not in spec.private_with)
    return CommandSpec(spec.name, description or spec.description, tuple(ordered), spec.query, private)


def build_grammar(rulesets: tuple[Ruleset, ...]) -> tuple[CommandSpec, ...]:
    """Every command Discord and the command line know: the table's, extended by each game, and each
    game's own. Two games may declare one verb (/move) with different options: Discord shows one
    command with the options of both, and each game accepts only its own (`for_game`)."""
    by_name = {spec.name: spec for spec in TABLE_COMMANDS}
    for ruleset in rulesets:
        for name, extra in _EXTENDED.items():
            by_name[name] = _merged(by_name[name], extra(ruleset.grammar))
        for spec in ruleset.grammar.commands:
            if spec.name in _TABLE_NAMES:
                raise ValueError(f"/{spec.name} is a table command; {ruleset.id} cannot declare it")
            if spec.name in by_name:
                first = by_name[spec.name]
                if spec.query != first.query:
                    raise ValueError(f"/{spec.name} is a query in one game and an action in another")
                spec = _merged(first, spec.options, _either(first.description, spec.description), between_games=True,
                               private_with=spec.private_with)
            by_name[spec.name] = spec
    return tuple(by_name.values())


COMMANDS = build_grammar(rulesets())
QUERIES = tuple(spec.name for spec in COMMANDS if spec.query)
_TABLE_BY_NAME = {spec.name: spec for spec in TABLE_COMMANDS}
SERVICE_OPTIONS = frozenset({"name", "by_admin"})  # added by the service from the actor, never typed


def game_spec(ruleset: Ruleset, name: str) -> CommandSpec | None:
    """A command as one game declares it (a table command with the game's own extra options), or None
    when the game has no such command."""
    own = {spec.name: spec for spec in ruleset.grammar.commands}
    if name in own:
        return own[name]
    if name not in _TABLE_BY_NAME:
        return None
    base = _TABLE_BY_NAME[name]
    if name in _EXTENDED:
        return CommandSpec(base.name, base.description, base.options + _EXTENDED[name](ruleset.grammar), base.query)
    return base


def foreign_to(ruleset: Ruleset, command: Command) -> str | None:
    """Why `command` does not fit a game of `ruleset` (another game's command or option), or None."""
    spec = game_spec(ruleset, command.name)
    if spec is None:
        names = ", ".join("/" + own.name for own in ruleset.grammar.commands)
        return f"/{command.name} is not part of {ruleset.title}. Its commands: {names}."
    allowed = {o.name for o in spec.options} | SERVICE_OPTIONS
    extra = sorted(set(command.options) - allowed)
    if extra:
        return f"{', '.join(e + ':' for e in extra)} is not an option of /{command.name} in {ruleset.title}."
    return None


def for_game(ruleset: Ruleset, command: Command) -> Command:
    """`command` checked against the game's own declaration of it: another game's command or option,
    or a value only another game accepts, raises CommandSyntaxError."""
    reason = foreign_to(ruleset, command)
    if reason:
        raise CommandSyntaxError(reason)
    typed = {k: v for k, v in command.options.items() if k not in SERVICE_OPTIONS}
    spec = game_spec(ruleset, command.name)
    if spec is None:   # foreign_to refuses a command the game does not have
        raise CommandSyntaxError(f"/{command.name} is not a command of {ruleset.title}.")
    checked = coerce(spec, typed)
    return Command(command.name, {**command.options, **checked.options})


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
    if option.choices:  # any letter case: "Classic", "TRUE" and "Turn-Left" read as the choice they name
        chosen = next((c for c in option.choices if c.casefold() == text.casefold()), None)
        if chosen is None:
            raise CommandSyntaxError(f"{option.name}: must be one of {', '.join(option.choices)}.")
        return chosen
    return text


def parse(line: str, read_file=None) -> Command:
    """Parse a command typed as in Discord, e.g. '/game join' or '/move direction:north'."""
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
