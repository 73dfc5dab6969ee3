"""The words of a reply to a move: the mover's own events, then the other seats' turns, every one told.

When computer seats (or the autopilot) act after a player's command, a long exchange used to keep only
its latest lines whole, so one run-on turn (a computer's, over 1,000 characters) pushed the rest out:
the player's own ram, the last turn's win, the final standings. Now every action keeps
a line: when they do not all fit, the longest are shortened first (summed up by their game where it can,
else their middle events left out, never their end, where a win or the standings is told); `/game log`
keeps everything. A standing order's answer is told as its owner's standing order, not as a turn.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rules.engine import Ruleset
from rules.table import ByStandingOrder

# Seats that acted after the player, in order: (who acted, the events of one of their actions).
Others = Sequence[tuple[str, tuple]]
SUMMARY_AFTER = 300  # a seat's events longer than this are summed up by its game
_MORE = "\n(the whole turn: /game log)"
_SHORTEST = 100   # no action's line is shortened below this while dropping whole turns could make room
_LEFT_OUT = "…"


@dataclass(frozen=True)
class _Told:
    """One action's (or one seat's run of actions') words: an opening, its parts in order, how they join."""

    head: str
    parts: tuple[str, ...]
    joiner: str = " "

    def full(self) -> str:
        body = self.joiner.join(self.parts)
        return f"{self.head} {body}" if self.head and body else self.head or body

    def within(self, room: int) -> str:
        """Its words in `room` characters: whole, or its first part and as many of its last as fit with the
        middle left out, or only the end of its last part (where a turn tells how it ended)."""
        whole = self.full()
        if len(whole) <= room:
            return whole
        head = f"{self.head} " if self.head else ""
        joiner = len(self.joiner)
        for first in ((self.parts[0],) if len(self.parts) > 2 else ()), ():
            used, tail = len(head) + sum(len(p) + joiner for p in first) + len(_LEFT_OUT), 0
            for part in reversed(self.parts[len(first):]):
                if used + joiner + len(part) > room:
                    break
                used, tail = used + joiner + len(part), tail + 1
            if tail:
                return head + self.joiner.join((*first, _LEFT_OUT, *self.parts[len(self.parts) - tail:]))
        end = self.parts[-1] if self.parts else whole
        keep = max(room - len(head) - len(_LEFT_OUT), 0)
        cut = end[len(end) - keep:]
        if " " in cut[:-1] and not end.endswith(" " + cut):   # from a word's start
            cut = cut[cut.index(" ") + 1:]
        return (head + _LEFT_OUT + cut)[-room:] if room > 0 else ""


def report(ruleset: Ruleset, state, own: Sequence[str], others: Others, limit: int) -> str:
    """`own` lines, then a line for each other seat's turn, all in `limit` characters: the longest shortened
    first, ending with a pointer to /game log when something had to be left out."""
    told = ([_Told("", tuple(own), "\n")] if own else []) + _other_lines(ruleset, state, others)
    return fitted(told, limit)


def fitted(told: list[_Told], limit: int) -> str:
    """Every entry's line within `limit`: whole when all fit; else each cut to the largest common length
    that fits (the longest shortened first); when even the shortest lines are too many, whole turns after
    the first are left out, the latest kept (a game's end is its last turn)."""
    whole = "\n".join(t.full() for t in told)
    if len(whole) <= limit:
        return whole
    room = limit - len(_MORE)
    kept, dropped = list(told), 0
    while len(kept) > 2 and _length(kept, _SHORTEST, dropped) > room:
        kept.pop(1)
        dropped += 1
    low, high = 1, max(len(t.full()) for t in kept)
    while low < high:   # the largest cap at which every line fits
        cap = (low + high + 1) // 2
        low, high = (cap, high) if _length(kept, cap, dropped) <= room else (low, cap - 1)
    lines = [t.within(low) for t in kept]
    if dropped:
        lines.insert(1, f"{_LEFT_OUT} {dropped} more turns")
    return ("\n".join(lines))[:room] + _MORE


def _length(told: list[_Told], cap: int, dropped: int) -> int:
    """How long the lines are with each cut to `cap` (and the line saying how many turns were left out)."""
    return sum(len(t.within(cap)) + 1 for t in told) - 1 + (len(f"{_LEFT_OUT} {dropped} more turns") + 1
                                                          if dropped else 0)


def _other_lines(ruleset: Ruleset, state, others: Others) -> list[_Told]:
    """One line per seat that acted (its events in a sentence, or summed up by the game); an answer given by
    standing order is a line of its own, told as its owner's standing order."""
    grouped: list[tuple[str, list, str]] = []
    for player, events in others:
        order = next((e for e in events if isinstance(e, ByStandingOrder)), None)
        if order is not None:
            grouped.append((player, [e for e in events if e is not order],
                            f"{order.player}'s standing order ({order.question.replace('_', ' ')}):"))
        elif grouped and grouped[-1][0] == player and not grouped[-1][2]:
            grouped[-1][1].extend(events)
        else:
            grouped.append((player, list(events), ""))
    lines = []
    for player, happened, ordered in grouped:
        seat = state.player(player)
        who = seat.name if seat else player
        parts = tuple(e.describe() for e in happened)
        summary = ruleset.turn_in_words(tuple(happened)) if len(" ".join(parts)) > SUMMARY_AFTER else ""
        if summary:
            lines.append(_Told(ordered or f"{who}'s turn:", tuple(summary.split("; ")), "; "))
        else:
            lines.append(_Told(ordered, parts))
    return lines
