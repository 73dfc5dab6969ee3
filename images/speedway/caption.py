"""The caption above the map: round, whose turn and phase, a winner banner, who must decide what,
the last action and the last roll's dice."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PIL import Image, ImageDraw

from images import palette
from images.draw import ShiftedDraw, draw_text, ellipsize, fit_font, ink_on, wrap
from images.fonts import font
from images.speedway import style
from images.speedway.last_turn import car_in, last_roll
from rules.engine import describe_events
from rules.speedway import data
from rules.speedway.events import DiceRolled
from rules.speedway.phases import RUNNING, SpeedwayPhase
from rules.speedway.state import SpeedwayState

PHASES = {
    SpeedwayPhase.LOBBY: "Lobby", SpeedwayPhase.UPKEEP: "Upkeep", SpeedwayPhase.MOVEMENT: "Movement",
    SpeedwayPhase.SKID: "Skid decision", SpeedwayPhase.FINISHED: "Game over",
}
TITLE = 38          # the title row (or the game-over banner)
NEWS = 23           # font size of what happened and who must decide
LINE = 28
NEWS_LINES = 2
DIE = 32
HEADER = 16 + TITLE + 8 + NEWS_LINES * LINE + 6 + DIE + 10   # the same height all game long
TITLE_END = 16 + TITLE + 8   # where the news lines start
DICE_TOP = HEADER - 10 - DIE   # where the dice strip starts
# Pip positions on a d6 face, in thirds of the face from its centre.
PIPS = {
    1: ((0, 0),), 2: ((-1, -1), (1, 1)), 3: ((-1, -1), (0, 0), (1, 1)),
    4: ((-1, -1), (1, -1), (-1, 1), (1, 1)), 5: ((-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)),
    6: ((-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)),
}


def name_of(state: SpeedwayState, ident: str | None) -> str:
    """A player's or car's display name for an id, falling back to the id itself."""
    if ident is None:
        return ""
    player = state.player(ident)
    if player:
        return player.name
    return next((c.name for c in state.cars if c.id == ident), ident)


def colour_of(state: SpeedwayState, ident: str | None):
    """The colour of a car, or of a player's first car; None when neither is known."""
    car = next((c for c in state.cars if c.id == ident), None) or next(iter(state.cars_of(ident or "")), None)
    return palette.car_colour(car.colour) if car else None


def _title(state: SpeedwayState) -> str:
    arena = data.arena(state.arena).name
    if state.phase == SpeedwayPhase.LOBBY:
        return f"{arena} · Lobby · {len(state.players)} seated"
    if state.phase == SpeedwayPhase.FINISHED:
        return f"{arena} · Game over after round {state.round + 1}"
    phase = PHASES.get(state.phase, state.phase)
    if state.pending_ram:
        phase = "Ramming"
    text = f"Round {state.round + 1} · {name_of(state, state.active_player)}'s turn · {phase}"
    if state.phase == SpeedwayPhase.MOVEMENT and state.moves_total:
        text += f" · {state.moves_left}/{state.moves_total} moves left"
    return text


def _banner(state: SpeedwayState) -> tuple[str, tuple[int, int, int]] | None:
    """The big end-of-game line and its colour: the winner in their colour, else who ended it, else a draw."""
    if state.phase != SpeedwayPhase.FINISHED:
        return None
    if state.winner:
        return f"{name_of(state, state.winner)} WINS", colour_of(state, state.winner) or palette.GOOD
    if state.ended_by:
        return f"Ended by {state.ended_by}", palette.CROSSED
    return "Draw", palette.CROSSED


def _prompts(state: SpeedwayState) -> list[tuple[str, str | None]]:
    """Bold lines saying who must decide what now, each with the id whose colour marks it."""
    prompts: list[tuple[str, str | None]] = []
    ram = state.pending_ram
    if ram:
        rammer, rammed, chooser = (name_of(state, i) for i in (ram.attacker, ram.defender, ram.chooser))
        prompts.append((f"{rammer} rammed {rammed} · {chooser} must choose outcome A or B", ram.chooser))
    active = next((c for c in state.cars if c.id == state.active_car), None)
    if active and active.must_turn and state.phase in RUNNING:
        prompts.append((f"{active.name} must Turn on the next Move", active.id))
    return prompts


def _die(draw: ImageDraw.ImageDraw, x: float, y: float, face: int, kind: str, colour) -> None:
    """One die at (x, y): a white Driver die with its number and a stripe in the roller's colour, or an
    ordinary black d6 with white pips."""
    box = (x, y, x + DIE, y + DIE)
    if kind == "d6" and face in PIPS:
        draw.rounded_rectangle(box, radius=9, fill=palette.INK, outline=colour or palette.INK, width=3)
        third, pip = DIE * 0.27, DIE * 0.105
        cx, cy = x + DIE / 2, y + DIE / 2
        for px, py in PIPS[face]:
            draw.ellipse((cx + px * third - pip, cy + py * third - pip, cx + px * third + pip,
                          cy + py * third + pip), fill=palette.PAPER)
        return
    if kind == "d6":   # a face with no pips to show: a black die with the number
        draw.rounded_rectangle(box, radius=9, fill=palette.INK, outline=colour or palette.INK, width=3)
        draw_text(draw, (x + DIE / 2, y + DIE / 2 - 1), str(face), font(22, bold=True), palette.PAPER, "mm")
        return
    draw.rounded_rectangle(box, radius=8, fill=palette.PAPER, outline=palette.INK, width=3)
    if colour:
        draw.rectangle((x + 3, y + DIE - 8, x + DIE - 3, y + DIE - 4), fill=colour)
    draw_text(draw, (x + DIE / 2, y + DIE / 2 - 2), str(face), font(22, bold=True), palette.INK, "mm")


def strip_words(roll: DiceRolled) -> tuple[str, str, str]:
    """The dice strip's words around the dice: who rolled for what, the modifier, total and target, and
    the verdict, each as the event says it (the strip and the text can never disagree)."""
    plus = f"+ {roll.modifier} " if roll.modifier else ""
    mark = "✓" if roll.success else "✗"
    return f"{roll.car} {roll.purpose}:".strip(), f"{plus}= {roll.total} vs {roll.target}  ", f"{mark} {roll.verdict}"


def _roll(draw: ImageDraw.ImageDraw, roll: DiceRolled, colour: Colour | None, x: float, y: float,
          width: float) -> None:
    body, bold = font(NEWS), font(NEWS, bold=True)
    cy = y + DIE / 2
    lead, sums, verdict = strip_words(roll)
    lead_font = fit_font(lead, NEWS, width * 0.45)
    draw_text(draw, (x, cy), lead, lead_font, palette.INK, "lm")
    x += lead_font.getlength(lead) + 12
    for face in roll.faces:
        _die(draw, x, y, face, roll.dice, colour)
        x += DIE + 6
    draw_text(draw, (x + 6, cy), sums, body, palette.INK, "lm")
    x += 6 + body.getlength(sums)
    draw_text(draw, (x, cy), verdict, bold, palette.GOOD if roll.success else palette.BAD, "lm")


def _draw_banner(draw: ImageDraw.ImageDraw, text: str, fill, x: float, y: float, width: float) -> None:
    draw.rounded_rectangle((x, y, x + width, y + TITLE), radius=10, fill=fill, outline=palette.INK, width=3)
    big = fit_font(text, 32, width - 40, bold=True, minimum=20)
    text = ellipsize(text, big, width - 40)
    ink = ink_on(fill)
    draw_text(draw, (x + width / 2, y + TITLE / 2 + 1), text, big, ink, "mm",
              stroke_width=2 if ink == palette.PAPER else 0, stroke_fill=palette.INK)


def _draw_prompt(draw: ImageDraw.ImageDraw, text: str, colour, x: float, y: float, width: float) -> None:
    """A line saying who must decide what, highlighted, with a swatch in their colour."""
    draw.rounded_rectangle((x, y + 1, x + width, y + LINE - 1), radius=6, fill=palette.HIGHLIGHT)
    draw.rounded_rectangle((x + 5, y + 6, x + 23, y + LINE - 6), radius=4, fill=colour or palette.INK,
                           outline=palette.INK, width=2)
    bold = fit_font(text, NEWS, width - 40, bold=True, minimum=16)
    draw_text(draw, (x + 32, y + LINE / 2), ellipsize(text, bold, width - 40), bold, palette.INK, "lm")


Colour = tuple[int, int, int]
# What each of the header's three bands shows, in words and colours (caption_words): the title row (a
# banner's words and fill, or the acting car's colour and the title), the news rows (the prompts with
# their colours, what the last action said) and the dice row (the roll and its roller's colour).
TitleWords = tuple[str, Colour | None, bool]
NewsWords = tuple[tuple[tuple[str, Colour | None], ...], str]
DiceWords = tuple[DiceRolled, Colour | None] | None
BANDS = ((0, TITLE_END), (TITLE_END, DICE_TOP), (DICE_TOP, HEADER))   # each band's first and end row


def caption_words(state: SpeedwayState, last: tuple = ()) -> tuple[TitleWords, NewsWords, DiceWords]:
    """Everything the header shows, band by band: two states with the same words get the same bands."""
    banner = _banner(state)
    if banner:
        title: TitleWords = (banner[0], banner[1], True)
    else:
        active = next((c for c in state.cars if c.id == state.active_car), None)
        title = (_title(state), palette.car_colour(active.colour) if active and state.phase in RUNNING else None,
                 False)
    prompts = tuple((text, colour_of(state, ident)) for text, ident in _prompts(state)[:NEWS_LINES])
    roll = last_roll(last)
    roller = car_in(state, roll.car_id, roll.car) if roll else None
    dice = (roll, palette.car_colour(roller.colour) if roller else None) if roll else None
    return title, (prompts, describe_events(last)), dice


def _draw_title(draw: ImageDraw.ImageDraw, words: TitleWords, width: int) -> None:
    text, colour, banner = words
    x, y = style.PAD, 16
    if banner:
        _draw_banner(draw, text, colour, x, y, width - 2 * style.PAD)
        return
    if colour is not None:
        draw.rounded_rectangle((x, y + 4, x + 26, y + TITLE - 4), radius=6, fill=colour, outline=palette.INK,
                               width=2)
        x += 36
    title_font = fit_font(text, 30, width - x - style.PAD, bold=True, minimum=18)
    draw_text(draw, (x, y + TITLE / 2), ellipsize(text, title_font, width - x - style.PAD), title_font,
              palette.INK, "lm")


def _draw_news(draw: ImageDraw.ImageDraw, words: NewsWords, width: int) -> None:
    prompts, said = words
    inner, y = width - 2 * style.PAD, TITLE_END
    for text, colour in prompts:
        _draw_prompt(draw, text, colour, style.PAD, y, inner)
        y += LINE
    body = font(NEWS)
    for line in wrap(said, body, inner, NEWS_LINES - len(prompts)) if said and len(prompts) < NEWS_LINES else []:
        draw_text(draw, (style.PAD, y + LINE / 2), line, body, palette.INK, "lm")
        y += LINE


def _draw_dice(draw: ImageDraw.ImageDraw, words: DiceWords, width: int) -> None:
    if words:
        _roll(draw, words[0], words[1], style.PAD, DICE_TOP, width - 2 * style.PAD)


BandWords = TitleWords | NewsWords | DiceWords


def draw_band(band: int, words: BandWords, width: int) -> Image.Image:
    """The header's band number `band` (BANDS: title, news, dice) showing `words` (caption_words), `width`
    wide: drawn in the whole header's coordinates, so the bands pasted together are the header drawn whole."""
    top, end = BANDS[band]
    image = Image.new("RGB", (width, end - top), palette.PAPER)
    drawer: Callable[[ImageDraw.ImageDraw, Any, int], None] = (_draw_title, _draw_news, _draw_dice)[band]
    drawer(ShiftedDraw(image, (0, top)), words, width)
    return image


def render_caption(state: SpeedwayState, width: int, last: tuple = ()) -> Image.Image:
    """The header strip, `width` wide and always HEADER high: the round and whose turn (or the result),
    who must decide what, what `last` (the last action's events) did, and its dice."""
    image = Image.new("RGB", (width, HEADER), palette.PAPER)
    for band, words in enumerate(caption_words(state, last)):
        image.paste(draw_band(band, words, width), (0, BANDS[band][0]))
    return image
