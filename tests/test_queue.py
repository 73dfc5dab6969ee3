"""The queue (issue 40 item 2): `/queue join` until enough members wait for the same game, which opens in a new
thread and musters them (confirm, decline, a timer that lets go of who does not answer and offers the seat on),
then starts as an ordinary game; limits, forgetting, blocking and two queues filling at once."""

from __future__ import annotations

import asyncio

import pytest

from bot.storage import queues as stored
from bot.storage.store import Store
from bot.table.protocol.commands import parse
from bot.table.protocol.replies import PRESSED, Actor, Edit
from bot.table.service.entry import GameService
from bot.table.service.queue import MUSTER_HOURS, OPEN_RETRY
from rules.registry import get_ruleset
from tests.conftest import TABLE_TIME, run_pitboss

BACKENDS = ("sqlite", "postgres")   # the queue and its musters are stored: both backends
GUILD = "g1"
HALL = "hall"
SPEEDWAY3 = "/queue join ruleset:speedway players:3"


class Clock:
    def __init__(self) -> None:
        self.now = TABLE_TIME

    def __call__(self) -> float:
        return self.now


async def run(service, user, line, channel=HALL, guild=GUILD):
    return await service.execute(channel, Actor(user, user.title()), parse(line), guild=guild)


async def confirmed(service, user, thread):
    reply = await run(service, user, "/queue confirm", thread)
    assert reply.outcome == "applied", reply.text
    return reply


async def opened(service, users, line=SPEEDWAY3):
    """`users` join one queue; the last one fills it: the thread's channel and its first message."""
    for user in users[:-1]:
        reply = await run(service, user, line)
        assert reply.outcome == "shown" and not reply.notices, reply.text
    last = await run(service, users[-1], line)
    (notice,) = last.notices
    assert notice.channel != HALL and f"opens in {notice.channel}" in last.text
    return notice.channel, notice.reply


async def test_a_queue_of_three_opens_musters_one_declines_the_next_in_line_takes_it_and_the_game_starts(service):
    thread, asking = await opened(service, ["ann", "bob", "cat"])
    assert asking.mentions == ("ann", "bob", "cat") and {b.label for b in asking.buttons} == {"Confirm my seat",
                                                                                               "Decline"}
    assert "seed" not in asking.text.lower()   # nothing secret: the game, its options, the names
    assert (await run(service, "dan", SPEEDWAY3)).notices == ()   # dan waits for the next one
    await confirmed(service, "ann", thread)
    (no,) = [b for b in asking.buttons if b.label == "Decline"]
    declined = await service.press(thread, Actor("bob", "Bob"), no.custom_id, guild=GUILD)
    assert "Bob declined: out of this queue" in declined.text and declined.mentions == ("dan",)
    assert "no queue" in (await run(service, "bob", "/queue show")).text   # out of the queue, said once
    assert (await run(service, "bob", "/queue confirm", thread)).outcome == "refused"
    assert (await run(service, "eve", "/game join", thread)).outcome == "refused"   # every seat is held
    assert (await run(service, "ann", "/game start", thread)).outcome == "refused"   # the muster's to start
    await confirmed(service, "cat", thread)
    started = await confirmed(service, "dan", thread)
    assert "Every seat is taken: the game starts." in started.text and started.mentions
    assert started.edits == ()   # typed: no message was pressed
    (yes,) = [b for b in asking.buttons if b.label == "Confirm my seat"]
    for member in ("cat", "eve"):   # its buttons, pressed after the start: said privately, taken off that message
        late = await service.press(thread, Actor(member, member.title()), yes.custom_id, guild=GUILD)
        assert (late.outcome, late.text, late.ephemeral) == ("refused", "This muster is over: the game started.", True)
        assert late.edits == (Edit(PRESSED, None),)
    game = await service._store.active_game(thread)
    state = get_ruleset("speedway").load_state(game.state)
    assert sorted(p.id for p in state.players) == ["ann", "cat", "dan"] and game.host == "ann"
    assert await service.replay_matches(game)   # an ordinary game: it verifies
    assert "1 queued game holds you" in (await run(service, "dan", "/queue show")).text


async def test_joining_is_checked_as_new_is(service):
    refused = [await run(service, "ann", line) for line in (
        "/queue join ruleset:speedway players:7", "/queue join ruleset:speedway players:2 setup:seed:4",
        "/queue join ruleset:speedway players:2 setup:colour:red", "/queue join ruleset:race players:2 setup:gm:yes",
        "/queue join ruleset:speedway players:2 setup:rounds:zero")]
    assert all(r.outcome == "refused" for r in refused), [r.text for r in refused]
    assert "full" in refused[0].text and "seed" in refused[1].text and "colour" in refused[2].text
    assert "no queue" in (await run(service, "ann", "/queue show")).text
    shown = await run(service, "ann", "/queue join ruleset:speedway players:2 setup:arena:duel")
    assert "Speedway, 2 players, arena:duel" in shown.text
    assert (await run(service, "bob", "/queue join ruleset:speedway players:2")).notices == ()   # another game
    assert (await run(service, "ann", "/queue leave ruleset:speedway")).outcome == "shown"
    assert (await run(service, "ann", "/queue leave")).outcome == "refused"


async def test_the_muster_timer_survives_a_restart_lets_go_once_and_offers_the_seat_on(store):
    clock = Clock()
    service = GameService(store, clock=clock)
    thread, _asking = await opened(service, ["ann", "bob"], "/queue join ruleset:speedway players:2")
    await run(service, "eve", "/queue join ruleset:speedway players:2")
    await confirmed(service, "ann", thread)
    clock.now += MUSTER_HOURS * 3600 - 60
    assert await service.run_due() == []   # not yet: 24 h, moved by nothing else
    clock.now += 120
    restarted = GameService(store, clock=clock)   # a new process: the timer is in the database
    (notice,) = await restarted.run_due()
    assert notice.channel == thread and "Bob did not confirm within 24 h: out of this queue" in notice.reply.text
    assert notice.reply.mentions == ("eve",)
    assert await restarted.run_due() == []   # told once
    started = await confirmed(restarted, "eve", thread)
    assert "the game starts" in started.text
    # nobody waits: eve's own next queue opens with bob, who lets the time pass, and the seat is left open
    await run(restarted, "bob", "/queue join ruleset:speedway players:2")
    await run(restarted, "eve", "/queue join ruleset:speedway players:2 at_once:2")
    (second,) = [m for m in await stored.gathering(store) if m.status == "mustering"]
    await confirmed(restarted, "eve", second.channel)
    clock.now += MUSTER_HOURS * 3600 + 1
    restarted.boards_changed()
    (notice,) = [n for n in await restarted.run_due() if n.channel == second.channel]   # (the first game reminds)
    assert "its free seats are open" in notice.reply.text and not notice.reply.mentions
    # the scheduler made it an open table: the server's board is looked at, as after a command
    assert GUILD in restarted.boards_changed() and len(await restarted.open_tables(GUILD)) == 1
    assert all(m.due is None for m in await stored.gathering(store))   # an open table: an ordinary lobby
    started = await run(restarted, "zed", "/game join", second.channel)   # anyone takes the open seat
    assert "the game starts" in started.text
    assert await stored.gathering(store) == []


async def test_a_thread_never_made_gives_its_members_back_to_the_queue(store):
    clock = Clock()
    service = GameService(store, clock=clock)
    await run(service, "ann", "/queue join ruleset:speedway players:2")
    async with store.transaction():   # the match, stored, then the process stopped before the thread was made
        muster = await stored.new_muster_tx(store, GUILD, (await stored.entries_of(store, GUILD, "ann"))[0].queue,
                                            HALL, clock.now + OPEN_RETRY)
        await stored.put_seat_tx(store, stored.MusterSeat(muster, "bob", "Bob", "asked", clock.now + 10))
    clock.now += OPEN_RETRY + 1
    assert await GameService(store, clock=clock).run_due() == []
    assert [m for m in await stored.gathering(store)] == []
    assert len(await stored.entries_of(store, GUILD, "bob")) == 1   # bob waits again


async def test_two_queues_filling_at_once_never_take_a_member_twice_nor_past_their_limit(service, store, db_path,
                                                                                         monkeypatch):
    await run(service, "max", "/queue join ruleset:speedway players:2")
    await run(service, "max", "/queue join ruleset:battlecars players:2")
    counted = stored.queued_games_tx

    async def slowly(*args):   # each match counts, then waits: both would count max free without the server's lock
        found = await counted(*args)
        await asyncio.sleep(0.05)
        return found
    monkeypatch.setattr(stored, "queued_games_tx", slowly)
    other = await Store.open(db_path)   # a second process on the same database
    try:
        one, two = await asyncio.gather(run(service, "ann", "/queue join ruleset:speedway players:2"),
                                        run(GameService(other), "bob", "/queue join ruleset:battlecars players:2"))
    finally:
        await other.close()
    assert len(one.notices) + len(two.notices) == 1   # max plays one queued game at once: one queue opened
    held = await stored.queued_games_tx(store, GUILD, ["max", "ann", "bob"])
    assert held["max"] == 1 and sum(held.values()) == 2
    assert len(await stored.entries_of(store, GUILD, "max")) == 1   # passed over in the other, keeping his place


async def test_a_forgotten_member_leaves_every_queue_and_a_blocked_one_is_never_matched(service, store):
    await run(service, "ann", "/queue join ruleset:speedway players:2")
    await run(service, "ann", "/queue join ruleset:battlecars players:2 at_once:3")
    forgotten = await run(service, "ann", "/me forget confirm:yes")
    assert forgotten.outcome == "shown", forgotten.text
    assert await stored.entries_of(store, GUILD, "ann") == [] and await stored.limit_of(store, GUILD, "ann") is None
    await run(service, "bob", "/queue join ruleset:speedway players:2")
    await service.control("user", "bob", True)
    assert (await run(service, "bob", "/queue join ruleset:battlecars players:2")).outcome == "refused"
    alone = await run(service, "cat", "/queue join ruleset:speedway players:2")
    assert alone.notices == ()   # bob waits there still, blocked: never matched


@pytest.mark.sqlite_only
async def test_a_game_the_queue_opened_is_ordinary(store):
    """Its host's clock, the autopilot at a deadline, a rollback voted by its seats, a resignation."""
    clock = Clock()
    service = GameService(store, clock=clock)
    thread, _asking = await opened(service, ["ann", "bob"], "/queue join ruleset:speedway players:2")
    await confirmed(service, "bob", thread)   # the first to confirm hosts it
    await confirmed(service, "ann", thread)
    assert (await run(service, "bob", "/game settings deadline_hours:1", thread)).outcome == "shown"
    clock.now += 2 * 3600
    assert any("deadline passed" in n.reply.text for n in await service.run_due() if n.channel == thread)
    proposed = await run(service, "ann", "/game rollback to:3", thread)   # 1, 2: the joins; 3: the start
    assert proposed.outcome != "refused", proposed.text
    rolled = await run(service, "bob", "/game rollback vote:yes", thread)
    assert rolled.outcome == "applied", rolled.text
    resigned = await run(service, "ann", "/game resign confirm:yes", thread)
    assert resigned.outcome == "applied", resigned.text
    assert (await run(service, "ann", "/queue confirm", thread)).outcome == "refused"   # the muster is over


@pytest.mark.sqlite_only
def test_the_command_line_speaks_the_queue(tmp_path):
    """A queue of three on the local table (each process a fresh service, as a real one): it opens a channel of
    its own, one declines and is replaced by the member waiting next, and the game starts."""
    db = str(tmp_path / "q.db")
    joined = run_pitboss("play", "--db", db, "--channel", "hall", cwd=tmp_path, stdin="".join(
        f"{user}> /queue join ruleset:speedway players:3\n" for user in ("ann", "bob", "cat", "dan")))
    assert joined.returncode == 0, joined.stderr
    assert "[channel hall-queue1] The queue opened this game: Speedway, 3 players." in joined.stdout
    assert "(ping: ann, bob, cat)" in joined.stdout
    mustered = run_pitboss("play", "--db", db, "--channel", "hall-queue1", cwd=tmp_path, stdin="".join(
        f"{user}> {line}\n" for user, line in (("ann", "/queue confirm"), ("bob", "/queue decline"),
                                              ("cat", "/queue confirm"), ("dan", "/queue confirm"))))
    assert mustered.returncode == 0, mustered.stderr
    assert "bob declined: out of this queue. A seat is offered on. dan:" in mustered.stdout
    assert "Every seat is taken: the game starts." in mustered.stdout


async def test_a_muster_pings_in_its_thread_at_once_whatever_a_members_away_hours_and_notices(service):
    """Its 24 h limit moves for nobody, so its ping is not held for away hours; it goes at once where the member
    wants their pings (a notify:dm member's by direct message, not @-mentioned in the thread: the model found it)."""
    thread, _asking = await opened(service, ["ann", "bob"], "/queue join ruleset:speedway players:2")
    await confirmed(service, "ann", thread)   # the game exists: away hours would hold its pings
    assert (await run(service, "dan", "/me settings away:07-09 notify:dm")).outcome == "shown"
    await run(service, "dan", "/queue join ruleset:speedway players:2")
    offered = await run(service, "bob", "/queue decline", thread)
    assert offered.mentions == () and [d.player for d in offered.direct] == ["dan"]
    assert "confirm your seat" in offered.direct[0].text and offered.own_message


async def test_a_member_at_their_limit_cannot_take_a_queued_games_open_seat_by_join(service):
    """The model found it (issue 40): a queued game's seat left open is taken by /game join, and that seat holds
    its member as a muster's does; dan, held by another queued game at his limit of one, was seated in a second."""
    first, _asking = await opened(service, ["ann", "bob"], "/queue join ruleset:speedway players:2")
    await confirmed(service, "ann", first)
    left = await run(service, "bob", "/queue decline", first)
    assert "its free seats are open" in left.text, left.text
    second, _asking = await opened(service, ["dan", "cat"], "/queue join ruleset:speedway players:2")
    await confirmed(service, "dan", second)
    joined = await run(service, "dan", "/game join", first)
    assert joined.outcome == "refused" and "1 queued game at once" in joined.text, joined.text
    assert (await stored.queued_games_tx(service._store, GUILD, ["dan"])) == {"dan": 1}
    assert (await run(service, "eve", "/game join", first)).outcome == "applied"   # a member not held takes it


async def test_two_joins_at_once_of_queued_games_open_seats_never_pass_a_members_limit(service, store, db_path,
                                                                                      monkeypatch):
    """A member at a limit of one joins two queued games' open seats at once, from two processes: the limit is
    judged under the server's queue lock, so one join takes its seat and the other is refused."""
    first, _asking = await opened(service, ["ann", "bob"], "/queue join ruleset:speedway players:2")
    await confirmed(service, "ann", first)
    await run(service, "bob", "/queue decline", first)
    second, _asking = await opened(service, ["dan", "cat"], "/queue join ruleset:speedway players:2")
    await confirmed(service, "dan", second)
    await run(service, "cat", "/queue decline", second)
    counted = stored.queued_games_tx

    async def slowly(*args):   # each join counts, then waits: both would count eve free without the lock
        found = await counted(*args)
        await asyncio.sleep(0.05)
        return found
    monkeypatch.setattr(stored, "queued_games_tx", slowly)
    other = await Store.open(db_path)
    try:
        one, two = await asyncio.gather(run(service, "eve", "/game join", first),
                                        run(GameService(other), "eve", "/game join", second))
    finally:
        await other.close()
    assert sorted((one.outcome, two.outcome)) == ["applied", "refused"], (one.text, two.text)
    assert "1 queued game at once" in (one if one.outcome == "refused" else two).text
    assert (await counted(store, GUILD, ["eve"])) == {"eve": 1}


async def test_a_queued_games_open_seat_taken_by_lfg_join_is_the_musters(service):
    """/lfg's Join (or /lfg game:N) on a queued game's open seat is a /game join in its thread: the member's limit
    counts, the seat holds them, and the last seat taken starts the game (it stayed a lobby whose start was refused:
    nobody could start it)."""
    first, _asking = await opened(service, ["ann", "bob"], "/queue join ruleset:speedway players:2")
    await confirmed(service, "ann", first)
    await run(service, "bob", "/queue decline", first)
    game = await service._store.active_game(first)
    second, _asking = await opened(service, ["dan", "cat"], "/queue join ruleset:speedway players:2")
    await confirmed(service, "dan", second)
    refused = await run(service, "dan", f"/lfg game:{game.id}")
    assert refused.outcome == "refused" and "1 queued game at once" in refused.text, refused.text
    joined = await run(service, "eve", f"/lfg game:{game.id}")
    assert joined.outcome == "applied" and "the game started" in joined.text, joined.text
    assert "Every seat is taken: the game starts." in joined.notices[0].reply.text
    assert await stored.muster_in(service._store, first) is None
    assert (await stored.queued_games_tx(service._store, GUILD, ["ann", "eve"])) == {"ann": 1, "eve": 1}


async def test_an_lfg_join_that_leaves_a_queued_game_short_says_it_starts_by_itself(service):
    """A queued game has no host to start it: the joiner is told it starts once every seat is taken."""
    first, _asking = await opened(service, ["ann", "bob", "cat"])
    await confirmed(service, "ann", first)
    await run(service, "bob", "/queue decline", first)
    await run(service, "cat", "/queue decline", first)
    game = await service._store.active_game(first)
    joined = await run(service, "eve", f"/lfg game:{game.id}")
    assert joined.outcome == "applied" and "It starts by itself once every seat is taken." in joined.text, joined.text
    assert "host" not in joined.text


async def test_a_member_freed_by_their_queued_games_end_is_matched_by_the_scheduler(store):
    clock = Clock()
    service = GameService(store, clock=clock)
    thread, _asking = await opened(service, ["ann", "bob"], "/queue join ruleset:speedway players:2")
    await run(service, "ann", "/queue join ruleset:battlecars players:2")
    waiting = await run(service, "cat", "/queue join ruleset:battlecars players:2")
    assert waiting.notices == () and "some play all the queued games they chose" in waiting.text
    await confirmed(service, "ann", thread)
    await confirmed(service, "bob", thread)
    assert await service.run_due() == []   # ann's queued game still runs
    assert (await run(service, "ann", "/game end", thread)).outcome == "applied"
    (notice,) = await service.run_due()
    assert notice.reply.mentions == ("ann", "cat") and "Battlecars, 2 players" in notice.reply.text


async def test_a_queued_game_ended_before_its_start_closes_its_muster(service, store):
    thread, _asking = await opened(service, ["ann", "bob"], "/queue join ruleset:speedway players:2")
    await confirmed(service, "ann", thread)
    assert (await run(service, "ann", "/game end", thread)).outcome == "applied"
    late = await run(service, "bob", "/queue confirm", thread)
    assert late.outcome == "refused" and "ended before it started" in late.text
    assert await stored.gathering(store) == [] and await service._store.active_game(thread) is None
