"""`pitboss bench --stall`: how long every command the bot has holds the event loop, on the largest
games and servers it allows, and what that costs another channel.

It stores a server of GAMES_ON_SERVER running games and FINISHED_ON_SERVER finished ones (each of
FINISHED_ACTIONS actions) that one user sits in, and a Speedway duel with the longest log an import may
re-play (MAX_REPLAY_ACTIONS legal actions, the cars circling at speed 1), running (a fresh copy each
round) and exported (each figure as `Size` says: FULL for `pitboss bench --stall`, BENCH for the pass
at the end of `pitboss bench`). Then every command of bot.table.protocol.commands runs, ROUNDS times
over, while another user asks /game status in another channel every 100 ms: the table's commands on
that long game and that server (`_table_scenes`: a table command none of them runs is reported as not
covered, and the bench fails), and each game's own commands in a game of that kind opened as its
example opening does and played by seeded legal moves until the command is legal (at most PLAYOUT
actions; a command never legal there is typed as it is and its refusal measured).

A probe times every step the event loop runs (`LoopProbe`): a command's loop hold is its longest step,
printed in wall time, in the loop thread's CPU time, in its wait for a core (the kernel's run-queue
delay of that thread: other processes' load) and in the CPU time of the process's other threads
meanwhile, beside its total time and the other user's slowest reply. A command fails when the loop's
CPU in a step, or a step's wall time less its wait for a core, passes STALL_LIMIT, that wall counted no
further than the CPU of the loop and the other threads (`Run`): on a busy machine wall time mostly
counts other processes, while a wait for the GIL a thread of the bot holds and uses still counts. It
runs with the workers `pitboss run` starts: render processes and one process for the long jobs.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import statistics
import sys
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, TextIO

from bot.storage.store import Store, stored
from bot.table.jobs.drawing import RenderProcesses
from bot.table.jobs.heavy import HeavyWork
from bot.table.jobs.memory import settle_memory
from bot.table.protocol.commands import TABLE_COMMANDS, Command, command_table, parse
from bot.table.service.entry import Actor, GameService
from bot.table.trust.commitment import commitment
from bot.table.trust.export import EXPORT_FORMAT
from bot.table.trust.importer import MAX_REPLAY_ACTIONS
from rules.codec import dumps, encode_state, encode_tagged
from rules.engine import ExampleOpening, Ruleset, replay_with_events
from rules.registry import get_ruleset, rulesets

SEED = 5
FOREIGN_GAME_ID = 2**40
GUILD = "stall-server"
GAMES_ON_SERVER = 10_000
LONG_ACTIONS = MAX_REPLAY_ACTIONS   # the long game's log
FINISHED_ON_SERVER = 250    # finished games on the server (/stats and /standings read the last 200)
FINISHED_ACTIONS = 300      # actions in each of them
PLAYOUT = 300               # the most actions a game's own commands are looked for in, per game
STALL_LIMIT = 0.020  # no command may hold the loop longer (issues 16 and 39)
ROUNDS = 3           # each command is measured this many times: the worst and the median are printed


@dataclass(frozen=True)
class Size:
    """How large the stall pass's games and server are, and how often each command runs."""

    long_actions: int = LONG_ACTIONS       # the long game's log (and the imported one's)
    running: int = GAMES_ON_SERVER         # running games on the server, the user seated in each
    finished: int = FINISHED_ON_SERVER
    finished_actions: int = FINISHED_ACTIONS
    rounds: int = ROUNDS
    pause: float = 0.1                     # the wait before and after each command (the other user asks)
    playout: int = PLAYOUT

    @classmethod
    def of(cls, games: int, rounds: int) -> Size:
        """A server of `games` running games and a long game of as many actions (50 at least, at most the
        longest a re-play may have); 250 finished games of 300 actions, fewer for a small server, where
        the commands also follow each other sooner and each game is played 40 actions at most (a quick
        look, as a test takes)."""
        small = games < 1_000
        return cls(min(max(games, 50), MAX_REPLAY_ACTIONS), games, min(FINISHED_ON_SERVER, max(games // 8, 2)),
                   min(FINISHED_ACTIONS, max(games, 50)), rounds, 0.01 if small else 0.1, 40 if small else PLAYOUT)


FULL = Size()                                  # `pitboss bench --stall`
BENCH = Size.of(2_000, rounds=1)               # the pass `pitboss bench` ends with


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


Prepared = tuple[str, str, list[tuple[str, str, str]], tuple[str, str]]


def prepared_game(log: list[tuple[str, Any]], host: str) -> Prepared:
    """What storing a Speedway game of `log` writes (its setup and final snapshots, each action with
    its events, its two seats): re-running the log once, then stored as often as wanted."""
    ruleset = get_ruleset("speedway")
    first, state, events = replay_with_events(ruleset, {}, SEED, host, log)
    entries = [(actor, dumps(encode_tagged(action)), dumps([encode_tagged(e) for e in happened]))
               for (actor, action), happened in zip(log, events)]
    return encode_state(first), encode_state(state), entries, (host, next(a for a, _ in log if a != host))


async def store_prepared(store: Store, channel: str, game: Prepared, status: str, host: str, guild: str) -> None:
    """Store a prepared game in one transaction."""
    first, final, entries, seats = game
    async with store.transaction():
        record = await store.create_game_tx(channel, "speedway", host, SEED, "{}", first, guild)
        await store.append_log_tx(record, entries, final, status)
        await store.add_seats_tx(record.id, seats)


async def store_running_game(store: Store, channel: str, log: list[tuple[str, Any]], host: str,
                             guild: str = "") -> None:
    """Store a running game with all but the last (ending) action of `log`, in one transaction."""
    await store_prepared(store, channel, prepared_game(log[:-1], host), "active", host, guild)


def finished_log(host: str, guest: str, length: int) -> list[tuple[str, Any]]:
    """A circling duel of `length` actions that `guest` then resigns: `host` wins."""
    resign = parse("/game resign confirm:yes")
    action = get_ruleset("speedway").command_to_action(resign.name, resign.options)
    return [*circling_log(host, guest, length)[:-1], (guest, action)]


async def store_finished(store: Store, guild: str, player: str, games: int, length: int) -> None:
    """`games` finished duels of `length` actions on one server, each won by `player`."""
    game = prepared_game(finished_log(player, "rival", length), player)
    for number in range(games):
        await store_prepared(store, f"chan-finished-{number}", game, "finished", player, guild)


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



class _ReadyClock:
    """The calling thread's time waiting for a core (run-queue delay, seconds) as the kernel counts it
    (/proc/thread-self/schedstat); 0.0 where the kernel does not say."""

    def __init__(self) -> None:
        try:
            self._fd: int | None = os.open("/proc/thread-self/schedstat", os.O_RDONLY)
        except OSError:
            self._fd = None

    def __call__(self) -> float:
        if self._fd is None:
            return 0.0
        try:
            return int(os.pread(self._fd, 100, 0).split()[1]) / 1e9
        except (OSError, IndexError, ValueError):
            return 0.0

    def close(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = None


class LoopProbe:
    """Times every step the event loop runs (a callback, or a task's step up to its next await): the
    longest step since `reset` is how long the loop was held, and no other channel was answered."""

    def __init__(self) -> None:
        self._run = asyncio.events.Handle._run
        self._ready: _ReadyClock | None = None   # opened in the loop's thread, by its first step
        self.reset()

    def reset(self) -> None:
        self.worst = 0.0       # the longest step, wall time
        self.worst_cpu = 0.0   # the loop thread's CPU time in that step
        self.worst_ready = 0.0  # its wait for a core in that step
        self.worst_others = 0.0  # the CPU time of the process's other threads in that step
        self.most_cpu = 0.0    # the most CPU time of the loop's thread in any step
        self.most_unready = 0.0  # the longest step less its wait for a core
        self.most_own = 0.0    # the longest step as a quiet machine would see it (`Run`)
        self.cpu = 0.0         # the loop thread's CPU time in all steps
        self.what = ""         # the longest step, when it is over STALL_LIMIT

    def __enter__(self) -> LoopProbe:
        probe, run = self, self._run

        def timed(handle: asyncio.Handle) -> None:
            ready = probe._ready = probe._ready or _ReadyClock()
            wall, cpu, waited, every = time.perf_counter(), time.thread_time(), ready(), time.process_time()
            try:
                run(handle)
            finally:
                took, used = time.perf_counter() - wall, time.thread_time() - cpu
                queued, others = min(ready() - waited, took), max(time.process_time() - every - used, 0.0)
                probe.cpu += used
                probe.most_cpu = max(probe.most_cpu, used)
                probe.most_unready = max(probe.most_unready, took - queued)
                probe.most_own = max(probe.most_own, min(took - queued, used + others))
                if took > probe.worst:
                    probe.worst, probe.worst_cpu, probe.worst_ready, probe.worst_others = took, used, queued, others
                    probe.what = repr(handle)[:100] if took > STALL_LIMIT else ""

        asyncio.events.Handle._run = timed   # type: ignore[method-assign,assignment]
        return self

    def __exit__(self, *_exc: object) -> None:
        asyncio.events.Handle._run = self._run   # type: ignore[method-assign]
        if self._ready is not None:
            self._ready.close()


@dataclass(frozen=True)
class Run:
    """One run of a command: its time in all; its longest step (wall, the loop's CPU in it, its wait for a
    core, the CPU of the process's other threads meanwhile); the most CPU in any step; the longest step
    less its wait for a core; the longest step as a quiet machine would see it (the verdict's figure): its
    wall time less its wait for a core, but no more than the loop's CPU and the other threads' (the loop
    waits on the GIL while they run; a wait for a holder of the GIL that is itself waiting for a core is
    the machine's, and so, unseen, is a blocking call on the loop: the verdict names such a step); the
    loop's CPU in all steps; the other user's slowest reply meanwhile."""

    took: float
    hold: float
    hold_cpu: float
    hold_ready: float
    hold_others: float
    most_cpu: float
    most_unready: float
    most_own: float
    cpu: float
    reply: float

    @property
    def judged(self) -> float:
        """The figure held against STALL_LIMIT."""
        return max(self.most_cpu, self.most_own)

    @property
    def over(self) -> bool:
        return self.judged > STALL_LIMIT


@dataclass
class Measured:
    """One command's runs: each one's figures, and how the last one was answered."""

    runs: list[Run] = field(default_factory=list)
    outcome: str = ""
    what: str = ""


async def _asker(service: GameService, replies: list[float], stop: asyncio.Event) -> None:
    other = Actor("other", "other")
    while not stop.is_set():
        asked = time.perf_counter()
        await service.execute("chan-other", other, parse("/game status"))
        replies.append(time.perf_counter() - asked)
        with contextlib.suppress(TimeoutError):   # asks every 100 ms, and ends as soon as it is told
            await asyncio.wait_for(stop.wait(), 0.1)


class Bench:
    """Runs commands under the probe while another user asks in another channel; keeps the figures."""

    def __init__(self, service: GameService, store: Store, probe: LoopProbe, size: Size = FULL) -> None:
        self.service, self.store, self.probe, self.size = service, store, probe, size
        self.figures: dict[tuple[str, str], Measured] = {}

    async def measure(self, name: str, where: str, job: Callable[[], Coroutine[Any, Any, Any]] | None) -> Any:
        """Run `job` (None: wait, the baseline) as command `name` (`where`: what it ran on)."""
        stop, replies = asyncio.Event(), list[float]()
        asker = asyncio.create_task(_asker(self.service, replies, stop))
        await asyncio.sleep(self.size.pause)
        self.probe.reset()
        started = time.perf_counter()
        # its own task: the step that ends the command ends there, not in this function's next lines
        result = await asyncio.create_task(job() if job else asyncio.sleep(10 * self.size.pause))
        took = time.perf_counter() - started
        await asyncio.sleep(self.size.pause)   # what a job left running (a thread still finishing) is measured too
        stop.set()
        await asker
        probe = self.probe
        measured = self.figures.setdefault((name, where), Measured())
        measured.runs.append(Run(took, probe.worst, probe.worst_cpu, probe.worst_ready, probe.worst_others,
                                 probe.most_cpu, probe.most_unready, probe.most_own, probe.cpu,
                                 max(replies, default=0.0)))
        if result is not None:
            refused = result.outcome == "refused"
            measured.outcome = f"refused: {result.text[:60]}" if refused else measured.outcome or result.outcome
        measured.what = probe.what or measured.what
        return result

    async def run(self, name: str, where: str, channel: str, actor: Actor, command: Command, guild: str = GUILD
                  ) -> Any:
        return await self.measure(name, where, lambda: self.service.execute(channel, actor, command, guild=guild))


ANN, BEN, CAT = Actor("ann", "ann"), Actor("ben", "ben"), Actor("cat", "cat")
ADMIN = Actor("dan", "dan", is_admin=True)


def _orders_line() -> str:
    """/orders set with Speedway's first question and answer (the bare command when it asks none)."""
    orders = get_ruleset("speedway").orders
    if orders is None or not orders.questions:
        return "/orders set question:none answer:none"
    question = orders.questions[0]
    return f"/orders set question:{question.name} answer:{question.answers[0]}"


def _table_scenes(long: str, imported: str, fresh: str, length: int, data: bytes,
                  move: tuple[Actor, Command]) -> list[tuple[str, str, Actor, Command | str]]:
    """Every table command, run on the long game (`long`, `length` actions), the exported one re-played
    (`imported`), a new game (`fresh`) or the server: (command, channel, actor, command line), in an
    order each can run in (the long game is given away, resigned and ended last)."""
    mover, moved = move
    back = length - 40
    return [
        ("game status", long, ANN, "/game status"), ("game log", long, ANN, "/game log count:100"),
        ("game catchup", long, BEN, "/game catchup"), ("game sheet", long, ANN, "/game sheet"),
        ("help", long, ANN, "/help"), ("rules", long, ANN, "/rules"),
        ("game follow", long, CAT, "/game follow"), ("game unfollow", long, CAT, "/game unfollow"),
        ("orders show", long, ANN, "/orders show"), ("orders set", long, ANN, _orders_line()),
        ("orders clear", long, ANN, "/orders clear"),
        ("game settings", long, ANN, "/game settings reminder_hours:12"),
        ("game pause", long, ANN, "/game pause hours:1"), ("game pause", long, ANN, "/game pause hours:0"),
        ("me settings", long, ANN, "/me settings time_zone:Europe/Paris"),
        ("me away", long, ANN, "/me away hours:2"), ("me back", long, ANN, "/me back"),
        ("me forget", long, ANN, "/me forget"), ("me forget", long, Actor("rival", "rival"), "/me forget"),
        ("me forget", long, Actor("dan", "dan"), "/me forget confirm:yes"),
        (moved.name, long, mover, moved), ("undo", long, mover, "/undo"),
        ("game rollback", long, ANN, f"/game rollback to:{back}"),
        ("game rollback", long, BEN, "/game rollback vote:yes"),
        ("game log", long, ANN, "/game log set_aside:1"),
        ("game propose", long, ANN, "/game propose draw"), ("game propose", long, BEN, "/game propose vote:no"),
        ("game export", long, ANN, "/game export"), ("game verify", long, ANN, "/game verify"),
        ("game replay", long, ANN, "/game replay"),
        ("game seat computer", long, BEN, "/game seat computer"), ("game seat take", long, BEN, "/game seat take"),
        ("game seat give", long, BEN, "/game seat give to:cat"), ("game seat take", long, CAT, "/game seat take"),
        ("game takeover", long, ADMIN, "/game takeover"),
        ("game resign", long, CAT, "/game resign confirm:yes"),
        ("game rematch", long, ANN, "/game rematch"), ("game end", long, ANN, "/game end"),
        ("game review", long, ANN, "/game review"),   # the ended long game re-run, its chart drawn
        ("game import", imported, ANN, Command("game import", {"file": data})),
        ("game new", fresh, ANN, "/game new ruleset:speedway seed:1"), ("game join", fresh, ANN, "/game join"),
        ("game add-ai", fresh, ANN, "/game add-ai"), ("game start", fresh, ANN, "/game start"),
        ("games", "chan-other", ANN, "/games"), ("stats", "chan-other", ANN, "/stats"),
        ("standings", "chan-other", ANN, "/standings ruleset:speedway"),
        ("lfg", "chan-other", ANN, "/lfg"), ("league board", "chan-other", ADMIN, "/league board channel:boards"),
        ("league roles", "chan-other", ADMIN, "/league roles ruleset:speedway set:on"),
        ("queue join", "chan-other", CAT, "/queue join ruleset:speedway players:2"),
        ("queue show", "chan-other", CAT, "/queue show"), ("queue leave", "chan-other", CAT, "/queue leave"),
        ("queue join", "chan-other", ANN, "/queue join ruleset:speedway players:2"),
        ("queue join", "chan-other", BEN, "/queue join ruleset:speedway players:2"),
        ("queue confirm", "chan-other-queue1", ANN, "/queue confirm"),
        ("queue decline", "chan-other-queue1", BEN, "/queue decline"),
        ("tournament new", "chan-cup", ANN, "/tournament new ruleset:speedway format:elimination players:4"),
        ("tournament join", "chan-cup", ANN, "/tournament join"), ("tournament join", "chan-cup", BEN,
                                                                   "/tournament join"),
        ("tournament join", "chan-cup", CAT, "/tournament join"), ("tournament leave", "chan-cup", CAT,
                                                                   "/tournament leave"),
        ("tournament start", "chan-cup", ANN, "/tournament start"),
        ("tournament show", "chan-cup", BEN, "/tournament show"),
        ("tournament cancel", "chan-cup", ANN, "/tournament cancel"),
        ("league new", "chan-season", ADMIN, "/league new ruleset:speedway season_days:7 max_games:1 "
                                             "setup:arena:duel"),
        ("league join", "chan-season", ANN, "/league join"), ("league join", "chan-season", BEN, "/league join"),
        ("league show", "chan-season", BEN, "/league show"), ("league leave", "chan-season", BEN, "/league leave"),
        ("league end", "chan-season", ADMIN, "/league end"),
    ]


async def _next_move(store: Store, channel: str) -> tuple[Actor, Command]:
    """Who moves next in the running circling game, and their move."""
    ruleset = get_ruleset("speedway")
    state = ruleset.load_state(stored(await store.active_game(channel), channel).state)
    player = ruleset.acting_players(state)[0]
    return Actor(player, player), parse(_circling_command(ruleset, state, player))


def _own_commands(ruleset: Ruleset) -> list[str]:
    return [spec.name for spec in ruleset.grammar.commands]


async def _open(bench: Bench, ruleset: Ruleset, channel: str, seed: int, opening: ExampleOpening | None = None
                ) -> Any:
    """A game of `ruleset` opened in `channel` as its example opening (or `opening`) does; its state."""
    opening = opening or ruleset.example
    for player, line in opening.lines(ruleset.id, seed):
        await bench.service.execute(channel, Actor(player, player), parse(line), guild=GUILD)
    return ruleset.load_state(stored(await bench.store.active_game(channel), channel).state)


async def play_out(bench: Bench, ruleset: Ruleset) -> None:
    """Each of `ruleset`'s own commands measured up to `Size.rounds` times in a game of its kind, as seeded legal
    moves make it legal (games opened anew as one ends, `Size.playout` actions at most); its queries asked by the
    waiting player, its game master's rulings (the example's) ruled; any never legal typed as it is."""
    rng, where, rounds = random.Random(SEED), f"{ruleset.id} game", bench.size.rounds
    own = _own_commands(ruleset)
    counts = dict.fromkeys(own, 0)
    queries = [spec.name for spec in ruleset.grammar.commands if spec.query]
    opening, store = ruleset.example, bench.store
    channel, games, stuck = f"chan-play-{ruleset.id}-0", 0, 0
    for number, ruled in enumerate(o for o in (opening, *ruleset.more_examples) if o.gm_rulings):
        await _open(bench, ruleset, f"chan-gm-{ruleset.id}-{number}", SEED, ruled)
        for ruling in ruled.gm_rulings[:rounds]:   # its seated game master's rulings
            command = parse(ruling)
            counts[command.name] = counts.get(command.name, 0) + 1
            await bench.run(command.name, where, f"chan-gm-{ruleset.id}-{number}", Actor(ruled.host, ruled.host),
                            command)
    state = await _open(bench, ruleset, channel, SEED)
    for step in range(bench.size.playout):
        if all(n >= rounds for n in counts.values()):
            break
        if ruleset.is_finished(state) or stuck > 5:
            games += 1
            channel, stuck = f"chan-play-{ruleset.id}-{games}", 0
            state = await _open(bench, ruleset, channel, SEED + games)
        waiting = ruleset.acting_players(state)
        if not waiting:
            break
        player = Actor(waiting[0], waiting[0])
        if step % 25 == 0:
            for name in queries:
                if counts[name] < rounds:
                    counts[name] += 1
                    await bench.run(name, where, channel, player, Command(name, {}))
        legal = [a for a in ruleset.legal_actions(state, player.id) if a.action is not None]
        if not legal:
            break
        wanted = [a for a in legal if counts.get(parse(a.command).name, rounds) < rounds]
        chosen = rng.choice(wanted or legal)
        command = parse(chosen.command)
        if command.name in counts and counts[command.name] < rounds:
            counts[command.name] += 1
            reply = await bench.run(command.name, where, channel, player, command)
        else:
            reply = await bench.service.execute(channel, player, command, guild=GUILD)
        stuck = 0 if reply.outcome == "applied" else stuck + 1
        game = await store.active_game(channel) or await store.latest_game(channel)
        state = ruleset.load_state(stored(game, channel).state)
    for name, count in counts.items():
        if count == 0:   # never legal in these games: typed as it is, and refused
            seated = next(iter(p.id for p in state.players), opening.host)
            await bench.run(name, f"{where} (never legal in {bench.size.playout} actions)", channel,
                            Actor(seated, seated), Command(name, {}))


HEADER = ("the loop hold is a command's longest step of the event loop: wall time, the loop's CPU in it, its wait "
          "for a core (other processes' load) and the CPU of the bot's other threads meanwhile (the loop waits for "
          f"the GIL while they run); judged: the most CPU of the loop in a step, or a step's wall less its core wait "
          f"and no more than the bot's CPU in it; over {STALL_LIMIT * 1000:.0f} ms fails")


def _verdict(runs: list[Run]) -> str:
    """'OVER'; 'ok'; or, when only the wall time passed the limit, ok and why: the loop waited for a core, or
    it was blocked while no thread of the bot ran (a GIL holder waiting for a core, or a blocking call on
    the loop: worth a look on a quiet machine)."""
    if any(run.over for run in runs):
        return "OVER"
    if max(run.hold for run in runs) <= STALL_LIMIT:
        return "ok"
    if max(run.most_unready for run in runs) <= STALL_LIMIT:
        return "ok (wall: waited for a core)"
    return "ok (wall: blocked while no thread of the bot ran)"


def _hold(runs: list[Run]) -> str:
    """The longest step of these runs: wall, the loop's CPU in it, its wait for a core, the other threads' CPU;
    and the figure judged."""
    worst = max(runs, key=lambda run: run.hold)
    return (f"{worst.hold * 1000:>7.1f} ms {worst.hold_cpu * 1000:>6.1f} ms {worst.hold_ready * 1000:>6.1f} ms "
            f"{worst.hold_others * 1000:>6.1f} ms {max(run.judged for run in runs) * 1000:>6.1f} ms")


def _report(bench: Bench, say: Callable[[str], None], detail: bool = True) -> float:
    """The figures in the order of the commands' declarations: with `detail`, a row for each command and what
    it ran on; then one row a command, its worst; the worst hold of any command (wall time)."""
    order = {spec.name: i for i, spec in enumerate(command_table().commands)}
    figures = sorted(bench.figures.items(), key=lambda kv: (order.get(kv[0][0], -1), kv[0][1]))
    label = lambda name: name if name.startswith("nothing") else f"/{name}"  # noqa: E731
    held = f"{'hold: wall':>10} {'CPU':>9} {'core wait':>9} {'threads':>9} {'judged':>9}"
    if detail:
        say(f"{'command':<22} {'on':<34} {'runs':>4} {'total':>9} {held} {'loop CPU':>9} {'other reply: max':>17}")
        for (name, where), measured in figures:
            runs = measured.runs
            verdict = "" if name.startswith("nothing") else f"  {_verdict(runs)}"
            say(f"{label(name):<22} {where[:34]:<34} {len(runs):>4} "
                f"{statistics.median(r.took for r in runs) * 1000:>6.0f} ms {_hold(runs)} "
                f"{statistics.median(r.cpu for r in runs) * 1000:>6.0f} ms "
                f"{max(r.reply for r in runs) * 1000:>14.1f} ms{verdict}"
                + (f"  [{measured.outcome}]" if measured.outcome.startswith("refused") else "")
                + (f"  longest step: {measured.what}" if verdict.endswith("OVER") and measured.what else ""))
        say("")
    by_name: dict[str, list[tuple[str, Run]]] = {}
    for (name, where), measured in figures:
        by_name.setdefault(name, []).extend((where, run) for run in measured.runs)
    say(f"every command's worst loop hold ({HEADER}):")
    say(f"{'command':<22} {'runs':>4} {held}  {'worst on':<34}")
    worst = 0.0
    for name, placed in by_name.items():
        runs = [run for _, run in placed]
        where = max(placed, key=lambda pair: pair[1].hold)[0]
        if not name.startswith("nothing"):
            worst = max(worst, *(run.hold for run in runs))
        verdict = "" if name.startswith("nothing") else _verdict(runs)
        say(f"{label(name):<22} {len(runs):>4} {_hold(runs)}  {where[:34]:<34} {verdict}")
    return worst


async def stall_bench(db_path: str, out: TextIO = sys.stdout, size: Size = FULL) -> int:
    """Run the stall benchmark at `size` on a new database at `db_path`; print the figures (with `size` FULL,
    a row for each command and what it ran on too). Exit status 1 when a command held the loop longer than
    STALL_LIMIT (its CPU, or its wall time less its wait for a core), or a command of the bot was not run."""
    say = lambda text: print(text, file=out, flush=True)  # noqa: E731
    started = time.perf_counter()
    log = circling_log("ann", "ben", size.long_actions)
    data = export_of(log, "ann")
    running = prepared_game(log[:-1], "ann")
    say(f"long re-playable log: {len(log)} actions, export {len(data) / 1e6:.2f} MB, "
        f"built in {time.perf_counter() - started:.1f} s")
    store = await Store.open(db_path)
    # the workers `pitboss run` starts: render processes, and one process for the long jobs
    renderers = RenderProcesses.configured()
    heavy_work = HeavyWork(process=True)
    missing: list[str] = []
    try:
        started = time.perf_counter()
        if renderers is not None:
            await renderers.warm()
        await heavy_work.warm()
        say(f"the workers started and warmed in {time.perf_counter() - started:.1f} s")
        service = GameService(store, render_processes=renderers, heavy=heavy_work)
        started = time.perf_counter()
        await store_server(store, GUILD, "ann", size.running)
        await store_finished(store, GUILD, "ann", size.finished, size.finished_actions)
        say(f"{size.running} running and {size.finished} finished games ({size.finished_actions} actions each) "
            f"on the server, stored in {time.perf_counter() - started:.1f} s")
        for user, line in (("other", "/game new ruleset:speedway seed:1"), ("other", "/game join"),
                           ("someone", "/game join"), ("other", "/game start")):
            await service.execute("chan-other", Actor(user, user), parse(line))
        started = time.perf_counter()
        await service.execute("chan-other", ANN, parse("/games"), guild=GUILD)
        say(f"the seats index made once (the first /games on a database that predates it): "
            f"{time.perf_counter() - started:.1f} s")
        settle_memory()   # as `pitboss run` does once started
        say(f"each command runs {size.rounds} {'time' if size.rounds == 1 else 'times'}; the limit is "
            f"{STALL_LIMIT * 1000:.0f} ms")
        with LoopProbe() as probe:
            bench = Bench(service, store, probe, size)
            started = time.perf_counter()
            for round_ in range(size.rounds):
                await bench.measure("nothing (baseline)", "", None)
                long = f"chan-long-{round_}"
                await store_prepared(store, long, running, "active", "ann", GUILD)
                scenes = _table_scenes(long, f"chan-import-{round_}", f"chan-new-{round_}", len(log) - 1, data,
                                       await _next_move(store, long))
                for name, channel, actor, typed in scenes:
                    where = ("the server" if channel == "chan-other" else "a new game" if channel.startswith(
                        "chan-new") else f"a {len(log) - 1}-action game")
                    await bench.run(name, where, channel, actor, parse(typed) if isinstance(typed, str) else typed)
            took = [f"the table's commands {time.perf_counter() - started:.0f} s"]
            for ruleset in rulesets():
                started = time.perf_counter()
                await play_out(bench, ruleset)
                took.append(f"{ruleset.id}'s own {time.perf_counter() - started:.0f} s")
        say(f"measured in: {', '.join(took)}")
        worst = _report(bench, say, detail=size == FULL)
        missing = [spec.name for spec in command_table().commands
                   if not any(name == spec.name for name, _ in bench.figures)]
        table = {spec.name for spec in TABLE_COMMANDS}
        for name in missing:
            say(f"NOT COVERED: /{name} ({'a table command: add it to _table_scenes' if name in table else 'no game'})")
    finally:
        heavy_work.close()
        if renderers is not None:
            renderers.close()
        await store.close()
    over = [name for (name, _), measured in bench.figures.items() if any(run.over for run in measured.runs)]
    say(f"longest loop hold of any command: {worst * 1000:.1f} ms of wall time; "
        + (f"over the limit: {', '.join(f'/{name}' for name in sorted(set(over)))}" if over else
           "none over the limit"))
    return 0 if not over and not missing else 1
