"""Each car's paint as drawn: every car of a player in that player's colour, a second car told apart
by a striped livery (and a third by a second pattern), so a glance says both whose car it is and which.

The rules give each car a colour by its seat; the pictures repaint a player's later cars in the colour
of the player's first car plus one round of the palette per earlier car (`palette.car_colour` wraps, so
every colour lookup still finds the owner's colour, and `pattern` tells the rounds apart).
"""

from __future__ import annotations

from dataclasses import replace

from images import palette
from rules.speedway.state import SpeedwayState


def liveried(state: SpeedwayState) -> SpeedwayState:
    """`state` with each car's colour index as drawn: its owner's first car's, plus len(CAR_COLOURS)
    for each earlier car of the same owner."""
    rounds = len(palette.CAR_COLOURS)
    first: dict[str, int] = {}
    earlier: dict[str, int] = {}
    cars = []
    for car in state.cars:
        base = first.setdefault(car.owner, car.colour % rounds)
        count = earlier.get(car.owner, 0)
        earlier[car.owner] = count + 1
        colour = base + rounds * count
        cars.append(car if colour == car.colour else replace(car, colour=colour))
    return replace(state, cars=tuple(cars))


def pattern(colour: int) -> int:
    """Which of a player's cars a drawn colour index is: 0 plain, 1 striped, 2 and on two-tone."""
    return colour // len(palette.CAR_COLOURS)


def swatch(draw, box: tuple[float, float, float, float], colour: int, fill=None, radius: int = 0) -> None:
    """A car's colour bar (on its tag or its chip) in `box`, with its livery's stripes down the middle;
    `fill` overrides the colour (a wreck's grey)."""
    x0, y0, x1, y1 = box
    draw.rounded_rectangle(box, radius=radius, fill=fill or palette.car_colour(colour))
    stripes = pattern(colour)
    if stripes:
        lane = (x1 - x0) / (2 * stripes + 1)
        for k in range(stripes):
            left = x0 + lane * (2 * k + 1)
            draw.rectangle((round(left), y0 + 1, round(left + lane) - 1, y1 - 1), fill=palette.PAPER)
