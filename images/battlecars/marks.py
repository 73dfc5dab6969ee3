"""What stands on the board and what just happened there, each as a mark (its box and its paint): tokens,
drivers on foot, damaged scenery, passive weapons and pistols left, trails and the last move's path and shot."""

from __future__ import annotations

import math
from dataclasses import replace

from PIL import ImageDraw

from images import palette as colours
from images.battlecars.style import GRASS, INK, MUTED, PAPER, PATH, TEXT, TRAILS, K, Mark, box_around, centre, union
from images.draw import draw_text, ink_on, mix
from images.fonts import font
from rules.battlecars import data, scenery
from rules.battlecars.events import Drifted, VehicleMoved, WeaponFired
from rules.battlecars.grid import DIRECTIONS, FACING_NAMES, parse_label
from rules.battlecars.state import BattlecarsState, Vehicle


def draw_token(draw: ImageDraw.ImageDraw, vehicle: Vehicle, cell: int, top: int, acting: bool,
               words: bool = True, ghost: bool = False) -> None:
    """A top-down token: a rounded body along its facing in the driver's colour, a pale nose, and its
    type's letter (unless not `words`); a wreck greyed and crossed. A `ghost` (where a plan ends) is pale,
    in a ring of the path's colour."""
    cx, cy = centre(vehicle.point, cell, top)
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
    if ghost:
        fill = mix(fill, PAPER, 0.55)
        r = cell * 0.5
        draw.ellipse([K * (cx - r), K * (cy - r), K * (cx + r), K * (cy + r)], fill=PAPER, outline=PATH, width=5 * K)
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


def scenery_marks(state: BattlecarsState, cell: int, top: int) -> list[Mark]:
    """Damaged buildings and trees: a flattened piece as rubble over its points; on each damaged piece its
    damage against its strength ('7/20') on a badge along its lower edge."""
    board = state.the_board
    face = font(K * TEXT, bold=True)
    marks: list[Mark] = []
    for piece, taken in state.scenery_damage:
        kind = board.terrain(piece)
        centres = [centre(p, cell, top) for p in _points_of(board) if board.piece(p) == piece]
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
        cells = [box_around(c, cell / 2, cell / 2) for c in centres]
        marks.append((union(cells + [(x - w / 2 - 2, y - 15, x + w / 2 + 2, y + 15)]), paint))
    return marks


def _points_of(board: data.Board) -> tuple:
    return tuple((x, y) for y in range(board.height) for x in range(board.width))


def draw_pedestrian(draw: ImageDraw.ImageDraw, state: BattlecarsState, walker, cell: int, top: int) -> None:
    """A driver on foot: a small figure in the driver's colour, with their health as pips beneath."""
    cx, cy = centre(walker.point, cell, top)
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


def counter_marks(state: BattlecarsState, cell: int, top: int) -> list[Mark]:
    """The passive weapons on the board and the pistols dead drivers left: oil a dark slick, a mine a
    black disc with studs, spikes a row of grey teeth, smoke a grey cloud, a pistol a small dark mark."""
    r = cell * 0.3
    marks: list[Mark] = []
    for counter in state.counters:
        cx, cy = centre(counter.point, cell, top)

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
        marks.append((box_around((cx, cy), 1.5 * r + 2, 1.5 * r + 2), paint))
    for point, _rounds in state.pistols_left:
        cx, cy = centre(point, cell, top)
        x, y = cx + cell * 0.28, cy + cell * 0.28

        def pistol(draw: ImageDraw.ImageDraw, x=x, y=y) -> None:
            draw.rectangle([K * (x - 7), K * (y - 3), K * (x + 7), K * (y + 3)], fill=INK)
            draw.rectangle([K * (x - 7), K * (y - 3), K * (x - 3), K * (y + 7)], fill=INK)
        marks.append((box_around((x, y), 9, 9), pistol))
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


def trail_marks(state: BattlecarsState, turn: tuple, cell: int, top: int) -> list[Mark]:
    """A faint line in each vehicle's colour through the points it drove or drifted in the recent turns,
    a dot on each point it passed (a returning player reads who went where; a computer's above all)."""
    marks: list[Mark] = []
    for name, path in trails(turn).items():
        vehicle = next((v for v in state.vehicles if v.name == name), None)
        if vehicle is None:
            continue
        colour = TRAILS[vehicle.colour % len(TRAILS)]
        centres = [centre(p, cell, top) for p in path]

        def paint(draw: ImageDraw.ImageDraw, centres=centres, colour=colour) -> None:
            points = [(K * x, K * y) for x, y in centres]
            draw.line(points, fill=colour, width=6 * K, joint="curve")
            r = K * cell * 0.1
            for x, y in points[:-1]:
                draw.ellipse([x - r, y - r, x + r, y + r], fill=colour, outline=PAPER, width=K)
        marks += [(union([box_around(a, cell * 0.1 + 4, cell * 0.1 + 4), box_around(b, cell * 0.1 + 4,
                                                                                       cell * 0.1 + 4)]), paint)
                  for a, b in zip(centres, centres[1:])]   # boxes along it: a trail's bounding box is mostly empty
    return marks


def last_turn_marks(state: BattlecarsState, last: tuple, cell: int, top: int) -> list[Mark]:
    """The last action's path (each point driven or drifted) and its shot, under the tokens."""
    marks: list[Mark] = []
    for event in last:
        if isinstance(event, (VehicleMoved, Drifted)):
            ends = [parse_label(event.from_point), parse_label(event.to_point)]
            if None in ends:
                continue
            a, b = (centre(p, cell, top) for p in ends)

            def path(draw: ImageDraw.ImageDraw, a=a, b=b) -> None:
                draw.line([K * a[0], K * a[1], K * b[0], K * b[1]], fill=PATH, width=7 * K)
            marks.append((union([box_around(a, 6, 6), box_around(b, 6, 6)]), path))
        if isinstance(event, WeaponFired):
            shootable = state.vehicles + state.pedestrians
            firer = next((v for v in shootable if v.name == event.vehicle), None)
            target = next((v for v in shootable if v.name == event.target), None)
            if firer and target and firer.point and target.point:
                a, b = centre(firer.point, cell, top), centre(target.point, cell, top)

                def shot(draw: ImageDraw.ImageDraw, a=a, b=b) -> None:
                    draw.line([K * a[0], K * a[1], K * b[0], K * b[1]], fill=INK, width=5 * K)
                    draw.line([K * a[0], K * a[1], K * b[0], K * b[1]], fill=colours.HIGHLIGHT, width=2 * K)
                marks.append((union([box_around(a, 5, 5), box_around(b, 5, 5)]), shot))
    return marks


def plan_end(state: BattlecarsState, path: tuple) -> tuple[Vehicle, tuple[int, int]] | None:
    """Where a plan's path (its moves) ends: the vehicle posed there, facing as it would, and the point."""
    moves = [e for e in path if isinstance(e, VehicleMoved)]
    vehicle = next((v for v in state.vehicles if moves and v.name == moves[-1].vehicle), None)
    end = parse_label(moves[-1].to_point) if moves else None
    if vehicle is None or end is None:
        return None
    facing = FACING_NAMES.index(moves[-1].facing) if moves[-1].facing in FACING_NAMES else vehicle.facing
    return replace(vehicle, point=end, facing=facing), end


def plan_end_marks(state: BattlecarsState, path: tuple, cell: int, top: int) -> list[Mark]:
    """A plan's end, drawn over everything: a pale ghost of the vehicle, as it would stand, in a ring."""
    found = plan_end(state, path)
    if found is None:
        return []
    ghost, end = found

    def paint(draw: ImageDraw.ImageDraw) -> None:
        draw_token(draw, ghost, cell, top, False, False, ghost=True)
    return [(box_around(centre(end, cell, top), cell * 0.5 + 6, cell * 0.5 + 6), paint)]
