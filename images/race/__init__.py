"""The race's table picture: a header with the lap, the section and what just happened; the track as a strip
of sections with the current one lit; the current section's hazard, conditions and features in the order
they come (no DC: those are the GM's); and the racers in the move order with speed, altitude and hull.

Landscape, one size all race, every word legible at 420 px wide. Drawn band by band (title, news, course,
panel, the table's titles, a row per racer), each band kept mapped to the palette by what it shows: a move
redraws only the bands it changes (render_paletted).
"""

from __future__ import annotations

from functools import cache, lru_cache
from typing import NamedTuple

from PIL import Image, ImageDraw

from images import palette as colours
from images.bands import Part, assembled, draw_whole, mapped, mapped_alone
from images.bounded import bounded
from images.captions import Captioner, seat_name
from images.closeup import Closeup
from images.draw import (
    FEW_COLOURS,
    Colour,
    build_palette,
    colour_counts,
    draw_text,
    ellipsize,
    small_palette,
    style_colours,
    to_png,
    wrap,
)
from images.fonts import font
from images.race import course
from images.race.closeup import render_closeup_image
from images.race.course import course_look, draw_course_look
from images.reference import started
from images.registry import Renderer
from rules.race import checks, data, flow
from rules.race.actions import Join
from rules.race.ruleset import RULESET as RACE
from rules.race.state import Phase, Racer, RaceState

WIDTH, HEIGHT = 1100, 660
TEXT = 24              # the smallest words: 9.2 px when the picture is shown 420 px wide (a phone)
PAD = 20
HEADER = 104
COURSE = course.HEIGHT
PANEL = 104
ROW = 40
TITLE_END = 42         # the title's band ends and the news's starts (the words' boxes meet no closer)
PANEL_TOP = HEADER + COURSE
TABLE_TOP = PANEL_TOP + PANEL    # the table's column titles stand centred on this row
HEADS_TOP = TABLE_TOP - 20       # their band's top, below the panel's chips
HEADS_AT = TABLE_TOP - HEADS_TOP
ROWS_TOP = TABLE_TOP + 26        # the first racer's row's band (its box from the top)
SPEED_X, ALT_X, HULL_X = 672, 806, 884   # the table's columns of figures
PAPER, INK, MUTED = colours.PAPER, colours.INK, colours.MUTED
LIT = colours.HIGHLIGHT
TRACK = (222, 216, 204)
GOOD, BAD = colours.GOOD, colours.BAD

# The channel picture's deflate (images.png): zlib-ng at this level, within the game's speed goal
# (a move at most half a plain Pillow PNG's time; docs/performance.md). A picture in 16 colours
# (few_colours) is 4 bits a pixel: half the bytes to deflate. Strip by strip (PNG_STRIPS): the course's
# and the table's strips a move leaves as they were are not deflated again, 0.4-0.8 ms of a 3.6 ms picture
# for 2.5% more bytes (a strip starting where the parts meet gave 5.5% more, for no more speed).
PNG_LEVEL = 4
PNG_STRIPS = True
COLOURS = 14   # a picture's colours when they fit: its own, then shades for its words' edges


name_of = seat_name   # the caption's and the picture's words for who acts


def lap_and_section(state: RaceState) -> str:
    """The race's step in a replay's caption, in its own words (seed: a track of sections): 'Lap 1 · section 3'."""
    return f"Lap {state.lap + 1} · section {state.section + 1}"


def colour_of(state: RaceState, pid: str | None):
    racer = state.racer_of(pid)
    return colours.car_colour(racer.colour) if racer else MUTED


def news(events: tuple) -> str:
    """The last action's words, each roll as its dice and total."""
    return " ".join(" ".join(e.describe() for e in events).split()).replace("->", "→") or "The race is set."


def _title(state: RaceState) -> str:
    track = state.the_track
    if state.phase == Phase.LOBBY:
        return f"{track.name} · lobby, {len(state.seats)} racers"
    if state.phase == Phase.FINISHED:
        leader = name_of(state, state.winner)
        return f"{track.name} · finished · {leader} wins" if state.winner else f"{track.name} · finished"
    return f"{track.name} · lap {state.lap + 1}/{track.laps} · {state.the_section.name}"


def _title_and_news(state: RaceState, last: tuple) -> tuple[str, tuple[str, ...]]:
    """The header's words: the title, and what the last action said in two lines at most."""
    return _title(state), tuple(wrap(news(last), font(TEXT), WIDTH - 2 * PAD, 2))


def _draw_title(image: Image.Image, title: str, top: int = 0) -> None:
    draw_text(ImageDraw.Draw(image), (PAD, top + 24), title, font(30, bold=True), INK, "lm")


def _draw_news(image: Image.Image, lines: tuple[str, ...], top: int = 0) -> None:
    draw, face = ImageDraw.Draw(image), font(TEXT)
    for row, line in enumerate(lines):
        draw_text(draw, (PAD, top + 56 - TITLE_END + row * 27), line, face, INK, "lm")


def _panel_look(state: RaceState) -> tuple:
    """What the panel shows: nothing in the lobby, the GM's words while the GM readies a section, else the
    current section (its type, hazard and conditions, then its features in order around the action phase,
    and the step under way)."""
    if state.phase == Phase.LOBBY:
        return ()
    if state.phase == Phase.GM:
        return ("The game master is readying the next section.",)
    section = state.the_section
    hazard = section.hazard
    over = f", over it {section.secondary.what}" if section.secondary else ""
    height = f" {hazard.height} m" if hazard.height else ""
    conditions = ", ".join(_condition_words(c) for c in section.conditions) or "clear"
    first = f"{section.type.capitalize()} · hazard: {hazard.what}{height}{over} · {conditions}"
    steps = [feature_words(f) for f in section.before] + ["ACTIONS"] + [feature_words(f) for f in section.after]
    return ellipsize(first, font(TEXT), WIDTH - 2 * PAD), tuple(steps), _current_step(state)


def _draw_panel(image: Image.Image, look: tuple, top: int = 0) -> None:
    """Draw the panel's look (_panel_look), the band's top `top` pixels down."""
    if not look:
        return
    draw, face, bold = ImageDraw.Draw(image), font(TEXT), font(TEXT, bold=True)
    draw_text(draw, (PAD, top + 16), look[0], face, INK, "lm")
    if len(look) == 1:
        return
    _first, steps, current = look
    x: float = PAD
    y = top + 62
    for n, words in enumerate(steps):
        w = bold.getlength(words) + 24
        if x + w > WIDTH - PAD:
            break
        lit = n == current
        fill = LIT if lit else (PAPER if words != "ACTIONS" else TRACK)
        draw.rounded_rectangle([x, y - 20, x + w, y + 20], radius=6, fill=fill,
                               outline=INK, width=(3 if lit else 2))
        draw_text(draw, (x + w / 2, y), words, bold, INK, "mm")
        x += w + 12
        if n < len(steps) - 1 and x + 20 < WIDTH - PAD:
            draw_text(draw, (x - 6, y), "›", bold, MUTED, "mm")
            x += 8


def feature_words(feature: data.Feature) -> str:
    """A feature on its chip: its public name and what it does."""
    name = flow.FEATURE_NAMES[feature.kind]
    if feature.kind in ("boost", "boost_trap"):
        return f"{name} +{feature.speed}"
    if feature.kind == "gap":
        return f"gap {feature.speed} km/h"
    if feature.kind == "trampoline":
        return f"trampoline +{feature.altitude} m"
    if feature.kind == "magnetic":
        return f"{name} −{feature.speed}"
    return f"{name} {feature.dice}d{feature.die}"


def _condition_words(condition: data.Condition) -> str:
    """A condition in the panel's short form: 'strong wind ≥5 m', 'fog <3 m'."""
    kind, reach = condition.kind.replace("_", " "), checks.condition_reach(condition)
    return kind if reach is None else f"{kind} {'≥' if reach == 'above' else '<'}{condition.altitude} m"


def _current_step(state: RaceState) -> int | None:
    before = len(state.the_section.before)
    if state.phase in (Phase.ACTION, Phase.REACTION, Phase.STABILIZE, Phase.APPROVAL):
        return before
    if state.phase == Phase.FEATURE:
        return state.feature if state.feature_stage == "before" else before + 1 + state.feature
    return None


class Row(NamedTuple):
    """A racer's row of the table, all it is drawn from: place, name, pilot and vehicle (cut to fit), colour,
    lit while the racer is to act, and its figures: none in the lobby, why it is out, or speed, altitude,
    hull and hull points in full, and its marks (advantage, bonus)."""

    place: str
    name: str
    words: str
    colour: Colour
    lit: bool
    out: str | None = None
    figures: tuple[int, int, int, int, str] | None = None


COLUMNS = (("racer", PAD + 52), ("pilot · vehicle", PAD + 290), ("speed", SPEED_X), ("alt", ALT_X), ("hull", HULL_X))


def _rows(state: RaceState) -> tuple[Row, ...]:
    """The racers in the move order (the grid before the start), then those out."""
    face, bold = font(TEXT), font(TEXT, bold=True)
    rows: list[tuple[int | str, str, str, str, Racer | None]]
    if state.phase == Phase.LOBBY:
        rows = [(n + 1, state.seat(p).name, pilot, vehicle, None)
                for n, (p, pilot, vehicle) in enumerate(state.seats)]
    else:
        racing = [(n + 1, r) for n, r in enumerate(state.racing())]
        out = [("–", r) for r in sorted((r for r in state.racers if r.out), key=lambda r: r.out_order)]
        rows = [(place, r.name, r.pilot, r.vehicle, r) for place, r in racing + out]
    waiting = {r.id for r in flow.waiting(state)} if state.phase not in (Phase.LOBBY, Phase.FINISHED) else set()
    acting = flow.actor(state) if state.phase in (Phase.ACTION, Phase.REACTION) else None
    looks = []
    for n, (place, name, pilot, vehicle, racer) in enumerate(rows):
        lit = racer is not None and (racer.id in waiting or (acting is not None and racer.id == acting.id))
        pilot_name = data.racers()[pilot].name if pilot in data.racers() else pilot
        vehicle_spec = state.vehicle_spec(racer) if racer else data.vehicles().get(vehicle)
        words = ellipsize(f"{pilot_name} · {vehicle_spec.name if vehicle_spec else vehicle}", face, SPEED_X - PAD - 300)
        why_out, figures = None, None
        if racer is not None and racer.out:
            why_out = f"out: {racer.out}"
        elif racer is not None:
            marks = ("adv " if racer.advantage else "") + (f"+{racer.bonus}" if racer.bonus else "")
            figures = racer.speed, racer.altitude, racer.hp, state.vehicle_spec(racer).hp, marks.strip()
        colour = colours.car_colour(racer.colour if racer else n)
        looks.append(Row(str(place), ellipsize(name, bold, 228), words, colour, lit, why_out, figures))
    return tuple(looks)


def _draw_heads(image: Image.Image, _look: tuple = (), top: int = 0) -> None:
    """The table's column titles, centred on the band's row HEADS_AT (the band `top` pixels down)."""
    draw, face = ImageDraw.Draw(image), font(TEXT)
    for title, x in COLUMNS:
        draw_text(draw, (x, top + HEADS_AT), title, face, MUTED, "lm")


def _draw_row(image: Image.Image, row: Row, top: int = 0) -> None:
    """Draw a racer's row (_rows), its box from the band's top, `top` pixels down."""
    draw, face, bold = ImageDraw.Draw(image), font(TEXT), font(TEXT, bold=True)
    y = top + 4
    draw.rounded_rectangle([PAD, y - 4, WIDTH - PAD, y + ROW - 8], radius=6,
                           fill=LIT if row.lit else PAPER, outline=INK if row.lit else TRACK, width=2)
    draw.rectangle([PAD + 34, y, PAD + 44, y + ROW - 12], fill=row.colour)
    middle = y + (ROW - 12) / 2
    draw_text(draw, (PAD + 16, middle), row.place, bold, INK, "mm")
    draw_text(draw, (PAD + 52, middle), row.name, bold, INK, "lm")
    draw_text(draw, (PAD + 290, middle), row.words, face, INK, "lm")
    if row.out is not None:
        draw_text(draw, (SPEED_X, middle), row.out, bold, BAD, "lm")
    if row.figures is None:
        return
    speed, altitude, hp, full, marks = row.figures
    draw_text(draw, (SPEED_X, middle), f"{speed} km/h", bold, INK, "lm")
    draw_text(draw, (ALT_X, middle), f"{altitude} m", face, INK, "lm")
    _hull(draw, hp, full, HULL_X, middle)
    if marks:
        draw_text(draw, (WIDTH - PAD - 8, middle), marks, bold, GOOD, "rm")


def _hull(draw: ImageDraw.ImageDraw, hp: int, full: int, x: float, y: float) -> None:
    """Hull points as a bar and a figure: green, orange below half."""
    width = 90
    share = max(0.0, min(1.0, hp / full))
    draw.rectangle([x, y - 9, x + width, y + 9], fill=TRACK, outline=INK, width=1)
    if share:
        draw.rectangle([x, y - 9, x + width * share, y + 9],
                       fill=GOOD if share >= 0.5 else colours.FLAME)
    draw_text(draw, (x + width + 8, y), f"{hp}", font(TEXT, bold=True), INK, "lm")


def _parts(state: RaceState, last: tuple) -> list[tuple[Part, int]]:
    """The picture's bands, each with what it shows and where it goes, in the order they are drawn: title,
    news, course, panel, the table's column titles and a band per racer. Their words' usual boxes leave each
    band its own rows; a taller glyph (some scripts' stacked marks) may reach past them (images.bands.drawn_alone)."""
    title, news_lines = _title_and_news(state, last)
    parts: list[tuple[Part, int]] = [
        ((_draw_title, TITLE_END, title), 0), ((_draw_news, HEADER - TITLE_END, news_lines), TITLE_END),
        ((draw_course_look, COURSE, course_look(state, WIDTH)), HEADER),
        ((_draw_panel, HEADS_TOP - PANEL_TOP, _panel_look(state)), PANEL_TOP),
        ((_draw_heads, ROWS_TOP - HEADS_TOP, ()), HEADS_TOP)]
    return parts + [((_draw_row, ROW, row), ROWS_TOP + n * ROW) for n, row in enumerate(_rows(state))]


def render_image(state: RaceState, last: tuple = ()) -> Image.Image:
    """The race's picture as a Pillow image (`last`: the events of the action that led to `state`): the
    header, the course with the racers on it and the next section's hint, the section under way, and
    the racers in the move order with speed, altitude and hull; every band drawn on the one picture."""
    return draw_whole(Image.new("RGB", (WIDTH, HEIGHT), PAPER), _parts(state, last))


MAPPED_BYTES = 3 << 20   # the bands kept mapped to their palette (images.bounded): a course ~190 KB, a row ~44 KB


@bounded(MAPPED_BYTES)
def _mapped_part(palette_key: tuple, part: Part) -> Image.Image | None:
    """A band drawn and mapped to the palette `palette_key` names (None: it reaches past its rows): a band a
    move leaves as it was (the title, the course, the panel, most rows) is neither drawn nor mapped again."""
    return _mapped_band(palette_key, part)


def _mapped_band(palette_key: tuple, part: Part) -> Image.Image | None:
    return mapped_alone(part, WIDTH, PAPER, palette_by(palette_key))


@lru_cache(maxsize=32)
def _paper(palette_key: tuple) -> tuple[int, list[int]]:
    """The paper's entry in the palette `palette_key` names, and that palette as a mapped picture has it."""
    one = mapped(Image.new("RGB", (1, 1), PAPER), palette_by(palette_key))
    return one.tobytes()[0], one.getpalette() or []


def render_paletted(state: RaceState, last: tuple = ()) -> Image.Image:
    """render_image mapped to the picture's palette, pixel for pixel the same (Pillow maps a pixel by its
    colour alone, without dither): each band is mapped alone and pasted, and kept mapped by what it shows,
    but the news, which a move seldom repeats. A band whose drawing reaches past its rows has the whole
    picture drawn and mapped instead."""
    key = palette_key(state)
    paper, palette = _paper(key)
    image = assembled((WIDTH, HEIGHT), paper, _parts(state, last),
                      lambda part: _mapped_part(key, part) if part[0] is not _draw_news else _mapped_band(key, part))
    if image is None:
        return mapped(render_image(state, last), palette_by(key))
    image.putpalette(palette)
    return image


KEY_COLOURS = style_colours(colours) + (TRACK,)


def render_race(state: RaceState, last: tuple = (), turn: tuple = ()) -> bytes:
    """Render a race view and its last action's events to PNG bytes (same input, same bytes)."""
    return to_png(render_paletted(state, last), colours=0, level=PNG_LEVEL, strips=PNG_STRIPS)


def palette_key(state: RaceState) -> tuple:
    """Which palette a channel picture takes: (racers, rare colours) for its few colours (few_colours)
    when its racers wear the first colours and they fit, else () for the fixed palette's 256."""
    seats = len(state.seats) if state.phase == Phase.LOBBY else len(state.racers)
    worn = set(range(seats)) if state.phase == Phase.LOBBY else {r.colour for r in state.racers}
    # the table's rarer colours, drawn now: an out racer's words, a hull under half
    rare = [BAD for r in state.racers if r.out] + \
        [colours.FLAME for r in state.racers if not r.out and 0 < r.hp < state.vehicle_spec(r).hp / 2]
    key = (seats, tuple(dict.fromkeys(rare)))
    return key if worn == set(range(seats)) and few_colours(*key) is not None else ()


def palette_by(key: tuple) -> Image.Image:
    """The palette palette_key named."""
    return (few_colours(*key) if key else None) or reference_palette()


def palette_of(state: RaceState) -> Image.Image:
    """The palette of a channel picture (palette_key)."""
    return palette_by(palette_key(state))


def _reference_picture(racers: int) -> Image.Image:
    """A reference picture: a race of `racers` racers, each in its colour, just started."""
    return render_image(started(RACE, {}, [Join(f"Racer {seat + 1}") for seat in range(racers)]))


@cache
def reference_palette() -> Image.Image:
    """The fixed palette of the race's pictures, made once from a reference picture of as many racers as a
    race takes, so a picture's bytes depend on its state alone and no picture pays for building one."""
    return build_palette(_reference_picture(data.table()["max_racers"]), KEY_COLOURS)


@cache
def _reference_counts(racers: int) -> dict:
    return colour_counts(_reference_picture(racers), reference_palette())


@lru_cache(maxsize=32)
def few_colours(racers: int, rare: tuple = ()) -> Image.Image | None:
    """The 16 colours or fewer of a channel picture of a race of `racers` racers in the first colours
    (images.draw.small_palette): every colour it draws (and the `rare` ones it draws now), then the
    reference picture's most common shades up to COLOURS; None when they do not fit (then the picture
    keeps the fixed palette's 256)."""
    if racers < 2:
        return None
    drawn = (PAPER, INK, MUTED, LIT, TRACK, GOOD) + course.COLOURS + tuple(colours.car_colour(n) for n in range(racers))
    return small_palette(_reference_counts(racers), drawn + rare, min(FEW_COLOURS, max(COLOURS, len(drawn) + 2)))


def warm() -> None:
    """The palettes, made before the first move needs them."""
    for racers in range(2, data.table()["max_racers"] + 1):
        few_colours(racers)


def _closeup(view: RaceState, _last: tuple, _turn: tuple, focus: str | None) -> Closeup:
    return render_closeup_image(view, focus, WIDTH)


RENDERER = Renderer(render=render_race, replay_map=lambda state, last: render_image(state, last),
                    captioner=Captioner(name_of, colour_of, lap_and_section), warm=warm, closeup=_closeup,
                    prepare_shared=lambda: course.prepare_roads(WIDTH))
