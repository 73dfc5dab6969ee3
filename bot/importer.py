"""Reading an exported game log back: size-limited, validated, replayed in full before anything is stored."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from bot.commitment import MAX_SEED, commitment
from bot.queries import EXPORT_FORMAT
from rules.codec import CodecError, decode_tagged
from rules.engine import Ruleset, get_ruleset, ruleset_ids
from rules.errors import GameError

MAX_IMPORT_BYTES = 2_000_000
MAX_IMPORT_ACTIONS = 50_000


class BadImport(GameError):
    """The file is not a Pitboss game log this bot can continue."""


@dataclass(frozen=True)
class ImportedLog:
    """A checked export: the setup, the seed (when known) and the decoded actions."""

    ruleset: Ruleset
    source_game: int
    host: str
    options: dict[str, Any]
    seed_commitment: str
    seed: int | None
    actions: list[tuple[str, Any]]


def read_export(data: bytes) -> ImportedLog:
    """Parse and check an export; every failure is a short refusal."""
    if len(data) > MAX_IMPORT_BYTES:
        raise BadImport(f"That file is too big for a game log ({len(data)} bytes; the limit is {MAX_IMPORT_BYTES}).")
    try:
        document = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise BadImport("That file is not JSON: attach a file made by /game export.") from None
    if not isinstance(document, dict) or document.get("format") != EXPORT_FORMAT:
        raise BadImport("That file is not a Pitboss game log made by /game export.")
    if document.get("format_version") != 1 or document.get("ruleset") not in ruleset_ids():
        raise BadImport("That game log is from a version or a game this bot does not know.")
    ruleset = get_ruleset(document["ruleset"])
    raw_actions = document.get("actions")
    if not isinstance(raw_actions, list) or len(raw_actions) > MAX_IMPORT_ACTIONS:
        raise BadImport("The game log has no readable list of actions.")
    actions = []
    try:
        for entry in raw_actions:
            actions.append((str(entry["actor"])[:64], decode_tagged(ruleset.actions, entry["action"])))
        seed = document.get("seed")
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < MAX_SEED):
            raise BadImport("The seed in that log is not a valid seed.")
        if seed is not None and commitment(seed) != document.get("seed_commitment"):
            raise BadImport("The seed in that log does not match its commitment: it was edited.")
        return ImportedLog(ruleset, int(document["game_id"]), str(document["host"])[:64],
                           dict(document.get("options") or {}), str(document["seed_commitment"]), seed, actions)
    except (KeyError, TypeError, ValueError, CodecError):
        raise BadImport("The game log is damaged: an entry is missing or malformed.") from None
