"""The command grammar both adapters share: names, options, types and choices, and a text parser."""

from __future__ import annotations

import difflib
import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Protocol

from bot.table.clock.personal import NOTIFY, VIEWS
from bot.table.plugins import load_plugins
from rules.engine import Ruleset
from rules.grammar import SHARED_WORDS, CommandSpec, Grammar, OptionSpec
from rules.registry import declarations, get_ruleset, ruleset_ids

__all__ = ["Command", "CommandSpec", "CommandSyntaxError", "CommandTable", "OptionSpec", "SETUP", "SPELLINGS",
           "TABLE_COMMANDS", "WORD_OPTIONS", "coerce", "command_table", "declared_choices", "declaring", "for_game",
           "foreign_to",
           "game_spec", "lookup", "nearest_command", "parse", "read_options", "setup_line", "shared_spec", "spelled"]

MAX_OPTION_LENGTH = 100
_MENTION = re.compile(r"<@!?(\d{1,20})>")
_MEMBER_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")
# A command whose first bare word names one of its options: '/game new GAME' is
# '/game new ruleset:GAME' (Discord shows each game its own subcommand of /new).
WORD_OPTIONS = {"game new": "ruleset", "game propose": "result"}   # '/game propose draw' too
# Other spellings of a command: '/new GAME' is '/game new GAME', the one spelling of a game's setup Discord
# has (bot.chat.layout); the command line and scripts take both.
SPELLINGS = {"new": "game new"}
SETUP = "new"   # the top-level command holding every game's setup on Discord


def spelled(name: str) -> str:
    """A command's name as players write it everywhere: 'new' for 'game new'."""
    return next((short for short, full in SPELLINGS.items() if full == name), name)


def setup_line(ruleset_id: str, *options: str) -> str:
    """How a player creates a game of `ruleset_id`, the same on Discord and the command line: '/new GAME'."""
    return " ".join((f"/{SETUP} {ruleset_id}", *options))


class CommandSyntaxError(ValueError):
    """Unknown command, unknown option, missing or malformed value: exit status 2 on the command line."""


@dataclass(frozen=True)
class Command:
    """A parsed command: its name and typed option values."""

    name: str
    options: dict = field(default_factory=dict)


_VANISHED = "A vanished player's seat (host or admin)"
# An earlier game of the channel, read after another began there (a rematch): by its number, as /game rematch says it.
_TOURNAMENT = OptionSpec("number", "int", "A tournament by number (this channel's newest if left out)", min_value=1,
                         max_value=2**53 - 1)
_SEASON = OptionSpec("number", "int", "A season by number (this channel's running one if left out)", min_value=1,
                     max_value=2**53 - 1)
_EARLIER = OptionSpec("game", "int", "A game that ended here, by number", min_value=1, max_value=2**53 - 1)
# The table's own commands, the same for every game; each ruleset adds its commands and options.
TABLE_COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec("game new", "Create a game in this channel", (
        OptionSpec("ruleset", "str", "Which game to play", required=True),
        OptionSpec("seed", "int", "Dice seed (random if left out)",
                   min_value=0, max_value=2**53 - 1),
        OptionSpec("thread", "str", "yes: play in a new thread", choices=("yes", "no")),
        OptionSpec("public", "str", "yes: /lfg lists it (default; no in a private thread)", choices=("yes", "no")),
    )),
    CommandSpec("game join", "Take a seat in this game"),
    CommandSpec("game add-ai", "Seat a computer player (host)"),
    CommandSpec("game start", "Start the game (host)"),
    CommandSpec("game status", "Show the table and whose turn it is", (
        OptionSpec("view", "str", "closeup: privately, a piece of the map for a phone", choices=VIEWS),
    ), query=True, private_with=("view:closeup",)),
    CommandSpec("game end", "End this game (host or server admin)"),
    CommandSpec("game takeover", "Become this game's host (Manage Server)"),
    CommandSpec("game resign", "Leave this game for good", (
        OptionSpec("player", "str", _VANISHED, suggest=True),
        OptionSpec("confirm", "str", "yes: resign now (without it, nothing changes)", choices=("yes",)),
    )),
    CommandSpec("game seat give", "Offer your seat to a member", (
        OptionSpec("to", "user", "The member", required=True),
        OptionSpec("player", "str", _VANISHED, suggest=True),
    )),
    CommandSpec("game follow", "Watch: a ping once a round, or at the end", (
        OptionSpec("mode", "str", "round (default) or end", choices=("round", "end")),
    ), private=True),
    CommandSpec("game unfollow", "Stop following this game", private=True),
    CommandSpec("game seat take", "Take a seat offered to you, or yours back"),
    CommandSpec("game seat computer", "The computer plays your seat until you take it back", (
        OptionSpec("player", "str", _VANISHED, suggest=True),
    )),
    CommandSpec("game rollback", "Vote to return the game to an earlier action", (
        OptionSpec("to", "int", "Go back to action #N of /game log", min_value=0,
                   max_value=2**31),
        OptionSpec("vote", "str", "Answer the open vote", choices=("yes", "no")),
    )),
    CommandSpec("game propose", "Vote to end the game as a draw, or with no winner", (
        OptionSpec("result", "str", "draw: among the players still in; end: no winner", choices=("draw", "end")),
        OptionSpec("vote", "str", "Answer the open vote", choices=("yes", "no")),
    )),
    CommandSpec("game rematch", "After the end: the same game again, seats turned by one (each player says yes)", (
        OptionSpec("vote", "str", "Answer the proposed rematch (yes if left out)", choices=("yes", "no")),
    )),
    CommandSpec("game log", "Recent events of the game, with their dice", (
        OptionSpec("count", "int", "How many actions (default 10)", min_value=1, max_value=100),
        OptionSpec("before", "int", "The actions before #N", min_value=1,
                   max_value=2**31),
        OptionSpec("set_aside", "int", "The actions rollback N set aside", min_value=1, max_value=1000), _EARLIER,
    ), query=True, private=True),
    CommandSpec("game catchup", "What happened since your last action",
                query=True, private=True),
    CommandSpec("game export", "The game's action log as a JSON file", (_EARLIER,), query=True, private=True),
    CommandSpec("game import", "Continue or re-play an exported game here", (
        OptionSpec("file", "file", "A JSON file made by /game export", required=True),
    )),
    CommandSpec("game replay", "An animated GIF of the game so far", query=True),
    CommandSpec("game sheet", "The cars' full sheets, privately unless public", (
        OptionSpec("car", "str", "One car (every car if left out)"),
        OptionSpec("public", "str", "Show them to the channel", choices=("true", "false")),
    ), query=True, private=True, public_with=("public",)),
    CommandSpec("game verify", "Re-run every roll and check the game", (_EARLIER,), query=True,
                private=True),
    CommandSpec("game review", "After the end: the turning rolls, each player's luck, a chart", (_EARLIER,),
                query=True, private=True),
    CommandSpec("game settings", "Show or change the table's clock (host)", (
        OptionSpec("reminder_hours", "int", "Remind after this many hours",
                   min_value=1, max_value=720),
        OptionSpec("deadline_hours", "int", "Turn deadline in hours (0: none)", min_value=0, max_value=720),
        OptionSpec("deadline_action", "str", "At the deadline: autopilot plays the turn, skip plays it most safely",
                   choices=("autopilot", "skip")),
        OptionSpec("quiet_hours", "str", "UTC hours with no reminders or deadlines, e.g. 22-7, or none"),
        OptionSpec("pause_limit_hours", "int", "Longest /game pause allowed",
                   min_value=0, max_value=2160),
        OptionSpec("away_limit_hours", "int", "Most hours /me away hours push a deadline",
                   min_value=0, max_value=24),
        OptionSpec("gone_hours", "int", "Silent this long, a player is gone (the host may act for them)",
                   min_value=1, max_value=720),
        OptionSpec("grace", "int", "How many missed deadlines of each player are extended once (0-3)",
                   min_value=0, max_value=3),
        OptionSpec("clock", "str", "A flat deadline per turn, or a time bank per player",
                   choices=("deadline", "bank")),
        OptionSpec("bank_hours", "int", "Hours each bank starts with (clock:bank)",
                   min_value=1, max_value=720),
        OptionSpec("increment_hours", "int", "Hours a move adds to a bank", min_value=0, max_value=720),
        OptionSpec("cap_hours", "int", "Most hours a bank holds (at least bank_hours)",
                   min_value=1, max_value=2160),
    )),
    CommandSpec("game pause", "Pause your deadlines and reminders (0 ends the pause)", (
        OptionSpec("hours", "int", "How many hours", required=True, min_value=0, max_value=2160),
    )),
    CommandSpec("games", "Your running games on this server: whose turn it is, and each one's deadline", private=True),
    CommandSpec("lfg", "Open tables on this server: lobbies with a seat free, each with a Join button", (
        OptionSpec("game", "int", "Join this open table (its number in the buttons: /lfg game:N)", min_value=1,
                   max_value=2**53 - 1),
    ), private=True),
    CommandSpec("tournament new", "Open a tournament here: members sign up, then the bot pairs them into games", (
        OptionSpec("ruleset", "str", "Which game to play", required=True),
        OptionSpec("format", "str", "round-robin: everyone meets everyone; elimination: winners go on",
                   required=True, choices=("round-robin", "elimination")),
        OptionSpec("players", "int", "The most players who may sign up", required=True, min_value=2, max_value=64),
        OptionSpec("seats", "int", "Players in each game (2 if left out)", min_value=2, max_value=8),
        OptionSpec("gate", "int", "Turn away members the autopilot played more than this % of actions for",
                   min_value=0, max_value=100),
        OptionSpec("deadline_hours", "int", "Each game's turn deadline; the autopilot plays at it (48)",
                   min_value=1, max_value=720),
        OptionSpec("setup", "str", "The games' options as /new takes them: name:value name:value"),
    )),
    CommandSpec("tournament join", "Sign up for this channel's tournament", (_TOURNAMENT,)),
    CommandSpec("tournament leave", "Take your name off a tournament before it starts", (_TOURNAMENT,)),
    CommandSpec("tournament start", "Seed by rating and open the first round (its creator or a manager)",
                (_TOURNAMENT,)),
    CommandSpec("tournament show", "A tournament's players, games, results and table", (_TOURNAMENT,),
                query=True, private=True),
    CommandSpec("tournament cancel", "Call a tournament off (its creator or a manager); its games go on",
                (_TOURNAMENT,)),
    CommandSpec("league new", "Run a season here: the bot pairs its members into games by rating (Manage Server)", (
        OptionSpec("ruleset", "str", "Which game to play", required=True),
        OptionSpec("season_days", "int", "How many days the season runs", required=True, min_value=1, max_value=365),
        OptionSpec("max_games", "int", "The most games of the season a member plays at once", required=True,
                   min_value=1, max_value=10),
        OptionSpec("players", "int", "Players in each game (the fewest the game starts with if left out)",
                   min_value=2, max_value=8),
        OptionSpec("setup", "str", "The games' options as /new takes them: name:value name:value"),
        OptionSpec("deadline_hours", "int", "Each game's turn deadline; the autopilot plays at it (48)",
                   min_value=1, max_value=720),
    )),
    CommandSpec("league join", "Sign up for this channel's season: the bot pairs you into its games", (_SEASON,)),
    CommandSpec("league leave", "Stop being paired in a season (your running games go on)", (_SEASON,)),
    CommandSpec("league show", "A season: members, games, standings by rating, when it ends", (_SEASON,),
                query=True, private=True),
    CommandSpec("league end", "End a season now: no more pairings, the final standings (Manage Server)", (_SEASON,)),
    CommandSpec("league board", "Show or name the channel keeping this server's board of open tables", (
        OptionSpec("channel", "str", "The board's channel, #name (Manage Server)"),
        OptionSpec("off", "str", "yes: keep no board (Manage Server)", choices=("yes",)),
    ), private=True),
    CommandSpec("league roles", "Show this server's rank roles, or turn a game's on or off (Manage Server)", (
        OptionSpec("ruleset", "str", "One game's rank roles"),
        OptionSpec("set", "str", "on: give the game's rank roles; off: take them away (Manage Server)",
                   choices=("on", "off")),
    ), private=True),
    CommandSpec("me settings", "Your own clock in all your games here: time zone, away hours, reminders, pings", (
        OptionSpec("time_zone", "str", "Your IANA time zone, e.g. Europe/Paris (suggested as you type)",
                   suggest=True),
        OptionSpec("away", "str", "Hours of your day with no pings, e.g. 23-07 (deadlines move past them), or none"),
        OptionSpec("reminder_hours", "int", "Your reminder comes after this many hours (0: as each table sets)",
                   min_value=0, max_value=720),
        OptionSpec("view", "str", "Your private status and previews: full map, or closeup for a phone", choices=VIEWS),
        OptionSpec("notify", "str", "Your pings: in the channel, by direct message, or a daily digest",
                   choices=NOTIFY),
    ), private=True),
    CommandSpec("me away", "Pause your reminders and deadlines in all your games here, said in each channel", (
        OptionSpec("hours", "int", "How many hours (each table's pause limit holds)", required=True, min_value=1,
                   max_value=2160),
    ), private=True),
    CommandSpec("me back", "End your /me away pause in all your games here", private=True),
    CommandSpec("me forget", "Delete what this bot keeps about you; your name in games becomes neutral", (
        OptionSpec("confirm", "str", "yes: forget now (without it, nothing changes)", choices=("yes",)),
    ), private=True),
    CommandSpec("stats", "Your record here (or a member's): rating, games, wins, draws, time to move", (
        OptionSpec("player", "user", "Another member"),
        OptionSpec("ruleset", "str", "One game"),
    ), query=True, private=True),
    CommandSpec("standings", "This server's players of one game, by rating", (
        OptionSpec("ruleset", "str", "The game", required=True),
    ), query=True, private=True),
    CommandSpec("queue join", "Wait for a game: when enough members wait for the same one, I open it", (
        OptionSpec("ruleset", "str", "Which game to play", required=True),
        OptionSpec("players", "int", "How many players the game seats", required=True, min_value=2, max_value=8),
        OptionSpec("setup", "str", "The game's options as /new takes them: name:value name:value"),
        OptionSpec("at_once", "int", "How many queued games you play at once (kept; 1 at first)", min_value=1,
                   max_value=10),
    ), private=True),
    CommandSpec("queue leave", "Stop waiting: in one game's queue, or in all", (
        OptionSpec("ruleset", "str", "One game's queues (all of yours if left out)"),
    ), private=True),
    CommandSpec("queue show", "The queues you wait in, and the queued games you play", query=True, private=True),
    CommandSpec("queue confirm", "Confirm your seat in the game the queue opened in this thread"),
    CommandSpec("queue decline", "Give up your seat in the game the queue opened here (you leave that queue)"),
    CommandSpec("orders set", "Answer one of this game's questions in advance, privately", (
        OptionSpec("question", "str", "The question (suggested as you type)", required=True, suggest=True),
        OptionSpec("answer", "str", "Your answer (suggested as you type)", required=True, suggest=True),
    ), private=True),
    CommandSpec("orders show", "Your standing orders in this game, and the questions it asks", query=True,
                private=True),
    CommandSpec("orders clear", "Drop a standing order (all of yours without question:)", (
        OptionSpec("question", "str", "The question (suggested as you type)", suggest=True),
    ), private=True),
    # private from the first moment: its refusals and the undo of a private action are the asker's alone (a
    # public undo is then said in the channel by a message of its own)
    CommandSpec("undo", "Take back your own last action (only if no dice were rolled since)", private=True),
    CommandSpec("rules", "The rules as this table plays them: the seed's words, the rulings, the reconstructions", (
        OptionSpec("topic", "str", "A topic (suggested as you type), or any word of the rules", suggest=True),
        OptionSpec("page", "int", "The page of a long topic (it says how many it has)", min_value=1, max_value=50),
    ), query=True, private=True),
    CommandSpec("help", "What you can do now in this channel's game, and the commands", (
        OptionSpec("command", "str", "One command to explain, with an example (e.g. move, game join)",
                   suggest=True),
    ), query=True, private=True),
)
# Commands whose options come partly from the rulesets (a ruleset's grammar names which).
_EXTENDED = {"game new": lambda g: g.new_options, "game join": lambda g: g.join_options,
             "game add-ai": lambda g: g.join_options}
_TABLE_NAMES = frozenset(spec.name for spec in TABLE_COMMANDS)
_GROUPS = frozenset(" ".join(name.split()[:i]) for name in _TABLE_NAMES
                    for i in range(1, len(name.split())))   # /game …, /game seat …, /me …
_TABLE_BY_NAME = {spec.name: spec for spec in TABLE_COMMANDS}


def shared_option(key: str, declared: list[OptionSpec], everyone: bool) -> OptionSpec:
    """One option as several games declare it (`key`: "verb option"): what they agree on is kept (the
    type, the choices, the words); where they differ it is text the channel's game fills in by
    autocomplete, with the widest range where all count, and neutral words (rules.grammar.SHARED_WORDS).
    Required only if `everyone` sharing the verb declares it required; each game's own declaration is
    checked once the channel's game is known (`for_game`)."""
    first = declared[0]
    required = everyone and all(o.required for o in declared)
    if all(o == first for o in declared):
        return replace(first, required=required)
    same_kind = all(o.kind == first.kind for o in declared)
    same_choices = all(o.choices == first.choices for o in declared)
    kind = first.kind if same_kind else "str"
    choices = first.choices if same_choices else ()
    suggest = any(o.suggest for o in declared) or not (same_kind and same_choices)
    low = _bound(min, [o.min_value for o in declared]) if kind == "int" else None
    high = _bound(max, [o.max_value for o in declared]) if kind == "int" else None
    neutral = f"{first.name}: as this channel's game takes it" + (", suggested as you type" if suggest else "")
    words = _agreed(key, [o.description for o in declared], neutral)
    return OptionSpec(first.name, kind, words, required, choices, low, high, suggest)


def _bound(pick, bounds: list[int | None]) -> int | None:
    """The widest of some games' bounds (None, no bound, if any game has none)."""
    return None if any(b is None for b in bounds) else pick(b for b in bounds if b is not None)


def _agreed(key: str, texts: list[str], neutral: str) -> str:
    """The words every game uses for `key`, or, where they differ, the shared words for it."""
    return texts[0] if len(set(texts)) == 1 else SHARED_WORDS.get(key, neutral)


def shared_spec(name: str, specs: list[CommandSpec]) -> CommandSpec:
    """One command as every game that has it declares it: each option once (`shared_option`), required
    options first (Discord wants them so), the agreed or shared words, any game's private options."""
    names = dict.fromkeys(o.name for spec in specs for o in spec.options)
    options = [shared_option(f"{name} {option}", [o for spec in specs for o in spec.options if o.name == option],
                             all(any(o.name == option for o in spec.options) for spec in specs))
               for option in names]
    description = _agreed(name, [spec.description for spec in specs], f"/{name}, as this channel's game plays it")
    private = tuple(dict.fromkeys(p for spec in specs for p in spec.private_with))
    public = tuple(dict.fromkeys(p for spec in specs for p in spec.public_with))
    return CommandSpec(name, description, tuple(sorted(options, key=lambda o: not o.required)), specs[0].query,
                       private, all(spec.private for spec in specs), public)


class Declares(Protocol):
    """A game as its commands are declared: a Ruleset, or only its declaration (rules.registry.Declared)."""

    @property
    def id(self) -> str: ...

    @property
    def grammar(self) -> Grammar: ...


def build_grammar(rulesets: Sequence[Declares]) -> tuple[CommandSpec, ...]:
    """Every command Discord and the command line know: the table's, extended by each game, and each
    game's own. Two games may declare one verb (/move) with different options: it is one command with
    the options of both (`shared_spec`), and each game accepts only its own (`for_game`)."""
    by_name = {spec.name: spec for spec in TABLE_COMMANDS}
    declared: dict[str, list[CommandSpec]] = {}
    for ruleset in rulesets:
        for spec in ruleset.grammar.commands:
            if spec.name in _TABLE_NAMES or spec.path[0] in SPELLINGS:
                raise ValueError(f"/{spec.name} is a table command; {ruleset.id} cannot declare it")
            # a game's own query is answered from its queries, to the asker alone
            declared.setdefault(spec.name, []).append(replace(spec, private=True) if spec.query else spec)
    for name in _EXTENDED:
        declared[name] = [game_spec(ruleset, name) or by_name[name] for ruleset in rulesets] or [by_name[name]]
    for name, specs in declared.items():
        if len({spec.query for spec in specs}) > 1:
            raise ValueError(f"/{name} is a query in one game and an action in another")
        by_name[name] = shared_spec(name, specs)
    return tuple(by_name.values())


def declaring(name: str) -> tuple[Ruleset, ...]:
    """The rulesets of the games that declare the command `name` as one of their own, loading only those
    (none for a table command, which no game may declare)."""
    if name in _TABLE_NAMES:
        return ()
    return tuple(get_ruleset(game.id) for game in declarations()
                 if any(spec.name == name for spec in game.grammar.commands))


def game_spec(ruleset: Declares, name: str) -> CommandSpec | None:
    """A command as one game declares it (a table command with the game's own extra options), or None
    when the game has no such command."""
    own = {spec.name: spec for spec in ruleset.grammar.commands}
    if name in own:
        return own[name]
    if name not in _TABLE_BY_NAME:
        return None
    base = _naming_the_games(_TABLE_BY_NAME[name], ruleset_ids())
    if name in _EXTENDED:
        return CommandSpec(base.name, base.description, base.options + _EXTENDED[name](ruleset.grammar), base.query)
    return base


@dataclass(frozen=True)
class CommandTable:
    """Every command of the table and of every registered game, merged: what both adapters take."""

    commands: tuple[CommandSpec, ...]
    by_name: Mapping[str, CommandSpec]
    queries: tuple[str, ...]   # the commands that only read a game


def _naming_the_games(spec: CommandSpec, ids: tuple[str, ...]) -> CommandSpec:
    """`spec` with its `ruleset:` option choosing among the registered games (known only once they are)."""
    options = tuple(replace(o, choices=ids) if o.name == "ruleset" else o for o in spec.options)
    return replace(spec, options=options) if options != spec.options else spec


@cache
def command_table() -> CommandTable:
    """The merged grammar, built the first time it is asked for: the games from outside the project
    ($PITBOSS_GAMES, bot.table.plugins) register first, so importing this module loads no game; building
    it reads each game's declared commands, not its rules."""
    load_plugins()
    commands = tuple(_naming_the_games(spec, ruleset_ids()) for spec in build_grammar(declarations()))
    return CommandTable(commands, {spec.name: spec for spec in commands},
                        tuple(spec.name for spec in commands if spec.query))


SERVICE_OPTIONS = frozenset({"name", "by_admin"})  # added by the service from the actor, never typed


def declared_choices(ruleset: Ruleset, command: str, option: str) -> list[tuple[str, str]]:
    """The fixed choices a game declares for one option of its command (a vehicle's mat at /game join),
    as autocomplete offers: what Discord shows as autocomplete where games share the option with
    different choices (the service offers them only to whom the command would take them from now).
    Nothing for an option the game itself suggests from what is legal now (there, no offer means nothing
    is legal)."""
    spec = game_spec(ruleset, command)
    declared = next((o for o in spec.options if o.name == option), None) if spec else None
    return [(choice, choice) for choice in declared.choices] if declared and not declared.suggest else []


def foreign_to(ruleset: Ruleset, command: Command) -> str | None:
    """Why `command` does not fit a game of `ruleset` (another game's command or option), or None."""
    spec = game_spec(ruleset, command.name)
    if spec is None:
        names = ", ".join("/" + own.name for own in ruleset.grammar.commands)
        return f"/{command.name} is not part of {ruleset.title}. Its commands: {names}."
    allowed = {o.name for o in spec.options} | SERVICE_OPTIONS
    extra = sorted(set(command.options) - allowed)
    if extra:
        own = ", ".join(o.name + ":" for o in spec.options if o.name not in WORD_OPTIONS.values())
        options = f" Its options there: {own}" if own else f" It takes no options in {ruleset.title}"
        verb = "are not options" if len(extra) > 1 else "is not an option"
        return f"{', '.join(e + ':' for e in extra)} {verb} of /{command.name} in {ruleset.title}.{options}."
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


_OPTION = re.compile(r"^([a-z][a-z0-9_-]*):(.*)$", re.S)


def lookup(name: str) -> CommandSpec:
    """The spec of a command by its space-separated name (or another spelling of it, SPELLINGS)."""
    name = SPELLINGS.get(name, name)
    if name in _TABLE_BY_NAME and name not in _EXTENDED:   # the same in every game: no game's commands read
        load_plugins()   # as command_table: the plug-ins' ids are among the games a `ruleset:` names
        return _naming_the_games(_TABLE_BY_NAME[name], ruleset_ids())
    try:
        return command_table().by_name[name]
    except KeyError:
        raise CommandSyntaxError(f"Unknown command /{name}.{nearest_command(name)} /help lists the commands you can "
                                 f"use here.") from None


def nearest_command(name: str) -> str:
    """' Did you mean /x?' for a mistyped command (or one written under /game that is not), or ''."""
    words = name.split()
    if len(words) > 1 and words[-1] in command_table().by_name:   # '/game help': /help
        return f" Did you mean /{words[-1]}?"
    if f"game {name}" in command_table().by_name:   # '/catchup': /game catchup
        return f" Did you mean /game {name}?"
    close = difflib.get_close_matches(name, command_table().by_name, n=1, cutoff=0.75)
    return f" Did you mean /{close[0]}?" if close else ""


def coerce(spec: CommandSpec, raw: Mapping[str, object], read_file=None) -> Command:
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
    if option.kind == "user":   # a member: their id, as Discord gives it or as a mention <@id> is written
        member = _MENTION.fullmatch(text)
        text = member.group(1) if member else text
        if not _MEMBER_ID.fullmatch(text):
            raise CommandSyntaxError(f"{option.name}: name a member of this server.")
        return text
    if len(text) > (option.max_length or MAX_OPTION_LENGTH):
        raise CommandSyntaxError(f"{option.name}: is too long (at most {option.max_length or MAX_OPTION_LENGTH} "
                                 f"characters).")
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
    """Parse a command typed as in Discord, e.g. '/game join', '/move direction:north' or
    '/new GAME seed:7' (the same as '/game new GAME seed:7' and '/game new ruleset:GAME seed:7')."""
    words = _words(line)
    if not words or not words[0].startswith("/"):
        raise CommandSyntaxError("Commands start with /, e.g. /game status.")
    name_parts = [words[0][1:]]
    rest = words[1:]
    # a group's words (/game, /game seat, /me) take the next word as part of the name
    while " ".join(name_parts).casefold() in _GROUPS and rest and ":" not in rest[0]:
        name_parts.append(rest.pop(0))
    spec = lookup(" ".join(name_parts).casefold())
    named = WORD_OPTIONS.get(spec.name)
    if named and rest and ":" not in rest[0]:
        rest[0] = f"{named}:{rest[0]}"
    options = options_of(rest)
    if spec.name == SPELLINGS[SETUP] and "ruleset" not in options:
        raise CommandSyntaxError(f"Name the game: {setup_line(ruleset_ids()[0])} (games: {', '.join(ruleset_ids())}).")
    return coerce(spec, options, read_file)


def read_options(text: str) -> dict[str, str]:
    """Options written out in one piece of text, 'name:value name:value' (quotes around a value with
    spaces), as the text option Discord shows for a command's further options."""
    return options_of(_words(text))


def _words(line: str) -> list[str]:
    """A line split into words as a shell would (quotes keep spaces), or a short refusal."""
    try:
        return shlex.split(line.strip())
    except ValueError as exc:
        raise CommandSyntaxError(f"Could not read that command: {exc}.") from None


def options_of(words: list[str]) -> dict[str, str]:
    """name:value words as options, each given once."""
    raw: dict[str, str] = {}
    for word in words:
        match = _OPTION.match(word)
        if not match:
            raise CommandSyntaxError(f"'{word}' is not an option; write name:value.")
        if match.group(1) in raw:
            raise CommandSyntaxError(f"Option {match.group(1)}: given twice.")
        raw[match.group(1)] = match.group(2)
    return raw
