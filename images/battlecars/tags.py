"""Name tags on the board: each vehicle's name and speed, each driver on foot's name and health, placed
beside its token where they cover nothing else."""

from __future__ import annotations

from PIL import ImageDraw

from images import palette as colours
from images.battlecars.style import INK, LABELS, MUTED, PAPER, TEXT, box_around, centre, overlap
from images.draw import Colour, draw_text, ellipsize
from images.fonts import font
from rules.battlecars.state import BattlecarsState, speed_label


def draw_tags(draw: ImageDraw.ImageDraw, state: BattlecarsState, cell: int, top: int, size: tuple[int, int]) -> None:
    """Each vehicle's name and speed on a tag beside its token: above it where that is clear, else below
    or to a side, so that tags cover neither each other nor other tokens where the board allows. Drawn
    straight at the picture's size, over the board (words need no antialiasing but their own)."""
    face = font(TEXT, bold=True)
    left_edge, right_edge = LABELS, LABELS + state.the_board.width * cell
    tokens = {v.id: box_around(centre(v.point, cell, top), cell * 0.42, cell * 0.42)
              for v in state.vehicles if v.point is not None}
    tokens.update({p.id: box_around(centre(p.point, cell, top), cell * 0.3, cell * 0.45) for p in state.pedestrians})
    placed: list[tuple[float, ...]] = []
    for ident, point, text, colour, muted in tag_words(state, face):
        cx, cy = centre(point, cell, top)
        w = face.getlength(text) + 12
        reach = cell * 0.62
        spots = [(cx, cy - reach), (cx, cy + reach), (cx + w / 2 + cell * 0.3, cy - reach),
                 (cx - w / 2 - cell * 0.3, cy - reach), (cx + w / 2 + cell * 0.3, cy + reach),
                 (cx - w / 2 - cell * 0.3, cy + reach)]
        others = [b for vid, b in tokens.items() if vid != ident]

        def clash(spot, w=w, others=others):
            x = min(max(spot[0], left_edge + w / 2), right_edge - w / 2)   # off the rulers
            box = box_around((x, spot[1]), w / 2, 14)
            off = box[1] < top + LABELS - 14 or box[3] > size[1]
            return (10 * sum(overlap(box, b) for b in placed) + 3 * sum(overlap(box, b) for b in others)
                    + 100 * off), box
        _score, box = min((clash(spot) for spot in spots), key=lambda scored: scored[0])
        placed.append(box)
        draw.rounded_rectangle(list(box), radius=5, fill=PAPER, outline=colour, width=2)
        draw_text(draw, ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2), text, face, MUTED if muted else INK, "mm")


def tag_words(state: BattlecarsState, face) -> list[tuple[str, tuple[int, int], str, Colour, bool]]:
    """What each tag says, and of whom: a vehicle's name and speed; a driver on foot's name and health."""
    tags = []
    for vehicle in state.vehicles:
        if vehicle.point is None:
            continue
        counter = "?" if state.face_down(vehicle.owner) else speed_label(vehicle.speed)
        text = ellipsize(vehicle.name, face, 130) + ("" if vehicle.destroyed or vehicle.driver_out
                                                        else f" · {counter}")
        tags.append((vehicle.id, vehicle.point, text, colours.car_colour(vehicle.colour),
                     vehicle.destroyed or vehicle.driver_out))
    for walker in state.pedestrians:
        owner = state.vehicle_of(walker.owner)
        colour = colours.car_colour(owner.colour) if owner else MUTED
        tags.append((walker.id, walker.point, f"{ellipsize(walker.name, face, 200)} · {walker.health}♥",
                     colour, False))
    return tags
