"""Who plays whom: a season's tables by rating, a round robin's rounds, an elimination's rounds, and the
final table of a tournament. Pure and deterministic: the same members, ratings and history give the same
tables, so a pairing can be re-derived from what is stored.

Tables hold `size` members (the game's seats). A member sits at most once in one call's tables.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

WINDOW = 2           # a season's table is chosen among the next WINDOW × size members by rating
MAX_ROUNDS = 64      # a round robin never schedules more rounds than this (a bound on its work)

Met = Mapping[frozenset[str], int]   # how often each pair of members has already sat at one table


@dataclass(frozen=True)
class Waiting:
    """A member waiting for a season's game: their rating (higher is better) and id."""

    member: str
    rating: float


def _repeats(table: Iterable[str], met: Met) -> int:
    """How many earlier meetings the pairs of this table repeat."""
    return sum(met.get(frozenset(pair), 0) for pair in itertools.combinations(table, 2))


def _by_rating(waiting: Iterable[Waiting]) -> list[Waiting]:
    return sorted(waiting, key=lambda w: (-w.rating, w.member))


def _cost(first: Waiting, others: tuple[Waiting, ...], met: Met) -> tuple[int, float, tuple[str, ...]]:
    """A candidate table's cost: repeated meetings, then the spread of ratings, then its ids (a fixed order)."""
    members = (first.member, *(o.member for o in others))
    return _repeats(members, met), first.rating - min(o.rating for o in others), members[1:]


def season_tables(waiting: Iterable[Waiting], size: int, met: Met) -> list[tuple[str, ...]]:
    """Tables for a season's waiting members: the best-rated member still unseated sits with the members
    near them by rating who repeat the fewest earlier meetings (then the closest ratings); members left
    over when fewer than `size` remain wait for the next call."""
    if size < 2:
        raise ValueError("a table seats at least two")
    queue = _by_rating(waiting)
    tables: list[tuple[str, ...]] = []
    while len(queue) >= size:
        first, rest = queue[0], queue[1:WINDOW * size]
        chosen = min(itertools.combinations(rest, size - 1), key=lambda others: _cost(first, others, met))
        tables.append((first.member, *(o.member for o in chosen)))
        seated = {first.member, *(o.member for o in chosen)}
        queue = [w for w in queue if w.member not in seated]
    return tables


def round_robin(members: Sequence[str], size: int) -> list[list[tuple[str, ...]]]:
    """Rounds of tables until every pair of members has met: for duels the circle method (n - 1 rounds,
    n rounds with a bye for an odd n); for bigger tables, each round the tables that repeat the fewest
    meetings, sitting out in turn the members a round cannot seat."""
    players = list(dict.fromkeys(members))
    if size < 2:
        raise ValueError("a table seats at least two")
    if len(players) < 2:
        return []
    if size == 2:
        return _circle(players)
    rounds: list[list[tuple[str, ...]]] = []
    met: dict[frozenset[str], int] = {}
    sat_out: dict[str, int] = dict.fromkeys(players, 0)
    pairs = len(players) * (len(players) - 1) // 2
    while sum(1 for count in met.values() if count) < pairs and len(rounds) < MAX_ROUNDS:
        seats = len(players) if len(players) <= size else len(players) - len(players) % size
        if len(players) > size and len(players) % size >= 2:
            seats = len(players)   # a short last table rather than members sitting out
        # who sits out: those who sat out least, then those who have met the most already
        order = sorted(players, key=lambda p: (sat_out[p], -sum(met.get(frozenset((p, q)), 0) for q in players), p))
        playing, resting = order[len(players) - seats:], order[:len(players) - seats]
        for member in resting:
            sat_out[member] += 1
        tables = _fewest_repeats(playing, size, met)
        for table in tables:
            for pair in itertools.combinations(table, 2):
                met[frozenset(pair)] = met.get(frozenset(pair), 0) + 1
        rounds.append(tables)
    return rounds


def _circle(players: list[str]) -> list[list[tuple[str, ...]]]:
    """The circle method: one fixed member, the others turning one place a round."""
    ring: list[str | None] = [*players, None] if len(players) % 2 else list(players)
    rounds: list[list[tuple[str, ...]]] = []
    for _ in range(len(ring) - 1):
        half = len(ring) // 2
        pairs = [(ring[i], ring[-1 - i]) for i in range(half)]
        rounds.append([(a, b) for a, b in pairs if a is not None and b is not None])
        ring = [ring[0], ring[-1], *ring[1:-1]]
    return rounds


def _fewest_repeats(playing: list[str], size: int, met: Met) -> list[tuple[str, ...]]:
    """Tables of `size` (the last one shorter when the count does not divide), each built from the first
    unseated member and the others that repeat the fewest meetings with the table so far."""
    left = list(playing)
    tables = []
    while left:
        table = [left.pop(0)]
        while left and len(table) < size:
            best = min(left, key=lambda p: (sum(met.get(frozenset((p, q)), 0) for q in table), left.index(p)))
            table.append(best)
            left.remove(best)
        tables.append(tuple(table))
    return tables


def elimination_round(seeded: Sequence[str], size: int) -> list[tuple[str, ...]]:
    """One round of an elimination: the members (best seed first) dealt out snake-wise to as few tables of
    at most `size` as hold them, so the tables differ by at most one member and the top seeds are spread;
    a table of one is a bye. The winner of each table goes on."""
    players = list(dict.fromkeys(seeded))
    if size < 2:
        raise ValueError("a table seats at least two")
    count = -(-len(players) // size)
    tables: list[list[str]] = [[] for _ in range(count)]
    for place, member in enumerate(players):
        lap, step = divmod(place, count)
        tables[step if lap % 2 == 0 else count - 1 - step].append(member)
    return [tuple(table) for table in tables]


def final_table(results: Iterable[Sequence[Sequence[str]]], members: Iterable[str],
                rating: Mapping[str, float] | None = None) -> list[tuple[str, float]]:
    """A tournament's standing: each game gives a member one point for every member they finished ahead
    of and half a point for every member they tied with (a duel: 1 a win, ½ a draw); ties in points go
    to the better rating, then the member id. `results` holds each game's order, best first, as groups of
    tied members."""
    points = dict.fromkeys(members, 0.0)
    for order in results:
        below = sum(len(group) for group in order)
        for group in order:
            below -= len(group)
            for member in group:
                if member in points:
                    points[member] += below + (len(group) - 1) / 2
    ratings = rating or {}
    return sorted(points.items(), key=lambda item: (-item[1], -ratings.get(item[0], 0.0), item[0]))


def gated_out(turns: int, lost_to_deadlines: int, bound: float) -> bool:
    """Whether a member's share of turns lost to deadlines passes a tournament's gate (chess.com: 10%);
    a member with no turns yet passes."""
    return turns > 0 and lost_to_deadlines / turns > bound
