"""Standings (issue 27, item 4): /stats per player and game kind (games, wins, draws, the median time to
move, the actions the autopilot played for them), /standings per game kind for the server, and the luck of
each roller's dice said once the game is over, never before."""

from __future__ import annotations

import json
import math

import pytest

from bot.cli.bench_games import _opening, script
from bot.storage.store import ActionRecord, Store
from bot.table.protocol.commands import parse
from bot.table.protocol.replies import Actor
from bot.table.service.entry import GameService
from bot.table.service.standings import dice_luck
from rules.registry import get_ruleset
from tests.conftest import run_cli, track_on_the_command_line

HOUR = 3600.0
BACKENDS = ("sqlite", "postgres")   # the store-backed test runs on both (LAG over the log on each)


async def run(service, user, line, channel="st", guild="g1"):
    return await service.execute(channel, Actor(user, user), parse(line), guild=guild)


async def track_game(service, channel, winner, loser, guild="g1", end=False):
    """A Track race that `winner` wins as `loser` resigns (or that its host ends)."""
    for user, line in (("ann", "/game new ruleset:track seed:3"), (winner, "/game join"), (loser, "/game join")):
        assert (await run(service, user, line, channel, guild)).outcome == "applied"
    await run(service, "ann", "/game start", channel, guild)
    last = await run(service, "ann" if end else loser, "/game end" if end else "/game resign confirm:yes", channel,
                     guild)
    assert last.outcome == "applied", last.text


def test_a_die_the_game_names_is_measured_against_its_own_faces():
    """Speedway's white driver die is no d6: its faces come from the game (rules/speedway/data/dice.toml)."""
    from rules.speedway import data

    faces = data.driver_die()
    mean = sum(faces) / len(faces)
    spread = sum((f - mean) ** 2 for f in faces) / len(faces)
    events = [{"type": "DiceRolled", "car": "ann", "dice": "white driver dice", "faces": [max(faces)] * 3}]
    log = [ActionRecord(1, "ann", "{}", json.dumps(events))]
    assert dice_luck(log) == {}   # unnamed: not measured
    named = get_ruleset("speedway").named_dice
    assert dice_luck(log, named)["ann"] == (3, 3 * (max(faces) - mean) / math.sqrt(3 * spread))


def test_the_luck_of_the_dice_is_measured_against_their_average():
    events = [{"type": "DiceRolled", "who": "ann", "dice": "2d6", "faces": [6, 6]},
              {"type": "DiceRolled", "car": "ben", "dice": "d20", "faces": [10]},
              {"type": "DamageRolled", "car": "ben", "dice": ["gray"], "faces": ["A"]},   # symbols: not counted
              {"type": "SpeedChosen", "who": "ann"}]
    log = [ActionRecord(1, "ann", "{}", json.dumps(events))]
    luck = dice_luck(log)
    assert luck["ann"] == (2, (12 - 7) / math.sqrt(2 * 35 / 12))
    assert luck["ben"] == (1, (10 - 10.5) / math.sqrt(399 / 12))


def test_the_luck_line_counts_only_the_seats_a_computers_marked():
    """Issue 37, item 12: the luck line counted 'Smoke' (a smoke cloud's drift) and "Robo1's driver" (on
    foot) as players; now only the seats' rolls count, and a computer seat says it is one."""
    from bot.table.service.standings import end_words
    from rules.table import Player

    events = [{"type": "DiceRolled", "who": who, "dice": "d6", "faces": [face]}
              for who, face in (("ann", 6), ("Smoke", 1), ("Robo1's driver", 2), ("Robo1", 3), ("ben", 1))]
    log = [ActionRecord(1, "ann", "{}", json.dumps(events))]
    seats = (Player("ann", "ann"), Player("ai-1", "Robo1", ai=True), Player("ben", "ben"))
    line = end_words(log, get_ruleset("battlecars"), seats)
    assert line.startswith("The dice against their average (σ: standard deviations; 0 is par): ann 1 dice, +1.5 σ; "
                           "Robo1 (computer) 1 dice, -0.3 σ; ben 1 dice, -1.5 σ."), line
    assert "Smoke" not in line and "driver" not in line


async def test_a_game_says_its_dice_luck_once_it_is_over_and_never_before(service):
    ruleset = get_ruleset("speedway")
    for actor, line in _opening(ruleset, 5):
        await run(service, actor.id, line)
    people = {"ann": Actor("ann", "ann"), "ben": Actor("ben", "ben")}
    replies = []
    for actor, line in script(ruleset, 5, 400):
        replies.append(await service.execute("st", people.get(actor.id, actor), parse(line), guild="g1"))
    assert replies[-1].outcome == "applied" and "Game over" in replies[-1].text
    assert "The dice against their average" in replies[-1].text and "σ" in replies[-1].text
    assert "The biggest hit: " in replies[-1].text and " at once (" in replies[-1].text, replies[-1].text
    assert not any("The dice against their average" in r.text or "The biggest hit" in r.text for r in replies[:-1])


async def test_stats_and_standings_count_each_players_games_on_their_server(db_path):
    store = await Store.open(db_path)
    clock = [1_800_000_000.0]
    service = GameService(store, render=None, clock=lambda: clock[0])
    await track_game(service, "t1", "ann", "ben")
    await track_game(service, "t2", "ann", "ben")
    await track_game(service, "t3", "ben", "ann")
    await track_game(service, "t4", "ann", "ben", end=True)        # ended by its host: not counted at all
    await track_game(service, "t5", "ben", "ann", guild="g2")       # another server
    # a deadline the autopilot plays for ben in a Speedway game
    for user, line in (("ann", "/game new ruleset:speedway seed:2"), ("ann", "/game join"), ("ben", "/game join"),
                       ("ann", "/game settings deadline_hours:1"), ("ann", "/game start")):
        await run(service, user, line, "s1")
    waiting = (await run(service, "zed", "/game status", "s1")).waiting_on
    if waiting == ("ann",):
        await run(service, "ann", "/speed value:0", "s1")
        await run(service, "ann", "/end", "s1")
    clock[0] += 2 * HOUR
    assert any("autopilot" in n.reply.text for n in await service.run_due())
    await run(service, "ann", "/game resign confirm:yes", "s1")

    mine = await run(service, "ann", "/stats")
    assert mine.ephemeral and "**Track (the card race)**: 3 games, 2 won, 0 drawn" in mine.text, mine.text
    assert "**Speedway**: 1 game, 0 won" in mine.text
    ben = await run(service, "ann", "/stats player:ben ruleset:speedway")
    # its speed, then /end: at speed 0 the car could still have dropped its mines
    assert "ben's record" in ben.text and "the autopilot played 2 actions for them" in ben.text, ben.text
    board = await run(service, "zed", "/standings ruleset:track")
    assert board.text.splitlines()[1:] == ["1. ann: rating 3.5?; 2 won of 3 (67%), 0 drawn",
                                           "2. ben: rating 0.8?; 1 won of 3 (33%), 0 drawn"]
    assert board.text.startswith("**Track (the card race)** standings on this server, by rating (3 games played to "
                                 "their end; ? provisional: fewer than 5 rated games):")
    other = await run(service, "zed", "/standings ruleset:track", guild="g2")
    assert "1. ben: rating 3.4?; 1 won of 1 (100%)" in other.text
    none = await run(service, "zed", "/standings ruleset:race")
    assert none.text == "No Race (SW5e speeders) game has been played to its end on this server yet."
    await store.close()


def test_standings_on_the_command_line(tmp_path):
    db = str(tmp_path / "s.db")
    track_on_the_command_line(db, tmp_path)
    resigned = run_cli("exec", "--db", db, "--channel", "c", "--user", "ben", "/game resign confirm:yes", cwd=tmp_path)
    assert resigned.returncode == 0
    shown = run_cli("exec", "--db", db, "--channel", "c", "--user", "zed", "/standings ruleset:track", cwd=tmp_path)
    assert shown.returncode == 0 and "1. ann: rating 3.4?; 1 won of 1 (100%)" in shown.stdout, shown.stdout


@pytest.mark.parametrize(("game", "events", "words"), [
    ("speedway", [{"type": "DamageTaken", "car": "ann", "effects": ["Armor -1"]},
                  {"type": "DamageTaken", "car": "ben", "effects": ["Armor -1", "Engine -1"]}],
     "ben took 2 at once (Armor -1, Engine -1)"),
    ("battlecars", [{"type": "ArmourHit", "vehicle": "Gunwagon", "section": "front", "points": 4},
                    {"type": "PedestrianHurt", "driver": "ann's driver", "points": 6, "left": "x"}],
     "6 points on ann's driver, on foot"),
    ("race", [{"type": "Damaged", "name": "Rookie", "points": 9, "hp": 3}], "9 damage to Rookie"),
    ("track", [{"type": "CarBumped", "car": "ann's 3", "at": "hole 7", "by": "ben's 1", "holes": 12},
               {"type": "CarsSwapped", "car": "ann's 2", "from_spot": "pits", "target": "ben's 4", "at": "hole 40",
                "holes": 31},
               {"type": "CarBumped", "car": "ben's 5", "at": "hole 9", "by": "ann's 1"}],   # an older log's: no holes
     "ann's 2's Joker sent ben's 4 back to the pits from 31 holes along"),
])
def test_the_biggest_hit_is_measured_as_each_game_counts_damage(game, events, words):
    from bot.table.service.standings import end_words

    log = [ActionRecord(7, "ann", "{}", json.dumps(events))]
    assert end_words(log, get_ruleset(game)).startswith(f"The biggest hit: {words} (#7).")
    assert end_words([ActionRecord(7, "ann", "{}", "[]")], get_ruleset(game)) == ""   # nothing hit, no dice


async def test_a_finished_games_record_credits_the_seats_holder_at_the_end(service):
    """Issue 38, item 9: carol handed her seat to dave, who lost the race; /standings named the loss carol's
    while /stats gave it to dave. Both now credit the holder at the end, by his own name."""
    for user, line in (("ann", "/game new ruleset:track seed:3"), ("ann", "/game join"), ("carol", "/game join"),
                       ("ann", "/game start"), ("carol", "/game seat give to:dave"), ("dave", "/game seat take"),
                       ("dave", "/game resign confirm:yes")):
        assert (await run(service, user, line)).outcome == "applied", line
    board = await run(service, "zed", "/standings ruleset:track")
    assert board.text.splitlines()[1:] == ["1. ann: rating 3.4?; 1 won of 1 (100%), 0 drawn",
                                           "2. dave: rating -1.8?; 0 won of 1 (0%), 0 drawn"]
    assert "**Track (the card race)**: 1 game, 0 won" in (await run(service, "dave", "/stats")).text
    assert "no game played to its end" in (await run(service, "carol", "/stats")).text
    told = await run(service, "zed", "/help command:stats")
    assert "counts for the member who held it at the end" in told.text, told.text
