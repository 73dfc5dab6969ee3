"""Seats, computer players, the start (first player, shuffle, deal) and the end of a track table."""

from __future__ import annotations

from dataclasses import replace

from rules.dice import shuffle
from rules.errors import BadOption, NotHost, TableFull, WrongPhase
from rules.table import computer_seat, name_key, unique_name
from rules.track import cards, data
from rules.track.actions import AddComputer, Join, Start
from rules.track.events import GameStarted, PlayerJoined
from rules.track.phases import TrackPhase
from rules.track.state import Car, Hand, Player, TrackState
from rules.track.turns import begin_turn

MAX_NAME_LENGTH = 32


def _seat(state: TrackState, player: Player) -> TrackState:
    limit = data.board()["max_players"]
    if len(state.players) >= limit:
        raise TableFull(f"The table is full ({limit} players).")
    cars = tuple(Car(player.id, f"c{i + 1}") for i in range(state.board.cars_per_player))
    return replace(state, players=state.players + (player,), cars=state.cars + cars,
                   hands=state.hands + (Hand(player.id, (), 0),))


def join(state: TrackState, actor: str, action: Join):
    seat = state.player(actor)
    if seat and seat.ai and state.revision >= 2:
        raise BadOption(f"{seat.name} is a computer player's seat; you cannot join as it.")
    if seat:
        raise BadOption("You already have a seat at this table.")
    name = action.name.strip()[:MAX_NAME_LENGTH] or actor[:MAX_NAME_LENGTH]
    if state.revision >= 2:  # unique at the table, and no car id (c1) or computer id (ai-1)
        name = unique_name(name, {name_key(p.name) for p in state.players}, MAX_NAME_LENGTH)
    elif any(p.name.lower() == name.lower() for p in state.players):
        name = f"{name}#{len(state.players) + 1}"
    state = _seat(state, Player(actor, name, len(state.players)))
    return state, (PlayerJoined(name),)


def add_computer(state: TrackState, actor: str, action: AddComputer):
    if actor != state.host:
        raise NotHost("Only the host can add a computer player.")
    if state.revision >= 2:  # an id no seat has, a name no seat has
        ai_id, name = computer_seat({p.id for p in state.players}, {name_key(p.name) for p in state.players})
        seat = Player(ai_id, name, len(state.players), ai=True)
    else:
        number = sum(1 for p in state.players if p.ai) + 1
        seat = Player(f"ai-{number}", f"Robo{number}", len(state.players), ai=True)
    state = _seat(state, seat)
    return state, (PlayerJoined(seat.name + " (computer)"),)


def start(state: TrackState, actor: str, action: Start):
    """Pick the first player, shuffle the 54 cards with the game's dice stream and deal 3 each."""
    if actor != state.host:
        raise NotHost("Only the host can start the game.")
    limits = data.board()
    if not limits["min_players"] <= len(state.players) <= limits["max_players"]:
        raise WrongPhase(f"This game needs {limits['min_players']} players; {len(state.players)} seated.")
    dice = state.dice
    seats = tuple(p.id for p in state.players)
    if state.rulings.first_player == "cut":
        dice, first = shuffle(dice, seats)
        first_id = first[0]
    else:
        first_id = state.host if state.host in seats else seats[0]
    i = seats.index(first_id)
    order = seats[i:] + seats[:i]
    dice, deck = shuffle(dice, cards.full_deck())
    size = state.board.hand_size
    hands = []
    for k, pid in enumerate(order):
        dealt = tuple(deck[k + j * len(order)] for j in range(size))
        hands.append(Hand(pid, dealt, size))
    rest = deck[size * len(order):]
    hands.sort(key=lambda h: seats.index(h.player))
    state = replace(state, dice=dice, order=order, hands=tuple(hands), draw_pile=rest, draw_count=len(rest),
                    phase=TrackPhase.PLAY, turn_index=0, round=0, turn=0)
    names = tuple(state.seated(p).name for p in order)
    state, events = begin_turn(state)
    return state, (GameStarted(names, size),) + events
