"""The caption above the map: round, whose turn and phase, the last action and the last roll's dice."""

from __future__ import annotations

from PIL import Image, ImageDraw

from images.draw import draw_text, fit_font, wrap
from images.fonts import font
from images.speedway import style
from rules.speedway import data
from rules.speedway.state import SpeedwayState

PHASES = {
    "lobby": "Lobby", "upkeep": "Upkeep", "movement": "Movement",
    "skid": "Skid decision", "finished": "Game over",
}
TITLE = 36
LINE = 34
DIE = 44
MAX_LINES = 4


def _name_of(state: SpeedwayState, ident: str | None) -> str:
    """A player's or car's display name for an id, falling back to the id itself."""
    if ident is None:
        return ""
    player = state.player(ident)
    if player:
        return player.name
    return next((c.name for c in state.cars if c.id == ident), ident)


def _title(state: SpeedwayState) -> str:
    arena = data.arena(state.arena).name
    if state.phase == "lobby":
        return f"{arena} · Lobby · {len(state.players)} seated"
    if state.phase == "finished":
        if state.winner:
            return f"Game over · {_name_of(state, state.winner)} wins"
        return "Game over" + (f" · ended by {state.ended_by}" if state.ended_by else "")
    phase = PHASES.get(state.phase, state.phase)
    text = f"Round {state.round + 1} · {_name_of(state, state.active_player)}'s turn · {phase}"
    if state.phase == "movement" and state.moves_total:
        text += f" · {state.moves_left}/{state.moves_total} moves left"
    return text


def _roll(draw: ImageDraw.ImageDraw, state: SpeedwayState, x: float, y: float, width: float) -> None:
    roll = state.last_roll
    body, bold = font(26), font(26, bold=True)
    cy = y + DIE / 2
    who = _name_of(state, roll.car)
    colour = next((style.car_colour(c.colour) for c in state.cars if c.id == roll.car), style.PAPER)
    lead = f"{who} {roll.purpose}:".strip()
    lead_font = fit_font(lead, 26, width * 0.45)
    draw_text(draw, (x, cy), lead, lead_font, style.INK, "lm")
    x += lead_font.getlength(lead) + 14
    digits = font(28, bold=True)
    for face in roll.faces:
        draw.rounded_rectangle((x, y, x + DIE, y + DIE), radius=8, fill=style.PAPER, outline=style.INK,
                               width=3)
        draw.rectangle((x + 3, y + DIE - 9, x + DIE - 3, y + DIE - 4), fill=colour)
        draw_text(draw, (x + DIE / 2, cy - 2), str(face), digits, style.INK, "mm")
        x += DIE + 8
    sums = f"= {roll.total} vs {roll.target}  "
    draw_text(draw, (x + 6, cy), sums, body, style.INK, "lm")
    x += 6 + body.getlength(sums)
    verdict = "✓ success" if roll.success else "✗ failed"
    draw_text(draw, (x, cy), verdict, bold, style.GOOD if roll.success else style.BAD, "lm")


def render_caption(state: SpeedwayState, width: int) -> Image.Image:
    """The caption strip, `width` pixels wide."""
    inner = width - 2 * style.PAD
    body = font(26)
    lines = wrap(state.last_action, body, inner, MAX_LINES) if state.last_action else []
    height = style.PAD + TITLE + 12 + LINE * len(lines) + (DIE + 14 if state.last_roll else 0) + style.PAD - 4
    image = Image.new("RGB", (width, height), style.PAPER)
    draw = ImageDraw.Draw(image)
    title = _title(state)
    x, y = style.PAD, style.PAD
    active = next((c for c in state.cars if c.id == state.active_car), None)
    if active and state.phase not in ("lobby", "finished"):
        swatch = (x, y + 2, x + 30, y + TITLE - 2)
        draw.rounded_rectangle(swatch, radius=6, fill=style.car_colour(active.colour), outline=style.INK,
                               width=2)
        x += 42
    title_font = fit_font(title, TITLE, width - x - style.PAD, bold=True)
    draw_text(draw, (x, y + TITLE / 2), title, title_font, style.INK, "lm")
    y += TITLE + 12
    for line in lines:
        draw_text(draw, (style.PAD, y + LINE / 2), line, body, style.INK, "lm")
        y += LINE
    if state.last_roll:
        _roll(draw, state, style.PAD, y + 6, inner)
    return image
