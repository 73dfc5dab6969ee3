"""The header above the board: the title (lobby, whose move, the result) and the last action's words."""

from __future__ import annotations

from PIL import ImageDraw

from images import palette as colours
from images.battlecars.style import HEADER, INK, MUTED, PAPER, TEXT
from images.captions import seat_name
from images.draw import draw_text, wrap
from images.fonts import font
from rules.battlecars.events import DiceRolled
from rules.battlecars.passive import smoke_stayed
from rules.battlecars.state import BattlecarsState, Phase

name_of = seat_name   # the caption's and the picture's words for who acts


def colour_of(state: BattlecarsState, pid: str | None):
    vehicle = state.vehicle_of(pid)
    return colours.car_colour(vehicle.colour) if vehicle else MUTED


def turn_words(state: BattlecarsState) -> str:
    """The game's step in a replay's caption, as the header says it: 'Turn 3'."""
    return f"Turn {state.round + 1}"


def headline(state: BattlecarsState) -> str:
    """The header's title: the lobby, whose move it is, or the result."""
    if state.phase == Phase.LOBBY:
        return f"Battlecars · {state.the_board.name} · lobby, {len(state.players)} seated"
    if state.phase == Phase.FINISHED:
        return f"Game over · {name_of(state, state.winner)} wins" if state.winner else "Game over · a draw"
    if state.phase == Phase.SPEED:
        return f"Turn {state.round + 1} · speed counters going down"
    if state.phase == Phase.SECTION:   # the hit vehicle's driver decides, whoever is moving
        return f"Turn {state.round + 1} · {name_of(state, state.open_hit.chooser)} chooses where the hit lands"
    if state.phase == Phase.RETURN:
        return f"Turn {state.round + 1} · {name_of(state, state.open_return.chooser)} may return fire"
    walker = state.pedestrian_of(state.active)
    if walker is not None:
        return f"Turn {state.round + 1} · {walker.name} on foot"
    return f"Turn {state.round + 1} · {name_of(state, state.active)} moves"


def draw_header(draw: ImageDraw.ImageDraw, state: BattlecarsState, last: tuple, width: int, title: str = "") -> None:
    """The title and the last action in two lines, drawn straight at the picture's size: words need no
    antialiasing but their own, and the header changes every move."""
    draw.rectangle([0, 0, width, HEADER - 1], fill=PAPER)
    draw_text(draw, (20, 24), title or headline(state), font(28, bold=True), INK, "lm")
    face = font(TEXT)
    for row, line in enumerate(wrap(news(last), face, width - 40, 2)):
        draw_text(draw, (20, 56 + row * 26), line, face, INK, "lm")


def news(events: tuple) -> str:
    """The last action in the header's two lines: every event's words, a roll without the rule it is read on
    (the reply has the full breakdown). A smoke marker's end-of-turn roll that left it where it was is
    no news and is left out, so the rolls that mattered (a shot, its damage) keep the two lines."""
    told = [e for e in events if not smoke_stayed(e)]
    words = " ".join(e.brief() if isinstance(e, DiceRolled) else e.describe() for e in told)
    return " ".join(words.split()).replace("->", "→") or "No move yet."
