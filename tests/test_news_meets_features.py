"""What absent players are told (`/game catchup`, the turn's pings, `/games`, following a game, the end's ping)
where it meets other features: a GM's private notes, the autopilot, a seat that changed hands, a seat the computer
plays for its player, a resignation, a rollback."""

from __future__ import annotations

from bot.table.protocol.commands import parse
from bot.table.protocol.replies import Actor
from bot.table.service.entry import GameService
from tests.test_catchup_away import missed, play, run, track_duel
from tests.test_plugin_toy import HOUR, Clock

SECRET = "watch the left wall at the bend"


async def gm_race(store, clock: Clock, settings: str = "/game settings reminder_hours:12"):
    """gina the GM, alice and bob racing (started: the GM readies the first section); the command of a member."""
    service = GameService(store, render=None, clock=clock)

    async def race(user: str, line: str):
        return await service.execute("race", Actor(user, user), parse(line), guild="g1")
    for user, line in (("gina", "/game new ruleset:race gm:yes tuning:0 seed:7"),
                       ("alice", "/game join pilot:rookie vehicle:racing_swoop"),
                       ("bob", "/game join pilot:champion vehicle:podracer"), ("gina", settings),
                       ("gina", "/game start")):
        assert (await race(user, line)).outcome in ("applied", "shown"), line
    return service, race


async def test_a_gm_note_stays_in_the_catchup_after_the_autopilot_played_for_its_racer(store):
    """gina tells alice something privately; alice misses her deadline and the autopilot plays for her. Her catch-up
    counts from her own last play (the autopilot's does not count as hers), and lists "The GM told alice something."
    among what happened since; the note's words must be there too (docs: /gm tell, read in their /game catchup),
    not dropped because the notes are counted from the autopilot's action as if it were hers."""
    clock = Clock()
    service, race = await gm_race(store, clock, "/game settings deadline_hours:6")
    assert (await race("gina", f'/gm racer:alice tell:"{SECRET}"')).outcome == "applied"
    assert SECRET in (await race("alice", "/game catchup")).text
    clock.now += 6.5 * HOUR   # the GM's deadline: the autopilot readies the section
    await service.run_due()
    clock.now += 6.5 * HOUR   # alice's (and bob's): the autopilot plays for them
    played = [n.reply.text for n in await service.run_due()]
    assert any(text.startswith("alice's deadline passed") for text in played), played
    caught = (await race("alice", "/game catchup")).text
    assert "played for you: the autopilot 1" in caught and "The GM told alice something." in caught, caught
    assert SECRET in (await race("alice", "/notes")).text
    assert SECRET in caught, caught


async def test_a_seats_new_holder_reads_the_gms_notes_to_it_in_the_catchup(store):
    """gina tells alice something; alice hands her racer to dave. A note goes with its racer: dave reads it by
    /notes, and his catch-up (the seat's story) lists "The GM told alice something."; the words must come with it,
    as the docs promise the notes' reader gets them in their /game catchup."""
    service, race = await gm_race(store, Clock())
    assert (await race("gina", f'/gm racer:alice tell:"{SECRET}"')).outcome == "applied"
    assert (await race("alice", "/game seat give to:dave")).outcome == "applied"
    assert (await race("dave", "/game seat take")).outcome == "applied"
    assert SECRET in (await race("dave", "/notes")).text
    story = (await race("dave", "/game catchup")).text
    assert "\nalice's seat, yours since #" in story and "The GM told alice something." in story, story
    assert story.startswith("Notes to alice's seat")
    assert SECRET in story, story
    assert SECRET not in (await race("alice", "/game catchup")).text   # the one who gave it up no longer reads it


async def test_games_names_a_seats_new_holder_in_its_clock_line(store):
    """ben hands his Track seat to dave; it is dave's turn. The turn message and /game status say
    "⏰ ben's seat (dave): deadline …" (the docs: the ⏰ line names a seat's new holder); /games, which the docs give
    the same ⏰ line, must not tell ann the game waits on "ben", who is no longer seated."""
    clock = Clock()
    service = await track_duel(store, clock)
    assert (await run(service, "ben", "/game seat give to:dave")).outcome == "applied"
    assert (await run(service, "dave", "/game seat take")).outcome == "applied"
    await play(service, "ann")
    assert "⏰ ben's seat (dave): deadline" in (await run(service, "ann", "/game status")).text
    listed = (await run(service, "ann", "/games")).text
    assert "⏰ ben's seat (dave): deadline" in listed, listed


async def test_the_end_pings_a_player_whose_seat_the_computer_plays_for_them(store):
    """ben lets the computer play his seat for a while (it is still his: he votes, he is asked for the rematch).
    ann ends the game. The message that ends a game pings everyone still seated: ben must be told his game is over,
    not left to find out; only born computer seats go unpinged."""
    service = await track_duel(store, Clock())
    assert (await run(service, "ben", "/game seat computer")).outcome == "applied"
    ended = await run(service, "ann", "/game end")
    assert ended.outcome == "applied" and "Game over" in ended.text, ended.text
    assert "ben" in ended.mentions, (ended.mentions, ended.ping_words)


async def test_the_autopilots_turn_points_a_seats_new_holder_to_its_story(store):
    """ben hands his seat to dave; then ann misses her deadline and the autopilot plays for her, which makes it
    dave's turn. When ann plays herself, the ping says "ben's seat (dave): you play ben's seat now; /game catchup
    tells you what happened to it." (the docs: a seat's new holder is pointed to its story); the autopilot's message
    pings dave all the same and must point him there too."""
    clock = Clock()
    service = await track_duel(store, clock)
    assert (await run(service, "ben", "/game seat give to:dave")).outcome == "applied"
    assert (await run(service, "dave", "/game seat take")).outcome == "applied"
    notice = await missed(service, clock, "ann")
    assert "dave" in notice.mentions, notice.mentions
    assert "you play ben's seat now; /game catchup tells you what happened to it" in notice.text, notice.text


async def test_a_player_who_resigned_may_follow_the_game_and_hears_of_its_end(store):
    """carol resigns a Speedway game of three: she no longer plays in it (never waited on, not pinged at its end).
    /game follow is for anyone not playing in the game: she must be able to follow it to its end, not be refused
    with "it pings you when it waits on you", which it never will again."""
    service = GameService(store, render=None, clock=Clock())

    async def at(user: str, line: str):
        return await service.execute("c", Actor(user, user), parse(line), guild="g1")
    for user, line in (("alice", "/game new ruleset:speedway seed:2"), ("alice", "/game join car:brawler"),
                       ("bob", "/game join car:torch"), ("carol", "/game join car:torch"),
                       ("alice", "/game start"), ("carol", "/game resign confirm:yes")):
        assert (await at(user, line)).outcome == "applied", line
    follow = await at("carol", "/game follow mode:end")
    assert follow.outcome != "refused", follow.text
    ended = await at("alice", "/game end")
    pinged = set(ended.mentions) | {m for n in ended.notices for m in n.reply.mentions}
    assert "carol" in pinged, (ended.mentions, [(n.reply.text, n.reply.mentions) for n in ended.notices])


async def test_a_rollback_its_player_proposed_is_not_told_as_the_computers_play_for_them(store):
    """ben lets the computer play his seat; it is still his to vote, and he proposes a rollback, which ann agrees
    to. ben's catch-up must not tell him "The computer plays for ben: The table voted to roll back …" nor count
    the rollback among what the computer played for him: the table's vote is nobody's move for his seat."""
    service = await track_duel(store, Clock())
    assert (await run(service, "ben", "/game seat computer")).outcome == "applied"
    await play(service, "ann")   # the computer plays ben's turn after it
    await play(service, "ann")
    assert (await run(service, "ben", "/game rollback to:7")).outcome == "shown"
    rolled = await run(service, "ann", "/game rollback vote:yes")
    assert rolled.outcome == "applied" and "The table voted to roll back to #7" in rolled.text, rolled.text
    caught = (await run(service, "ben", "/game catchup")).text
    assert "The table voted to roll back to #7" in caught, caught
    assert "The computer plays for ben: The table voted" not in caught, caught
    assert "the computer 1)" in caught.splitlines()[0], caught   # only its move after the rollback
