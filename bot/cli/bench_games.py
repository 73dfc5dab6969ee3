"""`pitboss bench`, every game: a warm move's latency beside the yardstick of its own picture, and the
throughput of many channels playing a mix of all the games.

Each game is played by "people" (no computer seats, so every move is one timed command) whose commands
a seeded policy picks among the legal actions, worked out with the rules alone before any timing
starts. The yardstick of a game is what any Pillow-based bot pays for the same pictures: plain Pillow
saving them as RGB PNG at compression level 1, timed in a fresh process between blocks of the moves that
drew them (bot.cli.bench_portable.Yardstick), so both are timed in the same minutes. Beside
the wall-clock figures, the CPU time of a move over all the bot's processes (what a shared machine's
neighbours change least). A game's timed moves start at BYTES_SEED, the games whose median bytes on
8dd771d are bench_clean.OLD_MEDIANS: with --game-moves 200 the pictures are the same.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Callable

from bot.cli.bench_clean import OLD_COMMIT, OLD_MEDIANS
from bot.cli.bench_portable import TimedMoves, cpu_seconds, game_line, percentile, policy_moves, time_each_game
from bot.cli.bench_portable import pick as _pick  # noqa: F401 - the tests' policy too
from bot.table.protocol.commands import parse
from bot.table.service.entry import Actor, GameService
from rules.engine import Ruleset
from rules.registry import rulesets

PEOPLE = tuple(Actor(name, name) for name in ("ann", "ben", "cat"))
BYTES_SEED = 2000        # the first seed of each game's timed moves (OLD_MEDIANS were measured from it)
OLD_MOVES = 200          # ... over this many moves


def _opening(ruleset: Ruleset, seed: int) -> list[tuple[Actor, str]]:
    """The commands that make a game: the game's own example opening (rules.engine.ExampleOpening), its
    creation with `seed`, the joins and the start."""
    return [(_person(player), line) for player, line in ruleset.example.lines(ruleset.id, seed)]


def _person(name: str) -> Actor:
    return next((p for p in PEOPLE if p.id == name), Actor(name, name))


def script(ruleset: Ruleset, seed: int, moves: int,
           opening: list[tuple[Actor, str]] | None = None) -> list[tuple[Actor, str]]:
    """The first `moves` commands (fewer if the game ends) of the game `opening` (by default `_opening`'s)
    makes with `seed`, as the policy picks them, worked out with the rules alone."""
    opening = opening or _opening(ruleset, seed)
    host, made = opening[0][0], parse(opening[0][1]).options
    options = {k: v for k, v in made.items() if k not in ("ruleset", "seed")}
    state = ruleset.setup(ruleset.new_game_options(options), seed, host.id)
    for actor, line in opening[1:]:
        command = parse(line)
        action = ruleset.command_to_action(command.name, {**command.options, "name": actor.name})
        state = ruleset.apply(state, actor.id, action)[0]
    return [(_person(player), line) for player, line in policy_moves(ruleset, state, seed, moves)]


async def _run(service: GameService, channel: str, lines: list[tuple[Actor, str]],
               seen: Callable[[float, bytes | None], None] = lambda _s, _p: None) -> int:
    """Send commands to one channel, each of which must be applied; `seen` gets each one's latency and
    picture."""
    for actor, line in lines:
        started = time.perf_counter()
        reply = await service.execute(channel, actor, parse(line))
        seen(time.perf_counter() - started, reply.image)
        if reply.outcome != "applied":
            raise RuntimeError(f"bench move refused in {channel}: {line}: {reply.text}")
    return len(lines)


async def play_game_moves(service: GameService, ruleset: Ruleset, prefix: str, seed: int, moves: int,
                          timed: TimedMoves | None = None) -> int:
    """Play `moves` moves of `ruleset` (`timed`: each one's latency and picture to it), one game after another
    (a game that ends gives way to the next seed); returns the next unused seed."""
    played = 0
    while played < moves:
        channel = f"{prefix}-{ruleset.id}-{seed}"
        await _run(service, channel, _opening(ruleset, seed))
        lines = script(ruleset, seed, moves - played)
        seen = timed.seen if timed is not None else lambda _latency, _picture: None
        played += await _run(service, channel, lines, seen)
        seed += 1
    return seed


def _bytes_line(game: str, sizes: list[int], moves: int) -> str:
    median = statistics.median(sizes)
    line = (f"game {game}: bytes median {median / 1000:.1f} KB, max {max(sizes) / 1000:.1f} KB "
            f"over {len(sizes)} pictures")
    if game in OLD_MEDIANS:
        same = "the same pictures" if moves == OLD_MOVES else f"other pictures: compare at --game-moves {OLD_MOVES}"
        line += (f"; {median / OLD_MEDIANS[game]:.2f}x the median of {OLD_COMMIT}, "
                 f"{OLD_MEDIANS[game] / 1000:.1f} KB ({same})")
    return line


async def game_lines(service: GameService, say: Callable[[str], None], moves: int, seed: int) -> int:
    """Two lines per game: its warm p50, p99 and CPU a move beside its clean-process yardstick, and its bytes;
    returns the next unused seed."""
    async def warm_up(ruleset: Ruleset) -> None:
        nonlocal seed
        seed = await play_game_moves(service, ruleset, "bench-warmup", seed, max(20, moves // 4))

    async def play(ruleset: Ruleset, timed: TimedMoves) -> None:
        await play_game_moves(service, ruleset, "bench-game", BYTES_SEED, moves, timed)

    for timed in await time_each_game(list(rulesets()), warm_up, play):
        say(game_line(timed))
        say(_bytes_line(timed.game, [len(picture) for picture in timed.pictures], moves))
    return seed


async def mix_of_games(service: GameService, say: Callable[[str], None], channels: int, channel_moves: int,
                       seed: int) -> None:
    """The throughput of `channels` channels at once, the games taking turns among them."""
    games = rulesets()
    mix = [games[i % len(games)] for i in range(channels)]
    openings, scripts = [], []
    for i, ruleset in enumerate(mix):
        openings.append(_run(service, f"bench-mix-{i}", _opening(ruleset, seed + i)))
        scripts.append(script(ruleset, seed + i, channel_moves))
    for opening in openings:
        await opening
    latencies: list[float] = []
    started, cpu = time.perf_counter(), cpu_seconds()
    counts = await asyncio.gather(*(_run(service, f"bench-mix-{i}", lines, lambda s, _p: latencies.append(s))
                                    for i, lines in enumerate(scripts)))
    wall, cpu = time.perf_counter() - started, cpu_seconds() - cpu
    say(f"{channels} channels of all {len(games)} games at once, {sum(counts)} moves in {wall:.2f} s: "
        f"{sum(counts) / wall:.1f} moves/s; latency p50 {percentile(latencies, .5) * 1000:.1f} ms, "
        f"p99 {percentile(latencies, .99) * 1000:.1f} ms; CPU {cpu / sum(counts) * 1000:.1f} ms a move over all "
        f"processes")
