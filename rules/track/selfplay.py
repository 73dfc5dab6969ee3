"""How `pitboss selfplay` sets up Track races of computer players, and what its summary counts."""

from __future__ import annotations

from rules.engine import SelfplaySetup, event_type

# A round cap far above the ~40-120 rounds a game takes, so a stuck policy still ends.
SELFPLAY = SelfplaySetup(lambda rng: "rounds:500", lambda rng: ["/game add-ai", "/game add-ai"], (
    ("cards", event_type("CardPlayed")), ("discards", event_type("CardDiscarded")),
    ("bumps", event_type("CarBumped")), ("swaps", event_type("CarsSwapped")),
    ("reshuffles", event_type("DeckReshuffled"))))
