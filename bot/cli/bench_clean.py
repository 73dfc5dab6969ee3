"""`pitboss bench`'s Speedway floor measured where nothing else runs, and the figures of 8dd771d it compares with.

Inside the bench, after thousands of moves, plain Pillow saved the same pictures 1.3-1.8x slower than a
fresh process does (issue 39, item 1: allocator and cache state), which flattered every ratio. So every
yardstick is timed in a fresh interpreter: each game's by bot.cli.bench_portable.Yardstick, between blocks
of its moves; Speedway's floor (`clean_floor`) by `python -m bot.cli.bench_clean VIEWS`, interleaved: each
picture drawn, encoded as the moves encode it, and saved by plain Pillow, one after the other in the same
fresh process.
"""

from __future__ import annotations

import io
import json
import pickle
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# Median PNG bytes of each game's channel picture on 8dd771d (the release of 2026-12-02), measured
# 2026-12-06 over the first 200 moves of games from seed 2000 (the bench's BYTES_SEED) with the bench's
# policy (bot.cli.bench_games.script), two people seated by each game's example opening: what
# bench_portable.py prints run with that tree's interpreter.
OLD_MEDIANS = {"speedway": 46591, "track": 89309, "battlecars": 37595, "race": 33062}
OLD_COMMIT = "8dd771d (2026-12-02)"


def _floor(path: Path) -> tuple[float, float, float]:
    """Median seconds to draw Speedway's pictures (pickled (view, last events) pairs in `path`), to encode
    each as the moves do (their palette, zlib-ng at PNG_LEVEL), and to save it by plain Pillow (RGB PNG,
    level 1), interleaved picture by picture in this process; the first picture is drawn once untimed."""
    from images.draw import to_png
    from images.speedway import PNG_LEVEL, PNG_STRIPS, palette_for, render_image, strip_breaks

    views = pickle.loads(path.read_bytes())
    render_image(*views[0])
    draws, encodes, plain = [], [], []
    for view, last in views:
        started = time.perf_counter()
        image = render_image(view, last)
        drawn = time.perf_counter()
        to_png(image, palette=palette_for(view.arena), level=PNG_LEVEL,   # as the moves
               strips=strip_breaks(view.arena) if PNG_STRIPS else False)
        encoded = time.perf_counter()
        image.save(io.BytesIO(), format="PNG", compress_level=1)
        draws.append(drawn - started)
        encodes.append(encoded - drawn)
        plain.append(time.perf_counter() - encoded)
    return statistics.median(draws), statistics.median(encodes), statistics.median(plain)


def clean_floor(views: list) -> tuple[float, float, float]:
    """Speedway's drawing, encoding and plain-Pillow median seconds for these (view, last events), in a
    fresh interpreter (_floor)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "views.pickle"
        path.write_bytes(pickle.dumps(views))
        done = subprocess.run([sys.executable, "-m", "bot.cli.bench_clean", str(path)],
                              capture_output=True, text=True, check=True, timeout=300)
    draw, encode, plain = json.loads(done.stdout)
    return draw, encode, plain


if __name__ == "__main__":
    print(json.dumps(_floor(Path(sys.argv[1]))))
