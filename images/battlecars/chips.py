"""The chips beside the board: each vehicle's mat in three lines (name and mat, speed and armour,
components or health on foot) on a card with its driver's colour bar."""

from __future__ import annotations

from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

from images.battlecars.style import CHIP_INSET, INK, MUTED, PAPER, TEXT, K
from images.draw import Colour, draw_text, ellipsize, fit_font
from images.fonts import font
from rules.battlecars.state import BattlecarsState, Vehicle, speed_label

ChipLines = tuple[tuple[str, str, str], str, str]   # (name, mat, ' · OUT' or ''), then two lines


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


@lru_cache(maxsize=256)
def chip_image(lines: ChipLines, fill: Colour, destroyed: bool, active: bool,
          size: tuple[int, int]) -> Image.Image:
    """One vehicle's mat in three lines (chip_lines), `size` page pixels (and its outline's last pixel):
    name and mat, speed and armour F/M/R, components and rounds; kept, since a move changes one
    vehicle's chip at most. The words are drawn at the picture's size over the kept frame."""
    chip = _chip_frame(fill, active, size).copy()
    draw = ImageDraw.Draw(chip)
    left, width = 22, size[0] - CHIP_INSET
    title, *rest = lines
    head, words = chip_title(title, width)
    draw_text(draw, (left, 19), words, head, INK, "lm")
    body = font(TEXT)
    for row, text in enumerate(rest):
        draw_text(draw, (left, 45 + row * 25), ellipsize(text, body, width), body, MUTED if destroyed else INK, "lm")
    return chip


def chip_title(title: tuple[str, str, str], room: float, scale: int = 1) -> tuple[ImageFont.FreeTypeFont, str]:
    """A chip's first line in `room` pixels at `scale` times the page: 'name · mat · OUT' at the largest
    size that fits, down to the smallest text; past that the mat's name is cut short, never the
    driver's name (unless it alone is too long) nor whether the vehicle is out."""
    name, mat, gone = title
    whole = f"{name} · {mat}{gone}"
    face = fit_font(whole, scale * 24, room, bold=True, minimum=scale * TEXT)
    if face.getlength(whole) <= room:
        return face, whole
    if face.getlength(f"{name} · {mat[0]}…{gone}") <= room:
        return face, f"{name} · {ellipsize(mat, face, room - face.getlength(f'{name} · {gone}'))}{gone}"
    return face, ellipsize(name, face, room - face.getlength(gone)) + gone


def chip_lines(state: BattlecarsState, vehicle: Vehicle) -> ChipLines:
    """A chip's words: name, mat and whether it is out; speed and armour F/M/R; the components left, or
    health and pistol on foot."""
    spec = vehicle.spec
    walker = state.pedestrian_of(vehicle.owner)
    gone = "" if walker else (" · OUT" if vehicle.destroyed or vehicle.driver_out else "")   # on foot: line 3
    speed = "?" if state.face_down(vehicle.owner) else speed_label(vehicle.speed)
    armour = "/".join(str(a) for a in vehicle.armour)
    return ((vehicle.name, spec.name, gone), f"speed {speed}/{vehicle.top_speed} · arm {armour}",
            f"on foot: health {walker.health}, pistol {walker.rounds}" if walker else
            f"eng {spec.engine - vehicle.engine_lost} tyre {spec.tyres - vehicle.tyres_lost} "
            f"fuel {spec.fuel - vehicle.fuel_lost} drv {spec.driver - vehicle.driver_lost}")
