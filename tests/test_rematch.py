"""`/game rematch` (issue 38 finding 14): after a game ends, the same game, options, cars and seats again with new
dice and the seat order turned by one; every person seated at the end says yes or no; a no leaves that seat
open in the new game's lobby; the finished game keeps its record."""

from __future__ import annotations

import json

import pytest

from bot.table.protocol.commands import parse
from bot.table.protocol.replies import Actor
from bot.table.service import rematch
from rules.registry import get_ruleset
from rules.table import born_computer
from tests.conftest import exec_in, run_pitboss, stored_state, track_on_the_command_line
from tests.examples import games, lines, third_join

BACKENDS = ("sqlite", "postgres")   # the proposal is stored: both backends (tests/conftest.py)
CHANNEL = "again"
SEED = 5


async def run(service, user, line, channel=CHANNEL):
    return await service.execute(channel, Actor(user, user), parse(line))


async def press(service, user, custom_id, channel=CHANNEL):
    return await service.press(channel, Actor(user, user), custom_id)


@pytest.fixture(autouse=True)
def fixed_seed(monkeypatch):
    """The rematch's dice are fixed, as a test's are."""
    monkeypatch.setattr(rematch, "new_seed", lambda: 77)


async def ended(service, store, game, extra=()):
    """The example opening of `game` (with `extra` lines before its start), ended by its host: the final
    reply."""
    opening = lines(game, SEED, start=False)
    for user, line in [*opening, *extra, lines(game, SEED)[-1]]:
        assert (await run(service, user, line)).outcome == "applied", (user, line)
    host = get_ruleset(game).example.host
    final = await run(service, host, "/game end")
    assert final.outcome == "applied", final.text
    return final


def seated(state):
    return [(p.id, p.name) for p in state.players]


@pytest.mark.rules_only
@pytest.mark.parametrize("game", games())
async def test_a_rematch_of_every_game_turns_the_seats_and_starts_when_all_said_yes(service, store, game):
    """Every game: the final message has a Rematch button; it proposes; the other player's yes makes the new game,
    started, with the same options and the seats turned by one; the finished game keeps its record."""
    final = await ended(service, store, game)
    button = next(b for b in final.buttons if b.label == "Rematch")
    old = await store.latest_game(CHANNEL)
    ruleset = get_ruleset(game)
    before = ruleset.load_state(old.state)
    proposer = ruleset.example.host
    asked = await press(service, proposer, button.custom_id)
    assert asked.outcome == "shown" and not asked.ephemeral, asked.text
    assert "proposes a rematch" in asked.text and proposer not in asked.mentions
    assert await store.active_game(CHANNEL) is None   # nothing made before everyone answered
    for person in [p.id for p in before.players if not born_computer(p.id) and p.id != proposer]:
        reply = await run(service, person, "/game rematch")
    assert reply.outcome == "applied", reply.text
    new = await store.active_game(CHANNEL)
    assert new is not None and new.id != old.id and new.seed == 77 and f"game {new.id}" in reply.text
    after = ruleset.load_state(new.state)
    assert after.phase != "lobby"
    racers = [name for _id, name in seated(before) if (_id, name) in seated(after)]
    old_order = [n for _i, n in seated(before) if n in racers]
    assert [n for _i, n in seated(after) if n in racers] == old_order[1:] + old_order[:1]
    kept = {k: v for k, v in json.loads(old.options).items() if k != "revision"}
    assert {k: v for k, v in json.loads(new.options).items() if k != "revision"} == kept
    finished = await store.game(old.id)
    assert finished.status == "finished" and finished.state == old.state
    assert (await service.replay_matches(new)) and (await service.replay_matches(finished))


def rematch_of(reply):
    return next(b.custom_id for b in reply.buttons if b.label == "Rematch")


@pytest.mark.rules_only
async def test_refusals_before_the_end_by_a_stranger_twice_and_after_it_is_made(service, store):
    """A rematch before the end, by a member not seated, a second yes, a no with nothing proposed, an earlier
    game's button, and a rematch of a game that already had one: each refused, nothing changed."""
    for user, line in lines("track", SEED):
        await run(service, user, line)
    early = await run(service, "ann", "/game rematch")
    assert early.outcome == "refused" and "not over" in early.text
    final = await run(service, "ann", "/game end")
    assert (await run(service, "ben", "/game rematch vote:no")).text.startswith("No rematch is proposed here")
    stranger = await run(service, "zed", "/game rematch")
    assert stranger.outcome == "refused" and "Only the players seated" in stranger.text
    assert (await press(service, "ann", rematch_of(final))).outcome == "shown"
    twice = await press(service, "ann", rematch_of(final))
    assert twice.outcome == "refused" and twice.text.startswith("You already said yes") and "ben" in twice.text
    assert (await run(service, "zed", "/game rematch")).outcome == "refused"
    assert await store.active_game(CHANNEL) is None
    made = await run(service, "ben", "/game rematch")
    assert made.outcome == "applied"
    again = await run(service, "ann", "/game rematch")
    assert again.outcome == "refused" and "not over" in again.text   # the rematch runs here now
    stale = await press(service, "ben", rematch_of(final))   # while the rematch runs, and after it ended
    assert stale.outcome == "refused" and "earlier game" in stale.text
    assert (await run(service, "ann", "/game end")).outcome == "applied"
    stale = await press(service, "ben", rematch_of(final))
    assert stale.outcome == "refused" and "earlier game" in stale.text


@pytest.mark.rules_only
async def test_a_no_leaves_that_seat_open_and_the_host_starts_when_it_is_taken(service, store):
    """ben says no: the new game is made in its lobby with ann's seat alone; cal joins and ann starts it."""
    await ended(service, store, "track")
    assert (await run(service, "ben", "/game rematch")).outcome == "shown"
    made = await run(service, "ann", "/game rematch vote:no")
    assert made.outcome == "applied" and "ann said no: the seat stays open" in made.text, made.text
    game = await store.active_game(CHANNEL)
    state = get_ruleset("track").load_state(game.state)
    assert state.phase == "lobby" and [p.id for p in state.players] == ["ben"] and state.host == "ben"
    assert made.mentions == ()
    assert (await run(service, "cal", "/game join")).outcome == "applied"
    assert (await run(service, "ben", "/game start")).outcome == "applied"
    refused = await run(service, "ann", "/game rematch")
    assert refused.outcome == "refused"


@pytest.mark.rules_only
async def test_a_race_s_game_master_is_asked_and_a_no_calls_it_off(service, store):
    """The race's seated GM hosts the rematch; the GM's yes makes it (GM still seated as the GM, the racers
    turned); in another race the GM's no calls it off, and it is not asked again."""
    race = get_ruleset("race")
    opening = race.more_examples[0]
    for channel, gm_says in (("gm-yes", "yes"), ("gm-no", "no")):
        for user, line in lines("race", SEED, opening):
            assert (await run(service, user, line, channel)).outcome == "applied", line
        final = await run(service, "gina", "/game end", channel)
        asked = await press(service, "ann", rematch_of(final), channel)
        assert set(asked.mentions) == {"ben", "gina"}, asked.mentions
        assert (await run(service, "ben", "/game rematch", channel)).outcome == "shown"
        last = await run(service, "gina", f"/game rematch vote:{gm_says}", channel)
        if gm_says == "yes":
            assert last.outcome == "applied", last.text
            state = race.load_state((await store.active_game(channel)).state)
            assert state.gm == "gina" and state.host == "gina"
            assert [s[0] for s in state.seats] == ["ben", "ann"]
        else:
            assert last.outcome == "shown" and "the game master, said no" in last.text
            assert await store.active_game(channel) is None
            again = await run(service, "ann", "/game rematch", channel)
            assert again.outcome == "refused" and "called off" in again.text


@pytest.mark.rules_only
async def test_seats_resigned_taken_and_computer(service, store):
    """Battlecars of ann, ben, cal and a computer: cal resigned (he is asked like the others), ben's seat went to
    dave (dave is asked, and sits in the rematch by his own name), the computer's seat needs no answer and stays
    the computer's."""
    extra = [third_join("battlecars"), ("ann", "/game add-ai")]
    opening = lines("battlecars", SEED, start=False)
    for user, line in [*opening, *extra, lines("battlecars", SEED)[-1]]:
        assert (await run(service, user, line)).outcome == "applied", (user, line)
    assert (await run(service, "cal", "/game resign confirm:yes")).outcome == "applied"
    assert (await run(service, "ben", "/game seat give to:dave")).outcome == "applied"
    assert (await run(service, "dave", "/game seat take")).outcome == "applied"
    final = await run(service, "ann", "/game end")
    asked = await press(service, "ann", rematch_of(final))
    assert set(asked.mentions) == {"dave", "cal"}, asked.mentions
    assert (await run(service, "ben", "/game rematch")).outcome == "refused"   # his seat is dave's now
    assert (await run(service, "cal", "/game rematch")).outcome == "shown"
    made = await run(service, "dave", "/game rematch")
    assert made.outcome == "applied", made.text
    state = get_ruleset("battlecars").load_state((await store.active_game(CHANNEL)).state)
    ids = [p.id for p in state.players]
    assert ids[-1] == "ann" and {"dave", "cal"} <= set(ids) and "ben" not in ids
    assert next(p for p in state.players if p.id == "dave").name == "dave"
    computer = [p for p in state.players if p.id.startswith("ai-")]
    assert len(computer) == 1 and computer[0].ai


@pytest.mark.rules_only
async def test_a_player_alone_with_the_computer_gets_the_rematch_at_once(service, store):
    """ann and a computer driver: her Rematch makes and starts the new game at once (the computer is asked
    nothing), the computer's seat still the computer's."""
    for line in ("/game new ruleset:speedway seed:3 arena:duel", "/game join car:brawler", "/game add-ai",
                 "/game start"):
        assert (await run(service, "ann", line)).outcome == "applied", line
    final = await run(service, "ann", "/game end")
    made = await press(service, "ann", rematch_of(final))
    assert made.outcome == "applied" and "Rematch of game 1: game 2" in made.text, made.text
    state = get_ruleset("speedway").load_state((await store.active_game(CHANNEL)).state)
    assert [(p.id.startswith("ai-"), p.ai) for p in state.players] == [(True, True), (False, False)]
    assert state.phase != "lobby"


async def test_the_table_s_settings_come_along_and_an_open_rollback_vote_ends_with_the_game(service, store):
    """A deadline set on the finished game holds in the rematch (its first player has a deadline timer); a
    rollback vote open when the host ended the game closed with it; the finished game keeps its /stats."""
    for user, line in lines("battlecars", SEED):
        await run(service, user, line)
    assert "24" in (await run(service, "ann", "/game settings deadline_hours:24")).text
    ruleset = get_ruleset("battlecars")
    waiting = ruleset.acting_players(ruleset.load_state((await store.active_game(CHANNEL)).state))[0]
    moved = await run(service, waiting, (await service.own_choices(CHANNEL, waiting))[0].command)
    assert moved.outcome == "applied", moved.text
    assert (await run(service, "ann", "/game rollback to:3")).outcome == "shown"
    old = await store.active_game(CHANNEL)
    final = await run(service, "ben", "/game resign confirm:yes")   # ann wins
    assert await store.rollback_vote(old.id) is None and "Rematch" in [b.label for b in final.buttons], final.text
    assert (await run(service, "ann", "/game rollback vote:yes")).outcome == "refused"
    await run(service, "ann", "/game rematch")
    made = await run(service, "ben", "/game rematch")
    new = await store.active_game(CHANNEL)
    assert json.loads(new.settings)["deadline_hours"] == 24
    timers = await store.timers(new.id)
    assert timers and all(t.deadline_due is not None for t in timers) and made.mentions
    late = max(t.deadline_due for t in timers) + 1
    told = [n.reply.text for _ in range(3) for n in await service.send_claimed(await store.claim_due(late))]
    assert any("autopilot" in text for text in told) and (await store.game(new.id)).version > new.version, told
    stats = await run(service, "ann", "/stats")
    assert "Battlecars**: 1 game, 1 won" in stats.text, stats.text   # the rematch, running, counts nothing


async def test_a_player_in_their_away_hours_is_not_pinged_by_the_question(service, store):
    """ben's away hours cover now (the table's clock: 17:00 in Tokyo): the proposal pings nobody."""
    await run(service, "ben", "/me settings time_zone:Asia/Tokyo away:16-18")
    await ended(service, store, "track")
    asked = await run(service, "ann", "/game rematch")
    assert asked.outcome == "shown" and asked.mentions == () and "Waiting on ben" in asked.text


@pytest.mark.rules_only
async def test_the_finished_game_stays_readable_by_its_number_once_the_rematch_runs(service, store):
    """Once the rematch runs in the channel, game:N reads the finished game (log, export, verify); a
    number of no game that ended here is refused."""
    await ended(service, store, "track")
    old = await store.latest_game(CHANNEL)
    await run(service, "ann", "/game rematch")
    made = await run(service, "ben", "/game rematch")
    assert f"/game log game:{old.id}" in made.text
    log = await run(service, "ann", f"/game log game:{old.id}")
    assert log.outcome == "shown" and log.text.endswith("#4 The game was ended by ann."), log.text
    assert (await run(service, "ann", "/game log")).text != log.text   # the rematch's own log
    verified = await run(service, "zed", f"/game verify game:{old.id}")
    assert verified.text.startswith(f"Game {old.id}: replaying all 4 actions from the seed rebuilds"), verified.text
    exported = await run(service, "zed", f"/game export game:{old.id}")
    assert json.loads(exported.files[0].data)["seed"] == old.seed
    for other in (old.id + 1, 999):   # the running rematch, and no game
        refused = await run(service, "ann", f"/game log game:{other}")
        assert refused.outcome == "refused" and refused.text == f"game: no game {other} ended in this channel."
    assert (await run(service, "ann", f"/game log game:{old.id}", channel="elsewhere")).outcome == "refused"


@pytest.mark.rules_only
async def test_help_names_the_rematch(service):
    """/help outside a game lists /game rematch; /help command:"game rematch" explains it."""
    assert "/game rematch" in (await run(service, "ann", "/help", channel="nothing")).text
    told = await run(service, "ann", '/help command:"game rematch"')
    assert "the first seat going last" in told.text and "vote" in told.text


@pytest.mark.sqlite_only
def test_the_command_line_proposes_and_answers_a_rematch(tmp_path):
    """`pitboss exec` (each a process of its own): ann proposes after the end, ben's yes makes the game, pinging
    whom it waits on; a second proposal is refused with exit status 1."""
    db = str(tmp_path / "cli.db")
    track_on_the_command_line(db, tmp_path)
    exec_in(db, tmp_path)("ann", "/game end")
    common = ("exec", "--db", db, "--channel", "c", "--user")
    asked = run_pitboss(*common, "ann", "/game rematch", cwd=tmp_path)
    assert asked.returncode == 0 and "ping: ben" in asked.stdout and "proposes a rematch of game 1" in asked.stdout
    made = run_pitboss(*common, "ben", "/game rematch", cwd=tmp_path)
    assert made.returncode == 0 and "Rematch of game 1: game 2, Track" in made.stdout, made.stdout
    assert stored_state(get_ruleset("track"), db).phase != "lobby"
    again = run_pitboss(*common, "ben", "/game rematch", cwd=tmp_path)
    assert again.returncode == 1 and again.stdout.startswith("refused: The game here is not over"), again.stdout
    log = run_pitboss(*common, "zed", "/game log game:1", cwd=tmp_path)
    assert log.returncode == 0 and "#4 The game was ended by ann." in log.stdout


@pytest.mark.rules_only
async def test_the_lobby_comes_back_whole_a_group_s_own_track_and_a_second_car(service, store):
    """A race on the group's own track (added by the host in the lobby) comes back on it; a Speedway player's
    second car comes back too, the first car's join going last."""
    from bot.table.protocol.commands import Command
    from tests.test_race_table import SHORT_TRACK

    for user, line in (("ann", "/game new ruleset:race seed:4 tuning:0"), ("ann", Command("custom", {
            "file": SHORT_TRACK.encode()})), ("ann", "/game join pilot:rookie"), ("ben", "/game join pilot:veteran"),
            ("ann", "/game start"), ("ann", "/game end")):
        command = parse(line) if isinstance(line, str) else line
        assert (await service.execute("race", Actor(user, user), command)).outcome == "applied", line
    await run(service, "ann", "/game rematch", "race")
    assert (await run(service, "ben", "/game rematch", "race")).outcome == "applied"
    state = get_ruleset("race").load_state((await store.active_game("race")).state)
    assert state.the_track.name == "Short Hop" and [s[0] for s in state.seats] == ["ben", "ann"]
    for user, line in (("ann", "/game new ruleset:speedway seed:4 arena:classic"), ("ann", "/game join car:brawler"),
                       ("ben", "/game join car:torch"), ("ann", "/game join car:sniper"), ("ann", "/game start"),
                       ("ann", "/game end")):
        assert (await run(service, user, line, "cars")).outcome == "applied", line
    await run(service, "ben", "/game rematch", "cars")
    assert (await run(service, "ann", "/game rematch", "cars")).outcome == "applied"
    state = get_ruleset("speedway").load_state((await store.active_game("cars")).state)
    assert [(c.owner, c.design) for c in state.cars] == [("ben", "torch"), ("ann", "sniper"), ("ann", "brawler")]
