"""A seated GM's private notes and private thread (issue 27, item 5), through the service and the command
line: `/gm racer: tell:` is logged like any action, read only by its racer's player and the GM (view,
/notes, catch-up, log, export, even once the race is over), pings its racer, takes no turn and starts no
clock; the GM's thread (`/gm thread:yes`, opened by the Discord adapter) is linked to the game in the store,
takes only the GM's commands, answers privately there and publicly in the channel, and outlives a restart."""

from __future__ import annotations

import json

import pytest

from bot.table.protocol.commands import Command, CommandSyntaxError, parse
from bot.table.protocol.replies import Actor
from bot.table.service.entry import GameService
from rules.race.ruleset import RULESET
from tests.conftest import TABLE_TIME, exec_in, run_cli

SECRET = "watch the left wall at the bend"


async def _race(service: GameService, channel: str = "c") -> None:
    for user, line in (("gina", "/game new ruleset:race gm:yes tuning:0 seed:7"),
                       ("alice", "/game join pilot:rookie vehicle:racing_swoop"),
                       ("bob", "/game join pilot:champion vehicle:podracer"), ("gina", "/game start")):
        assert (await _do(service, user, line, channel)).outcome == "applied", line


async def _do(service: GameService, user: str, line: str, channel: str = "c", **kw):
    return await service.execute(channel, Actor(user, user), parse(line), **kw)


async def _state(service: GameService):
    game = await service._store.latest_game("c")
    return RULESET.load_state(game.state)


async def test_a_note_reaches_its_racer_alone_and_the_channel_hears_only_that_it_was_sent(service):
    await _race(service)
    before = await _state(service)
    timers = await service._store.timers_of("gina")
    told = await _do(service, "gina", f'/gm racer:alice tell:"{SECRET}"')
    assert told.outcome == "applied" and told.ephemeral and SECRET not in told.text
    (notice,) = told.notices
    assert notice.channel == "c" and notice.reply.mentions == ("alice",) and not notice.reply.ephemeral
    assert notice.reply.text.startswith("The GM told alice something.") and SECRET not in notice.reply.text
    after = await _state(service)
    assert RULESET.turn_key(after) == RULESET.turn_key(before) and after.phase == before.phase   # no turn
    assert await service._store.timers_of("gina") == timers                                     # no clock moved
    assert SECRET in (await _do(service, "alice", "/notes")).text
    assert SECRET in (await _do(service, "gina", "/notes")).text
    assert "no note" in (await _do(service, "bob", "/notes")).text
    assert SECRET in (await _do(service, "alice", "/game catchup")).text
    for viewer in ("bob", "carol"):
        for line in ("/game catchup", "/game log", "/game status"):
            reply = await _do(service, viewer, line)
            assert SECRET not in reply.text and SECRET not in reply.alt_text, (viewer, line)
        export = (await _do(service, viewer, "/game export")).files[0].data.decode()
        assert SECRET not in export and "a private note from the GM to alice" in export
        assert RULESET.view(after, viewer).notes == ()
    assert RULESET.view(after, "alice").notes == after.notes and RULESET.view(after, None).notes == ()
    assert (await _do(service, "gina", "/game end")).outcome == "applied"   # over: still only theirs
    assert SECRET not in (await _do(service, "bob", "/game export")).files[0].data.decode()
    assert SECRET in (await _do(service, "alice", "/game export")).files[0].data.decode()
    assert (await _do(service, "bob", "/game verify")).text.count("rebuilds the table exactly") == 1


async def test_a_note_is_refused_cleanly_to_anyone_but_the_gm_and_for_a_bad_racer_or_text(service):
    await _race(service)
    for user, line, words in (("alice", '/gm racer:bob tell:"hi"', "Only the game master"),
                              ("gina", '/gm racer:zed tell:"hi"', "No racer 'zed'"),
                              ("gina", '/gm tell:"hi"', "name the racer too"),
                              ("gina", '/gm racer:alice tell:"@@ <> **"', "Say what the note says")):
        reply = await _do(service, user, line)
        assert reply.outcome == "refused" and reply.ephemeral and words in reply.text, (line, reply.text)
    with pytest.raises(CommandSyntaxError, match="at most 500 characters"):
        parse(f'/gm racer:alice tell:"{"x" * 501}"')
    assert (await _state(service)).notes == ()
    told = await _do(service, "gina", '/gm racer:alice tell:"ping <@123> and @everyone at **once**"')
    assert told.outcome == "applied"
    (note,) = (await _state(service)).notes
    assert note.text == "ping 123 and everyone at once"   # cleaned as every free text is
    assert (await _do(service, "gina", "/undo")).outcome == "applied"   # no dice: the GM may take it back
    assert (await _state(service)).notes == ()


async def test_the_gms_thread_takes_the_gms_commands_for_the_channels_game_and_outlives_a_restart(store):
    service = GameService(store, render=None, clock=lambda: TABLE_TIME)
    await _race(service)
    assert (await service.gm_thread_refusal("c", Actor("alice", "alice"))).outcome == "refused"
    assert await service.gm_thread_refusal("c", Actor("gina", "gina")) is None
    linked = await service.link_gm_thread("c", Actor("gina", "gina"), "t1")
    assert linked.ephemeral and "t1" in linked.text and linked.notices[0].channel == "t1"
    service = GameService(store, render=None, clock=lambda: TABLE_TIME)   # a restart: the link is stored
    dcs = await _do(service, "gina", "/dcs", "t1", private_thread=True)
    assert dcs.outcome == "shown" and not dcs.ephemeral and "DC" in dcs.text   # the thread's own message
    planned = await _do(service, "gina", "/gm change:3", "t1", private_thread=True)
    assert planned.outcome == "applied" and not planned.ephemeral and not planned.notices and not planned.buttons
    revealed = await _do(service, "gina", "/gm reveal:yes", "t1", private_thread=True)
    assert revealed.text.startswith("Done: posted in c") and revealed.notices[0].channel == "c"
    assert revealed.notices[0].reply.outcome == "applied"   # the reveal is the channel's
    stray = await _do(service, "gina", "/game status", "t1", private_thread=True)
    assert stray.outcome == "refused" and stray.ephemeral and "play /game status in c" in stray.text
    other = await _do(service, "alice", "/dcs", "t1", private_thread=True)
    assert other.outcome == "refused" and "only the game's GM acts here" in other.text
    assert await service.suggest("t1", Actor("gina", "gina"), "gm", "racer", "", {}, private_thread=True) == [
        ("alice", "alice"), ("bob", "bob")]
    assert await service.suggest("c", Actor("alice", "alice"), "gm", "racer", "", {}) == []
    unlinked = await _do(service, "gina", "/game status", "t2", private_thread=True)
    assert "no game" in unlinked.text.lower()   # a private thread of no GM: a channel like any other


async def test_a_moved_games_gm_thread_points_to_where_it_went_not_that_it_is_over(service):
    """Play-test of issue 36: after the host moves a race (export, import in another channel), the GM's old
    thread says where the game went and how to open a new thread there, not "the game is over"."""
    await _race(service)
    await service.link_gm_thread("c", Actor("gina", "gina"), "t1")
    exported = await _do(service, "gina", "/game export")
    moved = await service.execute("d", Actor("gina", "gina"), Command("game import", {"file": exported.files[0].data}))
    assert moved.outcome == "applied", moved.text
    stale = await _do(service, "gina", "/gm change:2", "t1", private_thread=True)
    assert stale.outcome == "refused" and stale.ephemeral
    assert stale.text == "This GM thread's game moved to d: open a new GM thread there with /gm thread:yes.", stale.text


async def test_a_gm_thread_is_refused_for_a_race_without_a_seated_gm_and_for_another_game(service):
    await _do(service, "ann", "/game new ruleset:race tuning:0 seed:2")
    assert "no seated GM" in (await service.gm_thread_refusal("c", Actor("ann", "ann"))).text
    await _do(service, "ann", "/game new ruleset:track seed:2", "d")
    assert "has no game master" in (await service.gm_thread_refusal("d", Actor("ann", "ann"))).text
    refused = await service.execute("c", Actor("ann", "ann"), Command("gm", {"thread": "yes"}))
    assert refused.outcome == "refused" and "private Discord thread" in refused.text


def test_the_command_line_sends_and_reads_a_note_and_refuses_the_thread(tmp_path):
    db = str(tmp_path / "p.db")
    run = exec_in(db, tmp_path)
    for user, line in (("gina", "/game new ruleset:race gm:yes tuning:0 seed:7"),
                       ("alice", "/game join pilot:rookie vehicle:racing_swoop"),
                       ("bob", "/game join pilot:champion vehicle:podracer"), ("gina", "/game start")):
        run(user, line)
    told = run("gina", f'/gm racer:alice tell:"{SECRET}"')
    assert "[channel c] The GM told alice something." in told and "(ping: alice)" in told
    assert SECRET not in told
    assert SECRET in run("alice", "/notes") and SECRET not in run("bob", "/notes")
    log = run("bob", "/game export")
    exported = json.loads((tmp_path / next(p.name for p in tmp_path.glob("pitboss-game-*.json"))).read_text()) \
        if "file:" in log else {}
    assert SECRET not in json.dumps(exported)
    thread = run_cli("exec", "--db", db, "--channel", "c", "--user", "gina", "/gm thread:yes", cwd=tmp_path)
    assert thread.returncode != 0 and "private Discord thread" in thread.stdout + thread.stderr
