"""`pitboss selfplay`: computer drivers play whole games through the service and the store.

It is the engine's fuzz test and a benchmark driver: every game is created, seated and started by
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

from bot.commands import parse
from bot.service import Actor, GameService
from bot.store import Store
from rules.codec import decode_state
from rules.engine import get_ruleset
from rules.speedway import data as speedway_data

HOST = Actor("selfplay-host", "host", is_admin=True)
ROUND_CAP = 60


@dataclass(frozen=True)
class GameSummary:
    """What one self-played game came to."""

    index: int
    winner: str
    rounds: int
    actions: int
    shots: int
    hits: int
    collisions: int
    replay_ok: bool
    seconds: float

    def line(self) -> str:
        replay = "replay ok" if self.replay_ok else "REPLAY MISMATCH"
        return (f"game {self.index}: winner {self.winner}, rounds {self.rounds}, actions {self.actions}, "
                f"shots {self.shots}, hits {self.hits}, collisions {self.collisions}, {replay}, "
                f"{self.seconds:.2f} s")


async def _command(service: GameService, channel: str, line: str) -> None:
    reply = await service.execute(channel, HOST, parse(line))
    if reply.outcome == "refused":
        raise RuntimeError(f"selfplay command refused: {line}: {reply.text}")


def _count_events(records) -> Counter:
    counts: Counter = Counter()
    for record in records:
        for event in json.loads(record.events):
            counts[event["type"]] += 1
            if event["type"] == "DiceRolled" and event["dice"] == "d6" and event["success"]:
                counts["hits"] += 1
    return counts


async def play_one(service: GameService, store: Store, index: int, seed: int) -> GameSummary:
    """Create, seat, start and finish one all-computer game; summarise it."""
    started = time.perf_counter()
    rng = random.Random(seed * 7919 + index)
    channel = f"selfplay-{seed}-{index}"
    if await store.active_game(channel):
        await _command(service, channel, "/game end")
    await _command(service, channel, f"/game new ruleset:speedway seed:{seed * 1000 + index} rounds:{ROUND_CAP}")
    designs = tuple(speedway_data.car_designs())
    for _ in range(rng.choice((2, 2, 3, 4))):
        await _command(service, channel, f"/game add-ai car:{rng.choice(designs)}")
    await _command(service, channel, "/game start")
    game = await store.latest_game(channel)
    state = decode_state(get_ruleset(game.ruleset).state_type, game.state)
    if game.status != "finished":
        raise RuntimeError(f"game {index} did not finish (phase {state.phase})")
    records = await store.actions(game.id)
    counts = _count_events(records)
    winner = state.player(state.winner).name if state.winner else "draw"
    capped = state.max_rounds is not None and state.round >= state.max_rounds
    rounds = state.round if capped else state.round + 1
    return GameSummary(index, winner, rounds, len(records), counts["WeaponFired"], counts["hits"],
                       counts["Collided"], await service.replay_matches(game), time.perf_counter() - started)


async def selfplay(db_path: str, ruleset: str, games: int, seed: int, stream: TextIO = sys.stdout) -> int:
    """Play `games` games and print one line each and a summary; exit status 0 when all are sound."""
    if ruleset != "speedway":
        print(f"error: selfplay knows speedway only, not {ruleset}", file=stream)
        return 2
    store = await Store.open(db_path)
    try:
        service = GameService(store)
        summaries = []
        for index in range(games):
            summary = await play_one(service, store, index, seed)
            summaries.append(summary)
            print(summary.line(), file=stream, flush=True)
    finally:
        await store.close()
    winners = Counter(s.winner == "draw" for s in summaries)
    bad = sum(not s.replay_ok for s in summaries)
    seconds = sorted(s.seconds for s in summaries)
    actions = sum(s.actions for s in summaries)
    print(f"summary: {games} games, {winners[False]} won, {winners[True]} drawn, "
          f"{sum(s.shots for s in summaries)} shots, {sum(s.hits for s in summaries)} hits, "
          f"{sum(s.collisions for s in summaries)} collisions, {actions} actions, "
          f"median {seconds[len(seconds) // 2]:.2f} s per game, "
          f"{actions / max(sum(seconds), 1e-9):.0f} actions/s, replay mismatches {bad}", file=stream)
    return 0 if bad == 0 else 1
