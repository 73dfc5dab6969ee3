"""A game moved to another channel (issue 36, item 10) keeps what the table keeps beside its log: its players'
standing orders still answer their questions there, and its followers still follow it, told where it went."""

from __future__ import annotations

import random

from bot.storage.store import Store
from bot.table.protocol.commands import Command, parse
from bot.table.protocol.replies import Actor
from bot.table.service.entry import GameService
from rules.registry import get_ruleset

ORDERS = {"skid": "resist:40", "swipe": "yes", "ram": "A"}


async def run(service, user, line, channel):
    return await service.execute(channel, Actor(user, user), parse(line), guild="g1")


async def test_a_moved_game_keeps_its_standing_orders_and_followers(db_path):
    store = await Store.open(db_path)
    service = GameService(store, render=None)
    try:
        for user, line in (("ann", "/game new ruleset:speedway seed:5"), ("ann", "/game join car:brawler"),
                           ("ben", "/game join car:brawler"), ("ann", "/game start"), ("zed", "/game follow")):
            assert (await run(service, user, line, "before")).outcome in ("applied", "shown"), line
        for user in ("ann", "ben"):
            for question, answer in ORDERS.items():
                assert (await run(service, user, f"/orders set question:{question} answer:{answer}",
                                  "before")).outcome == "shown"
        exported = await run(service, "ann", "/game export", "before")
        moved = await service.execute("after", Actor("ann", "ann"),
                                      Command("game import", {"file": exported.files[0].data}), guild="g1")
        assert moved.outcome == "applied", moved.text
        (told,) = moved.notices   # the follower learns where it went, in the channel they followed it in
        assert told.channel == "before" and told.reply.mentions == ("zed",) and "moved to after" in told.reply.text
        shown = await run(service, "ben", "/orders show", "after")
        assert "ram" in shown.text and shown.ephemeral, shown.text                # ben's orders came along, still his
        answered, asked_in_vain = await play_on(service, store, "after")
        assert answered >= 2 and asked_in_vain == 0   # the orders answered there; nobody waited on a settled question
    finally:
        await store.close()


async def test_a_moved_game_pings_whom_it_waits_on_there_and_tells_its_old_channel(db_path):
    """Play-test of issue 36: a game moved with nobody following it pinged nobody, and its old channel heard
    nothing: the player it waited on had no way to learn it had moved, nor those asked to vote that the vote
    they were pinged for had ended."""
    store = await Store.open(db_path)
    service = GameService(store, render=None)
    try:
        for user, line in (("ann", "/game new ruleset:speedway seed:5"), ("ann", "/game join car:brawler"),
                           ("ben", "/game join car:brawler"), ("ann", "/game start")):
            assert (await run(service, user, line, "before")).outcome == "applied", line
        for _ in range(3):   # three turns standing still (a car at speed 0 may still drop its mines: /end)
            mover = (await run(service, "ann", "/game status", "before")).waiting_on[0]
            assert (await run(service, mover, "/speed value:0", "before")).outcome == "applied"
            assert (await run(service, mover, "/end", "before")).outcome == "applied"
        assert (await run(service, "ann", "/game rollback to:4", "before")).outcome == "shown"   # a vote stays open
        exported = await run(service, "ann", "/game export", "before")
        moved = await service.execute("after", Actor("ann", "ann"),
                                      Command("game import", {"file": exported.files[0].data}), guild="g1")
        assert moved.outcome == "applied", moved.text
        assert moved.mentions == moved.waiting_on and moved.mentions, (moved.mentions, moved.waiting_on)
        (told,) = moved.notices
        assert told.channel == "before" and not told.reply.mentions
        assert told.reply.text == ("The Speedway game here moved to after; it goes on there. The rollback vote open "
                                   "here ended with the move."), told.reply.text
    finally:
        await store.close()


async def play_on(service, store, channel: str, moves: int = 400) -> tuple[int, int]:
    """Random legal moves (attacks preferred) until the game ends: answers given by standing order, and the
    times a covered question was put to a person."""
    ruleset = get_ruleset("speedway")
    assert ruleset.orders is not None
    rng = random.Random(5)
    asked_in_vain = 0
    for _ in range(moves):
        record = await store.active_game(channel)
        if record is None:
            break
        state = ruleset.load_state(record.state)
        for player in ruleset.acting_players(state):
            asked_in_vain += any(q.asked(state, player) and q.choose(
                state, player, ORDERS[q.name], ruleset.legal_actions(state, player)) is not None
                for q in ruleset.orders.questions)
        player = ruleset.acting_players(state)[0]
        legal = [a for a in ruleset.legal_actions(state, player) if a.action is not None]
        attacks = [a for a in legal if a.primary]
        chosen = rng.choice(attacks if attacks and rng.random() < 0.8 else legal)
        assert (await run(service, player, chosen.command, channel)).outcome == "applied"
    game = await store.latest_game(channel)
    _, records = await store.game_and_actions(game.id)
    assert await service.replay_matches(game)
    return sum('"ByStandingOrder"' in r.events for r in records), asked_in_vain
