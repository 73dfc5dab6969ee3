"""Channel pictures in 16 colours or fewer (issue 39 item 4): written 4 bits a pixel, every colour the
picture fills an area with kept exactly, only the shades of edges merged; and the bench's picture figures."""

from __future__ import annotations

import importlib
import io
import statistics
from collections import Counter

import pytest
from PIL import Image, ImageChops

from bot.cli.bench_pictures import _encodes_caught, picture_figures, positions
from images import render
from images.registry import renderer
from tests.render_frames import game_frames

AREA = 150   # pixels of a key colour that make an area of it, not an edge's shade that happens to match


@pytest.fixture(scope="module")
def frames() -> list[tuple[str, object, tuple]]:
    return game_frames(every=25)


def _drawn_and_written(game: str, view, events) -> tuple[Image.Image, Image.Image, bytes]:
    caught: list = []
    renderer(game)
    with _encodes_caught(caught):
        data = render(game, view, events, ())
    written = Image.open(io.BytesIO(data))
    written.load()
    return caught[-1][1].convert("RGB"), written, data


def test_small_palettes_keep_every_area_colour_exact(frames):
    """Track, the Race (two racers) and Battlecars (but for a picture that draws more than 16 colours) write
    their channel pictures 4 bits a pixel; every key colour (the game's own) that fills an area of the
    drawn picture is in the written one exactly, and every block of it is near its drawn colour."""
    small = Counter()
    for game, view, events in frames:
        drawn, written, data = _drawn_and_written(game, view, events)
        palette = written.getpalette() or []
        if data[24] != 4:   # the IHDR's bit depth
            assert len(palette) > 48, game
            continue
        small[game] += 1
        entries = {tuple(palette[i:i + 3]) for i in range(0, len(palette), 3)}
        keys = set(importlib.import_module(f"images.{game}").KEY_COLOURS)
        areas = {colour for count, colour in drawn.getcolors(1 << 16) or () if count >= AREA and colour in keys}
        assert areas <= entries, (game, areas - entries)
        blocks = [picture.resize((64, 64), Image.Resampling.BOX) for picture in (drawn, written.convert("RGB"))]
        worst = max(high for _low, high in ImageChops.difference(*blocks).getextrema())
        assert worst <= 24, (game, worst)   # averaged over blocks: the words and lines read as drawn
    assert small["track"] and small["race"] and small["battlecars"], small


def test_speedways_arena_has_a_plain_wall_and_crisp_hex_labels():
    """Speedway keeps 256 colours; its arena's wall is one colour and its hex labels are drawn without
    antialiasing (their shades and the bricks were a fifth of the picture's bytes)."""
    from images import palette
    from images.speedway.arena import base_layer, frame
    from rules.speedway import data

    arena = data.arena("duel")
    layer, layout = base_layer("duel"), frame("duel").layout
    assert {colour for _count, colour in layer.crop((0, 0, layer.width, 8)).getcolors(1 << 16)} == {palette.WALL}
    for hexagon in [h for h in arena.field_hexes() if arena.is_open(h)][:20]:
        x, y = layout.center(hexagon)
        words = layer.crop((round(x) - 9, round(y) - 5, round(x) + 9, round(y) + 5))
        assert {colour for _count, colour in words.getcolors(1 << 16)} == {palette.FIELD, palette.HEX_LABEL}


def test_picture_figures_of_every_game():
    """The bench's figures: median bytes as written, and drawing and encoding CPU, for a few positions."""
    for game in ("speedway", "track", "battlecars", "race"):
        found = positions(game, 1, 3)
        figures = picture_figures(game, found)
        assert figures.pictures == len(found) == 4
        assert figures.median_bytes == statistics.median(len(render(game, *p)) for p in found)
        assert figures.render_ms > 0 and figures.encode_ms > 0
