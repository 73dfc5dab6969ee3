"""Cars on the map: two-hex counters with a facing chevron, wrecks and fire badges, skid arrows,
pending-skid ghosts, name tags; hazards below the cars and the last shot above them."""

from __future__ import annotations

import math
from functools import cache

from PIL import Image, ImageDraw

from images import palette
from images.draw import arrow, chip, dashed_polygon, draw_text, ellipsize, mix, smooth_sprite
from images.fonts import font
from images.hexmap import SQRT3, HexLayout, unit
from images.speedway import style
from images.speedway.combat import draw_hazards, draw_shot
from images.speedway.last_turn import Shot
from images.speedway.livery import pattern, swatch
from rules.hexgrid import step
from rules.speedway import data
from rules.speedway.state import Car, SpeedwayState, required

Box = tuple[float, float, float, float]

HALF_LENGTH = SQRT3 / 2 + 0.74   # counter half-length, in hex sizes
HALF_WIDTH = 0.62
HALO = 0.3
ARROW = 1.75                     # skid arrow length, in hex sizes
SPRITE = 2 * round(style.HEX * (HALF_LENGTH + HALO + ARROW + 0.3))
# How far from the sprite's centre a counter draws (its halo's corner, outline included): only that
# square is supersampled (smooth_sprite's `within`), a third of the sprite, the rest being the skid
# arrows' room.
COUNTER_REACH = math.ceil(style.HEX * (HALF_LENGTH + HALO)) + 4


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


def _teardrop(x: float, y: float, w: float, h: float, curl: float) -> list[tuple[float, float]]:
    """A flame outline: a round bottom of radius `w` centred on (x, y), sides rising `h` to a curled tip."""
    bottom = [(x + w * math.cos(math.pi * k / 12), y + w * math.sin(math.pi * k / 12)) for k in range(13)]
    rise = [k / 10 for k in range(1, 10)]
    left = [(x - w * (1 - t) ** 0.7 + curl * t * t, y - h * t) for t in rise]
    right = [(x + w * (1 - t) ** 0.7 + curl * t * t, y - h * t) for t in reversed(rise)]
    return bottom + left + [(x + curl, y - h)] + right


def paint_flame(draw: ImageDraw.ImageDraw, centre: tuple[float, float], size: float) -> None:
    """A flame mark about `size` tall, centred on `centre`: orange with a yellow core, outlined in ink."""
    w, h = 0.3 * size, 0.7 * size
    x, y = centre[0], centre[1] + (h - w) / 2
    draw.polygon(_teardrop(x, y, w, h, 0.12 * size), fill=palette.FLAME, outline=palette.INK,
                 width=max(1, round(0.07 * size)))
    draw.polygon(_teardrop(x, y + 0.4 * w, 0.55 * w, 0.55 * h, 0.05 * size), fill=palette.FLAME_CORE)


def counter_sprite(colour: int, facing: int, active: bool, in_control: bool, out: bool = False,
                   fire: int = 0) -> Image.Image:
    """The counter of a car, centred in a square sprite (counter_piece, put back in its square)."""
    piece, offset = counter_piece(colour, facing, active, in_control, out, fire)
    sprite = Image.new("RGBA", (SPRITE, SPRITE), (0, 0, 0, 0))
    sprite.paste(piece, offset)
    return sprite


@cache
def counter_piece(colour: int, facing: int, active: bool, in_control: bool, out: bool = False,
                  fire: int = 0) -> tuple[Image.Image, tuple[int, int]]:
    """The part of a car's counter sprite (_counter_sprite) that draws anything, and where it sits in the
    square: ~7% of the square's pixels, so the 216 kept for every picture take ~1.6 MB, not 22 (issue 39,
    item 8)."""
    sprite = _counter_sprite(colour, facing, active, in_control, out, fire)
    box = required(sprite.getbbox(), "a blank sprite", sprite.size)
    return sprite.crop(box), box[:2]


def _counter_sprite(colour: int, facing: int, active: bool, in_control: bool, out: bool,
                    fire: int) -> Image.Image:
    """The counter of a car, centred in a square sprite, its chevron pointing along `facing`; a wreck is
    greyed and crossed out, a burning car wears a flame badge."""
    fill = palette.wreck_colour(colour) if out else palette.car_colour(colour)
    edge = palette.MUTED if out else palette.INK

    def paint(draw: ImageDraw.ImageDraw, scale: float) -> None:
        place = _placer(facing, scale)
        if active:
            draw.polygon(place(_rounded_rect(HALF_LENGTH + HALO, HALF_WIDTH + HALO, 0.45)),
                         fill=palette.PAPER, outline=palette.INK, width=round(2.5 * scale))
        body = _rounded_rect(HALF_LENGTH, HALF_WIDTH, 0.22)
        draw.polygon(place(body), fill=fill, outline=edge, width=round(3.5 * scale))
        draw.line(place([(0, HALF_WIDTH), (0, -HALF_WIDTH)]), fill=edge, width=round(2 * scale))
        tip = SQRT3 / 2 + 0.64
        stripes = pattern(colour)
        for k in range(stripes):   # a player's later car: racing stripes along the body
            y = HALF_WIDTH * 0.9 * ((2 * k + 1) / stripes - 1)
            line = place([(-HALF_LENGTH + 0.3, y), (tip - 0.95, y)])
            draw.line(line, fill=edge, width=round((9 if stripes == 1 else 7) * scale))
            draw.line(line, fill=palette.PAPER, width=round((5 if stripes == 1 else 3.5) * scale))
        draw.polygon(place([(tip, 0), (tip - 0.8, 0.52), (tip - 0.56, 0), (tip - 0.8, -0.52)]),
                     fill=palette.WRECK if out else palette.PAPER, outline=edge, width=round(2.5 * scale))
        if out:
            a, b = HALF_LENGTH - 0.3, HALF_WIDTH - 0.12
            for line in ([(-a, b), (a, -b)], [(-a, -b), (a, b)]):
                draw.line(place(line), fill=palette.PAPER, width=round(9 * scale))
            for line in ([(-a, b), (a, -b)], [(-a, -b), (a, b)]):
                draw.line(place(line), fill=palette.INK, width=round(5 * scale))
        if not in_control and not out:
            centre = place([(-SQRT3 / 2, 0)])[0]
            radius = 0.45 * style.HEX * scale
            draw.ellipse([centre[0] - radius, centre[1] - radius, centre[0] + radius, centre[1] + radius],
                         fill=palette.INK, outline=palette.PAPER, width=round(2 * scale))
            draw_text(draw, centre, "!", font(round(19 * scale), bold=True), palette.PAPER, "mm")
        if fire:
            centre = place([(0.12, HALF_WIDTH)])[0]   # a sticker on the counter's left flank
            radius = 0.52 * style.HEX * scale
            draw.ellipse([centre[0] - radius, centre[1] - radius, centre[0] + radius, centre[1] + radius],
                         fill=palette.PAPER, outline=palette.INK, width=round(2 * scale))
            paint_flame(draw, centre, 1.5 * radius)
            if fire > 1:
                at = (centre[0] + 0.78 * radius, centre[1] + 0.72 * radius)
                small = 0.52 * radius
                draw.ellipse([at[0] - small, at[1] - small, at[0] + small, at[1] + small], fill=palette.INK)
                draw_text(draw, at, str(fire), font(round(11 * scale), bold=True), palette.PAPER, "mm")
    centre = SPRITE // 2
    return smooth_sprite(SPRITE, SPRITE, paint, within=(centre - COUNTER_REACH, centre - COUNTER_REACH,
                                                        centre + COUNTER_REACH, centre + COUNTER_REACH))


def _exit_distance(facing: int, direction: int) -> float:
    """How far from the counter's centre a ray in `direction` leaves its outline, in hex sizes."""
    angle = math.radians(60 * ((direction - facing) % 6))
    along, across = abs(math.cos(angle)), abs(math.sin(angle))
    return min(HALF_LENGTH / along if along > 1e-9 else math.inf,
               HALF_WIDTH / across if across > 1e-9 else math.inf)


def prebuild_counters() -> None:
    """Draw ahead the counters most pictures show: each player colour's first car at every facing, on
    its turn or not, in control or not, and wrecked (216 sprites, ~5 ms each: a first one drawn in a
    move was the slowest move's cost). The arguments are passed as draw_cars passes them: the cache
    keys on how a call is written, not only on the values."""
    for colour in range(len(palette.CAR_COLOURS)):
        for facing in range(6):
            for flag in (False, True):
                for in_control in (False, True):
                    counter_piece(colour, facing, flag, in_control, False, 0)
                counter_piece(colour, facing, False, flag, True, 0)


@cache
def arrow_sprite(facing: int, direction: int, active: bool) -> Image.Image:
    """A skid arrow just outside the counter of a car facing `facing`, pointing along `direction`."""
    def shape(scale: float) -> list[tuple[float, float]]:
        c = SPRITE * scale / 2
        ux, uy = unit(direction)
        r = style.HEX * scale
        start = _exit_distance(facing, direction) + (HALO if active else 0) + 0.12
        tail = (c + ux * start * r, c + uy * start * r)
        head = (c + ux * (start + ARROW) * r, c + uy * (start + ARROW) * r)
        return arrow(tail, head, 0.6 * r, 0.95 * r, 1.5 * r)

    def paint(draw: ImageDraw.ImageDraw, scale: float) -> None:
        draw.polygon(shape(scale), fill=palette.INK, outline=palette.PAPER, width=round(3 * scale))
    xs, ys = zip(*shape(1.0))
    return smooth_sprite(SPRITE, SPRITE, paint, (math.floor(min(xs)) - 2, math.floor(min(ys)) - 2,
                                                 math.ceil(max(xs)) + 2, math.ceil(max(ys)) + 2))


def midpoint(car: Car, layout: HexLayout) -> tuple[float, float]:
    """Pixel centre of a placed car's counter."""
    (fx, fy), (bx, by) = (layout.center(h) for h in car.hexes)
    return ((fx + bx) / 2, (fy + by) / 2)


def _corner(centre: tuple[float, float]) -> tuple[int, int]:
    """Where a square sprite centred on `centre` starts."""
    return round(centre[0] - SPRITE / 2), round(centre[1] - SPRITE / 2)


def _paste(image: Image.Image, sprite: Image.Image, centre: tuple[float, float]) -> Box:
    left, top = _corner(centre)
    image.paste(sprite, (left, top), sprite)
    return sprite_box(sprite, left, top)


def sprite_box(sprite: Image.Image, left: int, top: int) -> Box:
    """The box a sprite pasted at (left, top) covers with what it draws (no sprite is blank)."""
    x0, y0, x1, y1 = required(sprite.getbbox(), "a blank sprite", sprite.size)
    return (left + x0, top + y0, left + x1, top + y1)


def _ghost_hexes(state: SpeedwayState) -> tuple[Car | None, tuple]:
    """The hexes the active car would skid into, with the car, if a skid decision is pending."""
    if not (state.pending_skid and state.active_car):
        return None, ()
    car = state.car(state.active_car)
    if car.front is None:
        return None, ()
    return car, tuple(step(h, state.pending_skid.vector) for h in car.hexes)


def draw_cars(image: Image.Image, state: SpeedwayState, layout: HexLayout,
              shot: Shot | None = None, words: bool = True) -> tuple[dict[str, Box], list[Box]]:
    """Draw every placed car, its skid marks and the last action's `shot`; return each counter's box by
    car id and the marks' boxes. Without `words`, a burning car's flame badge leaves out its count (a
    close-up writes it on the car's tag)."""
    draw = ImageDraw.Draw(image)
    ghost_car, ghosts = _ghost_hexes(state)
    if ghost_car is not None:
        for h in ghosts:
            draw.polygon(layout.corners(h, 0.92), fill=mix(palette.car_colour(ghost_car.colour), palette.FIELD, 0.45))
    hazards = draw_hazards(image, state, layout)
    placed = [c for c in state.cars if c.front is not None]
    boxes: dict[str, Box] = {}
    marks = list(hazards)
    for car in sorted(placed, key=lambda c: not c.out):   # wrecks underneath the cars still running
        piece, (dx, dy) = counter_piece(car.colour, car.facing, car.id == state.active_car, car.in_control,
                                        car.out, min(car.fire_chips, 9 if words else 1))
        left, top = _corner(midpoint(car, layout))
        image.paste(piece, (left + dx, top + dy), piece)
        boxes[car.id] = (left + dx, top + dy, left + dx + piece.width, top + dy + piece.height)
    for h in ghosts:
        corners = layout.corners(h, 0.92)
        dashed_polygon(draw, corners, palette.PAPER, 7, 8, 5)
        dashed_polygon(draw, corners, palette.INK, 4, 8, 5)
        xs, ys = [p[0] for p in corners], [p[1] for p in corners]
        marks.append((min(xs), min(ys), max(xs), max(ys)))
    for car in placed:
        if not car.in_control and car.skid is not None and not car.out:
            sprite = arrow_sprite(car.facing, car.skid, car.id == state.active_car)
            marks.append(_paste(image, sprite, midpoint(car, layout)))
    marks.extend(draw_shot(image, shot, layout))
    return boxes, marks


def _overlap(a: Box, b: Box) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return w * h if w > 0 and h > 0 else 0.0


TAG_OVER_TAG = 10   # covering another name tag weighs this many times covering a counter or a mark


def _place(counter: Box, w: float, h: float, taken: list[Box], size: tuple[int, int],
           tags: list[Box] | None = None) -> Box:
    """A w x h box beside `counter` (below, above, right, left, or at a corner), inside the field (never
    on the edge rulers), whichever covers least of `taken` and, TAG_OVER_TAG times over, of the name
    `tags` already placed; the nearer sides win a tie."""
    x0, y0, x1, y1 = counter
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    spots = [(cx - w / 2, y1 + 1), (cx - w / 2, y0 - h - 1), (x1 + 1, cy - h / 2), (x0 - w - 1, cy - h / 2),
             (x1 + 1, y1 + 1), (x0 - w - 1, y1 + 1), (x1 + 1, y0 - h - 1), (x0 - w - 1, y0 - h - 1)]
    left, top = style.MAP_SIDE - 6, style.MAP_END - 6
    right, bottom = size[0] - style.MAP_SIDE + 6, size[1] - style.MAP_END + 6
    boxes = [(x, y, x + w, y + h) for x, y in
             ((min(max(x, left), right - w), min(max(y, top), bottom - h)) for x, y in spots)]
    rx0, ry0 = min(b[0] for b in boxes), min(b[1] for b in boxes)
    rx1, ry1 = max(b[2] for b in boxes), max(b[3] for b in boxes)

    def near(boxes_: list[Box]) -> list[Box]:   # the rest cover no candidate: the same choice, for less work
        return [t for t in boxes_ if t[0] < rx1 and t[2] > rx0 and t[1] < ry1 and t[3] > ry0]
    others, labels = near(taken), near(tags or [])
    return min(boxes, key=lambda box: _covered(box, others) + TAG_OVER_TAG * _covered(box, labels))


def _covered(box: Box, boxes: list[Box]) -> float:
    """The area of `boxes` that `box` covers, added up in order (what summing _overlap gives, a tag's
    eight spots each weighed against every box near: a loop without a call a box)."""
    x0, y0, x1, y1 = box
    total = 0.0
    for left, top, right, bottom in boxes:
        w = (x1 if x1 < right else right) - (x0 if x0 > left else left)
        if w > 0:
            h = (y1 if y1 < bottom else bottom) - (y0 if y0 > top else top)
            if h > 0:
                total += w * h
    return total


def _hex_box(layout: HexLayout, h) -> Box:
    xs, ys = zip(*layout.corners(h))
    return min(xs), min(ys), max(xs), max(ys)


@cache
def _obstacle_boxes(arena_id: str, layout: HexLayout) -> tuple[Box, ...]:
    return tuple(_hex_box(layout, h) for h in sorted(data.arena(arena_id).obstacles))


def keep_clear(state: SpeedwayState, layout: HexLayout) -> list[Box]:
    """Where no name tag should sit: the arena's obstacles and the hex each running car is about to enter."""
    ahead = [_hex_box(layout, step(c.front, c.facing)) for c in state.cars if c.front is not None and not c.out]
    return [*_obstacle_boxes(state.arena, layout), *ahead]


def _wreck_tag(draw: ImageDraw.ImageDraw, car: Car, name: str, name_font, stat_font, tag: Box) -> None:
    """A wreck's tag: greyed, its name and an OUT mark instead of speed and inertia."""
    draw.rounded_rectangle(tag, radius=7, fill=palette.ZEBRA, outline=palette.MUTED, width=2)
    draw.rectangle((tag[0] + 3, tag[1] + 3, tag[0] + 9, tag[3] - 3), fill=palette.car_colour(car.colour))
    mid = (tag[1] + tag[3]) / 2
    x = tag[0] + 15
    draw_text(draw, (x, mid), name, name_font, palette.MUTED, "lm")
    x += name_font.getlength(name) + 8
    draw.rounded_rectangle((x - 3, mid - 13, x + stat_font.getlength("OUT") + 4, mid + 13), radius=5,
                           fill=palette.INK)
    draw_text(draw, (x, mid), "OUT", stat_font, palette.PAPER, "lm")


def _speed_words(car: Car) -> tuple[str, str]:
    """A running car's speed on its tag, and the warning it wears out of control."""
    return f"{car.speed}▸", "" if car.in_control else " ⚠"


def _tag_width(car: Car, name: str, name_font, stat_font) -> float:
    """How wide a car's tag is: its name, then OUT for a wreck, else speed, inertia and fire."""
    if car.out:
        return name_font.getlength(name) + stat_font.getlength("OUT") + 46
    speed, warn = _speed_words(car)
    w = name_font.getlength(name) + stat_font.getlength(speed + warn) + 66 + (10 if car.inertia > 9 else 0)
    if car.fire_chips:
        w += 26 + (stat_font.getlength(str(car.fire_chips)) + 4 if car.fire_chips > 1 else 0)
    return w


def draw_tags(image: Image.Image, state: SpeedwayState, boxes: dict[str, Box], marks: list[Box]) -> None:
    """Label each placed car with name, speed and inertia chip, beside its counter where it covers least:
    the running cars' tags placed first (the best places) and drawn last (on top), a wreck's placed
    clear of them; no tag is put over another where the field leaves room."""
    draw = ImageDraw.Draw(image)
    name_font, stat_font, chip_font = font(25, bold=True), font(24, bold=True), font(18, bold=True)
    taken = list(boxes.values()) + marks
    cars = sorted((c for c in state.cars if c.id in boxes), key=lambda c: c.out)   # running cars first
    names = {car.id: ellipsize(car.name, name_font, 240) for car in cars}
    tags: dict[str, Box] = {}
    for car in cars:
        w = _tag_width(car, names[car.id], name_font, stat_font)
        tags[car.id] = _place(boxes[car.id], w, 36, taken, image.size, list(tags.values()))
    for car in reversed(cars):
        if car.out:
            _wreck_tag(draw, car, names[car.id], name_font, stat_font, tags[car.id])
        else:
            _running_tag(draw, state, car, names[car.id], (name_font, stat_font, chip_font), tags[car.id])


def _running_tag(draw: ImageDraw.ImageDraw, state: SpeedwayState, car: Car, name: str, fonts: tuple,
                 tag: Box) -> None:
    """A running car's tag: its colour, name, speed, inertia chip, a warning when out of control, fire."""
    name_font, stat_font, chip_font = fonts
    speed, warn = _speed_words(car)
    draw.rounded_rectangle(tag, radius=7, fill=palette.PAPER, outline=palette.INK,
                           width=3 if car.id == state.active_car else 2)
    swatch(draw, (tag[0] + 3, tag[1] + 3, tag[0] + 9, tag[3] - 3), car.colour)
    mid = (tag[1] + tag[3]) / 2
    x = tag[0] + 15
    draw_text(draw, (x, mid), name, name_font, palette.INK, "lm")
    x += name_font.getlength(name) + 7
    draw_text(draw, (x, mid), speed, stat_font, palette.INK, "lm")
    x += stat_font.getlength(speed) + 17
    chip(draw, (x, mid), max(13, chip_font.getlength(str(car.inertia)) / 2 + 5), str(car.inertia), chip_font)
    draw_text(draw, (x + 16, mid), warn, stat_font, palette.INK, "lm")
    if car.fire_chips:
        x += 16 + stat_font.getlength(warn) + 16
        paint_flame(draw, (x, mid - 1), 24)
        if car.fire_chips > 1:
            draw_text(draw, (x + 9, mid), str(car.fire_chips), stat_font, palette.BAD, "lm")
