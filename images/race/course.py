"""The race's course: the track's sections as a road left to right (the current one wide and lit), its
finish flag, the racers on the current section in the move order (the leader furthest along), and the
next section's hint, the only thing a racer knows of it before it comes.

The road of a track with one section lit is drawn once and kept; the racers are kept tokens laid on it.
Shapes are drawn SUPER times larger and averaged down (antialiasing).
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import NamedTuple

from PIL import Image, ImageDraw, ImageFont

from images import palette as colours
from images.draw import Colour, draw_text, ellipsize, ink_on, wrap
from images.fonts import font
from rules.race import data
from rules.race.state import Phase, Racer, RaceState

SUPER = 3
LEFT, RIGHT = 20, 1020      # the road's ends; the finish flag stands after it
NAMES_Y = 14                # the sections' names, from the top of the band
ROAD_TOP, ROAD_BOTTOM = 32, 96
HINT_Y = 120                # the next section's hint, two lines at most
HEIGHT = 176                # the band's height
ROAD_ROWS = 100             # the road's rows, from the band's top: its names, the road, the flag and the laps
TOKEN = 17                  # a racer's token's radius
FOCUS = 0.4                 # the share of the road the current section takes (when there are others)
ROAD, ROAD_EDGE, LANE = (205, 200, 190), (120, 114, 104), (250, 248, 240)
COLOURS = (ROAD, ROAD_EDGE, LANE)   # the band's own colours, beside the palette's
TEXT = 24                   # as the rest of the picture: 9 px and more when shown 420 px wide


def spans(count: int, current: int | None, width: float = RIGHT - LEFT) -> list[tuple[float, float]]:
    """Each section's stretch of road (x0, x1): the current one FOCUS of the road, the rest alike."""
    gap = 6
    room = width - gap * (count - 1)
    if current is None or count == 1:
        shares = [room / count] * count
    else:
        rest = room * (1 - FOCUS) / (count - 1)
        shares = [room * FOCUS if n == current else rest for n in range(count)]
    out: list[tuple[float, float]] = []
    x: float = LEFT
    for share in shares:
        out.append((x, x + share))
        x += share + gap
    return out


def current_index(state: RaceState) -> int | None:
    """The section the racers are on (None in the lobby and once the race is over)."""
    return None if state.phase in (Phase.LOBBY, Phase.FINISHED) else state.section


class CourseLook(NamedTuple):
    """What the course band shows, all it is drawn from: the road (its track, the lit section), each racer's
    token (colour, place in the move order, where it stands) and the next section's hint's lines."""

    track: data.Track
    current: int | None
    width: int
    tokens: tuple[tuple[Colour, str, float, float], ...]
    hint: tuple[str, ...]


def course_look(state: RaceState, width: int) -> CourseLook:
    """What the course band `width` px wide shows of `state` (the band's own top at 0)."""
    tokens = tuple((colours.car_colour(racer.colour), str(place), x, y)
                   for place, (racer, x, y) in enumerate(token_spots(state), start=1))
    hint = next_hint(state)
    lines = tuple(wrap(hint, font(TEXT), width - 40, 2)) if hint else ()
    return CourseLook(state.the_track, current_index(state), width, tokens, lines)


def draw_course(image: Image.Image, top: int, state: RaceState) -> None:
    """The course band of the picture, `top` pixels down: the kept road, the racers on it, the next hint."""
    draw_course_look(image, course_look(state, image.width), top)


def draw_course_look(image: Image.Image, look: CourseLook, top: int = 0) -> None:
    """Draw `look` (course_look) on `image`, `top` pixels down (a band's drawer, images.bands)."""
    image.paste(_road(look.track, look.current, look.width), (0, top))
    for colour, label, x, y in look.tokens:
        token = _token(colour, label)
        image.paste(token, (round(x - token.width / 2), round(top + y - token.height / 2)), token)
    if look.hint:
        draw = ImageDraw.Draw(image)
        face = font(TEXT)
        for row, line in enumerate(look.hint):
            draw_text(draw, (20, top + HINT_Y + row * 26), line, face, colours.INK, "lm")


def token_spots(state: RaceState) -> list[tuple[Racer, float, float]]:
    """Where each racer's token stands on the current section (from the band's top), in the move order: the
    leader furthest along the road. None in the lobby and once the race is over."""
    current = current_index(state)
    racing = state.racing() if current is not None else ()
    if current is None or not racing:
        return []
    x0, x1 = spans(len(state.the_track.sections), current)[current]
    step = min(2 * TOKEN + 10, (x1 - x0 - 2 * TOKEN) / max(1, len(racing)))
    middle = (ROAD_TOP + ROAD_BOTTOM) / 2
    return [(racer, x1 - TOKEN - 6 - place * step, middle) for place, racer in enumerate(racing)]


def next_hint(state: RaceState) -> str:
    """What the racers know of the section ahead: its name and hint (the first one's in the lobby)."""
    track = state.the_track
    if state.phase == Phase.FINISHED:
        return ""
    if state.phase == Phase.LOBBY:
        first = track.sections[0]
        return f"First · {first.name}: {first.hint}"
    following = state.section + 1
    if following < len(track.sections):
        ahead = track.sections[following]
        return f"Next · {ahead.name}: {ahead.hint}"
    if state.lap + 1 < track.laps:
        ahead = track.sections[0]
        return f"Next lap · {ahead.name}: {ahead.hint}"
    return "Next · the finish line."


def prepare_roads(width: int) -> None:
    """Every built-in track's road at `width`, at every section lit and none: what a render zygote draws once
    for the processes it forks, so no move waits on a road (4-9 ms each, 16 of them)."""
    for track_id in data.track_ids():
        track = data.track(track_id)
        for current in (None, *range(len(track.sections))):
            _road(track, current, width)


@lru_cache(maxsize=24)   # the built-in tracks' 16 roads, and a group's own: 0.44 MB each
def _road(track: data.Track, current: int | None, width: int) -> Image.Image:
    """The road of `track` with section `current` lit, its names above, the flag and laps at the end: the
    band's top ROAD_ROWS rows (the rest is paper), drawn SUPER times larger and averaged down."""
    k = SUPER
    image = Image.new("RGB", (width * k, ROAD_ROWS * k), colours.PAPER)
    draw = ImageDraw.Draw(image)
    names = font(TEXT * k, bold=True)
    labels = section_labels(track, current)
    for n, (x0, x1) in enumerate(spans(len(track.sections), current)):
        section = track.sections[n]
        lit = n == current
        draw.rounded_rectangle([x0 * k, ROAD_TOP * k, x1 * k, ROAD_BOTTOM * k], radius=10 * k,
                               fill=colours.HIGHLIGHT if lit else ROAD, outline=colours.INK if lit else ROAD_EDGE,
                               width=(4 if lit else 2) * k)
        _lane(draw, section.type, x0 + 12, x1 - 12, (ROAD_TOP + ROAD_BOTTOM) / 2, k, ROAD_EDGE if lit else LANE)
        draw_text(draw, ((x0 + x1) / 2 * k, NAMES_Y * k), labels[n][0], names, colours.INK if lit else colours.MUTED,
                  "mm")
    _flag(draw, RIGHT + 12, ROAD_TOP, k)
    draw_text(draw, ((width - 22) * k, (ROAD_BOTTOM - 4) * k), f"×{track.laps}", laps_face(k), colours.INK, "rd")
    return image.reduce(k)


def laps_face(k: int = 1) -> ImageFont.FreeTypeFont:
    """The face of the laps' count at the road's end, `k` times the size."""
    return font(26 * k, bold=True)


@lru_cache(maxsize=64)
def section_labels(track: data.Track, current: int | None) -> tuple[tuple[str, float, float], ...]:
    """Each section's name as the road writes it above its stretch (cut to fit), and the band's x it spans."""
    names = font(TEXT * SUPER, bold=True)
    out = []
    for section, (x0, x1) in zip(track.sections, spans(len(track.sections), current), strict=True):
        label = ellipsize(section.name, names, (x1 - x0 - 8) * SUPER)
        half = names.getlength(label) / SUPER / 2
        out.append((label, (x0 + x1) / 2 - half, (x0 + x1) / 2 + half))
    return tuple(out)


def words_along(track: data.Track, current: int | None, width: int) -> list[tuple[float, float]]:
    """The x each of the band's words spans (the sections' names, the laps at the end), left to right."""
    laps = laps_face().getlength(f"×{track.laps}")
    return [(x0, x1) for _label, x0, x1 in section_labels(track, current)] + [(width - 22 - laps, width - 22)]


def _lane(draw: ImageDraw.ImageDraw, kind: str, x0: float, x1: float, y: float, k: int, colour: Colour) -> None:
    """The road's centre line: dashed on a straight, a gentle wave on curves, a tight one where twisted."""
    if x1 - x0 < 8:
        return
    if kind == "straight":
        x = x0
        while x < x1:
            draw.line([x * k, y * k, min(x + 14, x1) * k, y * k], fill=colour, width=4 * k)
            x += 26
        return
    waves, height = (1.5, 9) if kind == "curved" else (4, 13)
    steps = max(8, int((x1 - x0) / 4))
    points = [((x0 + (x1 - x0) * i / steps) * k,
               (y + height * math.sin(2 * math.pi * waves * i / steps)) * k) for i in range(steps + 1)]
    draw.line(points, fill=colour, width=4 * k, joint="curve")


def _flag(draw: ImageDraw.ImageDraw, x: float, y: float, k: int) -> None:
    """A chequered finish flag on its pole."""
    draw.line([x * k, y * k, x * k, (y + 60) * k], fill=colours.INK, width=3 * k)
    size = 8
    for row in range(3):
        for column in range(4):
            fill = colours.INK if (row + column) % 2 else colours.PAPER
            left, upper = x + 2 + column * size, y + row * size
            draw.rectangle([left * k, upper * k, (left + size) * k, (upper + size) * k], fill=fill)
    draw.rectangle([(x + 2) * k, y * k, (x + 2 + 4 * size) * k, (y + 3 * size) * k], outline=colours.INK, width=k)


@lru_cache(maxsize=64)
def _token(colour: Colour, label: str) -> Image.Image:
    """A racer's token: a disc in its colour with its place in the move order."""
    k, size = SUPER, 2 * TOKEN + 4
    image = Image.new("RGBA", (size * k, size * k), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    draw.ellipse([2 * k, 2 * k, (size - 2) * k, (size - 2) * k], fill=colour, outline=colours.INK, width=3 * k)
    draw_text(draw, (size / 2 * k, size / 2 * k), label, font(20 * k, bold=True), ink_on(colour), "mm")
    return image.reduce(k)
