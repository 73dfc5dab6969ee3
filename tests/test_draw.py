"""The cached text drawing of images.draw puts down exactly the pixels Pillow's own text drawing would."""

from __future__ import annotations

import random

import pytest
from PIL import Image, ImageDraw

from images import fonts
from images.draw import draw_text

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
