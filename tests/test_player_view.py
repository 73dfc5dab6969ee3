"""What a player reads (issue 13): damage in words, a finished game that says so, the command line's
choices, any letter case, and the wording of the events."""

from __future__ import annotations

from dataclasses import replace

from rules.speedway.events import Collided, FireChipsRemoved, SpeedSet
from tests.conftest import run_pitboss


async def duel(table, *extra):
    for user, line in (("alice", "/game new ruleset:speedway seed:3"), ("alice", "/game join car:Brawler"),
                       ("bob", "/game join car:TORCH"), ("alice", "/game start"), *extra):
        reply = await table(user, line)
        assert reply.outcome == "applied", (line, reply.text)
    return reply


async def test_status_and_alt_text_carry_each_cars_damage_in_words(table):
    await duel(table)
    status = await table("carol", "/game status")
    for words in ("alice's Brawler", "bob's Torch", "Armor 3, Engine 3, Driver 4", "2 of 2 weapons working",
                  "3 of 3 weapons working"):
        assert words in status.text and words in status.alt_text, words
    assert status.alt_text.startswith("Last: ")


async def test_a_move_after_the_end_says_the_game_is_over_and_how(table):
    await duel(table, ("alice", "/game end"))
    refused = await table("alice", "/speed value:2")
    assert refused.outcome == "refused"
    assert refused.text.startswith("Game over (ended by alice). No game runs here now: start another with "
                                   "/new speedway")
    fresh = await table("alice", "/game status")                      # the table can still be looked at
    assert fresh.outcome == "shown"


async def test_choices_are_read_in_any_letter_case(table):
    await duel(table)
    reply = await table("bob", "/game status")
    assert "alice's Brawler" in reply.text and "bob's Torch" in reply.text   # car:Brawler and car:TORCH
    made = await table("dave", "/game new ruleset:SPEEDWAY arena:Duel", )
    assert made.outcome == "refused" and "already has a game" in made.text  # read, then refused for the table


def test_the_command_line_lists_the_choices_discord_shows_as_buttons(tmp_path):
    script = "\n".join(("alice> /game new ruleset:speedway seed:3", "alice> /game join car:brawler",
                        "bob> /game join car:torch", "alice> /game start", ""))
    result = run_pitboss("play", "--db", str(tmp_path / "t.db"), "--out", str(tmp_path / "maps"), cwd=tmp_path,
                         stdin=script)
    assert result.returncode == 0, result.stderr
    choices = [line for line in result.stdout.splitlines() if line.startswith("choices: ")]
    assert choices and "/speed value:" in choices[-1]


def test_the_events_read_naturally():
    assert SpeedSet("alice", 2, 2).describe() == "alice keeps speed 2."
    assert SpeedSet("alice", 2, 3).describe() == "alice set speed 2 -> 3."
    strike = Collided("strike", "alice", "the obstacle at H4", "H4", 3)
    assert strike.describe() == "alice hits the obstacle at H4 head-on (speed 3)."
    assert replace(strike, other="the arena wall").describe() == "alice hits the arena wall head-on at H4 (speed 3)."
    fire = FireChipsRemoved("bob", ("E", "-"), 1, 1)
    assert fire.describe() == ("bob fights the fire: red dice [E] [-], each blank [-] puts a chip out: "
                               "1 chip out, 1 left.")


def test_damage_says_when_a_box_is_crossed_without_changing_the_rating():
    from rules.speedway.actions import Fire
    from rules.speedway.damage import _apply_one
    from rules.speedway.events import DamageRolled
    from tests.test_speedway_combat import act, car_of, shooting  # a shot with fixed dice

    _state, events = act(shooting("Vulcan Machine Gun", 1, 1), "alice", Fire("front", "bob"))
    assert [e.source for e in events if isinstance(e, DamageRolled)] == ["Vulcan Machine Gun at 1 hex"]
    bob = car_of(shooting("Vulcan Machine Gun", 1, 1), "bob")
    bob, said = _apply_one(bob, "A", None)            # Armor 3 3 2 2 1 1: the first box keeps it at 3
    assert said == "Armor 3 (a box crossed)"
    bob, said = _apply_one(bob, "A", None)
    assert said == "Armor 3->2"


async def test_the_log_pages_back_to_the_first_action(table):
    await duel(table)
    for line in ("/speed value:2", "/move maneuver:normal", "/move maneuver:normal"):
        replies = [await table(user, line) for user in ("alice", "bob")]
        assert any(r.outcome == "applied" for r in replies), [r.text for r in replies]
    newest = await table("carol", "/game log count:2")
    lines = newest.text.splitlines()
    # Logged: two joins, the start, a speed and two Moves.
    assert newest.ephemeral and [line.split()[0] for line in lines[:-1]] == ["#5", "#6"]
    assert lines[-1] == "Earlier: /game log before:5"
    page = await table("carol", "/game log count:3 before:5")
    assert [line.split()[0] for line in page.text.splitlines()[:-1]] == ["#2", "#3", "#4"]
    assert page.text.splitlines()[-1] == "Earlier: /game log before:2"
    first = await table("carol", "/game log before:2")
    assert first.text.splitlines()[0].startswith("#1 ") and "Earlier" not in first.text
    assert (await table("carol", "/game log before:1")).text == "Nothing is logged before #1."


async def test_a_long_log_is_cut_at_whole_actions_and_says_where_to_go_on(table):
    for line in ("/game new ruleset:speedway seed:4 rounds:3", "/game add-ai", "/game add-ai", "/game start"):
        assert (await table("alice", line)).outcome == "applied"      # the computers play it out
    reply = await table("alice", "/game log count:100")
    lines = reply.text.splitlines()
    assert len(reply.text) <= 2000 and len(lines) < 100
    assert all(line.startswith("#") for line in lines[:-1]) and lines[-1].startswith("Earlier: /game log before:")
    oldest = int(lines[-1].rsplit(":", 1)[1])
    assert lines[0].startswith(f"#{oldest} ")
    older = await table("alice", f"/game log count:100 before:{oldest}")
    assert [line for line in older.text.splitlines() if line.startswith("#")][-1].startswith(f"#{oldest - 1} ")


async def test_your_own_result_comes_whole_and_the_computers_turn_is_summed_up(table, store):
    """Issue 13: a reply kept only its latest ~1,700 characters, so a computer's long turn cut away the
    player's own events. Now they come first and whole; the computer's turn follows in a sentence."""
    for line in ("/game new ruleset:speedway seed:5 arena:duel", "/game join car:brawler", "/game add-ai car:torch",
                 "/game start", "/speed value:3", "/move maneuver:normal", "/move maneuver:normal",
                 "/move maneuver:normal"):
        assert (await table("alice", line)).outcome == "applied", line
    reply = await table("alice", "/end")
    (record,) = [r for r in await store.actions((await store.active_game("chan-1")).id)
                 if r.actor == "alice"][-1:]
    from bot.table.trust.export import events_of
    from rules.speedway.ruleset import SPEEDWAY

    for event in events_of(SPEEDWAY, record):           # alice's own /end, every word of it
        assert event.describe() in reply.text
    summary = next(line for line in reply.text.splitlines() if line.startswith("Robo1's turn: "))
    assert "Moves" in summary and "shots at alice" in summary
    assert len(reply.text) <= 2000


def test_a_report_keeps_the_players_own_lines_and_fits_the_others_in_the_room_left():
    from bot.table.service.report import report
    from rules.speedway.events import SpeedSet
    from rules.speedway.ruleset import SPEEDWAY
    from rules.track.ruleset import TRACK
    from tests.test_render_speedway import running

    state = running()
    own = ["alice did something important."] * 3
    noise = [("p1", (SpeedSet("bob", 1, 2),))] * 200
    text = report(TRACK, state, own, noise, 1000)             # no summary: the newest of the others fit
    assert text.startswith("\n".join(own)) and len(text) <= 1000 and text.endswith("(the whole turn: /game log)")
    summed = report(SPEEDWAY, state, own, noise, 1000)       # Speedway sums a long turn up in a line
    assert summed.splitlines()[3] == "bob's turn: 0 Moves." and len(summed.splitlines()) == 4


async def test_a_plan_that_cannot_be_driven_as_written_is_refused_before_its_first_move(table, store):
    await duel(table, ("alice", "/game end"))
    for user, line in (("alice", "/game new ruleset:speedway seed:2"), ("alice", "/game join car:brawler"),
                       ("bob", "/game join car:torch"), ("alice", "/game start"), ("alice", "/speed value:3")):
        assert (await table(user, line)).outcome == "applied", line
    version = (await store.active_game("chan-1")).version
    for plan, why in (("normal,bogus,normal", "'bogus' is not a maneuver"),
                      ("normal,normal,normal,normal", "alice has 3 Moves left; the plan has 4."),
                      ("normal", "fire: write MOUNT@TARGET")):
        extra = " fire:front" if plan == "normal" else ""
        refused = await table("alice", f"/move plan:{plan}{extra}")
        assert refused.outcome == "refused" and why in refused.text, refused.text
        assert (await store.active_game("chan-1")).version == version       # not one Move was made
    played = await table("alice", "/move plan:Normal,NORMAL")
    assert played.outcome == "applied" and "Path: D3 → D4 → E5" in played.text


def test_smoke_that_blows_away_before_anyone_else_moves_says_so():
    """Two players: the last of a round is the first of the next, so its smoke (cleared at its own
    next Upkeep) would block nothing; the drop says so. The first player's smoke gets no such note."""
    from rules.speedway.actions import Drop
    from rules.speedway.events import SmokeUnseen
    from tests.test_speedway_combat import E, W, act, game, moving, put

    state = game("sniper", "sniper")
    state = put(put(state, "alice", "M9", E, speed=2), "bob", "F9", W, speed=2)
    _, first = act(moving(state, 2, 1), "alice", Drop("back"))
    _, last = act(moving(state, 2, 1, owner="bob"), "bob", Drop("back"))
    assert not [e for e in first if isinstance(e, SmokeUnseen)]
    assert SmokeUnseen("bob", "bob") in last
    assert "it will block nothing" in SmokeUnseen("bob", "bob").describe()


async def test_every_game_says_once_that_it_is_over_and_who_won(tmp_path):
    """Issue 25, item 16: a command after the end answers with the game's own result ('Game over: Robo1
    wins.'), not 'This game is over. The game is over.'"""
    from bot.cli.selfplay import play_one, selfplay_games
    from bot.storage.store import Store
    from bot.table.protocol.commands import parse
    from bot.table.service.entry import Actor, GameService

    store = await Store.open(str(tmp_path / "over.db"))
    try:
        service = GameService(store, render=None)
        for ruleset_id in selfplay_games():
            await play_one(service, store, ruleset_id, 0, 3)
            refused = await service.execute(f"selfplay-{ruleset_id}-3-0", Actor("alice", "alice"), parse("/undo"))
            assert refused.outcome == "refused"
            head = refused.text.split(" No game runs here now")[0]
            assert head.endswith("wins.") and head.lower().count("over") == 1, (ruleset_id, refused.text)
    finally:
        await store.close()
