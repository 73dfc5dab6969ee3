"""Reading an exported game log back: size-limited, checked field by field against the export's
schema before anything else, with every name cleaned as at any other door."""

from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import dataclass
from typing import Any, TypeGuard

from bot.table.protocol.commands import Command, CommandSyntaxError, for_game, foreign_to
from bot.table.trust.branches import MAX_ROLLBACKS, lines_before_rollbacks, unaccounted
from bot.table.trust.commitment import MAX_SEED, commitment
from bot.table.trust.export import EXPORT_FORMAT
from bot.table.trust.guards import COMPUTER_ID_PREFIX, plain_name, valid_actor_id
from bot.table.trust.seen import WITHHELD
from rules.codec import decode_tagged
from rules.engine import Ruleset
from rules.errors import GameError
from rules.registry import get_ruleset, ruleset_ids
from rules.table import HOST_NAME, OfferSeat, Rollback

# An export is attached by the bot itself, under Discord's 10 MiB upload limit: a file this size holds
# a log far longer than any game reaches (~90 bytes an action, compact).
MAX_IMPORT_BYTES = 8_000_000
IMPORT_BYTES_PER_ACTION = 60   # at least, in an export: how many actions a file of so many bytes may hold
# A re-play re-runs every action. Selfplay's longest games (60 rounds, two cars) log about 950 actions;
# ten times that keeps the heaviest re-play allowed to about a second and a half of one core.
MAX_REPLAY_ACTIONS = 10_000
MAX_NUMBER_DIGITS = 20  # game ids and seeds fit in 19 digits; longer numbers are refused while parsing
_COMMITMENT = re.compile(r"[0-9a-f]{64}")
_SETUP_KEYS = ("ruleset", "seed")  # /game new options that are not setup options
_WHERE_KEYS = ("thread", "public")  # /game new's choices of where it is played, never stored with a game
_TAKES_A_SEAT = ("Join", "TakeSeat")   # the table's actions whose actor takes a seat: a person


class BadImport(GameError):
    """The file is not a Pitboss game log this bot can continue."""


@dataclass(frozen=True)
class ImportedLog:
    """A checked export: the setup, the seed (when known) and the decoded actions."""

    ruleset_id: str    # the id, not the Ruleset: a log read in a worker process comes back pickled
    source_game: int
    host: str
    options: dict[str, Any]
    seed_commitment: str
    seed: int | None
    actions: list[tuple[str, Any]]  # decoded only for a re-play within MAX_REPLAY_ACTIONS
    action_count: int = 0
    # what each rollback set aside: its first action's number and its actions, decoded as `actions` are
    set_aside: dict[int, tuple[int, list[tuple[str, Any]]]] = dataclasses.field(default_factory=dict)

    @property
    def ruleset(self) -> Ruleset:
        return get_ruleset(self.ruleset_id)


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not a number")


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_NUMBER_DIGITS:
        raise ValueError("number too long")
    return int(text)


def _parse(data: bytes) -> dict:
    if len(data) > MAX_IMPORT_BYTES:
        raise BadImport(f"That file is too big for a game log ({len(data)} bytes; the limit is {MAX_IMPORT_BYTES}).")
    try:
        document = json.loads(data.decode("utf-8"), parse_constant=_reject_constant, parse_int=_bounded_int)
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise BadImport("That file is not a readable JSON game log: attach a file made by /game export.") from None
    if not isinstance(document, dict) or document.get("format") != EXPORT_FORMAT:
        raise BadImport("That file is not a Pitboss game log made by /game export.")
    if document.get("format_version") != 1 or document.get("ruleset") not in ruleset_ids():
        raise BadImport("That game log is from a version or a game this bot does not know.")
    return document


def _damaged(what: str) -> BadImport:
    return BadImport(f"The game log is damaged: {what}.")


def _whole_number(value: Any, low: int, high: int) -> TypeGuard[int]:
    """Whether a decoded JSON value is an int (not a bool) in [low, high)."""
    return isinstance(value, int) and not isinstance(value, bool) and low <= value < high


def _actor(value: Any, where: str) -> str:
    if not isinstance(value, str) or not valid_actor_id(value):
        raise _damaged(f"{where} is not a player id")
    return value


def _person(value: Any, where: str) -> str:
    """A person's id (a host, who takes a seat, who is offered one): as the live doors take it, never a computer
    seat's (ai-N), which the table makes itself."""
    person = _actor(value, where)
    if person.startswith(COMPUTER_ID_PREFIX):
        raise _damaged(f"{where} is a computer seat's id, not a person's")
    return person


def _options(ruleset: Ruleset, raw: Any) -> dict[str, Any]:
    """The setup options, checked exactly as /game new checks them when typed."""
    if not isinstance(raw, dict):
        raise _damaged("the options are not a table of settings")
    options = dict(raw)
    revision = options.pop("revision", None)
    if revision is not None and not _whole_number(revision, 1, ruleset.revision + 1):
        raise _damaged("the rules revision is not one this bot knows")
    host_name = options.pop(HOST_NAME, None)
    if host_name is not None and (ruleset.game_master is None or not isinstance(host_name, str)):
        raise _damaged("the host's name is not one this game keeps")
    if any(not isinstance(v, (str, int)) or isinstance(v, bool) for v in options.values()) or \
            any(key in _SETUP_KEYS for key in options):
        raise _damaged("an option has a value of the wrong kind")
    if any(key in _WHERE_KEYS for key in options):
        raise _damaged("thread: and public: say where /game new opens a game; a game's file never holds them")
    new_game = Command("game new", {"ruleset": ruleset.id, **options})
    if foreign_to(ruleset, new_game):
        raise _damaged(f"an option is not one of {ruleset.title}'s")
    try:
        typed = for_game(ruleset, new_game).options
    except CommandSyntaxError as exc:
        raise _damaged(f"an option is not valid ({exc})") from None
    typed = {k: v for k, v in typed.items() if k not in _SETUP_KEYS}
    if host_name is not None:
        typed[HOST_NAME] = plain_name(host_name)
    return typed if revision is None else {**typed, "revision": revision}


def _cleaned(action: Any) -> Any:
    """An action with any player name in it cleaned as a Discord display name is."""
    name = getattr(action, "name", None)
    if dataclasses.is_dataclass(action) and not isinstance(action, type) and isinstance(name, str):
        return dataclasses.replace(action, name=plain_name(name))
    return action


def _actions(ruleset: Ruleset, raw: list) -> list[tuple[str, Any]]:
    actions = []
    for number, entry in enumerate(raw, start=1):
        if not isinstance(entry, dict) or not isinstance(entry.get("action"), dict):
            raise _damaged(f"action #{number} is malformed")
        if entry["action"].get("type") == WITHHELD:
            raise BadImport(f"That export withholds action #{number} from whoever made it (a secret of another "
                            f"player's, such as a GM's note): only an export that shows every action can be "
                            f"re-played, such as the game master's.")
        seated = entry["action"].get("type") in _TAKES_A_SEAT
        actor = (_person if seated else _actor)(entry.get("actor"), f"the actor of action #{number}")
        try:
            action = decode_tagged(ruleset.actions, entry["action"])
        except Exception:  # noqa: BLE001 - any failure to decode a hostile entry is the same refusal
            raise _damaged(f"action #{number} is malformed") from None
        if isinstance(action, OfferSeat):   # `to` is shown as a member (a mention): the live door's check
            _person(action.to, f"the member action #{number} offers a seat to")
        actions.append((actor, _cleaned(action)))
    return actions


def read_export(data: bytes) -> ImportedLog:
    """Parse and check an export against its schema; every failure is a short refusal."""
    document = _parse(data)
    ruleset = get_ruleset(document["ruleset"])
    game_id = document.get("game_id")
    if not _whole_number(game_id, 1, MAX_SEED):
        raise _damaged("the game id is not a valid id")
    host = _person(document.get("host"), "the host")
    seed_commitment = document.get("seed_commitment")
    if not isinstance(seed_commitment, str) or not _COMMITMENT.fullmatch(seed_commitment):
        raise _damaged("the dice commitment is not a sha256 hash")
    seed = document.get("seed")
    if seed is not None and not _whole_number(seed, 0, MAX_SEED):
        raise BadImport("The seed in that log is not a valid seed.")
    if seed is not None and commitment(seed) != seed_commitment:
        raise BadImport("The seed in that log does not match its commitment: it was edited.")
    options = _options(ruleset, document.get("options") or {})
    raw_actions = document.get("actions")
    if not isinstance(raw_actions, list):
        raise _damaged("it has no list of actions")
    # A running game's log is only a ticket (the move copies the stored log), and so is a log too
    # long to re-play (only a copy of a game this bot holds can come of it): neither is decoded.
    raw_aside = document.get("set_aside", [])
    if not isinstance(raw_aside, list) or len(raw_aside) > MAX_ROLLBACKS:
        raise _damaged("its set-aside actions are not a short list")
    count = len(raw_actions) + sum(len(a["actions"]) for a in raw_aside
                                   if isinstance(a, dict) and isinstance(a.get("actions"), list))
    replayable = seed is not None and count <= MAX_REPLAY_ACTIONS
    actions = _actions(ruleset, raw_actions) if replayable else []
    numbers = [entry.get("rollback") if isinstance(entry, dict) else None for entry in raw_aside]
    if len(set(map(str, numbers))) != len(numbers):
        raise _damaged("a rollback's set-aside actions appear twice")
    set_aside = dict(_set_aside(ruleset, entry) for entry in raw_aside) if replayable else {}
    if set_aside:
        _accounted(actions, set_aside)
    return ImportedLog(ruleset.id, game_id, host, options, seed_commitment, seed, actions, count, set_aside)


def _accounted(actions: list[tuple[str, Any]], set_aside: dict[int, tuple[int, list[tuple[str, Any]]]]) -> None:
    """Refuse set-aside actions the log's own rollbacks do not account for (each re-run costs a whole line)."""
    try:
        lines = lines_before_rollbacks(actions, {k: a for k, (_, a) in set_aside.items()},
                                       {k: seq for k, (seq, _) in set_aside.items()})
    except ValueError:
        raise _damaged("a rollback's set-aside actions do not follow its line") from None
    why = unaccounted(actions, lines, {k: seq for k, (seq, _) in set_aside.items()},
                      lambda row: row[1].branch if isinstance(row[1], Rollback) else None)
    if why:
        raise _damaged(why)


def _set_aside(ruleset: Ruleset, entry: Any) -> tuple[int, tuple[int, list[tuple[str, Any]]]]:
    """One rollback's set-aside actions in an export: its number, its first action's number, the actions."""
    if not isinstance(entry, dict) or not _whole_number(entry.get("rollback"), 1, MAX_ROLLBACKS + 1) \
            or not isinstance(entry.get("actions"), list) or not entry["actions"]:
        raise _damaged("a rollback's set-aside actions are malformed")
    first = entry["actions"][0].get("seq") if isinstance(entry["actions"][0], dict) else None
    if not _whole_number(first, 1, MAX_REPLAY_ACTIONS + 1):
        raise _damaged("a rollback's set-aside actions are not numbered")
    return entry["rollback"], (first, _actions(ruleset, entry["actions"]))
