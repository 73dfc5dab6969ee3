"""`pitboss selfplay`: computer players play whole games through the service and the store.

It is the engines' fuzz test and a benchmark driver: every game is created, seated and started by
commands, played by computer seats through the same apply-and-store path as people, and then
replayed from its log to check that it rebuilds the stored snapshot.
"""

from __future__ import annotations

import json
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass
from typing import TextIO

from bot.storage.store import Store, stored
from bot.table.protocol.commands import parse
from bot.table.service.entry import Actor, GameService
from rules.engine import SelfplaySetup
from rules.registry import get_ruleset, rulesets

HOST = Actor("selfplay-host", "host", is_admin=True)


@dataclass(frozen=True)
class GameSummary:
    """What one self-played game came to."""

    index: int
    winner: str
    rounds: int
    actions: int
    counts: tuple[tuple[str, int], ...]
    replay_ok: bool
    seconds: float

    def line(self) -> str:
        replay = "replay ok" if self.replay_ok else "REPLAY MISMATCH"
        counted = ", ".join(f"{label} {n}" for label, n in self.counts)
        return (f"game {self.index}: winner {self.winner}, rounds {self.rounds}, actions {self.actions}, "
                f"{counted}, {replay}, {self.seconds:.2f} s")


async def _command(service: GameService, channel: str, line: str) -> None:
    reply = await service.execute(channel, HOST, parse(line))
    if reply.outcome == "refused":
        raise RuntimeError(f"selfplay command refused: {line}: {reply.text}")


def _count_events(records, plan: SelfplaySetup) -> tuple[tuple[str, int], ...]:
    counts: Counter = Counter()
    for record in records:
        for event in json.loads(record.events):
            for label, wanted in plan.counted:
                counts[label] += wanted(event)
    return tuple((label, counts[label]) for label, _ in plan.counted)


async def play_one(service: GameService, store: Store, ruleset_id: str, index: int, seed: int) -> GameSummary:
    """Create, seat, start and finish one all-computer game; summarise it."""
    plan = _selfplay_of(ruleset_id)
    started = time.perf_counter()
    rng = random.Random(seed * 7919 + index)
    channel = f"selfplay-{ruleset_id}-{seed}-{index}"
    if await store.active_game(channel):
        await _command(service, channel, "/game end")
    options = plan.new_options(rng)
    await _command(service, channel, f"/game new ruleset:{ruleset_id} seed:{seed * 1000 + index} {options}")
    for line in plan.seats(rng):
        await _command(service, channel, line)
    await _command(service, channel, "/game start")
    game = stored(await store.latest_game(channel), channel)
    ruleset = get_ruleset(game.ruleset)
    state = ruleset.load_state(game.state)
    if game.status != "finished":
        raise RuntimeError(f"game {index} did not finish (phase {state.phase})")
    records = await store.actions(game.id)
    winner = state.player(state.winner).name if state.winner else "draw"
    cap = ruleset.round_cap_of(state)
    capped = cap is not None and state.round >= cap
    rounds = state.round if capped else state.round + 1
    return GameSummary(index, winner, rounds, len(records), _count_events(records, plan),
                       await service.replay_matches(game), time.perf_counter() - started)


def _selfplay_of(ruleset_id: str) -> SelfplaySetup:
    """How a game plays itself (only games with computer seats for every seat can)."""
    plan = get_ruleset(ruleset_id).selfplay
    if plan is None:
        raise ValueError(f"{ruleset_id} cannot play itself")
    return plan


def selfplay_games() -> tuple[str, ...]:
    """The games whose computers can play a whole game by themselves."""
    return tuple(r.id for r in rulesets() if r.selfplay is not None)


async def selfplay(db_path: str, ruleset: str, games: int, seed: int, stream: TextIO = sys.stdout) -> int:
    """Play `games` games and print one line each and a summary; exit status 0 when all are sound."""
    playable = selfplay_games()
    if ruleset not in playable:
        print(f"error: selfplay knows {', '.join(playable)}, not {ruleset}", file=stream)
        return 2
    store = await Store.open(db_path)
    try:
        service = GameService(store)
        summaries = []
        for index in range(games):
            summary = await play_one(service, store, ruleset, index, seed)
            summaries.append(summary)
            print(summary.line(), file=stream, flush=True)
    finally:
        await store.close()
    drawn = sum(s.winner == "draw" for s in summaries)
    bad = sum(not s.replay_ok for s in summaries)
    seconds = sorted(s.seconds for s in summaries)
    actions = sum(s.actions for s in summaries)
    totals: Counter[str] = Counter()
    for summary in summaries:
        totals.update(dict(summary.counts))
    counted = ", ".join(f"{totals[label]} {label}" for label, _ in _selfplay_of(ruleset).counted)
    print(f"summary: {games} games, {games - drawn} won, {drawn} drawn, {counted}, {actions} actions, "
          f"median {seconds[len(seconds) // 2]:.2f} s per game, "
          f"{actions / max(sum(seconds), 1e-9):.0f} actions/s, replay mismatches {bad}", file=stream)
    return 0 if bad == 0 else 1
