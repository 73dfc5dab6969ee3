"""Battlecars' sizes in pixels, its ground colours, and where a point of the board is drawn."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PIL import ImageDraw

from images import palette as colours
from images.draw import mix
from rules.battlecars import data

K = 2                 # drawn at twice the size, then shrunk once (antialiasing)
LABELS = 26           # the band of grid letters and numbers round the board
HEADER = 96           # title and the last action's words
SIDEBAR = 344
CHIP = 118            # four lines: the driver's name, the mat's name, speed and armour, components
CHIP_INSET = 26       # a chip's width less its words' width (the colour bar and the margins)
TEXT = 23             # the smallest words: shown 420 px wide (a phone) they stay above 9 px
TITLE = 29            # a chip's driver's name: 11 px on a 420 px phone
PAPER, INK, MUTED = colours.PAPER, colours.INK, colours.MUTED
ROAD = (205, 200, 190)
GRASS = (170, 204, 140)
BUILDING = (96, 80, 70)
TREES = (70, 130, 60)
LINE = (150, 145, 135)
PATH = colours.car_colour(4)
TRAILS = tuple(mix(c, ROAD, 0.55) for c in colours.CAR_COLOURS)   # a vehicle's recent path, faint
Mark = tuple[tuple[float, ...], Callable[[ImageDraw.ImageDraw], None]]   # its box, its paint
GROUND = {"road": ROAD, "grass": GRASS, "building": BUILDING, "trees": GRASS}


def cell_size(board: data.Board) -> int:
    """Pixels between points: 13 x 9 boards get 52, the joined 17 x 13 board 39."""
    return 52 if board.width <= 13 else 39


def page_size(board: data.Board) -> tuple[int, int]:
    """The picture's size for a board: the same all game, room for a chip per seat the board takes."""
    cell = cell_size(board)
    table = data.table()
    seats = table["max_players"] if board.width > 13 else table["big_board_from"] - 1
    width = board.width * cell + 2 * LABELS + SIDEBAR
    height = max(HEADER + board.height * cell + 2 * LABELS, HEADER + seats * (CHIP + 6))
    return width, height


def centre(point, cell: int, top: int) -> tuple[float, float]:
    return LABELS + (point[0] + 0.5) * cell, top + LABELS + (point[1] + 0.5) * cell


def box_around(centre: tuple[float, float], half_w: float, half_h: float) -> tuple[float, ...]:
    return centre[0] - half_w, centre[1] - half_h, centre[0] + half_w, centre[1] + half_h


def overlap(a: Sequence[float], b: Sequence[float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def union(boxes: list) -> tuple[float, ...]:
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))
