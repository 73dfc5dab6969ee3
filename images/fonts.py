"""The bundled DejaVu fonts, loaded once per size (never Pillow's bitmap default)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from PIL import ImageFont

FONT_DIR = Path(__file__).with_name("fonts")


class MeasuredFont(ImageFont.FreeTypeFont):
    """A FreeType font that remembers how wide each text it measured was: layout code measures the
    same labels again and again (fitting, ellipsizing, centring) for every picture."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._lengths: dict[tuple, float] = {}

    def getlength(self, text, *args, **kwargs) -> float:  # noqa: D102 (same as Pillow's)
        key = (text, args, tuple(sorted(kwargs.items())))
        length = self._lengths.get(key)
        if length is None:
            if len(self._lengths) > 20_000:
                self._lengths.clear()
            length = self._lengths[key] = super().getlength(text, *args, **kwargs)
        return length


@cache
def font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    """DejaVu Sans (or Sans Bold) at `size` pixels, with the basic layout engine for stable output."""
    return passing_face(size, bold)


def passing_face(size: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    """font(size, bold) made anew, not kept: to measure a size once (0.04 ms to load, ~200 KB to keep)."""
    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    return MeasuredFont(str(FONT_DIR / name), size, layout_engine=ImageFont.Layout.BASIC)
