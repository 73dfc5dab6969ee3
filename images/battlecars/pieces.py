"""Redrawing only pieces of the board: the marks' boxes gathered into pieces, each painted over the kept
bare board at K times the size and averaged down, the same pixels as the whole board drawn at once."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw

from images.battlecars.style import K, Mark, overlap, union
from images.draw import ShiftedDraw

PIECE_COST = 6000   # what a piece costs beyond its area (cropping, averaging, pasting, its paints), in pixels


@dataclass(frozen=True)
class Piece:
    """A piece of the board to redraw: its box of whole pixels, the paints that reach into it in drawing
    order, and the box it is drawn on: the piece grown up and left over every mark that reaches into it,
    so that no drawing there starts at a negative coordinate, which Pillow rounds differently."""

    box: tuple[int, int, int, int]
    paints: list[Callable[[ImageDraw.ImageDraw], None]]
    canvas: tuple[int, int, int, int]


def pieces_of(marks: list[Mark], board_box: tuple[int, int, int, int]) -> list[Piece]:
    """The pieces of the board to redraw, each holding every paint that reaches into it (a paint once,
    where the whole picture first draws it: a trail has a box per stretch), so pieces may overlap:
    pasting one never covers another's marks with bare board. Marks' boxes are gathered into one piece
    only where that costs no more than drawing them apart (PIECE_COST), so a long trail stays a chain of
    small pieces, not its bounding rectangle."""
    boxes = [_whole_box(box, board_box) for box, _paint in marks]
    gathered: list[tuple[int, int, int, int]] = []
    for box in boxes:
        if box[0] >= box[2] or box[1] >= box[3]:
            continue
        while cheaper := next((b for b in gathered if _cheaper_together(b, box)), None):
            gathered.remove(cheaper)
            box = _whole_box(union([cheaper, box]), board_box)
        gathered.append(box)
    order = list(dict.fromkeys(paint for _box, paint in marks))   # as the whole picture draws them
    pieces = []
    for piece in gathered:
        reaching = [(box, paint) for box, (_mark, paint) in zip(boxes, marks) if overlap(box, piece)]
        if reaching:
            canvas = _whole_box(union([piece] + [box for box, _paint in reaching]), board_box)
            paints = {paint for _box, paint in reaching}
            pieces.append(Piece(piece, [paint for paint in order if paint in paints],
                                (canvas[0], canvas[1], piece[2], piece[3])))
    return pieces


def _cheaper_together(a: Sequence[float], b: Sequence[float]) -> bool:
    """Whether one piece covering boxes `a` and `b` costs no more than a piece each."""
    return _area(union([a, b])) <= _area(a) + _area(b) + PIECE_COST


def _area(box: Sequence[float]) -> float:
    return (box[2] - box[0]) * (box[3] - box[1])


def _whole_box(box: Sequence[float], within: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    """`box` grown to whole pixels, kept within `within`."""
    return (max(within[0], math.floor(box[0])), max(within[1], math.floor(box[1])),
            min(within[2], math.ceil(box[2])), min(within[3], math.ceil(box[3])))


def redrawn(large: Image.Image, piece: Piece) -> Image.Image:
    """The piece of the picture, painted over the piece's canvas of `large` (the bare board at K times
    the size): drawn at K times the size in the whole picture's coordinates, then averaged down (the
    canvas lies on whole K x K blocks, so it matches the whole picture drawn at once) and cut to the
    piece."""
    x0, y0, x1, y1 = piece.canvas
    canvas = large.crop((K * x0, K * y0, K * x1, K * y1))
    draw = ShiftedDraw(canvas, (K * x0, K * y0))
    for paint in piece.paints:
        paint(draw)
    small = canvas.reduce(K)   # a box average of each K x K: the antialiasing, at a fraction of LANCZOS's cost
    bx0, by0, bx1, by1 = piece.box
    return small if (bx0, by0) == (x0, y0) else small.crop((bx0 - x0, by0 - y0, bx1 - x0, by1 - y0))
