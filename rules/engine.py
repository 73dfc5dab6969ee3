"""What a game provides: the Ruleset base class (a core, a referee and optional capabilities), its example
opening, legal actions, replay."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from types import FunctionType, MappingProxyType
from typing import Any, Generic, TypeVar

from rules.codec import Registry, Upgrades, decode_state, encode_state, normalised_snapshot
from rules.errors import BadOption, GameError
from rules.grammar import ROUND_CAP, Grammar
from rules.referee import Referee, table_command_action
from rules.review import GameReview
from rules.table import TableState

S = TypeVar("S", bound=TableState)  # a game's state type


class ReplayRefused(GameError):
    """A logged action the rules refuse when the log is re-run."""

    def __init__(self, number: int):
        super().__init__(f"action #{number} is not legal at that point")
        self.number = number


@dataclass(frozen=True)
class LegalAction:
    """Something a waiting player may do now: the action itself, how it is written (to show, and to
    type on the command line) and a short label for its button.

    `action` is None only for table commands the shell completes (a join needs the player's name).
    """

    command: str
    label: str
    group: str = ""  # actions sharing a group (the ways to make one choice) share one menu button
    action: Any = None
    primary: bool = False  # drawn as the button that matters most (an attack, say)


@dataclass(frozen=True)
class ComputerSeats:
    """A game's computer players: which seats they are, and the action one takes now."""

    is_computer: Callable[[Any, str], bool]  # (state, player): cheap
    choose: Callable[[Any, str], Any]  # (state, player) -> an action, or None when it has nothing to do
    # (state, seat id) -> why the computer cannot play that seat now (`/game seat computer`), or "" when it
    # can. None: it can play any seat.
    refuses: Callable[[Any, str], str] | None = None


@dataclass(frozen=True)
class Question:
    """A question a game asks a player, often off their turn, that they may settle in advance (`/orders
    set`): its name, the answers it takes (as offered), whether `player` is asked it now, and the action an
    answer picks among their legal ones now (None: the order does not settle it; the player is asked)."""

    name: str
    answers: tuple[str, ...]
    asked: Callable[[Any, str], bool]
    choose: Callable[[Any, str, str, tuple[LegalAction, ...]], Any]
    read: Callable[[str], str] | None = None   # a typed answer as the order keeps it; None: one of `answers`

    def kept(self, typed: str) -> str:
        """The answer as an order keeps it, or a BadOption naming the answers."""
        if self.read is not None:
            return self.read(typed)
        found = next((a for a in self.answers if a.casefold() == typed.strip().casefold()), None)
        if found is None:
            raise BadOption(f"answer: {self.name} takes {', '.join(self.answers)}.")
        return found


@dataclass(frozen=True)
class StandingOrders:
    """A game's questions a player may answer in advance, in the order an open question is looked up."""

    questions: tuple[Question, ...]

    def question(self, name: str) -> Question:
        found = next((q for q in self.questions if q.name == name.strip().casefold()), None)
        if found is None:
            raise BadOption(f"question: one of {', '.join(q.name for q in self.questions)}.")
        return found

    def answer(self, state: Any, player: str, orders: Mapping[str, str],
               legal: Callable[[], tuple[LegalAction, ...]]) -> tuple[str, Any] | None:
        """The (question, action) an order of `player`'s settles now, or None."""
        for question in self.questions:
            if question.name in orders and question.asked(state, player):
                action = question.choose(state, player, orders[question.name], legal())
                if action is not None:
                    return question.name, action
        return None


@dataclass(frozen=True)
class Autopilot:
    """What a deadline plays for a player who did not act: `play(state, player, passive)` gives an
    action or None; `passive` is the table's "skip" setting (the most cautious legal play)."""

    play: Callable[[Any, str, bool], Any]
    describe: Callable[[bool], str]  # how it plays, for the deadline notice
    # how it plays for one seat now, where seats play differently (a game master's seat); else `describe`
    describe_for: Callable[[Any, str, bool], str] | None = None

    def manner(self, state: Any, player: str, passive: bool) -> str:
        """How it plays for `player` now, for the deadline notice."""
        return self.describe_for(state, player, passive) if self.describe_for is not None else self.describe(passive)


@dataclass(frozen=True)
class PlanStep:
    """One command of a plan. A step with `why_not` is not played in its place but at the first point
    of the plan where it can be: before the first other step, or after any of them, as soon as
    `why_not(state)` answers None; otherwise it gives the reason it cannot be played there."""

    name: str
    options: dict[str, Any]
    why_not: Callable[[Any], str | None] | None = None


@dataclass(frozen=True)
class TurnPlans:
    """Several actions given in one command (a whole turn), optionally previewed privately first."""

    # (command name, options): is this command a plan? Only one of the game's own commands (its grammar's)
    # can be: the service asks only the games that declare the command.
    is_plan: Callable[[str, dict[str, Any]], bool]
    # (state, player, options) -> the steps it stands for; a GameError when the plan cannot be played
    # as written (checked before its first step, so a refused plan changes nothing)
    steps: Callable[[Any, str, dict[str, Any]], list[PlanStep]]
    wants_preview: Callable[[dict[str, Any]], bool]
    # (state, player, options) -> worked out without dice (the renderer draws it); refuses as `steps` does
    preview: Callable[[Any, str, dict[str, Any]], Any]
    describe: Callable[[Any, dict[str, Any], Any], str]  # (state, options, its preview) -> the preview's words
    encode: Callable[[dict[str, Any], Any], str]  # (options, its preview) -> a few characters, for Confirm
    decode: Callable[[str], dict[str, Any]]  # inverse of encode; ValueError when it is not one
    summarize: Callable[[tuple], str] | None = None  # a line about a played plan's events (its path)


@dataclass(frozen=True)
class SelfplaySetup:
    """How `pitboss selfplay` sets up a game of computers, and which events its summary counts."""

    new_options: Callable[[Any], str]  # (a random.Random) -> added to /game new, e.g. a round cap
    seats: Callable[[Any], list[str]]  # (a random.Random) -> the /game add-ai commands of one game
    counted: tuple[tuple[str, Callable[[dict], bool]], ...]  # (label, which encoded events)


@dataclass(frozen=True)
class Logged:
    """One action of a game's log, as a game judges whether a viewer may see it."""

    seq: int
    actor: str
    action: Any


@dataclass(frozen=True)
class Secrets:
    """What of a running game's log a viewer may not see, judged by what each action is (its kind, its
    turn, the secret it holds), never by where it sits in the log. Once a game is over nothing is
    withheld but what is `kept` (words meant for one player): its export reveals the dice seed, and with
    it everything else.

    `withheld(state, log, viewer)` gives, by action number, the actions of `log` the viewer may not read
    (a face-down counter, a file whose numbers only the GM may know), each with the words that stand in its
    place: the viewer still sees that it was taken, and by whom. `unseen(state, logged, viewer)` is
    True for an action the viewer may not even learn was taken (a seated GM's private ruling): it is
    left out of what they see altogether, and their count of actions skips it."""

    withheld: Callable[[Any, Sequence[Logged], str | None], dict[int, str]]
    unseen: Callable[[Any, Logged, str | None], bool] | None = None
    # Like `withheld`, but kept from the viewer even once the game is over: words meant for one player
    # (a seated GM's private note), which no seed reveals. None: nothing is kept past the end.
    kept: Callable[[Any, Sequence[Logged], str | None], dict[int, str]] | None = None

    def is_unseen(self, state: Any, logged: Logged, viewer: str | None) -> bool:
        """Whether `viewer` may not learn that `logged` was taken at all."""
        return self.unseen is not None and self.unseen(state, logged, viewer)


@dataclass(frozen=True)
class GameMaster:
    """A game that may seat a human game master: who sits as the GM now (None: nobody), the game's
    commands that are the GM's (what the GM's private Discord thread takes), and the words of a GM's
    private note (/gm tell) from its logged action (what its addressee's catch-up shows them)."""

    seat: Callable[[Any], str | None]
    commands: tuple[str, ...]
    note: Callable[[Any], str | None] = lambda action: None   # a logged action's words if it is a private note


def last_of_each(log: Sequence[Logged], players: set[str], kind: type, words: str) -> dict[int, str]:
    """A `withheld` for secret declarations: the last action of `kind` by each of `players` (their
    current, unrevealed choice), each shown as `words`."""
    found: dict[int, str] = {}
    left = set(players)
    for entry in reversed(log):
        if not left:
            break
        if entry.actor in left and isinstance(entry.action, kind):
            found[entry.seq] = words
            left.discard(entry.actor)
    return found


def event_type(name: str) -> Callable[[dict], bool]:
    """A test of an encoded event's type, for a selfplay summary's counts."""
    return lambda event: event["type"] == name


@dataclass(frozen=True)
class ExampleOpening:
    """How a game is set up and started so that it waits on a player's move: its `/game new` options
    (beyond the game and the seed), then the commands, in order, each with the player who types it. The
    host (the first player named) makes the game; every cross-game suite, the bench and the tests start
    the game this way, so a game that brings one is covered by them all."""

    options: str    # what /game new takes besides ruleset: and seed: ("" for none)
    commands: tuple[tuple[str, str], ...]   # (player, command line), e.g. ("ann", "/game join car:brawler")
    maker: str = ""   # who makes the game when not the first player named (a game master who takes no seat)
    # What the opening's seated game master may rule at any time, privately (a suite tries them); () for none.
    gm_rulings: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        players = {player for player, _ in self.commands}
        if len(players) < 2 or self.commands[-1][1].strip() != "/game start":
            raise ValueError("an example opening seats two players or more and its last command starts the game")

    @property
    def host(self) -> str:
        """Who makes the game (and so may start it)."""
        return self.maker or self.commands[0][0]

    def new_game(self, ruleset_id: str, seed: int) -> str:
        """The /game new line of this opening with `seed`."""
        return " ".join(filter(None, (f"/game new ruleset:{ruleset_id} seed:{seed}", self.options)))

    def lines(self, ruleset_id: str, seed: int) -> list[tuple[str, str]]:
        """Every command of the opening, /game new first, each with the player who types it."""
        return [(self.host, self.new_game(ruleset_id, seed)), *self.commands]


class Ruleset(Referee, Generic[S]):
    """A game: a small core of pure functions over immutable state, and the capabilities it offers.

    A game is a subclass, registered as one instance (`RULESET`). It sets its identity (`id`, `title`,
    `state_type`, `actions`, `events`), its referee (`phases`, `handlers`: rules.referee.Referee, which
    applies every action, checks the turn, and derives `is_finished` from the phase table), its required
    `example` opening, and the core operations (`setup`, `legal_actions`, `view`, `describe`,
    `game_command`, `acting_players`, `prompt`, `turn_key`); instantiating one without them is a
    TypeError. Everything else has a default.

    A capability left at None (or empty) is one the game does not have; the shell then does not
    offer it (no computer seats, no deadline autopilot, no plans, no undo). Where a missing capability
    has a natural default, the shell asks these methods, never the attribute, and the default lives
    here: `suggestions` (what the legal actions use), `round_cap_of` (no cap), `turn_in_words` (told
    event by event), `is_computer` (nobody), `forced_action` (none).
    """

    id: str
    title: str
    state_type: type[S]
    actions: Registry
    events: Registry
    example: ExampleOpening   # required: how the game is set up and started (every cross-game suite uses it)
    # The game set up another way that matters to a suite (a seated game master): the suite testing that
    # plays the one it needs, where the game has one, and `example` otherwise.
    more_examples: tuple[ExampleOpening, ...] = ()
    grammar: Grammar = Grammar()  # the game's own commands and its /game new and /game join options
    # The newest rules revision. A new game stores it as its setup option "revision"; a game stored
    # without one is revision 1 and keeps replaying (and playing) exactly as it always did.
    revision: int = 1
    private_actions: bool = False  # legal actions show hidden things: offered only in private replies
    queries: Mapping[str, Callable[[S, str, dict[str, Any]], str]] = MappingProxyType({})  # by command
    # (state, player) -> what that player alone reads beside their private choices (their hand); None: nothing
    own_words: Callable[[S, str], str] | None = None
    computer: ComputerSeats | None = None
    autopilot: Autopilot | None = None
    orders: StandingOrders | None = None   # questions a player may answer in advance (/orders)
    plans: TurnPlans | None = None
    selfplay: SelfplaySetup | None = None
    # What of a running game's log a viewer may not see: every output of the log (export, log, pictures,
    # replay, alt text) goes through it. None: the log holds no secret.
    secrets: Secrets | None = None
    # A game that may seat a human game master (their private thread on Discord); None: it never does.
    game_master: GameMaster | None = None
    # Dice the log names by a word, not "2d6", with their faces (a die with faces of its own): what the
    # luck of a game's rolls is measured against.
    named_dice: Mapping[str, tuple[int, ...]] = MappingProxyType({})
    # How big the hit a logged event (as stored: a tagged dict) stands for, in the game's own measure, with
    # words for it, or None for an event that is no hit: the end-of-game summary names the biggest.
    hit_size: Callable[[dict], tuple[int, str] | None] | None = None
    # The seats of a finished game best-first, in groups of seats tied (rules.ranking), for the server's
    # rating: (final state, {seat id: the number of the action after which the seat left the game, for each
    # seat that left it before the end}) -> groups; () for an end with no result. None: never rated.
    final_order: Callable[[S, Mapping[str, int]], tuple[tuple[str, ...], ...]] | None = None
    # A finished game's review (/game review): its turning points from the re-run log, and each seat's
    # standing through the game in the game's own measure (rules.review); None: the game offers none.
    review: GameReview | None = None
    undo_blocker: Callable[[S, S], str | None] | None = None  # why (before -> after) cannot be taken back
    # (state, player, command, option, options chosen) -> (label, value) offers; None: what the legal
    # actions use now (suggest_legal)
    suggest: Callable[[S, str, str, str, dict[str, Any]], list[tuple[str, str]]] | None = None
    # A game with a round cap (`/game new rounds:N`, declared by ROUND_CAP among its new_options): the cap
    # a state was set up with (None: none set). None: the game has no round cap, and takes no rounds:.
    round_cap: Callable[[S], int | None] | None = None
    # (state, player) -> the action that plays itself for a person with no choice to make (a car with no
    # engine left setting its speed to 0), which the table takes and says so; None: the player has a choice
    forced: Callable[[S, str], Any] | None = None
    # Another seat's whole turn in a few words (its moves, shots, hits and damage), for the reply to the
    # player who acted before it; None: the turn is told event by event.
    turn_summary: Callable[[tuple], str] | None = None
    # How a snapshot stored under an earlier schema becomes today's (see rules.codec.SCHEMA_VERSION).
    snapshot_upgrades: Upgrades = MappingProxyType({})
    # (state) -> (seats taken, the most the table seats) in the lobby: what an open table's listing shows (/lfg);
    # None: the players seated, and no most known (a seat is taken as free)
    seat_limit: Callable[[S], tuple[int, int]] | None = None

    _REQUIRED = ("id", "title", "state_type", "actions", "events", "phases", "handlers", "example")

    def __init__(self) -> None:
        missing = [name for name in self._REQUIRED if not hasattr(self, name)]
        if missing:
            raise TypeError(f"{type(self).__name__} is no game without {', '.join(missing)}")
        if not isinstance(self.example, ExampleOpening):
            raise TypeError(f"{self.id}: its example is a rules.engine.ExampleOpening")
        if (ROUND_CAP in self.grammar.new_options) != (self.round_cap is not None):
            raise TypeError(f"{self.id}: a game with a round cap declares ROUND_CAP among its /game new options, "
                            f"and only such a game")
        self._check_referee()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.id}>"

    def variant(self, **changes: Any) -> Ruleset[S]:
        """This game with some of its attributes changed (a subclass's one instance), as tests build one; a
        function given stays a plain function (as `undo_blocker` is), never a method."""
        kept = {name: staticmethod(v) if isinstance(v, FunctionType) else v for name, v in changes.items()}
        return type(f"{type(self).__name__}Variant", (type(self),), kept)()

    # --- the core: what every game writes -------------------------------------------------------------

    @abstractmethod
    def setup(self, options: dict[str, Any], seed: int, host: str) -> S:
        """A new game in the lobby; `options` are its /game new options."""

    @abstractmethod
    def legal_actions(self, state: S, player: str) -> tuple[LegalAction, ...]:
        """What `player` may do now, each written as a command, with a label for its button."""

    @abstractmethod
    def view(self, state: S, viewer: str | None) -> S:
        """What a viewer may see: a player's id, or None for the channel."""

    @abstractmethod
    def describe(self, state: S) -> str:
        """The table in public words (alt text, logs)."""

    @abstractmethod
    def game_command(self, command: str, options: dict[str, Any]) -> Any:
        """One of the game's own typed commands (its joins and start included) as an action; BadOption
        for a command it does not have."""

    @abstractmethod
    def prompt(self, state: S) -> str:
        """What the game waits for, in one line."""

    @abstractmethod
    def turn_key(self, state: S) -> str:
        """A string that changes exactly when the turn passes to someone else."""

    def command_to_action(self, command: str, options: dict[str, Any]) -> Any:
        """A typed command as an action: the table's commands every game shares (ending, taking over, the
        seats) here, the game's own by `game_command`."""
        table = table_command_action(command, options)
        return table if table is not None else self.game_command(command, options)

    def computer_refuses(self, state: S, seat: str) -> str:
        """Why the computer cannot play a seat now, or "" when it can (from the game's computer seats)."""
        if self.computer is None:
            return "This game has no computer player."
        return self.computer.refuses(state, seat) if self.computer.refuses is not None else ""

    # --- what the shell asks, with the defaults of a missing capability ----------------------------

    def new_game_options(self, options: dict[str, Any]) -> dict[str, Any]:
        """The setup options a new game is stored with: `options` and today's rules revision (a game
        stored without one is revision 1, and keeps the rules it began under)."""
        return {**options, "revision": self.revision} if self.revision > 1 else dict(options)

    def load_state(self, text: str) -> S:
        """A stored snapshot of this game, whichever schema wrote it."""
        return decode_state(self.state_type, text, self.snapshot_upgrades)

    def normalised_snapshot(self, text: str) -> str:
        """A stored snapshot as it would be written today (what `/game verify` compares): brought up
        through the schema upgrades, and read back so a field added since takes its default."""
        return encode_state(decode_state(self.state_type, normalised_snapshot(text, self.snapshot_upgrades)))

    def is_computer(self, state: S, player: str) -> bool:
        """Whether a seat is played by the computer."""
        return self.computer is not None and self.computer.is_computer(state, player)

    def people_waited_on(self, state: S) -> tuple[str, ...]:
        """The players the game waits on now whose seats a person plays (not the computer)."""
        return tuple(p for p in self.acting_players(state) if not self.is_computer(state, p))

    def suggestions(self, state: S, player: str, command: str, option: str,
                    chosen: dict[str, Any]) -> list[tuple[str, str]]:
        """What to offer `player` typing `option` of `command`: the game's own suggestions, or by
        default the values some legal action uses now."""
        suggest = self.suggest if self.suggest is not None else suggest_legal(self.legal_actions)
        return suggest(state, player, command, option, chosen)

    def forced_action(self, state: S, player: str) -> Any:
        """The action that plays itself for `player` now (no choice to make), or None."""
        return self.forced(state, player) if self.forced is not None else None

    def round_cap_of(self, state: S) -> int | None:
        """The round after which the game is a draw, or None (no cap set, or no round cap at all)."""
        return self.round_cap(state) if self.round_cap is not None else None

    def seats_taken(self, state: S) -> tuple[int, int | None]:
        """Seats taken in the lobby, and the most the table seats (None: not known, a seat is taken as free)."""
        return self.seat_limit(state) if self.seat_limit is not None else (len(state.players), None)

    def turn_in_words(self, events: tuple) -> str:
        """A seat's whole turn summed up in a few words, or "" where the game tells it event by event."""
        return self.turn_summary(events) if self.turn_summary is not None else ""


def describe_events(events: tuple) -> str:
    """What one logged action did, in words: its events' descriptions in order."""
    return " ".join(e.describe() for e in events)


def parse_command(line: str) -> tuple[str, dict[str, str]]:
    """A legal action as written -> (command, options): '/verb a:1 b:x:2' -> ('verb', {'a': '1', 'b': 'x:2'});
    '/game join' -> ('game join', {})."""
    words = line.strip().removeprefix("/").split()
    name = [words.pop(0)]
    if name[0] == "game" and words and ":" not in words[0]:
        name.append(words.pop(0))
    options = {}
    for word in words:
        key, _sep, value = word.partition(":")
        options[key] = value
    return " ".join(name), options


def has_command(legal: Iterable[LegalAction], command: str) -> bool:
    """Whether one of these legal actions is sent as `command` (`/move ...` for "move")."""
    return any(parse_command(action.command)[0] == command for action in legal)


def suggest_legal(legal_actions: Callable[[Any, str], tuple[LegalAction, ...]]):
    """A `suggest` capability offering, for an option being typed, only the values some legal action
    uses now (and fits the options already chosen); a value only one action uses is labelled as that
    action's button is (with its odds, where the game gives them)."""
    def suggest(state: Any, player: str, command: str, option: str, chosen: dict[str, Any]) -> list[tuple[str, str]]:
        labels: dict[str, list[str]] = {}
        for legal in legal_actions(state, player):
            name, opts = parse_command(legal.command)
            if name != command or option not in opts:
                continue
            if any(k != option and str(v).lower() != opts.get(k, "").lower() for k, v in chosen.items() if v):
                continue
            labels.setdefault(opts[option], []).append(legal.label)
        return [(found[0] if len(found) == 1 else value, value) for value, found in labels.items()][:25]
    return suggest


def chosen_action(legal: tuple[LegalAction, ...], command: str | None) -> Any:
    """The action of the legal action written `command`: how a policy that picks among the written
    legal actions hands back a value. None for None; a pick that is not legal is a bug (ValueError)."""
    if command is None:
        return None
    for option in legal:
        if option.command == command:
            return option.action
    raise ValueError(f"{command!r} is not a legal action now")


def replay(ruleset: Ruleset, setup_options: dict[str, Any], seed: int, host: str,
           actions: list[tuple[str, Any]]) -> Any:
    """Rebuild a state from its setup and its action log (actor, action) in order."""
    return replay_states(ruleset, setup_options, seed, host, actions)[-1]


def replay_steps(ruleset: Ruleset, setup_options: dict[str, Any], seed: int, host: str,
                 actions: list[tuple[str, Any]]) -> Iterator[tuple[Any, tuple]]:
    """A game re-run step by step: the setup state with no events, then each logged action's state
    and events, in order."""
    state = ruleset.setup(setup_options, seed, host)
    yield state, ()
    for actor, action in actions:
        state, events = ruleset.apply(state, actor, action)
        yield state, events


def replay_states(ruleset: Ruleset, setup_options: dict[str, Any], seed: int, host: str,
                  actions: list[tuple[str, Any]]) -> list[Any]:
    """Every state of a game: the setup, then the state after each logged action."""
    return [state for state, _ in replay_steps(ruleset, setup_options, seed, host, actions)]


def replay_with_events(ruleset: Ruleset, setup_options: dict[str, Any], seed: int, host: str,
                       actions: list[tuple[str, Any]]) -> tuple[Any, Any, list[tuple]]:
    """The setup state, the final state, and the events of each logged action in order.

    A refused action raises ReplayRefused naming its position only: the rules' own message is
    written for the player who acted then, and may show what only they could see.
    """
    steps = replay_steps(ruleset, setup_options, seed, host, actions)
    first, _ = next(steps)
    state, events = first, []
    try:
        for state, happened in steps:  # noqa: B007 - the last state is the one returned
            events.append(happened)
    except (GameError, TypeError, ValueError, AttributeError, LookupError):  # an imported log may be hostile
        raise ReplayRefused(len(events) + 1) from None
    return first, state, events
