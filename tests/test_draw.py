"""The cached text drawing of images.draw puts down exactly the pixels Pillow's own text drawing would, and
its banded overlay draws what one whole box would."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image, ImageChops, ImageDraw

from images import fonts
from images.draw import LONG_LINE, ShiftedDraw, draw_text, smooth_band, smooth_overlay, stamp_masks, star

TEXTS = ["", " ", "Speed 3", "alice: normal ✓", "Round 10, bob: fire", "W", "g…", "→ 12 ½"]
ANCHORS = ["la", "lm", "mm", "rs", "md", "ls", "rb", "mt"]


@pytest.mark.parametrize(("mode", "background"), [("RGB", (240, 230, 200)), ("RGBA", (10, 20, 30, 128)),
                                                  ("RGBA", (0, 0, 0, 0)), ("L", 90)])
def test_draw_text_matches_pillow_at_the_whole_pixel(mode, background):
    rng = random.Random(mode + str(background))
    for _ in range(60):
        text, anchor = rng.choice(TEXTS) + rng.choice(TEXTS), rng.choice(ANCHORS)
        font = fonts.font(rng.randint(8, 40), bold=rng.random() < 0.5)
        xy = (rng.uniform(-5, 120), rng.uniform(-5, 60))
        fill = rng.randrange(256) if mode == "L" else tuple(rng.randrange(256) for _ in range(len(mode)))
        ours, pillows = Image.new(mode, (160, 80), background), Image.new(mode, (160, 80), background)
        draw_text(ImageDraw.Draw(ours), xy, text, font, fill, anchor)
        draw_text(ImageDraw.Draw(ours), xy, text, font, fill, anchor)  # again, from the cache
        pen = ImageDraw.Draw(pillows)
        for _twice in range(2):
            pen.text((int(xy[0]), int(xy[1])), text, font=font, fill=fill, anchor=anchor)
        assert ours.tobytes() == pillows.tobytes(), (text, anchor, xy, fill)


def _shot(a, b):
    """A shot as the map draws one: a wide dark line, a coloured one inside it, a burst at the end."""
    def paint(draw, to_px, scale):
        p, q = to_px(a), to_px(b)
        draw.line([p, q], fill=(0, 0, 0), width=round(11 * scale))
        draw.line([p, q], fill=(213, 94, 0), width=round(6 * scale))
        draw.polygon(star(q, 20 * scale, 11 * scale, 10, 0.3), fill=(255, 220, 0), outline=(0, 0, 0),
                     width=round(3 * scale))
    return paint


@pytest.mark.parametrize(("a", "b"), [((40.5, 60.2), (560.1, 380.7)), ((580.0, 20.3), (30.7, 390.2)),
                                      ((300.2, 10.1), (320.9, 400.4)), ((40.5, 60.2), (300.3, 120.9)),
                                      ((100.0, 50.0), (180.0, 140.0))])
def test_a_banded_overlay_draws_what_the_whole_box_draws(a, b):
    """Strip by strip (long slanted shots) or in one box (short or level ones), every painted pixel is
    painted, nothing more; along slanted edges the antialiasing may differ by a subpixel's shade."""
    paper = (236, 230, 214)
    whole, banded = Image.new("RGB", (620, 410), paper), Image.new("RGB", (620, 410), paper)
    box = (math.floor(min(a[0], b[0]) - 28), math.floor(min(a[1], b[1]) - 28),
           math.ceil(max(a[0], b[0]) + 28), math.ceil(max(a[1], b[1]) + 28))
    smooth_overlay(whole, box, _shot(a, b))
    smooth_band(banded, a, b, 28, _shot(a, b))
    blank = Image.new("RGB", whole.size, paper)
    painted = [bytes(ImageChops.difference(picture, blank).convert("L").point(lambda v: 255 if v else 0).tobytes())
               for picture in (whole, banded)]
    difference = ImageChops.difference(whole, banded).convert("L").tobytes()
    assert painted[0] == painted[1] or sum(x != y for x, y in zip(*painted)) < 0.05 * painted[0].count(255)
    assert max(difference) <= 128    # a missing piece of ink on paper would differ by ~200
    assert sum(difference) / painted[0].count(255) < 16    # on average a shade of a few levels


@pytest.mark.parametrize("anchor", ["la", "lm", "ls"])
def test_a_long_line_put_down_word_by_word_reads_as_pillow_draws_it(anchor):
    """Lines of LONG_LINE characters or more are drawn from cached word masks: the same words, each
    within a pixel of where Pillow puts it, the same ink."""
    text = "Robo1 fires .50-Cal Machine Gun (Left) at Robo2, range 2. Robo1 rolls to hit: 3 d6 [6] [5] [4] + 2 = 17"
    assert len(text) >= LONG_LINE
    for size, bold in ((22, False), (24, True)):
        font = fonts.font(size, bold)
        ours, pillows = Image.new("L", (1200, 60)), Image.new("L", (1200, 60))
        draw_text(ImageDraw.Draw(ours), (5, 30), text, font, 255, anchor)
        ImageDraw.Draw(pillows).text((5, 30), text, font=font, fill=255, anchor=anchor)
        assert all(abs(a - b) <= 1 for a, b in zip(ours.getbbox(), pillows.getbbox()))
        ink = [sum(picture.tobytes()) for picture in (ours, pillows)]
        assert abs(ink[0] - ink[1]) < 0.02 * ink[1]
        columns = [[any(picture.crop((x, 0, x + 1, 60)).tobytes()) for x in range(1200)] for picture in (ours, pillows)]
        assert sum(a != b for a, b in zip(*columns)) < 0.05 * sum(columns[1])   # the same gaps between words


@settings(max_examples=60, deadline=None)
@given(origin=st.tuples(st.just(0), st.integers(0, 60)),
       shapes=st.lists(st.tuples(st.sampled_from(["rectangle", "rounded_rectangle", "ellipse", "line", "polygon",
                                                  "text"]),
                                 st.lists(st.integers(0, 140), min_size=6, max_size=6)), min_size=1, max_size=6))
def test_a_shifted_draw_paints_a_piece_as_the_whole_picture_has_it(origin, shapes):
    """Drawing on a piece of a picture in the whole picture's coordinates (ShiftedDraw) gives exactly that
    piece of the picture drawn whole, Pillow's shapes made of other shapes included (a rounded rectangle's
    corners, a curved line's joints), for shapes that do not start above the piece. The piece here is a band
    of whole rows. A shape reaching above the piece lies at negative rows there, which Pillow may round the
    other way (hypothesis found a wide line whose edge moved a pixel); moved sideways, a polygon edge crossing
    a row exactly half a pixel from a pixel's middle may too. So Battlecars draws each piece on a canvas grown
    up and left over every mark that reaches it, and checks its pieces against the whole picture at every
    action of a game."""
    top = origin[1] + 12   # below the piece's top by more than the widest outline or half a text's height
    whole = Image.new("RGB", (160, 240), "white")
    piece = Image.new("RGB", (80, 160), "white")
    for draw in (ImageDraw.Draw(whole), ShiftedDraw(piece, origin)):
        for kind, (a, b, c, d, e, f) in shapes:
            b, d, y = b + top, d + top, f + top
            box = [min(a, c), min(b, d), max(a, c), max(b, d)]
            if kind == "rounded_rectangle":
                draw.rounded_rectangle(box, radius=e % 12, fill="red", outline="black", width=1 + f % 4)
            elif kind == "rectangle" or kind == "ellipse":
                getattr(draw, kind)(box, fill="blue", outline="black", width=1 + f % 3)
            elif kind == "line":
                draw.line([(a, b), (c, d), (e, y)], fill="green", width=1 + f % 7, joint="curve")
            elif kind == "polygon":
                draw.polygon([(a, b), (c, d), (e, y)], fill="black", outline="blue")
            else:
                draw_text(draw, (a, b), "Ab 12", fonts.font(10 + e % 10), "black", "mm")
    window = whole.crop((origin[0], origin[1], origin[0] + 80, origin[1] + 160))
    assert ImageChops.difference(window, piece).getbbox() is None


@pytest.mark.parametrize("mode", ["RGB", "RGBA", "L", "P"])
@pytest.mark.parametrize("fill", ["tuple", "named", "default"])
@pytest.mark.parametrize("origin", [(0, 0), (0, 17), (6, 11)])
def test_masks_stamped_together_are_pillows_bitmaps_one_by_one(mode, fill, origin):
    """stamp_masks (how draw_text puts its words down) gives the pixels of ImageDraw.bitmap called for each
    mask in turn: overlapping masks blend in the same order, a palette picture gains the same entries, a
    ShiftedDraw's shift applies, and a fill of None is Pillow's default ink."""
    rng = random.Random(f"{mode}{fill}{origin}")
    masks = []
    for _ in range(12):
        mask = Image.new("L", (rng.randint(1, 30), rng.randint(1, 20)))
        mask.putdata([rng.choice((0, 0, 40, 128, 255)) for _ in range(mask.width * mask.height)])
        masks.append((mask, (rng.randint(-10, 90), rng.randint(origin[1] - 8, origin[1] + 50))))
    colour = {"tuple": 90 if mode == "L" else (200, 30, 60, 255)[:len(mode) if mode != "P" else 3],
              "named": "crimson", "default": None}[fill]
    blank = Image.new(mode, (100, 50), 7 if mode in ("L", "P") else (240, 230, 200, 255)[:len(mode)])
    if mode == "P":
        blank.putpalette([value for index in range(8) for value in (index * 30, 255 - index * 30, 90)])
    pictures = []
    for stamp in (True, False):
        picture = blank.copy()
        draw = ShiftedDraw(picture, origin)
        if stamp:
            stamp_masks(draw, masks, colour)
        else:
            for mask, at in masks:
                draw.bitmap(at, mask, fill=colour)
        pictures.append(picture)
    assert pictures[0].tobytes() == pictures[1].tobytes()
    assert pictures[0].getpalette() == pictures[1].getpalette()
    assert pictures[0].tobytes() != blank.tobytes()   # something was drawn
