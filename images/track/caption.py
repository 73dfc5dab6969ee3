"""The words beside the board: whose turn (or the winner), the last card and what it did, and each
player's colour, cars home and hand SIZE (never a card in a hand)."""

from __future__ import annotations

from PIL import Image, ImageDraw

from images.captions import seat_name
from images.draw import Colour, draw_text, ellipsize, fit_font, ink_on, wrap
from images.fonts import font
from images.track import style
from rules.engine import describe_events
from rules.track.phases import TrackPhase
from rules.track.state import TrackState

TITLE = 34        # the banner's font size
LINE = 28
ROW = 84          # a seat's box


name_of = seat_name   # the caption's and the picture's words for who acts


def colour_of(state: TrackState, pid: str | None) -> Colour:
    """A player's seat colour (muted for nobody)."""
    p = state.player(pid)
    return style.seat_colour(p.seat) if p else style.MUTED


def _title(state: TrackState) -> tuple[str, Colour | None]:
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


def _banner(draw: ImageDraw.ImageDraw, state: TrackState, width: int, y: int) -> int:
    """The round and whose turn (or the result) on a band in their colour; returns the y below it."""
    pad = style.PAD
    title, colour = _title(state)
    finished = state.phase == TrackPhase.FINISHED
    banner_h = TITLE + (72 if finished else 40)
    fill = colour if colour is not None else style.BANNER
    draw.rounded_rectangle((pad, y, width - pad, y + banner_h), radius=16, fill=fill)
    title_font = fit_font(title, TITLE + (16 if finished else 0), width - 3 * pad, bold=True, minimum=20)
    draw_text(draw, (width / 2, y + banner_h / 2), ellipsize(title, title_font, width - 3 * pad), title_font,
              ink_on(fill), "mm")
    return y + banner_h + 14


def render_sidebar(state: TrackState, width: int, height: int, last: tuple = ()) -> Image.Image:
    """The column beside the board, `width` x `height` whatever it holds: whose turn (or the result),
    what the last card did, then one box per seat with its cars home and hand size."""
    pad = style.PAD
    image = Image.new("RGB", (width, height), style.PAPER)
    draw = ImageDraw.Draw(image)
    y = _banner(draw, state, width, pad)
    body = font(LINE)
    seats = len(state.board.corners)
    room = height - y - seats * (ROW + 12) - pad
    for line in wrap(_last_text(state, last), body, width - 2 * pad, max(1, room // (LINE + 8))):
        draw_text(draw, (pad, y), line, body, style.INK)
        y += LINE + 8
    players = {p.seat: p for p in state.players}
    y = height - pad - seats * (ROW + 12) + 12
    for seat in range(seats):
        _seat_box(draw, state, players.get(seat), seat, (pad, y, width - pad, y + ROW))
        y += ROW + 12
    return image


def _seat_box(draw: ImageDraw.ImageDraw, state: TrackState, player, seat: int, box) -> None:
    """One seat: its colour, name, cars finished and hand size (an empty seat says so)."""
    x0, y0, x1, y1 = box
    colour = style.seat_colour(seat)
    active = player is not None and state.active_player == player.id
    draw.rounded_rectangle(box, radius=12, fill=style.tint(colour, 0.25), outline=style.INK if active else colour,
                           width=5 if active else 3)
    cy = (y0 + y1) / 2
    draw.ellipse((x0 + 10, cy - 20, x0 + 50, cy + 20), fill=colour, outline=style.INK, width=3)
    name_font, small = font(30, True), font(24)
    if player is None:
        draw_text(draw, (x0 + 62, cy), "empty seat", small, style.MUTED, "lm")
        return
    finished = sum(1 for c in state.cars_of(player.id) if c.finished)
    size = state.hand(player.id).size if any(h.player == player.id for h in state.hands) else 0
    name = ellipsize(player.name + (" (AI)" if player.ai else ""), name_font, x1 - x0 - 80)
    draw_text(draw, (x0 + 62, cy - 16), name, name_font, style.INK, "lm")
    detail = f"{finished}/{state.board.cars_per_player} home · {size} card{'s' if size != 1 else ''} in hand"
    small = fit_font(detail, 24, x1 - x0 - 72, minimum=18)
    draw_text(draw, (x0 + 62, cy + 20), ellipsize(detail, small, x1 - x0 - 72), small, style.INK, "lm")
