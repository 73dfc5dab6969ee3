"""A picture drawn band by band: each band drawn alone from what it shows (its look), so a band a move leaves
as it was can be kept drawn and mapped to the picture's palette instead of drawn again.

A band is a `Part`: its drawer, its height and its look. `drawer(image, look, top)` draws the band with its
first row at row `top` of `image`: the picture drawn whole calls every drawer on one canvas, in order, at
the band's own row; drawn alone (`drawn_alone`), a band gets a canvas of its own. The two agree as long as
no band draws outside its rows. Their words' usual boxes leave each band its own rows, but a taller glyph
(stacked accents, some scripts' marks) may reach past them: a band drawn alone is drawn with SPILL rows to
spare above and below, and one that draws in them says so (None), and the picture is then drawn whole.
The check sees ink, not paper-coloured drawing, within SPILL rows of the band: the bundled fonts' glyphs
reach at most a few rows past the room a layout gives their words (a review measured every DejaVu glyph).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any

from PIL import Image

Drawer = Callable[[Image.Image, Any, int], None]
Part = tuple[Drawer, int, Hashable]   # (drawer(image, look, top), the band's height, its look)

SPILL = 16   # rows drawn above and below a band drawn alone, to see whether its drawing reaches past it


def drawn_alone(part: Part, width: int, paper: tuple[int, int, int]) -> Image.Image | None:
    """The band `part`, `width` wide, drawn alone on `paper`; None when its drawing reaches past its rows
    (then only the picture drawn whole is right), or when the layout left it no rows."""
    drawer, height, look = part
    if height <= 0:
        return None
    image = Image.new("RGB", (width, height + 2 * SPILL), paper)
    drawer(image, look, SPILL)
    for edge in ((0, 0, width, SPILL), (0, SPILL + height, width, height + 2 * SPILL)):
        if image.crop(edge).getcolors(1) != [(width * SPILL, paper)]:
            return None
    return image.crop((0, SPILL, width, SPILL + height))


def mapped(image: Image.Image, palette: Image.Image) -> Image.Image:
    """An RGB image mapped to `palette` without dither: each pixel by its colour alone, so a picture mapped
    band by band is the picture mapped whole."""
    return image.quantize(palette=palette, dither=Image.Dither.NONE)


def mapped_alone(part: Part, width: int, paper: tuple[int, int, int], palette: Image.Image) -> Image.Image | None:
    """The band `part` drawn alone (drawn_alone) and mapped to `palette`; None when it reaches past its rows."""
    drawn = drawn_alone(part, width, paper)
    return None if drawn is None else mapped(drawn, palette)


def draw_whole(image: Image.Image, parts: list[tuple[Part, int]]) -> Image.Image:
    """Every band of `parts` (each with the row it starts at) drawn on `image`, in order; `image` returned."""
    for (drawer, _height, look), top in parts:
        drawer(image, look, top)
    return image


def assembled(size: tuple[int, int], paper: int, parts: Sequence[tuple[Part, int]],
              band_of: Callable[[Part], Image.Image | None]) -> Image.Image | None:
    """A palette picture of `size` on the palette entry `paper`, each band of `parts` pasted at its row as
    `band_of(part)` maps it (kept or drawn alone); None as soon as a band reaches past its rows (then only the
    picture drawn whole is right). Rows no band covers stay paper."""
    image = Image.new("P", size, paper)
    for part, top in parts:
        band = band_of(part)
        if band is None:
            return None
        image.paste(band, (0, top))
    return image
