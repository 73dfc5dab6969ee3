"""A game's log outside the service: the events a logged action produced, and the export file a viewer
is given (its format is what bot.table.trust.importer reads back)."""

from __future__ import annotations

import json
from typing import Any

from bot.storage.store import ActionRecord, GameRecord
from bot.table.protocol.replies import Attachment, Reply
from bot.table.trust.commitment import commitment
from bot.table.trust.seen import WITHHELD, SeenAction, hides_whole_actions, seen_log
from rules.codec import decode_tagged
from rules.engine import Ruleset

EXPORT_FORMAT = "pitboss-game-log"


def events_of(ruleset: Ruleset, record: ActionRecord) -> tuple:
    """The events a logged action produced, as the game's event values."""
    return tuple(decode_tagged(ruleset.events, e) for e in json.loads(record.events))


def export(ruleset: Ruleset, game: GameRecord, records: list[ActionRecord], viewer: str,
           set_aside: dict[int, list[SeenAction]] | None = None) -> Reply:
    """The action log as `viewer` may see it, as JSON, with the actions each rollback set aside. The dice
    seed is included only once the game is over; until then an action the viewer may not read is written
    as a stand-in (its number and actor kept), and one they may not know of is left out (see
    bot.table.trust.seen)."""
    state = ruleset.load_state(game.state)
    finished = ruleset.is_finished(state)
    seen = seen_log(ruleset, state, records, viewer)
    aside = [{"rollback": k, "actions": [{"seq": s.number, "actor": s.record.actor, "action": s.action_json()}
                                         for s in seen]} for k, seen in sorted((set_aside or {}).items())]
    document: dict[str, Any] = {
        "format": EXPORT_FORMAT, "format_version": 1, "game_id": game.id, "ruleset": game.ruleset,
        "host": game.host, "options": json.loads(game.options), "seed_commitment": commitment(game.seed),
        "status": game.status, "version": len(seen) if hides_whole_actions(ruleset, state) else game.version,
        "actions": [{"seq": s.number, "actor": s.record.actor, "action": s.action_json()} for s in seen],
    }
    if aside:
        document["set_aside"] = aside
    if finished and game.status == "finished":
        document["seed"] = game.seed
    # Compact, so the longest game's export stays well inside what /game import reads back.
    data = json.dumps(document, separators=(",", ":"), sort_keys=True).encode()
    note = "" if "seed" in document else " The dice seed stays secret until the game ends."
    if any(s.stand_in is not None for s in seen):
        note += f" What is still secret to you is written as \"{WITHHELD}\"."
    return Reply("shown", f"The log of game {game.id}: {len(seen)} actions.{note}", ephemeral=True,
                 files=(Attachment(f"pitboss-game-{game.id}.json", data, "Game log (JSON)"),))
