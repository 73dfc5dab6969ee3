"""A computer player: of the legal plays, the one that leaves its cars furthest ahead of the opponent's."""

from __future__ import annotations

from rules.track import cards
from rules.track.actions import Discard, PlayCard
from rules.track.moves import holes_come
from rules.track.plays import has_forced_move, legal_plays
from rules.track.state import LANE, PITS, Car, TrackState


def progress(state: TrackState, car: Car) -> int:
    """How far along its course a car is: 0 in the pits, 1 on its start, about 30 on W, more in F1..F5."""
    if car.where == PITS:
        return 0
    if car.where == LANE:
        return 30 + 3 * car.spot
    return 1 + holes_come(state, car)


def score(state: TrackState, player: str) -> int:
    mine = sum(progress(state, c) for c in state.cars_of(player))
    theirs = sum(progress(state, c) for c in state.cars if c.owner != player)
    return mine - theirs


def choose_action(state: TrackState, player: str) -> PlayCard | Discard | None:
    """The best play by `score` (a Joker only when it gains a lot); a discard of the least useful card
    when nothing has to be played."""
    best, text = _choose(state, player)
    return best


def choose_command(state: TrackState, player: str) -> str | None:
    """The same choice, written as the command a player would type."""
    return _choose(state, player)[1]


def _choose(state: TrackState, player: str) -> tuple[PlayCard | Discard | None, str | None]:
    if state.active_player != player:
        return None, None
    best, best_command, best_score = None, None, None
    for command, action, result in legal_plays(state, player):
        value = score(result[0], player)
        if cards.rank(action.card) == cards.JOKER:
            value -= 15  # hold the Joker back unless it gains a lot
        if best_score is None or value > best_score:
            best, best_command, best_score = action, command, value
    if best_score is not None and (has_forced_move(state, player) or best_score > score(state, player)):
        return best, best_command
    card = min(state.hand(player).cards, key=_discard_rank)
    return Discard(card), f"/discard card:{card}"


def _discard_rank(card: str) -> int:
    order = {"JK": 20, "A": 15, "K": 12, "Q": 12, "J": 12, "7": 10}
    return order.get(cards.rank(card), 5)
