"""/undo where it meets absent players: the computer playing a seat, the autopilot at a deadline, an open vote."""

from __future__ import annotations

from bot.table.protocol.commands import parse
from bot.table.protocol.replies import Actor
from rules.registry import get_ruleset

CHANNEL = "review"
CARS = get_ruleset("battlecars")


async def run(service, user, line):
    return await service.execute(CHANNEL, Actor(user, user), parse(line))


async def _cars_of_three(service):
    for user, line in (("ann", "/game new ruleset:battlecars seed:9"), ("ann", "/game join vehicle:interceptor"),
                       ("ben", "/game join vehicle:rammer"), ("cal", "/game join vehicle:gunwagon"),
                       ("ann", "/game start")):
        assert (await run(service, user, line)).outcome == "applied", line


async def test_an_undo_then_a_new_move_does_not_revive_a_rollback_vote_on_the_old_position(service, store):
    """ann votes to roll back to #5, setting aside ben's counter #6 as she saw it. ben takes his counter back
    and sets another: the vote belongs to a position nobody voted on, so it must have lapsed."""
    await _cars_of_three(service)
    for user, line in (("ann", "/speed value:1"), ("ben", "/speed value:1")):
        assert (await run(service, user, line)).outcome == "applied", line
    assert (await run(service, "ann", "/game rollback to:5")).outcome == "shown"
    undone = await run(service, "ben", "/undo")
    assert undone.outcome == "applied", undone.text
    assert (await run(service, "ben", "/speed value:2")).outcome == "applied"
    yes = await run(service, "cal", "/game rollback vote:yes")
    assert "lapsed" in yes.text or yes.outcome == "refused", yes.text


async def _opened(service, game: str, seed: int, before_start=()):
    from tests.examples import lines
    every = lines(game, seed)
    for user, line in every[:-1] + list(before_start) + every[-1:]:
        assert (await run(service, user, line)).outcome in ("applied", "shown"), line


async def test_the_computers_move_for_a_seat_is_not_undone_by_its_player(service, store):
    """ben gives his seat to the computer, which plays his turn at once; his /undo is refused: the computer's move
    is not his own (taken back, it left the game waiting on a computer seat nothing played, with no clock)."""
    speedway = get_ruleset("speedway")
    await _opened(service, "speedway", 1)
    game = await store.active_game(CHANNEL)
    assert speedway.acting_players(speedway.load_state(game.state)) == ("ben",)
    assert (await run(service, "ben", "/game seat computer")).outcome == "applied"
    undone = await run(service, "ben", "/undo")
    await service.run_due()   # the scheduler's round: it plays on a game stalled on its computers
    state = speedway.load_state((await store.active_game(CHANNEL)).state)
    waiting = speedway.acting_players(state)
    stuck = waiting and all(speedway.is_computer(state, p) for p in waiting)
    assert undone.outcome == "refused" and "computer plays your seat" in undone.text, undone.text
    assert not stuck, waiting


async def test_a_player_who_missed_a_deadline_cannot_undo_the_autopilot_for_a_fresh_one(store):
    """ben misses his 12 h deadline and the autopilot plays his turn; his /undo is refused: the autopilot's move
    is the table's (taken back, it gave him a whole new deadline and took ann's turn, again at every deadline)."""
    from bot.table.service.entry import GameService

    now = [1_800_000_000.0]
    service = GameService(store, render=None, clock=lambda: now[0])
    speedway = get_ruleset("speedway")
    await _opened(service, "speedway", 1, [("ann", "/game settings deadline_hours:12")])
    now[0] += 13 * 3600
    assert await service.run_due()
    game, records = await store.game_and_actions((await store.active_game(CHANNEL)).id)
    assert '"PlayedByAutopilot"' in records[-1].events and records[-1].actor == "ben"
    assert speedway.acting_players(speedway.load_state(game.state)) == ("ann",)
    undone = await run(service, "ben", "/undo")
    assert undone.outcome == "refused", undone.text
    assert (await store.game_and_actions(game.id))[1] == records
