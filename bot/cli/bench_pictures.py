"""The channel pictures' own figures, for the bench: over fixed positions of a game, the median PNG's bytes
and the median CPU time of drawing a picture and of encoding it (palette mapping and deflate).

`picture_figures` is a pure function of a game and its positions (public view, last events, recent turns'
events); `positions` makes them by playing the bench's seeded games with the rules alone. CPU time is the
process's own (time.process_time), so other work on the machine slows it less than the wall clock; each
picture is drawn once as a move draws it (a new position, in a process whose caches the positions
before it warmed), its encoding timed as that call spent it (encoding the same picture again would
find every strip deflated already: images.png); each figure is the median over positions.
"""

from __future__ import annotations

import contextlib
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from images.registry import renderer

Position = tuple[Any, tuple, tuple]   # (public view, the last action's events, the recent turns' events)
WINDOW = 60   # actions whose events make a picture's recent turns (bot.table.service.recent.RECENT_ACTIONS)


@dataclass(frozen=True)
class PictureFigures:
    """One game's pictures: median bytes, and median CPU milliseconds to draw and to encode one."""

    pictures: int
    median_bytes: float
    render_ms: float
    encode_ms: float


@contextlib.contextmanager
def _encodes_caught(caught: list[tuple[Callable[..., bytes], Any, dict, float]]) -> Iterator[None]:
    """While open, every loaded renderer's call of images.draw.to_png also records (to_png, image, options,
    the call's CPU milliseconds), so the encoding is known apart from the drawing (load the renderer
    first: images.registry.renderer)."""
    from images import draw

    original = draw.to_png

    def catching(image: Any, *args: Any, **kwargs: Any) -> bytes:
        started = time.process_time()
        data = original(image, *args, **kwargs)
        caught.append((original, image, {"args": args, "kwargs": kwargs}, (time.process_time() - started) * 1000))
        return data
    patched = [m for name, m in list(sys.modules.items())
               if name.startswith("images.") and m is not draw and getattr(m, "to_png", None) is original]
    for module in patched:
        module.to_png = catching   # type: ignore[attr-defined]
    try:
        yield
    finally:
        for module in patched:
            module.to_png = original   # type: ignore[attr-defined]


def picture_figures(game_id: str, positions: list[Position]) -> PictureFigures:
    """The median bytes of the channel pictures of `positions` of game `game_id`, and the median CPU time
    of drawing one (its whole render less its encoding) and of encoding one."""
    render = renderer(game_id).render
    sizes, drawing, encoding = [], [], []
    for view, last, turn in positions:
        caught: list = []
        with _encodes_caught(caught):
            started = time.process_time()
            sizes.append(len(render(view, last, turn)))
            whole = (time.process_time() - started) * 1000
        encode = caught[-1][3] if caught else 0.0
        drawing.append(max(0.0, whole - encode))
        encoding.append(encode)
    return PictureFigures(len(positions), statistics.median(sizes), statistics.median(drawing),
                          statistics.median(encoding))


def turns_of(window: list[tuple]) -> tuple:
    """What a picture's trails show from a window of actions' events (bot.table.service.pictures.turns_in)."""
    from bot.table.service.pictures import turns_in

    return turns_in(window)


def positions(game_id: str, seed: int, moves: int) -> list[Position]:
    """The public positions after each of the first `moves` moves (fewer if the game ends) of the bench's
    seeded game of `game_id` (bot.cli.bench_games.script), played with the rules alone."""
    from bot.cli.bench_games import _opening, script
    from bot.table.protocol.commands import parse
    from rules.registry import get_ruleset

    ruleset = get_ruleset(game_id)
    opening = _opening(ruleset, seed)
    host, made = opening[0][0], parse(opening[0][1]).options
    state = ruleset.setup(ruleset.new_game_options({k: v for k, v in made.items() if k not in ("ruleset", "seed")}),
                          seed, host.id)
    window: list[tuple] = []
    found: list[Position] = []
    for index, (actor, line) in enumerate(opening[1:] + script(ruleset, seed, moves)):
        command = parse(line)
        options = {**command.options, "name": actor.name} if index < len(opening) - 1 else command.options
        state, events = ruleset.apply(state, actor.id, ruleset.command_to_action(command.name, options))[:2]
        window = [*window, tuple(events)][-WINDOW:]
        if index >= len(opening) - 2:   # from the start on
            found.append((ruleset.view(state, None), tuple(events), turns_of(window)))
    return found
