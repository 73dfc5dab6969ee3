"""The track game as a Ruleset: setup, the card plays, legal actions, private views and description (seed 002)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from rules.codec import without_fields
from rules.dice import DiceState
from rules.engine import Autopilot, ComputerSeats, ExampleOpening, LegalAction, Ruleset
from rules.errors import (
    BadOption,
    NotSeated,
    NotYourTurn,
)
from rules.ranking import Order, no_result, resigned
from rules.referee import Resignation
from rules.seats import addressed
from rules.table import agreed_words, revision_option, rounds_option
from rules.track import ai, cards, data, lobby, turns
from rules.track import review as track_review
from rules.track.actions import (
    ACTIONS,
    AddComputer,
    Discard,
    Join,
    PlayCard,
    Start,
)
from rules.track.commands import GRAMMAR, RULING_CHOICES
from rules.track.errors import MustPlay, NotInHand
from rules.track.events import EVENTS, CardDiscarded, CardPlayed, hit_size
from rules.track.moves import short_label, where_label
from rules.track.phases import PHASES, TrackPhase
from rules.track.plays import has_forced_move, iter_legal_plays, legal_plays, resolve
from rules.track.selfplay import SELFPLAY
from rules.track.state import RULINGS_BEFORE_SEED_FIDELITY, SEED_FIDELITY, Board, Hand, Rulings, TrackState
from rules.track.turns import end_turn

# The newest rules revision: 2 gives every seat a unique name and computer seats ids of their own;
# 3 follows the seed's Joker (state.SEED_FIDELITY); 4 lets it swap a car from the finish holes
# (state.JOKER_FROM_FINISH); 5 lets it come out when no opponent car on the ring can be taken
# (state.JOKER_OUT_PAST_SAFE); 6 makes the finish rulings' options do what they say
# (state.FINISH_RULINGS_AS_WORDED). Games stored without one are revision 1.
REVISION = 6

HAND_LISTING_LIMIT = 1500  # a private reply holds 2,000 characters; longer lists are summed up per card



def _option_value(key: str, default: Any, given: Any) -> Any:
    if isinstance(default, bool):
        if isinstance(given, bool):
            return given
        text = str(given).strip().lower()
        if text in ("true", "yes", "on", "1"):
            return True
        if text in ("false", "no", "off", "0"):
            return False
        raise BadOption(f"{key}: must be true or false.")
    text = str(given).strip().lower()
    if text not in RULING_CHOICES[key]:
        raise BadOption(f"{key}: one of {', '.join(RULING_CHOICES[key])}.")
    return text


def setup(options: dict[str, Any], seed: int, host: str) -> TrackState:
    """A new table in the lobby with the rulings (rulings.toml, each overridable) and the board (board.toml)."""
    revision = revision_option(options, REVISION)
    values = dict(data.ruling_defaults())
    if revision < SEED_FIDELITY:
        values.update(RULINGS_BEFORE_SEED_FIDELITY)
    for key, given in options.items():
        if key in values and given is not None:
            values[key] = _option_value(key, values[key], given)
    if options.get("teams"):
        raise BadOption("The four-player team variant is not available yet.")
    rounds = rounds_option(options)
    b = data.board()
    board = Board(b["ring_holes"], tuple(b["corners"]), b["start_after_corner"], b["finish_holes"],
                  b["cars_per_player"], b["hand_size"])
    return TrackState(host=host, dice=DiceState(seed), rulings=Rulings(**values), board=board, max_rounds=rounds,
                      revision=revision)


# --- the turn ---------------------------------------------------------------------------------

def _check_turn(state: TrackState, actor: str) -> None:
    """Refuse `actor` unless seated and, once the cards are dealt, the player whose turn it is."""
    if not state.player(actor):
        raise NotSeated("You are not playing in this game. Use /game join before it starts.")
    if state.phase == TrackPhase.PLAY and state.active_player != actor:
        raise NotYourTurn(f"It is {state.seated(state.active_player).name}'s turn, not yours.")


def _card_in_hand(state: TrackState, actor: str, text: str) -> str:
    card = cards.normalize(text)
    hand = state.hand(actor).cards
    if card not in hand:
        raise NotInHand(f"You do not hold {card}. Your hand: {' '.join(hand)}.")
    return card


def _play(state: TrackState, actor: str, action: PlayCard):
    _check_turn(state, actor)
    card = _card_in_hand(state, actor, action.card)
    new_state, events, moves, use = resolve(state, actor, action, card)
    events = (CardPlayed(state.seated(actor).name, card, use),) + events
    new_state, more = end_turn(new_state, actor, card, moves)
    return new_state, events + more


def _discard(state: TrackState, actor: str, action: Discard):
    _check_turn(state, actor)
    card = _card_in_hand(state, actor, action.card)
    if has_forced_move(state, actor):
        example = next(c for c, a, _r in legal_plays(state, actor, include_jokers=state.rulings.joker_forced))
        raise MustPlay(f"You have a move, so you must play it (for example {example}).")
    state, more = end_turn(state, actor, card)
    return state, (CardDiscarded(state.seated(actor).name, card),) + more


# --- what can be done, seen and said -----------------------------------------------------------

def legal_actions(state: TrackState, player: str) -> tuple[LegalAction, ...]:
    """The commands `player` may use now: every legal /play, or the /discard choices when nothing must move."""
    if state.phase == TrackPhase.LOBBY:
        actions = [] if state.player(player) else [LegalAction("/game join", "Join")]
        if player == state.host:
            actions += [LegalAction("/game add-ai", "Add computer", action=AddComputer()),
                        LegalAction("/game start", "Start", action=Start())]
        return tuple(actions)
    if (state.phase != TrackPhase.PLAY or state.active_player != player
            or state.hidden and not state.hand(player).cards):
        return ()
    plays = list(iter_legal_plays(state, player, results=False))
    # Grouped by card: a hand whose 7 splits many ways gets one button per card, each opening its plays.
    actions = [LegalAction(command, command.removeprefix("/play card:").replace(" ", ", "),
                           group=f"Play {cards.normalize(action.card)}", action=action)
               for command, action, _r in plays]
    forced = [a for _c, a, _r in plays if state.rulings.joker_forced or cards.normalize(a.card) != cards.JOKER]
    if not forced:
        for card in dict.fromkeys(state.hand(player).cards):
            actions.append(LegalAction(f"/discard card:{card}", f"Discard {card}", action=Discard(card)))
    return tuple(actions)


def view(state: TrackState, viewer: str | None) -> TrackState:
    """Hidden information removed: only the viewer's own hand; no draw pile order; no dice seed."""
    hands = tuple(h if h.player == viewer else Hand(h.player, (), h.size) for h in state.hands)
    return replace(state, hands=hands, draw_pile=(), dice=DiceState(0, state.dice.counter), hidden=True)


def describe(state: TrackState) -> str:
    """The table in public words (alt text, logs): cars, hand sizes, piles; never a hidden card."""
    lines = [f"Track race on a {state.board.ring_holes}-hole ring."]
    for p in state.players:
        cars_text = ", ".join(f"{c.id} {short_label(c)}"
                              for c in state.cars_of(p.id))
        size = state.hand(p.id).size
        lines.append(f"{p.name} (corner hole {state.corner_of(p.id)}, start hole {state.start_of(p.id)}, "
                     f"{size} cards in hand): {cars_text}.")
    if state.phase != TrackPhase.LOBBY:
        top = f"; discard pile top {state.top_discard}" if state.top_discard else ""
        lines.append(f"Draw pile: {state.draw_count} cards{top}.")
    lines.append(prompt(state))
    return " ".join(lines)


def prompt(state: TrackState) -> str:
    """What the game waits for, in one line."""
    if state.phase == TrackPhase.LOBBY:
        return f"Lobby: {len(state.players)} of 2 seated; /game join, then the host uses /game start."
    if state.phase == TrackPhase.FINISHED:
        if state.ended_by:
            return f"Game over (ended by {state.ended_by})."
        if state.agreed:
            return agreed_words(state.agreed)
        if state.winner:
            return f"Game over: {state.seated(state.winner).name} wins."
        return "Game over: a draw."
    name = addressed(state.seated(state.active_player))
    return (f"Round {state.round + 1}, {name}: play a card with /play card:… (your hand: /hand), "
            f"or /discard card:… when no card can move.")


def hand_text(state: TrackState, player: str, _options: dict[str, Any] | None = None) -> str:
    """/hand: the player's own cards and what they can play now (a private reply)."""
    if not state.player(player):
        raise NotSeated("You are not playing in this game.")
    if state.phase == TrackPhase.LOBBY:
        return "No cards yet: they are dealt when the host starts the game."
    text = own_hand(state, player)
    cars_text = ", ".join(f"{c.id} {where_label(state, c)}" for c in state.cars_of(player))
    text += f" Your cars: {cars_text}."
    options = legal_actions(state, player)
    listing = "; ".join(a.command for a in options)
    if len(listing) <= HAND_LISTING_LIMIT:
        return text + (f" You can: {listing}." if options else "")
    ways = Counter(a.group or a.command for a in options)
    summary = "; ".join(f"{group} ({count} ways)" if count > 1 else group for group, count in ways.items())
    return (f"{text} You can: {summary}. Choose with the buttons, or type /play card:… and autocomplete "
            f"offers only the legal car, move and split.")


def own_hand(state: TrackState, player: str) -> str:
    """What a player's private menu shows them alone: their hand."""
    if state.player(player) is None or state.phase == TrackPhase.LOBBY:
        return ""
    hand = state.hand(player).cards
    return f"Your hand: {' '.join(hand) if hand else '(empty)'}."


def command_to_action(command: str, options: dict[str, Any]) -> Any:
    """Translate one of the game's typed commands into an action: /play card:7H car:c1, /discard card:3C, /game …"""
    simple = {"game start": Start, "game add-ai": AddComputer}
    if command in simple:
        return simple[command]()
    if command == "game join":
        return Join(name=str(options.get("name", "")))
    if command == "play":
        if not options.get("card"):
            raise BadOption("Name the card: /play card:7H (see /hand).")
        return PlayCard(str(options["card"]), str(options.get("car", "")), str(options.get("move", "")),
                        str(options.get("split", "")), str(options.get("target", "")))
    if command == "discard":
        if not options.get("card"):
            raise BadOption("Name the card to discard: /discard card:7H.")
        return Discard(str(options["card"]))
    raise BadOption(f"This game has no command /{command}.")




def is_computer(state: TrackState, player: str) -> bool:
    """Whether `player` is a computer seat."""
    seat = state.player(player)
    return seat is not None and seat.ai


def computer_command(state: TrackState, player: str) -> str | None:
    """What a computer player plays now, as written, or None when `player` is a person."""
    if not is_computer(state, player):
        return None
    return ai.choose_command(state, player)


def computer_action(state: TrackState, player: str) -> PlayCard | Discard | None:
    """The action a computer player takes now, or None."""
    return ai.choose_action(state, player) if is_computer(state, player) else None


def autopilot_action(state: TrackState, player: str, passive: bool = False) -> PlayCard | Discard | None:
    """A deadline's move for an absent player: what the computer player would do (passive or not)."""
    if state.phase != TrackPhase.PLAY or state.active_player != player:
        return None
    return ai.choose_action(state, player)


def turn_key(state: TrackState) -> str:
    if state.phase != TrackPhase.PLAY:
        return str(state.phase)
    return f"{state.turn}:{state.active_player}"


def undo_blocker(before: TrackState, after: TrackState) -> str | None:
    """A draw (or a shuffle) reveals hidden cards, so such an action cannot be taken back."""
    if after.dice.counter != before.dice.counter:
        return "cards were shuffled"
    if after.draw_count != before.draw_count or after.reshuffles != before.reshuffles:
        return "a card was drawn"
    return None


def acting_players(state: TrackState) -> tuple[str, ...]:
    return (state.active_player,) if state.active_player else ()


class Track(Ruleset[TrackState]):
    """Track, the card race (seed 002)."""

    id = "track"
    title = "Track (the card race)"
    state_type = TrackState
    actions, events = ACTIONS, EVENTS
    example = ExampleOpening("", (("ann", "/game join"), ("ben", "/game join"), ("ann", "/game start")))
    grammar = GRAMMAR
    revision = REVISION
    private_actions = True

    # The referee (rules.referee) admits each action by the phase table (`PHASES`) and the turn, then runs
    # its handler.
    phases = PHASES
    handlers = {Join: lobby.join, AddComputer: lobby.add_computer, Start: lobby.start, PlayCard: _play,
                Discard: _discard}
    playing_on_a_view = "A view with hidden cards removed cannot be played on."
    resignation = Resignation(turns.resign)

    setup = staticmethod(setup)
    legal_actions = staticmethod(legal_actions)
    view = staticmethod(view)
    describe = staticmethod(describe)
    game_command = staticmethod(command_to_action)
    acting_players = staticmethod(acting_players)
    prompt = staticmethod(prompt)
    turn_key = staticmethod(turn_key)
    check_turn = staticmethod(_check_turn)
    on_rollback = staticmethod(turns.dealt_again_after_rollback)

    hit_size = staticmethod(hit_size)
    review = track_review.REVIEW

    def final_order(self, state: TrackState, left: Mapping[str, int]) -> Order:
        """Seed: "The first player to get all five of his/her pieces into their Finish area wins!": the winner,
        then the others tied (the seed ranks nobody else: RULES.md "Rating order"); a draw ties all but the
        resigned, who rank last."""
        if no_result(state):
            return ()
        gone = resigned(state)
        first = (state.winner,) if state.winner else tuple(p.id for p in state.players if p.id not in gone)
        rest = tuple(p.id for p in state.players if p.id not in first and p.id not in gone)
        return tuple(group for group in (first, rest, gone) if group)

    round_cap = staticmethod(lambda state: state.max_rounds)
    queries = {"hand": hand_text}
    own_words = staticmethod(own_hand)
    computer = ComputerSeats(is_computer, computer_action)
    autopilot = Autopilot(autopilot_action, lambda passive: "what a computer player would play")
    undo_blocker = staticmethod(undo_blocker)
    seat_limit = staticmethod(lambda state: (len(state.players), data.board()["max_players"]))
    selfplay = SELFPLAY
    # Schema 2: the last action's words are drawn from the log's events, not stored.
    snapshot_upgrades = {1: without_fields("last_action")}


TRACK = Track()
apply = TRACK.apply   # the referee (rules.referee.Referee.apply), as tools and tests call it
RULESET = TRACK  # what rules.registry looks up
