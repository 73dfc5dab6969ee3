"""How a finished game ranks its seats for the server's rating (Ruleset.final_order): best first, in groups
of seats tied with each other. Each game says which of these rankings its seed's words on the end give."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

Order = tuple[tuple[str, ...], ...]


def no_result(state: Any) -> bool:
    """Whether a finished game has no result to rank: the table agreed to end it with none (/game propose end),
    or its host or an admin stopped it (/game end)."""
    agreed = getattr(state, "agreed", "")
    return agreed == "end" or (state.ended_by is not None and not agreed)


def resigned(state: Any) -> tuple[str, ...]:
    """The seats whose players resigned, in seating order: they rank last, tied."""
    return tuple(p.id for p in state.players if getattr(p, "resigned", False))


def grouped(seats: Iterable[str], key: Mapping[str, int]) -> Order:
    """`seats` in groups of equal `key`, the highest key first (seats missing from `key` rank above all)."""
    steps: dict[int, list[str]] = {}
    top = max(key.values(), default=0) + 1
    for seat in seats:
        steps.setdefault(key.get(seat, top), []).append(seat)
    return tuple(tuple(steps[step]) for step in sorted(steps, reverse=True))


def last_out_higher(state: Any, still_in: tuple[str, ...], left: Mapping[str, int],
                    seats: tuple[str, ...] | None = None) -> Order:
    """A game won by the last one standing: the winner (or, in a draw, the seats still in, tied), then the
    others by when they left the game, the later the higher (`left`: the action after which each left; those
    out together tie), the resigned last. () when the game has no result."""
    if no_result(state):
        return ()
    seats = seats if seats is not None else tuple(p.id for p in state.players)
    gone = set(resigned(state))
    first = (state.winner,) if state.winner else tuple(s for s in still_in if s not in gone)
    rest = [s for s in seats if s not in first and s not in gone]
    order = ((first,) if first else ()) + grouped(rest, left)
    last = tuple(s for s in seats if s in gone)
    return order + ((last,) if last else ())
