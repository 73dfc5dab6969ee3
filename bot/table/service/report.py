"""The words of a reply to a move: the mover's own events in full, then the other seats' turns.

When computer seats (or the autopilot) act after a player's command, a long exchange used to keep only
its latest lines, so the player's own shot or crash could be cut away. Now the player's own events
come first and whole; each other seat that acted is summed up by its game when the game can (moves,
shots, hits, damage), or told event by event while room remains; `/game log` keeps everything.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.table.protocol.replies import clip, latest_lines
from rules.engine import Ruleset, describe_events

# Seats that acted after the player, in order: (who acted, the events of one of their actions).
Others = Sequence[tuple[str, tuple]]
SUMMARY_AFTER = 300  # a seat's events longer than this are summed up by its game
_MORE = "\n(the whole turn: /game log)"


def report(ruleset: Ruleset, state, own: Sequence[str], others: Others, limit: int) -> str:
    """`own` lines in full (the newest kept if even they alone are too long), then the others' turns in
    what room is left, ending with a pointer to /game log when something had to be left out."""
    text = latest_lines(list(own), limit) if own else ""
    if not others:
        return text
    lines = _other_lines(ruleset, state, others)
    room = limit - len(text) - 1
    if room <= 0:
        return text
    told = "\n".join(lines)
    if len(told) > room:
        told = latest_lines(lines, room - len(_MORE)) + _MORE
    return f"{text}\n{told}" if text else told



def _other_lines(ruleset: Ruleset, state, others: Others) -> list[str]:
    """One line per seat that acted (its events in a sentence, or summed up by the game)."""
    grouped: list[tuple[str, list]] = []
    for player, events in others:
        if grouped and grouped[-1][0] == player:
            grouped[-1][1].extend(events)
        else:
            grouped.append((player, list(events)))
    lines = []
    for player, happened in grouped:
        seat = state.player(player)
        who = seat.name if seat else player
        full = describe_events(tuple(happened))
        summary = ruleset.turn_in_words(tuple(happened)) if len(full) > SUMMARY_AFTER else ""
        lines.append(clip(f"{who}'s turn: {summary}", SUMMARY_AFTER) if summary else full)
    return lines

