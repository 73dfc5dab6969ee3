"""How the command grammar is laid out on Discord, within Discord's limits (no discord import here).

Each game its own room for its setup: `/new <game>` is one subcommand per game, carrying only that
game's options (and the table's own, seed: and thread:). Every other command is the grammar's: a /game
subcommand or a top-level verb, whose options several games may share (bot.table.protocol.commands
.shared_spec). What the service receives is unchanged: `Command("game new", {"ruleset": <game>, ...})`;
the command line takes `/new <game>` and `/game new ruleset:<game>` alike, Discord only `/new <game>`
(a /game new beside it would spend /game's budget a second time).

Discord caps a command's options at 25, a group's subcommands at 25, and a top-level command with
everything nested in it at a character budget. The games' setup rooms fill `/new`, then `/new2`, `/new3`...
(each within the budget), so a game's fixed choices stay fixed however many games there are. Past that a
command gives way one step at a time, the biggest first: a command with more options than Discord takes
(they grow with the games, as /game join's do) writes all its optional ones in `more`; then fixed choices
become suggestions as you type; then a command's optional options are written in one text option,
`more:"name:value name:value"`, suggested as you type. A game whose id Discord cannot show as a name is set
up in the shared room `/new other ruleset:<game>`. Nothing a game declares is ever lost, and no text is cut.
"""

from __future__ import annotations

import logging
import re
import textwrap
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

from bot.table.protocol.commands import (
    SETUP,
    CommandSpec,
    CommandSyntaxError,
    OptionSpec,
    command_table,
    game_spec,
    read_options,
    shared_spec,
)
from bot.table.protocol.replies import MAX_SUGGESTIONS, matching_offers
from rules.engine import Ruleset
from rules.registry import rulesets

log = logging.getLogger("pitboss.discord")

MAX_OPTIONS = 25  # options of a command or subcommand; also subcommands of a group
MAX_TEXT = 100  # a description, and an autocomplete offer's name and value
MAX_COMMANDS = 100  # top-level slash commands of one application (globally, or in one guild)
# Characters in a top-level command with all it nests: names, descriptions, choices. Discord's docs
# say 8000 today and said 4000 before; the bot keeps to the older figure to be safe.
COMMAND_BUDGET = 4000
NAME = re.compile(r"^[-_\w]{1,32}$")
GAME_NEW = "game new"
GROUPS = {("game",): "Join, start, show and end games",
          (SETUP,): "Create a game in this channel: pick the game",
          ("me",): "Your own clock in all your games on this server",
          ("game", "seat"): "Hand a seat on, or take one",
          ("orders",): "Answers given in advance to this game's questions, private to you",
          ("league",): "This server's league: seasons that pair members into games, the board of open tables",
          ("queue",): "Wait for a game: when enough members wait for the same one, it opens",
          ("tournament",): "Tournaments on this server: sign up, play the rounds, see the final table"}
MORE_WORDS = "More options, written name:value name:value (suggested as you type)"
OTHER_WORDS = "A new game of any other kind in this channel"
MORE_SETUP_WORDS = "Create a game in this channel: more games"
RULESET_WORDS = "Which game to play (suggested as you type)"
MORE_LENGTH = 1000


@dataclass(frozen=True)
class Slash:
    """One slash command as Discord shows it, and what using it hands the service."""

    path: tuple[str, ...]  # ("new", <game id>): a top-level command, a subcommand, or one in a group
    description: str
    options: tuple[OptionSpec, ...]  # as Discord shows them (`more` last, when some are folded into it)
    command: str  # the grammar's command it runs ("game new")
    fixed: tuple[tuple[str, str], ...] = ()  # options the path stands for: (("ruleset", <game id>),)
    folded: tuple[OptionSpec, ...] = ()  # the options written in the text option `more`
    listed: tuple[str, ...] = ()  # options whose suggestions are their own choices (no game to ask)
    private_with: tuple[str, ...] = ()
    private: bool = False   # answered to the asker alone unless one of public_with is true
    public_with: tuple[str, ...] = ()

    @property
    def more(self) -> str | None:
        """The name of the text option holding the folded options, if any."""
        return self.options[-1].name if self.folded else None

    def characters(self) -> int:
        """What this command adds to its top-level command's character budget."""
        return len(self.path[-1]) + len(self.description) + sum(_characters(o) for o in self.options)

    def values(self, given: dict[str, object]) -> dict[str, object]:
        """The grammar command's options for what Discord sent: the folded ones read out of `more`,
        and the ones the path stands for; a malformed or doubled option raises CommandSyntaxError."""
        values = {k: v for k, v in given.items() if v is not None and k != self.more}
        written = given.get(self.more) if self.more else None
        for name, value in read_options(written).items() if isinstance(written, str) else ():
            if name in values:
                raise CommandSyntaxError(f"Option {name}: given twice.")
            if name not in {o.name for o in self.folded}:
                names = ", ".join(o.name for o in self.folded)
                raise CommandSyntaxError(f"{self.more}: {name} is not one of its options ({names}).")
            values[name] = value
        return {**values, **dict(self.fixed)}

    def _so_far(self, given: dict[str, object]) -> dict[str, object]:
        """`values`, leniently: while `more` is being typed it may not read yet, and then adds nothing."""
        try:
            return self.values(given)
        except CommandSyntaxError:
            return {k: v for k, v in given.items() if v is not None and k != self.more}

    def chosen(self, given: dict[str, object]) -> dict[str, str]:
        """The text options chosen so far, for suggestions."""
        return {k: v for k, v in self._so_far(given).items() if isinstance(v, str)}

    def is_private(self, given: dict[str, object]) -> bool:
        """Whether the answer is the asker's alone from the first moment: always for a private command
        (a hand, the log) unless it is asked for publicly, and when private options are given."""
        values = self._so_far(given)
        if self.private:
            return not any(str(values.get(option)).lower() == "true" for option in self.public_with)
        return any(_given(values, entry) for entry in self.private_with)

    def listed_offers(self, option: str, typed: str) -> list[tuple[str, str]]:
        """Suggestions for an option whose values are its declared choices."""
        choices = next((o.choices for o in self.options if o.name == option), ())
        return matching_offers([(c, c) for c in choices], typed)

    def more_offers(self, typed: str) -> list[tuple[str, str]]:
        """Suggestions for `more`: what was written so far, then one more name:value (or name:)."""
        head, _space, last = typed.lstrip().rpartition(" ")
        try:
            written = read_options(head)
        except CommandSyntaxError:
            return []
        offers = []
        for option in self.folded:
            if option.name in written:
                continue
            for value in option.choices or ("",):
                word = f"{option.name}:{value}"
                text = f"{head.strip()} {word}".strip()
                if word.lower().startswith(last.lower()) and len(text) <= MAX_TEXT:
                    offers.append((_shortened(f"{word}  ({option.description})"), text))
        return offers[:MAX_SUGGESTIONS]


def _characters(option: OptionSpec) -> int:
    """An option's part of the budget: name, description, and each choice's name and value, when shown."""
    shown = () if option.suggest else option.choices
    return len(option.name) + len(option.description) + 2 * sum(len(c) for c in shown)


def _shortened(text: str) -> str:
    """`text` within Discord's 100 characters, shortened at a word, never inside one."""
    return text if len(text) <= MAX_TEXT else textwrap.shorten(text, MAX_TEXT, placeholder="...")


def _ordered(options: Iterable[OptionSpec]) -> tuple[OptionSpec, ...]:
    """Required options first, as Discord wants them."""
    return tuple(sorted(options, key=lambda o: not o.required))


def _more_option(kept: tuple[OptionSpec, ...]) -> OptionSpec:
    """The text option for folded options, named so no kept option clashes with it."""
    taken = {o.name for o in kept}
    name = next(n for n in ("more", "more_options", "further_options") if n not in taken)
    return OptionSpec(name, "str", MORE_WORDS, suggest=True)


def folded(slash: Slash, keep: int = 0) -> Slash:
    """`slash` with its options after the first `keep` written in `more` (files and required ones stay)."""
    options = [o for o in slash.options if o.name != slash.more]
    stays = [o for i, o in enumerate(options) if i < keep or o.required or o.kind == "file"]
    moved = tuple(o for o in options if o not in stays)
    if not moved:
        return slash
    kept = tuple(stays)
    return replace(slash, options=kept + (_more_option(kept),), folded=slash.folded + moved,
                   listed=tuple(n for n in slash.listed if n in {o.name for o in kept}))


def as_suggestions(slash: Slash) -> Slash:
    """`slash` with fixed choices offered as you type instead (they then cost no characters)."""
    fixed = [o.name for o in slash.options if o.choices and not o.suggest]
    if not fixed:
        return slash
    options = tuple(replace(o, suggest=True) if o.name in fixed else o for o in slash.options)
    return replace(slash, options=options, listed=slash.listed + tuple(fixed))


def plain(spec: CommandSpec) -> Slash:
    """A grammar command as it is: a top-level verb or a /game subcommand."""
    return Slash(spec.path, spec.description, spec.options, spec.name, private_with=spec.private_with,
                 private=spec.private, public_with=spec.public_with)


def room(ruleset: Ruleset) -> Slash:
    """`/new <game>`: that game's own setup options (and the table's seed:), its own words."""
    spec = game_spec(ruleset, GAME_NEW)
    assert spec is not None  # every game has the table's commands
    options = _ordered(o for o in spec.options if o.name != "ruleset")
    return Slash((SETUP, ruleset.id), f"A new game of {ruleset.title} in this channel", options,
                 GAME_NEW, fixed=(("ruleset", ruleset.id),), listed=tuple(o.name for o in options if o.suggest))


def other_room(games: list[Ruleset], taken: set[str]) -> Slash:
    """`/new other ruleset:<game>`: one room for the games that have none of their own."""
    specs = [spec for spec in (game_spec(r, GAME_NEW) for r in games) if spec is not None]
    shared = shared_spec(GAME_NEW, specs)
    name = next(n for n in ("other", "other-game", "other-games") if n not in taken)
    pick = OptionSpec("ruleset", "str", RULESET_WORDS, required=True, choices=tuple(r.id for r in games),
                      suggest=True)
    rest = tuple(replace(o, required=False) for o in shared.options if o.name != "ruleset")
    return folded(Slash((SETUP, name), OTHER_WORDS, (pick, *rest), GAME_NEW, listed=("ruleset",)))


def _worded(slash: Slash) -> Slash:
    """`slash` with every description within Discord's 100 characters (the grammar's tests keep each
    declared one within it; this only keeps a game that does not from stopping the bot)."""
    options = tuple(replace(o, description=_shortened(o.description)) for o in slash.options)
    return replace(slash, description=_shortened(slash.description), options=options)


def _folded_whole(slash: Slash) -> Slash:
    """A command already writing options in `more` (it has more than Discord takes: a shared command whose
    options grow with the games, such as /game join) writes all its optional ones there: it gives way
    before any other command's fixed choices do."""
    return folded(slash) if slash.folded else slash


def _within_options(slash: Slash) -> Slash:
    """A command with more options than Discord takes writes the rest in `more`."""
    return folded(slash, keep=MAX_OPTIONS - 1) if len(slash.options) > MAX_OPTIONS else slash


def root_characters(slashes: list[Slash]) -> int:
    """The character count of the top-level command these commands sit in (groups included)."""
    root = slashes[0].path[0]
    if len(slashes) == 1 and len(slashes[0].path) == 1:
        return slashes[0].characters()
    groups = {s.path[:i] for s in slashes for i in range(1, len(s.path))}
    return sum(len(g[-1]) + len(group_words(g)) for g in groups if g[0] == root) + \
        sum(s.characters() for s in slashes)


def group_words(path: tuple[str, ...]) -> str:
    """A group's description."""
    more_setup = len(path) == 1 and path[0].startswith(SETUP) and path[0][len(SETUP):].isdigit()
    return GROUPS.get(path, MORE_SETUP_WORDS if more_setup else f"/{' '.join(path)} commands")


def _relieved(slashes: list[Slash], step: Callable[[Slash], Slash]) -> list[Slash]:
    """`step` applied to the commands, the biggest first, until the whole fits the budget."""
    slashes = list(slashes)
    for index in sorted(range(len(slashes)), key=lambda i: -slashes[i].characters()):
        if root_characters(slashes) <= COMMAND_BUDGET:
            break
        slashes[index] = step(slashes[index])
    return slashes


def _fitted(slashes: list[Slash]) -> list[Slash]:
    """One top-level command's commands, given way until they fit Discord's limits."""
    slashes = [_within_options(_worded(s)) for s in slashes]
    for step in (_folded_whole, as_suggestions, folded):
        slashes = _relieved(slashes, step)
    return slashes


def setup_rooms(games: tuple[Ruleset, ...], taken: set[str]) -> list[Slash]:
    """Every game's setup room in registration order, filling `/new` and then `/new2`, `/new3`... (no name
    in `taken`), each within the budget and a group's 25 subcommands; a game whose id Discord cannot show
    as a name is set up in the shared room `/new other`."""
    rooms = [_within_options(_worded(room(r))) for r in games]
    own = [s for s in rooms if NAME.match(s.path[-1]) and s.path[-1] == s.path[-1].lower()]
    moved = [r for r, s in zip(games, rooms, strict=True) if s not in own]
    shared = [_worded(other_room(moved, {s.path[-1] for s in own}))] if moved else []
    for room_of_all in shared:
        log.warning("/%s: %s share the room /%s %s (Discord cannot show their ids as names)", SETUP,
                    ", ".join(r.id for r in moved), SETUP, room_of_all.path[-1])
    names = (name for name in (SETUP, *(f"{SETUP}{i}" for i in range(2, MAX_COMMANDS + 2))) if name not in taken)
    roots: list[list[Slash]] = []
    name = SETUP
    for slash in own + shared:
        if not roots or len(roots[-1]) == MAX_OPTIONS or root_characters([*roots[-1], slash]) > COMMAND_BUDGET:
            name = next(names)
            roots.append([])
        roots[-1].append(replace(slash, path=(name, slash.path[-1])))
    return [slash for root in roots for slash in root]


def discord_layout(commands: tuple[CommandSpec, ...] | None = None,
                   games: tuple[Ruleset, ...] | None = None) -> tuple[Slash, ...]:
    """Every slash command Discord shows, grouped by top-level command, each within Discord's limits."""
    commands = command_table().commands if commands is None else commands
    games = rulesets() if games is None else games
    taken = {spec.path[0] for spec in commands if spec.name != GAME_NEW}
    by_root: dict[str, list[Slash]] = {}
    for spec in commands:
        for slash in setup_rooms(games, taken) if spec.name == GAME_NEW else [plain(spec)]:
            by_root.setdefault(slash.path[0], []).append(slash)
    if len(by_root) > MAX_COMMANDS:
        raise ValueError(_too_many_verbs(by_root, games))
    return tuple(slash for slashes in by_root.values() for slash in _fitted(slashes))


def _too_many_verbs(by_root: dict[str, list[Slash]], games: tuple[Ruleset, ...]) -> str:
    """Why the commands cannot be registered: more top-level commands than Discord takes, and which games
    bring the most verbs of their own (the place to group some under one command)."""
    own = sorted(((len({c.path[0] for c in r.grammar.commands}), r.id) for r in games), reverse=True)
    biggest = ", ".join(f"{game} {count}" for count, game in own[:3])
    return (f"{len(by_root)} top-level slash commands, past Discord's {MAX_COMMANDS}: group some verbs under "
            f"one command (the most top-level verbs: {biggest})")


def _given(values: dict[str, object], entry: str) -> bool:
    """Whether an option of `private_with` is given ("option"), or given with its value ("option:value")."""
    option, _colon, value = entry.partition(":")
    given = values.get(option)
    return given is not None and (not value or str(given).strip().lower() == value)
