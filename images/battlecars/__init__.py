"""Battlecars' table picture: the board of points (roads, grass, buildings, trees) with grid labels,
every vehicle as a top-down token in its driver's colour pointing its facing, the last move's path and
shot, and beside the board one compact line-up of each vehicle's mat (speed, armour, components, rounds).

Landscape and one size per board all game. Speed counters still face down show as "?" (the view has
blanked them); nothing hidden is drawn.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

from images import palette as colours
from images.battlecars.closeup import acting_vehicle, in_reach
from images.battlecars.mats import render_mats
from images.captions import Captioner, seat_name
from images.closeup import Closeup, Ruler, Spot, around, closeup, crop_box
from images.draw import (
    Colour,
    ShiftedDraw,
    build_palette,
    draw_text,
    ellipsize,
    fit_font,
    ink_on,
    mix,
    style_colours,
    to_png,
    wrap,
)
from images.fonts import font
from images.reference import started
from images.registry import Renderer
from rules.battlecars import data, scenery
from rules.battlecars.actions import Join
from rules.battlecars.events import DiceRolled, Drifted, VehicleMoved, WeaponFired
from rules.battlecars.grid import DIRECTIONS, parse_label
from rules.battlecars.passive import smoke_stayed
from rules.battlecars.ruleset import RULESET as BATTLECARS
from rules.battlecars.state import BattlecarsState, Phase, Vehicle, speed_label

K = 2                 # drawn at twice the size, then shrunk once (antialiasing)
LABELS = 26           # the band of grid letters and numbers round the board
HEADER = 96           # title and the last action's words
SIDEBAR = 344
CHIP = 92
CHIP_INSET = 26       # a chip's width less its words' width (the colour bar and the margins)
TEXT = 23             # the smallest words: shown 420 px wide (a phone) they stay above 9 px
PAPER, INK, MUTED = colours.PAPER, colours.INK, colours.MUTED
ROAD = (205, 200, 190)
GRASS = (170, 204, 140)
BUILDING = (96, 80, 70)
TREES = (70, 130, 60)
LINE = (150, 145, 135)
PATH = colours.car_colour(4)
TRAILS = tuple(mix(c, ROAD, 0.55) for c in colours.CAR_COLOURS)   # a vehicle's recent path, faint
ChipLines = tuple[tuple[str, str, str], str, str]   # (name, mat, ' · OUT' or ''), then two lines
Mark = tuple[tuple[float, ...], Callable[[ImageDraw.ImageDraw], None]]   # its box, its paint
GROUND = {"road": ROAD, "grass": GRASS, "building": BUILDING, "trees": GRASS}

# The channel picture's deflate (images.png): zlib-ng at this level, within the game's speed goal
# (a move at most half a plain Pillow PNG's time; docs/performance.md).
PNG_LEVEL = 3


def cell_size(board: data.Board) -> int:
    """Pixels between points: 13 x 9 boards get 52, the joined 17 x 13 board 39."""
    return 52 if board.width <= 13 else 39


def page_size(board: data.Board) -> tuple[int, int]:
    """The picture's size for a board: the same all game, room for a chip per seat the board takes."""
    cell = cell_size(board)
    table = data.table()
    seats = table["max_players"] if board.width > 13 else table["big_board_from"] - 1
    width = board.width * cell + 2 * LABELS + SIDEBAR
    height = max(HEADER + board.height * cell + 2 * LABELS, HEADER + seats * (CHIP + 6))
    return width, height


def _centre(point, cell: int, top: int) -> tuple[float, float]:
    return LABELS + (point[0] + 0.5) * cell, top + LABELS + (point[1] + 0.5) * cell


name_of = seat_name   # the caption's and the picture's words for who acts


def colour_of(state: BattlecarsState, pid: str | None):
    vehicle = state.vehicle_of(pid)
    return colours.car_colour(vehicle.colour) if vehicle else MUTED


def _board(draw: ImageDraw.ImageDraw, board: data.Board, cell: int, top: int) -> None:
    """Terrain tiles, the movement lines between points (diagonals fainter), labels on all four sides."""
    for y in range(board.height):
        for x in range(board.width):
            cx, cy = _centre((x, y), cell, top)
            ground = board.terrain((x, y))
            box = [K * (cx - cell / 2), K * (cy - cell / 2), K * (cx + cell / 2), K * (cy + cell / 2)]
            draw.rectangle(box, fill=GROUND[ground])
            if ground == "building":
                draw.rectangle([box[0] + K * 2, box[1] + K * 2, box[2] - K * 2, box[3] - K * 2], fill=BUILDING,
                               outline=INK, width=K)
            if ground == "trees":
                for dx, dy in ((-0.2, -0.15), (0.2, -0.1), (0, 0.2)):
                    r = cell * 0.24
                    draw.ellipse([K * (cx + dx * cell - r), K * (cy + dy * cell - r), K * (cx + dx * cell + r),
                                  K * (cy + dy * cell + r)], fill=TREES, outline=(40, 90, 35), width=K)
    for y in range(board.height):
        for x in range(board.width):
            a = _centre((x, y), cell, top)
            for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
                ends = (board.terrain((x, y)), board.terrain((x + dx, y + dy)))
                if board.inside((x + dx, y + dy)) and "building" not in ends:
                    b = _centre((x + dx, y + dy), cell, top)
                    width = K if dx and dy else 2 * K
                    draw.line([K * a[0], K * a[1], K * b[0], K * b[1]], fill=LINE, width=width)
            draw.ellipse([K * (a[0] - 3), K * (a[1] - 3), K * (a[0] + 3), K * (a[1] + 3)], fill=LINE)
    big = font(K * TEXT, bold=True)
    bottom = top + LABELS + board.height * cell
    for x in range(board.width):
        cx = _centre((x, 0), cell, top)[0]
        for label_y in (top + LABELS / 2, bottom + LABELS / 2):
            draw_text(draw, (K * cx, K * label_y), chr(ord("A") + x), big, INK, "mm")
    right = LABELS + board.width * cell
    for y in range(board.height):
        cy = _centre((0, y), cell, top)[1]
        for label_x in (LABELS / 2, right + LABELS / 2):
            draw_text(draw, (K * label_x, K * cy), str(y + 1), big, INK, "mm")


def _token(draw: ImageDraw.ImageDraw, vehicle: Vehicle, cell: int, top: int, acting: bool,
           words: bool = True) -> None:
    """A top-down token: a rounded body along its facing in the driver's colour, a pale nose, and its
    type's letter (unless not `words`); a wreck greyed and crossed."""
    cx, cy = _centre(vehicle.point, cell, top)
    dx, dy = DIRECTIONS[vehicle.facing]
    length = math.hypot(dx, dy)
    ux, uy = dx / length, dy / length
    nx, ny = -uy, ux
    half_l, half_w = cell * (0.42 if vehicle.spec.type != "bike" else 0.36), cell * (
        0.24 if vehicle.spec.type != "bike" else 0.14)
    if vehicle.spec.type in ("truck", "tank"):
        half_w = cell * 0.3

    def at(f, s):
        return K * (cx + ux * f + nx * s), K * (cy + uy * f + ny * s)
    fill = colours.wreck_colour(vehicle.colour) if vehicle.destroyed else colours.car_colour(vehicle.colour)
    if acting:
        draw.ellipse([K * (cx - cell * 0.5), K * (cy - cell * 0.5), K * (cx + cell * 0.5), K * (cy + cell * 0.5)],
                     outline=INK, width=3 * K)
    body = [at(half_l, half_w), at(-half_l, half_w), at(-half_l, -half_w), at(half_l, -half_w)]
    draw.polygon(body, fill=fill, outline=INK, width=2 * K)
    nose = [at(half_l, 0), at(half_l - cell * 0.22, half_w * 0.8), at(half_l - cell * 0.22, -half_w * 0.8)]
    draw.polygon(nose, fill=PAPER, outline=INK, width=K)
    letter = {"car": "", "bike": "", "truck": "T", "tank": "K"}[vehicle.spec.type]
    if letter and words:
        draw_text(draw, at(-half_l * 0.35, 0), letter, font(K * 16, bold=True), ink_on(fill), "mm")
    if vehicle.destroyed:
        for a, b in ((at(half_l, half_w), at(-half_l, -half_w)), (at(half_l, -half_w), at(-half_l, half_w))):
            draw.line([a, b], fill=INK, width=3 * K)


def _scenery_marks(state: BattlecarsState, cell: int, top: int) -> list[Mark]:
    """Damaged buildings and trees: a flattened piece as rubble over its points; on each damaged piece its
    damage against its strength ('7/20') on a badge along its lower edge."""
    board = state.the_board
    face = font(K * TEXT, bold=True)
    marks: list[Mark] = []
    for piece, taken in state.scenery_damage:
        kind = board.terrain(piece)
        centres = [_centre(p, cell, top) for p in _points_of(board) if board.piece(p) == piece]
        flat = scenery.flattened(state, piece)
        x = sum(c[0] for c in centres) / len(centres)
        y = max(c[1] for c in centres) + cell * 0.36
        text = f"{taken}/{scenery.strength(kind)}"
        w = face.getlength(text) / K + 10

        def paint(draw: ImageDraw.ImageDraw, centres=centres, flat=flat, x=x, y=y, text=text, w=w) -> None:
            if flat:
                for cx, cy in centres:
                    draw.rectangle([K * (cx - cell / 2 + 2), K * (cy - cell / 2 + 2), K * (cx + cell / 2 - 2),
                                    K * (cy + cell / 2 - 2)], fill=GRASS)
                    for dx, dy, k in ((-0.22, -0.18, 0.16), (0.2, -0.05, 0.2), (-0.05, 0.22, 0.18),
                                      (0.24, 0.26, 0.1)):
                        r = cell * k
                        draw.ellipse([K * (cx + dx * cell - r), K * (cy + dy * cell - r), K * (cx + dx * cell + r),
                                      K * (cy + dy * cell + r)], fill=colours.DEBRIS, outline=colours.DEBRIS_DARK,
                                     width=K)
            draw.rounded_rectangle([K * (x - w / 2), K * (y - 13), K * (x + w / 2), K * (y + 13)], radius=4 * K,
                                   fill=PAPER, outline=colours.FLAME, width=2 * K)
            draw_text(draw, (K * x, K * y), text, face, INK, "mm")
        cells = [_box_around(c, cell / 2, cell / 2) for c in centres]
        marks.append((_union(cells + [(x - w / 2 - 2, y - 15, x + w / 2 + 2, y + 15)]), paint))
    return marks


def _points_of(board: data.Board) -> tuple:
    return tuple((x, y) for y in range(board.height) for x in range(board.width))


def _pedestrian(draw: ImageDraw.ImageDraw, state: BattlecarsState, walker, cell: int, top: int) -> None:
    """A driver on foot: a small figure in the driver's colour, with their health as pips beneath."""
    cx, cy = _centre(walker.point, cell, top)
    vehicle = state.vehicle_of(walker.owner)
    fill = colours.car_colour(vehicle.colour) if vehicle else MUTED
    r = cell * 0.13
    draw.ellipse([K * (cx - r), K * (cy - cell * 0.3 - r), K * (cx + r), K * (cy - cell * 0.3 + r)], fill=fill,
                 outline=INK, width=2 * K)
    body = [(cx - cell * 0.18, cy + cell * 0.28), (cx, cy - cell * 0.16), (cx + cell * 0.18, cy + cell * 0.28)]
    draw.polygon([(K * x, K * y) for x, y in body], fill=fill, outline=INK, width=2 * K)
    full = data.table()["pedestrian_health"]
    pip = cell * 0.09
    for k in range(full):   # health as pips under the figure: filled for each point left
        px, py = cx + (k - (full - 1) / 2) * pip * 2.6, cy + cell * 0.4
        draw.ellipse([K * (px - pip), K * (py - pip), K * (px + pip), K * (py + pip)],
                     fill=colours.FLAME if k < walker.health else PAPER, outline=INK, width=K)


def _counter_marks(state: BattlecarsState, cell: int, top: int) -> list[Mark]:
    """The passive weapons on the board and the pistols dead drivers left: oil a dark slick, a mine a
    black disc with studs, spikes a row of grey teeth, smoke a grey cloud, a pistol a small dark mark."""
    r = cell * 0.3
    marks: list[Mark] = []
    for counter in state.counters:
        cx, cy = _centre(counter.point, cell, top)

        def paint(draw: ImageDraw.ImageDraw, kind=counter.kind, cx=cx, cy=cy) -> None:
            def box(k: float, dx: float = 0, dy: float = 0):
                return [K * (cx + dx - r * k), K * (cy + dy - r * k), K * (cx + dx + r * k), K * (cy + dy + r * k)]
            if kind == "oil":
                draw.ellipse(box(1.1), fill=colours.OIL, outline=colours.OIL_SHEEN, width=2 * K)
                draw.ellipse(box(0.35, -r * 0.3, -r * 0.3), fill=colours.OIL_SHEEN)
            elif kind == "mine":
                draw.ellipse(box(0.8), fill=colours.MINE, outline=colours.MINE_RIM, width=2 * K)
                for dx, dy in ((0, -0.55), (0.55, 0), (0, 0.55), (-0.55, 0)):
                    draw.ellipse(box(0.18, r * dx, r * dy), fill=colours.HIGHLIGHT)
            elif kind == "spikes":
                draw.rectangle(box(1.0), fill=colours.HIGHLIGHT, outline=INK, width=K)
                for k in range(-2, 3):
                    x = cx + k * r * 0.4
                    draw.polygon([(K * (x - r * 0.2), K * (cy + r * 0.7)), (K * x, K * (cy - r * 0.75)),
                                  (K * (x + r * 0.2), K * (cy + r * 0.7))], fill=MUTED, outline=INK)
            else:   # smoke
                for dx, dy in ((-0.6, 0.15), (0.6, 0.15), (0, -0.45), (0, 0.5)):
                    draw.ellipse(box(0.85, r * dx, r * dy), fill=colours.SMOKE, outline=colours.SMOKE_RIM, width=K)
        marks.append((_box_around((cx, cy), 1.5 * r + 2, 1.5 * r + 2), paint))
    for point, _rounds in state.pistols_left:
        cx, cy = _centre(point, cell, top)
        x, y = cx + cell * 0.28, cy + cell * 0.28

        def pistol(draw: ImageDraw.ImageDraw, x=x, y=y) -> None:
            draw.rectangle([K * (x - 7), K * (y - 3), K * (x + 7), K * (y + 3)], fill=INK)
            draw.rectangle([K * (x - 7), K * (y - 3), K * (x - 3), K * (y + 7)], fill=INK)
        marks.append((_box_around((x, y), 9, 9), pistol))
    return marks


def trails(events: tuple) -> dict[str, list[tuple[int, int]]]:
    """Each vehicle's points in order, by vehicle name, from its moves and drifts among `events`."""
    out: dict[str, list[tuple[int, int]]] = {}
    for event in events:
        if isinstance(event, (VehicleMoved, Drifted)):
            start, end = parse_label(event.from_point), parse_label(event.to_point)
            if start is None or end is None:
                continue
            path = out.setdefault(event.vehicle, [])
            if not path or path[-1] != start:
                path.append(start)
            path.append(end)
    return {name: path for name, path in out.items() if len(path) > 1}


def _trail_marks(state: BattlecarsState, turn: tuple, cell: int, top: int) -> list[Mark]:
    """A faint line in each vehicle's colour through the points it drove or drifted in the recent turns,
    a dot on each point it passed (a returning player reads who went where; a computer's above all)."""
    marks: list[Mark] = []
    for name, path in trails(turn).items():
        vehicle = next((v for v in state.vehicles if v.name == name), None)
        if vehicle is None:
            continue
        colour = TRAILS[vehicle.colour % len(TRAILS)]
        centres = [_centre(p, cell, top) for p in path]

        def paint(draw: ImageDraw.ImageDraw, centres=centres, colour=colour) -> None:
            points = [(K * x, K * y) for x, y in centres]
            draw.line(points, fill=colour, width=6 * K, joint="curve")
            r = K * cell * 0.1
            for x, y in points[:-1]:
                draw.ellipse([x - r, y - r, x + r, y + r], fill=colour, outline=PAPER, width=K)
        marks += [(_union([_box_around(a, cell * 0.1 + 4, cell * 0.1 + 4), _box_around(b, cell * 0.1 + 4,
                                                                                       cell * 0.1 + 4)]), paint)
                  for a, b in zip(centres, centres[1:])]   # boxes along it: a trail's bounding box is mostly empty
    return marks


def _last_turn_marks(state: BattlecarsState, last: tuple, cell: int, top: int) -> list[Mark]:
    """The last action's path (each point driven or drifted) and its shot, under the tokens."""
    marks: list[Mark] = []
    for event in last:
        if isinstance(event, (VehicleMoved, Drifted)):
            ends = [parse_label(event.from_point), parse_label(event.to_point)]
            if None in ends:
                continue
            a, b = (_centre(p, cell, top) for p in ends)

            def path(draw: ImageDraw.ImageDraw, a=a, b=b) -> None:
                draw.line([K * a[0], K * a[1], K * b[0], K * b[1]], fill=PATH, width=7 * K)
            marks.append((_union([_box_around(a, 6, 6), _box_around(b, 6, 6)]), path))
        if isinstance(event, WeaponFired):
            shootable = state.vehicles + state.pedestrians
            firer = next((v for v in shootable if v.name == event.vehicle), None)
            target = next((v for v in shootable if v.name == event.target), None)
            if firer and target and firer.point and target.point:
                a, b = _centre(firer.point, cell, top), _centre(target.point, cell, top)

                def shot(draw: ImageDraw.ImageDraw, a=a, b=b) -> None:
                    draw.line([K * a[0], K * a[1], K * b[0], K * b[1]], fill=INK, width=5 * K)
                    draw.line([K * a[0], K * a[1], K * b[0], K * b[1]], fill=colours.HIGHLIGHT, width=2 * K)
                marks.append((_union([_box_around(a, 5, 5), _box_around(b, 5, 5)]), shot))
    return marks


def _tags(draw: ImageDraw.ImageDraw, state: BattlecarsState, cell: int, top: int, size: tuple[int, int]) -> None:
    """Each vehicle's name and speed on a tag beside its token: above it where that is clear, else below
    or to a side, so that tags cover neither each other nor other tokens where the board allows. Drawn
    straight at the picture's size, over the board (words need no antialiasing but their own)."""
    face = font(TEXT, bold=True)
    left_edge, right_edge = LABELS, LABELS + state.the_board.width * cell
    tokens = {v.id: _box_around(_centre(v.point, cell, top), cell * 0.42, cell * 0.42)
              for v in state.vehicles if v.point is not None}
    tokens.update({p.id: _box_around(_centre(p.point, cell, top), cell * 0.3, cell * 0.45) for p in state.pedestrians})
    placed: list[tuple[float, ...]] = []
    for ident, point, text, colour, muted in _tag_words(state, face):
        cx, cy = _centre(point, cell, top)
        w = face.getlength(text) + 12
        reach = cell * 0.62
        spots = [(cx, cy - reach), (cx, cy + reach), (cx + w / 2 + cell * 0.3, cy - reach),
                 (cx - w / 2 - cell * 0.3, cy - reach), (cx + w / 2 + cell * 0.3, cy + reach),
                 (cx - w / 2 - cell * 0.3, cy + reach)]
        others = [b for vid, b in tokens.items() if vid != ident]

        def clash(spot, w=w, others=others):
            x = min(max(spot[0], left_edge + w / 2), right_edge - w / 2)   # off the rulers
            box = _box_around((x, spot[1]), w / 2, 14)
            off = box[1] < top + LABELS - 14 or box[3] > size[1]
            return (10 * sum(_overlap(box, b) for b in placed) + 3 * sum(_overlap(box, b) for b in others)
                    + 100 * off), box
        _score, box = min((clash(spot) for spot in spots), key=lambda scored: scored[0])
        placed.append(box)
        draw.rounded_rectangle(list(box), radius=5, fill=PAPER, outline=colour, width=2)
        draw_text(draw, ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2), text, face, MUTED if muted else INK, "mm")


def _tag_words(state: BattlecarsState, face) -> list[tuple[str, tuple[int, int], str, Colour, bool]]:
    """What each tag says, and of whom: a vehicle's name and speed; a driver on foot's name and health."""
    tags = []
    for vehicle in state.vehicles:
        if vehicle.point is None:
            continue
        counter = "?" if state.face_down(vehicle.owner) else speed_label(vehicle.speed)
        text = ellipsize(vehicle.name, face, 130) + ("" if vehicle.destroyed or vehicle.driver_out
                                                        else f" · {counter}")
        tags.append((vehicle.id, vehicle.point, text, colours.car_colour(vehicle.colour),
                     vehicle.destroyed or vehicle.driver_out))
    for walker in state.pedestrians:
        owner = state.vehicle_of(walker.owner)
        colour = colours.car_colour(owner.colour) if owner else MUTED
        tags.append((walker.id, walker.point, f"{ellipsize(walker.name, face, 200)} · {walker.health}♥",
                     colour, False))
    return tags


def _box_around(centre: tuple[float, float], half_w: float, half_h: float) -> tuple[float, ...]:
    return centre[0] - half_w, centre[1] - half_h, centre[0] + half_w, centre[1] + half_h


def _overlap(a: Sequence[float], b: Sequence[float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


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
def _chip(lines: ChipLines, fill: Colour, destroyed: bool, active: bool,
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


def _title(state: BattlecarsState) -> str:
    """The header's title: the lobby, whose move it is, or the result."""
    if state.phase == Phase.LOBBY:
        return f"Battlecars · {state.the_board.name} · lobby, {len(state.players)} seated"
    if state.phase == Phase.FINISHED:
        return f"Game over · {name_of(state, state.winner)} wins" if state.winner else "Game over · a draw"
    if state.phase == Phase.SPEED:
        return f"Turn {state.round + 1} · speed counters going down"
    if state.phase == Phase.SECTION:   # the hit vehicle's driver decides, whoever is moving
        return f"Turn {state.round + 1} · {name_of(state, state.open_hit.chooser)} chooses where the hit lands"
    if state.phase == Phase.RETURN:
        return f"Turn {state.round + 1} · {name_of(state, state.open_return.chooser)} may return fire"
    walker = state.pedestrian_of(state.active)
    if walker is not None:
        return f"Turn {state.round + 1} · {walker.name} on foot"
    return f"Turn {state.round + 1} · {name_of(state, state.active)} moves"


def _header(draw: ImageDraw.ImageDraw, state: BattlecarsState, last: tuple, width: int, title: str = "") -> None:
    """The title and the last action in two lines, drawn straight at the picture's size: words need no
    antialiasing but their own, and the header changes every move."""
    draw.rectangle([0, 0, width, HEADER - 1], fill=PAPER)
    draw_text(draw, (20, 24), title or _title(state), font(28, bold=True), INK, "lm")
    face = font(TEXT)
    for row, line in enumerate(wrap(news(last), face, width - 40, 2)):
        draw_text(draw, (20, 56 + row * 26), line, face, INK, "lm")


def news(events: tuple) -> str:
    """The last action in the header's two lines: every event's words, a roll without the rule it is read on
    (the reply has the full breakdown). A smoke marker's end-of-turn roll that left it where it was is
    no news and is left out, so the rolls that mattered (a shot, its damage) keep the two lines."""
    told = [e for e in events if not smoke_stayed(e)]
    words = " ".join(e.brief() if isinstance(e, DiceRolled) else e.describe() for e in told)
    return " ".join(words.split()).replace("->", "→") or "No move yet."


def render_image(state: BattlecarsState, last: tuple = (), title: str = "", whole: bool = False,
                 turn: tuple = ()) -> Image.Image:
    """The channel picture: header, board with tokens, tags, the last action and each vehicle's trail
    through `turn` (the recent turns' events), chips beside it (a plan's preview passes its own `title`
    and its path as `last`).

    The bare board is drawn once per board and kept; a picture redraws only the pieces of the board where
    something stands or happened (_pieces), then lays the name tags, the header and the chips over it.
    `whole` draws the whole board afresh instead: the same pixels, which the tests compare."""
    board = state.the_board
    width, height = page_size(board)
    image = board_image(state, last, turn, whole)
    draw = ImageDraw.Draw(image)
    _tags(draw, state, cell_size(board), HEADER, (width, height))
    _header(draw, state, last, width, title)
    x0 = width - SIDEBAR + 10
    for index, vehicle in enumerate(state.vehicles):
        fill = colours.wreck_colour(vehicle.colour) if vehicle.destroyed else colours.car_colour(vehicle.colour)
        active = state.active == vehicle.owner and state.phase == Phase.MOVE
        chip = _chip(chip_lines(state, vehicle), fill, vehicle.destroyed, active, (width - 12 - x0, CHIP))
        image.paste(chip, (x0, HEADER + index * (CHIP + 6)))
    return image


def board_image(state: BattlecarsState, last: tuple = (), turn: tuple = (), whole: bool = False,
                words: bool = True) -> Image.Image:
    """The page with the board and what stands and happened on it (no tags, header or chips yet): the
    kept bare board, with only the pieces where something is redrawn (all of it when `whole`). Without
    `words`, the tokens leave out their type's letter (a close-up names them itself)."""
    board = state.the_board
    width, height = page_size(board)
    image = _bare(board).copy()
    marks = _marks(state, last, turn, words)
    board_box = (0, HEADER, width - SIDEBAR, height)
    pieces = [Piece(board_box, list(dict.fromkeys(paint for _box, paint in marks)), board_box)] if whole \
        else _pieces(marks, board_box)
    for piece in pieces:
        image.paste(_redrawn(_bare_large(board), piece), piece.box[:2])
    return image


def _marks(state: BattlecarsState, last: tuple, turn: tuple, words: bool = True) -> list[Mark]:
    """What stands on the board and what just happened there, in the order it is drawn over the bare
    board, each with the box its drawing keeps within."""
    board = state.the_board
    cell, top = cell_size(board), HEADER
    marks = _scenery_marks(state, cell, top) + _trail_marks(state, turn, cell, top) \
        + _counter_marks(state, cell, top) + _last_turn_marks(state, last, cell, top)
    for vehicle in state.vehicles:
        if vehicle.point is not None:
            acting = state.active == vehicle.owner and state.phase == Phase.MOVE and not vehicle.driver_out

            def token(draw: ImageDraw.ImageDraw, vehicle=vehicle, acting=acting) -> None:
                _token(draw, vehicle, cell, top, acting, words)
            marks.append((_box_around(_centre(vehicle.point, cell, top), cell * 0.5 + 4, cell * 0.5 + 4), token))
    for walker in state.pedestrians:
        def figure(draw: ImageDraw.ImageDraw, walker=walker) -> None:
            _pedestrian(draw, state, walker, cell, top)
        marks.append((_box_around(_centre(walker.point, cell, top), cell * 0.5, cell * 0.5), figure))
    return marks


def _union(boxes: list) -> tuple[float, ...]:
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


PIECE_COST = 6000   # what a piece costs beyond its area (cropping, averaging, pasting, its paints), in pixels


@dataclass(frozen=True)
class Piece:
    """A piece of the board to redraw: its box of whole pixels, the paints that reach into it in drawing
    order, and the box it is drawn on: the piece grown up and left over every mark that reaches into it,
    so that no drawing there starts at a negative coordinate, which Pillow rounds differently."""

    box: tuple[int, int, int, int]
    paints: list[Callable[[ImageDraw.ImageDraw], None]]
    canvas: tuple[int, int, int, int]


def _pieces(marks: list[Mark], board_box: tuple[int, int, int, int]) -> list[Piece]:
    """The pieces of the board to redraw, each holding every paint that reaches into it (a paint once,
    where the whole picture first draws it: a trail has a box per stretch), so pieces may overlap:
    pasting one never covers another's marks with bare board. Marks' boxes are gathered into one piece
    only where that costs no more than drawing them apart (PIECE_COST), so a long trail stays a chain of
    small pieces, not its bounding rectangle."""
    boxes = [_whole_box(box, board_box) for box, _paint in marks]
    gathered: list[tuple[int, int, int, int]] = []
    for box in boxes:
        if box[0] >= box[2] or box[1] >= box[3]:
            continue
        while cheaper := next((b for b in gathered if _cheaper_together(b, box)), None):
            gathered.remove(cheaper)
            box = _whole_box(_union([cheaper, box]), board_box)
        gathered.append(box)
    order = list(dict.fromkeys(paint for _box, paint in marks))   # as the whole picture draws them
    pieces = []
    for piece in gathered:
        reaching = [(box, paint) for box, (_mark, paint) in zip(boxes, marks) if _overlap(box, piece)]
        if reaching:
            canvas = _whole_box(_union([piece] + [box for box, _paint in reaching]), board_box)
            paints = {paint for _box, paint in reaching}
            pieces.append(Piece(piece, [paint for paint in order if paint in paints],
                                (canvas[0], canvas[1], piece[2], piece[3])))
    return pieces


def _cheaper_together(a: Sequence[float], b: Sequence[float]) -> bool:
    """Whether one piece covering boxes `a` and `b` costs no more than a piece each."""
    return _area(_union([a, b])) <= _area(a) + _area(b) + PIECE_COST


def _area(box: Sequence[float]) -> float:
    return (box[2] - box[0]) * (box[3] - box[1])


def _whole_box(box: Sequence[float], within: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    """`box` grown to whole pixels, kept within `within`."""
    return (max(within[0], math.floor(box[0])), max(within[1], math.floor(box[1])),
            min(within[2], math.ceil(box[2])), min(within[3], math.ceil(box[3])))


def _redrawn(large: Image.Image, piece: Piece) -> Image.Image:
    """The piece of the picture, painted over the piece's canvas of `large` (the bare board at K times
    the size): drawn at K times the size in the whole picture's coordinates, then averaged down (the
    canvas lies on whole K x K blocks, so it matches the whole picture drawn at once) and cut to the
    piece."""
    x0, y0, x1, y1 = piece.canvas
    canvas = large.crop((K * x0, K * y0, K * x1, K * y1))
    draw = ShiftedDraw(canvas, (K * x0, K * y0))
    for paint in piece.paints:
        paint(draw)
    small = canvas.reduce(K)   # a box average of each K x K: the antialiasing, at a fraction of LANCZOS's cost
    bx0, by0, bx1, by1 = piece.box
    return small if (bx0, by0) == (x0, y0) else small.crop((bx0 - x0, by0 - y0, bx1 - x0, by1 - y0))


@lru_cache(maxsize=4)
def _bare_large(board: data.Board) -> Image.Image:
    """The board with nothing on it, at K times the picture's size: terrain, movement lines, labels."""
    width, height = page_size(board)
    image = Image.new("RGB", (K * width, K * height), PAPER)
    _board(ImageDraw.Draw(image), board, cell_size(board), HEADER)
    return image


@lru_cache(maxsize=4)
def _bare(board: data.Board) -> Image.Image:
    """The board with nothing on it, at the picture's size."""
    return _bare_large(board).reduce(K)


KEY_COLOURS = style_colours(colours) + (ROAD, GRASS, BUILDING, TREES, LINE) + TRAILS


def render_battlecars(state: BattlecarsState, last: tuple = (), turn: tuple = ()) -> bytes:
    """Render a Battlecars view and its last action's events to PNG bytes (same input, same bytes)."""
    return to_png(render_image(state, last, turn=turn), palette=palette_for(state.board, state.big), level=PNG_LEVEL)


def render_plan(state: BattlecarsState, preview) -> bytes:
    """A plan's private preview: the map with the planned path drawn as a move, not yet driven."""
    return to_png(render_image(state, preview.moves, "Your plan (not driven yet)"),
                  palette=palette_for(state.board, state.big))


@lru_cache(maxsize=8)
def palette_for(board_id: str, big: bool) -> Image.Image:
    """The fixed palette of every picture of a board: made once from a reference picture (a vehicle of
    every colour the board seats, just placed), so a picture's bytes depend on its state alone and no
    picture pays for building one."""
    seats = data.table()["max_players"] if big else data.table()["big_board_from"] - 1
    mats = list(data.vehicles())
    state = started(BATTLECARS, {"board": board_id},
                    [Join(f"Player {seat + 1}", mats[seat % len(mats)]) for seat in range(seats)])
    return build_palette(render_image(state), KEY_COLOURS)


def warm() -> None:
    """Every board's palette and bare board, made before the first move needs them."""
    for board_id in data.board_ids():
        for big in (False, True):
            palette_for(board_id, big)


def render_closeup_image(state: BattlecarsState, last: tuple = (), turn: tuple = (),
                         focus: str | None = None) -> Closeup:
    """The close-up for a phone of a public view (images.closeup): the board and what stands on it
    (tokens without letters), cropped round the acting vehicle, the vehicles in its reach and the path
    of `last` inside the rulers, everyone named on a tag and the grid's letters and numbers along the
    edges (images.battlecars.closeup says which vehicle acts and what it reaches)."""
    board = state.the_board
    cell = cell_size(board)
    image = board_image(state, last, turn, words=False)
    inner = (LABELS, HEADER + LABELS, LABELS + board.width * cell, HEADER + LABELS + board.height * cell)
    vehicle = acting_vehicle(state, focus)
    shown = [vehicle, *in_reach(state, vehicle)] if vehicle is not None else list(state.vehicles)
    driven = [parse_label(getattr(e, end)) for e in last if isinstance(e, (VehicleMoved, Drifted))
              for end in ("from_point", "to_point")]   # the last move's (or a plan's) path
    points = [_centre(p, cell, HEADER) for p in [v.point for v in shown if v.point is not None] + driven] or \
        [((inner[0] + inner[2]) / 2, (inner[1] + inner[3]) / 2)]
    crop = crop_box(around(points, cell * 1.1), inner, (7 * cell, 5 * cell), ruled=True)
    spots = [Spot(ident, *_centre(point, cell, HEADER), words, colour, cell * 0.45)
             for ident, point, words, colour, _muted in _tag_words(state, font(TEXT, bold=True))]
    ruler = Ruler(tuple((_centre((x, 0), cell, HEADER)[0], chr(ord("A") + x)) for x in range(board.width)),
                  tuple((_centre((0, y), cell, HEADER)[1], str(y + 1)) for y in range(board.height)))
    damaged = bool(state.scenery_damage)   # a damaged piece's badge ('7/20') is the map's own words
    return closeup(image, crop, spots, ruler, map_text=TEXT if damaged else 0.0, map_box=inner)


def render_preview_closeup(state: BattlecarsState, preview, focus: str | None = None) -> Closeup:
    """The close-up of a plan's private preview: the planned path drawn as a move (as the preview's
    picture draws it), cropped round the planning vehicle, its path and what its weapons reach."""
    return render_closeup_image(state, preview.moves, (), focus)


RENDERER = Renderer(render=render_battlecars, replay_map=lambda state, last: render_image(state, last),
                    captioner=Captioner(name_of, colour_of), render_preview=render_plan, render_sheets=render_mats,
                    warm=warm,
                    closeup=render_closeup_image, preview_closeup=render_preview_closeup)
