"""After a card: discard it, draw (reshuffling when the pile is empty), check the win, pass the turn."""

from __future__ import annotations

from dataclasses import replace

from rules.dice import shuffle
from rules.table import Rollback
from rules.track.events import CardDrawn, DeckReshuffled, GameDrawn, GameWon, TurnBegan, WonByResignation
from rules.track.phases import TrackPhase
from rules.track.state import CarMove, Hand, TrackState, evolve


def begin_turn(state: TrackState) -> tuple[TrackState, tuple]:
    state = replace(state, turn=state.turn + 1)
    return state, (TurnBegan(state.seated(state.active_player).name, state.round),)


def has_won(state: TrackState, player: str) -> bool:
    """All five cars in F1..F5 (ruling 13: the white dot does not count)."""
    return all(c.finished for c in state.cars_of(player))


def end_turn(state: TrackState, player: str, card: str,
             moves: tuple[CarMove, ...] = ()) -> tuple[TrackState, tuple]:
    """The played (or discarded) card goes face up; then the win, or a draw and the next turn.

    A draw from an empty pile first shuffles the discards (the game's dice stream) into a new pile.
    Built as one new state: this runs after every card, also in every replay.
    """
    hand = list(state.hand(player).cards)
    hand.remove(card)
    discard = state.discard_pile + (card,)
    name = state.seated(player).name
    if has_won(state, player):
        hands = tuple(Hand(h.player, tuple(hand), len(hand)) if h.player == player else h for h in state.hands)
        return evolve(state, hands=hands, discard_pile=discard, last_card=card, last_moves=moves,
                       phase=TrackPhase.FINISHED, winner=player), (GameWon(name),)
    events: tuple = ()
    dice, pile, reshuffles = state.dice, state.draw_pile, state.reshuffles
    if not pile and discard:
        dice, pile = shuffle(dice, discard)
        discard, reshuffles = (), reshuffles + 1
        events += (DeckReshuffled(len(pile)),)
    if pile:
        hand.append(pile[0])
        pile = pile[1:]
        events += (CardDrawn(name, len(pile)),)
    hands = tuple(Hand(h.player, tuple(hand), len(hand)) if h.player == player else h for h in state.hands)
    index = (state.turn_index + 1) % len(state.order)
    rnd = state.round + (1 if index == 0 else 0)
    phase = TrackPhase.PLAY
    if state.max_rounds is not None and rnd >= state.max_rounds:
        phase = TrackPhase.FINISHED
        events += (GameDrawn(state.max_rounds),)
    else:
        events += (TurnBegan(state.seated(state.order[index]).name, rnd),)
    state = evolve(state, hands=hands, discard_pile=discard, last_card=card, last_moves=moves, dice=dice,
                    draw_pile=pile, draw_count=len(pile), reshuffles=reshuffles, turn_index=index, round=rnd,
                    turn=state.turn + (phase == TrackPhase.PLAY), phase=phase)
    return state, events


def resign(state: TrackState, player: str, _action: object) -> tuple[TrackState, tuple]:
    """Ruling (the seed is silent): the race is between two, so a player who resigns concedes it: the other
    player wins at once. Their cards stay hidden."""
    other = next(p.id for p in state.players if p.id != player)
    return evolve(state, phase=TrackPhase.FINISHED, winner=other), (WonByResignation(state.seated(other).name),)


def dealt_again_after_rollback(state: TrackState, rollback: Rollback) -> TrackState:
    """Ruling (the seed is silent): a rollback deals anew from the new dice stream. The set-aside plays
    showed cards that are back in their players' hands, and their draws the pile's order, so every card
    held and the draw pile are shuffled together, each hand, in seat order, is dealt as many cards as it
    held, and the rest is the draw pile; the discards stay as they lie. A rollback logged before this
    ruling (`redeal` unset) shuffled the draw pile only, and replays so."""
    if not rollback.redeal:
        dice, pile = shuffle(state.dice, state.draw_pile)
        return evolve(state, dice=dice, draw_pile=pile)
    dice, deck = shuffle(state.dice, tuple(card for hand in state.hands for card in hand.cards) + state.draw_pile)
    hands, dealt = [], 0
    for hand in state.hands:
        hands.append(Hand(hand.player, deck[dealt:dealt + len(hand.cards)], len(hand.cards)))
        dealt += len(hand.cards)
    return evolve(state, dice=dice, hands=tuple(hands), draw_pile=deck[dealt:], draw_count=len(deck) - dealt)
