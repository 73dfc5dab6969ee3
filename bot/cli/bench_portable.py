"""Every game's line of `pitboss bench`, runnable on an older checkout too, for runs alternated with it.

Run it with the interpreter of the tree to measure, from that tree's folder, for example against
8dd771d (whose modules had other places):

    cd /work/wt/old && .venv/bin/python /path/to/this/bot/cli/bench_portable.py
    .venv/bin/python bot/cli/bench_portable.py          # this tree, the same lines (an argument: moves a game)

It uses only what both trees have (the service, the command parser, the rulesets, the render processes and
the long jobs' process, as `pitboss run` has them), starts as each tree's `pitboss run` starts (its own
drawing warmed where the tree does that, then what start-up made frozen out of the collector's way),
plays each game as bench_games does (two people seated by each game's example opening, the same seeded
policy, warm-up games first, then the timed moves from seed 2000), times the plain-Pillow yardstick in a
fresh process between blocks of those moves (Yardstick), and prints, per game, the warm p50, p99, CPU a
move over all processes, the yardstick and both ratios, and the median bytes; then many channels of all
the games at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import importlib
import io
import json
import os
import random
import resource
import select
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

OPENINGS = {   # each game's example opening (rules.engine.ExampleOpening), written out for older trees
    "speedway": ("arena:duel", ("/game join car:brawler", "/game join car:torch")),
    "track": ("", ("/game join", "/game join")),
    "battlecars": ("", ("/game join vehicle:interceptor", "/game join vehicle:rammer")),
    "race": ("tuning:0", ("/game join pilot:rookie", "/game join pilot:veteran")),
}
SEED, WARMUP_SEED, MOVES, WARMUP_MOVES = 2000, 9000, 200, 50


def _found(*places: str) -> Any:
    """The first of `places` ("module:name", this tree's first, then 8dd771d's) that imports."""
    for place in places:
        module, name = place.split(":")
        try:
            return getattr(importlib.import_module(module), name)
        except ImportError:
            continue
    raise ImportError(f"none of {places}")


def _modules() -> tuple[Any, Any, Any]:
    """(GameService, Actor, parse) from this tree or an older one."""
    return (_found("bot.table.service.entry:GameService", "bot.table.service:GameService"),
            _found("bot.table.service.entry:Actor", "bot.table.replies:Actor"),
            _found("bot.table.protocol.commands:parse", "bot.table.commands:parse"))


def _render_processes() -> Any:
    return _found("bot.table.jobs.drawing:RenderProcesses", "bot.table.drawing:RenderProcesses").configured()


def _heavy_process() -> Any:
    """Long jobs (a finished game's rating, replays) in a worker process of their own, as `pitboss run` and
    `pitboss bench` have them: on a thread of the bot's own process, a game end's rating held the loop
    under the next game's first moves (Race's p99 was 2.2-2.6x its p50 here, 1.6x with the process)."""
    return _found("bot.table.jobs.heavy:HeavyWork", "bot.table.heavy:HeavyWork")(process=True)


def _opening(ruleset_id: str, seed: int) -> list[tuple[str, str]]:
    options, (first, second) = OPENINGS[ruleset_id]
    return [("ann", f"/game new ruleset:{ruleset_id} seed:{seed} {options}".strip()), ("ann", first),
            ("ben", second), ("ann", "/game start")]


def _script(ruleset: Any, parse: Any, seed: int, moves: int) -> list[tuple[str, str]]:
    """bench_games.script's moves, with the rules alone."""
    opening = _opening(ruleset.id, seed)
    options = {k: v for k, v in parse(opening[0][1]).options.items() if k not in ("ruleset", "seed")}
    if hasattr(ruleset, "new_game_options"):
        options = ruleset.new_game_options(options)
    elif ruleset.revision > 1:
        options["revision"] = ruleset.revision
    state = ruleset.setup(options, seed, "ann")
    for player, line in opening[1:]:
        command = parse(line)
        state = ruleset.apply(state, player, ruleset.command_to_action(command.name, {**command.options,
                                                                                      "name": player}))[0]
    return policy_moves(ruleset, state, seed, moves)


ATTACKS = 0.7  # how often the policy takes an attack (a primary action) when one is legal


def pick(legal: list, rng: random.Random) -> Any:
    """A legal action: an attack more often than not where one is offered, else any."""
    attacks = [option for option in legal if option.primary]
    return rng.choice(attacks if attacks and rng.random() < ATTACKS else legal)


def policy_moves(ruleset: Any, state: Any, seed: int, moves: int) -> list[tuple[str, str]]:
    """The next `moves` (player, command) from `state` (fewer if the game ends), each a legal action the
    seeded policy picks: an attack more often than not where one is offered, else any."""
    rng = random.Random(seed)
    played: list[tuple[str, str]] = []
    while len(played) < moves and not ruleset.is_finished(state):
        player = ruleset.acting_players(state)[0]
        legal = [option for option in ruleset.legal_actions(state, player) if option.action is not None]
        if not legal:
            break
        chosen = pick(legal, rng)
        state = ruleset.apply(state, player, chosen.action)[0]
        played.append((player, chosen.command))
    return played


def cpu_seconds() -> float:
    """User + system CPU seconds spent so far by this process, its children that ended (and were reaped: a
    worker stopped for idling keeps its time here) and every descendant alive (/proc/PID/stat), with what
    their own ended children spent (render processes forked by a zygote are its children, not ours)."""
    spent = sum(getattr(resource.getrusage(who), f) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
                for f in ("ru_utime", "ru_stime"))
    kids: dict[int, list[tuple[int, int]]] = {}
    for entry in Path("/proc").iterdir():
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if entry.name.isdigit():
            kids.setdefault(int(fields[1]), []).append((int(entry.name), sum(int(f) for f in fields[11:15])))
    ticks, todo = 0, [os.getpid()]
    while todo:
        for pid, used in kids.get(todo.pop(), []):
            ticks += used
            todo.append(pid)
    return spent + ticks / os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], share: float) -> float:
    """The `share` quantile (0..1) by the nearest-rank method."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered) + 0.5) - 1))]


async def _play(service: Any, actor: Any, parse: Any, channel: str, lines: list[tuple[str, str]],
                timed: TimedMoves | None = None) -> int:
    for player, line in lines:
        started = time.perf_counter()
        reply = await service.execute(channel, actor(player, player), parse(line))
        latency = time.perf_counter() - started
        if reply.outcome != "applied":
            raise RuntimeError(f"refused in {channel}: {line}: {reply.text}")
        if timed is not None:
            timed.seen(latency, reply.image)
    return len(lines)


async def _games(service: Any, actor: Any, parse: Any, ruleset: Any, prefix: str, seed: int, moves: int,
                 timed: TimedMoves | None = None) -> None:
    played = 0
    while played < moves:
        channel = f"{prefix}-{ruleset.id}-{seed}"
        await _play(service, actor, parse, channel, _opening(ruleset.id, seed))
        played += await _play(service, actor, parse, channel, _script(ruleset, parse, seed, moves - played), timed)
        seed += 1


BLOCK = 25       # moves between two turns of the yardstick
SAMPLE = 2       # every SAMPLE-th picture of a game's moves is timed for the yardstick (100 of 200)
ANSWER_SECONDS = 300.0   # a turn of the yardstick answers within this (it took 0.2-0.4 s here)


class YardstickFailed(RuntimeError):
    """The yardstick's process ended, broke its pipe or gave no answer in time."""


class Yardstick:
    """The plain-Pillow yardstick, timed in a fresh interpreter between blocks of the moves that drew it.

    The interpreter (_serve_saves) is started with the games and kept while they are timed (a context
    manager: it is stopped on the way out, whatever happens). Timed after all the games, it saw other minutes
    than their moves: on this host the same saves took 12.6 ms in one minute and 18.9 in the next, so a ratio
    said the minute as much as the code (issue 39, item 1)."""

    def __init__(self) -> None:
        self._server = subprocess.Popen([sys.executable, __file__, "--yardstick-serve"], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True)
        self.times: dict[str, list[tuple[float, float]]] = {}
        self.cpu = 0.0   # CPU seconds of the whole tree spent while it timed (taken out of the moves' CPU)

    def __enter__(self) -> Yardstick:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def time_saves(self, game: str, pictures: list[bytes]) -> None:
        """Time saving `pictures` (PNG files) for `game`'s yardstick, in the server, now; YardstickFailed when
        it cannot."""
        if not pictures:
            return
        assert self._server.stdin is not None and self._server.stdout is not None
        spent = cpu_seconds()
        with tempfile.TemporaryDirectory() as folder:
            for i, picture in enumerate(pictures):
                (Path(folder) / f"{i:04}.png").write_bytes(picture)
            try:
                self._server.stdin.write(folder + "\n")
                self._server.stdin.flush()
            except (BrokenPipeError, ValueError) as broken:
                raise YardstickFailed(f"the yardstick's process ended ({self._server.poll()})") from broken
            if not select.select([self._server.stdout], [], [], ANSWER_SECONDS)[0]:
                raise YardstickFailed(f"the yardstick gave no answer within {ANSWER_SECONDS:.0f} s")
            answer = self._server.stdout.readline()
        if not answer:
            raise YardstickFailed(f"the yardstick's process ended ({self._server.wait()})")
        self.times.setdefault(game, []).extend(tuple(each) for each in json.loads(answer))
        self.cpu += cpu_seconds() - spent

    def median(self, game: str) -> tuple[float, float]:
        """`game`'s yardstick: the median (wall, CPU) seconds of saving one of its pictures."""
        walls, cpus = zip(*self.times[game])
        return statistics.median(walls), statistics.median(cpus)

    def close(self) -> None:
        """Stop the server: it ends at the end of its input, or is killed after a minute."""
        with contextlib.suppress(BrokenPipeError, OSError):
            if self._server.stdin is not None:
                self._server.stdin.close()
        try:
            self._server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self._server.kill()
            self._server.wait()


class TimedMoves:
    """One game's timed moves: their latencies (seconds) and pictures, the yardstick timed after every BLOCK
    moves on every SAMPLE-th picture since (`done` times the rest), and the CPU of all processes over the
    moves less what the yardstick's turns spent (the event loop waits through a turn; a process that works
    on by itself meanwhile, as the long jobs' one rating a finished game, is left out with it)."""

    def __init__(self, game: str, yardstick: Yardstick) -> None:
        self.game, self.yardstick = game, yardstick
        self.latencies: list[float] = []
        self.pictures: list[bytes] = []
        self._sampled = 0    # pictures[:_sampled] have had their sample timed
        self._cpu = cpu_seconds()
        self._yardstick_cpu = yardstick.cpu
        self.cpu = 0.0

    def seen(self, latency: float, picture: bytes | None) -> None:
        """A move's latency and picture, then the yardstick's turn after every BLOCK moves."""
        self.latencies.append(latency)
        if picture is not None:
            self.pictures.append(picture)
        if len(self.latencies) % BLOCK == 0:
            self._time_block()

    def _time_block(self) -> None:
        first, self._sampled = self._sampled, len(self.pictures)
        sample = [self.pictures[i] for i in range(first, self._sampled) if i % SAMPLE == 0]
        self.yardstick.time_saves(self.game, sample)

    def done(self) -> None:
        """The last block's yardstick, and the moves' CPU (the yardstick's own left out)."""
        self._time_block()
        self.cpu = cpu_seconds() - self._cpu - (self.yardstick.cpu - self._yardstick_cpu)


async def time_each_game(games: list[Any], warm_up: Callable[[Any], Awaitable[object]],
                         play: Callable[[Any, TimedMoves], Awaitable[object]]) -> list[TimedMoves]:
    """Each of `games` warmed up (`warm_up`), then its moves played and timed (`play`), its yardstick timed
    between blocks of them; the yardstick's process is stopped after, whatever happens."""
    played = []
    with Yardstick() as yardstick:
        for ruleset in games:
            await warm_up(ruleset)
            timed = TimedMoves(ruleset.id, yardstick)
            await play(ruleset, timed)
            timed.done()
            played.append(timed)
    return played


def game_line(timed: TimedMoves) -> str:
    """A game's line: its warm p50 and p99, its yardstick and their ratio, its CPU a move and the CPU ratio."""
    p50, p99 = percentile(timed.latencies, .5), percentile(timed.latencies, .99)
    wall, cpu = timed.yardstick.median(timed.game)
    per_move = timed.cpu / len(timed.latencies)
    return (f"game {timed.game}: warm p50 {p50 * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms, yardstick {wall * 1000:.1f} "
            f"ms, ratio {p50 / wall:.2f} (yardstick in a clean process, timed between blocks of these moves); "
            f"CPU {per_move * 1000:.1f} ms a move over all processes, yardstick CPU {cpu * 1000:.1f} ms, "
            f"CPU ratio {per_move / cpu:.2f}")


def _timed_saves(folder: Path) -> list[tuple[float, float]]:
    """The (wall, CPU) seconds to save each picture under `folder` as RGB PNG at level 1, in this process;
    every picture is loaded (and one saved, untimed) before any timing."""
    from PIL import Image

    images = []
    for path in sorted(folder.glob("*.png")):
        with Image.open(path) as picture:
            images.append(picture.convert("RGB"))
    images[0].save(io.BytesIO(), format="PNG", compress_level=1)
    times = []
    for image in images:
        started, cpu = time.perf_counter(), time.process_time()
        image.save(io.BytesIO(), format="PNG", compress_level=1)
        times.append((time.perf_counter() - started, time.process_time() - cpu))
    return times


def _serve_saves() -> None:
    """The yardstick's process: for each folder named on a line of its input, the times of its pictures'
    saves (_timed_saves) as a line of JSON."""
    for line in sys.stdin:
        print(json.dumps(_timed_saves(Path(line.strip()))), flush=True)


async def main(moves: int = MOVES, channels: int = 30, channel_moves: int = 10) -> None:
    from bot.storage.store import Store
    from rules.registry import rulesets

    service_type, actor, parse = _modules()
    with tempfile.TemporaryDirectory() as folder:
        store = await Store.open(str(Path(folder) / "bench.db"))
        workers = _render_processes()
        if workers is not None:
            await workers.warm()
            if hasattr(workers, "warm_at_start"):   # as this tree's `pitboss run` starts (8dd771d's has none)
                warming = workers.warm_at_start()
                if warming is not None:
                    await warming
        heavy = _heavy_process()
        service = service_type(store, render_processes=workers, heavy=heavy)
        # as `pitboss run` (this tree's and 8dd771d's) settles its memory once started: what start-up made is
        # frozen out of the collector's way, else a full collection walks all of it under some move
        # (55 ms under one Speedway move here, that game's p99)
        gc.collect()
        gc.freeze()
        games = [r for r in rulesets() if r.id in OPENINGS]
        figures = await time_each_game(
            games, lambda ruleset: _games(service, actor, parse, ruleset, "warmup", WARMUP_SEED, WARMUP_MOVES),
            lambda ruleset, timed: _games(service, actor, parse, ruleset, "game", SEED, moves, timed))
        for timed in figures:
            print(game_line(timed))
            sizes = [len(picture) for picture in timed.pictures]
            print(f"game {timed.game}: bytes median {statistics.median(sizes) / 1000:.1f} KB, max "
                  f"{max(sizes) / 1000:.1f} KB over {len(sizes)} pictures", flush=True)
        mix = [games[i % len(games)] for i in range(channels)]
        for i, ruleset in enumerate(mix):
            await _play(service, actor, parse, f"mix-{i}", _opening(ruleset.id, SEED + 100 + i))
        scripts = [_script(ruleset, parse, SEED + 100 + i, channel_moves) for i, ruleset in enumerate(mix)]
        started, cpu = time.perf_counter(), cpu_seconds()
        counts = await asyncio.gather(*(_play(service, actor, parse, f"mix-{i}", lines)
                                        for i, lines in enumerate(scripts)))
        wall, cpu = time.perf_counter() - started, cpu_seconds() - cpu
        print(f"{channels} channels of all {len(games)} games at once, {sum(counts)} moves in {wall:.2f} s: "
              f"{sum(counts) / wall:.1f} moves/s; CPU {cpu / sum(counts) * 1000:.1f} ms a move over all processes")
        if workers is not None:
            workers.close()
        heavy.close()
        await store.close()


if __name__ == "__main__":
    if sys.argv[1:2] == ["--yardstick-serve"]:
        _serve_saves()
    else:   # an optional number of timed moves a game (default MOVES: the old medians' pictures)
        asyncio.run(main(int(sys.argv[1]) if sys.argv[1:] else MOVES))
