"""The race's close-up for a phone: the lead pack on the section under way, each racer named with its speed.

The lead pack is the leader (first in the move order) and the racers whose speed is within PACK km/h
of the leader's, at most PACK_SIZE of them; a close-up for a racer's own player also holds that racer.
In the lobby and once the race is over, it shows the course's end (the last section, the flag and the
laps). No side of it cuts a word of the band (a section's name, the laps).
"""

from __future__ import annotations

from PIL import Image

from images.closeup import LEGIBLE, PHONE, Box, Closeup, Spot, around, closeup, crop_box
from images.palette import PAPER, car_colour
from images.race.course import (
    HEIGHT,
    ROAD_BOTTOM,
    ROAD_TOP,
    TOKEN,
    current_index,
    draw_course,
    spans,
    token_spots,
    words_along,
)
from rules.race.state import Racer, RaceState

PACK = 100        # km/h behind the leader's speed still in the lead pack
PACK_SIZE = 4
CAPTION_TEXT = 20  # the course band's smallest words: the tokens' places (section names and hints are 24)
WIDEST = CAPTION_TEXT * PHONE / LEGIBLE - 1   # the widest piece of the band whose words stay LEGIBLE, px


def lead_pack(state: RaceState, focus: str | None = None) -> tuple[Racer, ...]:
    """The leader and the racers near its speed (and the reader's own racer), in the move order."""
    racing = state.racing()
    if not racing:
        return ()
    leader = racing[0]
    pack = [r for r in racing if leader.speed - r.speed <= PACK][:PACK_SIZE]
    own = [r for r in racing if focus is not None and r.owner == focus and r not in pack]
    return tuple(pack + own)


def render_closeup_image(state: RaceState, focus: str | None, width: int) -> Closeup:
    """The close-up of a public view: the course band (`width` px, as the picture's) cropped round the
    lead pack, drawn larger, each racer named on a tag with its speed."""
    band = Image.new("RGB", (width, HEIGHT), PAPER)
    draw_course(band, 0, state)
    tokens = token_spots(state)
    pack = {r.id for r in lead_pack(state, focus)}
    points = [(x, y) for racer, x, y in tokens if racer.id in pack] or [(width - 60.0, (ROAD_TOP + ROAD_BOTTOM) / 2)]
    if not tokens:   # the lobby, or the race over: the last section whole, the flag and the laps
        points = [(spans(len(state.the_track.sections), None)[-1][0], ROAD_TOP), (float(width), ROAD_BOTTOM)]
    must = around(points, TOKEN * 2)
    bottom = ROAD_BOTTOM + 14   # the sections' names above the road too; the hint below left out
    crop = crop_box((must[0], 0, must[2], bottom), (0, 0, width, bottom), (260, bottom))
    crop = whole_words(crop, must, words_along(state.the_track, current_index(state), width), width)
    spots = [Spot(racer.id, x, y, f"{racer.name} · {racer.speed}", car_colour(racer.colour), TOKEN)
             for racer, x, y in tokens]
    return closeup(band, crop, spots, map_text=CAPTION_TEXT)


def whole_words(crop: Box, must: Box, words: list[tuple[float, float]], width: int) -> Box:
    """`crop` with neither side cutting a word of the band (`words`: the x each spans): a side is moved out
    to take the word whole while the crop stays within WIDEST, else in to leave it out (never into `must`)."""
    left, top, right, bottom = crop
    for x0, x1 in words:
        if x0 < left < x1:
            left = x0 - 4 if right - x0 + 4 <= WIDEST else x1 + 2 if x1 + 2 <= must[0] else left
        if x0 < right < x1:
            right = x1 + 4 if x1 + 4 - left <= WIDEST else x0 - 2 if x0 - 2 >= must[2] else right
    return max(0.0, left), top, min(float(width), right), bottom
