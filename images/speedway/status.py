"""One compact status chip per car, beside or under the map: what decides the fight, at phone size.

Each chip shows the car's name in its colour, speed and inertia spelled out, control, fire, and the
figures that matter most (Armor, Engine, Driver, working weapons). The full sheets are drawn on
request (`/game sheet`), not in every channel picture.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from PIL import Image, ImageDraw, ImageFont

from images import palette
from images.bounded import bounded
from images.draw import draw_text, ellipsize, fit_font
from images.fonts import font
from images.speedway import style
from images.speedway.livery import swatch
from rules.speedway.state import Car, SpeedwayState

CHIP_HEIGHT = 80
CHIP_BYTES = 8 << 20   # the chips kept (images.bounded): ~85 of a page's width (~94 KB each), a few tables' worth
GAP = 8
NAME = 24
TEXT = 22
PHONE_WIDTH = 420   # what a phone shows a picture at, in pixels
PHONE_TEXT = 9      # the smallest figures still read there


def _figures(car: Car) -> tuple[str, ...]:
    """Armor, Engine, Driver and working guns: spelled out, then shorter for a narrow chip."""
    a, e, d = (car.systems.rating(name) for name in ("armor", "engine", "driver"))
    weapons = [w for w in car.weapons if w.offensive]
    guns = f"{sum(1 for w in weapons if w.working)}/{len(weapons)}"
    return (f"Armor {a} · Engine {e} · Driver {d} · guns {guns}", f"Arm {a} · Eng {e} · Drv {d} · guns {guns}",
            f"Arm{a} Eng{e} Drv{d} · guns {guns}", f"Arm{a} Eng{e} Drv{d} guns {guns}",
            f"A{a} E{e} D{d} · guns {guns}")


def _motion(car: Car) -> tuple[str, ...]:
    """Speed, inertia and fire: spelled out, then shorter for a narrow chip."""
    if car.out:
        return ("wrecked",)
    fire = f" · fire {car.fire_chips}" if car.fire_chips else ""
    return f"speed {car.speed} · inertia {car.inertia}{fire}", f"spd {car.speed} · inertia {car.inertia}{fire}"


def smallest_text(page_width: int) -> int:
    """The smallest font size that still reads once a picture `page_width` wide is shown at phone width."""
    return min(TEXT, math.ceil(PHONE_TEXT * page_width / PHONE_WIDTH))


def _fitted(texts: tuple[str, ...], width: float, minimum: int) -> tuple[str, ImageFont.FreeTypeFont]:
    """The first of `texts` (fullest wording first) that fits `width` nearly full size, else the first
    that fits at `minimum` or larger, with its font: a larger size beats a fuller wording."""
    for floor in (max(minimum, TEXT - 2), minimum):
        for text in texts:
            body = fit_font(text, TEXT, width, minimum=floor)
            if body.getlength(text) <= width:
                return text, body
    return texts[-1], fit_font(texts[-1], TEXT, width, minimum=12)


@dataclass(frozen=True)
class ChipFace:
    """Everything a car's chip shows, in words and colours: two cars (or one car at two moments) with
    the same face get the same chip."""

    colour: int
    out: bool
    active: bool
    name: str
    flag: str
    alarm: bool   # the flag is a warning (wrecked, skidding), drawn in the bad colour
    lines: tuple[tuple[str, ...], ...]   # each figures line's wordings, fullest first


Chips = tuple[tuple[ChipFace, tuple[int, int, int, int]], ...]   # each chip's face and box on its band


def chip_face(state: SpeedwayState, car: Car) -> ChipFace:
    """What `car`'s chip shows now."""
    active = car.id == state.active_car
    flag = "OUT" if car.out else "⚠ skidding" if not car.in_control else "◀ acting" if active else ""
    player = state.player(car.owner)
    name = f"{car.name} (AI)" if player and player.ai else car.name
    return ChipFace(car.colour, car.out, active, name, flag, car.out or not car.in_control,
                    (_motion(car), _figures(car)))


def draw_chip(draw: ImageDraw.ImageDraw, face: ChipFace, box: tuple[float, ...], minimum: int = TEXT) -> None:
    """One car's chip in `box`: a bar in its colour, its name and flags, then two lines of figures (at
    `minimum` points or larger, in the longest wording that fits)."""
    x0, y0, x1, y1 = box
    colour = palette.wreck_colour(face.colour) if face.out else palette.car_colour(face.colour)
    draw.rounded_rectangle(box, radius=10, fill=palette.PAPER, outline=palette.INK, width=4 if face.active else 2)
    swatch(draw, (x0 + 4, y0 + 4, x0 + 16, y1 - 4), face.colour, colour, radius=4)
    left, right = x0 + 23, x1 - 6
    bold = font(NAME, bold=True)
    flag_font = font(TEXT, bold=True)
    flag_width = flag_font.getlength(face.flag) + (12 if face.flag else 0)
    draw_text(draw, (left, y0 + 17), ellipsize(face.name, bold, right - left - flag_width), bold, palette.INK, "lm")
    if face.flag:
        draw_text(draw, (right, y0 + 17), face.flag, flag_font, palette.BAD if face.alarm else palette.INK, "rm")
    for row, texts in enumerate(face.lines):
        text, body = _fitted(texts, right - left, minimum)
        draw_text(draw, (left, y0 + 42 + row * 23), text, body, palette.MUTED if face.out else palette.INK, "lm")


def chip_image(face: ChipFace, width: int, minimum: int) -> Image.Image:
    """A chip drawn on its own, to be pasted where it goes (on whole pixels: a chip drawn at a fraction of
    a pixel can round differently once moved)."""
    image = Image.new("RGB", (width + 1, CHIP_HEIGHT + 1), palette.PAPER)
    draw_chip(ImageDraw.Draw(image), face, (0, 0, width, CHIP_HEIGHT), minimum)
    return image


_chip = bounded(CHIP_BYTES)(chip_image)   # most chips do not change from one move to the next


def chip_boxes(cars: int, width: int, height: int, columns: int) -> list[tuple[int, int, int, int]]:
    """Where each of `cars` chips goes on a `width` x `height` band, in seating order, on whole pixels:
    in as few of `columns` columns as the band's rows allow; the chips that do not fit are left out."""
    columns = chip_columns(cars, height, columns)
    chip_width = (width - 2 * style.PAD - (columns - 1) * GAP) // columns
    boxes = []
    for index in range(cars):
        row, column = divmod(index, columns)
        x = style.PAD + column * (chip_width + GAP)
        y = style.PAD // 2 + row * (CHIP_HEIGHT + GAP)
        if y + CHIP_HEIGHT > height:
            break
        boxes.append((x, y, x + chip_width, y + CHIP_HEIGHT))
    return boxes


def status_chips(state: SpeedwayState, width: int, height: int, columns: int) -> Chips:
    """Each car's chip face and where it goes on a `width` x `height` band (chip_boxes): all the band shows."""
    return tuple((chip_face(state, car), box) for car, box in zip(state.cars,
                                                                  chip_boxes(len(state.cars), width, height, columns)))


def draw_status(chips: Chips, width: int, height: int, page_width: int) -> Image.Image:
    """The band of `chips` (status_chips), `width` x `height`, in a picture `page_width` wide."""
    image = Image.new("RGB", (width, height), palette.PAPER)
    for face, box in chips:
        image.paste(_chip(face, box[2] - box[0], smallest_text(page_width)), box[:2])
    return image


def render_status(state: SpeedwayState, width: int, height: int, columns: int, page_width: int) -> Image.Image:
    """Every car's chip in seating order, on a `width` x `height` band of a picture `page_width` wide
    (which sets how small its figures may be): in as few of `columns` columns as the band's rows allow,
    so that fewer cars get wider chips and fuller wording."""
    return draw_status(status_chips(state, width, height, columns), width, height, page_width)


def chip_columns(cars: int, height: int, most: int) -> int:
    """How many columns `cars` chips take on a band `height` tall: the fewest its rows allow (two at
    least when `most` allows two), so fewer cars get wider chips."""
    rows = max(1, int((height - style.PAD + GAP) // (CHIP_HEIGHT + GAP)))
    return min(most, max(min(most, 2), -(-cars // rows)))


def band_height(rows: int) -> int:
    """The height of a band holding `rows` rows of chips."""
    return round(style.PAD / 2 + rows * CHIP_HEIGHT + (rows - 1) * GAP + style.PAD / 2)
