"""Cars on the map: two-hex counters with a facing chevron, skid arrows, pending-skid ghosts, name tags."""

from __future__ import annotations

import math
from functools import cache

from PIL import Image, ImageDraw

from images.draw import arrow, chip, dashed_polygon, draw_text, ellipsize, mix, smooth_sprite
from images.fonts import font
from images.hexmap import SQRT3, HexLayout, unit
from images.speedway import style
from rules.hexgrid import step
from rules.speedway.state import Car, SpeedwayState

Box = tuple[float, float, float, float]

HALF_LENGTH = SQRT3 / 2 + 0.74   # counter half-length, in hex sizes
HALF_WIDTH = 0.62
HALO = 0.3
ARROW = 1.75                     # skid arrow length, in hex sizes
SPRITE = 2 * round(style.HEX * (HALF_LENGTH + HALO + ARROW + 0.3))


def _rounded_rect(half_length: float, half_width: float, radius: float) -> list[tuple[float, float]]:
    """A rounded rectangle around the origin in (forward, left) coordinates."""
    points = []
    x, y = half_length - radius, half_width - radius
    for cx, cy, start in ((x, y, 0), (-x, y, 90), (-x, -y, 180), (x, -y, 270)):
        for k in range(7):
            a = math.radians(start + 15 * k)
            points.append((cx + radius * math.cos(a), cy + radius * math.sin(a)))
    return points


def _placer(facing: int, scale: float):
    """Maps (forward, left) hex-size coordinates to sprite pixels at `scale`, centred in the sprite."""
    fx, fy = unit(facing)
    lx, ly = fy, -fx
    c = SPRITE * scale / 2
    r = style.HEX * scale

    def place(points):
        return [(c + r * (x * fx + y * lx), c + r * (x * fy + y * ly)) for x, y in points]
    return place


@cache
def counter_sprite(colour: int, facing: int, active: bool, in_control: bool) -> Image.Image:
    """The counter of a car, centred in a square sprite, its chevron pointing along `facing`."""
    fill = style.car_colour(colour)

    def paint(draw: ImageDraw.ImageDraw, scale: float) -> None:
        place = _placer(facing, scale)
        if active:
            draw.polygon(place(_rounded_rect(HALF_LENGTH + HALO, HALF_WIDTH + HALO, 0.45)),
                         fill=style.PAPER, outline=style.INK, width=round(2.5 * scale))
        draw.polygon(place(_rounded_rect(HALF_LENGTH, HALF_WIDTH, 0.22)), fill=fill,
                     outline=style.INK, width=round(3.5 * scale))
        draw.line(place([(0, HALF_WIDTH), (0, -HALF_WIDTH)]), fill=style.INK, width=round(2 * scale))
        tip = SQRT3 / 2 + 0.64
        draw.polygon(place([(tip, 0), (tip - 0.8, 0.52), (tip - 0.56, 0), (tip - 0.8, -0.52)]),
                     fill=style.PAPER, outline=style.INK, width=round(2.5 * scale))
        if not in_control:
            centre = place([(-SQRT3 / 2, 0)])[0]
            radius = 0.45 * style.HEX * scale
            draw.ellipse([centre[0] - radius, centre[1] - radius, centre[0] + radius, centre[1] + radius],
                         fill=style.INK, outline=style.PAPER, width=round(2 * scale))
            draw_text(draw, centre, "!", font(round(19 * scale), bold=True), style.PAPER, "mm")
    return smooth_sprite(SPRITE, SPRITE, paint)


def _exit_distance(facing: int, direction: int) -> float:
    """How far from the counter's centre a ray in `direction` leaves its outline, in hex sizes."""
    angle = math.radians(60 * ((direction - facing) % 6))
    along, across = abs(math.cos(angle)), abs(math.sin(angle))
    return min(HALF_LENGTH / along if along > 1e-9 else math.inf,
               HALF_WIDTH / across if across > 1e-9 else math.inf)


@cache
def arrow_sprite(facing: int, direction: int, active: bool) -> Image.Image:
    """A skid arrow just outside the counter of a car facing `facing`, pointing along `direction`."""
    def paint(draw: ImageDraw.ImageDraw, scale: float) -> None:
        c = SPRITE * scale / 2
        ux, uy = unit(direction)
        r = style.HEX * scale
        start = _exit_distance(facing, direction) + (HALO if active else 0) + 0.12
        tail = (c + ux * start * r, c + uy * start * r)
        head = (c + ux * (start + ARROW) * r, c + uy * (start + ARROW) * r)
        shape = arrow(tail, head, 0.6 * r, 0.95 * r, 1.5 * r)
        draw.polygon(shape, fill=style.INK, outline=style.PAPER, width=round(3 * scale))
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


def _ghost_hexes(state: SpeedwayState) -> tuple[Car | None, tuple]:
    """The hexes the active car would skid into, with the car, if a skid decision is pending."""
    if not (state.pending_skid and state.active_car):
        return None, ()
    car = state.car(state.active_car)
    if car.front is None:
        return None, ()
    return car, tuple(step(h, state.pending_skid.vector) for h in car.hexes)


def draw_cars(image: Image.Image, state: SpeedwayState,
              layout: HexLayout) -> tuple[dict[str, Box], list[Box]]:
    """Draw every placed car and its skid marks; return each counter's box by car id and the marks' boxes."""
    draw = ImageDraw.Draw(image)
    ghost_car, ghosts = _ghost_hexes(state)
    for h in ghosts:
        draw.polygon(layout.corners(h, 0.92), fill=mix(style.car_colour(ghost_car.colour), style.FIELD, 0.45))
    placed = [c for c in state.cars if c.front is not None]
    boxes, marks = {}, []
    for car in placed:
        sprite = counter_sprite(car.colour, car.facing, car.id == state.active_car, car.in_control)
        boxes[car.id] = _paste(image, sprite, midpoint(car, layout))
    for h in ghosts:
        corners = layout.corners(h, 0.92)
        dashed_polygon(draw, corners, style.PAPER, 7, 8, 5)
        dashed_polygon(draw, corners, style.INK, 4, 8, 5)
        xs, ys = [p[0] for p in corners], [p[1] for p in corners]
        marks.append((min(xs), min(ys), max(xs), max(ys)))
    for car in placed:
        if not car.in_control and car.skid is not None:
            sprite = arrow_sprite(car.facing, car.skid, car.id == state.active_car)
            marks.append(_paste(image, sprite, midpoint(car, layout)))
    return boxes, marks


def _overlap(a: Box, b: Box) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return w * h if w > 0 and h > 0 else 0.0


def _place(counter: Box, w: float, h: float, taken: list[Box], size: tuple[int, int]) -> Box:
    """A w x h box below, above, right or left of `counter`, whichever covers least of `taken`."""
    x0, y0, x1, y1 = counter
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    spots = [(cx - w / 2, y1 + 1), (cx - w / 2, y0 - h - 1), (x1 + 1, cy - h / 2), (x0 - w - 1, cy - h / 2)]
    boxes = [(x, y, x + w, y + h) for x, y in
             ((min(max(x, 2), size[0] - w - 2), min(max(y, 2), size[1] - h - 2)) for x, y in spots)]
    return min(boxes, key=lambda box: sum(_overlap(box, t) for t in taken))


def draw_tags(image: Image.Image, state: SpeedwayState, boxes: dict[str, Box], marks: list[Box]) -> None:
    """Label each placed car with name, speed and inertia chip, beside its counter where it covers least."""
    draw = ImageDraw.Draw(image)
    name_font, stat_font, chip_font = font(25, bold=True), font(24, bold=True), font(18, bold=True)
    taken = list(boxes.values()) + marks
    for car in (c for c in state.cars if c.id in boxes):
        name = ellipsize(car.name, name_font, 240)
        speed = f"{car.speed}▸"
        warn = "" if car.in_control else " ⚠"
        w = name_font.getlength(name) + stat_font.getlength(speed + warn) + 66
        h = 36
        tag = _place(boxes[car.id], w, h, taken, image.size)
        taken.append(tag)
        draw.rounded_rectangle(tag, radius=7, fill=style.PAPER, outline=style.INK,
                               width=3 if car.id == state.active_car else 2)
        draw.rectangle((tag[0] + 3, tag[1] + 3, tag[0] + 9, tag[3] - 3), fill=style.car_colour(car.colour))
        mid = tag[1] + h / 2
        x = tag[0] + 15
        draw_text(draw, (x, mid), name, name_font, style.INK, "lm")
        x += name_font.getlength(name) + 7
        draw_text(draw, (x, mid), speed, stat_font, style.INK, "lm")
        x += stat_font.getlength(speed) + 17
        chip(draw, (x, mid), 13, str(car.inertia), chip_font)
        draw_text(draw, (x + 16, mid), warn, stat_font, style.INK, "lm")
