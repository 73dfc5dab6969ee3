"""Small drawing helpers shared by the renderers: text, dashes, arrows, smooth sprites, PNG encoding."""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

from PIL import Image, ImageDraw, ImageFont

from images import fonts, png
from images.bounded import bounded

Point = tuple[float, float]
Colour = tuple[int, int, int]

SUPERSAMPLE = 4
LONG_LINE = 40   # characters from which draw_text puts a line down word by word
TEXT_BYTES = 32 << 20   # the text masks kept (images.bounded): 800 pictures of the four games drew 3,500 (33 MB)


def hex_colour(code: str) -> Colour:
    """'#RRGGBB' to an RGB tuple."""
    code = code.lstrip("#")
    return (int(code[0:2], 16), int(code[2:4], 16), int(code[4:6], 16))


def ink_on(fill: Colour) -> Colour:
    """Black or white, whichever reads better on `fill`."""
    r, g, b = fill
    return (0, 0, 0) if 0.299 * r + 0.587 * g + 0.114 * b > 140 else (255, 255, 255)


class ShiftedDraw(ImageDraw.ImageDraw):
    """Drawing on a piece of a larger picture in the whole picture's coordinates: each shape lands shifted
    by the piece's `origin`, so code that draws a whole picture can redraw only part of it. Exact for a
    band of whole rows (origin (0, y)); moved sideways, Pillow may round a polygon edge crossing a row
    exactly between two pixels the other way (one pixel's shade; the same bytes every time)."""

    def __init__(self, image: Image.Image, origin: tuple[int, int]):
        super().__init__(image)
        self.origin = origin
        self._shifting = False   # Pillow draws some shapes with others: shift only the outermost call

    def _shifted(self, draw: Callable[..., Any], xy: Any, *args: Any, **kwargs: Any) -> Any:
        if self._shifting:
            return draw(xy, *args, **kwargs)
        ox, oy = self.origin
        if len(xy) and isinstance(xy[0], (int, float)):   # flat: x0, y0, x1, y1, ...
            moved = [v - (oy if i % 2 else ox) for i, v in enumerate(xy)]
        else:
            moved = [(x - ox, y - oy) for x, y in xy]
        self._shifting = True
        try:
            return draw(moved, *args, **kwargs)
        finally:
            self._shifting = False

    def rectangle(self, xy: Any, *args: Any, **kwargs: Any) -> None:
        self._shifted(super().rectangle, xy, *args, **kwargs)

    def rounded_rectangle(self, xy: Any, *args: Any, **kwargs: Any) -> None:
        self._shifted(super().rounded_rectangle, xy, *args, **kwargs)

    def ellipse(self, xy: Any, *args: Any, **kwargs: Any) -> None:
        self._shifted(super().ellipse, xy, *args, **kwargs)

    def line(self, xy: Any, *args: Any, **kwargs: Any) -> None:
        self._shifted(super().line, xy, *args, **kwargs)

    def polygon(self, xy: Any, *args: Any, **kwargs: Any) -> None:
        self._shifted(super().polygon, xy, *args, **kwargs)

    def bitmap(self, xy: Any, bitmap: Any, fill: Any = None) -> None:
        self._shifted(lambda at, *rest: super(ShiftedDraw, self).bitmap(at[0], *rest), [xy], bitmap, fill)

    def text(self, xy: Any, *args: Any, **kwargs: Any) -> None:
        self._shifted(lambda at, *rest, **kw: super(ShiftedDraw, self).text(at[0], *rest, **kw), [xy], *args,
                      **kwargs)


def draw_text(draw: ImageDraw.ImageDraw, xy: Point, text: str, font: ImageFont.FreeTypeFont,
              fill, anchor: str = "la", by_word: bool = False, **kwargs) -> None:
    """Draw text at `xy` with a Pillow anchor ('la' left-ascender, 'mm' middle, ...).

    A line of text is rasterised once and its mask reused (most labels repeat from picture to picture,
    and FreeType holds the GIL while it renders); it lands on whole pixels. A long left-aligned line
    (LONG_LINE characters or more: a roll told in full, said once), or any left-aligned line `by_word`
    (a narrow column's lines of what was said), is put down word by word instead, each word's mask
    reused and placed at its pen position rounded to the pixel: rasterising a new long line was the
    slowest part of the slowest moves. That is the whole line's look, not always its pixels: a word's
    ink that reaches across a space into the next word's (a combining mark at a word's edge) is laid on
    twice there, a shade darker on a pixel or two, and a pen position between pixels may round the other
    way.
    """
    if kwargs or "\n" in text or not isinstance(font, ImageFont.FreeTypeFont):
        draw.text(xy, text, font=font, fill=fill, anchor=anchor, **kwargs)
        return
    if (by_word or len(text) >= LONG_LINE) and anchor[0] == "l" and anchor[1] in "ams" and " " in text:
        pen, space, end = 0.0, font.getlength(" "), 0
        placed = []
        for word in re.finditer(r"\S+", text):
            pen += space * (word.start() - end)   # widths add up: each word is measured (and cached) alone
            mask, (dx, dy) = _text_mask(word.group(), font, anchor, draw.fontmode)
            placed.append((mask, (int(xy[0]) + round(pen) + dx, int(xy[1]) + dy)))
            pen, end = pen + font.getlength(word.group()), word.end()
        stamp_masks(draw, placed, fill)
        return
    mask, (dx, dy) = _text_mask(text, font, anchor, draw.fontmode)
    stamp_masks(draw, [(mask, (int(xy[0]) + dx, int(xy[1]) + dy))], fill)


def stamp_masks(draw: ImageDraw.ImageDraw, placed: Sequence[tuple[Image.Image, tuple[int, int]]], fill: Any) -> None:
    """Put each mask of `placed` down at its place in `fill`, one after another, by Pillow's own bitmap: on
    a ShiftedDraw, shifted here once for them all rather than through its per-shape wrapper (a picture puts
    down 30-150 words)."""
    if isinstance(draw, ShiftedDraw):
        ox, oy = draw.origin
        put = functools.partial(ImageDraw.ImageDraw.bitmap, draw)
        for mask, (x, y) in placed:
            put((x - ox, y - oy), mask, fill)
        return
    for mask, at in placed:
        draw.bitmap(at, mask, fill=fill)


@bounded(TEXT_BYTES)
def _text_mask(text: str, font: ImageFont.FreeTypeFont, anchor: str, mode: str) -> tuple[Image.Image, tuple[int, int]]:
    """The coverage of `text` drawn at a whole pixel, and where its box starts relative to the anchor."""
    left, top, right, bottom = (int(edge) for edge in font.getbbox(text, mode, anchor=anchor))   # ints: no stroke
    mask = Image.new("L", (right - left, bottom - top))
    pen = ImageDraw.Draw(mask)
    pen.fontmode = mode
    pen.text((-left, -top), text, font=font, fill=255, anchor=anchor)
    return mask, (left, top)


def fit_font(text: str, size: int, max_width: float, bold: bool = False, minimum: int = 12):
    """The largest bundled font no bigger than `size` that fits `text` into `max_width`."""
    return fonts.font(_fitted_size(text, size, max_width, bold, minimum), bold)


@lru_cache(maxsize=4096)
def _fitted_size(text: str, size: int, max_width: float, bold: bool, minimum: int) -> int:
    """fit_font's size. The sizes passed on the way are measured with faces let go at once: a face holds
    ~200 KB, and fitting one big label went down 40 sizes, each face kept for one measure."""
    width = fonts.font(size, bold).getlength(text)
    if size <= minimum or width <= max_width:
        return size
    # A line's width grows with the size nearly in proportion: start the way down just above the size
    # that proportion gives, once the size above it is seen not to fit (else from the top, as before).
    guess = max(minimum, min(size - 1, math.floor(size * max_width / width) + 1))
    if guess < size - 1:
        guess = size - 1 if fonts.passing_face(guess, bold).getlength(text) <= max_width else guess - 1
    for smaller in range(guess, minimum, -1):
        if fonts.passing_face(smaller, bold).getlength(text) <= max_width:
            return smaller
    return minimum


def ellipsize(text: str, font: ImageFont.FreeTypeFont, max_width: float) -> str:
    """`text`, cut short with '…' if it is wider than `max_width`."""
    if font.getlength(text) <= max_width:
        return text
    low, high = 0, len(text)   # the longest prefix that fits with its '…', found by halving
    while low < high:
        middle = (low + high + 1) // 2
        if font.getlength(text[:middle] + "…") <= max_width:
            low = middle
        else:
            high = middle - 1
    return text[:low].rstrip() + "…"


def wrap(text: str, font: ImageFont.FreeTypeFont, max_width: float, max_lines: int) -> list[str]:
    """Word-wrap `text` (keeping its own line breaks) to `max_width`, ending with '…' past `max_lines`."""
    lines: list[str] = []
    space = font.getlength(" ")
    for paragraph in text.splitlines() or [""]:
        line, width = "", 0.0
        for word in paragraph.split():
            # a line's width as the sum of its words' and spaces' (each word measured once, and cached)
            wider = width + space + font.getlength(word) if line else font.getlength(word)
            if line and wider > max_width:
                lines.append(line)
                line, width = word, font.getlength(word)
            else:
                line, width = f"{line} {word}" if line else word, wider
        lines.append(line)
    while lines and not lines[-1]:
        lines.pop()
    if len(lines) > max_lines:
        lines = lines[:max_lines]
        lines[-1] = lines[-1].rstrip() + " …"
    return lines


def dashed_line(draw: ImageDraw.ImageDraw, a: Point, b: Point, fill, width: int,
                dash: float, gap: float) -> None:
    """A dashed straight line from `a` to `b`, starting with a dash."""
    length = math.dist(a, b)
    if length == 0:
        return
    ux, uy = (b[0] - a[0]) / length, (b[1] - a[1]) / length
    pos = 0.0
    while pos < length:
        end = min(pos + dash, length)
        start, stop = (a[0] + ux * pos, a[1] + uy * pos), (a[0] + ux * end, a[1] + uy * end)
        draw.line([start, stop], fill=fill, width=width)
        pos = end + gap


def dashed_polygon(draw: ImageDraw.ImageDraw, points: Sequence[Point], fill, width: int,
                   dash: float, gap: float) -> None:
    """A closed dashed outline through `points`."""
    for i, a in enumerate(points):
        dashed_line(draw, a, points[(i + 1) % len(points)], fill, width, dash, gap)


def arrow(tail: Point, head: Point, shaft: float, head_length: float, head_width: float) -> list[Point]:
    """Outline of a block arrow from `tail` to `head` (the tip), as a polygon."""
    length = math.dist(tail, head)
    ux, uy = (head[0] - tail[0]) / length, (head[1] - tail[1]) / length
    nx, ny = -uy, ux
    bx, by = head[0] - ux * head_length, head[1] - uy * head_length
    s, w = shaft / 2, head_width / 2
    return [
        (tail[0] + nx * s, tail[1] + ny * s), (bx + nx * s, by + ny * s), (bx + nx * w, by + ny * w), head,
        (bx - nx * w, by - ny * w), (bx - nx * s, by - ny * s), (tail[0] - nx * s, tail[1] - ny * s),
    ]


def smooth_sprite(width: int, height: int, paint: Callable[[ImageDraw.ImageDraw, float], None],
                  within: tuple[int, int, int, int] | None = None) -> Image.Image:
    """An antialiased RGBA sprite: `paint(draw, scale)` draws at SUPERSAMPLE times, then it is shrunk.
    `within` (left, top, right, bottom, in sprite pixels) says where the drawing keeps: only that part is
    supersampled, the rest left clear (a small shape on a big sprite costs its own size)."""
    if within is None:
        big = Image.new("RGBA", (width * SUPERSAMPLE, height * SUPERSAMPLE), (0, 0, 0, 0))
        paint(ImageDraw.Draw(big), SUPERSAMPLE)
        return big.resize((width, height), Image.Resampling.BOX)
    left, top = max(0, within[0]), max(0, within[1])
    right, bottom = min(width, within[2]), min(height, within[3])
    piece = Image.new("RGBA", ((right - left) * SUPERSAMPLE, (bottom - top) * SUPERSAMPLE), (0, 0, 0, 0))
    paint(ShiftedDraw(piece, (left * SUPERSAMPLE, top * SUPERSAMPLE)), SUPERSAMPLE)
    sprite = Image.new("RGBA", (width, height), (0, 0, 0, 0))
    sprite.paste(piece.resize((right - left, bottom - top), Image.Resampling.BOX), (left, top))
    return sprite


SAMPLE_STEP = 3       # the palette is built from one pixel in SAMPLE_STEP², after the key colours


def style_colours(module) -> tuple[Colour, ...]:
    """Every RGB colour a style module names, alone or in a tuple of colours (e.g. player colours)."""
    def is_colour(value) -> bool:
        return isinstance(value, tuple) and len(value) == 3 and all(isinstance(c, int) for c in value)

    found: list[Colour] = []
    for name, value in sorted(vars(module).items()):
        if name.isupper() and is_colour(value):
            found.append(value)
        elif name.isupper() and isinstance(value, tuple) and value and all(is_colour(v) for v in value):
            found.extend(value)
    return tuple(dict.fromkeys(found))


def _cell(colour) -> tuple[int, int, int]:
    return colour[0] >> 3, colour[1] >> 3, colour[2] >> 3


def build_palette(reference: Image.Image, key_colours: tuple[Colour, ...] = (), colours: int = 256) -> Image.Image:
    """A palette image: the key colours exactly, then colours found in a sample of `reference` (one
    pixel in SAMPLE_STEP²), leaving out found colours that Pillow's 5-bit lookup cells would confuse
    with a key colour."""
    keys = key_colours[: colours // 4]
    sample = reference.resize((max(1, reference.width // SAMPLE_STEP), max(1, reference.height // SAMPLE_STEP)),
                              Image.Resampling.NEAREST)
    found = sample.quantize(colours - len(keys), method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    found_palette = found.getpalette()
    assert found_palette is not None, "a quantized image has a palette"
    flat = found_palette[: 3 * (colours - len(keys))]
    taken = {_cell(key) for key in keys}
    extra = [tuple(flat[i:i + 3]) for i in range(0, len(flat), 3)]
    entries = list(keys) + [c for c in extra if _cell(c) not in taken]
    palette = Image.new("P", (1, 1))
    palette.putpalette([c for colour in entries for c in colour])
    return palette


FEW_COLOURS = png.NIBBLE  # a palette this small is written 4 bits a pixel (images.png): half the bytes to deflate
SHOWN = 50                 # a key colour a reference shows on fewer pixels is an edge's shade there, not kept


def colour_counts(reference: Image.Image, palette: Image.Image) -> dict[Colour, int]:
    """How many pixels of `reference`, mapped to the fixed `palette`, each colour of it takes."""
    mapped = reference.quantize(palette=palette, dither=Image.Dither.NONE)
    flat = palette.getpalette()
    assert flat is not None, "a palette image has a palette"
    counts = mapped.histogram()
    return {(flat[3 * i], flat[3 * i + 1], flat[3 * i + 2]): counts[i] for i in range(len(flat) // 3) if counts[i]}


def shown(counts: dict[Colour, int], colours: Sequence[Colour], least: int = SHOWN) -> list[Colour]:
    """Those of `colours` that a reference (its `counts`) shows on at least `least` pixels."""
    return [colour for colour in dict.fromkeys(colours) if counts.get(colour, 0) >= least]


def small_palette(counts: dict[Colour, int], wanted: Sequence[Colour],
                  colours: int = FEW_COLOURS) -> Image.Image | None:
    """A palette of at most `colours` colours for pictures like a reference (`counts`, colour_counts): the
    `wanted` colours exactly, then the colours most of the reference's pixels take (its tints and the
    shades of its edges and words), leaving out those Pillow's 5-bit lookup cells would confuse with one
    already in; None when more are wanted. A picture mapped to it is written 4 bits a pixel (at most
    FEW_COLOURS colours); fewer shades deflate smaller still."""
    entries = list(dict.fromkeys(wanted))
    if len(entries) > colours:
        return None
    taken = {_cell(colour) for colour in entries}
    for colour, _count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        if len(entries) >= colours:
            break
        if _cell(colour) not in taken:
            entries.append(colour)
            taken.add(_cell(colour))
    palette = Image.new("P", (1, 1))
    palette.putpalette([c for colour in entries for c in colour])
    return palette


def to_png(image: Image.Image, key_colours: tuple[Colour, ...] = (), colours: int = 256,
           palette: Image.Image | None = None, level: int = 0,
           strips: bool | Sequence[int] = False) -> bytes:
    """Encode deterministically (images.png): 256 colours, compression at `level` (0: the fastest; with
    `strips`, strip by strip, a strip seen before not deflated again), no metadata (0 colours keeps RGB).

    Every pixel is mapped to its nearest entry of `palette` (Pillow does that quickly), or of one built
    from this picture (`build_palette`): building a palette is most of the cost of encoding, so a
    renderer passes a fixed one made once from a reference picture when it can.
    """
    if colours:
        palette = palette or build_palette(image, key_colours, colours)
        image = image.quantize(palette=palette, dither=Image.Dither.NONE)
    return png.encode(image, level, strips)


def chip(draw: ImageDraw.ImageDraw, centre: Point, radius: float, text: str, font: ImageFont.FreeTypeFont,
         fill=(17, 17, 17), ink=(255, 255, 255)) -> None:
    """A round token with a number on it, like a game chip."""
    x, y = centre
    draw.ellipse((x - radius, y - radius, x + radius, y + radius), fill=fill)
    draw.text((x, y), text, font=font, fill=ink, anchor="mm")


def mix(a: Colour, b: Colour, share: float) -> Colour:
    """`share` of colour `a` blended over colour `b`."""
    red, green, blue = (round(share * p + (1 - share) * q) for p, q in zip(a, b))
    return red, green, blue


def smooth_overlay(image: Image.Image, box: tuple[int, int, int, int],
                   paint: Callable[[ImageDraw.ImageDraw, Callable[[Point], Point], float], None],
                   scale: int = 2, margin: int = 0) -> None:
    """Antialiased drawing over the `box` region of `image`: `paint(draw, to_px, scale)` draws at `scale`
    times, mapping image points through `to_px`; the result is shrunk and composited in place. With a
    `margin`, the drawing is made that much wider all round and the margin dropped: a shape crossing
    the box's edge is then cut where Pillow draws it as it would anywhere else."""
    left, top = max(0, box[0]), max(0, box[1])
    right, bottom = min(image.width, box[2]), min(image.height, box[3])
    if right <= left or bottom <= top:
        return
    x0, y0 = left - margin, top - margin
    layer = Image.new("RGBA", ((right - left + 2 * margin) * scale, (bottom - top + 2 * margin) * scale), (0, 0, 0, 0))

    def to_px(p: Point) -> Point:
        return ((p[0] - x0) * scale, (p[1] - y0) * scale)
    paint(ImageDraw.Draw(layer), to_px, scale)
    layer = layer.resize((right - left + 2 * margin, bottom - top + 2 * margin), Image.Resampling.BOX)
    if margin:
        layer = layer.crop((margin, margin, margin + right - left, margin + bottom - top))
    image.paste(layer, (left, top), layer)


PIECE_COST = 3000   # a strip's own cost (a layer made, shrunk, pasted), as the pixels it would cover


def smooth_band(image: Image.Image, start: Point, end: Point, reach: float,
                paint: Callable[[ImageDraw.ImageDraw, Callable[[Point], Point], float], None],
                scale: int = 2, strip: int = 48, margin: int = 12) -> None:
    """`smooth_overlay` for a drawing that keeps within `reach` of the segment `start`-`end` (a shot's
    line and its end mark). A long slanted segment's bounding box is mostly empty, so it is drawn strip
    by strip along the segment instead (when the estimate, PIECE_COST a strip, says it pays). Each strip
    is drawn with a margin that is then dropped and every pixel is shrunk from its own supersampled
    block, so the picture is the whole box's but for slanted edges, where Pillow may round a subpixel
    of the antialiasing the other way (the edge moves by at most half a pixel's shade)."""
    box = (math.floor(min(start[0], end[0]) - reach), math.floor(min(start[1], end[1]) - reach),
           math.ceil(max(start[0], end[0]) + reach), math.ceil(max(start[1], end[1]) + reach))
    across = abs(end[1] - start[1]) <= abs(end[0] - start[0])   # strips cut across the longer axis
    major, minor = (0, 1) if across else (1, 0)
    low, high = sorted((start, end), key=lambda p: p[major])
    run, rise = high[major] - low[major], high[minor] - low[minor]
    first, last = box[major], box[major + 2]
    pieces = -(-(last - first) // strip)
    piece_area = (strip + 2 * margin) * (abs(rise) / max(run, 1) * (strip + 2 * reach) + 2 * (reach + margin))
    if pieces * (piece_area + PIECE_COST) >= (box[2] - box[0]) * (box[3] - box[1]):   # short or level: one box
        smooth_overlay(image, box, paint, scale)
        return
    for cut in range(first, last, strip):
        # the segment's points within `reach` of the strip, along it: their drawing may reach into it
        along = [min(max(u, low[major]), high[major]) for u in (cut - reach, cut + strip + reach)]
        ends = [low[minor] + rise * (u - low[major]) / run for u in along]
        v0, v1 = math.floor(min(ends) - reach), math.ceil(max(ends) + reach)
        piece = (cut, v0, min(cut + strip, last), v1) if across else (v0, cut, v1, min(cut + strip, last))
        smooth_overlay(image, piece, paint, scale, margin)


def star(centre: Point, outer: float, inner: float, points: int, turn: float = 0.0) -> list[Point]:
    """A star polygon with `points` spikes around `centre`, rotated by `turn` radians."""
    x, y = centre
    out = []
    for i in range(2 * points):
        radius = outer if i % 2 == 0 else inner
        a = turn + math.pi * i / points
        out.append((x + radius * math.cos(a), y + radius * math.sin(a)))
    return out
