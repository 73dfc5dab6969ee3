"""The full play mats, drawn on request (`/game sheet`) and with the final results: per vehicle its
speedo (crossed-off positions greyed, the counter ringed once it is face up), the armour boxes of each
section, the component squares, the pods and turret with their loads and rounds, and the equipment."""

from __future__ import annotations

from PIL import Image, ImageDraw

from images import palette as colours
from images.draw import draw_text, ellipsize, ink_on, style_colours, to_png
from images.fonts import font
from rules.battlecars import data
from rules.battlecars.speed import dial
from rules.battlecars.state import REVERSE, THREE_POINT, BattlecarsState, Vehicle, speed_label
from rules.errors import BadOption

WIDTH = 1000
PANEL_W, PANEL_H = 490, 400
BOX = 20
PAPER, INK, MUTED = colours.PAPER, colours.INK, colours.MUTED
LOST = (215, 215, 215)


def _row(draw: ImageDraw.ImageDraw, x: float, y: float, title: str, total: int, left: int, fill) -> None:
    """A labelled row of boxes: `left` of `total` still good (filled), the rest crossed off."""
    draw_text(draw, (x, y + BOX / 2), title, font(18, bold=True), INK, "lm")
    x0 = x + 96
    for k in range(total):
        box = (x0 + k * (BOX + 3), y, x0 + k * (BOX + 3) + BOX, y + BOX)
        good = k < left
        draw.rectangle(box, fill=fill if good else LOST, outline=INK, width=1)
        if not good:
            draw.line((box[0] + 3, box[1] + 3, box[2] - 3, box[3] - 3), fill=INK, width=2)


def _weapon_line(weapon) -> str:
    """'A: Rocket (front) 5/6', 'Turret: Machine gun 12/12', 'C: Mine (rear) destroyed'."""
    name = data.rounds()[weapon.load].name
    turret = weapon.id == "turret"
    capacity = data.table()["turret_capacity" if turret else "pod_capacity"]
    where = "" if turret else f" ({weapon.facing})"
    left = " destroyed" if weapon.destroyed else f" {weapon.rounds}/{capacity}"
    return f"{'Turret' if turret else weapon.id}: {name}{where}{left}"


def _panel(state: BattlecarsState, vehicle: Vehicle) -> Image.Image:
    spec = vehicle.spec
    image = Image.new("RGB", (PANEL_W, PANEL_H), PAPER)
    draw = ImageDraw.Draw(image)
    colour = colours.wreck_colour(vehicle.colour) if vehicle.destroyed else colours.car_colour(vehicle.colour)
    draw.rounded_rectangle((1, 1, PANEL_W - 2, PANEL_H - 2), radius=10, outline=INK, width=2)
    draw.rectangle((2, 2, PANEL_W - 3, 40), fill=colour)
    state_word = " · destroyed" if vehicle.destroyed else (" · driver out" if vehicle.driver_out else "")
    title = f"{vehicle.name} ({vehicle.id}) · {spec.name}, {spec.type}{state_word}"
    draw_text(draw, (14, 21), ellipsize(title, font(20, bold=True), PANEL_W - 28), font(20, bold=True),
              ink_on(colour), "lm")
    # The speedo: every position of the mat, the closed ones greyed, the counter ringed.
    face_down = state.face_down(vehicle.owner)
    full = list(range(spec.max_speed_at(state.revision), -1, -1)) + ([REVERSE] if spec.type != "bike" else []) + \
        [THREE_POINT]
    open_ = set(dial(vehicle, state.revision))
    x: float = 14   # the boxes are as wide as their labels
    y = 54
    small = font(15, bold=True)
    for position in full:
        text = speed_label(position)
        w = max(24, small.getlength(text) + 10)
        box = (x, y, x + w, y + 24)
        shut = position not in open_
        draw.rectangle(box, fill=LOST if shut else PAPER, outline=INK, width=1)
        draw_text(draw, ((box[0] + box[2]) / 2, y + 12), text, small, MUTED if shut else INK, "mm")
        if position == vehicle.speed and not face_down:
            draw.rectangle((box[0] - 2, box[1] - 2, box[2] + 2, box[3] + 2), outline=colours.BAD, width=3)
        x += w + 3
    y = 92
    for name, total, left in zip(("Front", "Middle", "Rear"), spec.armour, vehicle.armour):
        if total:
            _row(draw, 14, y, name, total, left, colour)
            y += BOX + 6
    for name, total, lost in (("Engine", spec.engine, vehicle.engine_lost), ("Tyres", spec.tyres, vehicle.tyres_lost),
                              ("Fuel", spec.fuel, vehicle.fuel_lost), ("Driver", spec.driver, vehicle.driver_lost)):
        if total:
            _row(draw, 14, y, name, total, total - lost, (120, 120, 120))
            y += BOX + 6
    body = font(16)
    pods = [_weapon_line(w) for w in vehicle.weapons()]
    y += 16
    for k, line in enumerate(pods):   # the pods in two columns under the boxes
        row, column = divmod(k, 2)
        draw_text(draw, (14 + column * (PANEL_W // 2 - 7), y + row * 22), ellipsize(line, body, PANEL_W // 2 - 24),
                  body, INK, "lm")
    equipment = [e.replace("_", " ") + (" (destroyed)" if e in vehicle.equipment_lost else "")
                 for e in spec.equipment]
    if equipment:
        y += -(-len(pods) // 2) * 22
        draw_text(draw, (14, y), ellipsize("Equipment: " + ", ".join(equipment), body, PANEL_W - 28), body, INK, "lm")
    return image


def render_mats(state: BattlecarsState, which: str = "") -> bytes:
    """Every vehicle's mat (or the one `which` names by id or driver's name) as a PNG; BadOption when no
    vehicle fits, ValueError when nobody is seated."""
    vehicles = state.vehicles
    if which.strip():
        wanted = which.strip().casefold()
        vehicles = tuple(v for v in state.vehicles if wanted in (v.id, v.name.casefold()))
        if not vehicles:
            names = ", ".join(f"{v.name} ({v.id})" for v in state.vehicles)
            raise BadOption(f"No vehicle '{which.strip()}'. Vehicles: {names}.")
    if not vehicles:
        raise ValueError("no vehicle is seated yet")
    rows = -(-len(vehicles) // 2)
    image = Image.new("RGB", (WIDTH, rows * (PANEL_H + 10) + 10), PAPER)
    for index, vehicle in enumerate(vehicles):
        row, column = divmod(index, 2)
        image.paste(_panel(state, vehicle), (10 + column * (PANEL_W + 10), 10 + row * (PANEL_H + 10)))
    return to_png(image, style_colours(colours) + (LOST,))
