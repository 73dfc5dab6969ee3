"""A finished game's review (/game review), made as a long job: the log re-run from its seed, walked
through the game's review (rules.review) for its turning points, and each seat's standing round by round
drawn as a chart. Plain data in and out, so it runs in the heavy worker process like a replay."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bot.table.jobs.heavy_jobs import Log, _records, _steps
from bot.table.trust.importer import MAX_REPLAY_ACTIONS
from bot.table.trust.seen import seen_log
from images.palette import car_colour
from images.registry import renderer
from images.standing import Series, chart_png
from rules.engine import Ruleset
from rules.registry import get_ruleset
from rules.review import ReviewStep, TurningPoint, ranked

# The longest log a review re-runs: the longest an import re-plays (10,000 actions: ~1 s of CPU here, the
# heavy worker's deadline growing with it). A longer game's review gives the dice's luck alone, and says why.
MOST_ACTIONS = MAX_REPLAY_ACTIONS


@dataclass(frozen=True)
class Reviewed:
    """What the job found: the turning points shown (ranked), how many checks it could prove, the chart's
    PNG and words for it (its alt text)."""

    points: tuple[TurningPoint, ...]
    checks: int
    chart: bytes
    about: str


def _colour(ruleset: Ruleset, state: Any, player: str, index: int):
    """A seat's colour as the game's map draws it (a game drawn by no renderer: the palette's in order)."""
    try:
        colour = renderer(ruleset.id).captioner.colour_of(ruleset.view(state, None), player)
    except ValueError:
        colour = None
    return colour or car_colour(index)


def review(ruleset_id: str, game: Any, rows: Log) -> Reviewed:
    """The review of a finished game whose log is `rows` (at most MOST_ACTIONS of them). Only what the
    channel may see of the log after the end is read (an action kept for one player, a GM's note, is
    left out), so the review is the same for every viewer."""
    ruleset = get_ruleset(ruleset_id)
    hooks = ruleset.review
    assert hooks is not None
    records = _records(rows)
    states, events = zip(*_steps(ruleset, game, records))
    kept = {s.record.seq for s in seen_log(ruleset, states[-1], records, None) if s.stand_in is None}
    steps = [ReviewStep(record.seq, hooks.round_of(before), record.actor, happened, after)
             for record, before, after, happened in zip(records, states, states[1:], events[1:])
             if record.seq in kept]
    found = hooks.turning_points(steps) if hooks.turning_points is not None else []
    # each round's standing is the last state's in it; the start is the first state past the lobby
    lobby = ruleset.turn_key(states[0])
    started = next((i for i, s in enumerate(states) if ruleset.turn_key(s) != lobby), len(states) - 1)
    by_round: dict[int, dict[str, int]] = {}
    first = hooks.round_of(states[started])
    by_round[first - 1] = dict(hooks.standing(states[started]))
    for state in states[started + 1:]:
        by_round[hooks.round_of(state)] = dict(hooks.standing(state))
    final = states[-1]
    rounds = sorted(by_round)
    seats = [seat for seat in final.players if seat.id in by_round[rounds[-1]]]
    series = [Series(seat.name, _colour(ruleset, final, seat.id, index),
                     tuple(by_round[r].get(seat.id) for r in rounds)) for index, seat in enumerate(seats)]
    title = f"{ruleset.title} game {game.id}"
    shown = tuple(ranked(found))
    marks = [(point.round, f"#{point.number}") for point in shown]   # where the turning points fell
    picture = chart_png(title, hooks.measure, rounds, series, hooks.higher_is_better, hooks.round_word, marks)
    end = "; ".join(f"{line.name} {line.values[-1]}" for line in series)
    at = f" Dashed lines mark the turning points ({', '.join(label for _r, label in marks)})." if marks else ""
    about = (f"A line chart of each seat's {hooks.measure} by {hooks.round_word}, {hooks.round_word}s "
             f"{rounds[0]} to {rounds[-1]}; at the end: {end}.{at}")
    return Reviewed(shown, len(found), picture, about)
