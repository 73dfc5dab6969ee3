"""Playing cards as pictures: a face-up card (rank and suit pips) and a card back."""

from __future__ import annotations

from PIL import ImageDraw

from images.draw import draw_text, fit_font
from images.fonts import font
from images.track import style

SUIT_SIGNS = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}


def split(card: str) -> tuple[str, str]:
    """'10H' -> ('10', 'H'); 'JK' -> ('JK', '')."""
    if card == "JK":
        return "JK", ""
    return card[:-1], card[-1:]


def face(draw: ImageDraw.ImageDraw, box, card: str, k: float = 1) -> None:
    """A face-up card filling `box` (x0, y0, x1, y1): big rank and suit, red for hearts and diamonds."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    draw.rounded_rectangle(box, radius=w * 0.09, fill=style.PAPER, outline=style.INK, width=round(3 * k))
    rank, suit = split(card)
    if rank == "JK":
        ink = style.CARD_RED
        draw_text(draw, ((x0 + x1) / 2, y0 + h * 0.40), "\u2605", font(round(h * 0.40), True), ink, "mm")
        draw_text(draw, ((x0 + x1) / 2, y0 + h * 0.80), "JOKER", fit_font("JOKER", round(h * 0.17), w * 0.86, True),
                  ink, "mm")
        return
    ink = style.CARD_RED if suit in ("H", "D") else style.INK
    sign = SUIT_SIGNS.get(suit, suit)
    corner = font(round(h * 0.16), True)
    draw_text(draw, (x0 + w * 0.09, y0 + h * 0.05), rank, corner, ink, "la")
    draw_text(draw, (x0 + w * 0.09, y0 + h * 0.22), sign, font(round(h * 0.13), True), ink, "la")
    draw_text(draw, (x1 - w * 0.09, y1 - h * 0.05), rank, corner, ink, "rd")
    big = fit_font(rank, round(h * 0.40), w * 0.62, True)
    draw_text(draw, ((x0 + x1) / 2, y0 + h * 0.46), rank, big, ink, "mm")
    draw_text(draw, ((x0 + x1) / 2, y0 + h * 0.76), sign, font(round(h * 0.22), True), ink, "mm")


def back(draw: ImageDraw.ImageDraw, box, k: float = 1) -> None:
    """A face-down card: a plain patterned back (nothing about the card shows)."""
    x0, y0, x1, y1 = box
    w = x1 - x0
    draw.rounded_rectangle(box, radius=w * 0.09, fill=style.PAPER, outline=style.INK, width=round(2 * k))
    inset = w * 0.08
    draw.rounded_rectangle((x0 + inset, y0 + inset, x1 - inset, y1 - inset), radius=w * 0.06,
                           fill=style.CARD_BACK)
