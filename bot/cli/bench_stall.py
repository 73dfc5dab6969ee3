"""`pitboss bench --stall`: what one user's heaviest allowed commands cost everyone else.

It stores a server of GAMES_ON_SERVER running games that one user sits in, and two games with the
longest log an import may re-play (a Speedway duel of MAX_REPLAY_ACTIONS legal actions, the cars
circling at speed 1): one running, one imported and finished. Then that user runs, one after another,
a move in the running game, a re-play import, /game verify, /game replay (the GIF), /game export, /undo
and /games, ROUNDS times over, while another user asks /game status in another channel every 100 ms
and a ticker waking every STALL_TICK measures how late the event loop wakes. It prints each command's median duration,
the other user's reply times (median and max) and the loop's lateness (the worst and the median of
the rounds' worst) against STALL_LIMIT, beside the same figures with no command running. It runs
with the workers `pitboss run` starts: render processes and one process for the long jobs.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import time
from typing import Any, TextIO

from bot.storage.store import Store, stored
from bot.table.jobs.drawing import RenderProcesses
from bot.table.jobs.heavy import HeavyWork
from bot.table.jobs.memory import settle_memory
from bot.table.protocol.commands import Command, parse
from bot.table.service.entry import Actor, GameService
from bot.table.trust.commitment import commitment
from bot.table.trust.export import EXPORT_FORMAT
from bot.table.trust.importer import MAX_REPLAY_ACTIONS
from rules.codec import dumps, encode_state, encode_tagged
from rules.engine import replay_with_events
from rules.registry import get_ruleset

SEED = 5
FOREIGN_GAME_ID = 2**40
GUILD = "stall-server"
GAMES_ON_SERVER = 10_000
STALL_TICK = 0.002   # the probe wakes this often
STALL_LIMIT = 0.020  # no command may hold the loop longer (issue 16)
ROUNDS = 3           # each command is measured this many times: the worst and the median are printed


def _circling_command(ruleset, state: Any, player: str) -> str:
    """The circling duel's next command: speed 1, a left turn while one is legal, then end the move."""
    if state.phase == "upkeep":
        return "/speed value:1"
    legal = [a.command for a in ruleset.legal_actions(state, player)]
    return (next((c for c in legal if c == "/move maneuver:turn-left"), None)
            or next((c for c in legal if c.startswith("/end")), None)
            or next(c for c in legal if not c.startswith("/fire")))


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
        play(player, _circling_command(ruleset, state, player))
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


async def store_server(store: Store, guild: str, player: str, games: int = 10_000) -> None:
    """`games` running two-car Speedway games on one server, each with `player` seated, stored directly
    (1,000 a transaction): the server a /games has to search."""
    ruleset = get_ruleset("speedway")
    state = ruleset.setup({}, SEED, player)
    for seat, line in ((player, "/game join"), ("rival", "/game join"), (player, "/game start")):
        command = parse(line)
        state = ruleset.apply(state, seat, ruleset.command_to_action(command.name, command.options))[0]
    snapshot = encode_state(state)
    for first in range(0, games, 1_000):
        async with store.transaction():
            for number in range(first, min(first + 1_000, games)):
                game = await store.create_game_tx(f"chan-server-{number}", "speedway", player, SEED, "{}",
                                                  snapshot, guild)
                await store.add_seats_tx(game.id, (player, "rival"))


async def _ticker(lateness: list[float], stop: asyncio.Event) -> None:
    while not stop.is_set():
        asked = time.perf_counter()
        await asyncio.sleep(STALL_TICK)
        lateness.append(time.perf_counter() - asked - STALL_TICK)


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
    result = None
    if job:
        result = await job()
    else:
        await asyncio.sleep(2.0)
    took = time.perf_counter() - started
    await asyncio.sleep(0.2)   # what a job left running (a thread still finishing) is measured too
    stop.set()
    await asyncio.gather(*watchers)
    return took, replies, lateness, result


async def _next_move(store: Store, channel: str) -> tuple[Actor, Command]:
    """Who moves next in the running circling game, and their move."""
    ruleset = get_ruleset("speedway")
    state = ruleset.load_state(stored(await store.active_game(channel), channel).state)
    player = ruleset.acting_players(state)[0]
    return Actor(player, player), parse(_circling_command(ruleset, state, player))


async def stall_bench(db_path: str, out: TextIO = sys.stdout) -> int:
    """Run the stall benchmark on a new database at `db_path`; print the figures. Exit status 1 when a
    command held the loop longer than STALL_LIMIT."""
    say = lambda text: print(text, file=out, flush=True)  # noqa: E731
    started = time.perf_counter()
    log = circling_log("ann", "ben")
    data = export_of(log, "ann")
    say(f"longest re-playable log: {len(log)} actions, export {len(data) / 1e6:.2f} MB, "
        f"built in {time.perf_counter() - started:.1f} s")
    store = await Store.open(db_path)
    worst = 0.0
    # the workers `pitboss run` starts: render processes, and one process for the long jobs
    renderers = RenderProcesses.configured()
    heavy_work = HeavyWork(process=True)
    try:
        if renderers is not None:
            await renderers.warm()
        await heavy_work.warm()
        service = GameService(store, render_processes=renderers, heavy=heavy_work)
        started = time.perf_counter()
        await store_server(store, GUILD, "ann", GAMES_ON_SERVER)
        await store_running_game(store, "chan-running", log, "ann", GUILD)
        say(f"{GAMES_ON_SERVER} running games on the server, stored in {time.perf_counter() - started:.1f} s")
        for user, line in (("other", "/game new ruleset:speedway seed:1"), ("other", "/game join"),
                           ("someone", "/game join"), ("other", "/game start")):
            await service.execute("chan-other", Actor(user, user), parse(line))
        heavy = Actor("ann", "ann")
        started = time.perf_counter()
        await service.execute("chan-other", heavy, parse("/games"), guild=GUILD)
        say(f"the seats index made once (the first /games on a database that predates it): "
            f"{time.perf_counter() - started:.1f} s")
        mover, move = await _next_move(store, "chan-running")
        settle_memory()   # as `pitboss run` does once started

        def jobs(round_: int) -> list[tuple[str, Any]]:
            imported = f"chan-import-{round_}"
            return [
                ("nothing (baseline)", None),
                (f"a move ({len(log) - 1} before it)",
                 lambda: service.execute("chan-running", mover, move, guild=GUILD)),
                ("/game import (re-play)",
                 lambda: service.execute(imported, heavy, Command("game import", {"file": data}), guild=GUILD)),
                ("/game verify", lambda: service.execute(imported, heavy, parse("/game verify"))),
                ("/game replay (GIF)", lambda: service.execute(imported, heavy, parse("/game replay"))),
                ("/game export", lambda: service.execute(imported, heavy, parse("/game export"))),
                ("/undo (of that move)", lambda: service.execute("chan-running", mover, parse("/undo"))),
                (f"/games ({GAMES_ON_SERVER + 1} games)",
                 lambda: service.execute("chan-other", heavy, parse("/games"), guild=GUILD)),
            ]

        say(f"each command runs {ROUNDS} times; the loop's lateness is measured by a ticker every "
            f"{STALL_TICK * 1000:.0f} ms; the limit is {STALL_LIMIT * 1000:.0f} ms")
        figures: dict[str, list[tuple[float, list[float], float]]] = {}
        for round_ in range(ROUNDS):
            for label, job in jobs(round_):
                took, replies, lateness, result = await _measured(service, job)
                if result is not None and result.outcome not in ("applied", "shown"):
                    say(f"  {label} was refused: {result.text}")
                figures.setdefault(label, []).append((took, replies, max(lateness)))
        say(f"{'while':<26} {'command':>9} {'other /game status: median':>27} {'max':>9} "
            f"{'loop late: worst':>17} {'median run':>11}")
        for label, runs in figures.items():
            replies = [r for _, run_replies, _ in runs for r in run_replies]
            stalls = [stall for _, _, stall in runs]
            if label != "nothing (baseline)":
                worst = max(worst, *stalls)
            verdict = "" if label == "nothing (baseline)" else "  ok" if max(stalls) <= STALL_LIMIT else "  OVER"
            say(f"{label:<26} {statistics.median(t for t, _, _ in runs) * 1000:>6.0f} ms "
                f"{statistics.median(replies) * 1000:>24.1f} ms {max(replies) * 1000:>6.1f} ms "
                f"{max(stalls) * 1000:>14.1f} ms {statistics.median(stalls) * 1000:>8.1f} ms{verdict}")
    finally:
        heavy_work.close()
        if renderers is not None:
            renderers.close()
        await store.close()
    say(f"largest stall of any command in any round: {worst * 1000:.1f} ms")
    return 0 if worst <= STALL_LIMIT else 1
