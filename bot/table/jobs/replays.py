"""Which moments of a game its replay GIF shows: one frame per turn, from the start, no lobby."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.storage.store import ActionRecord
from bot.table.trust.export import events_of
from images.replay import Step
from rules.engine import Ruleset

SUMMED_UP_AFTER = 2  # a frame whose turn had more events than this is captioned by the game's summary


def turn_frames(ruleset: Ruleset, host: str, states: Sequence[Any], records: Sequence[ActionRecord]) -> list[Step]:
    """A frame each time the turn passes (the table as the turn left it, with all of that turn's events),
    and the final table. The lobby's joins make no frames; a game never started shows its last state."""
    keys = [ruleset.turn_key(state) for state in states]
    frames: list[Step] = []
    turn: list = []
    for index in range(1, len(states)):
        record = records[index - 1]
        turn.extend(events_of(ruleset, record))
        final = index == len(states) - 1
        if keys[index] == keys[0] and not final:   # still in the lobby
            turn = []
            continue
        if keys[index] != keys[index - 1] or final:
            words = ruleset.turn_in_words(tuple(turn)) if len(turn) > SUMMED_UP_AFTER else ""
            frames.append(Step(ruleset.view(states[index], None), record.actor, tuple(turn), words))
            turn = []
    return frames or [Step(ruleset.view(states[-1], None), host)]
