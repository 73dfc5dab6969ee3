"""The race's table picture: a header with the lap, the section and what just happened; the track as a strip
of sections with the current one lit; the current section's hazard, conditions and features in the order
they come (no DC: those are the GM's); and the racers in the move order with speed, altitude and hull.

Landscape, one size all race, every word legible at 420 px wide.
"""

from __future__ import annotations

from PIL import Image, ImageDraw

from images import palette as colours
from images.captions import Captioner, seat_name
from images.draw import draw_text, ellipsize, style_colours, to_png, wrap
from images.fonts import font
from images.registry import Renderer
from rules.race import checks, data, flow
from rules.race.state import Phase, Racer, RaceState

K = 2                  # drawn at twice the size, then shrunk once (antialiasing)
WIDTH, HEIGHT = 1100, 660
TEXT = 24              # the smallest words: 9.2 px when the picture is shown 420 px wide (a phone)
PAD = 20
HEADER = 104
STRIP = 66
PANEL = 116
ROW = 46
SPEED_X, ALT_X, HULL_X = 672, 806, 884   # the table's columns of figures
PAPER, INK, MUTED = colours.PAPER, colours.INK, colours.MUTED
LIT = colours.HIGHLIGHT
TRACK = (222, 216, 204)
GOOD, BAD = colours.GOOD, colours.BAD


name_of = seat_name   # the caption's and the picture's words for who acts


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
    draw_text(draw, (K * PAD, K * 26), _title(state), font(K * 30, bold=True), INK, "lm")
    face = font(K * TEXT)
    for row, line in enumerate(wrap(news(last), face, K * (WIDTH - 2 * PAD), 2)):
        draw_text(draw, (K * PAD, K * (60 + row * 27)), line, face, INK, "lm")


def _strip(draw: ImageDraw.ImageDraw, state: RaceState, top: int) -> None:
    """The track's sections left to right, the current one lit, names on up to two lines; laps at the end."""
    sections = state.the_track.sections
    gap = 8
    width = (WIDTH - 2 * PAD - 60 - gap * (len(sections) - 1)) / len(sections)
    face = font(K * TEXT, bold=True)
    for n, section in enumerate(sections):
        x0 = PAD + n * (width + gap)
        current = n == state.section and state.phase not in (Phase.LOBBY, Phase.FINISHED)
        draw.rounded_rectangle([K * x0, K * top, K * (x0 + width), K * (top + STRIP - 6)], radius=8 * K,
                               fill=LIT if current else TRACK, outline=INK, width=(4 if current else 2) * K)
        lines = wrap(section.name, face, K * (width - 12), 2)
        middle = top + (STRIP - 6) / 2
        for row, line in enumerate(lines):
            y = middle + (row - (len(lines) - 1) / 2) * 26
            draw_text(draw, (K * (x0 + width / 2), K * y), line, face, INK, "mm")
    laps = f"×{state.the_track.laps}"
    draw_text(draw, (K * (WIDTH - PAD), K * (top + (STRIP - 6) / 2)), laps, font(K * 28, bold=True), INK, "rm")


def _panel(draw: ImageDraw.ImageDraw, state: RaceState, top: int) -> None:
    """The current section: type, hazard, conditions, then its features in order around the action phase."""
    section = state.the_section
    face, bold = font(K * TEXT), font(K * TEXT, bold=True)
    hazard = section.hazard
    over = f", over it {section.secondary.what}" if section.secondary else ""
    height = f" {hazard.height} m" if hazard.height else ""
    conditions = ", ".join(_condition_words(c) for c in section.conditions) or "clear"
    first = f"{section.type.capitalize()} · hazard: {hazard.what}{height}{over} · {conditions}"
    draw_text(draw, (K * PAD, K * (top + 16)), ellipsize(first, face, K * (WIDTH - 2 * PAD)), face, INK, "lm")
    x: float = PAD
    y = top + 62
    steps = [feature_words(f) for f in section.before] + ["ACTIONS"] + [feature_words(f) for f in section.after]
    current = _current_step(state)
    for n, words in enumerate(steps):
        w = bold.getlength(words) / K + 24
        if x + w > WIDTH - PAD:
            break
        lit = n == current
        fill = LIT if lit else (PAPER if words != "ACTIONS" else TRACK)
        draw.rounded_rectangle([K * x, K * (y - 20), K * (x + w), K * (y + 20)], radius=6 * K, fill=fill,
                               outline=INK, width=(3 if lit else 2) * K)
        draw_text(draw, (K * (x + w / 2), K * y), words, bold, INK, "mm")
        x += w + 12
        if n < len(steps) - 1 and x + 20 < WIDTH - PAD:
            draw_text(draw, (K * (x - 6), K * y), "›", bold, MUTED, "mm")
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
    face, bold = font(K * TEXT), font(K * TEXT, bold=True)
    columns = (("", PAD + 8), ("racer", PAD + 52), ("pilot · vehicle", PAD + 290), ("speed", SPEED_X),
               ("alt", ALT_X), ("hull", HULL_X))
    for title, x in columns[1:]:
        draw_text(draw, (K * x, K * top), title, face, MUTED, "lm")
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
        draw.rounded_rectangle([K * PAD, K * (y - 4), K * (WIDTH - PAD), K * (y + ROW - 8)], radius=6 * K,
                               fill=LIT if lit else PAPER, outline=INK if lit else TRACK, width=2 * K)
        draw.rectangle([K * (PAD + 34), K * y, K * (PAD + 44), K * (y + ROW - 12)], fill=colour)
        middle = y + (ROW - 12) / 2
        draw_text(draw, (K * (PAD + 16), K * middle), str(place), bold, INK, "mm")
        draw_text(draw, (K * (PAD + 52), K * middle), ellipsize(name, bold, K * 228), bold, INK, "lm")
        pilot_name = data.racers()[pilot].name if pilot in data.racers() else pilot
        vehicle_spec = state.vehicle_spec(racer) if racer else data.vehicles().get(vehicle)
        words = f"{pilot_name} · {vehicle_spec.name if vehicle_spec else vehicle}"
        draw_text(draw, (K * (PAD + 290), K * middle), ellipsize(words, face, K * (SPEED_X - PAD - 300)), face, INK,
                  "lm")
        if racer is None:
            continue
        if racer.out:
            draw_text(draw, (K * SPEED_X, K * middle), f"out: {racer.out}", bold, BAD, "lm")
            continue
        draw_text(draw, (K * SPEED_X, K * middle), f"{racer.speed} km/h", bold, INK, "lm")
        draw_text(draw, (K * ALT_X, K * middle), f"{racer.altitude} m", face, INK, "lm")
        _hull(draw, racer.hp, state.vehicle_spec(racer).hp, HULL_X, middle)
        marks = ("adv " if racer.advantage else "") + (f"+{racer.bonus}" if racer.bonus else "")
        if marks:
            draw_text(draw, (K * (WIDTH - PAD - 8), K * middle), marks.strip(), bold, GOOD, "rm")


def _hull(draw: ImageDraw.ImageDraw, hp: int, full: int, x: float, y: float) -> None:
    """Hull points as a bar and a figure: green, orange below half."""
    width = 90
    share = max(0.0, min(1.0, hp / full))
    draw.rectangle([K * x, K * (y - 9), K * (x + width), K * (y + 9)], fill=TRACK, outline=INK, width=K)
    if share:
        draw.rectangle([K * x, K * (y - 9), K * (x + width * share), K * (y + 9)],
                       fill=GOOD if share >= 0.5 else colours.FLAME)
    draw_text(draw, (K * (x + width + 8), K * y), f"{hp}", font(K * TEXT, bold=True), INK, "lm")


def render_image(state: RaceState, last: tuple = ()) -> Image.Image:
    """The race's picture as a Pillow image (`last`: the events of the action that led to `state`)."""
    image = Image.new("RGB", (K * WIDTH, K * HEIGHT), PAPER)
    draw = ImageDraw.Draw(image)
    _header(draw, state, last)
    _strip(draw, state, HEADER)
    if state.phase == Phase.GM:
        draw_text(draw, (K * PAD, K * (HEADER + STRIP + 16)), "The game master is readying the next section.",
                  font(K * TEXT), INK, "lm")
    elif state.phase != Phase.LOBBY:
        _panel(draw, state, HEADER + STRIP)
    _table(draw, state, HEADER + STRIP + PANEL)
    return image.reduce(K)


KEY_COLOURS = style_colours(colours) + (TRACK,)


def render_race(state: RaceState, last: tuple = (), turn: tuple = ()) -> bytes:
    """Render a race view and its last action's events to PNG bytes (same input, same bytes)."""
    return to_png(render_image(state, last), KEY_COLOURS)


RENDERER = Renderer(render=render_race, replay_map=lambda state, last: render_image(state, last),
                    captioner=Captioner(name_of, colour_of))
