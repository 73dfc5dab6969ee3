"""Small hex facts about a car's counter that several modules share."""

from __future__ import annotations

from rules.hexgrid import Hex, step
from rules.speedway.state import Car


def skid_hexes(car: Car, vector: int) -> tuple[Hex, Hex]:
    """The two hexes the counter would occupy after sliding one hex along `vector`."""
    return step(car.front_hex, vector), step(car.back_hex, vector)
