"""Pictures deflated strip by strip (images.png, issue 39 items 2-3): the same pixels as one stream, the
same bytes whether the strips' cache holds them or not, and a cache bounded by bytes."""

from __future__ import annotations

import io
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from bot.cli.bench_pictures import _encodes_caught
from images import png, render
from images.registry import renderer
from tests.render_frames import game_frames


def _idat(data: bytes) -> bytes:
    at, found = len(png.SIGNATURE), b""
    while at < len(data):
        length = int.from_bytes(data[at:at + 4], "big")
        if data[at + 4:at + 8] == b"IDAT":
            found += data[at + 8:at + 8 + length]
        at += 12 + length
    return found


def _pixels(data: bytes) -> tuple:
    image = Image.open(io.BytesIO(data))
    image.load()
    return image.mode, image.size, image.convert("RGB").tobytes()


@pytest.fixture(scope="module")
def drawn() -> list[tuple[str, Image.Image, dict]]:
    """(game, the picture a channel move drew, to_png's options) for a few positions of every game."""
    found = []
    for game, view, events in game_frames(every=40):
        caught: list = []
        renderer(game)
        with _encodes_caught(caught):
            render(game, view, events, ())
        found.append((game, caught[-1][1], caught[-1][2]["kwargs"]))
    return found


def _options(options: dict, strips: bool) -> dict:
    return {**options, "level": options.get("level") or 5, "strips": strips}


def test_every_games_pictures_are_the_same_pixels_in_strips_found_or_not(drawn):
    """Each game's channel picture, deflated in strips, decodes to the pixels of the one-stream file (its
    zlib stream checks out, adler32 included); a strip cache miss and a hit give the same file, and so
    does a cache that other pictures filled."""
    from images.draw import to_png

    assert {game for game, _, _ in drawn} == {"speedway", "track", "battlecars", "race"}
    alone = []
    for game, image, options in drawn:
        whole = to_png(image, **_options(options, False))
        png._deflated_strip.cache_clear()
        missed = to_png(image, **_options(options, True))
        first = png._deflated_strip.cache_info()
        found = to_png(image, **_options(options, True))
        assert first.misses > 0 and png._deflated_strip.cache_info().misses == first.misses   # all found
        assert missed == found, game
        assert _pixels(missed) == _pixels(whole), game
        assert zlib.decompress(_idat(missed)) == zlib.decompress(_idat(whole)), game
        alone.append(missed)
    png._deflated_strip.cache_clear()
    for _, image, options in reversed(drawn):
        to_png(image, **_options(options, True))
    assert [to_png(image, **_options(options, True)) for _, image, options in drawn] == alone
    png._deflated_strip.cache_clear()


def test_speedway_draws_its_channel_picture_in_strips(drawn, monkeypatch):
    """Speedway's channel picture goes through the strips (the same file as deflate_strips makes), a strip
    starting where its header's rows and its map meet."""
    from images.speedway.caption import HEADER

    game, image, options = next(d for d in drawn if d[0] == "speedway")
    assert HEADER in options["strips"]
    calls: list = []
    deflate = png.deflate_strips
    monkeypatch.setattr(png, "deflate_strips", lambda *args: calls.append(args) or deflate(*args))
    from images.draw import to_png

    to_png(image, **options)
    assert len(calls) == 1 and calls[0][3] == options["strips"]


def test_race_finds_the_strips_a_move_left_as_they_were():
    """Race's channel picture is deflated in strips too: the picture after a move finds strips of the one
    before it (the course and table rows the move left alone) and is not deflated whole again; the file
    is the same as with an empty cache."""
    from bot.cli.bench_pictures import positions

    (view, last, turn), (after, after_last, after_turn) = positions("race", 2000, 6)[4:6]
    png._deflated_strip.cache_clear()
    render("race", view, last, turn)
    before = png._deflated_strip.cache_info()
    found = render("race", after, after_last, after_turn)
    now = png._deflated_strip.cache_info()
    assert now.hits > before.hits and now.misses > before.misses   # some strips found, the changed ones made
    png._deflated_strip.cache_clear()
    assert render("race", after, after_last, after_turn) == found
    png._deflated_strip.cache_clear()


def test_strips_start_at_the_breaks_and_every_strip_rows_after():
    assert png.strip_starts(200) == [0, 64, 128, 192]
    assert png.strip_starts(200, (62, 124, 166)) == [0, 62, 124, 166]
    assert png.strip_starts(300, (62, 124, 166)) == [0, 62, 124, 166, 230, 294]
    assert png.strip_starts(100, (0, 100, 150, 30, 30)) == [0, 30, 94]   # outside ones and repeats ignored


def test_speedways_picture_mapped_part_by_part_is_the_whole_picture_mapped():
    """Speedway maps its picture's parts to the palette one by one (render_paletted): the same pixels and
    palette as mapping the whole RGB picture, on every arena (a narrow one's chips beside the map, a wide
    one's under it) and at every seat count."""
    from PIL import Image

    from images.reference import started
    from images.speedway import palette_for, render_image, render_paletted
    from rules.speedway import data
    from rules.speedway.actions import Join
    from rules.speedway.ruleset import SPEEDWAY

    designs = list(data.car_designs())
    for arena in data.arena_ids():
        for cars in sorted({2, len(data.arena(arena).starts)}):
            state = started(SPEEDWAY, {"arena": arena}, [Join(f"P{s}", designs[s % len(designs)]) for s in range(cars)])
            whole = render_image(state).quantize(palette=palette_for(arena), dither=Image.Dither.NONE)
            parts = render_paletted(state)
            assert (parts.mode, parts.size, parts.getpalette()) == (whole.mode, whole.size, whole.getpalette())
            assert parts.tobytes() == whole.tobytes(), (arena, cars)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 40), st.integers(1, 30), st.sampled_from([256, 16]), st.integers(1, 9),
       st.integers(1, 7), st.lists(st.integers(-2, 32), max_size=4), st.randoms())
def test_any_picture_in_any_strips_decodes_to_its_pixels(width, height, entries, level, rows, breaks, rng):
    image = Image.frombytes("P", (width, height), bytes(rng.randrange(entries) for _ in range(width * height)))
    image.putpalette(bytes(rng.randrange(256) for _ in range(3 * entries)))
    png.STRIP_ROWS, saved = rows, png.STRIP_ROWS
    try:
        data = png.encode(image, level, strips=tuple(breaks) if breaks else True)
    finally:
        png.STRIP_ROWS = saved
    assert _pixels(data) == _pixels(png.encode(image, level))
    zlib.decompress(_idat(data))   # raises on a wrong adler32


def test_the_strip_cache_is_bounded_by_bytes(monkeypatch):
    """However many different strips go through, the cache holds at most its budget of bytes, counting
    each strip's rows (its key) and its deflated bytes."""
    cache = png._deflated_strip.cache
    monkeypatch.setattr(cache, "budget", 200_000)
    png._deflated_strip.cache_clear()
    for shade in range(40):
        png.encode(Image.new("L", (300, 2 * png.STRIP_ROWS), shade), 5, strips=True)
        assert cache.nbytes <= 200_000
    info = png._deflated_strip.cache_info()
    row_bytes = 301 * png.STRIP_ROWS
    assert 0 < info.currsize < 40 and info.nbytes == sum(len(k[0]) + len(v) + png.ENTRY_BYTES
                                                          for k, (v, _) in cache.entries.items())
    assert all(len(k[0]) == row_bytes for k in cache.entries)
    png._deflated_strip.cache_clear()


def test_speedways_kept_header_bands_and_chips_are_the_pixels_drawn_anew():
    """Speedway keeps its header's bands (title, dice) and its chips mapped to the palette by what they
    show, and maps only the part of a map that differs from the last one (issue 39 items 2-3): drawn
    from the cache or anew, a game's pictures are the whole RGB picture mapped, pixel for pixel, with
    prompts, news, dice and a winner's banner among them."""
    from PIL import Image, ImageDraw

    from images.speedway import _mapped_band, _mapped_chip, caption, page, palette_for, render_image, render_paletted
    from images.speedway.caption import caption_words
    from tests.render_frames import game_frames

    frames = [(view, last) for ruleset, view, last in game_frames(every=6) if ruleset == "speedway"]
    words = [caption_words(view, last) for view, last in frames]
    assert any(dice for _title, _news, dice in words) and any(news[1] for _title, news, _dice in words)
    assert any(title[2] for title, _news, _dice in words)   # the game's end: its banner
    for view, last in frames:   # the bands drawn apart make the header drawn whole
        width = page(view.arena).width
        whole = Image.new("RGB", (width, caption.HEADER), caption.palette.PAPER)
        for drawer, said in zip((caption._draw_title, caption._draw_news, caption._draw_dice),
                                caption_words(view, last)):
            drawer(ImageDraw.Draw(whole), said, width)
        assert caption.render_caption(view, width, last).tobytes() == whole.tobytes()
    _mapped_band.cache_clear()
    _mapped_chip.cache_clear()
    for _round in range(2):   # drawn anew, then (mostly) from the cache
        for view, last in frames:
            whole = render_image(view, last).quantize(palette=palette_for(view.arena), dither=Image.Dither.NONE)
            assert render_paletted(view, last).tobytes() == whole.tobytes()
    assert _mapped_band.cache_info().hits > len(frames) and _mapped_chip.cache_info().hits > len(frames)
