"""The close-up for a phone: a piece of a game's map around what matters now, with words a phone can read.

Discord shows a picture about 400 px wide on a phone, where the channel picture's smallest words
are 4 px tall. A close-up crops the map to what matters (a game says what: the acting vehicle and
everything within its weapons' reach, the lead pack, the contested holes), makes it landscape or
square, at most MAX_WIDTH wide, and writes the names of what stands there (and, for the grid games,
the coordinates along its edges) straight at the output's pixels, in a size that stays LEGIBLE px
tall when the picture is shown PHONE px wide. The map under them is drawn without words of its own,
or with words the game reports the size of (`map_text`), so `Closeup.smallest` is every word's.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from PIL import Image, ImageDraw

from images.draw import Colour, draw_text, ellipsize
from images.fonts import font
from images.palette import INK, PAPER

MAX_WIDTH = 640      # the widest close-up
MIN_WIDTH = 480      # a small piece is drawn larger than its pixels, to this width
PHONE = 400          # how wide a phone shows a picture
LEGIBLE = 11         # the least height, in px at PHONE wide, of any word in a close-up
Box = tuple[float, float, float, float]
# The share of a ruled close-up's width and height its coordinate bands cover (left; top), at the most.
RULED_LEFT, RULED_TOP = 0.07, 0.11


@dataclass(frozen=True)
class Spot:
    """Something on the map to name in the close-up: where it is (map pixels), its words, its colour,
    and its radius (its label goes beside it, clear of that)."""

    key: str
    x: float
    y: float
    words: str
    colour: Colour
    radius: float = 20.0


@dataclass(frozen=True)
class Ruler:
    """Coordinates to write along the close-up's top and left edges: (map x, letter), (map y, number)."""

    columns: tuple[tuple[float, str], ...] = ()
    rows: tuple[tuple[float, str], ...] = ()


@dataclass(frozen=True)
class Closeup:
    """A close-up: the picture, the map box it shows, where each named spot stands in the map, and its
    smallest words' height in the picture's own pixels (font pixel size)."""

    image: Image.Image
    crop: Box
    spots: dict[str, tuple[float, float]] = field(default_factory=dict)
    smallest: float = 0.0
    named: tuple[str, ...] = ()   # the spots its tags name: those it shows whole

    def smallest_on_phone(self) -> float:
        """The smallest words' height when the picture is shown PHONE px wide."""
        return self.smallest * PHONE / self.image.width

    def holds(self, x: float, y: float) -> bool:
        """Whether the map point (x, y) lies inside the close-up."""
        x0, y0, x1, y1 = self.crop
        return x0 <= x <= x1 and y0 <= y <= y1


def around(points: Sequence[tuple[float, float]], margin: float) -> Box:
    """The box holding every point, `margin` wider on each side."""
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    return min(xs) - margin, min(ys) - margin, max(xs) + margin, max(ys) + margin


def crop_box(must: Box, bounds: Box, least: tuple[float, float], ruled: bool = False) -> Box:
    """A box holding `must`, at least `least` (width, height), landscape or square (no taller than
    wide where the map allows), slid to lie within `bounds`. A `ruled` close-up's coordinate bands cover
    its left and top edges: `must` is kept clear of them where the map allows."""
    x0, y0, x1, y1 = must
    w, h = max(x1 - x0, least[0]), max(y1 - y0, least[1])
    if ruled:
        w, h = max(w, (x1 - x0) / (1 - RULED_LEFT)), max(h, (y1 - y0) / (1 - RULED_TOP))
    w = max(w, h)           # never portrait
    h = max(h, w / 2)       # nor a thin strip
    bw, bh = bounds[2] - bounds[0], bounds[3] - bounds[1]
    if ruled:   # the whole map, and its bands beside it
        bw, bh = bw / (1 - RULED_LEFT), bh / (1 - RULED_TOP)
    w, h = min(w, bw), min(h, bh)
    left, top = (x0 + x1) / 2 - w / 2, (y0 + y1) / 2 - h / 2
    low_x, low_y = bounds[0], bounds[1]
    if ruled:   # the bands may lie beyond the map's edge (blank paper there), over no piece of it
        left, top = min(left, x0 - RULED_LEFT * w), min(top, y0 - RULED_TOP * h)
        low_x, low_y = low_x - RULED_LEFT * w, low_y - RULED_TOP * h
    left = max(min(left, bounds[2] - w), low_x)
    top = max(min(top, bounds[3] - h), low_y)
    return round(left), round(top), round(left + w), round(top + h)


def face_size(width: int) -> int:
    """The font pixel size of the close-up's words in a picture `width` px wide (LEGIBLE at PHONE)."""
    return math.ceil((LEGIBLE + 1.5) * width / PHONE)


def closeup(board: Image.Image, crop: Box, spots: Sequence[Spot] = (), ruler: Ruler = Ruler(),
            map_text: float = 0.0, map_box: Box | None = None) -> Closeup:
    """The piece `crop` of `board` (a map drawn at its own scale) at most MAX_WIDTH wide, with the
    spots named and the ruler written over it. Only the map's `map_box` (all of `board` when None) is
    shown: the crop's part beyond it is blank paper. `map_text` is the smallest words' font pixel size
    the map itself holds inside `crop` (0: none): the close-up's smallest is the least of it scaled
    and its own words'."""
    x0, y0, x1, y1 = (round(v) for v in crop)
    mx0, my0, mx1, my1 = (round(v) for v in (map_box or (0, 0, board.width, board.height)))
    piece = Image.new("RGB", (x1 - x0, y1 - y0), PAPER)
    shown = (max(x0, mx0), max(y0, my0), min(x1, mx1), min(y1, my1))
    if shown[0] < shown[2] and shown[1] < shown[3]:
        piece.paste(board.crop(shown).convert("RGB"), (shown[0] - x0, shown[1] - y0))
    width = min(MAX_WIDTH, max(MIN_WIDTH, piece.width))
    scale = width / piece.width
    image = piece if scale == 1 else piece.resize((width, max(1, round(piece.height * scale))),
                                                   Image.Resampling.LANCZOS)
    size = face_size(width)

    def at(x: float, y: float) -> tuple[float, float]:
        return (x - x0) * scale, (y - y0) * scale

    draw = ImageDraw.Draw(image)
    taken = _write_ruler(draw, ruler, (x0, y0, x1, y1), at, size)
    # a tag names only what the picture shows whole: a thing cut by its edge or under its bands goes unnamed
    inside = [s for s in spots if _shown_whole(_disc(s, at, scale), image.size, taken)]
    _name_spots(draw, inside, at, scale, size, taken)
    smallest = min(size, map_text * scale) if map_text else size
    return Closeup(image, (x0, y0, x1, y1), {s.key: (s.x, s.y) for s in spots}, smallest,
                   tuple(s.key for s in inside))


def captioned(shot: Closeup, words: str) -> Closeup:
    """`shot` with a dark band along its bottom saying `words` (whose turn it is, or the result) in its
    tags' size; a picture the band would make taller than wide has its map drawn smaller, on paper."""
    width, height = shot.image.size
    size = face_size(width)
    band = round(size * 1.8)
    scale = min(1.0, (width - band) / height)
    image = Image.new("RGB", (width, round(height * scale) + band), PAPER)
    piece = shot.image if scale == 1 else shot.image.resize((round(width * scale), round(height * scale)),
                                                             Image.Resampling.LANCZOS)
    image.paste(piece, ((width - piece.width) // 2, 0))
    draw = ImageDraw.Draw(image)
    draw.rectangle([0, piece.height, width, image.height], fill=INK)
    face = font(size, bold=True)
    draw_text(draw, (width / 2, piece.height + band / 2), ellipsize(words, face, width - size), face, PAPER, "mm")
    return replace(shot, image=image, smallest=min(shot.smallest * scale, size))


def _disc(spot: Spot, at, scale: float) -> Box:
    x, y = at(spot.x, spot.y)
    r = spot.radius * scale
    return x - r, y - r, x + r, y + r


def _shown_whole(box: Box, size: tuple[int, int], bands: Sequence[Box]) -> bool:
    """Whether `box` (output pixels, a pixel's slack) lies in a picture of `size`, clear of its ruler bands."""
    x0, y0, x1, y1 = box
    inside = x0 >= -1 and y0 >= -1 and x1 <= size[0] + 1 and y1 <= size[1] + 1
    return inside and all(_overlap((x0 + 1, y0 + 1, x1 - 1, y1 - 1), band) == 0 for band in bands)


def _write_ruler(draw: ImageDraw.ImageDraw, ruler: Ruler, crop: Box, at, size: int) -> list[Box]:
    """The coordinates along the top and left edges on paper bands, as many as fit apart; their boxes."""
    if not ruler.columns and not ruler.rows:
        return []
    face = font(size, bold=True)
    band = round(size * 1.35)
    width, height = draw.im.size
    boxes: list[Box] = []
    if ruler.columns:
        draw.rectangle([0, 0, width, band], fill=PAPER)
        boxes.append((0, 0, width, band))
        last = -math.inf
        for x, text in ruler.columns:
            px = at(x, 0)[0]
            if crop[0] <= x <= crop[2] and px - last >= size * 1.3 and band * 1.8 < px < width - size:
                draw_text(draw, (px, band / 2), text, face, INK, "mm")
                last = px
    if ruler.rows:
        left = round(face.getlength("00") + size * 0.5)
        draw.rectangle([0, 0, left, height], fill=PAPER)
        boxes.append((0, 0, left, height))
        last = -math.inf
        for y, text in ruler.rows:
            py = at(0, y)[1]
            if crop[1] <= y <= crop[3] and py - last >= size * 1.1 and band + size / 2 < py < height - size / 2:
                draw_text(draw, (left / 2, py), text, face, INK, "mm")
                last = py
    return boxes


def _overlap(a: Box, b: Box) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return max(0.0, w) * max(0.0, h)


def _name_spots(draw: ImageDraw.ImageDraw, spots: Sequence[Spot], at, scale: float, size: int,
                taken: list[Box]) -> None:
    """Each spot's words on a tag beside it (above, below, right or left, wherever covers least of the
    other tags and spots and stays in the picture)."""
    face = font(size, bold=True)
    width, height = draw.im.size
    pad, bar = round(size * 0.3), max(3, round(size * 0.3))
    discs = []
    for s in spots:
        x, y = at(s.x, s.y)
        r = s.radius * scale
        discs.append((x - r, y - r, x + r, y + r))
    placed = list(taken)
    for spot in spots:
        x, y = at(spot.x, spot.y)
        r = spot.radius * scale
        w, h = face.getlength(spot.words) + 2 * pad + bar, size + 2 * pad
        # each place as it would stand, pushed inside the picture, so what it covers there is counted
        options = [(min(max(left, 0), width - w), min(max(top, 0), height - h))
                   for left, top in ((x - w / 2, y - r - h - 2), (x - w / 2, y + r + 2), (x + r + 2, y - h / 2),
                                     (x - r - w - 2, y - h / 2))]

        def cost(left_top: tuple[float, float], w=w, h=h) -> float:
            box = (left_top[0], left_top[1], left_top[0] + w, left_top[1] + h)
            return sum(_overlap(box, b) for b in placed) + sum(_overlap(box, d) for d in discs)

        left, top = min(options, key=cost)
        box = (left, top, left + w, top + h)
        placed.append(box)
        draw.rounded_rectangle(box, radius=pad, fill=PAPER, outline=INK, width=max(2, round(size / 10)))
        draw.rectangle([left + 2, top + 2, left + bar, top + h - 2], fill=spot.colour)
        draw_text(draw, (left + bar + pad, top + h / 2), spot.words, face, INK, "lm")
