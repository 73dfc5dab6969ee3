"""A private planning picture for the acting player: the map as it is now, with a planned turn drawn on
it (the path, a ghost counter per Move, the skid odds, a blocked step, the weapon arcs, and the plan's
shot from its point of the path or the shots from the end) under a caption that spells the plan out.
Shown only to that player, with Confirm/Cancel.

Everything is worked out per call from the TurnPreview; nothing here is cached.
"""

from __future__ import annotations

import math
from dataclasses import replace

from PIL import Image, ImageDraw, ImageFilter

from images import palette
from images.draw import dashed_line, draw_text, fit_font, mix, smooth_overlay, style_colours, to_png, wrap
from images.fonts import font
from images.hexmap import HexLayout
from images.speedway import style
from images.speedway.arena import base_layer, frame
from images.speedway.caption import name_of
from images.speedway.combat import draw_hazards
from images.speedway.counters import counter_sprite, draw_cars, draw_tags, midpoint, sprite_box
from rules.hexgrid import DIRECTION_NAMES, DIRECTIONS, Hex, add, distance, label
from rules.speedway import data
from rules.speedway.driving import counter_hexes
from rules.speedway.geometry import arcs_of, centre
from rules.speedway.preview import TurnPreview, blocker_of, when
from rules.speedway.state import Car, SpeedwayState, required

Box = tuple[float, float, float, float]
Point = tuple[float, float]

SWEPT_ALPHA = 120          # the path's tint over the field, out of 255
ARC_ALPHA = 34             # the weapon arcs' wash: faint, so the path stays on top
GHOST_ALPHA = 0.3          # an intermediate ghost counter's opacity
END_ALPHA = 0.86           # the final ghost's
STEP_CHIP = 14             # step-number pin radius: a counter is 32 px wide
STEP_TEXT = 21
BADGE_H = 40               # skid / shot / end label height
BADGE_TEXT = 28
TITLE = 34
BODY = 28
LINE = 37
ARC_LABEL_MIN = 6          # an arc with fewer open hexes goes unnamed: its wash says enough
RISKY = 0.5                # below this chance to resist a skid, the odds are printed in red


def percent(chance: float) -> str:
    """A chance as the bot words it elsewhere: 0.714 -> '71%'."""
    return f"{chance:.0%}"


# ---- placement: labels go where they cover least ------------------------------------------------

def _overlap(a: Box, b: Box) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return w * h if w > 0 and h > 0 else 0.0


def _spot(anchor: Point, w: float, h: float, taken: list[Box], bounds: Box, first: float,
          reaches: tuple[float, ...] = (1.05, 1.9, 2.9)) -> Box:
    """A w x h box beside `anchor`, trying twelve directions (from angle `first`, radians, screen
    y down) at three distances; the one covering least of `taken` and staying inside `bounds` wins,
    nearer and earlier spots breaking ties."""
    best: Box | None = None
    best_score = math.inf
    for ring, reach in enumerate(reaches):
        for k in range(12):
            # first, then alternately either side of it: first, +30, -30, +60, ...
            turn = first + math.radians(30 * ((k + 1) // 2) * (1 if k % 2 else -1))
            ux, uy = math.cos(turn), math.sin(turn)
            extent = abs(ux) * w / 2 + abs(uy) * h / 2
            cx = anchor[0] + ux * (reach * style.HEX + extent)
            cy = anchor[1] + uy * (reach * style.HEX + extent)
            box = (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)
            outside = (max(0, bounds[0] - box[0]) + max(0, box[2] - bounds[2])
                       + max(0, bounds[1] - box[1]) + max(0, box[3] - bounds[3]))
            score = (sum(_overlap(box, t) for t in taken) + 400 * outside + 300 * ring + 8 * k)
            if score < best_score:
                best, best_score = box, score
    return _inside(required(best, "no spot tried", reaches), bounds)   # every spot scores below infinity


def _inside(box: Box, bounds: Box) -> Box:
    """`box` shifted the least needed to lie within `bounds`."""
    dx = max(0, bounds[0] - box[0]) - max(0, box[2] - bounds[2])
    dy = max(0, bounds[1] - box[1]) - max(0, box[3] - bounds[3])
    return (box[0] + dx, box[1] + dy, box[2] + dx, box[3] + dy)


def _nearest_on(box: Box, p: Point) -> Point:
    return (min(max(p[0], box[0]), box[2]), min(max(p[1], box[1]), box[3]))


def _leader(draw: ImageDraw.ImageDraw, start: Point, box: Box, skip: float) -> None:
    """A thin line from `skip` pixels out of `start` to the nearest point of `box`."""
    end = _nearest_on(box, start)
    length = math.dist(start, end)
    if length <= skip + 4:
        return
    ux, uy = (end[0] - start[0]) / length, (end[1] - start[1]) / length
    draw.line([(start[0] + ux * skip, start[1] + uy * skip), end], fill=palette.INK, width=3)


def _around(p: Point, r: float) -> Box:
    return (p[0] - r, p[1] - r, p[0] + r, p[1] + r)


# ---- the pieces on the map ------------------------------------------------------------------------

def _middle(front: Hex, facing: int, layout: HexLayout) -> Point:
    (fx, fy), (bx, by) = (layout.center(h) for h in counter_hexes(front, facing))
    return ((fx + bx) / 2, (fy + by) / 2)


def _tint(image: Image.Image, hexes, fill, alpha: int, scale: float, layout: HexLayout) -> None:
    """Wash `hexes` with `fill` at `alpha`, the grid and hex labels still showing through."""
    layer = Image.new("RGBA", image.size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(layer)
    for h in hexes:
        draw.polygon(layout.corners(h, scale), fill=fill + (alpha,))
    image.paste(layer, (0, 0), layer)


def _ghost(image: Image.Image, car: Car, front: Hex, facing: int, opacity: float,
           layout: HexLayout, ringed: bool = False) -> Box:
    """A see-through copy of the car's counter at this pose, `ringed` in white and ink to stand out;
    returns the box it covers."""
    sprite = counter_sprite(car.colour, facing, False, True)
    alpha = sprite.getchannel("A")
    x, y = _middle(front, facing, layout)
    left, top = round(x - sprite.width / 2), round(y - sprite.height / 2)
    if ringed:
        solid = alpha.point(lambda a: 255 if a > 96 else 0)
        outer = solid.filter(ImageFilter.MaxFilter(11)).filter(ImageFilter.BoxBlur(1))
        inner = solid.filter(ImageFilter.MaxFilter(7)).filter(ImageFilter.BoxBlur(1))
        image.paste(palette.INK, (left, top), outer)
        image.paste(palette.PAPER, (left, top), inner)
    ghost = sprite.copy()
    ghost.putalpha(alpha.point(lambda a: round(a * opacity)))
    image.paste(ghost, (left, top), ghost)
    return sprite_box(sprite, left, top)


def weapon_arcs(state: SpeedwayState, car: Car) -> list[tuple[str, str, int, frozenset[Hex]]]:
    """(weapon name, mount, max range, open hexes in its arc within range) for each working offensive
    weapon of `car` not yet fired this turn, as the car stands."""
    arena = data.arena(state.arena)
    specs = data.offensive_weapons()
    field = [h for h in arena.field_hexes() if arena.is_open(h) and h not in car.hexes]
    arcs = []
    for weapon in car.weapons:
        if not (weapon.offensive and weapon.working) or weapon.mount in car.fired or weapon.name not in specs:
            continue
        reach = specs[weapon.name].max_range
        hexes = frozenset(h for h in field if min(distance(h, x) for x in car.hexes) <= reach
                          and weapon.mount in arcs_of(car, centre(h)))
        arcs.append((weapon.name, weapon.mount, reach, hexes))
    return arcs


def _draw_arcs(image: Image.Image, arcs, colour, layout: HexLayout) -> list[tuple[str, list[Point]]]:
    """A faint wash over every arc and a dashed rim around each; returns each arc's name with the
    centres of its hexes from the middle of the arc outwards (where its label may go)."""
    union = frozenset().union(*(a[3] for a in arcs)) if arcs else frozenset()
    _tint(image, sorted(union), colour, ARC_ALPHA, 1.0, layout)
    draw = ImageDraw.Draw(image)
    rim = mix(colour, palette.INK, 0.75)
    spots = []
    for name, mount, reach, hexes in arcs:
        for h in sorted(hexes):
            for direction, delta in enumerate(DIRECTIONS):
                if add(h, delta) not in hexes:
                    a, b = layout.edge(h, direction)
                    dashed_line(draw, a, b, rim, 3, 7, 5)
        if len(hexes) >= ARC_LABEL_MIN:
            cx = sum(layout.center(h)[0] for h in hexes) / len(hexes)
            cy = sum(layout.center(h)[1] for h in hexes) / len(hexes)
            inward = sorted(hexes, key=lambda h: (round(math.dist(layout.center(h), (cx, cy)), 3), h))
            spots.append((f"{name} · {mount} arc · {reach} hexes", [layout.center(h) for h in inward]))
    return spots


def _badge(draw: ImageDraw.ImageDraw, box: Box, lines: list[str], text_font, fill, ink, outline=palette.INK,
           width: int = 3, radius: int = 8) -> None:
    """A rounded label with one or more centred lines of text."""
    draw.rounded_rectangle(box, radius=radius, fill=fill, outline=outline, width=width)
    step = (box[3] - box[1]) / len(lines)
    for k, text in enumerate(lines):
        draw_text(draw, ((box[0] + box[2]) / 2, box[1] + step * (k + 0.5)), text, text_font, ink, "mm")


def _whole(box: Box) -> tuple[int, int, int, int]:
    """`box` rounded to whole pixels."""
    return round(box[0]), round(box[1]), round(box[2]), round(box[3])


def _red_x(image: Image.Image, at: Point, size: float) -> Box:
    box = _whole(_around(at, size + 8))

    def paint(draw: ImageDraw.ImageDraw, to_px, scale: float) -> None:
        for width, colour in ((15, palette.PAPER), (9, palette.BAD)):
            for a, b in (((-1, -1), (1, 1)), ((-1, 1), (1, -1))):
                p = to_px((at[0] + a[0] * size, at[1] + a[1] * size))
                q = to_px((at[0] + b[0] * size, at[1] + b[1] * size))
                draw.line([p, q], fill=colour, width=round(width * scale))
    smooth_overlay(image, box, paint)
    return box


def _along_boxes(a: Point, b: Point, every: float = 14) -> list[Box]:
    """Small boxes along a line, so labels keep off it."""
    length = math.dist(a, b) or 1.0
    return [_around((a[0] + (b[0] - a[0]) * k * every / length, a[1] + (b[1] - a[1]) * k * every / length), 7)
            for k in range(int(length // every) + 1)]


def _route(image: Image.Image, points: list[Point], colour) -> None:
    """The path's spine: a white-cased line in a dark shade of the car's colour through `points`."""
    if len(points) < 2:
        return
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    box = (math.floor(min(xs)) - 12, math.floor(min(ys)) - 12, math.ceil(max(xs)) + 12, math.ceil(max(ys)) + 12)
    dark = mix(colour, palette.INK, 0.55)

    def paint(draw: ImageDraw.ImageDraw, to_px, scale: float) -> None:
        px = [to_px(p) for p in points]
        for width, fill in ((11, palette.PAPER), (6, dark)):
            draw.line(px, fill=fill, width=round(width * scale), joint="curve")
            for p in px:
                r = width * scale / 2
                draw.ellipse((p[0] - r, p[1] - r, p[0] + r, p[1] + r), fill=fill)
    smooth_overlay(image, box, paint)


def _pin(image: Image.Image, at: Point, facing: int, text: str) -> Box:
    """A round step marker with a point sticking out along `facing`; returns the box it covers."""
    r = STEP_CHIP
    ux, uy = math.cos(math.radians(60 * facing)), -math.sin(math.radians(60 * facing))
    box = _whole(_around(at, 2 * r + 6))

    def paint(draw: ImageDraw.ImageDraw, to_px, scale: float) -> None:
        c = to_px(at)
        rr = r * scale
        tip = (c[0] + ux * 1.75 * rr, c[1] + uy * 1.75 * rr)
        wing = 0.62 * rr
        left = (c[0] - uy * wing + ux * 0.75 * rr, c[1] + ux * wing + uy * 0.75 * rr)
        right = (c[0] + uy * wing + ux * 0.75 * rr, c[1] - ux * wing + uy * 0.75 * rr)
        halo = 2 * scale
        draw.polygon([tip, left, right], fill=palette.PAPER, outline=palette.PAPER, width=round(2 * halo))
        draw.ellipse((c[0] - rr - halo, c[1] - rr - halo, c[0] + rr + halo, c[1] + rr + halo), fill=palette.PAPER)
        draw.polygon([tip, left, right], fill=palette.INK)
        draw.ellipse((c[0] - rr, c[1] - rr, c[0] + rr, c[1] + rr), fill=palette.INK)
        draw_text(draw, (c[0], c[1] + 0.5 * scale), text, font(round(STEP_TEXT * scale), bold=True), palette.PAPER,
                  "mm")
    smooth_overlay(image, box, paint, scale=3)
    return _around(at, r + 3)


def _shot_line(image: Image.Image, a: Point, b: Point, colour) -> None:
    """A dashed line in the firer's colour, outlined in ink, from the end counter to the target."""
    length = math.dist(a, b) or 1.0
    ux, uy = (b[0] - a[0]) / length, (b[1] - a[1]) / length
    b = (b[0] - ux * 0.5 * style.HEX, b[1] - uy * 0.5 * style.HEX)
    box = (math.floor(min(a[0], b[0]) - 12), math.floor(min(a[1], b[1]) - 12),
           math.ceil(max(a[0], b[0]) + 12), math.ceil(max(a[1], b[1]) + 12))

    def paint(draw: ImageDraw.ImageDraw, to_px, scale: float) -> None:
        p, q = to_px(a), to_px(b)
        span = math.dist(p, q)
        pos, dash, gap = 0.0, 16 * scale, 7 * scale

        def at(d):
            return (p[0] + (q[0] - p[0]) * d / span, p[1] + (q[1] - p[1]) * d / span)
        while pos < span:
            stop = min(pos + dash, span)
            draw.line([at(pos), at(stop)], fill=palette.INK, width=round(9 * scale))
            draw.line([at(pos + 2 * scale), at(max(pos + 2 * scale, stop - 2 * scale))], fill=colour,
                      width=round(5 * scale))
            pos = stop + gap
        r = 7 * scale   # a ring where the shot lands
        draw.ellipse((q[0] - r, q[1] - r, q[0] + r, q[1] + r), fill=colour, outline=palette.INK,
                     width=round(3 * scale))
    smooth_overlay(image, box, paint)


def travelled(preview: TurnPreview) -> tuple[Hex, ...]:
    """The swept hexes the counter really reaches: TurnPreview.swept without those only the blocked
    step would cover (that step is drawn as a red X instead)."""
    reached = {h for s in preview.steps if not s.blocked for h in counter_hexes(s.front, s.facing)}
    return tuple(h for h in preview.swept if h in reached)


def _screen_angle(facing: int, turn_degrees: float = 0.0) -> float:
    """The on-screen angle (radians, y down) of a facing, turned `turn_degrees` counter-clockwise."""
    a = math.radians(60 * facing + turn_degrees)
    return math.atan2(-math.sin(a), math.cos(a))


def _draw_path(image: Image.Image, state: SpeedwayState, preview: TurnPreview, layout: HexLayout,
               taken: list[Box]) -> list[Point]:
    """Ghosts, the blocked step's X, the route, hazards on the way and the numbered pins; returns each
    Move's front hex centre (the pins), adding what it covers to `taken`."""
    car = state.car(preview.car)
    moved = [s for s in preview.steps if not s.blocked]
    blocked = next((s for s in preview.steps if s.blocked), None)
    for step in moved[:-1]:
        taken.append(_ghost(image, car, step.front, step.facing, GHOST_ALPHA, layout))
    if blocked is not None:
        taken.append(_red_x(image, layout.center(blocked.front), 0.7 * style.HEX))
    for step in moved:   # an accepted skid's slide into a car, wall or obstacle
        if step.skids_into is not None:
            taken.append(_red_x(image, layout.center(step.skids_into), 0.7 * style.HEX))
    _route(image, [layout.center(car.front_hex)] + [layout.center(s.front) for s in moved],
           palette.car_colour(car.colour))
    pins: list[Point] = []
    seen: dict[Hex, int] = {}
    for step in moved:   # a path that comes back over a hex fans its pins out so every number shows
        x, y = layout.center(step.front)
        again = seen.get(step.front, 0)
        seen[step.front] = again + 1
        pins.append((x + again * 0.9 * STEP_CHIP, y + again * 1.3 * STEP_CHIP))
    if moved:
        end = preview.end
        taken.append(_ghost(image, car, end.front_hex, end.facing, END_ALPHA, layout, ringed=True))
    # Mines, oil and smoke on the path matter to the plan: show them again over the ghosts.
    swept = set(travelled(preview))
    on_path = tuple(h for h in state.hazards if h.hex in swept)
    if on_path:
        taken.extend(draw_hazards(image, replace(state, hazards=on_path), layout))
    for i, (step, at) in enumerate(zip(moved, pins)):
        taken.append(_pin(image, at, step.facing, str(i + 1)))
    return pins


def _draw_shots(image: Image.Image, state: SpeedwayState, preview: TurnPreview, layout: HexLayout,
                taken: list[Box]) -> list[tuple[list, Point, Point, list[Box]]]:
    """A line to each target from where its shots are taken (the plan's own shot from its point of the
    path, others from the end counter); returns (its shots, from, to, boxes along it)."""
    car = state.car(preview.car)
    colour = palette.car_colour(car.colour)
    targets: dict[str, list] = {}
    for shot in (preview.fire,) if preview.fire is not None else preview.shots:
        targets.setdefault(shot.target, []).append(shot)
    by_name = {c.name: c for c in state.cars}
    if preview.fire is not None:
        after = required(preview.fire.after, "the plan's shot says where on the path it is taken", preview.car)
        pose = preview.pose_after(after) or (car.front_hex, car.facing)
        start = _middle(*pose, layout)
    else:
        start = _middle(preview.end.front_hex, preview.end.facing, layout)
    drawn = []
    for name, shots in targets.items():
        target = by_name.get(name)
        if target is None or target.front is None:
            continue
        to = midpoint(target, layout)
        _shot_line(image, start, to, colour)
        line = _along_boxes(start, to)
        drawn.append((shots, start, to, line))
        taken.extend(line)
    return drawn


def _draw_labels(image: Image.Image, preview: TurnPreview, layout: HexLayout, colour, pins: list[Point],
                 shot_lines, arc_spots, taken: list[Box]) -> None:
    """The words on the map, most important first so they get the best spots: END, the skid odds, the
    blocked step, the hit chances, then the arcs' names."""
    draw = ImageDraw.Draw(image)
    bounds: Box = (4, 4, image.width - 4, image.height - 4)
    big = font(BADGE_TEXT, bold=True)
    moved = [s for s in preview.steps if not s.blocked]
    end = preview.end
    if moved:   # a car that cannot make its first Move has no END to mark
        w = big.getlength("END") + 22
        box = _spot(_middle(end.front_hex, end.facing, layout), w, BADGE_H, taken, bounds,
                    _screen_angle(end.facing), (1.2, 1.75, 2.5, 3.4))
        taken.append(box)
        _leader(draw, pins[-1], box, 1.75 * style.HEX)
        _badge(draw, box, ["END"], big, palette.INK, palette.PAPER, outline=colour)
    for step, at in zip(moved, pins):
        if step.resist_chance is None and not step.slid and step.skids_into is None:
            continue
        if step.resist_chance is not None:
            text = f"skid: resist {percent(step.resist_chance)}"
            ink = palette.BAD if step.resist_chance < RISKY else palette.INK
        else:
            text = "skid: slides" if step.slid else "skid: collides"
            ink = palette.INK if step.slid else palette.BAD
        box = _spot(at, big.getlength(text) + 22, BADGE_H, taken, bounds, _screen_angle(step.facing, 90))
        taken.append(box)
        _leader(draw, at, box, STEP_CHIP + 2)
        _badge(draw, box, [text], big, palette.HIGHLIGHT, ink, outline=ink)
    blocked = next((s for s in preview.steps if s.blocked), None)
    if blocked is not None:
        text = f"{len(moved) + 1}: blocked"
        box = _spot(layout.center(blocked.front), big.getlength(text) + 22, BADGE_H, taken, bounds,
                    -math.pi / 2)
        taken.append(box)
        _badge(draw, box, [text], big, palette.BAD, palette.PAPER, width=2)
    for shots, a, b, line in shot_lines:   # one box per target, on its line where it can
        if shots[0].after is not None:   # the plan's own shot says where on the path it is taken
            where = f"after {shots[0].after}" if shots[0].after else "at start"
            lines = [f"{where} · hit {percent(shots[0].chance)}"]
        elif len(shots) == 1:
            lines = [f"hit {percent(shots[0].chance)}"]
        else:   # several guns on one target: name each by its mount
            lines = [f"{s.weapon.rsplit('(', 1)[-1].rstrip(')')} {percent(s.chance)}" for s in shots]
        w = max(big.getlength(t) for t in lines) + 22
        h = BADGE_H + (len(lines) - 1) * 34
        mid = (a[0] + (b[0] - a[0]) * 0.55, a[1] + (b[1] - a[1]) * 0.55)
        box = _inside((mid[0] - w / 2, mid[1] - h / 2, mid[0] + w / 2, mid[1] + h / 2), bounds)
        if sum(_overlap(box, t) for t in taken if t not in line) > 0.15 * w * h:
            box = _spot(mid, w, h, taken, bounds, -math.pi / 2)
        taken.append(box)
        _badge(draw, box, lines, big, palette.PAPER, palette.INK)
    small = font(19, bold=True)
    for text, places in arc_spots:
        w = small.getlength(text) + 16
        fits = (_inside((x - w / 2, y - 13, x + w / 2, y + 13), bounds) for x, y in places)
        clear = next((b for b in fits if not any(_overlap(b, t) for t in taken)), None)
        if clear is None:   # nowhere clear inside its own arc: leave it unnamed rather than mislabel
            continue
        taken.append(clear)
        _badge(draw, clear, [text], small, mix(colour, palette.PAPER, 0.18), palette.INK,
               outline=mix(colour, palette.INK, 0.75), width=2, radius=6)


def draw_plan(image: Image.Image, state: SpeedwayState, preview: TurnPreview, layout: HexLayout) -> None:
    """The map part: every car as now, with the planned path, its odds and the shots drawn over it.
    Bottom to top: arcs, swept hexes, hazards and cars, ghosts, shots, route and pins, labels, tags."""
    car = state.car(preview.car)
    colour = palette.car_colour(car.colour)
    arc_spots = _draw_arcs(image, weapon_arcs(state, preview.end), colour, layout)
    _tint(image, travelled(preview), colour, SWEPT_ALPHA, 0.97, layout)
    boxes, marks = draw_cars(image, state, layout)   # no last shot: it would read as part of the plan
    taken: list[Box] = list(boxes.values()) + marks
    shot_lines = _draw_shots(image, state, preview, layout, taken)
    pins = _draw_path(image, state, preview, layout, taken)
    _draw_labels(image, preview, layout, colour, pins, shot_lines, arc_spots, taken)
    draw_tags(image, state, boxes, taken[len(boxes):])


# ---- the caption ----------------------------------------------------------------------------------

Segment = tuple[str, bool, tuple[int, int, int]]   # text, bold, ink


def _odds_ink(chance: float):
    return palette.BAD if chance < RISKY else palette.GOOD


def _caption_rows(state: SpeedwayState, preview: TurnPreview) -> list[list[Segment]]:
    """Rows of styled text under the title: where it ends, the skids, a block, the shots."""
    car = state.car(preview.car)
    end = preview.end
    moved = [s for s in preview.steps if not s.blocked]
    plain, ink = False, palette.INK
    rows: list[list[Segment]] = [[
        ("Ends at ", plain, ink), (label(end.front_hex), True, ink), (" facing ", plain, ink),
        (DIRECTION_NAMES[end.facing], True, ink), (" · inertia ", plain, ink), (str(end.inertia), True, ink)]]
    skids = [(i + 1, s.maneuver, s.resist_chance) for i, s in enumerate(moved) if s.resist_chance is not None]
    if skids:
        row: list[Segment] = [("Skid checks, chance to resist:", plain, ink)]
        for k, (n, maneuver, chance) in enumerate(skids):
            row += [((" · " if k else " ") + f"#{n}\u00a0{maneuver}\u00a0", plain, ink),
                    (percent(chance), True, _odds_ink(chance))]
        rows.append(row)
    accepted = [f"#{n}\u00a0{s.maneuver} slides\u00a0{s.slid}" for n, s in enumerate(moved, 1) if s.slid]
    if accepted:
        rows.append([("Skids accepted: ", plain, ink), (" · ".join(accepted), True, ink)])
    elif not skids and not any(s.skids_into is not None for s in moved):
        rows.append([("No skid checks", plain, palette.MUTED)])
    blocked = next((s for s in preview.steps if s.blocked), None)
    if blocked is not None:
        blocker = blocker_of(state, car, blocked)
        rows.append([(f"✗ Move #{len(moved) + 1} ({blocked.maneuver}) is blocked by {blocker}", True, palette.BAD)])
    for n, step in enumerate(moved, 1):
        if step.skids_into is not None:
            blocker = blocker_of(state, car, step)
            rows.append([(f"✗ Move #{n} ({step.maneuver}) skids into {blocker}: the path ends there", True,
                          palette.BAD)])
    if preview.fire is not None:
        shot = preview.fire
        rows.append([(f"Fires {shot.weapon} → {shot.target} {when(shot)}: ", plain, ink),
                     (percent(shot.chance), True, ink)])
    elif preview.shots:
        row = [("Shots from the end:", plain, ink)]
        for k, shot in enumerate(preview.shots):
            row += [((" · " if k else " ") + f"{shot.weapon} → {shot.target} ".replace(" ", "\u00a0")[:-1] + " ",
                     plain, ink),
                    (percent(shot.chance), True, ink)]
        rows.append(row)
    else:
        rows.append([("No shots from the end", plain, palette.MUTED)])
    return rows


def _flow(segments: list[Segment], width: float, size: int) -> list[list[tuple[float, str, bool, tuple]]]:
    """Word-wrap styled segments into lines of (x, word, bold, ink) pieces."""
    lines: list[list[tuple[float, str, bool, tuple]]] = [[]]
    x = 0.0
    for text, bold, ink in segments:
        face = font(size, bold)
        for word in text.replace(" ", " \0").split("\0"):
            if not word:
                continue
            w = face.getlength(word)
            if x > 0 and x + face.getlength(word.rstrip()) > width:
                lines.append([])
                x = 0.0
                word = word.lstrip()
                w = face.getlength(word)
            lines[-1].append((x, word, bold, ink))
            x += w
    return lines


def render_plan_caption(state: SpeedwayState, preview: TurnPreview, width: int) -> Image.Image:
    """The strip above the map: whose plan, its Moves, and the odds in words."""
    car = state.car(preview.car)
    colour = palette.car_colour(car.colour)
    inner = width - 2 * style.PAD
    who = name_of(state, car.owner)
    title = f"Plan for {who}: {', '.join(s.maneuver for s in preview.steps)} — confirm or cancel"
    title_font = fit_font(title, TITLE, inner - 42, bold=True, minimum=TITLE - 6)
    if title_font.getlength(title) > inner - 42:
        title_font = font(TITLE, bold=True)
    title_lines = wrap(title, title_font, inner - 42, 3)
    lines = [line for row in _caption_rows(state, preview) for line in _flow(row, inner, BODY)]
    height = style.PAD + (TITLE + 8) * len(title_lines) + 6 + LINE * len(lines) + style.PAD - 6
    image = Image.new("RGB", (width, height), palette.PAPER)
    draw = ImageDraw.Draw(image)
    x, y = style.PAD, style.PAD
    draw.rounded_rectangle((x, y + 2, x + 30, y + TITLE - 2), radius=6, fill=colour, outline=palette.INK, width=2)
    for title_line in title_lines:
        draw_text(draw, (x + 42, y + TITLE / 2), title_line, title_font, palette.INK, "lm")
        y += TITLE + 8
    y += 6
    for line in lines:
        for dx, word, bold, ink in line:
            draw_text(draw, (x + dx, y + LINE / 2), word, font(BODY, bold), ink, "lm")
        y += LINE
    return image


PREVIEW_MIN_WIDTH = 800   # a small arena's plan is centred on a page this wide, for its caption's sake


def render_preview_image(state: SpeedwayState, preview: TurnPreview) -> Image.Image:
    """The whole planning picture as a Pillow image: caption, then the map with the plan on it."""
    mf = frame(state.arena)
    board = base_layer(state.arena).copy()
    draw_plan(board, state, preview, mf.layout)
    width = max(mf.width, PREVIEW_MIN_WIDTH)
    caption = render_plan_caption(state, preview, width)
    image = Image.new("RGB", (width, caption.height + board.height), palette.PAPER)
    image.paste(caption, (0, 0))
    image.paste(board, ((width - board.width) // 2, caption.height))
    return image


def render_preview(state: SpeedwayState, preview: TurnPreview) -> bytes:
    """Render a planned turn to PNG bytes (the same state and plan always give the same bytes)."""
    return to_png(render_preview_image(state, preview), style_colours(palette))
