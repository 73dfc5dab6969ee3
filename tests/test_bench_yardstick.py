"""The bench's yardstick is timed in a process of its own between blocks of the moves it is compared with."""

from __future__ import annotations

import io

from PIL import Image

from bot.cli.bench_portable import BLOCK, SAMPLE, TimedMoves, Yardstick


def _picture(shade: int) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (300, 200), (shade, 40, 90)).save(buffer, format="PNG")
    return buffer.getvalue()


def test_the_yardstick_is_timed_after_every_block_of_moves_on_a_sample_of_their_pictures():
    yardstick = Yardstick()
    try:
        timed = TimedMoves("speedway", yardstick)
        counts = []
        for move in range(2 * BLOCK + 3):
            timed.seen(0.001 * (move + 1), _picture(move % 250) if move % 4 else None)   # every 4th: no picture
            counts.append(len(yardstick.times.get("speedway", [])))
        timed.done()
    finally:
        yardstick.close()
    pictures = [move for move in range(2 * BLOCK + 3) if move % 4]
    blocks = [[m for m in pictures if m < BLOCK], [m for m in pictures if BLOCK <= m < 2 * BLOCK],
              [m for m in pictures if m >= 2 * BLOCK]]
    sampled = [len(block[::SAMPLE]) for block in blocks]
    # nothing is timed until a block's last move, then that block's sample, before the next move
    assert counts[BLOCK - 2] == 0 and counts[BLOCK - 1] == sampled[0]
    assert counts[2 * BLOCK - 2] == sampled[0] and counts[2 * BLOCK - 1] == sampled[0] + sampled[1]
    assert counts[-1] == sampled[0] + sampled[1]
    assert len(yardstick.times["speedway"]) == sum(sampled)   # `done` times the last, short block
    assert len(timed.latencies) == 2 * BLOCK + 3 and len(timed.pictures) == len(pictures)
    wall, cpu = yardstick.median("speedway")
    assert wall > 0 and cpu > 0
    assert yardstick.cpu > 0   # what the tree spent while it timed, left out of the moves' CPU

