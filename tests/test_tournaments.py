"""Tournaments through the service (issue 40 item 4): sign-up, the gate, the start by its creator, each round's
games opened in threads of the tournament's channel with every member seated and a deadline set, results
carried by the scheduler, and a final table; played out by computer-played seats."""

from __future__ import annotations

import logging

import pytest

from bot.storage import tournaments as stored
from bot.table.clock.settings import TableSettings
from bot.table.league import tournament as course
from bot.table.protocol.commands import CommandSyntaxError, parse
from bot.table.protocol.replies import Actor, Reply
from rules.registry import get_ruleset
from rules.table import TablePhase
from tests.conftest import run_pitboss

BACKENDS = ("sqlite", "postgres")   # tournaments are stored: both backends (tests/conftest.py)
G = "g1"
MEMBERS = ("ann", "bob", "cat", "dan")


async def do(service, channel: str, user: str, line: str, *, guild: str = G, admin: bool = False) -> Reply:
    return await service.execute(channel, Actor(user, user, admin), parse(line), guild=guild)


async def must(service, channel: str, user: str, line: str, **kw) -> Reply:
    reply = await do(service, channel, user, line, **kw)
    assert reply.outcome in ("applied", "shown"), (line, reply.text)
    return reply


async def _signed_up(service, fmt: str, *extra: str) -> int:
    made = await must(service, "hall", "ann", f"/tournament new ruleset:speedway format:{fmt} players:4 "
                                              f"setup:'arena:duel rounds:100' {' '.join(extra)}")
    (join,) = made.buttons
    number = int(join.custom_id.split(":")[1])
    for member in MEMBERS:
        said = await service.press("hall", Actor(member, member), join.custom_id, guild=G)
        assert said.outcome == "applied", said.text
    return number


async def _play_out(service, number: int) -> list:
    """Hand every seat of the tournament's open games to the computer, round after round, running the
    scheduler between: every notice it posted. A course that does not finish fails the test with where it
    stood: the course, the games, what the seat commands answered and what was logged (the message alone,
    so a short excerpt of the run shows it)."""
    posted: list = []
    answered: list[str] = []
    logged = _Logged()
    logging.getLogger("pitboss").addHandler(logged)
    try:
        for _ in range(12):
            plan = course.load((await stored.get(service._store, number)).course)
            if plan.status == "finished":
                return posted
            for table in plan.tables:
                if table.game_id and table.order is None:
                    game = await service._store.game(table.game_id)
                    if game.status == "active":
                        for member in table.members:
                            said = await do(service, game.channel, member, "/game seat computer")
                            answered.append(f"{game.id} {member}: {said.outcome} {said.text[:120]!r}")
            posted += await service.run_due()
    finally:
        logging.getLogger("pitboss").removeHandler(logged)
    plan = course.load((await stored.get(service._store, number)).course)
    games = {t.game_id: (await service._store.game(t.game_id)).status for t in plan.tables if t.game_id}
    pytest.fail(f"the tournament did not finish: logged {logged.lines} games {games} course {course.dump(plan)} "
                f"answered {answered} posted {posted}", pytrace=False)


class _Logged(logging.Handler):
    """The warnings and errors the bot logged, each a line with its exception's last line."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        error = f" ({record.exc_info[0].__name__}: {record.exc_info[1]})" if record.exc_info else ""
        self.lines.append(f"{record.name}: {record.getMessage()}{error}")


# The course's logic per format on SQLite, the stored path on PostgreSQL once (both formats store alike)
@pytest.mark.parametrize("db_backend, fmt, games",
                         [("sqlite", "elimination", 3), ("sqlite", "round-robin", 6), ("postgres", "elimination", 3)])
async def test_a_tournament_of_four_plays_out_by_computer_seats_to_a_final_table(service, fmt, games):
    number = await _signed_up(service, fmt)
    started = await must(service, "hall", "ann", "/tournament start")
    assert "seeded" in started.text
    opened = [n for n in started.notices if n.channel != "hall"]
    assert opened, "the first round's games open at the start"
    first = course.load((await stored.get(service._store, number)).course)
    for table in first.current():
        game = await service._store.game(table.game_id)
        assert game.channel.startswith("hall-t") and game.status == "active"
        state = get_ruleset(game.ruleset).load_state(game.state)
        assert sorted(p.id for p in state.players) == sorted(table.members)
        assert state.phase != TablePhase.LOBBY
        assert TableSettings.or_defaults(game.settings).deadline_hours == 48   # no tournament game waits untimed
    posted = await _play_out(service, number)
    plan = course.load((await stored.get(service._store, number)).course)
    assert plan.status == "finished"
    assert sum(1 for t in plan.tables if not t.bye) == games
    assert all(t.order for t in plan.tables)
    final = next(n for n in posted if n.channel == "hall" and "is over" in n.reply.text)
    assert "Final table" in final.reply.text
    assert sorted(m for m, _ in course.standing(plan)) == sorted(MEMBERS)
    shown = await must(service, "hall", "bob", f"/tournament show number:{number}")
    assert "Final table" in shown.text and shown.ephemeral


async def test_each_games_log_is_read_once_at_its_end_for_the_rating_and_the_result(service, monkeypatch):
    """The rating's reading of a game's end is the tournament's result too (kept with its course): the log is re-run
    once a game; a game whose result was not kept (rated by an earlier release) is read from its log."""
    from bot.table.service import ratings as service_ratings
    from bot.table.service import tournaments as service_tournaments
    reads = []
    read = service_ratings.game_input

    async def counted(store, run, game):
        reads.append(game.id)
        return await read(store, run, game)
    monkeypatch.setattr(service_ratings, "game_input", counted)
    monkeypatch.setattr(service_tournaments, "game_input", counted)
    number = await _signed_up(service, "elimination")
    await must(service, "hall", "ann", "/tournament start")
    await _play_out(service, number)
    plan = course.load((await stored.get(service._store, number)).course)
    games = [t.game_id for t in plan.tables if t.game_id]
    assert sorted(reads) == sorted(games) and all(t.ended == t.order for t in plan.tables if t.game_id)
    # a course stored before results were kept: the game is read from its log, to the same result
    record = await stored.get(service._store, number)
    first = next(t for t in plan.tables if t.game_id)
    kept = first.order
    first.order = first.ended = None
    async with service._store.transaction():
        await stored.save_tx(service._store, record, "running", course.dump(plan))
    await service.run_due()
    again = course.load((await stored.get(service._store, number)).course)
    assert again.table_of(first.game_id).order == kept and reads.count(first.game_id) == 2


async def test_sign_up_refusals_and_who_may_start(service):
    number = await _signed_up(service, "elimination")
    again = await do(service, "hall", "bob", "/tournament join")
    assert again.outcome == "refused" and "already" in again.text
    full = await do(service, "hall", "eve", "/tournament join")
    assert full.outcome == "refused" and "full" in full.text
    early = await do(service, "hall", "bob", "/tournament start")
    assert early.outcome == "refused" and "creator" in early.text
    elsewhere = await do(service, "hall", "ann", f"/tournament start number:{number}", guild="g2")
    assert elsewhere.outcome == "refused" and "No tournament" in elsewhere.text
    await must(service, "hall", "bob", "/tournament leave")
    await must(service, "hall", "zed", "/tournament start", admin=True)   # a manager may start it
    late = await do(service, "hall", "eve", "/tournament join")
    assert late.outcome == "refused" and "started" in late.text


async def test_bad_options_are_refused_and_store_nothing(service):
    for line, option in (("/tournament new ruleset:speedway format:swiss players:4", "format"),
                         ("/tournament new ruleset:nosuch format:elimination players:4", "ruleset")):
        with pytest.raises(CommandSyntaxError, match=option):   # the grammar's refusal, before the service
            parse(line)
    for line in (                 "/tournament new ruleset:speedway format:elimination players:4 seats:7",
                 "/tournament new ruleset:speedway format:elimination players:4 setup:seed:5"):
        said = await do(service, "hall", "ann", line)
        assert said.outcome == "refused", line
    assert await stored.of_guild(service._store, G) == []


@pytest.mark.sqlite_only
def test_the_command_line_plays_a_tournament_of_four_to_its_final_table(tmp_path):
    """Each step a fresh process, as a real local table: sign-up, the start opening round 1 in channels of their
    own, the computer playing every seat, `pitboss tick` carrying results into the final, and the final table."""
    db = str(tmp_path / "t.db")

    def play(channel: str, lines: list[tuple[str, str]]) -> str:
        done = run_pitboss("play", "--db", db, "--channel", channel, cwd=tmp_path,
                           stdin="".join(f"{user}> {line}\n" for user, line in lines))
        assert done.returncode == 0, done.stderr
        return done.stdout

    opened = play("hall", [("ann", "/tournament new ruleset:speedway format:elimination players:4 "
                                   "setup:'arena:duel rounds:100'"),
                           *((m, "/tournament join") for m in MEMBERS), ("ann", "/tournament start")])
    assert "signed up for tournament 1 (4 of 4)" in opened
    assert "[channel hall-t1000]" in opened and "[channel hall-t1001]" in opened   # round 1: two games
    # round 1, then the final the tick opens, then a spare pass for a game the computer did not finish in one go
    for channels in (("hall-t1000", "hall-t1001"), ("hall-t1002",), ("hall-t1000", "hall-t1001", "hall-t1002")):
        for channel in channels:
            play(channel, [(m, "/game seat computer") for m in MEMBERS])
        ticked = run_pitboss("tick", "--db", db, cwd=tmp_path)
        assert ticked.returncode == 0, ticked.stderr
        if "Tournament 1 is over." in ticked.stdout:
            break
    else:
        raise AssertionError("the tournament did not finish")
    assert "Final table (round reached):\n1. " in ticked.stdout
    shown = play("hall", [("bob", "/tournament show")])
    assert "Status: finished" in shown and "Round 2:" in shown


async def test_a_round_is_told_in_one_message_when_the_scheduler_runs_during_its_start(service):
    """The scheduler's round that comes while `/tournament start` opens the first round's games leaves them to the
    start (they were claimed one by one: both took a game and each told the channel of its own)."""
    import asyncio
    number = await _signed_up(service, "round-robin")
    tournaments = service._tournaments
    opened, release = asyncio.Event(), asyncio.Event()
    opener = tournaments.open_thread

    async def slow_thread(parent: str, title: str, game: int) -> str:
        if not opened.is_set():   # the first game's thread only
            opened.set()
            await release.wait()
        return await opener(parent, title, game)

    tournaments.open_thread = slow_thread
    start = asyncio.ensure_future(must(service, "hall", "ann", "/tournament start"))
    await opened.wait()   # the start holds its first game's thread open
    during = await service.run_due()
    release.set()
    started = await start
    told = [n for n in (*started.notices, *during) if n.channel == "hall"]
    assert len(told) == 1 and told[0].reply.text.count("\n") == 2, [n.reply.text for n in told]   # both games
    plan = course.load((await stored.get(service._store, number)).course)
    assert all(t.game_id for t in plan.current())


async def test_a_forgotten_member_leaves_a_sign_up_is_refused_while_it_runs_and_renamed_after(service):
    """/me forget (issue 39 item 12) meets tournaments: before the start it takes the member off the list; while
    the tournament runs it is refused, naming it; after the end the course keeps no id or name of theirs."""
    waiting = await _signed_up(service, "round-robin")
    store = service._store
    extra = await must(service, "hall2", "eve", "/tournament new ruleset:speedway format:round-robin players:4 "
                                                "setup:arena:duel")
    later = int(extra.buttons[0].custom_id.split(":")[1])
    pressed = await service.press("hall2", Actor("dan", "dan"), extra.buttons[0].custom_id, guild=G)
    assert pressed.outcome == "applied", pressed.text
    await must(service, "hall", "ann", f"/tournament start number:{waiting}")
    (table,) = [t for t in course.load((await stored.get(store, waiting)).course).current() if "dan" in t.members]
    await must(service, (await store.game(table.game_id)).channel, "dan", "/game resign confirm:yes")   # between games
    refused = await do(service, "x", "dan", "/me forget confirm:yes")
    assert refused.outcome == "refused" and f"tournament {waiting}" in refused.text, refused.text
    assert "dan" in course.load((await stored.get(store, later)).course).entrants   # nothing changed
    await _play_out(service, waiting)
    forgot = await must(service, "x", "dan", "/me forget confirm:yes")
    assert "Forgotten" in forgot.text
    assert '"dan"' not in (await stored.get(store, waiting)).course
    assert course.load((await stored.get(store, later)).course).entrants == []
    finished = course.load((await stored.get(store, waiting)).course)
    (alias,) = [m for m in finished.entrants if m not in MEMBERS]
    assert finished.names[alias] == "forgotten player"
    assert all(alias in t.members for t in finished.tables if "dan" in t.members or alias in t.members)
    shown = await must(service, "hall", "ann", f"/tournament show number:{waiting}")
    assert "dan" not in shown.text and "forgotten player" in shown.text
