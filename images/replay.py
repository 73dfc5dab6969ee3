"""Animated replays: a game's states in, one looping GIF of the map out, one frame per state.

Why GIF and not APNG: Discord plays GIFs inline on every client, phones included, while an APNG
attachment shows as its first frame only. GIF also wins per byte here: the map is flat colour, so all
frames share one 255-colour palette without dithering, and Pillow's GIF writer keeps only each
frame's changed rectangle, with unchanged pixels in it transparent. Pillow's APNG writer crops to the
changed rectangle but repaints all of it, so the same palette frames came out ~3.3 times bigger (and
~10 times in full colour) for a whole duel. So: GIF, "image/gif".

Frames show only the map (no car sheets), shrunk to a phone-friendly width, under a one-line
caption "Round N · who · last action" (each game its own word for the step: "Lap 1 · section 3",
"Turn 3"). The same states always give the same bytes.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from PIL import Image, ImageDraw

from images.draw import draw_text, ellipsize, ink_on
from images.fonts import font
from images.registry import renderer

WIDTH = 640           # frame width in pixels: sharp on a phone, small to send
MIN_WIDTH = 240       # never shrink below this to fit `max_bytes`
MIN_FRAMES = 16       # drop frames down to this many before shrinking the width
FRAME_MS = 700        # time on each state
HOLD_MS = 5000        # time on the final state before the loop starts again
PALETTE_SAMPLES = 12  # frames the shared palette is built from
COLOURS = 255         # leaves one palette entry free for "unchanged" transparency


@dataclass(frozen=True)
class Step:
    """One frame's worth of a game: a public view, who acted to reach it, and that action's events."""

    view: Any
    actor: str
    events: tuple = ()
    words: str = ""   # the caption's words, when the game sums the step's events up (a whole turn)


def sample(count: int, limit: int) -> list[int]:
    """`limit` indices spread evenly over range(count), always the first and the last."""
    if count <= limit:
        return list(range(count))
    if limit < 2:
        return [count - 1]
    return sorted({round(i * (count - 1) / (limit - 1)) for i in range(limit)})


# --- Frames and encoding ----------------------------------------------------------------------------

def _caption_strip(head: str, who: str, colour, text: str, width: int) -> Image.Image:
    """One line of caption, `width` wide: bold head, a swatch and name in the actor's colour, the action."""
    size = max(9, round(width / 40))
    bold, body = font(size, bold=True), font(size)
    height = round(size * 1.75)
    strip = Image.new("RGB", (width, height), (255, 255, 255))
    draw = ImageDraw.Draw(strip)
    x: float = size // 2
    mid, pad = height / 2, size // 2
    dot = " · "
    draw_text(draw, (x, mid), head + dot, bold, (17, 17, 17), "lm")
    x += bold.getlength(head + dot)
    if who:
        label_w = bold.getlength(who) + pad * 2
        fill = colour or (17, 17, 17)
        draw.rounded_rectangle((x, mid - size * 0.7, x + label_w, mid + size * 0.7), radius=size // 3,
                               fill=fill)
        draw_text(draw, (x + pad, mid), who, bold, ink_on(fill), "lm")
        x += label_w
        draw_text(draw, (x, mid), dot, body, (17, 17, 17), "lm")
        x += body.getlength(dot)
    draw_text(draw, (x, mid), ellipsize(text, body, width - x - pad), body, (17, 17, 17), "lm")
    draw.line((0, height - 1, width, height - 1), fill=(185, 178, 163))
    return strip


def render_frame(ruleset: str, step: Step, width: int = WIDTH) -> Image.Image:
    """One RGB frame: the caption line (who acted, and what happened) over the map scaled to `width`."""
    drawer = renderer(ruleset)
    board = drawer.replay_map(step.view, step.events)
    height = max(1, round(board.height * width / board.width))
    board = board.resize((width, height), Image.Resampling.HAMMING)
    head, who, colour, text = drawer.captioner(step.view, step.actor, step.events)
    strip = _caption_strip(head, who, colour, step.words or text, width)
    image = Image.new("RGB", (width, strip.height + height), (255, 255, 255))
    image.paste(strip, (0, 0))
    image.paste(board, (0, strip.height))
    return image


def _palette(frames: Sequence[Image.Image]) -> Image.Image:
    """One palette image for all frames, built from a few of them stacked (always the last one)."""
    picks = [frames[i] for i in sample(len(frames), PALETTE_SAMPLES)]
    sheet = Image.new("RGB", (picks[0].width, sum(f.height for f in picks)))
    y = 0
    for f in picks:
        sheet.paste(f, (0, y))
        y += f.height
    return sheet.quantize(COLOURS, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)


def encode_gif(frames: Sequence[Image.Image], frame_ms: int = FRAME_MS, hold_ms: int = HOLD_MS) -> bytes:
    """Frames to a looping GIF with one shared palette, the last frame held for `hold_ms`."""
    palette = _palette(frames)
    indexed = [f.quantize(palette=palette, dither=Image.Dither.NONE) for f in frames]
    durations = [frame_ms] * (len(indexed) - 1) + [hold_ms]
    buffer = io.BytesIO()
    indexed[0].save(buffer, format="GIF", save_all=True, append_images=indexed[1:], duration=durations,
                    loop=0, disposal=1, optimize=True)
    return buffer.getvalue()


def render_replay(ruleset: str, steps: Sequence[Step], max_bytes: int = 8_000_000, max_frames: int = 120,
                  width: int = WIDTH) -> tuple[bytes, str]:
    """An animated GIF of the whole game so far and its MIME type, at most `max_bytes` long.

    More states than `max_frames` are sampled evenly, keeping the first and the last. A result too big
    gets fewer frames (down to MIN_FRAMES), then a smaller width (down to MIN_WIDTH), then fewer frames
    again (down to two); ValueError if even that does not fit. Each frame names who acted to reach it.
    """
    if not steps:
        raise ValueError("no states to replay")
    limit, drawn = max(2, max_frames), {}
    while True:
        picks = sample(len(steps), limit)
        for i in picks:
            if i not in drawn:
                drawn[i] = render_frame(ruleset, steps[i], width)
        data = encode_gif([drawn[i] for i in picks])
        if len(data) <= max_bytes:
            return data, "image/gif"
        floor = MIN_FRAMES if width > MIN_WIDTH else 2
        if len(picks) > floor:
            # Frames cost roughly the same each: aim just under the budget, but always drop some.
            limit = max(floor, min(len(picks) - 1, int(len(picks) * max_bytes / len(data) * 0.9)))
        elif width > MIN_WIDTH:
            width, drawn = max(MIN_WIDTH, int(width * 0.8)), {}
        else:
            raise ValueError(f"replay does not fit in {max_bytes} bytes ({len(data)} at its smallest)")
