"""The 54-card deck and what each card does (seed: "value of the cards")."""

from __future__ import annotations

from rules.errors import BadOption

SUITS = ("S", "H", "D", "C")
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
JOKER = "JK"
COME_OUT_RANKS = ("A", "J", "Q", "K")  # plus the Joker when the opponent has nothing on the field
SEVEN_SPLITS = ((6, 1), (5, 2), (4, 3), (3, 4), (2, 5), (1, 6))  # seed: "7 = 7, 6&1, 5&2, or 4&3"
BACKWARD_EIGHT = 8


def full_deck() -> tuple[str, ...]:
    """52 cards and two jokers, in a fixed order before shuffling."""
    return tuple(rank + suit for suit in SUITS for rank in RANKS) + (JOKER, JOKER)


def rank(card: str) -> str:
    """'7H' -> '7', '10S' -> '10', 'JK' -> 'JK'."""
    return card if card == JOKER else card[:-1]


def normalize(text: str) -> str:
    """A card as a player may type it ('7h', '10s', 'T♠', 'joker') in canonical form, or BadOption."""
    raw = (text or "").strip().upper().replace("♠", "S").replace("♥", "H").replace("♦", "D").replace("♣", "C")
    if raw in ("JK", "JOKER", "JO", "X"):
        return JOKER
    if raw.startswith("T"):
        raw = "10" + raw[1:]
    if raw.startswith("1") and raw[1:2] != "0" and len(raw) == 2:
        raw = "A" + raw[1:]
    if len(raw) >= 2 and raw[:-1] in RANKS and raw[-1] in SUITS:
        return raw
    raise BadOption(f"'{text}' is not a card. Write rank then suit, e.g. 7H, 10S, AD, KC, or JK for a joker.")


def forward_values(card: str) -> tuple[int, ...]:
    """The forward counts a card can move one car (7 unsplit; 8 and Joker move no car forward)."""
    r = rank(card)
    if r == "A":
        return (1, 11)
    if r in ("J", "Q", "K"):
        return (10,)
    if r in ("8", JOKER):
        return ()
    return (int(r),)


def can_come_out(card: str) -> bool:
    """Ace, face cards (and the Joker, only when the opponent has no car on the field)."""
    return rank(card) in COME_OUT_RANKS
