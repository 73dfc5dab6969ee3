"""`pitboss bench`: how fast a move is, end to end, with the real store and renderer: Speedway in detail,
then a line for every game and a mix of all of them (bot.cli.bench_games).

Games are played by "people" whose commands a computer policy picks (from the stored state, outside
the timed part), so every timed call is one `GameService.execute` exactly as Discord or the command
line makes it: lock, load, apply, store (one SQLite transaction), render the PNG, build the reply.

It prints: the first pictures after a start beside the same commands warm; per-move latency p50/p95/p99
on one channel, cold (the first moves of a fresh process) and warm (as many again after them), and
under load; drawing and PNG encoding of the same images (encoding, by the encoder and level the moves
use, is the floor) and their ratio, and the yardstick any Pillow-based bot pays: the same pictures saved
by plain Pillow as PNG at compression level 1, timed in a fresh process (bot.cli.bench_clean); PNG sizes;
the time to load a game after 10 and after 1,000 actions; throughput across many channels at once; then
each game's warm move beside its own yardstick (timed between blocks of its moves:
bot.cli.bench_portable.Yardstick), its bytes beside 8dd771d's, and many channels of all the games at once
(the peak memory under them); and memory: idle, after the load, and after an idle wait (600 s by
default: idle worker processes are stopped after PITBOSS_WORKER_IDLE_SECONDS), with the first pictures
after that wait. Wall-clock figures on a shared machine are noisy: the CPU time of a move over all the
bot's processes is printed beside them. Last, every command's worst loop hold, measured by
bot.cli.bench_stall at its BENCH size in a process of its own.
"""

from __future__ import annotations

import asyncio
import gc
import os
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from bot.cli.bench_clean import clean_floor
from bot.cli.bench_games import _opening, _run, game_lines, mix_of_games, percentile
from bot.cli.bench_memory import PeakMemory, children, pss_mb, tree_mb
from bot.cli.bench_stall import BENCH, FULL, Size
from bot.storage.store import Store, is_postgres, stored
from bot.storage.target import masked
from bot.table.jobs import drawing
from bot.table.jobs.drawing import RenderProcesses
from bot.table.jobs.heavy import HeavyWork
from bot.table.jobs.memory import resident_mb, settle_memory, trim_memory
from bot.table.jobs.workers import IDLE_ENV, idle_seconds
from bot.table.protocol.commands import command_table, parse
from bot.table.service.entry import Actor, GameService
from bot.table.trust.export import events_of
from images.png import encoder_name
from images.speedway import PNG_LEVEL
from rules.registry import get_ruleset
from rules.speedway import ai
from rules.speedway.ruleset import SPEEDWAY
from rules.speedway.state import SpeedwayState

PLAYERS = tuple(Actor(name, name) for name in ("ann", "ben", "cat", "dan", "eve", "fay"))
CARS = ("brawler", "torch", "sniper", "lancer", "bruiser", "brawler")
LONG_GAME = 1000  # actions in the long game whose load time is compared with a 10-action one


@dataclass
class Samples:
    """Timings in seconds and PNG sizes in bytes, gathered as the benchmark runs."""

    latencies: list[float] = field(default_factory=list)
    png_sizes: list[int] = field(default_factory=list)
    views: list[SpeedwayState] = field(default_factory=list)


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def _seating(cars: int) -> list[tuple[Actor, str]]:
    """The joins and the start that follow /game new (logged actions, unlike /game new itself)."""
    return [(PLAYERS[i], f"/game join car:{CARS[i]}") for i in range(cars)] + [(PLAYERS[0], "/game start")]


async def _open_game(service: GameService, channel: str, seed: int, cars: int = 2) -> None:
    for actor, line in [(PLAYERS[0], f"/game new ruleset:speedway seed:{seed}")] + _seating(cars):
        reply = await service.execute(channel, actor, parse(line))
        if reply.outcome != "applied":
            raise RuntimeError(f"bench setup refused: {line}: {reply.text}")


def _script(seed: int, moves: int, cars: int = 2) -> list[tuple[Actor, str]]:
    """The first `moves` commands (fewer if it ends) of the game `_open_game` makes with this seed, as
    the computer policy picks them, worked out with the rules alone before any timing starts."""
    state = SPEEDWAY.setup(SPEEDWAY.new_game_options({}), seed, PLAYERS[0].id)
    for actor, line in _seating(cars):
        command = parse(line)
        action = SPEEDWAY.command_to_action(command.name, {**command.options, "name": actor.name})
        state = SPEEDWAY.apply(state, actor.id, action)[0]
    script: list[tuple[Actor, str]] = []
    while len(script) < moves and not SPEEDWAY.is_finished(state):
        (player,) = SPEEDWAY.acting_players(state)
        line = ai.choose_command(state, player, [a.command for a in SPEEDWAY.legal_actions(state, player)])
        command = parse(line)
        state = SPEEDWAY.apply(state, player, SPEEDWAY.command_to_action(command.name, command.options))[0]
        script.append((next(a for a in PLAYERS if a.id == player), line))
    return script


async def _play(service: GameService, channel: str, script: list[tuple[Actor, str]], samples: Samples) -> int:
    """Time each command of a script in one channel; every one must be applied."""
    for actor, line in script:
        started = time.perf_counter()
        reply = await service.execute(channel, actor, parse(line))
        samples.latencies.append(time.perf_counter() - started)
        if reply.outcome != "applied":
            raise RuntimeError(f"bench move refused: {line}: {reply.text}")
        if reply.image is not None:
            samples.png_sizes.append(len(reply.image))
    return len(script)


async def _one_channel(service: GameService, prefix: str, seed: int, moves: int, samples: Samples) -> int:
    """Time `moves` moves one game at a time (games end: the next seed goes on); the next unused seed."""
    played = 0
    while played < moves:
        await _open_game(service, f"{prefix}-{seed}", seed)
        played += await _play(service, f"{prefix}-{seed}", _script(seed, moves - played), samples)
        seed += 1
    return seed


async def _long_game(service: GameService, store: Store, seed: int) -> int:
    """A finished all-computer game of at least LONG_GAME actions (six cars); returns its id."""
    for attempt in range(20):
        channel = f"bench-long-{attempt}"
        await service.execute(channel, PLAYERS[0], parse(f"/game new ruleset:speedway seed:{seed + attempt}"))
        for design in CARS:
            await service.execute(channel, PLAYERS[0], parse(f"/game add-ai car:{design}"))
        await service.execute(channel, PLAYERS[0], parse("/game start"))
        game = stored(await store.latest_game(channel), channel)
        if len(await store.actions(game.id)) >= LONG_GAME:
            return game.id
    raise RuntimeError(f"no computer game reached {LONG_GAME} actions")


async def _load_times(service: GameService, store: Store, repeats: int,
                      seed: int) -> tuple[float, float, int, list[int]]:
    """Median time to load and decode a six-car game after 10 actions, and one after LONG_GAME or more;
    the long game's length, and both snapshots' sizes (loading reads the snapshot, never the log)."""
    short = "bench-load-10"
    await _open_game(service, short, seed, cars=6)
    await _play(service, short, _script(seed, 10 - 7, cars=6), Samples())  # six joins and the start are 7 of 10
    short_id = stored(await store.active_game(short), short).id
    long_id = await _long_game(service, store, seed)

    timings: dict[int, list[float]] = {short_id: [], long_id: []}
    for _ in range(repeats):  # alternated, so a slow patch of the machine hits both alike
        for game_id in (short_id, long_id):
            started = time.perf_counter()
            game = stored(await store.game(game_id), f"game {game_id}")
            SPEEDWAY.load_state(game.state)
            timings[game_id].append(time.perf_counter() - started)
    short_median, long_median = (statistics.median(timings[game_id]) for game_id in (short_id, long_id))
    sizes = [len(stored(await store.game(game_id), f"game {game_id}").state) for game_id in (short_id, long_id)]
    return short_median, long_median, len(await store.actions(long_id)), sizes


async def _first_pictures(service: GameService, channel: str, seed: int) -> tuple[float, float, float, float]:
    """A Speedway game's opening (/game new, the joins, the start: each answered with its picture) in a new
    channel: the wall and CPU seconds (this process's: with no render process running, the pictures are
    drawn here) of its first command, and of all of them."""
    started, cpu = time.perf_counter(), time.process_time()
    first: tuple[float, float] | None = None

    def seen(_latency: float, _picture: bytes | None) -> None:
        nonlocal first
        first = first or (time.perf_counter() - started, time.process_time() - cpu)

    await _run(service, channel, _opening(get_ruleset("speedway"), seed), seen)
    assert first is not None
    return (*first, time.perf_counter() - started, time.process_time() - cpu)


def _shares() -> str:
    """Each process's share of the memory figure: the bot's own process (the bench's code in it, none of
    its data: see _let_go) and each of its children."""
    each = ", ".join(f"{pss_mb(pid):.0f}" for pid in children(os.getpid()))
    return f"the bot's own process {pss_mb(os.getpid()):.0f} MB, the others {each or 'none'}"


def _let_go(*held: list) -> None:
    """Empty the bench's own bookkeeping (timings, sizes, scripts, views), so the memory figures after it
    are the bot's: what the bench's process holds then is the bot, with the bench's code (~3 MB) and no
    data of its own. Nothing is given back to the system here: the bot does that itself in a lull."""
    for items in held:
        items.clear()
    gc.collect()


def _first_line(when: str, first: tuple[float, ...], warm: tuple[float, ...]) -> str:
    wall, cpu, walls, cpus = first
    return (f"first pictures {when}: /game new {_ms(wall)} (CPU {_ms(cpu)}), the opening's 4 commands "
            f"{_ms(walls)} (CPU {_ms(cpus)}); the same again warm {_ms(warm[0])} (CPU {_ms(warm[1])}), "
            f"{_ms(warm[2])} (CPU {_ms(warm[3])}): {wall / warm[0]:.1f}x and {walls / warm[2]:.1f}x, "
            f"CPU {cpu / warm[1]:.1f}x and {cpus / warm[3]:.1f}x")


def service_of(store: Store, workers: RenderProcesses | None, heavy: HeavyWork) -> GameService:
    """The service the bench plays through: pictures on `workers`, long jobs on `heavy`, as `pitboss run`."""
    return GameService(store, render_processes=workers, heavy=heavy)


async def _idle_with_a_game(service: GameService, seed: int) -> tuple[float, int]:
    """(MB, processes) of a bot that has just started a game and played a few moves in it, then idles: as
    `pitboss run` holds it (the Discord library loaded) once it has given back its free heap in the lull,
    before any load started a worker process."""
    import bot.chat.adapter  # noqa: F401 - what the running bot's process holds besides the games

    await _open_game(service, "bench-idle", seed)
    await _play(service, "bench-idle", _script(seed, 6), Samples())
    settle_memory()
    trim_memory(collect=False)   # what the bot does 30 s into a lull (drawing.LULL_SECONDS), without the wait
    await asyncio.sleep(0.5)
    return tree_mb()


async def _idle_as_the_bot(service: GameService, wait: float) -> None:
    """`wait` seconds as `pitboss run` idles: no command, and its scheduler's round every PITBOSS_TICK_SECONDS
    (reminders and turns due, digests, rank roles: bot.chat.adapter's scheduler, less the posting)."""
    from bot.chat.adapter import tick_seconds

    loop = asyncio.get_running_loop()
    end = loop.time() + wait
    while (left := end - loop.time()) > 0:
        await asyncio.sleep(min(tick_seconds(), left))
        if loop.time() < end:
            await service.run_due()
            await service.due_digests()
            await service.rank_roles.due_guilds()


async def _after_idling(service: GameService, workers: RenderProcesses | None, wait: float, seed: int,
                        warm: tuple[float, ...], say) -> None:
    """Wait `wait` seconds with nothing to do, as a bot after its last move (its scheduler's rounds go on:
    _idle_as_the_bot); then its memory, and the first pictures after the wait beside the same commands warm."""
    await _idle_as_the_bot(service, wait)
    after = tree_mb()
    retired = f"; {workers.retired} render processes stopped so far" if workers is not None else ""
    say(f"memory {wait:g} s after the last move: {after[0]:.0f} MB in {after[1]} processes ({_shares()}; idle "
        f"workers stop after {idle_seconds():.0f} s, {IDLE_ENV}{retired})")
    running = workers.started if workers is not None else 0
    say(_first_line("after that wait", await _first_pictures(service, "bench-after-idle", seed), warm)
        + (f"; {running} render processes still run (the CPU figure leaves their share out)" if running else ""))


async def bench(db_path: str, channels: int = 100, moves: int = 10, single: int = 400, seed: int = 1,
                stream: TextIO = sys.stdout, game_moves: int = 200, idle_wait: float = 600.0,
                stall: Size | None = BENCH) -> int:
    """Run the benchmark on a fresh database at `db_path` and print its figures; then, unless `stall` is None,
    every command's worst loop hold at that size."""
    store = await Store.open(db_path)
    workers = RenderProcesses.configured()
    heavy = HeavyWork(process=True)   # as `pitboss run`: started by the first long job
    try:
        say = lambda text: print(text, file=stream, flush=True)  # noqa: E731
        say(f"pitboss bench: Speedway, 2 cars on the classic arena, "
            f"{'PostgreSQL' if is_postgres(db_path) else 'SQLite'} at {masked(db_path)}; PNG by "
            f"{encoder_name(PNG_LEVEL)} for the channel picture (Speedway's level), {encoder_name()} for the rest")
        command_table()   # as `pitboss run` has it before any command: its client lays out the slash commands
        if workers is not None:   # as `pitboss run` starts: its own drawing warmed on a thread
            started = time.perf_counter()
            await workers.warm_here()
            say(f"the bot's own drawing warmed on a thread in {time.perf_counter() - started:.2f} s (a command "
                f"sooner draws while it warms)")
        first = await _first_pictures(service_of(store, workers, heavy), "bench-first", seed + 5000)
        warm_first = await _first_pictures(service_of(store, workers, heavy), "bench-first-warm", seed + 5001)
        say(_first_line("after a start", first, warm_first))
        idle = await _idle_with_a_game(service_of(store, workers, heavy), seed)
        if workers is not None:   # a busy bot's steady state: every render process it may use, warm
            started = time.perf_counter()
            await workers.warm()
            zygote = workers.zygote_pid
            say(f"{workers.processes} render processes ({drawing.ENV}), started and warmed in "
                f"{time.perf_counter() - started:.2f} s; each warm: "
                f"{', '.join(f'{pss_mb(pid):.0f}' for pid in workers.pids())} MB (proportional set size)"
                + (f", forked from a zygote of {pss_mb(zygote):.0f} MB ({drawing.ZYGOTE_ENV}=0: none)"
                   if zygote is not None else ""))
        else:
            say(f"pictures drawn on threads ({drawing.ENV}=0)")
        service = service_of(store, workers, heavy)

        one = Samples()
        seed = await _one_channel(service, "bench-one", seed, single, one)
        lat = one.latencies
        say(f"one channel, {len(lat)} moves, each a full command with its PNG, cold (a fresh process): "
            f"p50 {_ms(percentile(lat, .5))}, p95 {_ms(percentile(lat, .95))}, p99 {_ms(percentile(lat, .99))}")
        settle_memory()          # as the bot does once it has started
        warm = Samples()
        seed = await _one_channel(service, "bench-warm", seed, single, warm)   # now that the process is warm
        hot = warm.latencies
        say(f"one channel, {len(hot)} moves, warm: p50 {_ms(percentile(hot, .5))}, p95 {_ms(percentile(hot, .95))}, "
            f"p99 {_ms(percentile(hot, .99))}")

        many = Samples()
        names = [f"bench-{i}" for i in range(channels)]
        scripts = [_script(seed + i, moves) for i in range(channels)]
        for i, name in enumerate(names):
            await _open_game(service, name, seed + i)
        started = time.perf_counter()
        async with PeakMemory() as loaded:
            counts = await asyncio.gather(*(_play(service, name, script, many)
                                            for name, script in zip(names, scripts)))
        wall = time.perf_counter() - started
        lat = many.latencies
        say(f"{channels} channels at once, {sum(counts)} moves in {wall:.2f} s: {sum(counts) / wall:.1f} moves/s; "
            f"latency under that load p50 {_ms(percentile(lat, .5))}, p95 {_ms(percentile(lat, .95))}, "
            f"p99 {_ms(percentile(lat, .99))}")

        views = []
        for name in names[:40]:
            record = await store.active_game(name)
            if record is not None:
                last = await store.recent_actions(record.id, 1)
                views.append((SPEEDWAY.view(SPEEDWAY.load_state(record.state), None), events_of(SPEEDWAY, last[-1])))
        draw, encode, plain = clean_floor(views)
        say(f"render {len(views)} pictures (in a clean process): drawing {_ms(draw)}, PNG encoding {_ms(encode)} "
            f"(the floor: {encoder_name(PNG_LEVEL)}, as the moves), render+encode {_ms(draw + encode)} = "
            f"{(draw + encode) / encode:.2f}x the encoding alone")
        say(f"the same pictures saved by plain Pillow as PNG at level 1 (in a clean process): {_ms(plain)}; our "
            f"encoder {encode / plain:.2f}x that; a warm move's p50 {percentile(hot, .5) / plain:.2f}x that")
        sizes = one.png_sizes + many.png_sizes
        say(f"PNG size over {len(sizes)} pictures: median {statistics.median(sizes) / 1000:.0f} KB, "
            f"max {max(sizes) / 1000:.0f} KB")

        short, long, actions, sizes = await _load_times(service, store, 1000, seed)
        say(f"load a six-car game (read + decode the snapshot): after 10 actions {_ms(short)}, after {actions} actions "
            f"{_ms(long)}, ratio {long / short:.2f} (snapshots {sizes[0] / 1000:.1f} and {sizes[1] / 1000:.1f} KB)")
        mix_seed = await game_lines(service, say, game_moves, seed + 1000)
        async with PeakMemory() as mixed:   # the yardstick's process, the game lines' only, has ended
            await mix_of_games(service, say, channels, moves, mix_seed)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        workers_mb = [pss_mb(pid) for pid in workers.pids()] if workers is not None else []
        say(f"resident memory: the bot's process {resident_mb():.0f} MB now, {peak:.0f} MB peak"
            + (f"; its {len(workers_mb)} render processes {', '.join(f'{mb:.0f}' for mb in workers_mb)} MB "
               f"(proportional set size)" if workers_mb else ""))
        _let_go(one.latencies, one.png_sizes, warm.latencies, warm.png_sizes, many.latencies, many.png_sizes,
                lat, hot, sizes, scripts, views, names)
        after = tree_mb()
        say(f"memory (proportional set size, the bot and all its processes): idle with one game {idle[0]:.0f} MB "
            f"in {idle[1]} processes; peak under the load of {channels} channels {loaded.peak[0]:.0f} MB "
            f"in {loaded.peak[1]} processes, of every game {mixed.peak[0]:.0f} MB in {mixed.peak[1]} (resident, shared "
            f"pages counted in each process: {max(loaded.peak_resident, mixed.peak_resident):.0f} MB at most); after "
            f"the load {after[0]:.0f} MB in {after[1]} processes ({_shares()}; the bench's own data let go first)")
        await _after_idling(service, workers, idle_wait, seed + 5002, warm_first, say)
    finally:
        if workers is not None:
            workers.close()
        heavy.close()
        await store.close()
    if stall is not None:
        await _stall_pass(db_path, stall, say)
    return 0


async def _stall_pass(db_path: str, size: Size, say: Callable[[str], None]) -> None:
    """Every command's worst loop hold (bot.cli.bench_stall at `size`), in a process of its own: the bench's
    own heap and workers neither slow it nor count in its figures, nor it in theirs. The lines it prints, and
    what it took."""
    say(f"every command's worst loop hold: {size.running} running games on a server, a {size.long_actions}-action "
        f"game, {size.rounds} {'run' if size.rounds == 1 else 'runs'} of each command (`pitboss bench --stall`: "
        f"{FULL.running} and {FULL.long_actions}, {FULL.rounds} runs)")
    started, before = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
    with tempfile.TemporaryDirectory() as folder:
        target = db_path if is_postgres(db_path) else str(Path(folder) / "stall.db")
        child = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", "bench", "--stall", "--db", target, "--stall-size", str(size.running),
            "--stall-rounds", str(size.rounds), stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
        assert child.stdout is not None
        async for line in child.stdout:
            say(f"  {line.decode().rstrip()}")
        status = await child.wait()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    say(f"the loop-hold pass took {time.perf_counter() - started:.0f} s, CPU {cpu:.0f} s in all its processes"
        + ("" if status == 0 else f" (it exited {status}: a command over the limit, or not covered)"))
