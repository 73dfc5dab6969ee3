"""Cars on the map: two-hex counters with a facing chevron, skid arrows, pending-skid ghosts, name tags."""

from __future__ import annotations

import math
from functools import cache

from PIL import Image, ImageDraw

from images.draw import arrow, dashed_polygon, draw_text, smooth_sprite
from images.fonts import font
from images.hexmap import SQRT3, HexLayout, unit
from images.speedway import style
from rules.hexgrid import step
from rules.speedway.state import Car, SpeedwayState

Box = tuple[float, float, float, float]

HALF_LENGTH = SQRT3 / 2 + 0.74   # counter half-length, in hex sizes
HALF_WIDTH = 0.62
HALO = 0.3
SPRITE = 2 * round(style.HEX * (HALF_LENGTH + HALO + 0.15))


def _rounded_rect(half_length: float, half_width: float, radius: float) -> list[tuple[float, float]]:
    """A rounded rectangle around the origin in (forward, left) coordinates."""
    points = []
    for cx, cy, start in ((half_length - radius, half_width - radius, 0), (-half_length + radius, half_width - radius, 90),
                          (-half_length + radius, -half_width + radius, 180), (half_length - radius, -half_width + radius, 270)):
        for k in range(7):
            a = math.radians(start + 15 * k)
            points.append((cx + radius * math.cos(a), cy + radius * math.sin(a)))
    return points


def _placer(facing: int, scale: float):
    """Maps (forward, left) hex-size coordinates to sprite pixels at `scale`."""
    fx, fy = unit(facing)
    lx, ly = fy, -fx
    c = SPRITE * scale / 2
    r = style.HEX * scale

    def place(points):
        return [(c + r * (x * fx + y * lx), c + r * (x * fy + y * ly)) for x, y in points]
    return place


@cache
def counter_sprite(colour: int, facing: int, active: bool, in_control: bool) -> Image.Image:
    """The counter of a car, centred in a square sprite, pointing along `facing`."""
    fill = style.car_colour(colour)

    def paint(draw: ImageDraw.ImageDraw, scale: float) -> None:
        place = _placer(facing, scale)
        if active:
            draw.polygon(place(_rounded_rect(HALF_LENGTH + HALO, HALF_WIDTH + HALO, 0.45)),
                         fill=style.PAPER, outline=style.INK, width=round(2.5 * scale))
        draw.polygon(place(_rounded_rect(HALF_LENGTH, HALF_WIDTH, 0.22)), fill=fill,
                     outline=style.INK, width=round(3.5 * scale))
        draw.line(place([(0, HALF_WIDTH), (0, -HALF_WIDTH)]), fill=style.INK, width=round(2 * scale))
        tip = SQRT3 / 2 + 0.62
        draw.polygon(place([(tip, 0), (tip - 0.78, 0.5), (tip - 0.56, 0), (tip - 0.78, -0.5)]),
                     fill=style.PAPER, outline=style.INK, width=round(2.5 * scale))
        if not in_control:
            centre = place([(-SQRT3 / 2, 0)])[0]
            radius = 0.42 * style.HEX * scale
            draw.ellipse([centre[0] - radius, centre[1] - radius, centre[0] + radius, centre[1] + radius],
                         fill=style.INK, outline=style.PAPER, width=round(2 * scale))
            draw_text(draw, centre, "!", font(round(22 * scale), bold=True), style.PAPER, "mm")
    return smooth_sprite(SPRITE, SPRITE, paint)


@cache
def arrow_sprite(direction: int, pending: bool) -> Image.Image:
    """A skid arrow from the sprite centre out along `direction`; hollow while the skid is pending."""
    def paint(draw: ImageDraw.ImageDraw, scale: float) -> None:
        c = SPRITE * scale / 2
        ux, uy = unit(direction)
        r = style.HEX * scale
        tail = (c + ux * 0.35 * r, c + uy * 0.35 * r)
        head = (c + ux * (HALF_LENGTH + HALO + 0.1) * r, c + uy * (HALF_LENGTH + HALO + 0.1) * r)
        shape = arrow(tail, head, 0.34 * r, 0.62 * r, 0.9 * r)
        draw.polygon(shape, fill=style.PAPER if pending else style.INK,
                     outline=style.INK if pending else style.PAPER, width=round(3 * scale))
    return smooth_sprite(SPRITE, SPRITE, paint)


def midpoint(car: Car, layout: HexLayout) -> tuple[float, float]:
    """Pixel centre of a placed car's counter."""
    (fx, fy), (bx, by) = (layout.center(h) for h in car.hexes)
    return ((fx + bx) / 2, (fy + by) / 2)


def _paste(image: Image.Image, sprite: Image.Image, centre: tuple[float, float]) -> Box:
    left, top = round(centre[0] - SPRITE / 2), round(centre[1] - SPRITE / 2)
    image.paste(sprite, (left, top), sprite)
    x0, y0, x1, y1 = sprite.getbbox()
    return (left + x0, top + y0, left + x1, top + y1)


def _ghost(draw: ImageDraw.ImageDraw, car: Car, vector: int, layout: HexLayout) -> None:
    for h in (step(car.front, vector), step(car.back, vector)):
        corners = layout.corners(h, 0.9)
        dashed_polygon(draw, corners, style.PAPER, 7, 9, 5)
        dashed_polygon(draw, corners, style.INK, 4, 9, 5)


def draw_cars(image: Image.Image, state: SpeedwayState, layout: HexLayout) -> dict[str, Box]:
    """Draw every placed car and its skid marks; return each car's counter box by car id."""
    draw = ImageDraw.Draw(image)
    placed = [c for c in state.cars if c.front is not None]
    boxes = {}
    for car in placed:
        sprite = counter_sprite(car.colour, car.facing, car.id == state.active_car, car.in_control)
        boxes[car.id] = _paste(image, sprite, midpoint(car, layout))
    for car in placed:
        if not car.in_control and car.skid is not None:
            _paste(image, arrow_sprite(car.skid, False), midpoint(car, layout))
    if state.pending_skid and state.active_car:
        car = state.car(state.active_car)
        if car.front is not None:
            _ghost(draw, car, state.pending_skid.vector, layout)
            _paste(image, arrow_sprite(state.pending_skid.vector, True), midpoint(car, layout))
    return boxes


def _overlap(a: Box, b: Box) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return w * h if w > 0 and h > 0 else 0.0


def _tag_text(car: Car) -> tuple[str, str]:
    stats = f"{car.speed}▸ I{car.inertia}" + ("" if car.in_control else " ⚠")
    return car.name, stats


def draw_tags(image: Image.Image, state: SpeedwayState, boxes: dict[str, Box]) -> None:
    """Label each placed car with its name, speed and inertia, beside its counter where it fits best."""
    draw = ImageDraw.Draw(image)
    name_font, stat_font = font(22, bold=True), font(21)
    taken = list(boxes.values())
    for car in (c for c in state.cars if c.id in boxes):
        name, stats = _tag_text(car)
        w = name_font.getlength(name) + stat_font.getlength(stats) + 30
        h = 32
        x0, y0, x1, y1 = boxes[car.id]
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        candidates = [(cx - w / 2, y1 + 1), (cx - w / 2, y0 - h - 1), (x1 + 1, cy - h / 2), (x0 - w - 1, cy - h / 2)]
        candidates = [(min(max(x, 2), image.width - w - 2), min(max(y, 2), image.height - h - 2)) for x, y in candidates]
        best = min(candidates, key=lambda p: sum(_overlap((p[0], p[1], p[0] + w, p[1] + h), t) for t in taken))
        tag = (best[0], best[1], best[0] + w, best[1] + h)
        taken.append(tag)
        active = car.id == state.active_car
        draw.rounded_rectangle(tag, radius=7, fill=style.PAPER, outline=style.INK, width=3 if active else 2)
        draw.rectangle((tag[0] + 3, tag[1] + 3, tag[0] + 10, tag[3] - 3), fill=style.car_colour(car.colour))
        text_y = tag[1] + h / 2
        draw_text(draw, (tag[0] + 16, text_y), name, name_font, style.INK, "lm")
        draw_text(draw, (tag[0] + 22 + name_font.getlength(name), text_y), stats, stat_font, style.INK, "lm")
