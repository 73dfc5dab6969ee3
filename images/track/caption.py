"""The caption above the board: whose turn (or the winner), the last card and what it did, and each
player's colour, cars home and hand SIZE (never a card in a hand)."""

from __future__ import annotations

from PIL import Image, ImageDraw

from images.draw import draw_text, ellipsize, ink_on, wrap
from images.fonts import font
from images.track import cards, style
from rules.engine import describe_events
from rules.track.phases import TrackPhase
from rules.track.state import TrackState

TITLE = 44
LINE = 36
MAX_LINES = 4
ROW = 86


def name_of(state: TrackState, pid: str | None) -> str:
    """A player's display name (the id if they left)."""
    p = state.player(pid)
    return p.name if p else (pid or "")


def colour_of(state: TrackState, pid: str | None):
    """A player's seat colour (muted for nobody)."""
    p = state.player(pid)
    return style.seat_colour(p.seat) if p else style.MUTED


def _title(state: TrackState) -> tuple[str, object]:
    if state.phase == TrackPhase.LOBBY:
        return f"Track \u00b7 Lobby \u00b7 {len(state.players)} of 2 seated", None
    if state.phase == TrackPhase.FINISHED:
        if state.winner:
            return f"\u2605 {name_of(state, state.winner)} wins! \u2605", colour_of(state, state.winner)
        if state.ended_by:
            return f"Game over (ended by {state.ended_by})", None
        return "Game over: a draw", None
    who = state.active_player
    return f"Round {state.round + 1} \u00b7 {name_of(state, who)}'s turn", colour_of(state, who)


def _last_text(state: TrackState, last: tuple) -> str:
    if state.phase == TrackPhase.LOBBY:
        return "Waiting for players: /game join, then the host uses /game start."
    text = describe_events(last) or "No card played yet."
    if state.last_card:
        text = f"Last card {state.last_card}: {text}"
    return text


def render_caption(state: TrackState, width: int, last: tuple = ()) -> Image.Image:
    """The caption: the round and whose turn, what `last` (the last action's events) did, the seats."""
    pad = style.PAD
    body = font(LINE)
    lines = wrap(_last_text(state, last), body, width - 2 * pad, MAX_LINES)
    title, colour = _title(state)
    banner_h = TITLE + (72 if state.phase == TrackPhase.FINISHED else 40)
    height = pad + banner_h + 14 + len(lines) * (LINE + 8) + 10 + ROW + pad
    image = Image.new("RGB", (width, height), style.PAPER)
    draw = ImageDraw.Draw(image)
    y = pad
    fill = colour if colour is not None else style.BANNER
    draw.rounded_rectangle((pad, y, width - pad, y + banner_h), radius=16, fill=fill)
    ink = ink_on(fill)
    title_font = font(TITLE + (16 if state.phase == TrackPhase.FINISHED else 0), True)
    draw_text(draw, (width / 2, y + banner_h / 2), ellipsize(title, title_font, width - 4 * pad), title_font,
              ink, "mm")
    y += banner_h + 14
    for line in lines:
        draw_text(draw, (pad, y), line, body, style.INK)
        y += LINE + 8
    y += 10
    _players_row(draw, state, width, y)
    return image


def _players_row(draw: ImageDraw.ImageDraw, state: TrackState, width: int, y: int) -> None:
    """One box per seat: colour disc, name, cars finished, and the hand size as card backs."""
    pad = style.PAD
    players = sorted(state.players, key=lambda p: p.seat)
    if not players:
        return
    box_w = (width - 2 * pad - 16 * (len(players) - 1)) / len(players)
    name_font = font(34, True)
    small = font(28, True)
    for i, p in enumerate(players):
        x0 = pad + i * (box_w + 16)
        colour = style.seat_colour(p.seat)
        active = state.active_player == p.id
        draw.rounded_rectangle((x0, y, x0 + box_w, y + ROW - 8), radius=14, fill=style.tint(colour, 0.25),
                               outline=style.INK if active else colour, width=5 if active else 3)
        cy = y + (ROW - 8) / 2
        draw.ellipse((x0 + 12, cy - 24, x0 + 60, cy + 24), fill=colour, outline=style.INK, width=3)
        finished = sum(1 for c in state.cars_of(p.id) if c.finished)
        size = state.hand(p.id).size if any(h.player == p.id for h in state.hands) else 0
        right = f"{size} card{'s' if size != 1 else ''}"
        backs_w = 22 * min(size, 5) + 24 if size else 0
        right_w = small.getlength(right) + backs_w
        name = p.name + (" (AI)" if p.ai else "")
        name = ellipsize(name, name_font, box_w - 80 - right_w - 24)
        draw_text(draw, (x0 + 72, cy - 14), name, name_font, style.INK, "lm")
        draw_text(draw, (x0 + 72, cy + 22), f"{finished} of {state.board.cars_per_player} finished", font(24),
                  style.INK, "lm")
        draw_text(draw, (x0 + box_w - 14, cy), right, small, style.INK, "rm")
        bx = x0 + box_w - 14 - small.getlength(right) - 12 - (22 * (min(size, 5) - 1) + 36)
        for j in range(min(size, 5)):
            cards.back(draw, (bx + j * 22, cy - 26, bx + j * 22 + 36, cy + 26))
