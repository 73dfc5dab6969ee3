"""The side panel: every car's sheet with its damage boxes, speed, inertia and control."""

from __future__ import annotations

from PIL import Image, ImageDraw

from images.draw import chip, draw_text, ellipsize, fit_font, ink_on
from images.fonts import font
from images.speedway import style
from rules.hexgrid import DIRECTION_NAMES, label
from rules.speedway import data
from rules.speedway.state import Car, DamageTrack, SpeedwayState

COLUMNS = 2
GAP = 18
HEADER = 52
STATUS = 44
ROW = 40
BOX = 38
SYSTEM_LABELS = ("Engine", "Brakes", "Suspension", "Driver", "Targeting", "Armor")


def _rows(car: Car) -> list[tuple[str, DamageTrack, str]]:
    """(label, boxes, note after the boxes) for each system, then each weapon with its mount."""
    systems = [(text, getattr(car.systems, key), "") for text, key in zip(SYSTEM_LABELS, data.SYSTEMS)]
    return systems + [(w.name, w.track, w.mount) for w in car.weapons]


def sheet_height(car: Car) -> int:
    """Pixel height of one car's sheet."""
    return HEADER + STATUS + ROW * len(_rows(car)) + 14


def _boxes(draw: ImageDraw.ImageDraw, x: float, y: float, track: DamageTrack) -> float:
    """Draw a damage row's boxes from (x, y); return the x just after the last box."""
    digits = font(23, bold=True)
    for i, value in enumerate(track.boxes):
        box = (x, y, x + BOX - 7, y + BOX - 7)
        crossed = i < track.crossed
        current = i == track.crossed
        draw.rectangle(box, fill=style.CROSSED if crossed else style.PAPER, outline=style.INK,
                       width=4 if current else 2)
        draw_text(draw, ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2 + 1), str(value), digits,
                  style.MUTED if crossed else style.INK, "mm")
        if crossed:
            draw.line([(box[0] + 3, box[1] + 3), (box[2] - 3, box[3] - 3)], fill=style.INK, width=3)
            draw.line([(box[0] + 3, box[3] - 3), (box[2] - 3, box[1] + 3)], fill=style.INK, width=3)
        x += BOX
    return x


def _header(draw: ImageDraw.ImageDraw, state: SpeedwayState, car: Car, x: float, y: float,
            width: float) -> None:
    fill = style.car_colour(car.colour)
    ink = ink_on(fill)
    draw.rectangle((x, y, x + width, y + HEADER), fill=fill)
    design = data.car_designs().get(car.design)
    right = design.name if design else car.design
    owner = state.player(car.owner)
    if owner and owner.name != car.name:
        right = f"{right} · {owner.name}"
    small, cy = font(22), y + HEADER / 2
    draw_text(draw, (x + width - 14, cy), right, small, ink, "rm")
    name = ("▶ " if car.id == state.active_car else "") + car.name
    where = f"  {label(car.front)} {DIRECTION_NAMES[car.facing % 6]}" if car.front is not None else ""
    room = width - small.getlength(right) - small.getlength(where) - 44
    title = fit_font(name, 30, room, bold=True, minimum=24)
    name = ellipsize(name, title, room)
    draw_text(draw, (x + 14, cy), name, title, ink, "lm")
    draw_text(draw, (x + 14 + title.getlength(name), cy + 1), where, small, ink, "lm")


def _status(draw: ImageDraw.ImageDraw, car: Car, x: float, y: float, width: float) -> None:
    body, bold, digits = font(24), font(24, bold=True), font(19, bold=True)
    cy = y + STATUS / 2 + 2
    cursor = x + 14
    items = [("Speed ", f"{car.speed}▸", None), ("  Inertia ", str(car.inertia), style.INK)]
    if car.fire_chips:
        items.append(("  Fire ", str(car.fire_chips), style.BAD))
    for text, value, chip_colour in items:
        draw_text(draw, (cursor, cy), text, body, style.INK, "lm")
        cursor += body.getlength(text)
        if chip_colour is None:
            draw_text(draw, (cursor, cy), value, bold, style.INK, "lm")
            cursor += bold.getlength(value)
        else:
            chip(draw, (cursor + 14, cy), 14, value, digits, fill=chip_colour)
            cursor += 28
    if car.in_control:
        draw_text(draw, (x + width - 14, cy), "In Control", body, style.GOOD, "rm")
        return
    control = fit_font("OUT OF CONTROL", 20, x + width - cursor - 40, bold=True)
    w = control.getlength("OUT OF CONTROL") + 16
    draw.rounded_rectangle((x + width - 12 - w, cy - 15, x + width - 12, cy + 15), radius=6, fill=style.INK)
    draw_text(draw, (x + width - 12 - w / 2, cy), "OUT OF CONTROL", control, style.PAPER, "mm")


def _sheet(draw: ImageDraw.ImageDraw, state: SpeedwayState, car: Car, x: float, y: float,
           width: float) -> None:
    active = car.id == state.active_car
    height = sheet_height(car)
    _header(draw, state, car, x, y, width)
    _status(draw, car, x, y + HEADER, width)
    rows = _rows(car)
    rating_x = x + width - 14
    boxes_x = rating_x - 34 - max(6, *(len(track.boxes) for _, track, _ in rows)) * BOX - 46
    body = font(24)
    for i, (text, track, note) in enumerate(rows):
        top = y + HEADER + STATUS + i * ROW + 4
        if i % 2 == 0:
            draw.rectangle((x + 3, top - 2, x + width - 3, top + ROW - 2), fill=style.ZEBRA)
        cy = top + BOX / 2 - 1
        draw_text(draw, (x + 14, cy), text, fit_font(text, 24, boxes_x - x - 24), style.INK, "lm")
        end = _boxes(draw, boxes_x, top + 3, track)
        after = f"→{track.after}" if track.after is not None else ""
        draw_text(draw, (end + 4, cy), f"{after} {note}".strip(), body, style.MUTED, "lm")
        rating = track.rating
        draw_text(draw, (rating_x, cy), "off" if rating is None else str(rating), font(28, bold=True),
                  style.BAD if rating is None else style.INK, "rm")
    draw.rectangle((x, y, x + width, y + height), outline=style.INK, width=6 if active else 2)


def render_panel(state: SpeedwayState, width: int) -> Image.Image | None:
    """All car sheets in a grid `width` pixels wide, or None when no car is seated."""
    if not state.cars:
        return None
    sheet_width = (width - 2 * style.PAD - (COLUMNS - 1) * GAP) / COLUMNS
    rows = [state.cars[i:i + COLUMNS] for i in range(0, len(state.cars), COLUMNS)]
    heights = [max(sheet_height(c) for c in row) for row in rows]
    image = Image.new("RGB", (width, sum(heights) + GAP * (len(rows) - 1) + 2 * style.PAD), style.PAPER)
    draw = ImageDraw.Draw(image)
    y = style.PAD
    for row, height in zip(rows, heights):
        for i, car in enumerate(row):
            _sheet(draw, state, car, style.PAD + i * (sheet_width + GAP), y, sheet_width)
        y += height + GAP
    return image
