"""Loads the track's data files: the reconstructed board and the rulings' defaults."""

from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path

DATA_DIR = Path(__file__).with_name("data")


def _load(name: str) -> dict:
    with (DATA_DIR / name).open("rb") as fh:
        return tomllib.load(fh)


@cache
def board() -> dict:
    """The ring, corners, start offset, finish lane length, cars and hand size (board.toml)."""
    return _load("board.toml")


@cache
def ruling_defaults() -> dict:
    """Each ruling's default value (rulings.toml)."""
    return _load("rulings.toml")
