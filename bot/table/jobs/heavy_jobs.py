"""The long jobs that re-run or rewrite a whole game log, as functions of plain data.

Each takes what can cross to a worker process cheaply (a ruleset id, a GameRecord, the log as
(seq, actor, action, events) tuples: 10,000 of them pickle in ~2 ms, as dataclasses in ~16) and
returns plain data, so `bot.table.jobs.heavy` can run it on a thread or in a process alike. Everything a
job does that holds the GIL for long (re-running the rules, json of a whole log, GIF encoding) then
happens away from the event loop's interpreter.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import pickle
from collections.abc import Iterator
from typing import Any

from bot.storage.store import ActionRecord, GameRecord
from bot.table.jobs.replays import turn_frames
from bot.table.trust import export
from bot.table.trust.branches import lines_before_rollbacks
from bot.table.trust.importer import BadImport, ImportedLog, read_export
from bot.table.trust.seen import SeenAction, seen_log
from images.replay import render_replay
from rules.codec import decode_tagged, dumps, encode_state, encode_tagged
from rules.engine import ReplayRefused, Ruleset, replay_steps, replay_with_events
from rules.errors import GameError
from rules.registry import get_ruleset

LogRows = list[tuple[int, str, str, str]]
PACKED_ROWS = 1_000   # rows a log is pickled by, one slice a step of the event loop


def log_rows(records: list[ActionRecord]) -> LogRows:
    """A log as the tuples the jobs take, without each action's events: they are most of a log's bytes
    (pickled on the event loop), and re-running the log makes them anew."""
    return [(r.seq, r.actor, r.action, "") for r in records]


@dataclasses.dataclass(frozen=True)
class PackedLog:
    """A log's rows (log_rows) already pickled, a slice at a time: sent to a worker process, it is bytes
    to copy, where pickling a 10,000-action log in one piece held the event loop ~20 ms (issue 39)."""

    slices: tuple[bytes, ...]

    def rows(self) -> LogRows:
        return [row for piece in self.slices for row in pickle.loads(piece)]


async def packed_log(records: list[ActionRecord]) -> PackedLog:
    """`records` as a PackedLog, letting the event loop run between its slices."""
    slices = []
    for first in range(0, len(records), PACKED_ROWS):
        slices.append(pickle.dumps(log_rows(records[first:first + PACKED_ROWS]), pickle.HIGHEST_PROTOCOL))
        await asyncio.sleep(0)
    return PackedLog(tuple(slices))


Log = LogRows | PackedLog   # what a job takes for a game's log


def _records(rows: Log) -> list[ActionRecord]:
    return [ActionRecord(*row) for row in (rows.rows() if isinstance(rows, PackedLog) else rows)]


def _steps(ruleset: Ruleset, game: GameRecord, records: list[ActionRecord]) -> Iterator[tuple[Any, tuple]]:
    entries = [(r.actor, decode_tagged(ruleset.actions, json.loads(r.action))) for r in records]
    return replay_steps(ruleset, json.loads(game.options), game.seed, game.host, entries)


def replayed_states(ruleset: Ruleset, game: GameRecord, records: list[ActionRecord]) -> list[Any]:
    """Every state of a game re-run from its seed: the setup, then the state after each logged action."""
    return [state for state, _ in _steps(ruleset, game, records)]


def rebuilt_snapshot(ruleset_id: str, game: GameRecord, rows: Log) -> str:
    """The snapshot that re-running the log from the game's seed gives."""
    ruleset = get_ruleset(ruleset_id)
    return encode_state(replayed_states(ruleset, game, _records(rows))[-1])


def snapshot_matches(ruleset_id: str, game: GameRecord, rows: Log) -> bool:
    """Whether re-running the log rebuilds the stored snapshot exactly (a snapshot written under an
    earlier schema is compared as it would be written today)."""
    return rebuilt_snapshot(ruleset_id, game, rows) == get_ruleset(ruleset_id).normalised_snapshot(game.state)


def seen_set_aside(ruleset: Ruleset, game: GameRecord, records: list[ActionRecord],
                   set_aside: dict[int, list[ActionRecord]], viewer: str) -> dict[int, list[SeenAction]]:
    """What `viewer` may see of each rollback's set-aside actions, judged as of the end of the line they were
    on: a secret the table rolled back stays as secret as it was then (a finished game hides nothing)."""
    state = ruleset.load_state(game.state)
    if ruleset.secrets is None or ruleset.is_finished(state):
        return {k: seen_log(ruleset, state, rows, viewer) for k, rows in set_aside.items()}
    first = {k: rows[0].seq for k, rows in set_aside.items()}
    seen: dict[int, list[SeenAction]] = {}
    for rollback, line in lines_before_rollbacks(records, set_aside, first).items():
        end = replayed_states(ruleset, game, line)[-1]
        seen[rollback] = [s for s in seen_log(ruleset, end, line, viewer) if s.record.seq >= first[rollback]]
    return seen


def set_aside_page(ruleset_id: str, game: GameRecord, rows: Log, set_aside: dict[int, LogRows], viewer: str,
                   rollback: int) -> list[SeenAction]:
    """The actions rollback `rollback` set aside, as `viewer` may see them (see seen_set_aside)."""
    aside = {k: _records(v) for k, v in set_aside.items() if k >= rollback}
    return seen_set_aside(get_ruleset(ruleset_id), game, _records(rows), aside, viewer)[rollback]


def set_aside_replays(ruleset_id: str, game: GameRecord, rows: Log, set_aside: dict[int, LogRows],
                      line_ends: dict[int, str]) -> bool:
    """Whether every line the game was rolled back from re-runs from the seed to the snapshot the game had
    when the rollback set it aside (`rows` is the live log; a snapshot written under an earlier schema is
    compared as it would be written today)."""
    ruleset = get_ruleset(ruleset_id)
    first = {k: aside[0][0] for k, aside in set_aside.items()}
    if set(line_ends) != set(set_aside):
        return False
    try:
        lines = lines_before_rollbacks(_records(rows), {k: _records(v) for k, v in set_aside.items()}, first)
        return all(encode_state(replayed_states(ruleset, game, line)[-1]) == ruleset.normalised_snapshot(line_ends[k])
                   for k, line in lines.items())
    except (GameError, ValueError, LookupError, TypeError, AttributeError):
        return False


def replay_gif(ruleset_id: str, game: GameRecord, rows: Log) -> bytes:
    """The game's animated GIF, one frame a turn. ValueError when it cannot be drawn. Each action's
    events are made again by re-running it (the log's own need not be sent here)."""
    ruleset = get_ruleset(ruleset_id)
    records = _records(rows)
    states, events = zip(*_steps(ruleset, game, records))
    # The GIF is posted to the channel: an action the channel may not learn of is left out, as if it had
    # not been taken (its effects show once a public action makes them public).
    public = {s.record.seq for s in seen_log(ruleset, states[-1], records, None)}
    kept = [(dataclasses.replace(record, events=dumps([encode_tagged(e) for e in happened])), state)
            for record, happened, state in zip(records, events[1:], states[1:]) if record.seq in public]
    frames = turn_frames(ruleset, game.host, [states[0]] + [state for _, state in kept], [r for r, _ in kept])
    return render_replay(ruleset_id, frames)[0]


def export_file(ruleset_id: str, game: GameRecord, rows: Log, viewer: str, set_aside: dict[int, LogRows]):
    """The /game export reply for `viewer` (its JSON file made here), with what each rollback set aside."""
    ruleset, records = get_ruleset(ruleset_id), _records(rows)
    aside = seen_set_aside(ruleset, game, records, {k: _records(v) for k, v in set_aside.items()}, viewer)
    return export.export(ruleset, game, records, viewer, aside)


def read_import(data: bytes) -> ImportedLog:
    """An uploaded export checked against its schema, without its decoded actions (a re-play import
    reads the file again in `replay_import`, so 10,000 decoded actions never cross processes)."""
    return dataclasses.replace(read_export(data), actions=[])


def replay_import(data: bytes) -> tuple[str, str, list[tuple[str, str, str]], bool]:
    """Re-run an exported log: the setup snapshot, the final one, each action as it is stored (actor,
    action JSON, events JSON), and whether the game ended. BadImport when the rules refuse an action."""
    log_ = read_export(data)
    if log_.seed is None:
        raise BadImport("That log has no seed: only a finished game's export can be re-played.")
    try:
        first, state, events = replay_with_events(log_.ruleset, log_.options, log_.seed, log_.host, log_.actions)
    except ReplayRefused as exc:
        raise BadImport(f"The game log does not replay: {exc.message}.") from None
    entries = [(actor, dumps(encode_tagged(action)), dumps([encode_tagged(e) for e in happened]))
               for (actor, action), happened in zip(log_.actions, events)]
    return encode_state(first), encode_state(state), entries, log_.ruleset.is_finished(state)


def replay_set_aside(data: bytes) -> tuple[dict[int, LogRows], dict[int, str]]:
    """Re-run the lines an exported game was rolled back from: what each rollback set aside, as stored rows
    with their events, and the snapshot each line ends at. BadImport when a line does not replay."""
    log_ = read_export(data)
    if not log_.set_aside or log_.seed is None:
        return {}, {}
    live = list(log_.actions)
    aside = {k: actions for k, (_, actions) in log_.set_aside.items()}
    first = {k: seq for k, (seq, _) in log_.set_aside.items()}
    try:
        lines = lines_before_rollbacks(live, aside, first)
    except ValueError:
        raise BadImport("The game log is damaged: a rollback's set-aside actions do not follow its line.") from None
    stored: dict[int, LogRows] = {}
    ends: dict[int, str] = {}
    for rollback, line in lines.items():
        try:
            _, end, events = replay_with_events(log_.ruleset, log_.options, log_.seed, log_.host, line)
        except ReplayRefused as exc:
            raise BadImport(f"The actions set aside by rollback {rollback} do not replay: {exc.message}.") from None
        stored[rollback] = [(seq, actor, dumps(encode_tagged(action)), dumps([encode_tagged(e) for e in happened]))
                            for seq, ((actor, action), happened) in enumerate(zip(line, events), start=1)
                            if seq >= first[rollback]]
        ends[rollback] = encode_state(end)
    return stored, ends


def seat_ids(state: Any) -> tuple[str, ...]:
    """The ids of everyone seated at a game."""
    return tuple(p.id for p in state.players)


def seats_of(games: list[GameRecord]) -> list[tuple[int, tuple[str, ...]]]:
    """Who sits at each game (for the seats index), read from the snapshots."""
    return [(game.id, seat_ids(get_ruleset(game.ruleset).load_state(game.state))) for game in games]
