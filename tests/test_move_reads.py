"""What a plain move reads and writes (issue 39, items 2 and 3): the statements of a warm move, counted on
SQLite, so the move's path cannot quietly grow a read per move again."""

from __future__ import annotations

import random

from bot.storage.store import Store
from bot.table.protocol.commands import parse
from bot.table.service.entry import Actor, GameService
from rules.registry import get_ruleset

# One move's statements at most: its transaction (BEGIN, the game's row with its flags and the mover's
# settings, the state, the log's row, the mover's timer, COMMIT); a new turn reads the timers with the
# waiting players' settings (and ends the last player's timer), and a ping's catch-up note counts the few
# latest log rows. Nothing else: the reply's clock, the vote and followers checks, and the pinged players'
# settings reuse what the move read.
SAME_PLAYER, TURN_PASSED = 7, 10
# And its trips to the database's thread: the BEGIN goes with the first read, a write nobody counts with
# the next statement or the COMMIT.
SAME_PLAYER_TRIPS, TURN_PASSED_TRIPS = 4, 5


async def _statements(service: GameService, store: Store, channel: str, actor: str,
                      line: str) -> tuple[int, int, str]:
    """Run one command; the SQL statements it ran, its trips to the connection's thread, and its outcome."""
    connection = store.driver._db   # type: ignore[attr-defined]
    seen: list[str] = []
    trips = []
    original = connection._execute

    async def counted(fn, *args, **kwargs):
        trips.append(fn)
        return await original(fn, *args, **kwargs)

    await connection.set_trace_callback(seen.append)
    connection._execute = counted
    try:
        reply = await service.execute(channel, Actor(actor, actor), parse(line))
    finally:
        del connection._execute
        await connection.set_trace_callback(None)
    return len(seen), len(trips), reply.outcome


async def test_a_plain_move_runs_few_statements(store: Store) -> None:
    ruleset = get_ruleset("speedway")
    service = GameService(store, render=lambda *_args: b"png", clock=lambda: 1_800_000_000.0)
    for player, line in ruleset.example.lines(ruleset.id, 7):
        assert (await service.execute("c", Actor(player, player), parse(line))).outcome != "refused"
    rng = random.Random(7)
    counted: dict[bool, list[tuple[int, int]]] = {True: [], False: []}   # the turn passed: each move's counts
    for _ in range(40):
        game = await store.active_game("c")
        assert game is not None
        state = ruleset.load_state(game.state)
        if ruleset.is_finished(state):
            break
        player = ruleset.acting_players(state)[0]
        legal = [a for a in ruleset.legal_actions(state, player) if a.action is not None]
        statements, trips, outcome = await _statements(service, store, "c", player, rng.choice(legal).command)
        assert outcome == "applied"
        after = ruleset.load_state((await store.active_game("c") or game).state)
        counted[ruleset.acting_players(after) != (player,)].append((statements, trips))
    assert counted[False] and counted[True]
    assert max(s for s, _t in counted[False]) <= SAME_PLAYER, counted
    assert max(s for s, _t in counted[True]) <= TURN_PASSED, counted
    assert max(t for _s, t in counted[False]) <= SAME_PLAYER_TRIPS, counted
    assert max(t for _s, t in counted[True]) <= TURN_PASSED_TRIPS, counted
