"""Seats that change hands (issue 26, item 4), in every game: /game resign, /game seat give (taken with a
button or /game seat take), /game seat computer until the player takes it back, and the host or an
admin doing the same for a player who vanished. Each is a logged action that replays and verifies; the
new holder is pinged and timed, the old one no longer."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from bot.table.protocol.commands import CommandSyntaxError, parse
from bot.table.protocol.replies import Actor, seat_button
from rules.registry import get_ruleset
from rules.seats import renamed, seats_change, seats_line
from tests.conftest import run_cli, track_on_the_command_line
from tests.examples import games, lines

GAMES = games()   # every registered game, each set up by its own example opening
SEED = 2


async def run(service, user, line, channel="seats", admin=False):
    return await service.execute(channel, Actor(user, user, admin), parse(line))


async def started(service, game):
    """A game of ann and ben by its example opening, started; the reply of its start."""
    for user, line in lines(game, SEED):
        reply = await run(service, user, line)
        assert reply.outcome == "applied", (line, reply.text)
    return reply


async def seats_fixed(service, store, game, line, user="ann") -> bool:
    """Whether the game's seats never change hands (a plug-in seating players its own way): then `line`
    is refused, saying so, and nothing is logged."""
    if seats_change(await state_of(store, 0)):
        return False
    refused = await run(service, user, line)
    assert refused.outcome == "refused" and "seats do not change hands" in refused.text, refused.text
    return True


def movers(start) -> tuple[str, str]:
    """The player a started game waits on, and the other one."""
    mover = start.waiting_on[0]
    return mover, "ben" if mover == "ann" else "ann"


async def time_passes(store, hours, channel="seats"):
    """Every logged action of the channel's game moved `hours` into the past, as if that long had passed
    since (the log's own clock stamps it: what tells how long a player has been silent)."""
    game = await store.active_game(channel)
    rows = await store.driver.fetchall("SELECT seq, created_at FROM actions WHERE game_id = ?", (game.id,))
    async with store.transaction():
        for seq, created in rows:
            moved = (datetime.fromisoformat(created) - timedelta(hours=hours)).isoformat(timespec="seconds")
            await store.driver.execute("UPDATE actions SET created_at = ? WHERE game_id = ? AND seq = ?",
                                       (moved, game.id, seq))


async def verified(service, store, channel="seats"):
    game = await store.active_game(channel) or await store.latest_game(channel)
    assert await service.replay_matches(game), game.id
    return game


async def state_of(store, game_id, channel="seats"):
    game = await store.active_game(channel) or await store.latest_game(channel)
    return get_ruleset(game.ruleset).load_state(game.state)


@pytest.mark.parametrize("game", GAMES)
async def test_a_seat_offered_and_taken_with_the_button_passes_the_turn_pings_and_clock(service, store, game):
    start = await started(service, game)
    mover = start.waiting_on[0]
    if await seats_fixed(service, store, game, "/game seat give to:carol", mover):
        return
    offered = await run(service, mover, "/game seat give to:carol")
    assert offered.outcome == "applied" and offered.mentions == ("carol",)
    assert offered.ping_words == "a seat is offered to you."
    assert f"{mover} offers their seat to carol" in offered.text
    button = offered.buttons[-1]
    assert button == seat_button(offered.game_id)

    stranger = await service.press("seats", Actor("dave", "dave"), button.custom_id)
    assert stranger.outcome == "refused" and stranger.text == "No seat here is offered to you."
    taken = await service.press("seats", Actor("carol", "Carol"), button.custom_id)
    assert taken.outcome == "applied", taken.text
    assert f"Carol takes {mover}'s seat and plays it from now on." in taken.text
    state = await state_of(store, taken.game_id)
    assert state.player(mover) is None and state.player("carol").name == mover   # the seat keeps its name
    assert "carol" in taken.waiting_on and mover not in taken.waiting_on
    game = await verified(service, store)
    timers = {t.player for t in await store.timers(game.id)}
    assert "carol" in timers and mover not in timers
    assert await store.timers_of(mover) == []
    status = await run(service, "zed", "/game status")
    assert f"Seats: {mover} (played by Carol)." in status.text
    gone = await run(service, mover, "/game seat computer")
    assert gone.outcome == "refused"   # no longer seated
    games = await run(service, "carol", "/games")
    assert "seats" in games.text


@pytest.mark.parametrize("game", GAMES)
async def test_the_computer_plays_a_seat_until_its_player_takes_it_back(service, store, game):
    mover, other = movers(await started(service, game))
    if await seats_fixed(service, store, game, "/game seat computer", other):
        return
    if get_ruleset(game).computer is None:
        refused = await run(service, other, "/game seat computer")
        assert refused.outcome == "refused" and refused.text == "This game has no computer player."
        return
    handed = await run(service, other, "/game seat computer")
    assert handed.outcome == "applied", handed.text
    assert f"{other} gives their seat to the computer" in handed.text
    state = await state_of(store, handed.game_id)
    assert get_ruleset(game).is_computer(state, other)
    assert other not in {t.player for t in await store.timers(handed.game_id)}
    back = await run(service, other, "/game seat take")
    assert back.outcome == "applied" and f"{other} takes their seat back from the computer." in back.text
    assert not get_ruleset(game).is_computer(await state_of(store, back.game_id), other)
    again = await run(service, other, "/game seat take")
    assert again.outcome == "refused"
    await verified(service, store)


async def test_a_computer_seat_plays_its_turn_at_once(service, store):
    """Speedway: the mover hands their seat to the computer in their own turn, which it then plays on."""
    start = await started(service, "speedway")
    mover = start.waiting_on[0]
    other = "ben" if mover == "ann" else "ann"
    handed = await run(service, mover, "/game seat computer")
    assert handed.outcome == "applied" and handed.waiting_on == (other,), handed.text
    assert handed.mentions == (other,)
    await verified(service, store)


@pytest.mark.parametrize("game", GAMES)
async def test_the_host_or_an_admin_acts_for_a_vanished_player_and_nobody_else(service, store, game):
    await started(service, game)
    if await seats_fixed(service, store, game, "/game seat give to:dave player:ben"):
        return
    refused = await run(service, "carol", "/game seat computer player:ben")
    assert refused.outcome == "refused" and "Only the host or a server admin" in refused.text
    not_host = await run(service, "ben", "/game seat give to:carol player:ann")
    assert not_host.outcome == "refused"
    unknown = await run(service, "ann", "/game seat computer player:nobody")
    assert unknown.outcome == "refused" and "no seat is called 'nobody'" in unknown.text
    await time_passes(store, 73)   # ben is gone (silent for the table's 72 hours)
    by_admin = await run(service, "mod", "/game seat give to:dave player:ben", admin=True)
    assert by_admin.outcome == "applied" and "an admin offers ben's seat to dave" in by_admin.text
    if get_ruleset(game).computer is not None:
        by_host = await run(service, "ann", "/game seat computer player:ben")
        assert by_host.outcome == "applied" and "ann gives ben's seat to the computer" in by_host.text
    await verified(service, store)


@pytest.mark.parametrize("game", GAMES)
async def test_a_resignation_follows_each_games_ruling(service, store, game):
    """The game's ruling ends it, the other player winning, or it goes on without the resigned seat (a
    race goes on for the other racer) until the last one resigns too; a game that takes no resignation
    says so."""
    mover, other = movers(await started(service, game))
    ruleset = get_ruleset(game)
    if await seats_fixed(service, store, game, "/game resign", mover):
        return
    if ruleset.resignation is None:
        refused = await run(service, mover, "/game resign")
        assert refused.outcome == "refused" and refused.text == "This game takes no resignation."
        return
    resigned = await run(service, mover, "/game resign confirm:yes")
    assert resigned.outcome == "applied", resigned.text
    assert f"{mover} resigned." in resigned.text
    state = await state_of(store, resigned.game_id)
    if ruleset.is_finished(state):
        assert state.winner == other
    else:   # it goes on for the other player; the resigned one is waited on no more
        assert ruleset.acting_players(state) == (other,)
        assert (await run(service, other, "/game resign confirm:yes")).outcome == "applied"
        assert ruleset.is_finished(await state_of(store, 0))
    await verified(service, store)
    again = await run(service, mover, "/game resign")
    assert again.outcome == "refused"


async def test_seat_changes_are_refused_before_the_start_and_not_undone(service, store):
    for user, line in lines("speedway", SEED, start=False):
        await run(service, user, line)
    early = await run(service, "ann", "/game resign")
    assert early.outcome == "refused" and "once the game has started" in early.text
    await run(service, "ann", "/game start")
    state = await state_of(store, 0)
    mover = get_ruleset("speedway").acting_players(state)[0]
    seated = await run(service, mover, "/game seat give to:ben" if mover == "ann" else "/game seat give to:ann")
    assert seated.outcome == "refused" and "already plays a seat" in seated.text
    robot = await run(service, mover, "/game seat give to:ai-7")
    assert robot.outcome == "refused"
    with pytest.raises(CommandSyntaxError, match="to: name a member of this server"):
        parse("/game seat give to:<@@@>")
    assert (await run(service, mover, "/game seat give to:carol")).outcome == "applied"
    undone = await run(service, mover, "/undo")
    assert undone.outcome == "refused" and "not taken back by /undo" in undone.text


def test_renaming_a_seat_touches_player_ids_only():
    """Only the fields a game names as holding player ids change: a car id or a car's type that reads like
    the player's id (command-line ids are plain words) stays as it is."""
    from rules.table import Player
    from rules.track.state import Car, Hand

    assert renamed(Player("ann", "ann"), "ann", "carol") == Player("carol", "ann")
    cars = (Car("c3", "c3"), Hand("c3", ("c3",), 1))
    assert renamed(cars, "c3", "zed") == (Car("zed", "c3"), Hand("zed", ("c3",), 1))
    assert seats_line(type("S", (), {"players": (Player("ben", "ben"),)})()) == ""


async def test_a_player_named_like_a_car_type_hands_the_seat_on_and_the_game_plays_on(service, store):
    """The play-test's finding: host 'torch' (a Speedway car type) gave the seat away, and the take renamed
    the car type too, breaking every later command."""
    for user, line in (("torch", "/game new ruleset:speedway seed:3"), ("torch", "/game join car:brawler"),
                       ("sniper", "/game join car:torch"), ("torch", "/game start")):
        assert (await run(service, user, line)).outcome == "applied", line
    assert (await run(service, "torch", "/game seat give to:carol")).outcome == "applied"
    taken = await run(service, "carol", "/game seat take")
    assert taken.outcome == "applied", taken.text
    assert "Torch" in (await run(service, "zed", "/game status")).text   # sniper's car is still a Torch
    waiting = taken.waiting_on[0]
    assert (await run(service, waiting, "/speed value:1")).outcome == "applied"
    await verified(service, store)


async def test_one_offer_per_member_and_the_host_named_as_such(service, store):
    """The play-test's findings: a second offer to the same member is refused (one offer at a time), an offer
    to a member stays theirs when another seat changes hands, and a host without a seat is 'the host'."""
    await started(service, "speedway")
    assert (await run(service, "ann", "/game seat give to:carol")).outcome == "applied"
    second = await run(service, "ben", "/game seat give to:carol")
    assert second.outcome == "refused" and "one offer at a time" in second.text
    assert (await run(service, "ben", "/game seat give to:dave")).outcome == "applied"
    assert (await run(service, "carol", "/game seat take")).outcome == "applied"
    assert (await run(service, "carol", "/game seat give to:erin")).outcome == "applied"
    assert (await run(service, "erin", "/game seat take")).outcome == "applied"
    status = await run(service, "zed", "/game status")
    assert "ben (offered to dave)" in status.text, status.text
    assert (await run(service, "dave", "/game seat take")).outcome == "applied"
    await time_passes(store, 73)
    hosted = await run(service, "ann", "/game seat computer player:ben")
    assert hosted.outcome == "applied" and "the host gives ben's seat to the computer" in hosted.text


def test_seats_change_hands_on_the_command_line(tmp_path):
    db = str(tmp_path / "s.db")
    where = ("--db", db, "--channel", "c")
    track_on_the_command_line(db, tmp_path)
    offered = run_cli("exec", *where, "--user", "ben", "/game seat give to:carol", cwd=tmp_path)
    assert offered.returncode == 0 and offered.stdout.startswith("ping: carol\n"), offered.stdout
    taken = run_cli("exec", *where, "--user", "carol", "/game seat take", cwd=tmp_path)
    assert taken.returncode == 0 and "carol takes ben's seat" in taken.stdout
    checked = run_cli("verify", "--db", db, cwd=tmp_path)
    assert checked.returncode == 0 and "0 mismatches" in checked.stdout


async def test_a_face_down_counter_stays_hidden_when_its_seat_changes_hands(service, store):
    """Battlecars: ben sets his counter face down, then hands his seat to carol. The counter is the seat's
    secret: ann's export still withholds it (judged by who holds the seat now), and carol's shows it."""
    import json

    await started(service, "battlecars")
    assert (await run(service, "ben", "/speed value:2")).outcome == "applied"
    assert (await run(service, "ben", "/game seat give to:carol")).outcome == "applied"
    assert (await run(service, "carol", "/game seat take")).outcome == "applied"

    def set_speeds(reply) -> list:
        (export,) = reply.files
        actions = [entry["action"] for entry in json.loads(export.data)["actions"]]
        return [a for a in actions if a["type"] in ("SetSpeed", "Withheld")]

    assert set_speeds(await run(service, "ann", "/game export")) == [
        {"type": "Withheld", "stands_for": "a speed counter, face down"}]
    assert set_speeds(await run(service, "carol", "/game export"))[0]["type"] == "SetSpeed"
    assert (await run(service, "ben", "/game export")).files[0].data == \
        (await run(service, "zed", "/game export")).files[0].data   # ben is a watcher now
    await verified(service, store)


async def test_a_racer_who_resigns_while_tuning_starts_no_race(service, store):
    """The play-test's finding: a racer who resigned while the others still tuned was still in the start's
    move order. The start rolls for those still racing; the retired one is last."""
    for user, line in (("ann", "/game new ruleset:race seed:8 tuning:1"), ("ann", "/game join pilot:rookie"),
                       ("ben", "/game join pilot:veteran"), ("cat", "/game join pilot:champion"),
                       ("ann", "/game start")):
        assert (await run(service, user, line)).outcome == "applied", line
    assert (await run(service, "ben", "/game resign confirm:yes")).outcome == "applied"
    for user in ("ann", "cat"):
        went = await run(service, user, "/tune ability:dex")
        assert went.outcome == "applied", went.text
    assert "The move order:" in went.text and "ben" not in went.text.split("The move order:")[1].split(".")[0]
    state = await state_of(store, 0)
    assert state.order[-1] == state.racer_of("ben").id
    await verified(service, store)


async def log_size(store) -> int:
    game = await store.active_game("seats") or await store.latest_game("seats")
    return await store.action_count(game.id)


async def test_a_resignation_asks_first_and_changes_nothing_until_confirmed(service, store):
    """Issue 38, item 9: /game resign was final at once. Unconfirmed it says privately what it would do and
    how to confirm (a Resign for good button, or confirm:yes), and changes nothing; the button is its asker's."""
    mover, other = movers(await started(service, "speedway"))
    before = await log_size(store)
    asked = await run(service, mover, "/game resign")
    assert asked.outcome == "shown" and asked.ephemeral, asked.text
    assert asked.text.startswith("Resign your seat for good? Their cars are out") and \
        "Nothing has changed yet: press Resign for good (only you see it), or send /game resign confirm:yes." \
        in asked.text, asked.text
    (button,) = asked.buttons
    assert button.label == "Resign for good" and button.command == "/game resign confirm:yes"
    assert await log_size(store) == before and not (await state_of(store, 0)).player(mover).resigned
    watcher = await run(service, "zed", "/game resign")
    assert watcher.outcome == "refused" and watcher.text == "You have no seat in this game."
    not_theirs = await service.press("seats", Actor(other, other), button.custom_id)
    assert not_theirs.outcome == "refused"   # not theirs to resign (nor the host's: the mover is not gone)
    pressed = await service.press("seats", Actor(mover, mover), button.custom_id)
    assert pressed.outcome == "applied" and f"{mover} resigned." in pressed.text, pressed.text
    assert (await state_of(store, 0)).player(mover).resigned
    await verified(service, store)


def test_a_resignation_is_confirmed_by_typing_on_the_command_line(tmp_path):
    db = str(tmp_path / "s.db")
    where = ("--db", db, "--channel", "c")
    track_on_the_command_line(db, tmp_path)
    asked = run_cli("exec", *where, "--user", "ben", "/game resign", cwd=tmp_path)
    assert asked.returncode == 0 and "send /game resign confirm:yes" in asked.stdout, asked.stdout
    status = run_cli("exec", *where, "--user", "zed", "/game status", cwd=tmp_path)
    assert "wins" not in status.stdout and "resigned" not in status.stdout
    done = run_cli("exec", *where, "--user", "ben", "/game resign confirm:yes", cwd=tmp_path)
    assert done.returncode == 0 and "ben resigned." in done.stdout and "ann wins" in done.stdout, done.stdout


@pytest.mark.parametrize("game", ("speedway", "battlecars", "race", "track"))
async def test_a_seat_change_answers_who_holds_it_and_the_prompt_names_the_holder(service, store, game):
    """Issue 38, item 9: a seat change got no answer of its own (on Discord it was folded into the turn's
    message), and the prompt kept the old holder's name ("Next: Round 4, Carol" while dave played). Each
    change now answers in a message of its own who holds the seat; words addressed to the seat's player name
    its holder, while its pieces keep the seat's name."""
    mover, _other = movers(await started(service, game))
    offered = await run(service, mover, "/game seat give to:carol")
    assert offered.own_message and offered.text.startswith(
        f"Seat change: {mover} still holds their seat until carol takes it."), offered.text
    taken = await run(service, "carol", "/game seat take")
    assert taken.own_message and taken.text.startswith(f"Seat change: carol holds {mover}'s seat now."), taken.text
    assert f"{mover}'s seat (carol)" in taken.next_line and f"⏰ {mover}:" not in taken.next_line, taken.next_line
    status = await run(service, "zed", "/game status")
    assert f"{mover}'s seat (carol)" in status.text, status.text
    if get_ruleset(game).computer is not None:
        given = await run(service, "carol", "/game seat computer")
        assert given.own_message and f"Seat change: the computer plays {mover}'s seat now, until carol takes it " \
            "back." in given.text, given.text
    resigned = await run(service, "carol", "/game resign confirm:yes")
    assert resigned.own_message and f"Seat change: {mover}'s seat is out of the game: nobody holds it now." \
        in resigned.text, resigned.text
    await verified(service, store)
