"""Small drawing helpers shared by the renderers: text, dashes, arrows, smooth sprites, PNG encoding."""

from __future__ import annotations

import io
import math
from collections.abc import Callable, Sequence

from PIL import Image, ImageDraw, ImageFont

Point = tuple[float, float]
Colour = tuple[int, int, int]

SUPERSAMPLE = 4


def hex_colour(code: str) -> Colour:
    """'#RRGGBB' to an RGB tuple."""
    code = code.lstrip("#")
    return (int(code[0:2], 16), int(code[2:4], 16), int(code[4:6], 16))


def ink_on(fill: Colour) -> Colour:
    """Black or white, whichever reads better on `fill`."""
    r, g, b = fill
    return (0, 0, 0) if 0.299 * r + 0.587 * g + 0.114 * b > 140 else (255, 255, 255)


def text_width(text: str, font: ImageFont.FreeTypeFont) -> float:
    """Advance width of a one-line string."""
    return font.getlength(text)


def draw_text(draw: ImageDraw.ImageDraw, xy: Point, text: str, font: ImageFont.FreeTypeFont,
              fill, anchor: str = "la", **kwargs) -> None:
    """Draw text at `xy` with a Pillow anchor ('la' left-ascender, 'mm' middle, ...)."""
    draw.text(xy, text, font=font, fill=fill, anchor=anchor, **kwargs)


def fit_font(text: str, size: int, max_width: float, bold: bool = False, minimum: int = 12):
    """The largest bundled font no bigger than `size` that fits `text` into `max_width`."""
    from images.fonts import font

    while size > minimum and font(size, bold).getlength(text) > max_width:
        size -= 1
    return font(size, bold)


def wrap(text: str, font: ImageFont.FreeTypeFont, max_width: float, max_lines: int) -> list[str]:
    """Word-wrap `text` (keeping its own line breaks) to `max_width`, ending with '…' past `max_lines`."""
    lines: list[str] = []
    for paragraph in text.splitlines() or [""]:
        line = ""
        for word in paragraph.split():
            candidate = f"{line} {word}".strip()
            if line and font.getlength(candidate) > max_width:
                lines.append(line)
                line = word
            else:
                line = candidate
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
        draw.line([(a[0] + ux * pos, a[1] + uy * pos), (a[0] + ux * end, a[1] + uy * end)], fill=fill, width=width)
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


def smooth_sprite(width: int, height: int, paint: Callable[[ImageDraw.ImageDraw, float], None]) -> Image.Image:
    """An antialiased RGBA sprite: `paint(draw, scale)` draws at SUPERSAMPLE times, then it is shrunk."""
    big = Image.new("RGBA", (width * SUPERSAMPLE, height * SUPERSAMPLE), (0, 0, 0, 0))
    paint(ImageDraw.Draw(big), SUPERSAMPLE)
    return big.resize((width, height), Image.Resampling.BOX)


def to_png(image: Image.Image, colours: int = 0) -> bytes:
    """Encode deterministically (fixed compression, no metadata); optionally quantize to `colours`."""
    if colours:
        image = image.quantize(colours, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", compress_level=7)
    return buffer.getvalue()
