"""`pitboss bench`, every game: a warm move's latency beside the yardstick of its own picture, and the
throughput of many channels playing a mix of all the games.

Each game is played by "people" (no computer seats, so every move is one timed command) whose commands
a seeded policy picks among the legal actions, worked out with the rules alone before any timing
starts. The yardstick of a game is what any Pillow-based bot pays for the same pictures: plain Pillow
saving them as RGB PNG at compression level 1.
"""

from __future__ import annotations

import asyncio
import io
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from PIL import Image

from bot.table.protocol.commands import parse
from bot.table.service.entry import Actor, GameService
from rules.engine import LegalAction, Ruleset
from rules.registry import rulesets

PEOPLE = tuple(Actor(name, name) for name in ("ann", "ben", "cat"))
ATTACKS = 0.7  # how often the policy takes an attack (a primary action) when one is legal
YARDSTICK_PICTURES = 40  # pictures per game timed for the yardstick


@dataclass
class GameFigures:
    """One game's warm moves: their latencies (seconds) and the pictures they posted."""

    latencies: list[float] = field(default_factory=list)
    pictures: list[bytes] = field(default_factory=list)


def percentile(values: list[float], share: float) -> float:
    """The `share` quantile (0..1) by the nearest-rank method."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered) + 0.5) - 1))]


def _pick(legal: list[LegalAction], rng: random.Random) -> LegalAction:
    """A legal action: an attack more often than not where one is offered, else any."""
    attacks = [option for option in legal if option.primary]
    return rng.choice(attacks if attacks and rng.random() < ATTACKS else legal)


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
    rng = random.Random(seed)
    played: list[tuple[Actor, str]] = []
    while len(played) < moves and not ruleset.is_finished(state):
        player = ruleset.acting_players(state)[0]
        legal = [option for option in ruleset.legal_actions(state, player) if option.action is not None]
        if not legal:
            break
        chosen = _pick(legal, rng)
        state = ruleset.apply(state, player, chosen.action)[0]
        played.append((_person(player), chosen.command))
    return played


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
                          figures: GameFigures | None = None) -> int:
    """Play `moves` timed moves of `ruleset`, one game after another (a game that ends gives way to the
    next seed); returns the next unused seed."""
    played = 0
    while played < moves:
        channel = f"{prefix}-{ruleset.id}-{seed}"
        await _run(service, channel, _opening(ruleset, seed))
        lines = script(ruleset, seed, moves - played)
        if figures is None:
            played += await _run(service, channel, lines)
        else:
            def seen(latency: float, picture: bytes | None) -> None:
                figures.latencies.append(latency)
                if picture is not None:
                    figures.pictures.append(picture)
            played += await _run(service, channel, lines, seen)
        seed += 1
    return seed


def yardstick(pictures: list[bytes]) -> float:
    """Median seconds plain Pillow takes to save these pictures (as drawn: RGB) as PNG at level 1."""
    step = max(1, len(pictures) // YARDSTICK_PICTURES)
    times = []
    for picture in pictures[::step][:YARDSTICK_PICTURES]:
        image = Image.open(io.BytesIO(picture)).convert("RGB")
        started = time.perf_counter()
        image.save(io.BytesIO(), format="PNG", compress_level=1)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


async def every_game(service: GameService, say: Callable[[str], None], moves: int, channels: int,
                     channel_moves: int, seed: int) -> None:
    """One line per game (warm p50 and p99 beside its yardstick), then the throughput of `channels`
    channels at once, the games taking turns among them."""
    games = rulesets()
    for ruleset in games:
        seed = await play_game_moves(service, ruleset, "bench-warmup", seed, max(20, moves // 4))
        figures = GameFigures()
        seed = await play_game_moves(service, ruleset, "bench-game", seed, moves, figures)
        p50, p99 = percentile(figures.latencies, .5), percentile(figures.latencies, .99)
        plain = yardstick(figures.pictures)
        say(f"game {ruleset.id}: warm p50 {p50 * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms, "
            f"yardstick {plain * 1000:.1f} ms, ratio {p50 / plain:.2f}")
        sizes = [len(picture) for picture in figures.pictures]
        say(f"game {ruleset.id}: bytes median {statistics.median(sizes) / 1024:.1f} KB, max {max(sizes) / 1024:.1f} KB "
            f"over {len(sizes)} pictures")
    mix = [games[i % len(games)] for i in range(channels)]
    openings, scripts = [], []
    for i, ruleset in enumerate(mix):
        openings.append(_run(service, f"bench-mix-{i}", _opening(ruleset, seed + i)))
        scripts.append(script(ruleset, seed + i, channel_moves))
    for opening in openings:
        await opening
    latencies: list[float] = []
    started = time.perf_counter()
    counts = await asyncio.gather(*(_run(service, f"bench-mix-{i}", lines, lambda s, _p: latencies.append(s))
                                    for i, lines in enumerate(scripts)))
    wall = time.perf_counter() - started
    say(f"{channels} channels of all {len(games)} games at once, {sum(counts)} moves in {wall:.2f} s: "
        f"{sum(counts) / wall:.1f} moves/s; latency p50 {percentile(latencies, .5) * 1000:.1f} ms, "
        f"p99 {percentile(latencies, .99) * 1000:.1f} ms")
