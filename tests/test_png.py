"""The PNG writer: the same pixels as Pillow's own PNG, the same bytes for the same picture in any
process, and Pillow's writer when the fast deflate is missing."""

from __future__ import annotations

import hashlib
import io
import subprocess
import sys
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from images import png, render
from tests.conftest import ROOT
from tests.render_frames import game_frames


def _decoded(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


def _same_picture(a: Image.Image, b: Image.Image) -> bool:
    return (a.mode, a.size, a.tobytes()) == (b.mode, b.size, b.tobytes()) and (
        a.mode != "P" or a.convert("RGB").tobytes() == b.convert("RGB").tobytes())


@st.composite
def images(draw) -> Image.Image:
    mode = draw(st.sampled_from(["P", "RGB", "L"]))
    width, height = draw(st.integers(1, 40)), draw(st.integers(1, 30))
    pixel = {"P": 1, "RGB": 3, "L": 1}[mode]
    raw = draw(st.binary(min_size=width * height * pixel, max_size=width * height * pixel))
    entries = draw(st.sampled_from([256, 16, 3])) if mode == "P" else 256
    if entries < 256:   # a small palette's picture uses its entries only (it is written 4 bits a pixel)
        raw = bytes(value % entries for value in raw)
    image = Image.frombytes(mode, (width, height), raw)
    if mode == "P":
        image.putpalette(draw(st.binary(min_size=3 * entries, max_size=3 * entries)))
    return image


@settings(max_examples=150, deadline=None)
@given(images())
def test_pixels_are_the_ones_pillow_writes(image):
    """Whatever the mode and size, the file decodes to the picture given, as Pillow's own file does."""
    ours, theirs = io.BytesIO(png.encode(image)).getvalue(), io.BytesIO()
    image.save(theirs, format="PNG")
    assert _same_picture(_decoded(ours), image)
    assert _same_picture(_decoded(ours), _decoded(theirs.getvalue()))


@pytest.mark.parametrize("entries, depth", [(256, 8), (17, 8), (16, 4), (2, 4)])
def test_the_file_is_laid_out_as_png_says(entries, depth):
    """Signature, IHDR, PLTE, one IDAT, IEND, each with its CRC; rows unfiltered; no other chunk; a
    palette of 16 colours or fewer packed 4 bits a pixel (issue 39 item 4), a larger one 8."""
    image = Image.new("P", (5, 3))
    image.putpalette(bytes(i % 256 for i in range(3 * entries)))
    image.putpixel((4, 2), 1)
    data = png.encode(image)
    rows = [[0] * 4 + [1 if y == 2 else 0] for y in range(3)]
    expected_rows = b"".join(b"\0" + (bytes(row) if depth == 8 else bytes([0, 0, row[4] << 4])) for row in rows)
    assert data.startswith(png.SIGNATURE)
    kinds, at = [], len(png.SIGNATURE)
    while at < len(data):
        length = int.from_bytes(data[at:at + 4], "big")
        kind, body = data[at + 4:at + 8], data[at + 8:at + 8 + length]
        assert int.from_bytes(data[at + 8 + length:at + 12 + length], "big") == zlib.crc32(kind + body)
        kinds.append(kind)
        if png.FAST_DEFLATE is not None and kind == b"IDAT":
            assert zlib.decompress(body) == expected_rows
        if png.FAST_DEFLATE is not None and kind == b"IHDR":
            assert body[8] == depth
        if kind == b"PLTE":
            assert body == bytes(i % 256 for i in range(3 * entries))
        at += 12 + length
    expected = [b"IHDR", b"PLTE", b"IDAT", b"IEND"] if png.FAST_DEFLATE is not None else None
    assert expected is None or kinds == expected


def test_the_fast_deflate_is_installed():
    """isal is an install dependency (pyproject.toml); the bench and this test say when it is not there."""
    assert png.FAST_DEFLATE is not None, "isal is missing: pictures fall back to Pillow's slower writer"
    assert png.encoder_name().startswith("ISA-L")


def test_without_the_fast_deflate_pillow_writes_the_same_picture(monkeypatch):
    image = Image.radial_gradient("L").convert("P")
    fast = png.encode(image)
    monkeypatch.setattr(png, "FAST_DEFLATE", None)
    slow = png.encode(image)
    assert png.encoder_name().startswith("Pillow")
    assert _same_picture(_decoded(fast), _decoded(slow))
    plain = io.BytesIO()
    image.save(plain, format="PNG", compress_level=1)
    assert slow == plain.getvalue()


@pytest.mark.parametrize("mode", ["RGBA", "LA", "1", "I;16"])
def test_other_modes_go_to_pillow(mode):
    image = Image.new(mode, (7, 4))
    assert _same_picture(_decoded(png.encode(image)), image.copy())


def test_a_palette_with_transparency_goes_to_pillow():
    image = Image.new("P", (4, 4))
    image.putpalette(bytes(range(48)))
    image.info["transparency"] = 0
    assert _decoded(png.encode(image)).info.get("transparency") == 0


_RENDER_IN_A_PROCESS = """
import hashlib
from tests.render_frames import game_frames
from images import render
print(hashlib.sha256(b"".join(render(ruleset, view, last) for ruleset, view, last in game_frames())).hexdigest())
"""


@pytest.mark.slow
def test_the_same_states_give_the_same_bytes_in_two_processes():
    """Two fresh interpreters (each with its own hash seed, palette cache and font cache) draw the
    same states of every game to the same bytes, and so does this process."""
    here = hashlib.sha256(b"".join(render(ruleset, view, last) for ruleset, view, last in game_frames()))
    digests = {
        subprocess.run([sys.executable, "-c", _RENDER_IN_A_PROCESS], cwd=ROOT, capture_output=True, text=True,
                       check=True, env={"PYTHONHASHSEED": str(seed), "PATH": "/usr/bin:/bin"}).stdout.strip()
        for seed in (1, 2)
    }
    assert digests == {here.hexdigest()}


@settings(max_examples=60, deadline=None)
@given(images(), st.integers(1, 9))
def test_a_harder_deflate_writes_the_same_pixels(image, level):
    assert _same_picture(_decoded(png.encode(image, level)), image)


def test_each_games_channel_picture_is_deflated_smaller_than_the_fast_way():
    """The channel picture's zlib-ng level (PNG_LEVEL beside each renderer) gives fewer bytes than ISA-L
    for the same pixels, in every game (issue 28, item 8); without zlib-ng, ISA-L writes them. (Track's
    16 colours, 4 bits a pixel, leave ISA-L less to lose: its level 2 saves 3-4%, no longer 5%.)"""
    assert png.SMALL_DEFLATE is not None, "zlib-ng is missing: pictures are written larger"
    frames: dict[str, tuple] = {}
    for game, view, events in game_frames(every=40):
        frames.setdefault(game, (view, events))
    assert set(frames) == {"speedway", "track", "battlecars", "race"}
    for game, (view, events) in frames.items():
        small = render(game, view, events, ())
        picture = _decoded(small)
        fast = png.encode(picture)
        assert len(small) < len(fast) * 0.98, (game, len(small), len(fast))
        assert _same_picture(_decoded(fast), picture)


def test_without_zlib_ng_the_fast_deflate_writes(monkeypatch):
    image = Image.radial_gradient("L").convert("P")
    monkeypatch.setattr(png, "SMALL_DEFLATE", None)
    assert png.encode(image, 5) == png.encode(image)
    assert png.encoder_name(5).startswith("ISA-L")
