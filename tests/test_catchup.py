"""Catch-up (issue 26, item 1): what happened since a player's own last action, privately with /game catchup,
and a line in the turn message that pings them; bounded to one message; built from the reader's view."""

from __future__ import annotations

import re

from bot.cli.bench_games import _opening, script
from bot.table.protocol.commands import parse
from bot.table.protocol.replies import MESSAGE_LIMIT, Actor
from rules.registry import get_ruleset
from tests.conftest import run_pitboss, track_on_the_command_line


async def run(service, user: str, line: str, channel: str = "catch"):
    return await service.execute(channel, Actor(user, user), parse(line))


async def three_cars(service):
    for user, line in (("ann", "/game new ruleset:speedway seed:5"), ("ann", "/game join car:brawler"),
                       ("ben", "/game join car:torch"), ("cat", "/game join car:sniper"), ("ann", "/game start")):
        assert (await run(service, user, line)).outcome == "applied", line


async def play_until_pinged(service, player: str, limit: int = 80):
    """Play the seeded policy's moves until a reply pings `player` after others acted; that reply."""
    ruleset = get_ruleset("speedway")
    for actor, line in script_from_now(ruleset, await service._store.active_game("catch"), limit):
        reply = await service.execute("catch", actor, parse(line))
        assert reply.outcome == "applied", (line, reply.text)
        if player in reply.mentions:
            return reply
    raise AssertionError(f"{player} was never pinged")


def script_from_now(ruleset, game, moves: int):
    """The policy's next moves from the stored state (bench_games.script plays from a fresh game)."""
    import random

    from bot.cli.bench_games import _pick

    state, rng, out = ruleset.load_state(game.state), random.Random(3), []
    while len(out) < moves and not ruleset.is_finished(state):
        player = ruleset.acting_players(state)[0]
        chosen = _pick([a for a in ruleset.legal_actions(state, player) if a.action is not None], rng)
        state = ruleset.apply(state, player, chosen.action)[0]
        out.append((Actor(player, player), chosen.command))
    return out


async def test_the_ping_says_how_much_happened_and_catchup_lists_it_a_line_each(service):
    await three_cars(service)
    ruleset = get_ruleset("speedway")
    first = ruleset.acting_players(ruleset.load_state((await service._store.active_game("catch")).state))[0]
    await play_until_pinged(service, next(p for p in ("ann", "ben", "cat") if p != first))   # someone else's turn
    pinged = await play_until_pinged(service, first)
    note = re.search(rf"{first}: (\d+) actions since your last one \(([^)]*)\); /game catchup lists them for you\.",
                     pinged.text)
    assert note, pinged.text
    count = int(note.group(1))
    caught = await run(service, first, "/game catchup")
    assert caught.outcome == "shown" and caught.ephemeral and len(caught.text) <= MESSAGE_LIMIT
    assert caught.text.startswith(f"Since your last action ({count} actions):")
    log = await run(service, first, f"/game log count:{count}")
    told = [line for line in log.text.splitlines() if line.startswith("#")]
    if "Every one of them: /game log count:" in caught.text:   # too many for one message: who did how much
        span = re.search(rf"#(\d+)–#(\d+), by {re.escape(note.group(2))}\.", caught.text)
        assert span and int(span.group(2)) - int(span.group(1)) + 1 == count, caught.text
        told = told[-3:]   # and the latest lines, whole
    for line in told:   # each of them, with its rolls, as the log tells it
        assert line[:299] in caught.text
    watcher = await run(service, "zed", "/game catchup")
    assert watcher.text.startswith("The last ")


async def test_the_ping_reads_further_back_when_the_latest_actions_do_not_reach_its_player(service, monkeypatch):
    """The ping's note reads the latest few actions first (issue 39): a player whose last action lies further
    back is counted from the longer read, as /game catchup counts them."""
    monkeypatch.setattr("bot.table.service.acting.PING_NOTE_ACTIONS", 2)
    await three_cars(service)
    ruleset = get_ruleset("speedway")
    first = ruleset.acting_players(ruleset.load_state((await service._store.active_game("catch")).state))[0]
    await play_until_pinged(service, next(p for p in ("ann", "ben", "cat") if p != first))
    pinged = await play_until_pinged(service, first)
    note = re.search(rf"{first}: (\d+) actions since your last one", pinged.text)
    assert note and int(note.group(1)) > 2, pinged.text
    caught = await run(service, first, "/game catchup")
    assert caught.text.startswith(f"Since your last action ({note.group(1)} actions):")


async def test_the_ping_reads_only_the_latest_few_actions_when_its_player_acted_among_them(service, monkeypatch):
    """A turn's ping decodes as few records as it needs (issue 39 items 2-3): in a duel the pinged player's last
    action is among the latest PING_NOTE_ACTIONS, so no longer stretch of the log is read for the note."""
    from bot.table.service.catchup import PING_NOTE_ACTIONS

    store, limits = service._store, []
    read = store.recent_actions

    async def counted(game_id: int, limit: int, *args, **kwargs):
        limits.append(limit)
        return await read(game_id, limit, *args, **kwargs)

    monkeypatch.setattr(store, "recent_actions", counted)
    for user, line in (("ann", "/game new ruleset:speedway seed:5"), ("ann", "/game join car:brawler"),
                       ("ben", "/game join car:torch"), ("ann", "/game start")):
        assert (await run(service, user, line)).outcome == "applied", line
    ruleset = get_ruleset("speedway")
    first = ruleset.acting_players(ruleset.load_state((await store.active_game("catch")).state))[0]
    await play_until_pinged(service, next(p for p in ("ann", "ben") if p != first))
    limits.clear()
    pinged = await play_until_pinged(service, first)
    assert re.search(rf"{first}: \d+ actions since your last one", pinged.text), pinged.text
    assert limits == [PING_NOTE_ACTIONS] and PING_NOTE_ACTIONS < 30


async def test_a_long_absence_is_summarised_within_one_message_and_points_to_the_log(service):
    ruleset = get_ruleset("speedway")
    for actor, line in _opening(ruleset, 11):
        assert (await run(service, actor.id, line, "long")).outcome == "applied"
    played = [(a, line) for a, line in script(ruleset, 11, 120)]
    for actor, line in played:
        assert (await service.execute("long", actor, parse(line))).outcome == "applied"
    watcher = await run(service, "zed", "/game catchup", "long")   # the last 20, many with long rolls
    assert len(watcher.text) <= MESSAGE_LIMIT
    absent = await run(service, "nobody-seated", "/game catchup", "long")
    assert absent.text == watcher.text


def test_catchup_on_the_command_line(tmp_path):
    db = str(tmp_path / "c.db")
    where = ("--db", db, "--channel", "c")
    track_on_the_command_line(db, tmp_path)
    shown = run_pitboss("exec", *where, "--user", "ben", "/game catchup", cwd=tmp_path)
    assert shown.returncode == 0 and shown.stdout.startswith("private: Since your last action")


async def test_no_catch_up_line_for_players_who_only_sat_down_since(service):
    """The play-test's finding: at a game's start the ping counted the lobby's joins as news."""
    for user, line in (("ann", "/game new ruleset:race seed:3 tuning:0"), ("ann", "/game join pilot:rookie"),
                       ("ben", "/game join pilot:veteran"), ("cat", "/game join pilot:champion"),
                       ("dan", "/game join pilot:rookie")):
        assert (await run(service, user, line)).outcome == "applied", line
    started = await run(service, "ann", "/game start")
    assert started.outcome == "applied" and started.mentions
    assert "since your last one" not in started.text


async def test_a_player_back_after_the_autopilot_and_the_computer_played_for_them_reads_all_of_it(store):
    """Issue 36 play-test: a player whose seat the autopilot and then the computer played (given to it by the
    host once they were gone) reads everything since they last played themselves, also after taking the
    seat back; not 'Nothing has happened', as when the seat's moves counted as theirs."""
    from bot.table.service.entry import GameService

    now = [1_800_000_000.0]
    service = GameService(store, render=None, clock=lambda: now[0])
    for user, line in (("ann", "/game new ruleset:track seed:9"), ("ann", "/game join"), ("ben", "/game join"),
                       ("ann", "/game settings deadline_hours:12"), ("ann", "/game start")):
        assert (await run(service, user, line)).outcome in ("applied", "shown"), line
    for _ in range(2):   # ann, then ben, play themselves
        player = await own_turn(service)
        choice = (await service.own_choices("catch", player))[0]
        assert (await run(service, player, choice.command)).outcome == "applied"
    choice = (await service.own_choices("catch", "ann"))[0]
    assert (await run(service, "ann", choice.command)).outcome == "applied"
    now[0] += 13 * 3600   # ben's deadline passes: the autopilot plays for him
    assert await service.run_due()
    choice = (await service.own_choices("catch", "ann"))[0]
    assert (await run(service, "ann", choice.command)).outcome == "applied"
    given = await run(service, "ann", "/game seat computer player:ben")   # ben is gone: past a deadline
    assert given.outcome == "applied", given.text
    for when in ("before", "after"):
        if when == "after":
            assert (await run(service, "ben", "/game seat take")).outcome == "applied"
        caught = (await run(service, "ben", "/game catchup")).text
        assert not caught.startswith("Nothing"), (when, caught)
        assert "The autopilot plays for ben" in caught and "gives ben's seat to the computer" in caught, caught


async def own_turn(service) -> str:
    ruleset = get_ruleset("track")
    game = await service._store.active_game("catch")
    return ruleset.acting_players(ruleset.load_state(game.state))[0]
