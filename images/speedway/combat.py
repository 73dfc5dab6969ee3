"""Combat on the map: counters (mines, oil, smoke, and the arena's debris, water and paint) under the
cars, and the last shot over them."""

from __future__ import annotations

import math
from collections import defaultdict
from functools import cache

from PIL import Image, ImageDraw

from images import palette
from images.draw import draw_text, smooth_band, smooth_overlay, smooth_sprite, star
from images.fonts import font
from images.hexmap import HexLayout
from images.speedway import style
from images.speedway.last_turn import Shot
from rules.speedway.state import SpeedwayState

Box = tuple[float, float, float, float]

HAZARD_SPRITE = 2 * style.HEX     # a hazard counter's square sprite, one hex across
# Where the hazards sharing a hex sit, in hex sizes from its centre, and how big they are drawn.
SHARED = {1: ((0.0, 0.0),), 2: ((-0.33, 0.0), (0.33, 0.0)), 3: ((-0.33, 0.22), (0.33, 0.22), (0.0, -0.34))}
SHARED_SIZE = {1: 100, 2: 70, 3: 62}
LINE_REACH = 8                    # how far a shot's line (11 px wide with its outline) reaches from its middle


def _circle(draw: ImageDraw.ImageDraw, centre, radius: float, **kwargs) -> None:
    x, y = centre
    draw.ellipse((x - radius, y - radius, x + radius, y + radius), **kwargs)


def _blob(centre, radius: float, wobble: tuple[tuple[float, int, float], ...], steps: int = 48) -> list:
    """A smooth irregular closed shape: a circle whose radius wobbles by (share, lobes, phase) terms."""
    x, y = centre
    points = []
    for i in range(steps):
        a = 2 * math.pi * i / steps
        r = radius * (1 + sum(share * math.sin(lobes * a + phase) for share, lobes, phase in wobble))
        points.append((x + r * math.cos(a), y + r * math.sin(a)))
    return points


def _paint_mine(draw: ImageDraw.ImageDraw, c: float, r: float, scale: float, owner) -> None:
    """A sea mine: a dark disc with eight knobbed spikes, a white halo, the layer's colour as its light."""
    angles = [math.pi * k / 4 + math.pi / 8 for k in range(8)]
    spikes = [(math.cos(a), math.sin(a)) for a in angles]
    for halo, colour in ((2.2 * scale, palette.PAPER), (0.0, palette.MINE)):
        for ca, sa in spikes:
            draw.line([(c, c), (c + 0.66 * r * ca, c + 0.66 * r * sa)], fill=colour,
                      width=round(0.17 * r + 2 * halo))
            _circle(draw, (c + 0.68 * r * ca, c + 0.68 * r * sa), 0.13 * r + halo, fill=colour)
        _circle(draw, (c, c), 0.46 * r + halo, fill=colour)
    _circle(draw, (c - 0.14 * r, c - 0.16 * r), 0.12 * r, fill=(120, 120, 128))   # a glint
    _circle(draw, (c, c), 0.2 * r, fill=owner, outline=palette.PAPER, width=round(1.8 * scale))


def _paint_oil(draw: ImageDraw.ImageDraw, c: float, r: float, scale: float) -> None:
    """An oil slick: a glossy black-purple splotch with a purple sheen and a white highlight."""
    shape = _blob((c, c), 0.74 * r, ((0.12, 3, 0.4), (0.08, 5, 1.9), (0.05, 7, 0.7)))
    draw.polygon(shape, fill=palette.OIL, outline=palette.PAPER, width=round(1.6 * scale))
    for dx, dy, rr in ((0.78, -0.42, 0.1), (-0.7, 0.56, 0.08)):   # drips
        _circle(draw, (c + dx * r, c + dy * r), rr * r, fill=palette.OIL, outline=palette.PAPER,
                width=round(1.2 * scale))
    glint = (c - 0.42 * r, c - 0.42 * r, c + 0.34 * r, c + 0.34 * r)
    draw.arc(glint, 150, 300, fill=palette.OIL_SHEEN, width=round(0.2 * r))
    draw.arc(glint, 200, 255, fill=(255, 255, 255), width=round(0.09 * r))


def _paint_smoke(draw: ImageDraw.ImageDraw, c: float, r: float, scale: float) -> None:
    """A smokescreen: overlapping grey translucent puffs with darker rims."""
    puffs = ((0.0, 0.08, 0.4), (-0.44, 0.22, 0.34), (0.44, 0.24, 0.34), (0.04, -0.36, 0.38),
             (-0.04, 0.46, 0.3))
    for dx, dy, rr in puffs:
        _circle(draw, (c + dx * r, c + dy * r), rr * r + 1.8 * scale, fill=palette.SMOKE_RIM + (235,))
    for dx, dy, rr in puffs:
        _circle(draw, (c + dx * r, c + dy * r), rr * r, fill=palette.SMOKE + (255,))
    for dx, dy, rr in puffs[1:4]:   # a lighter curl on each upper puff gives the cloud some volume
        x, y = c + dx * r, c + dy * r
        draw.arc((x - 0.7 * rr * r, y - 0.7 * rr * r, x + 0.7 * rr * r, y + 0.7 * rr * r), 190, 290,
                 fill=(214, 218, 222), width=round(1.6 * scale))


def _paint_water(draw: ImageDraw.ImageDraw, c: float, r: float, scale: float) -> None:
    """A puddle: a pale blue pool with a dark blue rim and two white ripples."""
    shape = _blob((c, c), 0.78 * r, ((0.07, 2, 0.3), (0.05, 4, 1.1)))
    draw.polygon(shape, fill=palette.WATER, outline=palette.WATER_RIM, width=round(2.2 * scale))
    for rr in (0.28, 0.5):
        box = (c - rr * r, c - 0.6 * rr * r, c + rr * r, c + 0.6 * rr * r)
        draw.arc(box, 200, 340, fill=palette.PAPER, width=round(2.4 * scale))


def _paint_debris(draw: ImageDraw.ImageDraw, c: float, r: float, scale: float) -> None:
    """Debris: a scatter of angular brown shards with dark edges."""
    shards = ((-0.42, -0.3, 0.3, 0.2), (0.3, -0.38, 0.26, 1.3), (0.05, 0.05, 0.34, 2.1),
              (-0.36, 0.4, 0.24, 0.7), (0.44, 0.34, 0.26, 2.8))
    for dx, dy, size, turn in shards:
        x, y, s = c + dx * r, c + dy * r, size * r
        points = [(x + s * math.cos(turn + k * 2.2), y + s * 0.8 * math.sin(turn + k * 2.2)) for k in range(3)]
        draw.polygon(points, fill=palette.DEBRIS, outline=palette.DEBRIS_DARK, width=round(1.8 * scale))


def _paint_paint(draw: ImageDraw.ImageDraw, c: float, r: float, scale: float) -> None:
    """Wet paint: a bright lime splat with spatter."""
    shape = _blob((c, c), 0.6 * r, ((0.22, 7, 0.5), (0.1, 11, 1.7)))
    draw.polygon(shape, fill=palette.PAINT, outline=palette.PAINT_RIM, width=round(2 * scale))
    for dx, dy, rr in ((0.78, -0.3, 0.1), (-0.62, 0.6, 0.09), (0.2, 0.84, 0.07), (-0.8, -0.42, 0.07)):
        _circle(draw, (c + dx * r, c + dy * r), rr * r, fill=palette.PAINT, outline=palette.PAINT_RIM,
                width=round(1.2 * scale))


_PAINTERS = {"oil": _paint_oil, "smoke": _paint_smoke, "water": _paint_water, "debris": _paint_debris,
             "paint": _paint_paint}


@cache
def hazard_sprite(kind: str, owner_colour: int, size: int) -> Image.Image:
    """A hazard counter of `kind` at `size` percent of a hex, centred in a one-hex square sprite."""
    owner = palette.car_colour(owner_colour)

    def paint(draw: ImageDraw.ImageDraw, scale: float) -> None:
        c = HAZARD_SPRITE * scale / 2
        r = style.HEX * scale * size / 100
        if kind == "mine":
            _paint_mine(draw, c, r, scale, owner)
        else:
            _PAINTERS[kind](draw, c, r, scale)
    sprite = smooth_sprite(HAZARD_SPRITE, HAZARD_SPRITE, paint)
    if kind == "smoke":   # smoke is see-through: the hex label shows faintly beneath it
        sprite.putalpha(sprite.getchannel("A").point(lambda a: a * 4 // 5))
    return sprite


def draw_hazards(image: Image.Image, state: SpeedwayState, layout: HexLayout) -> list[Box]:
    """Every hazard counter on its hex, smoke first, then oil, then mines on top (several share a hex);
    returns the boxes they cover."""
    colours = {c.id: c.colour for c in state.cars}
    by_hex, boxes = defaultdict(list), []
    order = {"water": 0, "paint": 0, "debris": 0, "smoke": 0, "oil": 1, "mine": 2}
    for hazard in sorted(state.hazards, key=lambda h: (order.get(h.kind, 0), h.id)):
        by_hex[hazard.hex].append(hazard)
    for h, hazards in by_hex.items():
        shown = hazards[-3:]
        cx, cy = layout.center(h)
        for (dx, dy), hazard in zip(SHARED[len(shown)], shown):
            sprite = hazard_sprite(hazard.kind, colours.get(hazard.owner, 0), SHARED_SIZE[len(shown)])
            left = round(cx + dx * style.HEX - HAZARD_SPRITE / 2)
            top = round(cy + dy * style.HEX - HAZARD_SPRITE / 2)
            image.paste(sprite, (left, top), sprite)
        boxes.append((cx - 0.8 * style.HEX, cy - 0.8 * style.HEX, cx + 0.8 * style.HEX, cy + 0.8 * style.HEX))
    return boxes


def _along(a, b, distance: float):
    """The point `distance` from `a` towards `b`."""
    length = math.dist(a, b) or 1.0
    return (a[0] + (b[0] - a[0]) * distance / length, a[1] + (b[1] - a[1]) * distance / length)


def draw_shot(image: Image.Image, shot: Shot | None, layout: HexLayout) -> list[Box]:
    """The last shot: a line in the firer's colour from its hex to the target's, ending in a burst for a
    hit or a 'miss' mark; returns boxes along it and around its end so name tags keep clear."""
    if shot is None:
        return []
    colour = palette.car_colour(shot.firer.colour)
    a, b = layout.center(shot.from_hex), layout.center(shot.to_hex)
    length = math.dist(a, b)
    ux, uy = ((b[0] - a[0]) / length, (b[1] - a[1]) / length) if length else (1.0, 0.0)
    start = (a[0] + ux * 0.35 * style.HEX, a[1] + uy * 0.35 * style.HEX) if length > style.HEX else a
    burst = 1.0 * style.HEX
    if length > 2 * style.HEX:   # the end mark sits where the shot reaches the target, not over it
        b = (b[0] - ux * 0.6 * style.HEX, b[1] - uy * 0.6 * style.HEX)
    miss_font = font(17, bold=True)
    miss_w, miss_h = miss_font.getlength("MISS") + 14, 24
    # the line first, in a narrow band along it; then the end mark over it in a box of its own (one
    # band as wide as the mark along the whole line drew ten times the pixels a long shot needs)
    end = b if shot.hit or length <= miss_w else (b[0] - ux * miss_w / 2, b[1] - uy * miss_w / 2)

    def paint_line(draw: ImageDraw.ImageDraw, to_px, scale: float) -> None:
        p, e = to_px(start), to_px(end)
        if shot.hit:
            draw.line([p, e], fill=palette.INK, width=round(11 * scale))
            draw.line([p, e], fill=colour, width=round(6 * scale))
            return
        span = math.dist(p, e)
        pos, dash, gap, inset = 0.0, 14 * scale, 8 * scale, 2 * scale
        while pos < span:
            stop = min(pos + dash, span)
            draw.line([_along(p, e, pos), _along(p, e, stop)], fill=palette.INK, width=round(9 * scale))
            if stop - pos > 2 * inset:   # the coloured dash sits inside its dark outline, ends included
                draw.line([_along(p, e, pos + inset), _along(p, e, stop - inset)], fill=colour,
                          width=round(5 * scale))
            pos = stop + gap

    def paint_mark(draw: ImageDraw.ImageDraw, to_px, scale: float) -> None:
        q = to_px(b)
        if shot.hit:
            turn = math.atan2(uy, ux)
            draw.polygon(star(q, burst * scale, 0.55 * burst * scale, 10, turn), fill=palette.FLAME_CORE,
                         outline=palette.INK, width=round(3 * scale))
            draw.polygon(star(q, 0.58 * burst * scale, 0.34 * burst * scale, 10, turn + 0.3), fill=colour,
                         outline=palette.INK, width=round(2 * scale))
            return
        x, y = q
        w, h = miss_w * scale, miss_h * scale
        draw.rounded_rectangle((x - w / 2, y - h / 2, x + w / 2, y + h / 2), radius=7 * scale,
                               fill=palette.PAPER, outline=palette.INK, width=round(2.5 * scale))
        draw_text(draw, (x, y + scale), "MISS", font(round(17 * scale), bold=True), palette.INK, "mm")
    smooth_band(image, start, end, LINE_REACH, paint_line)
    pad = burst + 4 if shot.hit else max(miss_w, miss_h) / 2 + 4
    smooth_overlay(image, (math.floor(b[0] - pad), math.floor(b[1] - pad), math.ceil(b[0] + pad),
                           math.ceil(b[1] + pad)), paint_mark)
    r = burst if shot.hit else miss_w / 2
    marks = [(b[0] - r, b[1] - r, b[0] + r, b[1] + r)]
    span = math.dist(start, b)
    for k in range(int(span // 12) + 1):   # short boxes along the line, so tags keep off it too
        x, y = _along(start, b, k * 12.0)
        marks.append((x - 6, y - 6, x + 6, y + 6))
    return marks
