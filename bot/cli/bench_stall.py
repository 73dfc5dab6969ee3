"""`pitboss bench --stall`: what one user's heaviest allowed jobs cost everyone else.

It stores two games with the longest log an import may re-play (a Speedway duel of MAX_REPLAY_ACTIONS
legal actions, the cars circling at speed 1): one finished, one running. Then one user runs, one after
another, a re-play import of the finished one, /game verify, /game replay (the GIF) and /undo on the
running one, while another user asks /game status in another channel every 100 ms and a ticker
measures how late the event loop wakes. It prints each job's duration, the other user's reply times
(median and max) and the loop's worst lateness, against the same figures with no heavy job running.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import time
from typing import Any, TextIO

from bot.storage.store import Store
from bot.table.commands import Command, parse
from bot.table.commitment import commitment
from bot.table.importer import MAX_REPLAY_ACTIONS
from bot.table.queries import EXPORT_FORMAT
from bot.table.service import Actor, GameService
from rules.codec import dumps, encode_state, encode_tagged
from rules.engine import replay_with_events
from rules.registry import get_ruleset

SEED = 5
FOREIGN_GAME_ID = 2**40


def circling_log(host: str, guest: str, length: int = MAX_REPLAY_ACTIONS) -> list[tuple[str, Any]]:
    """A legal Speedway log of `length` actions: two cars join, start and circle at speed 1; the host
    ends the game with the last action."""
    ruleset = get_ruleset("speedway")
    state = ruleset.setup({}, SEED, host)
    log: list[tuple[str, Any]] = []

    def play(player: str, line: str) -> None:
        nonlocal state
        command = parse(line)
        action = ruleset.command_to_action(command.name, command.options)
        state = ruleset.apply(state, player, action)[0]
        log.append((player, action))

    for player, line in ((host, "/game join"), (guest, "/game join"), (host, "/game start")):
        play(player, line)
    while len(log) < length - 1:
        player = ruleset.acting_players(state)[0]
        if state.phase == "upkeep":
            play(player, "/speed value:1")
            continue
        legal = [a.command for a in ruleset.legal_actions(state, player)]
        play(player, next((c for c in legal if c == "/move maneuver:turn-left"), None)
             or next((c for c in legal if c.startswith("/end")), None)
             or next(c for c in legal if not c.startswith("/fire")))
    play(host, "/game end")
    return log


def export_of(log: list[tuple[str, Any]], host: str) -> bytes:
    """The log as /game export writes a finished game's file (seed included), from another installation
    (a game id this bot does not hold), so importing it re-plays every action."""
    document = {"format": EXPORT_FORMAT, "format_version": 1, "game_id": FOREIGN_GAME_ID, "ruleset": "speedway",
                "host": host, "options": {}, "seed_commitment": commitment(SEED), "seed": SEED,
                "status": "finished", "version": len(log),
                "actions": [{"seq": i, "actor": actor, "action": encode_tagged(action)}
                            for i, (actor, action) in enumerate(log, start=1)]}
    return json.dumps(document, separators=(",", ":")).encode()


async def store_running_game(store: Store, channel: str, log: list[tuple[str, Any]], host: str,
                             guild: str = "") -> None:
    """Store a running game with all but the last (ending) action of `log`, in one transaction."""
    ruleset = get_ruleset("speedway")
    running = log[:-1]
    first, state, events = replay_with_events(ruleset, {}, SEED, host, running)
    entries = [(actor, dumps(encode_tagged(action)), dumps([encode_tagged(e) for e in happened]))
               for (actor, action), happened in zip(running, events)]
    async with store.transaction():
        game = await store.create_game_tx(channel, "speedway", host, SEED, "{}", encode_state(first), guild)
        await store.append_log_tx(game, entries, encode_state(state), "active")
        await store.add_seats_tx(game.id, (host, running[1][0]))


async def _ticker(lateness: list[float], stop: asyncio.Event, period: float = 0.01) -> None:
    while not stop.is_set():
        asked = time.perf_counter()
        await asyncio.sleep(period)
        lateness.append(time.perf_counter() - asked - period)


async def _asker(service: GameService, replies: list[float], stop: asyncio.Event) -> None:
    other = Actor("other", "other")
    while not stop.is_set():
        asked = time.perf_counter()
        await service.execute("chan-other", other, parse("/game status"))
        replies.append(time.perf_counter() - asked)
        await asyncio.sleep(0.1)


async def _measured(service: GameService, job) -> tuple[float, list[float], list[float], Any]:
    stop = asyncio.Event()
    lateness: list[float] = []
    replies: list[float] = []
    watchers = [asyncio.create_task(_ticker(lateness, stop)), asyncio.create_task(_asker(service, replies, stop))]
    await asyncio.sleep(0.3)
    started = time.perf_counter()
    result = await job() if job else await asyncio.sleep(2.0)
    took = time.perf_counter() - started
    stop.set()
    await asyncio.gather(*watchers)
    return took, replies, lateness, result


async def stall_bench(db_path: str, out: TextIO = sys.stdout) -> int:
    """Run the stall benchmark on a new database at `db_path`; print the figures."""
    say = lambda text: print(text, file=out, flush=True)  # noqa: E731
    started = time.perf_counter()
    log = circling_log("ann", "ben")
    data = export_of(log, "ann")
    say(f"longest re-playable log: {len(log)} actions, export {len(data) / 1e6:.2f} MB, "
        f"built in {time.perf_counter() - started:.1f} s")
    store = await Store.open(db_path)
    try:
        service = GameService(store)
        await store_running_game(store, "chan-running", log, "ann")
        for user, line in (("other", "/game new ruleset:speedway seed:1"), ("other", "/game join"),
                           ("someone", "/game join"), ("other", "/game start")):
            await service.execute("chan-other", Actor(user, user), parse(line))
        heavy = Actor("ann", "ann")
        last = Actor(log[-2][0], log[-2][0])  # who acted last in the running game: they may undo
        jobs = [
            ("nothing (baseline)", None),
            ("/game import (re-play)", lambda: service.execute("chan-import", heavy,
                                                               Command("game import", {"file": data}))),
            ("/game verify", lambda: service.execute("chan-import", heavy, parse("/game verify"))),
            ("/game replay (GIF)", lambda: service.execute("chan-import", heavy, parse("/game replay"))),
            ("/undo", lambda: service.execute("chan-running", last, parse("/undo"))),
        ]
        say(f"{'while':<24} {'job':>8} {'other /game status: median':>27} {'max':>9} {'loop late max':>14}")
        for label, job in jobs:
            took, replies, lateness, result = await _measured(service, job)
            if result is not None and result.outcome not in ("applied", "shown"):
                say(f"  {label} was refused: {result.text}")
            say(f"{label:<24} {took * 1000:>6.0f} ms {statistics.median(replies) * 1000:>24.1f} ms "
                f"{max(replies) * 1000:>6.1f} ms {max(lateness) * 1000:>11.1f} ms")
    finally:
        await store.close()
    return 0
