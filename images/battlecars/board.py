"""The board: the bare board (terrain, movement lines, grid labels) drawn once per board and kept, and
the page with what stands and happened on it redrawn over it piece by piece."""

from __future__ import annotations

from functools import lru_cache

from PIL import Image, ImageDraw

from images.battlecars.marks import (
    counter_marks,
    draw_pedestrian,
    draw_token,
    last_turn_marks,
    plan_end_marks,
    scenery_marks,
    trail_marks,
)
from images.battlecars.pieces import Piece, pieces_of, redrawn
from images.battlecars.style import (
    BUILDING,
    GROUND,
    HEADER,
    INK,
    LABELS,
    LINE,
    PAPER,
    SIDEBAR,
    TEXT,
    TREES,
    K,
    Mark,
    box_around,
    cell_size,
    centre,
    page_size,
)
from images.draw import draw_text
from images.fonts import font
from rules.battlecars import data
from rules.battlecars.state import BattlecarsState, Phase


def draw_board(draw: ImageDraw.ImageDraw, board: data.Board, cell: int, top: int) -> None:
    """Terrain tiles, the movement lines between points (diagonals fainter), labels on all four sides."""
    for y in range(board.height):
        for x in range(board.width):
            cx, cy = centre((x, y), cell, top)
            ground = board.terrain((x, y))
            box = [K * (cx - cell / 2), K * (cy - cell / 2), K * (cx + cell / 2), K * (cy + cell / 2)]
            draw.rectangle(box, fill=GROUND[ground])
            if ground == "building":
                draw.rectangle([box[0] + K * 2, box[1] + K * 2, box[2] - K * 2, box[3] - K * 2], fill=BUILDING,
                               outline=INK, width=K)
            if ground == "trees":
                for dx, dy in ((-0.2, -0.15), (0.2, -0.1), (0, 0.2)):
                    r = cell * 0.24
                    draw.ellipse([K * (cx + dx * cell - r), K * (cy + dy * cell - r), K * (cx + dx * cell + r),
                                  K * (cy + dy * cell + r)], fill=TREES, outline=(40, 90, 35), width=K)
    for y in range(board.height):
        for x in range(board.width):
            a = centre((x, y), cell, top)
            for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
                ends = (board.terrain((x, y)), board.terrain((x + dx, y + dy)))
                if board.inside((x + dx, y + dy)) and "building" not in ends:
                    b = centre((x + dx, y + dy), cell, top)
                    width = K if dx and dy else 2 * K
                    draw.line([K * a[0], K * a[1], K * b[0], K * b[1]], fill=LINE, width=width)
            draw.ellipse([K * (a[0] - 3), K * (a[1] - 3), K * (a[0] + 3), K * (a[1] + 3)], fill=LINE)
    big = font(K * TEXT, bold=True)
    bottom = top + LABELS + board.height * cell
    for x in range(board.width):
        cx = centre((x, 0), cell, top)[0]
        for label_y in (top + LABELS / 2, bottom + LABELS / 2):
            draw_text(draw, (K * cx, K * label_y), chr(ord("A") + x), big, INK, "mm")
    right = LABELS + board.width * cell
    for y in range(board.height):
        cy = centre((0, y), cell, top)[1]
        for label_x in (LABELS / 2, right + LABELS / 2):
            draw_text(draw, (K * label_x, K * cy), str(y + 1), big, INK, "mm")


def board_image(state: BattlecarsState, last: tuple = (), turn: tuple = (), whole: bool = False,
                words: bool = True, plan: bool = False) -> Image.Image:
    """The page with the board and what stands and happened on it (no tags, header or chips yet): the
    kept bare board, with only the pieces where something is redrawn (all of it when `whole`). Without
    `words`, the tokens leave out their type's letter (a close-up names them itself). A `plan`'s path
    (`last`) ends in a ghost of its vehicle."""
    board = state.the_board
    width, height = page_size(board)
    image = bare(board).copy()
    marks = marks_of(state, last, turn, words)
    if plan:
        marks += plan_end_marks(state, last, cell_size(board), HEADER)
    board_box = (0, HEADER, width - SIDEBAR, height)
    pieces = [Piece(board_box, list(dict.fromkeys(paint for _box, paint in marks)), board_box)] if whole \
        else pieces_of(marks, board_box)
    for piece in pieces:
        image.paste(redrawn(bare_large(board), piece), piece.box[:2])
    return image


def marks_of(state: BattlecarsState, last: tuple, turn: tuple, words: bool = True) -> list[Mark]:
    """What stands on the board and what just happened there, in the order it is drawn over the bare
    board, each with the box its drawing keeps within."""
    board = state.the_board
    cell, top = cell_size(board), HEADER
    marks = scenery_marks(state, cell, top) + trail_marks(state, turn, cell, top) \
        + counter_marks(state, cell, top) + last_turn_marks(state, last, cell, top)
    for vehicle in state.vehicles:
        if vehicle.point is not None:
            acting = state.active == vehicle.owner and state.phase == Phase.MOVE and not vehicle.driver_out

            def token(draw: ImageDraw.ImageDraw, vehicle=vehicle, acting=acting) -> None:
                draw_token(draw, vehicle, cell, top, acting, words)
            marks.append((box_around(centre(vehicle.point, cell, top), cell * 0.5 + 4, cell * 0.5 + 4), token))
    for walker in state.pedestrians:
        def figure(draw: ImageDraw.ImageDraw, walker=walker) -> None:
            draw_pedestrian(draw, state, walker, cell, top)
        marks.append((box_around(centre(walker.point, cell, top), cell * 0.5, cell * 0.5), figure))
    return marks


@lru_cache(maxsize=4)
def bare_large(board: data.Board) -> Image.Image:
    """The board with nothing on it, at K times the picture's size: terrain, movement lines, labels."""
    width, height = page_size(board)
    image = Image.new("RGB", (K * width, K * height), PAPER)
    draw_board(ImageDraw.Draw(image), board, cell_size(board), HEADER)
    return image


@lru_cache(maxsize=4)
def bare(board: data.Board) -> Image.Image:
    """The board with nothing on it, at the picture's size."""
    return bare_large(board).reduce(K)
