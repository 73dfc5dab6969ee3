"""The lines a rolled-back game was played on: each rebuilt from the live log and the actions set aside.

A rollback to action #N keeps the log's first N actions, logs itself as action N+1 and sets the rest
aside under its number. So the log as it stood just before the last rollback is the live log's first N
actions followed by what that rollback set aside; and before each earlier one, the same step again on
the line after it. Every line starts at the game's setup, so re-running one re-checks every roll of it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TypeVar

Row = TypeVar("Row")
MAX_ROLLBACKS = 20   # per game: /game verify re-runs the line before each one
# Actions all the lines of a game's rollbacks hold together (each is re-run from the setup): twenty rollbacks
# late in the longest selfplay game (~950 actions) re-run about 19,000.
MAX_LINE_ACTIONS = 20_000


def lines_before_rollbacks(live: Sequence[Row], set_aside: Mapping[int, Sequence[Row]],
                           first_seq: Mapping[int, int]) -> dict[int, list[Row]]:
    """The whole log just before each rollback, by rollback number. `first_seq[k]` is the number of the
    first action rollback k set aside (rows are numbered from 1, one after another)."""
    line = list(live)
    lines: dict[int, list[Row]] = {}
    for rollback in sorted(set_aside, reverse=True):
        kept = first_seq[rollback] - 1
        if not 0 <= kept <= len(line):
            raise ValueError(f"rollback {rollback} set aside actions from #{kept + 1}, past its line's end")
        line = line[:kept] + list(set_aside[rollback])
        lines[rollback] = line
    return lines


def unaccounted(live: Sequence[Row], lines: Mapping[int, Sequence[Row]], first_seq: Mapping[int, int],
                branch_of: Callable[[Row], int | None]) -> str:
    """Why the set-aside `lines` (lines_before_rollbacks') are not the log's own, or '' when they are: the
    rollbacks are numbered 1, 2, ... and each is logged where its set-aside actions began, in the line after
    it (the next rollback's line, or the live log); `branch_of(row)` is the number of the rollback a row
    logs (None for any other action). Set-aside actions no rollback of the log accounts for are refused."""
    if sorted(lines) != list(range(1, len(lines) + 1)):
        return "its rollbacks are not numbered 1, 2, 3 ..."
    if sum(map(len, lines.values())) > MAX_LINE_ACTIONS:
        return f"its rollbacks' lines hold more than {MAX_LINE_ACTIONS} actions"
    for rollback in sorted(lines):
        after = lines.get(rollback + 1, live)
        at = first_seq[rollback] - 1
        if not 0 <= at < len(after) or branch_of(after[at]) != rollback:
            return f"no rollback {rollback} is logged where its set-aside actions begin"
    return ""
