"""Standing orders (issue 27, item 1): answers a player gives in advance to the questions their game asks
off their turn (Speedway skid, swipe and ram; Battlecars return fire and hit section; Race reaction and
stabilize). When the question comes and an order covers it, the table answers at once in the owner's name,
logs it "by standing order" and waits on nobody; the order itself stays private."""

from __future__ import annotations

import json
import random

import pytest

from bot.table.protocol.commands import parse
from bot.table.protocol.replies import Actor
from rules.registry import get_ruleset
from tests.conftest import run_cli
from tests.examples import games_with, lines

SEED = 9
GAMES = games_with("orders")   # every registered game that asks questions a player may answer in advance


def standing_answers(game: str) -> dict[str, str]:
    """An order for each question the game asks: its last answer as offered (seeded: they come up)."""
    return {q.name: q.answers[-1] for q in get_ruleset(game).orders.questions}


async def run(service, user, line, channel="orders"):
    return await service.execute(channel, Actor(user, user), parse(line))


async def play_one(service, ruleset, state, rng: random.Random, channel: str = "orders") -> None:
    """One legal move (an attack four times in five) by the first player the game waits on."""
    player = ruleset.acting_players(state)[0]
    legal = [a for a in ruleset.legal_actions(state, player) if a.action is not None]
    attacks = [a for a in legal if a.primary]
    chosen = rng.choice(attacks if attacks and rng.random() < 0.8 else legal)
    reply = await run(service, player, chosen.command, channel)
    assert reply.outcome == "applied", (chosen.command, reply.text)


async def play(service, store, game, seed, moves=400, orders=True):
    """A seeded game of ann and ben, each with an order for every question the game asks (or none); the
    number of answers given by standing order, and of times a covered question was put to a person."""
    for user, line in lines(game, seed, start=False):
        assert (await run(service, user, line)).outcome == "applied", line
    for user in ("ann", "ben") if orders else ():
        for question, answer in standing_answers(game).items():
            assert (await run(service, user, f"/orders set question:{question} answer:{answer}")).outcome == "shown"
    await run(service, *lines(game, seed)[-1])
    ruleset = get_ruleset(game)
    rng = random.Random(seed)
    asked_in_vain = 0
    for _ in range(moves):
        record = await store.active_game("orders")
        if record is None:
            break
        state = ruleset.load_state(record.state)
        for player in ruleset.acting_players(state):
            asked_in_vain += orders and any(q.asked(state, player) and q.choose(
                state, player, standing_answers(game)[q.name], ruleset.legal_actions(state, player)) is not None
                for q in ruleset.orders.questions)
        await play_one(service, ruleset, state, rng)
    game_record = await store.latest_game("orders")
    _, records = await store.game_and_actions(game_record.id)
    ordered = [r.seq for r in records if '"ByStandingOrder"' in r.events]
    log = await run(service, "zed", f"/game log count:1 before:{ordered[0] + 1}") if ordered else None
    assert await service.replay_matches(game_record)
    return len(ordered), asked_in_vain, log


@pytest.mark.parametrize("game", GAMES)
async def test_a_question_an_order_covers_is_answered_at_once_and_the_game_replays(service, store, game):
    answered, asked_in_vain, log = await play(service, store, game, SEED)
    assert answered >= 2, answered          # the questions came, and the orders answered them
    assert asked_in_vain == 0               # never was a person left waiting on one an order covers
    assert " answers by standing order (" in log.text, log.text   # the log says so, as the channel did


async def test_without_orders_the_same_questions_wait_for_their_player(service, store):
    answered, _, _ = await play(service, store, "battlecars", 9, moves=120, orders=False)
    assert answered == 0


async def test_orders_are_private_checked_and_cleared(service, store):
    for user, line in lines("speedway", 2):
        await run(service, user, line)
    kept = await run(service, "ben", "/orders set question:skid answer:resist>=65%")
    assert kept.ephemeral and "skid → resist:65" in kept.text
    for bad, said in (("/orders set question:return_fire answer:hold", "question: one of swipe, skid, ram."),
                      ("/orders set question:skid answer:resist:100", "answer: skid takes accept, resist"),
                      ("/orders set question:ram answer:C", "answer: ram takes A, B.")):
        refused = await run(service, "ben", bad)
        assert refused.outcome == "refused" and refused.text.startswith(said), refused.text
    assert (await run(service, "zed", "/orders set question:ram answer:A")).outcome == "refused"
    shown = await run(service, "ben", "/orders show")
    assert shown.ephemeral and "- skid: **resist:65**" in shown.text and "- ram: none" in shown.text
    theirs = await run(service, "ann", "/orders show")
    assert "resist:65" not in theirs.text
    for look in ("/game status", "/game log", "/game export", "/game settings"):
        said = await run(service, "ann", look)
        assert "65" not in said.text and all(b"resist:65" not in f.data for f in said.files), look
    assert (await run(service, "ben", "/orders clear question:skid")).text == "Dropped your standing order for skid."
    assert "- skid: none" in (await run(service, "ben", "/orders show")).text
    offered = await service.suggest("orders", Actor("ben", "ben"), "orders set", "answer", "", {"question": "ram"})
    assert offered == [("A", "A"), ("B", "B")]


def test_orders_on_the_command_line(tmp_path):
    db = str(tmp_path / "o.db")
    where = ("--db", db, "--channel", "c")
    for user, line in (("ann", "/game new ruleset:race seed:3"), ("ann", "/game join pilot:rookie"),
                       ("ben", "/game join pilot:veteran"), ("ann", "/game start")):
        assert run_cli("exec", *where, "--user", user, line, cwd=tmp_path).returncode == 0
    kept = run_cli("exec", *where, "--user", "ben", "/orders set question:reaction answer:dodge", cwd=tmp_path)
    assert kept.returncode == 0 and kept.stdout.startswith("private: Standing order kept"), kept.stdout
    export = run_cli("exec", "--out", str(tmp_path / "out"), *where, "--user", "ann", "/game export", cwd=tmp_path)
    assert export.returncode == 0
    exported = list((tmp_path / "out").glob("*.json"))
    assert exported and all("dodge" not in json.dumps(json.loads(p.read_text())) for p in exported)


async def test_an_order_not_yet_carried_out_shows_through_no_door(tmp_path):
    """The trust property for orders: two games played alike, one where ben keeps orders for every question
    (none of which has come), look the same to ann and to a watcher through every door; ben's own
    /orders show differs."""
    from bot.storage.store import Store
    from bot.table.service.entry import GameService
    from tests.conftest import TABLE_TIME
    from tests.test_secrets import LOOKS, _face

    async def world(name: str, keep: bool) -> dict:
        store = await Store.open(str(tmp_path / f"{name}.db"))
        service = GameService(store, clock=lambda: TABLE_TIME)
        for user, line in lines("speedway", 4):
            assert (await run(service, user, line)).outcome == "applied"
        for question, answer in standing_answers("speedway").items() if keep else ():
            await run(service, "ben", f"/orders set question:{question} answer:{answer}")
        speedway = get_ruleset("speedway")
        for _ in range(6):   # standing still, and ending the turn: no skid, swipe or ram can come
            state = speedway.load_state((await store.active_game("orders")).state)
            player = speedway.acting_players(state)[0]
            offered = [a.command for a in speedway.legal_actions(state, player)]
            line = next(c for c in ("/speed value:0", "/end") if c in offered)
            assert (await run(service, player, line)).outcome == "applied"
        faces = {(who, look): _face(await run(service, who, look)) for who in ("ann", "zed") for look in LOOKS}
        faces["ben's own"] = _face(await run(service, "ben", "/orders show"))
        await store.close()
        return faces

    kept, none = await world("kept", True), await world("none", False)
    assert {k: v for k, v in kept.items() if k != "ben's own"} == {k: v for k, v in none.items() if k != "ben's own"}
    assert kept["ben's own"] != none["ben's own"]
