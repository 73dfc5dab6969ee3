"""The words beside the board: whose turn (or the winner), the last card and what it did, and each
player's colour, cars home and hand SIZE (never a card in a hand)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PIL import Image, ImageDraw

from images.bands import Drawer, Part, draw_whole
from images.captions import seat_name
from images.draw import Colour, ShiftedDraw, draw_text, ellipsize, fit_font, ink_on, wrap
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


BannerLook = tuple[int, str, Colour | None, bool]   # (the band's top, the title, its colour, the game is over)
LinesLook = tuple[int, tuple[str, ...]]             # (the band's top, the last card's lines)
Seated = tuple[str, bool, bool, int, int, int]      # name, a computer, whose turn, cars home, of how many, hand size
SeatLook = tuple[int, int, Seated | None]           # (the band's top, the seat, who sits there: _seated)
SEAT_GAP = 12     # rows between two seats' boxes: half of it is each box's band


def _banner_height(finished: bool) -> int:
    return TITLE + (72 if finished else 40)


def _draw_banner(draw: ImageDraw.ImageDraw, look: BannerLook, width: int) -> None:
    """The round and whose turn (or the result) on a band in their colour, below the band's top."""
    pad = style.PAD
    top, title, colour, finished = look
    y = top + pad
    banner_h = _banner_height(finished)
    fill = colour if colour is not None else style.BANNER
    draw.rounded_rectangle((pad, y, width - pad, y + banner_h), radius=16, fill=fill)
    title_font = fit_font(title, TITLE + (16 if finished else 0), width - 3 * pad, bold=True, minimum=20)
    draw_text(draw, (width / 2, y + banner_h / 2), ellipsize(title, title_font, width - 3 * pad), title_font,
              ink_on(fill), "mm")


def _draw_lines(draw: ImageDraw.ImageDraw, look: LinesLook, width: int) -> None:
    """What the last card did, a line under another from the band's top."""
    y, lines = look
    body = font(LINE)
    for line in lines:   # said once, and short in this column: word by word, each word's mask reused (draw_text)
        draw_text(draw, (style.PAD, y), line, body, style.INK, by_word=True)
        y += LINE + 8


def _draw_seat(draw: ImageDraw.ImageDraw, look: SeatLook, width: int) -> None:
    top, seat, seated = look
    y = top + SEAT_GAP // 2
    _seat_box(draw, seat, seated, (style.PAD, y, width - style.PAD, y + ROW))


def _band_drawer(draw_look: Callable[[ImageDraw.ImageDraw, Any, int], None]) -> Drawer:
    """A band's drawer (images.bands: drawer(image, look, top)) from `draw_look(draw, look, width)`, which
    draws the look in the sidebar's own rows (a look starts with its band's top)."""
    def drawer(image: Image.Image, look: Any, top: int) -> None:
        draw_look(ShiftedDraw(image, (0, look[0] - top)), look, image.width)
    return drawer


BANNER_BAND, LINES_BAND, SEAT_BAND = (_band_drawer(d) for d in (_draw_banner, _draw_lines, _draw_seat))


def _seated(state: TrackState, player) -> Seated | None:
    """What a seat's box shows of who sits there: name, computer or not, whose turn, cars home, hand size."""
    if player is None:
        return None
    finished = sum(1 for c in state.cars_of(player.id) if c.finished)
    size = state.hand(player.id).size if any(h.player == player.id for h in state.hands) else 0
    return (player.name, player.ai, state.active_player == player.id, finished, state.board.cars_per_player, size)


def sidebar_parts(state: TrackState, width: int, height: int, last: tuple = ()) -> list[tuple[Part, int]]:
    """The sidebar's bands (images.bands), each with the row it starts at: the banner, the last card's
    lines (what a move always changes), and a band per seat."""
    pad = style.PAD
    title, colour = _title(state)
    finished = state.phase == TrackPhase.FINISHED
    lines_top = pad + _banner_height(finished) + 14
    seats = len(state.board.corners)
    room = height - lines_top - seats * (ROW + SEAT_GAP) - pad
    lines = tuple(wrap(_last_text(state, last), font(LINE), width - 2 * pad, max(1, room // (LINE + 8))))
    seats_top = height - pad - seats * (ROW + SEAT_GAP) + SEAT_GAP // 2
    players = {p.seat: p for p in state.players}
    parts: list[tuple[Part, int]] = [((BANNER_BAND, lines_top, (0, title, colour, finished)), 0),
                                     ((LINES_BAND, seats_top - lines_top, (lines_top, lines)), lines_top)]
    for seat in range(seats):
        top = seats_top + seat * (ROW + SEAT_GAP)
        parts.append(((SEAT_BAND, ROW + SEAT_GAP, (top, seat, _seated(state, players.get(seat)))), top))
    return parts


def render_sidebar(state: TrackState, width: int, height: int, last: tuple = ()) -> Image.Image:
    """The column beside the board, `width` x `height` whatever it holds: whose turn (or the result),
    what the last card did, then one box per seat with its cars home and hand size; every band
    (sidebar_parts) drawn on the one picture."""
    return draw_whole(Image.new("RGB", (width, height), style.PAPER), sidebar_parts(state, width, height, last))


def _seat_box(draw: ImageDraw.ImageDraw, seat: int, seated: Seated | None, box) -> None:
    """One seat: its colour, name, cars finished and hand size (an empty seat says so)."""
    x0, y0, x1, y1 = box
    colour = style.seat_colour(seat)
    active = seated is not None and seated[2]
    draw.rounded_rectangle(box, radius=12, fill=style.tint(colour, 0.25), outline=style.INK if active else colour,
                           width=5 if active else 3)
    cy = (y0 + y1) / 2
    draw.ellipse((x0 + 10, cy - 20, x0 + 50, cy + 20), fill=colour, outline=style.INK, width=3)
    name_font, small = font(30, True), font(24)
    if seated is None:
        draw_text(draw, (x0 + 62, cy), "empty seat", small, style.MUTED, "lm")
        return
    player_name, ai, _active, finished, cars, size = seated
    name = ellipsize(player_name + (" (AI)" if ai else ""), name_font, x1 - x0 - 80)
    draw_text(draw, (x0 + 62, cy - 16), name, name_font, style.INK, "lm")
    detail = f"{finished}/{cars} home · {size} card{'s' if size != 1 else ''} in hand"
    small = fit_font(detail, 24, x1 - x0 - 72, minimum=18)
    draw_text(draw, (x0 + 62, cy + 20), ellipsize(detail, small, x1 - x0 - 72), small, style.INK, "lm")
