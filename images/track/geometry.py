"""Where every spot of the reconstructed board sits on the 10x10 square drawing (rules-gaps 3.2.1).

Cells are (row, column), row 0 at the top. The ring runs clockwise: seat 1's corner (hole 0) is the
bottom-left cell, seat 2's corner (hole 18) the top-right one. Seat 1's white dot W and finish lane
F1..F5 climb the second column from the bottom; its pits sit in row 2 beside its start (hole 8). Seat 2's
lane and pits are the 180-degree rotation.
"""

from __future__ import annotations

from images.track.style import CELL, MARGIN
from rules.track.state import LANE, RING, Board, Car

Cell = tuple[int, int]


def side(board: Board) -> int:
    """Cells along one side of the square (10 for the 36-hole ring)."""
    return board.ring_holes // 4 + 1


def ring_cell(board: Board, hole: int) -> Cell:
    """The cell of ring hole `hole` (hole 0 bottom-left, then up the left side, clockwise)."""
    last = side(board) - 1
    h = (hole - board.corners[0]) % board.ring_holes
    if h <= last:
        return (last - h, 0)
    if h <= 2 * last:
        return (0, h - last)
    if h <= 3 * last:
        return (h - 2 * last, last)
    return (last, last - (h - 3 * last))


def _rotate(board: Board, cell: Cell, seat: int) -> Cell:
    last = side(board) - 1
    r, c = cell
    return (last - r, last - c) if seat % 2 else (r, c)


def lane_cell(board: Board, seat: int, spot: int) -> Cell:
    """W (spot 0) and F1..F5 (spots 1..5) of seat `seat`."""
    last = side(board) - 1
    return _rotate(board, (last - 1 - spot, 1), seat)


def pit_cell(board: Board, seat: int, slot: int) -> Cell:
    """Pit slot 0..4 of seat `seat` (car c1 parks in slot 0)."""
    return _rotate(board, (2, 2 + slot), seat)


def centre(cell: Cell, top: float = 0) -> tuple[float, float]:
    """Pixel centre of a cell on the final page (before the drawing scale), board top at `top`."""
    r, c = cell
    return (MARGIN + c * CELL + CELL / 2, top + MARGIN + r * CELL + CELL / 2)


def car_cell(board: Board, seat: int, car: Car) -> Cell:
    """Where a car is drawn: its ring hole, lane spot or its own pit slot."""
    if car.where == RING:
        return ring_cell(board, car.spot)
    if car.where == LANE:
        return lane_cell(board, seat, car.spot)
    return pit_cell(board, seat, car_slot(car.id))


def car_slot(car_id: str) -> int:
    """'c3' -> pit slot 2."""
    try:
        return max(0, int(car_id.lstrip("c")) - 1)
    except ValueError:
        return 0


def spot_cell(board: Board, seat: int, where: str, spot: int, car_id: str) -> Cell:
    """The cell of a (where, spot) pair as CarMove stores them."""
    return car_cell(board, seat, Car("", car_id, where, spot))


def trail_cell(board: Board, seat: int, step: int) -> Cell:
    """A CarMove path entry: a ring hole, or ring_holes + lane spot."""
    if step >= board.ring_holes:
        return lane_cell(board, seat, step - board.ring_holes)
    return ring_cell(board, step)

