"""The race's table picture: a header with the lap, the section and what just happened; the track as a strip
of sections with the current one lit; the current section's hazard, conditions and features in the order
they come (no DC: those are the GM's); and the racers in the move order with speed, altitude and hull.

Landscape, one size all race, every word legible at 420 px wide.
"""

from __future__ import annotations

from functools import cache, lru_cache

from PIL import Image, ImageDraw

from images import palette as colours
from images.captions import Captioner, seat_name
from images.closeup import Closeup
from images.draw import (
    FEW_COLOURS,
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
from images.race.course import draw_course
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


def _header(draw: ImageDraw.ImageDraw, state: RaceState, last: tuple) -> None:
    draw_text(draw, (PAD, 24), _title(state), font(30, bold=True), INK, "lm")
    face = font(TEXT)
    for row, line in enumerate(wrap(news(last), face, WIDTH - 2 * PAD, 2)):
        draw_text(draw, (PAD, 56 + row * 27), line, face, INK, "lm")


def _panel(draw: ImageDraw.ImageDraw, state: RaceState, top: int) -> None:
    """The current section: type, hazard, conditions, then its features in order around the action phase."""
    section = state.the_section
    face, bold = font(TEXT), font(TEXT, bold=True)
    hazard = section.hazard
    over = f", over it {section.secondary.what}" if section.secondary else ""
    height = f" {hazard.height} m" if hazard.height else ""
    conditions = ", ".join(_condition_words(c) for c in section.conditions) or "clear"
    first = f"{section.type.capitalize()} · hazard: {hazard.what}{height}{over} · {conditions}"
    draw_text(draw, (PAD, top + 16), ellipsize(first, face, WIDTH - 2 * PAD), face, INK, "lm")
    x: float = PAD
    y = top + 62
    steps = [feature_words(f) for f in section.before] + ["ACTIONS"] + [feature_words(f) for f in section.after]
    current = _current_step(state)
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


def _table(draw: ImageDraw.ImageDraw, state: RaceState, top: int) -> None:
    """The racers in the move order (the grid before the start), then those out."""
    face, bold = font(TEXT), font(TEXT, bold=True)
    columns = (("", PAD + 8), ("racer", PAD + 52), ("pilot · vehicle", PAD + 290), ("speed", SPEED_X),
               ("alt", ALT_X), ("hull", HULL_X))
    for title, x in columns[1:]:
        draw_text(draw, (x, top), title, face, MUTED, "lm")
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
    for n, (place, name, pilot, vehicle, racer) in enumerate(rows):
        y = top + 30 + n * ROW
        colour = colours.car_colour(racer.colour if racer else n)
        lit = racer is not None and (racer.id in waiting or (acting is not None and racer.id == acting.id))
        draw.rounded_rectangle([PAD, y - 4, WIDTH - PAD, y + ROW - 8], radius=6,
                               fill=LIT if lit else PAPER, outline=INK if lit else TRACK, width=2)
        draw.rectangle([PAD + 34, y, PAD + 44, y + ROW - 12], fill=colour)
        middle = y + (ROW - 12) / 2
        draw_text(draw, (PAD + 16, middle), str(place), bold, INK, "mm")
        draw_text(draw, (PAD + 52, middle), ellipsize(name, bold, 228), bold, INK, "lm")
        pilot_name = data.racers()[pilot].name if pilot in data.racers() else pilot
        vehicle_spec = state.vehicle_spec(racer) if racer else data.vehicles().get(vehicle)
        words = f"{pilot_name} · {vehicle_spec.name if vehicle_spec else vehicle}"
        draw_text(draw, (PAD + 290, middle), ellipsize(words, face, SPEED_X - PAD - 300), face, INK,
                  "lm")
        if racer is None:
            continue
        if racer.out:
            draw_text(draw, (SPEED_X, middle), f"out: {racer.out}", bold, BAD, "lm")
            continue
        draw_text(draw, (SPEED_X, middle), f"{racer.speed} km/h", bold, INK, "lm")
        draw_text(draw, (ALT_X, middle), f"{racer.altitude} m", face, INK, "lm")
        _hull(draw, racer.hp, state.vehicle_spec(racer).hp, HULL_X, middle)
        marks = ("adv " if racer.advantage else "") + (f"+{racer.bonus}" if racer.bonus else "")
        if marks:
            draw_text(draw, (WIDTH - PAD - 8, middle), marks.strip(), bold, GOOD, "rm")


def _hull(draw: ImageDraw.ImageDraw, hp: int, full: int, x: float, y: float) -> None:
    """Hull points as a bar and a figure: green, orange below half."""
    width = 90
    share = max(0.0, min(1.0, hp / full))
    draw.rectangle([x, y - 9, x + width, y + 9], fill=TRACK, outline=INK, width=1)
    if share:
        draw.rectangle([x, y - 9, x + width * share, y + 9],
                       fill=GOOD if share >= 0.5 else colours.FLAME)
    draw_text(draw, (x + width + 8, y), f"{hp}", font(TEXT, bold=True), INK, "lm")


def render_image(state: RaceState, last: tuple = ()) -> Image.Image:
    """The race's picture as a Pillow image (`last`: the events of the action that led to `state`): the
    header, the course with the racers on it and the next section's hint, the section under way, and
    the racers in the move order with speed, altitude and hull."""
    image = Image.new("RGB", (WIDTH, HEIGHT), PAPER)
    draw = ImageDraw.Draw(image)
    _header(draw, state, last)
    draw_course(image, HEADER, state)
    panel = HEADER + COURSE
    if state.phase == Phase.GM:
        draw_text(draw, (PAD, panel + 16), "The game master is readying the next section.", font(TEXT), INK, "lm")
    elif state.phase != Phase.LOBBY:
        _panel(draw, state, panel)
    _table(draw, state, panel + PANEL)
    return image


KEY_COLOURS = style_colours(colours) + (TRACK,)


def render_race(state: RaceState, last: tuple = (), turn: tuple = ()) -> bytes:
    """Render a race view and its last action's events to PNG bytes (same input, same bytes)."""
    return to_png(render_image(state, last), palette=palette_of(state), level=PNG_LEVEL, strips=PNG_STRIPS)


def palette_of(state: RaceState) -> Image.Image:
    """The palette of a channel picture: its few colours (few_colours) when its racers wear the first
    colours, else the fixed palette's 256."""
    seats = len(state.seats) if state.phase == Phase.LOBBY else len(state.racers)
    worn = set(range(seats)) if state.phase == Phase.LOBBY else {r.colour for r in state.racers}
    # the table's rarer colours, drawn now: an out racer's words, a hull under half
    rare = [BAD for r in state.racers if r.out] + \
        [colours.FLAME for r in state.racers if not r.out and 0 < r.hp < state.vehicle_spec(r).hp / 2]
    small = few_colours(seats, tuple(dict.fromkeys(rare))) if worn == set(range(seats)) else None
    return small or reference_palette()


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
                    captioner=Captioner(name_of, colour_of, lap_and_section), warm=warm, closeup=_closeup)
