"""What a finished game gives the server's rating, re-run from its log off the event loop: the seats'
rank order (the game's `final_order`, told when each seat left the game) and each seat's turns, counted
apart by who played them (the seat's own member, or the autopilot at a deadline, or the computer)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from bot.storage.store import GameRecord
from bot.table.jobs.heavy_jobs import PackedLog
from rules.codec import decode_tagged
from rules.engine import replay_steps
from rules.registry import get_ruleset
from rules.table import TablePhase, born_computer

Row = tuple[int, str, str, str]   # (seq, actor, action, "A" where the autopilot played it) (ratings.rating_log)


@dataclass
class Turns:
    """A seat's turns: each a run of its actions in the log unbroken by another seat's; `own` those in which
    its holder at the end played an action themselves (not the autopilot, not the computer)."""

    own: int = 0
    total: int = 0


@dataclass(frozen=True)
class RatingInput:
    """A finished game as the rating reads it: its seats best-first in groups of ties (() when its end gives no
    result, or the game is never rated), and each seat's turns, by the seat's player id at the end."""

    order: tuple[tuple[str, ...], ...]
    turns: dict[str, Turns] = field(default_factory=dict)
    people: tuple[str, ...] = ()   # the seats a member plays (no computer's, no seated game master's)
    starters: dict[str, str] = field(default_factory=dict)   # each seat's player id at the end -> at the start


def rating_input(ruleset_id: str, game: GameRecord, log: list[Row] | PackedLog) -> RatingInput:
    """Re-run `game` from its seed and log: when each seat left the game (the first state after the start the
    game no longer counts it among those still in), its final order, and its turns."""
    ruleset = get_ruleset(ruleset_id)
    rows = log.rows() if isinstance(log, PackedLog) else log
    entries = [(actor, decode_tagged(ruleset.actions, json.loads(action))) for _seq, actor, action, _events in rows]
    steps = replay_steps(ruleset, json.loads(game.options), game.seed, game.host, entries)
    before, _ = next(steps)
    left_at: dict[int, int] = {}   # seat index -> the number of the action after which it left
    starters: tuple[str, ...] = ()   # each seat's player id in the first state after the start
    counted: list[tuple[int, str]] = []   # (seat index, who played it: the actor, or "" for the table) a move
    for number, ((actor, action), (state, _events), row) in enumerate(zip(entries, steps, rows, strict=True), 1):
        if state.phase != TablePhase.LOBBY and not starters:
            starters = tuple(p.id for p in state.players)
        if before.phase != TablePhase.LOBBY:
            index = next((i for i, p in enumerate(before.players) if p.id == actor), None)
            if index is not None and type(action) in ruleset.handlers:
                by_person = not before.players[index].ai and not row[3]
                counted.append((index, actor if by_person else ""))
            if state.phase != TablePhase.LOBBY:
                still = set(ruleset.still_in(state))
                for i, seat in enumerate(state.players):
                    if seat.id not in still and i not in left_at:
                        left_at[i] = number
        before = state
    final = before
    if ruleset.final_order is None or not ruleset.is_finished(final):   # a record a move retired is no end
        return RatingInput(())
    still_at_end = set(ruleset.still_in(final))
    left = {final.players[i].id: n for i, n in left_at.items() if final.players[i].id not in still_at_end}
    master = ruleset.game_master.seat(final) if ruleset.game_master is not None else None
    people = tuple(p.id for p in final.players if not born_computer(p.id) and p.id != master)
    return RatingInput(ruleset.final_order(final, left), seat_turns(final, counted), people,
                       {seat.id: first for seat, first in zip(final.players, starters, strict=False)})


def seat_turns(final: Any, counted: list[tuple[int, str]]) -> dict[str, Turns]:
    """Each seat's turns, by its id at the end (`counted`: each of the game's moves, by seat index, with who
    played it): a turn is its member's own when they played any of its actions themselves; one its earlier
    holder played, or the table, is not."""
    turns = {seat.id: Turns() for seat in final.players}
    runs: list[tuple[int, bool]] = []
    for index, actor in counted:
        own = actor == final.players[index].id
        if runs and runs[-1][0] == index:
            runs[-1] = (index, runs[-1][1] or own)
        else:
            runs.append((index, own))
    for index, own in runs:
        seat = turns[final.players[index].id]
        seat.total += 1
        seat.own += own
    return turns
