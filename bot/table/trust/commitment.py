"""Dice commitment: a game's seed is published as a hash at the start and revealed at the end."""

from __future__ import annotations

import hashlib
import secrets

MAX_SEED = 2**63  # seeds are below this: random ones use all 63 bits, and SQLite stores them as INTEGER


def new_seed() -> int:
    """A new game's dice seed: 63 random bits, so the published commitment cannot be brute-forced back to
    the seed (and the deck)."""
    return secrets.randbelow(MAX_SEED)


def commitment(seed: int) -> str:
    """The published hash of a game's dice seed."""
    return hashlib.sha256(f"pitboss-dice-seed:{seed}".encode()).hexdigest()


def announce(seed: int) -> str:
    """The line posted when a game is created."""
    return (f"Dice commitment: sha256 {commitment(seed)[:16]}… (the seed is revealed when the game "
            f"ends; /game verify then re-runs every roll).")


def reveal(seed: int) -> str:
    """The line posted when a game ends."""
    return f"Dice seed revealed: {seed} (sha256 {commitment(seed)[:16]}… as committed)."
