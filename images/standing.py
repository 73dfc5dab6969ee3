"""A finished game's standing chart (/game review): each seat's standing in the game's own measure, round by
round, one line a seat in its map colour. Wider than tall and lettered for a phone (words >= 11 px when
Discord shows it 420 px wide)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw

from images import png
from images.draw import Colour, dashed_line, draw_text, ellipsize
from images.fonts import font
from images.palette import GRID, INK, MUTED, PAPER

WIDTH, HEIGHT = 1000, 560
TEXT, TITLE = 28, 32          # at 420 px wide: ~12 and ~13 px
LINE, MARK = 7, 9
SPREAD = 5                    # pixels between the lines of seats that stand alike
INSET = 20                    # the plot's highest and lowest values this far inside it
LEFT, RIGHT, TOP, BOTTOM = 84, 36, 128, 84
MOST_ROUNDS = 400             # a longer game's rounds are sampled to this many points


@dataclass(frozen=True)
class Series:
    """One seat's line: its name, its colour, and its standing after each round (None: not yet seated)."""

    name: str
    colour: Colour
    values: tuple[int | None, ...]


def _ticks(low: int, high: int, most: int) -> list[int]:
    """Round numbers between low and high, at most `most` of them."""
    span = max(1, high - low)
    step = next(s for s in (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10_000, 10**9)
                if span / s <= most - 1)
    return list(range(low - low % step + (step if low % step else 0), high + 1, step))


def chart(title: str, measure: str, rounds: Sequence[int], series: Sequence[Series], higher_is_better: bool = True,
          round_word: str = "round", marks: Sequence[tuple[int, str]] = ()) -> Image.Image:
    """The chart as an RGB image: `rounds` along, the measure up (the better end on top); each of `marks`
    (a round and a label: a turning point's '#88') a dashed line across the plot, labelled above it."""
    image = Image.new("RGB", (WIDTH, HEIGHT), PAPER)
    draw = ImageDraw.Draw(image)
    draw_text(draw, (LEFT - 60, 14), ellipsize(title, font(TITLE, True), WIDTH - LEFT), font(TITLE, True), INK)
    # the legend: each seat's swatch and name, in one row (names shortened to fit)
    room = (WIDTH - LEFT + 60) / max(1, len(series))
    x: float = LEFT - 60
    for line in series:
        draw.rectangle((x, 66, x + 34, 66 + 22), fill=line.colour, outline=INK, width=2)
        draw_text(draw, (x + 44, 62), ellipsize(line.name, font(TEXT, True), room - 56), font(TEXT, True), INK)
        x += room
    values = [v for line in series for v in line.values if v is not None]
    low, high = (min(values), max(values)) if values else (0, 1)
    low, high = (min(low, 0), high) if higher_is_better else (low, max(high, low + 1))
    if high == low:
        high = low + 1
    first, last = (rounds[0], rounds[-1]) if rounds else (0, 1)
    plot = (LEFT, TOP, WIDTH - RIGHT, HEIGHT - BOTTOM)

    def at(index: int, value: float) -> tuple[float, float]:
        share_x = (rounds[index] - first) / max(1, last - first)
        share_y = (value - low) / (high - low)
        top, bottom = plot[1] + INSET, plot[3] - INSET   # the best and worst values clear of the labels and axis
        y = bottom - share_y * (bottom - top) if higher_is_better else top + share_y * (bottom - top)
        return plot[0] + share_x * (plot[2] - plot[0]), y

    small = font(TEXT)
    for tick in _ticks(low, high, 5):
        _x, y = at(0, tick) if rounds else (0, plot[3])
        draw.line((plot[0], y, plot[2], y), fill=GRID, width=2)
        draw_text(draw, (plot[0] - 12, y), str(tick), small, MUTED, anchor="rm")
    for tick in _ticks(first, last, 8):
        x = plot[0] + (tick - first) / max(1, last - first) * (plot[2] - plot[0])
        draw.line((x, plot[3], x, plot[3] + 8), fill=INK, width=2)
        draw_text(draw, (x, plot[3] + 12), str(tick), small, MUTED, anchor="ma")
    draw.line((plot[0], plot[3], plot[2], plot[3]), fill=INK, width=2)
    taken = -math.inf   # where the last mark's label ended: the next starts past it
    for when, label in sorted(marks):
        x = plot[0] + (min(max(when, first), last) - first) / max(1, last - first) * (plot[2] - plot[0])
        dashed_line(draw, (x, plot[1] - 4), (x, plot[3]), MUTED, 3, 10, 8)
        width = small.getlength(label)
        left = min(max(x - width / 2, taken + 10), WIDTH - width - 4)
        draw_text(draw, (left, plot[1] - 34), label, small, INK)
        taken = left + width
    draw_text(draw, ((plot[0] + plot[2]) / 2, HEIGHT - 36), f"{round_word} · {measure}", small, INK, anchor="ma")
    dots = len(rounds) <= 40   # a dot a round, where they stand apart
    for index, line in enumerate(series):
        # lines at equal values lie side by side a few pixels apart, none hidden under another
        lift = (index - (len(series) - 1) / 2) * SPREAD
        points = [(x, y + lift) for x, y in (at(i, v) for i, v in enumerate(line.values) if v is not None)]
        if len(points) > 1:   # an outline under the colour keeps a pale colour (yellow) readable on white
            draw.line(points, fill=INK, width=LINE + 4, joint="curve")
            draw.line(points, fill=line.colour, width=LINE, joint="curve")
        for px, py in points if dots or len(points) == 1 else points[-1:]:
            draw.ellipse((px - MARK, py - MARK, px + MARK, py + MARK), fill=line.colour, outline=INK, width=2)
    return image


def sampled(rounds: Sequence[int], most: int = MOST_ROUNDS) -> list[int]:
    """The indexes of the rounds a chart draws: all of them, or `most` spread evenly (the last kept)."""
    if len(rounds) <= most:
        return list(range(len(rounds)))
    step = (len(rounds) - 1) / (most - 1)
    return sorted({round(i * step) for i in range(most)})


def chart_png(title: str, measure: str, rounds: Sequence[int], series: Sequence[Series],
              higher_is_better: bool = True, round_word: str = "round", marks: Sequence[tuple[int, str]] = ()) -> bytes:
    """The chart as PNG bytes (a long game's rounds sampled to MOST_ROUNDS points)."""
    kept = sampled(rounds)
    thin = [Series(s.name, s.colour, tuple(s.values[i] for i in kept)) for s in series]
    image = chart(title, measure, [rounds[i] for i in kept], thin, higher_is_better, round_word, marks)
    return png.encode(image)
