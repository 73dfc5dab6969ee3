"""PNG files written straight from a Pillow image's rows, deflated by ISA-L (fast) or zlib-ng (small).

Pillow's PNG writer deflates with whatever zlib the system has (often a plain 1.2.x), and the deflate
is most of the cost of a picture. This writer lays out the same chunks Pillow would for a palette, grey
or RGB image (signature, IHDR, PLTE, one IDAT, IEND; every row unfiltered; a palette of 16 colours or
fewer packed 4 bits a pixel, as Pillow packs it: half the bytes to deflate) and deflates
with `isal` (Intel's ISA-L, a wheel from PyPI) at level 1: about a quarter of Pillow's time at level 1
for a few per cent more bytes, pixel for pixel the same picture. A channel picture a player downloads on
a phone is deflated harder, by `zlib-ng` at its game's level (PNG_LEVEL beside each renderer): 20-35%
fewer bytes for 1-2 ms of a render process. Without `isal`, or for any other image mode, Pillow saves
the picture itself.

A picture that asks for it (`strips`: a channel picture that gains by it) is deflated strip by strip (issue
39, items 2-3): the rows are cut into strips of STRIP_ROWS, each deflated alone (raw deflate, no
back-reference outside the strip, ended byte-aligned by a full flush), and the zlib stream is its
header, the strips' blocks in order, an empty final block and the adler32 of all the rows (a picture
may also say where its parts meet, and a strip starts there too: a header that changes with every move
then shares no strip with the map under it). Much of a
picture is the same from one move to the next, so a strip whose rows were deflated before (at the
same level) takes its bytes from a cache bounded by bytes, keyed on the rows themselves (a hit
compares them exactly). A strip's bytes depend on its rows and the level alone, so the file is the
same whatever the cache holds.

The output depends on the pixels alone (no time, no text chunks), so one state gives the same bytes in
any process that has the same deflate.
"""

from __future__ import annotations

import io
import struct
import zlib
from collections.abc import Callable, Sequence

from PIL import Image

from images.bounded import ENTRY_BYTES, bounded

SIGNATURE = b"\x89PNG\r\n\x1a\n"
LEVEL = 1            # ISA-L's levels are 0-3; 1 is as small as 2 on our maps and as fast as 0
PILLOW_LEVEL = 1     # zlib level for the fallback: ~3.5x faster than 6 for ~50% more bytes
COLOUR_TYPES = {"P": (3, 1), "RGB": (2, 3), "L": (0, 1)}  # Pillow mode -> (PNG colour type, bytes a pixel)
NIBBLE = 16          # a palette of at most this many colours is written 4 bits a pixel
STRIP_ROWS = 64      # rows a strip: shorter ones are found again more often (16 rows 63%,
                     # 64 about 45%) but each costs its own code tables: 16 rows 9% more bytes, 64 1.5-3%
STRIP_BYTES = 8 << 20   # the strip cache's budget: its keys (the rows, ~60 KB a strip) weigh most
FINAL_BLOCK = b"\x03\x00"   # an empty final block (fixed codes: only its end code)


def _isal_deflate() -> Callable[[bytes], bytes] | None:
    """ISA-L's deflate at LEVEL, or None without `isal` (an install dependency; a missing one only costs time)."""
    try:
        from isal import isal_zlib
    except ImportError:  # pragma: no cover - exercised by forcing FAST_DEFLATE off in tests
        return None
    return lambda data: isal_zlib.compress(data, LEVEL)


FAST_DEFLATE: Callable[[bytes], bytes] | None = _isal_deflate()


def _zlib_ng() -> Callable[[bytes, int], bytes] | None:
    """zlib-ng's deflate at a chosen level, or None without `zlib-ng` (an install dependency)."""
    try:
        from zlib_ng import zlib_ng
    except ImportError:  # pragma: no cover - exercised by forcing SMALL_DEFLATE off in tests
        return None
    return zlib_ng.compress


SMALL_DEFLATE: Callable[[bytes, int], bytes] | None = _zlib_ng()
try:
    from zlib_ng.zlib_ng import crc32 as _crc32
except ImportError:  # pragma: no cover - strips are deflated by zlib-ng only
    _crc32 = zlib.crc32


class StripRows(bytes):
    """A strip's rows as the strip cache's key: hashed by zlib-ng's crc32, several times faster than
    Python's hash of bytes (a picture's strips are ~0.5 MB), compared as bytes (a hit is exact)."""

    def __hash__(self) -> int:
        return _crc32(self)


def _strip_weight(args: tuple, deflated: bytes) -> int:
    return len(args[0]) + len(deflated) + ENTRY_BYTES


@bounded(STRIP_BYTES, _strip_weight)
def _deflated_strip(rows: bytes, level: int) -> bytes:
    """`rows` deflated alone by zlib-ng at `level`: raw deflate ended by a full flush (byte-aligned), to
    be followed by other strips' blocks in one zlib stream."""
    from zlib_ng import zlib_ng

    compressor = zlib_ng.compressobj(level, zlib_ng.DEFLATED, -15)
    return compressor.compress(rows) + compressor.flush(zlib_ng.Z_FULL_FLUSH)


def _zlib_header(level: int) -> bytes:
    """The two bytes zlib starts its stream with at `level` (a 32 KB window, the level's hint, the check)."""
    hint = 0 if level < 2 else 1 if level < 6 else 2 if level == 6 else 3
    first = 0x78
    second = hint << 6
    return bytes((first, second + 31 - (first * 256 + second) % 31))


def strip_starts(height: int, breaks: Sequence[int] = ()) -> list[int]:
    """The first row of each strip of a picture `height` rows high: a strip starts at row 0 and at each
    of `breaks` (where the picture's parts meet), and every STRIP_ROWS rows after each of those."""
    edges = sorted({0, height, *(b for b in breaks if 0 < b < height)})
    return [row for top, end in zip(edges, edges[1:]) for row in range(top, end, STRIP_ROWS)]


def deflate_strips(rows: bytes, row_bytes: int, level: int, breaks: Sequence[int] = ()) -> bytes:
    """`rows` (each `row_bytes` long) as a zlib stream deflated strip by strip at `level` (the module's
    docstring), each strip's deflate taken from the cache when the same rows were deflated before;
    `breaks`: rows where a strip must start (strip_starts)."""
    from zlib_ng import zlib_ng

    starts = [row * row_bytes for row in strip_starts(len(rows) // row_bytes, breaks)] + [len(rows)]
    parts = [_zlib_header(level)]
    view = memoryview(rows)
    parts += [_deflated_strip(StripRows(view[start:end]), level) for start, end in zip(starts, starts[1:])]
    parts += [FINAL_BLOCK, struct.pack(">I", zlib_ng.adler32(rows))]
    return b"".join(parts)


def encoder_name(level: int = 0) -> str:
    """Which deflate writes the pictures at `level`, for the bench and the logs."""
    if level and SMALL_DEFLATE is not None and FAST_DEFLATE is not None:
        return f"zlib-ng level {level} (zlib-ng)"
    return f"ISA-L level {LEVEL} (isal)" if FAST_DEFLATE is not None else f"Pillow, zlib level {PILLOW_LEVEL}"


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(body, zlib.crc32(kind)))


def _rows(image: Image.Image, pixel_bytes: int, packed: bool = False) -> bytes:
    """The image's scanlines, each led by filter type 0 (none), as PNG's IDAT stream expects them;
    `packed`: a palette image's rows two pixels a byte."""
    if packed:   # two zero pixels pasted in front make each row's filter byte
        framed = Image.new(image.mode, (image.width + 2, image.height), 0)
        framed.paste(image, (2, 0))
        return framed.tobytes("raw", "P;4")
    if pixel_bytes == 1:   # one byte a pixel: a zero column pasted in front is each row's filter byte
        framed = Image.new(image.mode, (image.width + 1, image.height), 0)
        framed.paste(image, (1, 0))
        return framed.tobytes()
    stride = image.width * pixel_bytes
    raw = memoryview(image.tobytes())
    parts: list = []
    for start in range(0, len(raw), stride):
        parts.append(b"\0")
        parts.append(raw[start:start + stride])
    return b"".join(parts)


def encode(image: Image.Image, level: int = 0, strips: bool | Sequence[int] = False) -> bytes:
    """`image` as PNG bytes: written here for P, RGB and L images when `isal` is installed, deflated by
    ISA-L (level 0: the fastest) or by zlib-ng at `level` 1-9 (smaller, slower; ISA-L without `zlib-ng`),
    `strips`: strip by strip, each strip's deflate kept for the next picture that has the same rows (a
    sequence of rows: also a strip starting at each, where the picture's parts meet: strip_starts);
    otherwise saved by Pillow at zlib level 1. A palette of NIBBLE colours or fewer is written 4 bits a
    pixel (as Pillow writes it: an index past the palette keeps its low 4 bits)."""
    layout = COLOUR_TYPES.get(image.mode)
    palette = image.getpalette("RGB") if image.mode == "P" else None
    if FAST_DEFLATE is None or layout is None or "transparency" in image.info \
            or (image.mode == "P" and not palette):
        buffer = io.BytesIO()
        image.save(buffer, format="PNG", compress_level=PILLOW_LEVEL)
        return buffer.getvalue()
    colour_type, pixel_bytes = layout
    packed = palette is not None and len(palette) <= 3 * NIBBLE
    header = struct.pack(">IIBBBBB", image.width, image.height, 4 if packed else 8, colour_type, 0, 0, 0)
    chunks = [SIGNATURE, _chunk(b"IHDR", header)]
    if palette is not None:   # colour type 3
        chunks.append(_chunk(b"PLTE", bytes(palette)))   # every entry: a quantized image uses no other
    rows = _rows(image, pixel_bytes, packed)
    if level and SMALL_DEFLATE is not None:
        breaks = () if isinstance(strips, bool) else tuple(strips)
        deflated = deflate_strips(rows, len(rows) // image.height, level, breaks) if strips is not False \
            else SMALL_DEFLATE(rows, level)
    else:
        deflated = FAST_DEFLATE(rows)
    chunks += [_chunk(b"IDAT", deflated), _chunk(b"IEND", b"")]
    return b"".join(chunks)
