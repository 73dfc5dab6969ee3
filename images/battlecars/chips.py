"""The chips beside the board: each vehicle's mat in four lines (the driver's name, the mat's name, speed
and armour, components or health on foot) on a card with its driver's colour bar."""

from __future__ import annotations

from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

from images.battlecars.style import CHIP_INSET, INK, MUTED, PAPER, TEXT, TITLE, K
from images.bounded import bounded
from images.draw import Colour, draw_text, ellipsize, fit_font
from images.fonts import font
from rules.battlecars.state import BattlecarsState, Vehicle, speed_label

ChipLines = tuple[tuple[str, str, str], str, str]   # (name, mat, ' · OUT' or ''), then two lines
ChipLine = tuple[ImageFont.FreeTypeFont, str, bool]   # a line's face, words and whether muted
CHIP_BYTES = 6 << 20   # the chips kept (images.bounded): ~40 mats, a few tables' worth
ROWS = (21, 50, 75, 100)   # where a chip's four lines stand, from its top


@lru_cache(maxsize=64)
def _chip_frame(fill: Colour, active: bool, size: tuple[int, int]) -> Image.Image:
    """A chip without its words: the rounded outline (heavier for the vehicle acting) and the colour bar,
    drawn at K times and averaged down once, kept (a handful per game)."""
    x1, y1 = size
    canvas = Image.new("RGB", (K * (x1 + 1), K * (y1 + 1)), PAPER)
    draw = ImageDraw.Draw(canvas)
    draw.rounded_rectangle([0, 0, K * x1, K * y1], radius=8 * K, fill=PAPER, outline=INK,
                           width=(4 if active else 2) * K)
    draw.rectangle([K * 4, K * 4, K * 14, K * (y1 - 4)], fill=fill)
    return canvas.reduce(K)


@bounded(CHIP_BYTES)
def chip_image(lines: ChipLines, fill: Colour, destroyed: bool, active: bool,
               size: tuple[int, int]) -> Image.Image:
    """One vehicle's mat in four lines (chip_lines), `size` page pixels (and its outline's last pixel):
    the driver's name (and whether the vehicle is out), the mat's name, speed and armour F/M/R,
    components and rounds; kept, since a move changes one vehicle's chip at most. The words are drawn
    at the picture's size over the kept frame."""
    chip = _chip_frame(fill, active, size).copy()
    draw = ImageDraw.Draw(chip)
    for (face, text, muted), y in zip(chip_words(lines, size[0] - CHIP_INSET, destroyed), ROWS):
        draw_text(draw, (22, y), text, face, MUTED if muted else INK, "lm")
    return chip


def chip_words(lines: ChipLines, room: float, destroyed: bool = False) -> list[ChipLine]:
    """A chip's four lines as drawn in `room` pixels: each one's face, words and whether it is muted (a
    destroyed vehicle's figures)."""
    (name, mat, gone), *rest = lines
    bold, body = font(TEXT, bold=True), font(TEXT)
    return [(*chip_title((name, gone), room), False), (bold, ellipsize(mat, bold, room), False),
            *((body, ellipsize(text, body, room), destroyed) for text in rest)]


def chip_title(title: tuple[str, str], room: float) -> tuple[ImageFont.FreeTypeFont, str]:
    """A chip's first line in `room` pixels: 'name · OUT' at the largest size that fits from TITLE
    down to the smallest text; past that the driver's name is cut short, never whether the vehicle is
    out. The mat's name has the next line to itself, so it is never cut."""
    name, gone = title
    face = fit_font(name + gone, TITLE, room, bold=True, minimum=TEXT)
    return face, ellipsize(name, face, room - face.getlength(gone)) + gone


def chip_lines(state: BattlecarsState, vehicle: Vehicle) -> ChipLines:
    """A chip's words: name, mat and whether it is out; speed and armour F/M/R; the components left, or
    health and pistol on foot."""
    spec = vehicle.spec
    walker = state.pedestrian_of(vehicle.owner)
    gone = "" if walker else (" · OUT" if vehicle.destroyed or vehicle.driver_out else "")   # on foot: line 3
    speed = "?" if state.face_down(vehicle.owner) else speed_label(vehicle.speed)
    armour = "/".join(str(a) for a in vehicle.armour)
    return ((vehicle.name, spec.name, gone), f"speed {speed}/{vehicle.top_speed(state.revision)} · arm {armour}",
            f"on foot: health {walker.health}, pistol {walker.rounds}" if walker else
            f"eng {spec.engine - vehicle.engine_lost} tyre {spec.tyres - vehicle.tyres_lost} "
            f"fuel {spec.fuel - vehicle.fuel_lost} drv {spec.driver - vehicle.driver_lost}")
