"""Read-only table commands: the log, an export, the games a player is in, verification."""

from __future__ import annotations

import json
from typing import Any

from bot.storage.store import ActionRecord, GameRecord
from bot.table.commitment import commitment, reveal
from bot.table.replies import MESSAGE_LIMIT, Attachment, Reply, clip
from rules.codec import decode_tagged
from rules.engine import Ruleset, describe_events

EXPORT_FORMAT = "pitboss-game-log"
DEFAULT_LOG_COUNT = 10


def events_of(ruleset: Ruleset, record: ActionRecord) -> tuple:
    """The events a logged action produced, as the game's event values."""
    return tuple(decode_tagged(ruleset.events, e) for e in json.loads(record.events))


def log_count(command) -> int:
    """How many recent actions /game log shows."""
    return command.options.get("count") or DEFAULT_LOG_COUNT


def game_log(ruleset: Ruleset, records: list[ActionRecord], count: int | None, before: int | None = None) -> Reply:
    """The most recent actions' events (those before #`before`, when paging back), dice included,
    privately. What does not fit in one message is left to the next page, which the reply names."""
    count = count or DEFAULT_LOG_COUNT
    records = records[-count:]
    if not records:
        text = "Nothing has happened in this game yet." if before is None else f"Nothing is logged before #{before}."
        return Reply("shown", text, ephemeral=True)
    lines = [f"#{r.seq} " + describe_events(events_of(ruleset, r)) for r in records]
    footer_room = 80
    shown: list[str] = []
    for line in reversed(lines):    # the newest first, as many whole lines as fit
        if sum(len(x) + 1 for x in shown) + len(line) + 1 > MESSAGE_LIMIT - footer_room and shown:
            break
        shown.insert(0, clip(line, MESSAGE_LIMIT - footer_room))
    oldest = records[len(records) - len(shown)].seq
    text = "\n".join(shown)
    if oldest > 1:
        text += f"\nEarlier: /game log before:{oldest}"
    return Reply("shown", text, ephemeral=True)


def export(ruleset: Ruleset, game: GameRecord, records: list[ActionRecord], finished: bool) -> Reply:
    """The action log as JSON. The dice seed is included only once the game is over, and a running
    game's last actions are left out while they are still secret (declared, not yet revealed)."""
    secret = 0
    if not finished and ruleset.secret_tail is not None:
        secret = ruleset.secret_tail(ruleset.load_state(game.state))
        records = records[:len(records) - secret]
    document: dict[str, Any] = {
        "format": EXPORT_FORMAT, "format_version": 1, "game_id": game.id, "ruleset": game.ruleset,
        "host": game.host, "options": json.loads(game.options), "seed_commitment": commitment(game.seed),
        "status": game.status, "version": game.version,
        "actions": [{"seq": r.seq, "actor": r.actor, "action": json.loads(r.action)} for r in records],
    }
    if finished:
        document["seed"] = game.seed
    # Compact, so the longest game's export stays well inside what /game import reads back.
    data = json.dumps(document, separators=(",", ":"), sort_keys=True).encode()
    note = "" if finished else " The dice seed stays secret until the game ends."
    if secret:
        note += f" The last {secret} actions are secret until they are revealed, and left out."
    return Reply("shown", f"The log of game {game.id}: {len(records)} actions.{note}", ephemeral=True,
                 files=(Attachment(f"pitboss-game-{game.id}.json", data, "Game log (JSON)"),))


def games_of(player_id: str, games: list[GameRecord], rulesets: dict[str, Ruleset]) -> Reply:
    """The running games on this server that a player sits in, with whose turn it is."""
    lines = []
    for game in games:
        ruleset = rulesets[game.ruleset]
        state = ruleset.load_state(game.state)
        if state.player(player_id) is None:
            continue
        waiting = ruleset.acting_players(state)
        mine = " — your turn!" if player_id in waiting else ""
        lines.append(f"<#{game.channel}> {ruleset.title}: {clip(ruleset.prompt(state), 150)}{mine}")
    text = "\n".join(lines) if lines else "You are not playing in any running game on this server."
    return Reply("shown", clip(text, MESSAGE_LIMIT), ephemeral=True)


def verification(game: GameRecord, replays: bool, finished: bool) -> Reply:
    """Whether every roll re-runs to the stored game, and the revealed seed once it is over."""
    if not replays:
        return Reply("shown", f"Game {game.id} does NOT replay to its stored state: please report this.",
                     ephemeral=True)
    text = f"Game {game.id}: replaying all {game.version} changes from the seed rebuilds the table exactly."
    if finished:
        text += " " + reveal(game.seed)
    else:
        text += f" The seed stays secret until the end (commitment sha256 {commitment(game.seed)[:16]}…)."
    return Reply("shown", text, ephemeral=True)
