"""The bench's yardstick is timed in a process of its own between blocks of the moves it is compared with."""

from __future__ import annotations

import io
import itertools

import pytest
from PIL import Image

import bot.cli.bench_portable as bench
from bot.cli.bench_portable import BLOCK, SAMPLE, TimedMoves, Yardstick, YardstickFailed


def _picture(shade: int) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (300, 200), (shade, 40, 90)).save(buffer, format="PNG")
    return buffer.getvalue()


def test_the_yardstick_is_timed_after_every_block_of_moves_on_a_sample_of_their_pictures():
    moves = 2 * BLOCK + 3
    with Yardstick() as yardstick:
        timed = TimedMoves("speedway", yardstick)
        counts = []
        for move in range(moves):
            timed.seen(0.001 * (move + 1), _picture(move % 250) if move % 4 else None)   # every 4th: no picture
            counts.append(len(yardstick.times.get("speedway", [])))
        timed.done()
    pictures = [move for move in range(moves) if move % 4]   # the moves that had a picture, in order
    sampled = [n for n, move in enumerate(pictures) if n % SAMPLE == 0]   # every SAMPLE-th picture of the game
    in_block = [sum(1 for n in sampled if pictures[n] < end) for end in (BLOCK, 2 * BLOCK, moves)]
    # nothing is timed until a block's last move, then that block's sample, before the next move
    assert counts[BLOCK - 2] == 0 and counts[BLOCK - 1] == in_block[0]
    assert counts[2 * BLOCK - 2] == in_block[0] and counts[2 * BLOCK - 1] == in_block[1]
    assert counts[-1] == in_block[1]
    assert len(yardstick.times["speedway"]) == in_block[2] == len(sampled)   # `done` times the last, short block
    assert len(timed.latencies) == moves and len(timed.pictures) == len(pictures)
    wall, cpu = yardstick.median("speedway")
    assert wall > 0 and cpu > 0


def test_the_moves_cpu_leaves_out_what_the_yardstick_spent(monkeypatch):
    ticks = itertools.count()
    monkeypatch.setattr(bench, "cpu_seconds", lambda: float(next(ticks)))
    with Yardstick() as yardstick:
        timed = TimedMoves("race", yardstick)   # tick 0
        for move in range(BLOCK + 2):   # a turn after BLOCK moves (ticks 1, 2), the last two moves' in `done` (3, 4)
            timed.seen(0.001, _picture(move))
        timed.done()   # tick 5
    assert yardstick.cpu == 2.0   # two turns, a tick each
    assert timed.cpu == 3.0   # 5 ticks over the moves, less the yardstick's 2


def test_a_yardstick_whose_process_ended_says_so_instead_of_waiting():
    yardstick = Yardstick()
    yardstick._server.kill()
    yardstick._server.wait()
    with pytest.raises(YardstickFailed, match="ended"):
        yardstick.time_saves("track", [_picture(1)])
    yardstick.close()   # and stops without another error
