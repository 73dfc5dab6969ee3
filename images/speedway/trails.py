"""The turn on the map: a faint trail of each car's path and a mark where something crashed or blew up.

A player who comes back hours later reads the last turn (a computer's above all) from the picture: the
trails follow the cars' front hexes through the Moves and slides of the events given, and each ram,
strike, swipe, slide collision and mine explosion gets a burst on its hex.
"""

from __future__ import annotations

from PIL import Image, ImageDraw

from images import palette
from images.draw import smooth_overlay, star
from images.hexmap import HexLayout
from images.speedway import style
from images.speedway.last_turn import car_in
from rules.hexgrid import Hex, parse_label
from rules.speedway.events import CarManeuvered, CarSlid, Collided, MineExploded
from rules.speedway.state import SpeedwayState

Box = tuple[float, float, float, float]


def paths(events: tuple) -> dict[str, list[Hex]]:
    """Each car's front hexes in order, by car name, from its Moves and slides among `events`."""
    out: dict[str, list[Hex]] = {}
    for event in events:
        if isinstance(event, CarManeuvered):
            path = out.setdefault(event.car, [])
            start = parse_label(event.from_hex)
            if not path or path[-1] != start:
                path.append(start)
            path.append(parse_label(event.to_hex))
        elif isinstance(event, CarSlid) and out.get(event.car):
            out[event.car].append(parse_label(event.to_hex))
    return {name: path for name, path in out.items() if len(path) > 1}


def crash_sites(events: tuple) -> list[tuple[Hex, bool]]:
    """Where collisions happened and mines went off: (hex, was it an explosion)."""
    sites = []
    for event in events:
        if isinstance(event, Collided):
            try:
                sites.append((parse_label(event.at_hex), False))
            except ValueError:   # a strike beyond the wall is told at the car's own hex, always a label
                continue
        elif isinstance(event, MineExploded):
            sites.append((parse_label(event.at_hex), True))
    return list(dict.fromkeys(sites))


def draw_trails(image: Image.Image, state: SpeedwayState, layout: HexLayout, events: tuple) -> list[Box]:
    """A faint line through each car's path in its colour, a dot on every hex it passed; returns their
    boxes so name tags keep off them."""
    draw = ImageDraw.Draw(image)
    boxes = []
    for name, path in paths(events).items():
        car = car_in(state, "", name)
        if car is None:
            continue
        colour = palette.TRAIL_COLOURS[car.colour % len(palette.TRAIL_COLOURS)]
        points = [layout.center(h) for h in path]
        draw.line(points, fill=colour, width=round(style.HEX * 0.34), joint="curve")
        for x, y in points[:-1]:
            r = style.HEX * 0.24
            draw.ellipse((x - r, y - r, x + r, y + r), fill=colour, outline=palette.PAPER, width=2)
            boxes.append((x - r, y - r, x + r, y + r))
    return boxes


def draw_crashes(image: Image.Image, layout: HexLayout, events: tuple) -> list[Box]:
    """A small jagged burst at the top corner of each hex where something crashed or a mine blew up."""
    boxes: list[Box] = []
    for h, explosion in crash_sites(events):
        cx, cy = layout.center(h)
        x, y = cx + 0.45 * style.HEX, cy - 0.55 * style.HEX
        outer = (0.62 if explosion else 0.5) * style.HEX
        fill = palette.FLAME if explosion else palette.FLAME_CORE
        box = (round(x - outer - 4), round(y - outer - 4), round(x + outer + 4), round(y + outer + 4))

        def paint(draw, to_px, scale, x=x, y=y, outer=outer, fill=fill):
            draw.polygon(star(to_px((x, y)), outer * scale, 0.5 * outer * scale, 9, 0.2), fill=fill,
                         outline=palette.INK, width=round(2 * scale))
        smooth_overlay(image, box, paint)
        boxes.append(box)
    return boxes
