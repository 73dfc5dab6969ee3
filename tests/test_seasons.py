"""League seasons through the service (issue 40 item 4): a manager runs a season, members join by its button, the
bot pairs waiting members into games (each in at most max_games at once, avoiding repeat pairings) opened in
threads with everyone seated and a deadline set; the computer plays the seats out, the scheduler pairs again, and
at the season's end (a timer that survives a restart) the channel gets the standings by rating."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from bot.storage import seasons as stored
from bot.table.clock.settings import TableSettings
from bot.table.protocol.replies import Actor
from bot.table.service.entry import GameService
from bot.table.service.seasons import DAY
from rules.registry import get_ruleset
from rules.table import TablePhase
from tests.conftest import run_pitboss
from tests.test_tournaments import do, must

BACKENDS = ("sqlite", "postgres")   # seasons are stored: both backends (tests/conftest.py)
G = "g1"   # as tests.test_tournaments's do and must take it
MEMBERS = ("ann", "bob", "cat", "dan")


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


async def _season(service, max_games: int = 1, days: int = 7) -> int:
    made = await must(service, "hall", "boss", f"/league new ruleset:speedway season_days:{days} "
                                               f"max_games:{max_games} setup:'arena:duel rounds:100'", admin=True)
    (join,) = made.buttons
    assert "**Season" in made.text and join.label == "Join"
    for member in MEMBERS:
        said = await service.press("hall", Actor(member, member), join.custom_id, guild=G)
        assert said.outcome == "applied", said.text
    return int(join.custom_id.split(":")[1])


async def _running(service, number: int) -> list[tuple[tuple[str, ...], object]]:
    """The season's games still running: each one's members and stored game."""
    found = []
    for game in await stored.games(service._store, number):
        record = await service._store.game(game.game_id)
        if record.status == "active":
            found.append((game.members, record))
    return found


async def _computer_plays_out(service, number: int) -> None:
    for members, game in await _running(service, number):
        for member in members:
            await do(service, game.channel, member, "/game seat computer")


async def test_a_season_pairs_waiting_members_within_max_games_and_ends_with_standings_by_rating(store):
    clock = Clock()
    service = GameService(store, clock=clock)
    number = await _season(service)
    first = await _running(service, number)
    assert len(first) == 2   # four members, one game each at most: two duels, paired as they joined
    assert sorted(m for members, _ in first for m in members) == sorted(MEMBERS)
    for members, game in first:
        state = get_ruleset(game.ruleset).load_state(game.state)
        assert sorted(p.id for p in state.players) == sorted(members) and state.phase != TablePhase.LOBBY
        assert TableSettings.or_defaults(game.settings).deadline_hours == 48   # no season game waits untimed
        assert game.channel.startswith("hall-s")
    listed = await do(service, "hall", "eve", "/lfg")
    assert "hall-s" not in listed.text   # a season's game is never an open table
    assert await service.run_due() == []   # everyone is at max_games: nobody is paired again
    await _computer_plays_out(service, number)
    posted = await service.run_due()   # the games ended: everyone waits again, paired with someone new
    assert any(n.channel == "hall" and "Season 1, paired:" in n.reply.text for n in posted)
    second = await _running(service, number)
    assert len(second) == 2
    pairs = {frozenset(members) for members, _ in first}
    assert all(frozenset(members) not in pairs for members, _ in second), "a repeat pairing while others wait"
    shown = await must(service, "hall", "bob", "/league show")
    assert shown.ephemeral and "Games running: 2" in shown.text and "Games played to their end: 2" in shown.text
    assert "rating " in shown.text and "?" in shown.text   # rated now, provisionally
    clock.now += 7 * DAY
    restarted = GameService(store, clock=clock)   # a new process: the season's end is a timer in the database
    ended = await restarted.run_due()
    (final,) = [n for n in ended if n.channel == "hall"]
    assert "Season 1** of Speedway is over" in final.reply.text and "play on" in final.reply.text
    assert all(f". {m}: " in final.reply.text for m in MEMBERS)
    assert await restarted.run_due() == [] and await service.run_due() == []   # ended once
    await _computer_plays_out(service, number)   # its running games play on; nobody is paired again
    assert not [n for n in await service.run_due() if "paired" in n.reply.text]
    after = await must(service, "hall", "bob", "/league show")
    assert "Final standings (at its end)" in after.text and "It ended" in after.text


async def test_max_games_and_the_pairing_count_only_seats_still_held(service):
    number = await _season(service, max_games=2)
    for _ in range(3):
        await service.run_due()
    games = await _running(service, number)
    busy = Counter(m for members, _ in games for m in members)
    assert max(busy.values()) == 2 and len(games) >= 3, busy   # up to max_games, never past it
    assert await service.run_due() == []
    members, game = games[0]
    resigned = await do(service, game.channel, members[0], "/game resign confirm:yes")
    assert resigned.outcome == "applied", resigned.text
    again = [n for n in await service.run_due() if "paired" in n.reply.text]
    assert again, "a resignation frees its seats for the pairing"
    after = Counter(m for members, _ in await _running(service, number) for m in members)
    assert max(after.values()) == 2 and after[members[0]] <= busy[members[0]], after


async def test_join_leave_and_who_may_run_or_end_a_season(service):
    refused = await do(service, "hall", "ann", "/league new ruleset:speedway season_days:7 max_games:1")
    assert refused.outcome == "refused" and "manages the server" in refused.text
    assert (await do(service, "hall", "ann", "/league join")).outcome == "refused"
    await must(service, "hall", "boss", "/league new ruleset:speedway season_days:7 max_games:1 setup:arena:duel",
               admin=True)
    twice = await do(service, "hall", "boss", "/league new ruleset:speedway season_days:3 max_games:2", admin=True)
    assert twice.outcome == "refused" and "already" in twice.text
    await must(service, "hall", "ann", "/league join")
    assert "already" in (await do(service, "hall", "ann", "/league join")).text
    left = await must(service, "elsewhere", "ann", "/league leave")   # the server's only season
    assert "go on" in left.text
    assert (await do(service, "hall", "ann", "/league leave")).outcome == "refused"
    await must(service, "hall", "bob", "/league join")
    assert not (await _running(service, 1))   # ann left: bob waits alone
    assert (await do(service, "hall", "ann", "/league end")).outcome == "refused"
    other = await do(service, "hall", "boss", "/league show number:1", guild="g2")
    assert other.outcome == "refused" and "No season 1" in other.text
    ended = await must(service, "hall", "boss", "/league end", admin=True)
    assert "is over" in ended.text and "1. ann: unrated\n2. bob: unrated" in ended.text   # who left ranks too
    assert (await do(service, "hall", "cat", "/league join")).outcome == "refused"


async def test_the_players_default_to_the_fewest_the_game_starts_with_and_bad_setups_store_nothing(service):
    made = await must(service, "hall", "boss", "/league new ruleset:track season_days:1 max_games:1", admin=True)
    assert "games of 2" in made.text
    for line in ("/league new ruleset:speedway season_days:7 max_games:1 setup:seed:5",
                 "/league new ruleset:battlecars season_days:7 max_games:1 players:7 setup:colour:red"):
        assert (await do(service, "hall", "boss", line, admin=True)).outcome == "refused", line
    assert [s.ruleset for s in await stored.of_guild(service._store, G)] == ["track"]


async def test_a_forgotten_member_leaves_the_season_and_its_lists_keep_no_id(service):
    number = await _season(service)
    await _computer_plays_out(service, number)
    await must(service, "hall", "boss", "/league end", admin=True)
    forgot = await must(service, "x", "dan", "/me forget confirm:yes")
    assert "Forgotten" in forgot.text
    assert "dan" not in [m.player for m in await stored.members(service._store, number)]
    assert all("dan" not in g.members for g in await stored.games(service._store, number))
    assert '"dan"' not in (await stored.get(service._store, number)).final


@pytest.mark.sqlite_only
def test_the_command_line_runs_a_season_pairs_on_tick_and_shows_it(tmp_path):
    """Each step a fresh process: a season made by a manager, members joining, the pairing as they join and on
    `pitboss tick`, and /league show."""
    db = str(tmp_path / "s.db")

    def play(channel: str, lines: list[tuple[str, str]]) -> str:
        done = run_pitboss("play", "--db", db, "--channel", channel, cwd=tmp_path,
                           stdin="".join(f"{user}> {line}\n" for user, line in lines))
        assert done.returncode == 0, done.stderr
        return done.stdout

    made = run_pitboss("exec", "--db", db, "--channel", "hall", "--user", "boss", "--admin",
                       "/league new ruleset:speedway season_days:7 max_games:2 setup:arena:duel", cwd=tmp_path)
    assert made.returncode == 0 and "**Season 1**" in made.stdout, made.stderr
    joined = play("hall", [(m, "/league join") for m in ("ann", "bob", "cat")])
    assert "[channel hall-s1]" in joined and "[channel hall-s2]" in joined   # ann v bob, then ann v cat
    ticked = run_pitboss("tick", "--db", db, cwd=tmp_path)
    assert ticked.returncode == 0 and "Season 1, paired:\nbob v cat" in ticked.stdout.replace("cat v bob", "bob v cat")
    again = run_pitboss("tick", "--db", db, cwd=tmp_path)
    assert "paired" not in again.stdout   # everyone is in max_games games
    shown = play("hall", [("bob", "/league show")])
    assert "Members: ann (2 running), bob (2 running), cat (2 running)." in shown and "Games running: 3" in shown


def test_every_pair_counted_once_by_the_meetings():
    from bot.storage.seasons import SeasonGame
    from bot.table.service.seasons import _met

    games = [SeasonGame(1, ("a", "b", "c"), 5, 0.0), SeasonGame(2, ("a", "b"), None, 0.0)]
    met = _met(games, now=10.0)
    assert met == Counter({frozenset(p): 1 for p in itertools.combinations("abc", 2)}) + Counter({frozenset("ab"): 1})
    assert _met(games, now=10_000.0)[frozenset("ab")] == 1   # a claim that never opened stops counting


async def test_a_moved_game_is_followed_and_a_blocked_member_is_never_paired(service):
    from bot.storage.privacy import Control, set_control
    from bot.table.protocol.commands import Command

    await must(service, "hall", "boss", "/league new ruleset:speedway season_days:7 max_games:1 setup:arena:duel",
               admin=True)
    number = 1
    for member in ("ann", "bob", "cat"):
        await must(service, "hall", member, "/league join")
    await set_control(service._store, Control("user", "cat"))   # `pitboss block` while signed up and waiting
    await must(service, "hall", "dan", "/league join")
    ((members, game),) = await _running(service, number)   # dan waits: cat is never paired
    assert "cat" not in members and "dan" not in members
    exported = await must(service, game.channel, members[0], "/game export")
    moved = await service.execute("annex", Actor(members[0], members[0]), Command("game import", {
        "file": exported.files[0].data}), guild=G)
    assert moved.outcome == "applied", moved.text
    shown = await must(service, "hall", "dan", "/league show")
    assert "in annex" in shown.text and "Games running: 1" in shown.text   # the season follows its game
    assert [g.game_id for g in await stored.games(service._store, number)] == \
        [(await service._store.active_game("annex")).id]
    assert not [n for n in await service.run_due() if "paired" in n.reply.text]   # still busy where it went


def test_a_season_stored_by_a_newer_pitboss_is_refused_not_misread():
    from bot.table.service.seasons import _final_rows, season_options
    from rules.errors import GameError

    assert season_options('{"format": 1, "setup": {}, "deadline_hours": 48}')["deadline_hours"] == 48
    assert _final_rows('{"format": 1, "rows": [["a", "Ann", 25.0, 8.0, 1], ["b", "Bob", null, null, 0]]}')[1] == \
        ("Bob", None)
    with pytest.raises(GameError, match="newer"):
        season_options('{"format": 2}')
    with pytest.raises(GameError, match="newer"):
        _final_rows('{"format": 2, "rows": []}')


async def test_the_queues_at_once_and_a_seasons_max_games_count_apart(service):
    await must(service, "hall", "boss", "/league new ruleset:speedway season_days:7 max_games:2 setup:arena:duel",
               admin=True)
    for member in ("ann", "bob"):
        await must(service, "hall", member, "/league join")   # ann v bob: one season game each
    for member in ("ann", "cat"):   # at_once 1: ann's season game does not hold her back from a queued game
        queued = await must(service, "hall", member, "/queue join ruleset:speedway players:2 setup:arena:duel")
    (thread,) = {n.channel for n in queued.notices}
    for member in ("ann", "cat"):
        await must(service, thread, member, "/queue confirm")
    queued_game = await service._store.active_game(thread)
    assert get_ruleset("speedway").load_state(queued_game.state).phase != TablePhase.LOBBY   # it started
    joined = await must(service, "hall", "dan", "/league join")   # ann's queued game does not count here either
    assert "ann v dan play in" in " ".join(n.reply.text for n in joined.notices)
