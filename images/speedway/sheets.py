"""The side panel: every car's sheet with its damage boxes, speed, inertia and control."""

from __future__ import annotations

from dataclasses import dataclass

from PIL import Image, ImageDraw

from images import palette
from images.bounded import bounded
from images.draw import chip, draw_text, ellipsize, fit_font, ink_on
from images.fonts import font
from images.speedway import style
from images.speedway.counters import paint_flame
from rules.hexgrid import DIRECTION_NAMES, label
from rules.speedway import data
from rules.speedway.state import Car, DamageTrack, SpeedwayState

COLUMNS = 2
GAP = 18
HEADER = 52
STATUS = 44
ROW = 40
BOX = 38
# The sheets kept drawn (images.bounded; ~0.8 MB each): a six-car table's, for a request repeated before
# the game moves. Sheets are drawn only when asked for (not with every move) and a miss costs ~1.5 ms a
# sheet, so 256 kept (up to 53 MB measured in a render process) bought nothing (issue 39, item 8).
SHEET_BYTES = 6 << 20
ROWS_BYTES = 2 << 20
SYSTEM_LABELS = ("Engine", "Brakes", "Suspension", "Driver", "Targeting", "Armor")


@dataclass(frozen=True)
class Row:
    """One line of a sheet: a system or a weapon with its damage boxes."""

    text: str
    track: DamageTrack
    note: str = ""          # the weapon's mount
    fired: bool = False     # a weapon fired this turn
    working: bool = True


def _rows(car: Car) -> list[Row]:
    """Each system, then each weapon with its mount, charges left and whether it fired this turn."""
    systems = [Row(text, getattr(car.systems, key)) for text, key in zip(SYSTEM_LABELS, data.SYSTEMS)]
    weapons = [
        Row(w.name if w.charges is None else f"{w.name} ×{w.charges}", w.track, w.mount,
            w.mount in car.fired, w.working)
        for w in car.weapons
    ]
    return systems + weapons


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
        draw.rectangle(box, fill=palette.CROSSED if crossed else palette.PAPER, outline=palette.INK,
                       width=4 if current else 2)
        draw_text(draw, ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2 + 1), str(value), digits,
                  palette.MUTED if crossed else palette.INK, "mm")
        if crossed:
            draw.line([(box[0] + 3, box[1] + 3), (box[2] - 3, box[3] - 3)], fill=palette.INK, width=3)
            draw.line([(box[0] + 3, box[3] - 3), (box[2] - 3, box[1] + 3)], fill=palette.INK, width=3)
        x += BOX
    return x


def _pill(draw: ImageDraw.ImageDraw, x: float, cy: float, text: str, pill_font, fill, ink,
          outline=None) -> float:
    """A small rounded label starting at `x`, centred on `cy`; returns the x just after it."""
    w = pill_font.getlength(text) + 14
    draw.rounded_rectangle((x, cy - 14, x + w, cy + 14), radius=6, fill=fill, outline=outline,
                           width=2 if outline else 0)
    draw_text(draw, (x + w / 2, cy + 1), text, pill_font, ink, "mm")
    return x + w


def _header(draw: ImageDraw.ImageDraw, car: Car, active: bool, owner_name: str, owner_ai: bool, x: float,
            y: float, width: float) -> None:
    colour = palette.car_colour(car.colour)
    fill = palette.wreck_colour(car.colour) if car.out else colour
    ink = ink_on(fill)
    draw.rectangle((x, y, x + width, y + HEADER), fill=fill)
    if car.out:   # a wreck keeps a stripe of its player colour
        draw.rectangle((x, y, x + 10, y + HEADER), fill=colour)
    design = data.car_designs().get(car.design)
    right = design.name if design else car.design
    if owner_name and owner_name != car.name:
        right = f"{right} · {owner_name}"
    badges = (["AI"] if owner_ai else []) + (["OUT"] if car.out else [])
    badge_font = font(19, bold=True)
    badges_w = sum(badge_font.getlength(b) + 22 for b in badges)
    small, cy = font(22), y + HEADER / 2
    draw_text(draw, (x + width - 14, cy), right, small, ink, "rm")
    name = ("▶ " if active else "") + car.name
    where = f"  {label(car.front)} {DIRECTION_NAMES[car.facing % 6]}" if car.front is not None else ""
    room = width - small.getlength(right) - small.getlength(where) - badges_w - 44
    title = fit_font(name, 30, room, bold=True, minimum=24)
    name = ellipsize(name, title, room)
    left = x + 14 + (6 if car.out else 0)
    draw_text(draw, (left, cy), name, title, ink, "lm")
    cursor = left + title.getlength(name) + 8
    for badge in badges:
        if badge == "OUT":
            cursor = _pill(draw, cursor, cy, badge, badge_font, palette.INK, palette.PAPER) + 8
        else:
            cursor = _pill(draw, cursor, cy, badge, badge_font, palette.PAPER, palette.INK, palette.INK) + 8
    draw_text(draw, (cursor - 8, cy + 1), where, small, ink, "lm")


def _status(draw: ImageDraw.ImageDraw, car: Car, x: float, y: float, width: float) -> None:
    cy = y + STATUS / 2 + 2
    if car.out:
        right, right_font = "Wrecked", font(24, bold=True)
        draw_text(draw, (x + width - 14, cy), right, right_font, palette.BAD, "rm")
        right_w = right_font.getlength(right) + 14
    elif car.in_control:
        right, right_font = "In Control", font(24)
        draw_text(draw, (x + width - 14, cy), right, right_font, palette.GOOD, "rm")
        right_w = right_font.getlength(right) + 14
    else:
        right_w = 0.0
    size = 24
    while True:   # the left-hand items shrink together until they leave room for the control mark
        body, bold, digits = font(size), font(size, bold=True), font(size - 5, bold=True)
        items = [("Speed ", f"{car.speed}▸", None), ("  Inertia ", str(car.inertia), palette.INK)]
        fire = f"On Fire ×{car.fire_chips}" if car.fire_chips else ""
        turn = "must Turn" if car.must_turn else ""
        needed = (sum(body.getlength(t) for t, _, _ in items) + bold.getlength(items[0][1]) + 28
                  + (bold.getlength(fire) + 36 if fire else 0) + (bold.getlength(turn) + 30 if turn else 0))
        control = 0 if right_w else 190
        if size <= 16 or needed + right_w + control + 28 <= width:
            break
        size -= 1
    cursor = x + 14
    for text, value, chip_colour in items:
        draw_text(draw, (cursor, cy), text, body, palette.INK, "lm")
        cursor += body.getlength(text)
        if chip_colour is None:
            draw_text(draw, (cursor, cy), value, bold, palette.INK, "lm")
            cursor += bold.getlength(value)
        else:
            chip(draw, (cursor + 14, cy), 14, value, digits, fill=chip_colour)
            cursor += 28
    if fire:
        cursor += 12
        paint_flame(draw, (cursor + 10, cy - 1), 26)
        draw_text(draw, (cursor + 24, cy), fire, bold, palette.BAD, "lm")
        cursor += 24 + bold.getlength(fire)
    if turn:
        cursor += 12
        w = bold.getlength(turn) + 14
        draw.rounded_rectangle((cursor, cy - 15, cursor + w, cy + 15), radius=6, outline=palette.INK, width=2,
                               fill=palette.HIGHLIGHT)
        draw_text(draw, (cursor + w / 2, cy), turn, bold, palette.INK, "mm")
        cursor += w
    if right_w:
        return
    control = fit_font("OUT OF CONTROL", 20, x + width - cursor - 40, bold=True)
    w = control.getlength("OUT OF CONTROL") + 16
    draw.rounded_rectangle((x + width - 12 - w, cy - 15, x + width - 12, cy + 15), radius=6, fill=palette.INK)
    draw_text(draw, (x + width - 12 - w / 2, cy), "OUT OF CONTROL", control, palette.PAPER, "mm")


def _sheet(state: SpeedwayState, car: Car, width: int) -> Image.Image:
    """One car's sheet; in a move only the moving car's sheet changes, so the others come from a cache."""
    owner = state.player(car.owner)
    return _sheet_image(car, car.id == state.active_car, owner.name if owner else "", bool(owner and owner.ai),
                        width)


@bounded(SHEET_BYTES)
def _sheet_image(car: Car, active: bool, owner_name: str, owner_ai: bool, width: int) -> Image.Image:
    height = sheet_height(car)
    image = Image.new("RGB", (width + 1, height + 1), palette.PAPER)
    draw = ImageDraw.Draw(image)
    _header(draw, car, active, owner_name, owner_ai, 0, 0, width)
    _status(draw, car, 0, HEADER, width)
    image.paste(_rows_image(tuple(_rows(car)), width), (0, HEADER + STATUS))
    draw.rectangle((0, 0, width, height), outline=palette.INK, width=6 if active else 2)
    return image


@bounded(ROWS_BYTES)
def _rows_image(rows: tuple[Row, ...], width: int) -> Image.Image:
    """The damage rows of a sheet, drawn once per distinct content: most sheets do not change in a move,
    and their box digits are most of the panel's drawing time."""
    image = Image.new("RGB", (width, ROW * len(rows) + 4), palette.PAPER)
    draw = ImageDraw.Draw(image)
    rating_x = width - 14
    boxes_x = rating_x - 34 - max(6, *(len(row.track.boxes) for row in rows)) * BOX - 46
    body, tick = font(24), font(17, bold=True)
    for i, row in enumerate(rows):
        top = i * ROW + 4
        if i % 2 == 0:
            draw.rectangle((3, top - 2, width - 3, top + ROW - 2), fill=palette.ZEBRA)
        cy = top + BOX / 2 - 1
        draw_text(draw, (14, cy), row.text, fit_font(row.text, 24, boxes_x - 24),
                  palette.MUTED if row.fired else palette.INK, "lm")
        end = _boxes(draw, boxes_x, top + 3, row.track)
        after = f"→{row.track.after}" if row.track.after is not None else ""
        note = f"{after} {row.note}".strip()
        draw_text(draw, (end + 4, cy), note, body, palette.MUTED, "lm")
        if row.fired:
            at = end + 4 + (body.getlength(note) + 8 if note else 0)
            _pill(draw, at, cy, "✓ fired", tick, palette.INK, palette.PAPER)
        rating = row.track.rating if row.working else None
        draw_text(draw, (rating_x, cy), "off" if rating is None else str(rating), font(28, bold=True),
                  palette.BAD if rating is None else palette.INK, "rm")
    return image


def render_panel(state: SpeedwayState, width: int) -> Image.Image | None:
    """All car sheets in a grid `width` pixels wide, or None when no car is seated."""
    if not state.cars:
        return None
    sheet_width = (width - 2 * style.PAD - (COLUMNS - 1) * GAP) / COLUMNS
    rows = [state.cars[i:i + COLUMNS] for i in range(0, len(state.cars), COLUMNS)]
    heights = [max(sheet_height(c) for c in row) for row in rows]
    image = Image.new("RGB", (width, sum(heights) + GAP * (len(rows) - 1) + 2 * style.PAD), palette.PAPER)
    y = style.PAD
    for row, height in zip(rows, heights):
        for i, car in enumerate(row):
            image.paste(_sheet(state, car, round(sheet_width)), (round(style.PAD + i * (sheet_width + GAP)), y))
        y += height + GAP
    return image
